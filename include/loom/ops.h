/*
 * loom/ops.h - maintenance operation options, results, and the maintainer
 * backend that executes them.
 *
 * The seed's DeltaTableMaintainer becomes `loom_maintainer`: a struct of
 * function pointers (vacuum, compact, zorder, purge, analyze), each taking
 * the table URI, its resolved location (storage options, writer and commit
 * settings) and the operation's options, and filling a `loom_op_result`. The native engine
 * (src/ops) implements it and is returned by loom_maintainer_native(); tests
 * and embedders may supply their own.
 *
 * Every single-table operation -- loom_vacuum, loom_compact, loom_zorder
 * here, loom_checkpoint and loom_cleanup_logs (loom/checkpoint.h),
 * loom_convert (loom/convert.h) -- takes the same arguments in the same
 * order, the maintainer's without `self`:
 *     (loom_op_result *out, const char *uri, const loom_table_location *loc,
 *      const <op>_opts *opts, const loom_cancel *cancel)
 * `loc` (may be NULL) carries the storage options, writer and commit
 * settings; `opts` NULL means the defaults of its *_INIT macro (Z-order
 * has no default columns, so it needs them); `cancel` (may be NULL) stops
 * the work at the next safe point.
 *
 * Option structs are transparent and only ever grow at the end: fields are
 * appended and the version bumped. The library accepts every older version
 * and reads only the fields that version has (the others take their
 * defaults), so a program built against an older header keeps working.
 * Initialise them with their *_INIT macro (or *_init function): a struct
 * whose version is not set (0) or newer than the library is rejected with
 * LOOM_EINVAL, so a zero-filled struct can never silently mean "not a dry
 * run".
 */
#ifndef LOOM_OPS_H
#define LOOM_OPS_H

#include "common.h"

LOOM_BEGIN_DECL

/* ---- options ------------------------------------------------------------ */

/* retention_hours value meaning "use the table's
 * delta.deletedFileRetentionDuration (default 168 h)". */
#define LOOM_RETENTION_TABLE_DEFAULT (-1)

#define LOOM_VACUUM_OPTS_VERSION 1
typedef struct loom_vacuum_opts {
	unsigned int version;    /* LOOM_VACUUM_OPTS_VERSION */
	int64_t retention_hours; /* >= 0, or LOOM_RETENTION_TABLE_DEFAULT */
	int dry_run;             /* default 1: list eligible files, delete nothing */
	int full;                /* default 0 (lite: only files the log removed);
	                          * 1: also unreferenced files older than retention */
	int retention_check;     /* default 1: refuse a retention below the
	                          * table's delta.deletedFileRetentionDuration */
} loom_vacuum_opts;
#define LOOM_VACUUM_OPTS_INIT { LOOM_VACUUM_OPTS_VERSION, LOOM_RETENTION_TABLE_DEFAULT, 1, 0, 1 }

#define LOOM_COMPACT_OPTS_VERSION 3 /* 2: copy_row_group_min_size; 3: commit_every */
typedef struct loom_compact_opts {
	unsigned int version;    /* LOOM_COMPACT_OPTS_VERSION */
	int64_t target_size;     /* bytes; 0 = table/engine default; < 0 invalid */
	int dry_run;             /* default 0: 1 = plan only, write nothing */
	/* "col=value" partition filters, ANDed (borrowed for the call; NULL /
	 * 0 = every partition). A null partition value is matched by
	 * "col=__HIVE_DEFAULT_PARTITION__". */
	const char *const *partition_filters;
	size_t n_partition_filters;
	/* Called (from worker threads) after each unit of work is rewritten:
	 * a unit is a run of bins of one partition written as one stream;
	 * the counts are units done/total, then input bytes done/total. May
	 * be NULL. */
	void (*progress)(void *ctx, int64_t units_done, int64_t units_total,
	                 int64_t bytes_done, int64_t bytes_total);
	void *progress_ctx;
	/* (version 2) input row groups of at least this many (compressed) bytes
	 * that need no change are copied into the new files as they are
	 * (fast, but they keep their size); smaller ones are decoded and
	 * merged into row groups of the writer's row-group size. 0 = the
	 * location's writer setting `copy_row_group_min_size`, else an eighth
	 * of the writer's row-group size (2 MiB by default);
	 * LOOM_COPY_ROW_GROUPS_OFF = re-encode every row group. */
	int64_t copy_row_group_min_size;
	/* (version 3) partial progress: 0 = one commit at the end (nothing is
	 * kept of a run that stops early); > 0 = finished units of work are
	 * committed as they finish, in order of completion, each commit
	 * holding at least this many input bytes (the last the rest), each
	 * conflict-checked on its own. A run that fails, is cancelled or is
	 * killed keeps every commit made (and, failing or cancelled, commits
	 * the units it had finished); the next run compacts what is left. */
	int64_t commit_every;
} loom_compact_opts;
#define LOOM_COPY_ROW_GROUPS_OFF (-1)
#define LOOM_COMPACT_OPTS_INIT { LOOM_COMPACT_OPTS_VERSION, 0, 0, NULL, 0, NULL, NULL, 0, 0 }

