/* cli/cmd_checkpoint.c - `loom checkpoint URI [--version N] [--json]` and
 * `loom cleanup-logs URI [--no-dry-run] [--retention-hours N] [--force]
 * [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/metrics.h"
#include "loom/checkpoint.h"
#include "loom/ops.h"

static void checkpoint_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom checkpoint TABLE [options]\n\n"
	        "Write a checkpoint of the table and update _delta_log/_last_checkpoint: a V2\n"
	        "checkpoint (_delta_log/<v>.checkpoint.<uuid>.json + sidecars in _delta_log/_sidecars/)\n"
	        "for tables with the v2Checkpoint feature and delta.checkpointPolicy=v2, else a\n"
	        "classic one (_delta_log/<v>.checkpoint.parquet). Nothing is written when a\n"
	        "checkpoint of that version already exists.\n\n"
	        "  --config FILE  the storage YAML naming TABLE (then TABLE may be raw.events)\n"
	        "  --version N    checkpoint version N (default: the latest)\n"
	        "  --part-size N  V2: add/remove actions per sidecar file (default 50000)\n"
	        "  --json         machine-readable output\n");
}

static void cleanup_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom cleanup-logs TABLE [options]\n\n"
	        "Delete expired _delta_log files: commits, .crc files, checkpoints and compaction\n"
	        "files older than the newest checkpoint that is itself at or before the newest\n"
	        "commit older than the cutoff (now - delta.logRetentionDuration, default 30 days,\n"
	        "truncated to midnight UTC as Spark does; with in-commit timestamps a commit's\n"
	        "time is its inCommitTimestamp), and sidecar files no remaining checkpoint\n"
	        "references. Honours checkpointProtection. Dry run by default.\n\n"
	        "  --config FILE         the storage YAML naming TABLE (then TABLE may be raw.events)\n"
	        "  --dry-run             list what would be deleted (the default)\n"
	        "  --no-dry-run          delete the files\n"
	        "  --retention-hours N   use N hours instead of delta.logRetentionDuration\n"
	        "  --force               run even when delta.enableExpiredLogCleanup=false\n"
	        "  --json                machine-readable output\n");
}

static int parse_int(const char *cmd, const char *opt, const char *s, int64_t *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v < 0) {
		fprintf(stderr, "loom %s: %s needs a whole number >= 0, got '%s'\n", cmd, opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* `opt N` at argv[*i], N a whole number >= 0 into *out: CLI_ARG_TAKEN,
 * CLI_EXIT_USAGE after saying why (*out untouched), or CLI_ARG_OTHER when
 * argv[*i] is not `opt` with a value. */
static int count_option(const char *cmd, const char *opt, int argc, char **argv, int *i, int64_t *out)
{
	if (strcmp(argv[*i], opt) != 0 || *i + 1 >= argc)
		return CLI_ARG_OTHER;
	++*i;
	return parse_int(cmd, opt, argv[*i], out) < 0 ? CLI_EXIT_USAGE : CLI_ARG_TAKEN;
}

/* checkpoint's own options (a cli_verb_option over a loom_checkpoint_opts). */
static int checkpoint_option(void *ctx, int argc, char **argv, int *i)
{
	loom_checkpoint_opts *opts = ctx;
	int rc = count_option("checkpoint", "--version", argc, argv, i, &opts->table_version);

	if (rc != CLI_ARG_OTHER)
		return rc;
	rc = count_option("checkpoint", "--part-size", argc, argv, i, &opts->part_size);
	/* after a bad value too, when no earlier --part-size set one */
	if (rc != CLI_ARG_OTHER && opts->part_size == 0) {
		fprintf(stderr, "loom checkpoint: --part-size must be at least 1\n");
		return CLI_EXIT_USAGE;
	}
	return rc;
}

/* cleanup-logs' own options (a cli_verb_option over a
 * loom_cleanup_logs_opts). An empty --retention-hours is refused. */
