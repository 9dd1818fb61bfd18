/* delta/log_list_split.c - _delta_log/ listed in version ranges side by
 * side (see log_list_split.h).
 *
 * A range is the keys in (after, last], `last` being "<version>.~" for the
 * range's newest version: every name of that version ("<v>.json",
 * "<v>.checkpoint.parquet", "<v>.crc") sorts before it, as '~' sorts
 * after every character of a log name. A range's listing stops at the
 * first key past `last` that starts with a digit (another version: more
 * follows, in the next range); a key past it that does not (_last_checkpoint,
 * _sidecars/) sorts after every version, so the range is the log's end
 * and lists on to the end of the directory. */
#include "delta/log_list_split.h"

#include <stdio.h>
#include <string.h>

#include "delta/log_listing.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threadpool.h"

/* "_delta_log/" + 20 digits + ".~" */
#define BOUND_LEN 40

typedef struct range_job {
	char *after;                /* start_after (owned); NULL: from the first key */
	char last[BOUND_LEN];       /* "" : no bound (list to the end) */
	size_t limit;               /* stop after this many keys (0: no limit) */
	loom_vec files;             /* delta_log_file */
	size_t seen;                /* keys listed so far */
	char *limit_key;            /* the key the limit stopped at (owned) */
	int more;                   /* stopped at a version past `last` */
	int64_t stop_version;       /* that version, -1 unknown */
	int rc;
	loom_error err;
} range_job;

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *base_name(const char *key)
{
	const char *b = strrchr(key, '/');
	return b ? b + 1 : key;
}

/* Keep a listed entry that is a log file (others are ignored). */
static int keep_log_file(const loom_store_entry *e, loom_vec *files)
{
	const char *base = base_name(e->key);
	delta_log_file f;

	if (e->is_dir)
		return 0;
	memset(&f, 0, sizeof(f));
	if (!delta_log_name_parse(base, strlen(base), &f.name))
		return 0;
	f.key = loom_strdup(e->key);
	f.size = e->size;
	f.mtime_ms = e->mtime_ms;
	if (!f.key || loom_vec_push(files, &f) < 0) {
		loom_free(f.key);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory listing " DELTA_LOG_DIR);
	}
	return 0;
}

static int range_entry(const loom_store_entry *e, void *payload)
{
	range_job *j = payload;
	const char *base = base_name(e->key);

	if (j->last[0] && is_digit(base[0]) && strcmp(e->key, j->last) > 0) {
		j->more = 1;
		j->stop_version = delta_log_leading_version(base);
		return 1;
	}
	LOOM_TRY(keep_log_file(e, &j->files));
	if (j->limit && ++j->seen == j->limit) {
		if (!(j->limit_key = loom_strdup(e->key)))
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory listing " DELTA_LOG_DIR);
		return 1;
	}
	return 0;
}

static void range_run(loom_store *store, range_job *j)
{
	j->rc = store->list(store, DELTA_LOG_DIR, j->after, 0, range_entry, j);
	if (j->rc > 0)  /* stopped by range_entry */
		j->rc = 0;
	if (j->rc < 0)
		loom_err_copy(&j->err);
}

static void range_init(range_job *j)
{
	memset(j, 0, sizeof(*j));
	loom_vec_init(&j->files, sizeof(delta_log_file));
	j->stop_version = -1;
}

static void range_dispose(range_job *j)
{
	delta_log_files_dispose(&j->files);
	loom_free(j->after);
	loom_free(j->limit_key);
	j->after = j->limit_key = NULL;
}

/* "_delta_log/<v>.~": the bound after every name of version v. */
static void version_bound(char out[BOUND_LEN], int64_t v)
{
	char vv[21];
	delta_log_format_version(v, vv);
	snprintf(out, BOUND_LEN, DELTA_LOG_DIR "%s.~", vv);
}