typedef enum loom_zorder_curve {
	LOOM_ZORDER_CURVE_AUTO = 0,   /* the engine's choice (Hilbert) */
	LOOM_ZORDER_CURVE_Z = 1,      /* Morton / Z-order */
	LOOM_ZORDER_CURVE_HILBERT = 2
} loom_zorder_curve;

#define LOOM_ZORDER_OPTS_VERSION 2 /* 2: commit_every */
typedef struct loom_zorder_opts {
	unsigned int version;        /* LOOM_ZORDER_OPTS_VERSION */
	const char *const *columns;  /* borrowed for the call; at least one */
	size_t n_columns;
	int64_t target_size;         /* bytes; 0 = default; < 0 invalid */
	/* appended fields (Z-order issue 7) */
	loom_zorder_curve curve;     /* default AUTO */
	int full;                    /* 1: rewrite partitions already clustered
	                              * by these columns and curve too */
	int dry_run;                 /* 1: plan only, write nothing */
	int64_t memory_budget;       /* bytes for rows held while sorting one
	                              * partition; 0 = 1 GiB; larger partitions
	                              * are sorted externally: rows are routed
	                              * by key range to spill files */
	const char *temp_dir;        /* spill files; NULL: $LOOM_TMPDIR, $TMPDIR,
	                              * /tmp. Borrowed for the call. Spills are
	                              * anonymous (unlinked at creation): they
	                              * vanish however the run ends */
	int64_t spill_limit;         /* bytes all spills of a run may hold; 0:
	                              * 90 % of the free space in temp_dir */
	int64_t commit_every;        /* (version 2) as loom_compact_opts'; a
	                              * partition is always committed whole */
} loom_zorder_opts;

#define LOOM_ZORDER_OPTS_INIT { LOOM_ZORDER_OPTS_VERSION, NULL, 0, 0, LOOM_ZORDER_CURVE_AUTO, 0, 0, 0, NULL, 0, 0 }

#define LOOM_PURGE_OPTS_VERSION 1
typedef struct loom_purge_opts {
	unsigned int version;    /* LOOM_PURGE_OPTS_VERSION */
	int64_t target_size;     /* bytes a new file holds at most (as
	                          * compaction's); 0 = table/engine default */
	int dry_run;             /* default 0: 1 = plan only, write nothing */
	/* "col=value" partition filters, ANDed, as loom_compact_opts' */
	const char *const *partition_filters;
	size_t n_partition_filters;
} loom_purge_opts;
#define LOOM_PURGE_OPTS_INIT { LOOM_PURGE_OPTS_VERSION, 0, 0, NULL, 0 }

#define LOOM_ANALYZE_OPTS_VERSION 1
typedef struct loom_analyze_opts {
	unsigned int version;    /* LOOM_ANALYZE_OPTS_VERSION */
	int all;                 /* 1: recompute every live file's statistics;
	                          * default 0: only files without statistics
	                          * or whose statistics miss a stats column */
	int dry_run;             /* default 0: 1 = list the files, commit nothing */
	/* column names (logical, dotted into structs; LOOM_EINVAL for a
	 * name the table's schema lacks), borrowed for the call: only files
	 * whose statistics miss one of these are recomputed (the stats
	 * written always follow the table's stats columns); NULL / 0 = every
	 * stats column */
	const char *const *columns;
	size_t n_columns;
} loom_analyze_opts;
#define LOOM_ANALYZE_OPTS_INIT { LOOM_ANALYZE_OPTS_VERSION, 0, 0, NULL, 0 }