static int cleanup_option(void *ctx, int argc, char **argv, int *i)
{
	loom_cleanup_logs_opts *opts = ctx;

	if (strcmp(argv[*i], "--force") == 0) {
		opts->force = 1;
		return CLI_ARG_TAKEN;
	}
	return count_option("cleanup-logs", "--retention-hours", argc, argv, i, &opts->retention_hours);
}

static void print_checkpoint(const char *verb, const char *uri, const loom_op_result *r, int json)
{
	int64_t version, created, kind;
	const char *kind_name;
	char path[96];

	(void)verb; /* the one verb this prints for */

	version = loom_op_result_metric(r, LOOM_METRIC_VERSION, -1);
	created = loom_op_result_metric(r, "created", 0);
	kind = loom_op_result_metric(r, LOOM_METRIC_CHECKPOINT_KIND, 0);
	kind_name = kind == LOOM_CHECKPOINT_KIND_V2_JSON ? "v2-json" : "classic";
	/* the UUID name of a V2 checkpoint is not in the result: its kind is */
	if (kind == LOOM_CHECKPOINT_KIND_CLASSIC)
		snprintf(path, sizeof(path), "_delta_log/%020lld.checkpoint.parquet", (long long)version);
	else
		snprintf(path, sizeof(path), "_delta_log/%020lld.checkpoint.<uuid>.json", (long long)version);
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(uri);
		printf(",\"version\":%lld,\"created\":%s", (long long)version, created ? "true" : "false");
		if (created)
			printf(",\"kind\":\"%s\",\"num_sidecars\":%lld", kind_name,
			       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_SIDECARS, 0));
		if (kind == LOOM_CHECKPOINT_KIND_CLASSIC)
			printf(",\"path\":\"%s\"", path);
		printf(",\"num_actions\":%lld,\"size_in_bytes\":%lld,\"num_add_files\":%lld,"
		       "\"num_remove_files\":%lld,\"num_expired_tombstones\":%lld,\"v2\":%s,"
		       "\"last_checkpoint_updated\":%s}\n",
		       (long long)loom_op_result_metric(r, "numActions", 0),
		       (long long)loom_op_result_metric(r, "sizeInBytes", 0),
		       (long long)loom_op_result_metric(r, "numAddFiles", 0),
		       (long long)loom_op_result_metric(r, "numRemoveFiles", 0),
		       (long long)loom_op_result_metric(r, "numExpiredTombstones", 0),
		       loom_op_result_metric(r, "v2", 0) ? "true" : "false",
		       loom_op_result_metric(r, "lastCheckpointUpdated", 0) ? "true" : "false");
	} else if (!created) {
		printf("%s: a checkpoint of version %lld already exists; nothing written\n", uri,
		       (long long)version);
	} else {
		char size[32];
		int64_t sidecars = loom_op_result_metric(r, LOOM_METRIC_NUM_SIDECARS, 0);
		loom_size_format(size, sizeof(size), loom_op_result_metric(r, "sizeInBytes", 0));
		printf("%s: wrote %s (%s", uri, path, size);
		if (kind == LOOM_CHECKPOINT_KIND_V2_JSON)
			printf(", V2 with %lld sidecar%s", (long long)sidecars, sidecars == 1 ? "" : "s");
		printf("): %lld actions, %lld files, %lld tombstones kept, %lld expired dropped\n",
		       (long long)loom_op_result_metric(r, "numActions", 0),
		       (long long)loom_op_result_metric(r, "numAddFiles", 0),
		       (long long)loom_op_result_metric(r, "numRemoveFiles", 0),
		       (long long)loom_op_result_metric(r, "numExpiredTombstones", 0));
	}
}

CLI_TABLE_OP(run_checkpoint, loom_checkpoint)

int cmd_checkpoint(int argc, char **argv)
{
	loom_checkpoint_opts opts = LOOM_CHECKPOINT_OPTS_INIT;
	cli_table_args args = CLI_TABLE_ARGS("checkpoint", checkpoint_usage, checkpoint_option, &opts);

	return cli_table_main(&args, argc, argv, run_checkpoint, &opts, print_checkpoint);
}