/* Move the files of `j` to the end of `files`. */
static int join(loom_vec *files, range_job *j)
{
	size_t i;
	LOOM_TRY(loom_vec_reserve(files, files->len + j->files.len));
	for (i = 0; i < j->files.len; i++)
		loom_vec_push(files, loom_vec_at(&j->files, i));
	j->files.len = 0;   /* the keys now belong to `files` */
	return 0;
}

typedef struct range_round {
	loom_store *store;
	range_job *jobs;
} range_round;

static int round_one(void *ctx, size_t i)
{
	range_round *r = ctx;
	range_run(r->store, &r->jobs[i]);
	return 0;
}

/* List from `after` (the first listing's last key) on, version `v` being
 * that key's: ranges of LOG_LIST_RANGE_VERSIONS versions, in rounds of
 * 1, 2, 4 ... up to LOG_LIST_WIDTH ranges, until a range reaches the end. */
static int list_ranges(loom_store *store, const char *after, int64_t v, loom_vec *files)
{
	range_job jobs[LOG_LIST_WIDTH];
	char next_after[BOUND_LEN];
	size_t width = 1, k, i;
	int64_t last_v = v + LOG_LIST_RANGE_VERSIONS - 1;
	int rc = 0, done = 0;

	next_after[0] = '\0';
	while (!done && rc == 0) {
		range_round r = { store, jobs };
		for (k = 0; k < width; k++) {
			range_init(&jobs[k]);
			jobs[k].after = loom_strdup(k == 0 && !next_after[0] ? after
			                            : k == 0 ? next_after : jobs[k - 1].last);
			if (!jobs[k].after)
				rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory listing " DELTA_LOG_DIR);
			version_bound(jobs[k].last, last_v);
			last_v += LOG_LIST_RANGE_VERSIONS;
		}
		if (rc == 0)
			loom_parallel_for(width, width, round_one, &r, NULL);
		for (i = 0; i < width && rc == 0 && !done; i++) {
			if (jobs[i].rc < 0)
				rc = loom_err_raise(&jobs[i].err);
			else
				rc = join(files, &jobs[i]);
			done = !jobs[i].more;
		}
		if (rc == 0 && !done) {
			/* the next round starts after this one; a range that ended at
			 * a version past the next range's (a gap) moves the ranges on */
			const range_job *end = &jobs[width - 1];
			memcpy(next_after, end->last, BOUND_LEN);
			last_v -= LOG_LIST_RANGE_VERSIONS;  /* the newest version listed */
			if (end->stop_version - 1 > last_v)
				last_v = end->stop_version - 1;
			last_v += LOG_LIST_RANGE_VERSIONS;
		}
		for (k = 0; k < width; k++)
			range_dispose(&jobs[k]);
		if (width < LOG_LIST_WIDTH)
			width *= 2;
	}
	return rc;
}

int delta_log_list_files(loom_store *store, const char *start_after, loom_vec *files)
{
	range_job first;
	int64_t v;
	int rc;

	range_init(&first);
	if (store->caps & LOOM_STORE_CAP_REQUEST_READS)
		first.limit = LOG_LIST_FIRST_KEYS;
	rc = store->list(store, DELTA_LOG_DIR, start_after, 0, range_entry, &first);
	if (rc > 0)
		rc = 0;
	if (rc == 0)
		rc = join(files, &first);
	if (rc == 0 && first.limit_key) {
		/* there may be more: by version ranges when the last key names a
		 * version, else (names after the versions) one listing on */
		v = delta_log_leading_version(base_name(first.limit_key));
		if (v >= 0) {
			rc = list_ranges(store, first.limit_key, v, files);
		} else {
			range_job rest;
			range_init(&rest);
			rest.after = first.limit_key;
			first.limit_key = NULL;
			range_run(store, &rest);
			rc = rest.rc < 0 ? loom_err_raise(&rest.err) : join(files, &rest);
			range_dispose(&rest);
		}
	}
	range_dispose(&first);
	return rc;
}

void delta_log_files_dispose(loom_vec *files)
{
	size_t i;
	for (i = 0; i < files->len; i++)
		loom_free(((delta_log_file *)loom_vec_at(files, i))->key);
	loom_vec_dispose(files);
}