/** The curve a name means, as the CLI, plan files, the storage YAML and
 *  the Python package spell it: "z" (also "zorder", "morton"), "hilbert",
 *  "auto". LOOM_EINVAL for anything else (nothing recorded). */
LOOM_EXTERN(int) loom_zorder_curve_from_name(loom_zorder_curve *curve, const char *name);
/** "auto", "z" or "hilbert"; NULL for an unknown value. Static storage. */
LOOM_EXTERN(const char *) loom_zorder_curve_name(loom_zorder_curve curve);

/** Fill `o`, a struct of `version` (1 to the current one: an older program
 *  passes its own), with the defaults: only that version's fields are
 *  written. LOOM_EINVAL if `version` is not one this library knows. */
LOOM_EXTERN(int) loom_vacuum_opts_init(loom_vacuum_opts *o, unsigned int version);
LOOM_EXTERN(int) loom_compact_opts_init(loom_compact_opts *o, unsigned int version);
LOOM_EXTERN(int) loom_zorder_opts_init(loom_zorder_opts *o, unsigned int version);
LOOM_EXTERN(int) loom_purge_opts_init(loom_purge_opts *o, unsigned int version);
LOOM_EXTERN(int) loom_analyze_opts_init(loom_analyze_opts *o, unsigned int version);

/** Check options of any known version: version set, retention >= 0 or
 *  the table default, target sizes >= 0, switches 0 or 1, at least one
 *  non-empty Z-order column and no duplicates. LOOM_EINVAL with a message
 *  naming the struct or the bad field. */
LOOM_EXTERN(int) loom_vacuum_opts_check(const loom_vacuum_opts *o);
LOOM_EXTERN(int) loom_compact_opts_check(const loom_compact_opts *o);
LOOM_EXTERN(int) loom_zorder_opts_check(const loom_zorder_opts *o);
LOOM_EXTERN(int) loom_purge_opts_check(const loom_purge_opts *o);
LOOM_EXTERN(int) loom_analyze_opts_check(const loom_analyze_opts *o);

/* ---- where a table lives ------------------------------------------------ */

/* The physical location of one table, as resolved from the storage config
 * (the seed's TableLocation). Everything is borrowed from the config (or
 * from the caller that built it) and valid during the call it is passed to.
 * A caller that builds one (a custom locator) initialises it with
 * LOOM_TABLE_LOCATION_INIT or loom_table_location_init; the library reads
 * only the fields of its version and refuses an unset one (LOOM_EINVAL). */
#define LOOM_TABLE_LOCATION_VERSION 1
typedef struct loom_table_location {
	unsigned int version;            /* LOOM_TABLE_LOCATION_VERSION */
	const char *uri;                 /* table root: a path, file://, s3://... */
	const loom_kv *storage_options;  /* object-store settings (credentials!):
	                                  * every operation opens its store with
	                                  * them and masks their secret values in
	                                  * every message and commit */
	size_t n_storage_options;
	const loom_kv *writer;           /* Parquet writer settings */
	size_t n_writer;
	const loom_kv *delta_config;     /* table properties to set on write */
	size_t n_delta_config;
	const loom_kv *commit;           /* commit properties (custom metadata, retries) */
	size_t n_commit;
	int64_t target_file_size;        /* bytes; 0 = unset */
} loom_table_location;
#define LOOM_TABLE_LOCATION_INIT { LOOM_TABLE_LOCATION_VERSION, NULL, NULL, 0, NULL, 0, NULL, 0, \
	                           NULL, 0, 0 }
/** Fill `loc` (of `version`, 1 to LOOM_TABLE_LOCATION_VERSION) with an
 *  empty location. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_table_location_init(loom_table_location *loc, unsigned int version);

/* ---- cancellation ------------------------------------------------------- */

