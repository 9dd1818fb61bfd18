/* tests/helpers/append_commits.c - a blind-append writer for the
 * concurrency tests: `append_commits TABLE SRC_FILE PREFIX COUNT ROWS`
 * copies SRC_FILE (a data file relative to the table root) to
 * PREFIX-<i>.parquet and commits one add action for it, COUNT times, each
 * commit through delta_commit_write (put-if-absent, retried on a lost race).
 * TABLE is a path or a URI loom_store_open takes (s3://... with the
 * environment's credentials). Prints the committed versions, one per line.
 * Exit 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/commit_write.h"
#include "delta/log_listing.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "store/backend.h"
#include "util/buf.h"

static int die(const char *what)
{
	const loom_error *e = loom_error_last();
	fprintf(stderr, "append_commits: %s: %s\n", what, e ? e->message : "?");
	return 1;
}

int main(int argc, char **argv)
{
	loom_store *s = NULL;
	loom_buf data = LOOM_BUF_INIT;
	long count, rows, i;

	if (argc != 6) {
		fprintf(stderr, "usage: append_commits TABLE_DIR SRC_FILE PREFIX COUNT ROWS\n");
		return 2;
	}
	count = strtol(argv[4], NULL, 10);
	rows = strtol(argv[5], NULL, 10);
	if (loom_store_open(&s, argv[1], NULL) < 0)
		return die("open");
	if (loom_store_read_all(s, argv[2], &data) < 0)
		return die("read source file");
	for (i = 0; i < count; i++) {
		char path[256], line[1024];
		delta_log_listing l;
		delta_commit c;
		int64_t version = -1;
		snprintf(path, sizeof(path), "%s-%04ld.parquet", argv[3], i);
		if (s->put(s, path, data.ptr, data.size, LOOM_PUT_IF_ABSENT) < 0)
			return die(path);
		if (delta_log_list(s, &l) < 0)
			return die("list");
		snprintf(line, sizeof(line),
		         "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%zu,"
		         "\"modificationTime\":1700000000000,\"dataChange\":true,"
		         "\"stats\":\"{\\\"numRecords\\\":%ld}\"}}\n",
		         path, data.size, rows);
		delta_commit_init(&c, DELTA_COMMIT_APPEND, l.latest_commit, "WRITE");
		delta_log_listing_dispose(&l);
		c.is_blind_append = 1;
		c.actions = line;
		c.actions_len = strlen(line);
		c.max_attempts = 100000;
		if (delta_commit_write(s, &c, &version) < 0)
			return die("commit");
		printf("%lld\n", (long long)version);
	}
	loom_buf_dispose(&data);
	loom_store_free(s);
	return 0;
}