static void print_cleanup(const char *verb, const char *uri, const loom_op_result *r, int json)
{
	size_t k;
	int64_t ckpt, temps, protect, blocked;

	(void)verb; /* the one verb this prints for */
	ckpt = loom_op_result_metric(r, "checkpointVersion", -1);
	temps = loom_op_result_metric(r, LOOM_METRIC_NUM_STALE_TEMP_FILES, 0);
	protect = loom_op_result_metric(r, LOOM_METRIC_CHECKPOINT_PROTECTION_VERSION, -1);
	blocked = loom_op_result_metric(r, LOOM_METRIC_CHECKPOINT_PROTECTION_BLOCKED, 0);
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(uri);
		printf(",\"dry_run\":%s,\"checkpoint_version\":%lld,\"cutoff_ms\":%lld,"
		       "\"cutoff_commit\":%lld,\"in_commit_timestamps\":%s,\"num_files\":%zu,"
		       "\"num_sidecars\":%lld,\"bytes\":%lld,\"stale_temp_files\":%lld,",
		       r->dry_run ? "true" : "false", (long long)ckpt,
		       (long long)loom_op_result_metric(r, "cutoffMs", 0),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_CUTOFF_COMMIT, -1),
		       loom_op_result_metric(r, LOOM_METRIC_IN_COMMIT_TIMESTAMPS, 0) ? "true" : "false",
		       r->n_files_deleted, (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_SIDECARS_DELETED, 0),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0),
		       (long long)temps);
		if (protect >= 0)
			printf("\"checkpoint_protection\":{\"before_version\":%lld,\"blocked\":%s},",
			       (long long)protect, blocked ? "true" : "false");
		printf("\"compat_checkpoint\":%s,",
		       loom_op_result_metric(r, LOOM_METRIC_COMPAT_CHECKPOINT_WRITTEN, 0) ? "true" : "false");
		printf("\"files\":");
		cli_print_json_strings(r->files_deleted, r->n_files_deleted);
		printf("}\n");
	} else {
		char size[32];
		loom_size_format(size, sizeof(size),
		                 loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0));
		if (loom_op_result_metric(r, LOOM_METRIC_COMPAT_CHECKPOINT_WRITTEN, 0))
			printf("%s a classic-named copy of the newest (V2) checkpoint, for readers that "
			       "do not know V2 checkpoints\n", r->dry_run ? "would write" : "wrote");
		for (k = 0; k < r->n_files_deleted; k++)
			printf("%s %s\n", r->dry_run ? "would delete" : "deleted", r->files_deleted[k]);
		if (blocked)
			printf("%s: checkpointProtection keeps every commit and checkpoint: history before "
			       "version %lld (delta.requireCheckpointProtectionBeforeVersion) may only be "
			       "removed all at once, and it has not all expired\n", uri, (long long)protect);
		if (ckpt < 0)
			printf("%s: no checkpoint at or before the newest commit older than the cutoff; "
			       "no commit or checkpoint to delete\n", uri);
		else if (r->dry_run)
			printf("%s: keeping checkpoint %lld; %zu log files (%s) would be deleted; run with "
			       "--no-dry-run to delete them\n", uri, (long long)ckpt,
			       r->n_files_deleted - (size_t)temps, size);
		else
			printf("%s: keeping checkpoint %lld; deleted %zu log files (%s)\n", uri,
			       (long long)ckpt, r->n_files_deleted - (size_t)temps, size);
		if (temps)
			printf("%s: %lld temp files killed writers left in _delta_log %s\n", uri,
			       (long long)temps, r->dry_run ? "would be deleted" : "deleted");
	}
}

CLI_TABLE_OP(run_cleanup, loom_cleanup_logs)

int cmd_cleanup_logs(int argc, char **argv)
{
	loom_cleanup_logs_opts opts = LOOM_CLEANUP_LOGS_OPTS_INIT;
	cli_table_args args = CLI_DRY_RUN_ARGS("cleanup-logs", cleanup_usage, cleanup_option, &opts);

	return cli_table_main(&args, argc, argv, run_cleanup, &opts, print_cleanup);
}