/* A cancel token. Every operation takes one (NULL: not cancellable) and
 * polls it between files and at any other safe point; once it is set the
 * operation returns LOOM_ECANCELLED, leaving the table as it was or fully
 * committed, never half-written (files a rewrite had written are deleted).
 * A runner owns its own token (loom_runner_cancel sets it); callers of the
 * single-table functions make one with loom_cancel_new. */
typedef struct loom_cancel loom_cancel;

/** A new token, not set. *out is owned by the caller: loom_cancel_free,
 *  after every operation given it has returned. LOOM_ENOMEM. */
LOOM_EXTERN(int) loom_cancel_new(loom_cancel **out);
/** Ask every operation polling `c` to stop. Safe from any thread and from
 *  a signal handler (a lock-free atomic store). NULL is ignored. */
LOOM_EXTERN(void) loom_cancel_request(loom_cancel *c);
/** Clear a request (and a deadline) so the token can be used again. NULL
 *  is ignored. */
LOOM_EXTERN(void) loom_cancel_reset(loom_cancel *c);
/** 1 when cancellation was requested; 0 otherwise and for NULL.
 *  Thread-safe (an atomic load). */
LOOM_EXTERN(int) loom_cancel_requested(const loom_cancel *c);
/** Release a token; NULL is fine. */
LOOM_EXTERN(void) loom_cancel_free(loom_cancel *c);
/** A deadline: `seconds` from now the token counts as requested (a time
 *  budget); 0 or less removes it. NULL is ignored. */
LOOM_EXTERN(void) loom_cancel_set_deadline(loom_cancel *c, double seconds);
/** 1 when the token's deadline has passed (whether or not a request was
 *  made too); 0 otherwise and for NULL. */
LOOM_EXTERN(int) loom_cancel_past_deadline(const loom_cancel *c);

/* ---- results ------------------------------------------------------------ */

typedef enum loom_result_kind {
	LOOM_RESULT_NONE = 0,
	LOOM_RESULT_VACUUM = 1,   /* the seed's VacuumResult */
	LOOM_RESULT_OPTIMIZE = 2  /* the seed's OptimizeResult (compact, Z-order) */
} loom_result_kind;

/* A named integer, for results that extend the two base kinds
 * (bytes rewritten, committed version, a custom op's counters). */
typedef struct loom_metric {
	char *name;   /* owned by the result */
	int64_t value;
} loom_metric;

/* An incomplete multipart upload under a table's root (S3) that VACUUM
 * aborted, or would abort in a dry run. */
typedef struct loom_upload_info {
	char *key;             /* the object it would have become, relative to
	                        * the table root; owned by the result */
	int64_t initiated_ms;  /* when it was started, ms since the Unix epoch */
	int64_t bytes;         /* bytes of its parts; -1 when not listed */
} loom_upload_info;

/* The result of one operation on one table. The caller allocates it and
 * initialises it (LOOM_OP_RESULT_INIT or loom_op_result_init: every
 * operation refuses an unset version with LOOM_EINVAL and fills only the
 * fields of the caller's version); the operation sets `kind` and fills the
 * matching part with the helper functions below (which allocate with
 * loom's allocator); the caller releases what it holds with
 * loom_op_result_free, whatever the operation returned. */
#define LOOM_OP_RESULT_VERSION 1
typedef struct loom_op_result {
	unsigned int version;           /* LOOM_OP_RESULT_VERSION */
	loom_result_kind kind;
	/* LOOM_RESULT_VACUUM: paths (relative to the table root) deleted, or
	 * that would be deleted when the run was dry. */
	char **files_deleted;
	size_t n_files_deleted;
	int dry_run;
	/* LOOM_RESULT_OPTIMIZE */
	int64_t num_files_added;
	int64_t num_files_removed;
	/* Extensions, in insertion order. */
	loom_metric *metrics;
	size_t n_metrics;
	/* Appended (issue 34); like the option structs the result only grows
	 * at the end. LOOM_RESULT_VACUUM: the incomplete multipart uploads
	 * under the table root started before the retention horizon, aborted
	 * (or that would be, when the run was dry), sorted by key. Only stores
	 * that keep such uploads (S3) have any. */
	loom_upload_info *uploads;
	size_t n_uploads;
} loom_op_result;
#define LOOM_OP_RESULT_INIT { LOOM_OP_RESULT_VERSION, LOOM_RESULT_NONE, NULL, 0, 0, 0, 0, NULL, 0, \
	                      NULL, 0 }
/** Set `r` (of `version`, 1 to LOOM_OP_RESULT_VERSION) to an empty result
 *  of that version. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_op_result_init(loom_op_result *r, unsigned int version);

/** Set kind = LOOM_RESULT_VACUUM and append one deleted path (copied). */
LOOM_EXTERN(int) loom_op_result_add_deleted(loom_op_result *r, const char *path);
/** Append one incomplete upload (the key copied). */
LOOM_EXTERN(int) loom_op_result_add_upload(loom_op_result *r, const char *key,
                                           int64_t initiated_ms, int64_t bytes);
/** Append (or replace) a named metric; the name is copied. */
LOOM_EXTERN(int) loom_op_result_set_metric(loom_op_result *r, const char *name, int64_t value);
/** The value of a metric, or `dflt` when absent. */
LOOM_EXTERN(int64_t) loom_op_result_metric(const loom_op_result *r, const char *name, int64_t dflt);
/** Free everything the result owns and empty it; the struct itself is the
 *  caller's (it keeps its version and can be used again). NULL is fine. */
LOOM_EXTERN(void) loom_op_result_free(loom_op_result *r);
/** Deep copy `src` into `dst` (initialised and empty; of any version: it
 *  keeps its own). */
LOOM_EXTERN(int) loom_op_result_copy(loom_op_result *dst, const loom_op_result *src);

/* ---- the maintainer backend --------------------------------------------- */

/* The maintainer grows like the option structs: members are appended at
 * the end and the version bumped. The library accepts every older version
 * and never reads past the members that version has: an op whose member is
 * missing (or NULL) fails with LOOM_EUNSUPPORTED naming the maintainer. */
#define LOOM_MAINTAINER_VERSION 2 /* 2: purge, analyze */

typedef struct loom_maintainer loom_maintainer;

/* Each function runs one operation on the table at `uri` and fills `out`
 * (initialised and empty, from the caller). Return 0, or a negative LOOM_E*
 * code after recording the cause with the thread's error (the runner copies it into
 * the table's result on the worker thread). Functions are called
 * concurrently from several worker threads, for different tables: they must
 * be thread-safe. `cancel` may be NULL. */
struct loom_maintainer {
	unsigned int version;   /* LOOM_MAINTAINER_VERSION */
	const char *name;       /* "native", "test", ... */
	int (*vacuum)(loom_op_result *out, const loom_maintainer *self,
	              const char *uri, const loom_table_location *loc,
	              const loom_vacuum_opts *opts, const loom_cancel *cancel);
	int (*compact)(loom_op_result *out, const loom_maintainer *self,
	               const char *uri, const loom_table_location *loc,
	               const loom_compact_opts *opts, const loom_cancel *cancel);
	int (*zorder)(loom_op_result *out, const loom_maintainer *self,
	               const char *uri, const loom_table_location *loc,
	               const loom_zorder_opts *opts, const loom_cancel *cancel);
	void *payload;          /* the backend's own state */
	/* (version 2) REORG ... APPLY (PURGE) and ANALYZE ... COMPUTE DELTA
	 * STATISTICS, as loom_purge / loom_analyze */
	int (*purge)(loom_op_result *out, const loom_maintainer *self,
	             const char *uri, const loom_table_location *loc,
	             const loom_purge_opts *opts, const loom_cancel *cancel);
	int (*analyze)(loom_op_result *out, const loom_maintainer *self,
	               const char *uri, const loom_table_location *loc,
	               const loom_analyze_opts *opts, const loom_cancel *cancel);
};

/** VACUUM the table at `uri` with the native engine. `out`
 *  (LOOM_OP_RESULT_INIT, released with loom_op_result_free) receives the paths
 *  deleted, or that a dry run would delete, relative to the table root,
 *  sorted, and the metrics numDeletedFiles (or numFilesToDelete for dry
 *  runs), sizeOfDataToDelete (bytes), numVacuumedDirectories and version
 *  (the VACUUM END commit, -1 when nothing was committed). On stores that
 *  keep incomplete multipart uploads (S3), the uploads under the table
 *  root started before the retention horizon are aborted (dry: listed)
 *  and reported in out->uploads with the metrics
 *  numAbortedMultipartUploads (numMultipartUploadsToAbort for dry runs)
 *  and sizeOfMultipartUploads (bytes of their parts). `loc` (may be
 *  NULL) supplies the storage options and the commit metadata; `cancel`
 *  may be NULL.
 *  LOOM_EINVAL for a retention below the table's with the check on,
 *  LOOM_EUNSUPPORTED for a protocol loom may not write. */
LOOM_EXTERN(int) loom_vacuum(loom_op_result *out, const char *uri,
                             const loom_table_location *loc,
                             const loom_vacuum_opts *opts,
                             const loom_cancel *cancel);

/** OPTIMIZE (bin-packing compaction) of the table at `uri` with the native
 *  engine. Per partition, files smaller than the target size (opts, else
 *  loc->target_file_size, else delta.targetFileSize, else 100 MiB) and
 *  files whose deletion vector deletes more than 5 % of their rows are
 *  packed, in the order they were added to the table, first-fit into bins
 *  of at most the target; bins of two or more files (or one file with a
 *  DV) are rewritten, a partition's bins as one stream cut into files of
 *  about the target (the last may take up to half a target more),
 *  DV-deleted rows dropped, and committed with dataChange=false in ONE
 *  commit (operation OPTIMIZE). Nothing to do writes nothing. A table with
 *  liquid clustering (features clustering/liquid with clustering columns)
 *  is clustered by those columns instead, incrementally (ZCubes), and
 *  takes no partition filters.
 *  `out` (LOOM_OP_RESULT_INIT, released with loom_op_result_free) gets kind
 *  OPTIMIZE, num_files_added/removed and the metrics numFilesAdded,
 *  numFilesRemoved, numAddedBytes, numRemovedBytes, partitionsOptimized,
 *  totalConsideredFiles, totalFilesSkipped, numDeletionVectorsRemoved,
 *  numBins, numBatches, targetSize, dryRun, version (-1: no commit) and
 *  filesAdded.{min,max,avg,totalFiles,totalSize} (same for filesRemoved).
 *  `loc` (may be NULL) supplies storage options, writer settings
 *  (compression, compression_level, row_group_size), target_file_size
 *  and commit metadata. On any failure (LOOM_ECONFLICT when a concurrent commit
 *  removed a file being compacted, LOOM_EUNSUPPORTED for tables loom may
 *  not rewrite, LOOM_ECANCELLED) the table is unchanged and the files this
 *  run wrote are deleted. */
LOOM_EXTERN(int) loom_compact(loom_op_result *out, const char *uri,
                              const loom_table_location *loc,
                              const loom_compact_opts *opts,
                              const loom_cancel *cancel);

/** Z-ORDER clustering (OPTIMIZE ZORDER BY) of the table at `uri` with the
 *  native engine. Per partition, every live file (DV-deleted rows dropped)
 *  is read and its rows rewritten in curve order of opts->columns (each
 *  column mapped through sampled quantiles to a rank, so skewed values
 *  still spread over the curve), cut into files of the target size (opts,
 *  else loc->target_file_size, else delta.targetFileSize, else 100 MiB).
 *  New files carry the tag {"loom.zorder": "<curve>:<col>,<col>"}; a later
 *  run with the same columns and curve skips partitions whose live files
 *  all carry it (unless opts->full). One commit, operation OPTIMIZE,
 *  dataChange=false, operationParameters.zOrderBy = JSON list of columns.
 *  A partition whose rows exceed opts->memory_budget is sorted externally:
 *  read once, its rows routed by sampled key ranges to spill files
 *  (opts->temp_dir, capped by opts->spill_limit), then each range sorted
 *  and written in turn.
 *  Columns must exist (dotted paths into structs), be orderable
 *  (numeric, decimal, string, binary, date, timestamp[_ntz], boolean),
 *  not be partition columns: else LOOM_EINVAL naming the column. A table
 *  with liquid clustering is refused (Delta forbids ZORDER BY there:
 *  loom_compact clusters it).
 *  `out` as for loom_compact. On failure the table is unchanged and the
 *  files written are deleted. */
LOOM_EXTERN(int) loom_zorder(loom_op_result *out, const char *uri,
                             const loom_table_location *loc,
                             const loom_zorder_opts *opts,
                             const loom_cancel *cancel);

/** REORG TABLE ... APPLY (PURGE) of the table at `uri` with the native
 *  engine: every live file with a deletion vector (in the partitions the
 *  filters select), whatever share of its rows the DV deletes, is
 *  rewritten without its deleted rows. Per partition the DV files are
 *  packed first-fit, in the order they were added, into bins of at most
 *  the target size and written as compaction writes its bins (one stream
 *  per partition cut at the target); files without a DV are never touched.
 *  Row ids and row commit versions are kept (row tracking), new files get
 *  stats. ONE commit, operation REORG (as Spark's REORG TABLE ... APPLY
 *  (PURGE): operationParameters predicate and applyPurge "true"),
 *  dataChange=false, conflict-checked like compaction's: a
 *  concurrent commit that removed or re-wrote one of the files (a DELETE
 *  adding a DV) makes it fail with LOOM_ECONFLICT, the table unchanged and
 *  the new files deleted. The old files stay on storage, referenced by
 *  the table's history, until a VACUUM after the retention removes them:
 *  only then are the deleted rows physically gone.
 *  `out` as for loom_compact, with files_deleted listing the purged files
 *  (paths relative to the table root, as logged; kind stays OPTIMIZE) and
 *  the metric numRowsPurged (DV-deleted rows dropped). */
LOOM_EXTERN(int) loom_purge(loom_op_result *out, const char *uri,
                            const loom_table_location *loc,
                            const loom_purge_opts *opts,
                            const loom_cancel *cancel);

/** ANALYZE TABLE ... COMPUTE DELTA STATISTICS with the native engine:
 *  live files without statistics, or whose statistics miss one of the
 *  table's current stats columns (delta.dataSkippingStatsColumns /
 *  delta.dataSkippingNumIndexedCols; opts->columns narrows the check),
 *  or every live file with opts->all, get new statistics: numRecords,
 *  minValues, maxValues and nullCount per stats column, written as Delta
 *  writes them (physical names, nested structs, strings cut at the
 *  table's prefix, timestamps at ms). Values come from the Parquet footer
 *  where its statistics are exact (every row group with null counts and
 *  min_value/max_value of the column's order; strings only when the
 *  footer says they are not truncated) and from a scan of the column
 *  otherwise. A file with a deletion vector gets bounds over all its
 *  stored rows with "tightBounds":false (its deleted rows are still in
 *  it); on a table with deletion vectors other files get
 *  "tightBounds":true. One commit of `add` actions re-stating the same
 *  files (path, size, partition values, tags, DV, baseRowId,
 *  defaultRowCommitVersion, clusteringProvider kept; dataChange false),
 *  operation COMPUTE STATS; a concurrent commit that removed one of the
 *  files (a DELETE adding a DV, an OPTIMIZE) makes it fail with
 *  LOOM_ECONFLICT, the table unchanged (run it again).
 *  `out`: kind OPTIMIZE, files_deleted listing the files given new stats
 *  (that would be, in a dry run), the metrics numFilesAnalyzed,
 *  totalConsideredFiles, numFilesScanned (files with at least one column
 *  read because the footer was not exact), dryRun and version (-1: no
 *  commit). Nothing to do commits nothing. */
LOOM_EXTERN(int) loom_analyze(loom_op_result *out, const char *uri,
                              const loom_table_location *loc,
                              const loom_analyze_opts *opts,
                              const loom_cancel *cancel);

/** The native engine (src/ops): vacuum, compact, zorder, purge and analyze
 *  as above (version LOOM_MAINTAINER_VERSION). On
 *  success *out is a static maintainer (never freed). */
LOOM_EXTERN(int) loom_maintainer_native(const loom_maintainer **out);

LOOM_END_DECL

#endif
