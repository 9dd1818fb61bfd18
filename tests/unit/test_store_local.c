/* Unit tests of the local filesystem store, including the cross-process
 * put-if-absent race. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loom/store.h"
#include "store/backend.h"
#include "test.h"
#include "tmpdir.h"
#include "util/buf.h"

static char *root;

static loom_store *open_root(void)
{
	loom_store *s = NULL;
	if (loom_store_open_local(&s, root) < 0)
		return NULL;
	return s;
}

TEST(open_accepts_paths_and_file_uris)
{
	loom_store *s;
	char uri[4200];
	CHECK_OK(loom_store_open(&s, root, NULL));
	CHECK_STR(s->name, "local");
	CHECK(loom_store_local_root(s) != NULL);
	loom_store_free(s);
	snprintf(uri, sizeof(uri), "file://%s", root);
	CHECK_OK(loom_store_open(&s, uri, NULL));
	loom_store_free(s);
	CHECK_ERR(loom_store_open(&s, "/definitely/not/here", NULL), LOOM_ENOTFOUND);
	CHECK_ERR(loom_store_open(&s, "nosuch://bucket/t", NULL), LOOM_EUNSUPPORTED);
	CHECK_ERR(loom_store_open(&s, "", NULL), LOOM_EINVAL);
	loom_store_free(NULL);
}

TEST(put_read_stat_roundtrip)
{
	loom_store *s = open_root();
	loom_store_entry st;
	char data[10];
	size_t n;
	REQUIRE(s != NULL);
	CHECK_OK(s->put(s, "a/b/c.txt", "0123456789", 10, 0));
	CHECK_OK(s->stat(s, "a/b/c.txt", &st));
	CHECK_INT(st.size, 10);
	CHECK(st.mtime_ms > 0);
	CHECK_OK(s->read_range(s, "a/b/c.txt", 3, 4, data, &n));
	CHECK_INT(n, 4);
	CHECK(memcmp(data, "3456", 4) == 0);
	CHECK_OK(s->read_range(s, "a/b/c.txt", 8, 10, data, &n));
	CHECK_INT(n, 2); /* short read at the end */
	CHECK_OK(s->put(s, "a/b/c.txt", "xy", 2, 0)); /* replace */
	CHECK_OK(s->stat(s, "a/b/c.txt", &st));
	CHECK_INT(st.size, 2);
	CHECK_ERR(s->stat(s, "a/missing", &st), LOOM_ENOTFOUND);
	CHECK_ERR(s->read_range(s, "a/missing", 0, 1, data, &n), LOOM_ENOTFOUND);
	{
		loom_buf all = LOOM_BUF_INIT;
		CHECK_OK(loom_store_read_all(s, "a/b/c.txt", &all));
		CHECK_STR(all.ptr, "xy");
		loom_buf_dispose(&all);
	}
	loom_store_free(s);
}

TEST(keys_that_escape_are_rejected)
{
	loom_store *s = open_root();
	loom_store_entry st;
	const char *bad[] = { "../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a/.", "a/" };
	size_t i;
	REQUIRE(s != NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(s->put(s, bad[i], "x", 1, 0), LOOM_EINVAL);
		CHECK_ERR(s->remove(s, bad[i]), LOOM_EINVAL);
		CHECK_ERR(s->stat(s, bad[i], &st), LOOM_EINVAL);
	}
	loom_store_free(s);
}

TEST(symlinked_dir_leading_out_is_not_deleted_through)
{
	loom_store *s = open_root();
	char *outside = test_mkdtemp("outside");
	char path[4300];
	struct stat st;
	loom_store_entry st2;
	REQUIRE(s != NULL);
	snprintf(path, sizeof(path), "%s/victim", outside);
	REQUIRE(test_sh("echo keep > '%s' && ln -s '%s' '%s/link'", path, outside, root) == 0);
	CHECK_ERR(s->remove(s, "link/victim"), LOOM_EINVAL);
	CHECK_ERR(s->stat(s, "link/victim", &st2), LOOM_EINVAL);
	CHECK_OK(s->stat(s, "link", &st2));
	CHECK_INT(st2.is_symlink, 1);
	CHECK(stat(path, &st) == 0);
	CHECK_ERR(s->put(s, "link/new", "x", 1, 0), LOOM_EINVAL);
	/* deleting the link itself removes only the link */
	CHECK_OK(s->remove(s, "link"));
	CHECK(stat(path, &st) == 0);
	test_rmtree(outside);
	free(outside);
	loom_store_free(s);
}

TEST(put_if_absent_reports_exists)
{
	loom_store *s = open_root();
	REQUIRE(s != NULL);
	CHECK_OK(s->put(s, "log/00001.json", "a", 1, LOOM_PUT_IF_ABSENT));
	CHECK_ERR(s->put(s, "log/00001.json", "b", 1, LOOM_PUT_IF_ABSENT), LOOM_EEXISTS);
	{
		loom_buf all = LOOM_BUF_INIT;
		CHECK_OK(loom_store_read_all(s, "log/00001.json", &all));
		CHECK_STR(all.ptr, "a");
		loom_buf_dispose(&all);
	}
	loom_store_free(s);
}

TEST(streaming_writer_commit_and_abort)
{
	loom_store *s = open_root();
	loom_store_writer *w;
	loom_store_entry st;
	int i;
	REQUIRE(s != NULL);
	CHECK_OK(s->writer_open(s, "big/file.bin", 0, &w));
	for (i = 0; i < 1000; i++)
		CHECK_OK(w->write(w, "0123456789", 10));
	CHECK_ERR(s->stat(s, "big/file.bin", &st), LOOM_ENOTFOUND); /* not visible yet */
	CHECK_OK(w->commit(w));
	CHECK_OK(s->stat(s, "big/file.bin", &st));
	CHECK_INT(st.size, 10000);
	CHECK_OK(s->writer_open(s, "big/aborted.bin", 0, &w));
	CHECK_OK(w->write(w, "x", 1));
	w->abort(w);
	CHECK_ERR(s->stat(s, "big/aborted.bin", &st), LOOM_ENOTFOUND);
	/* writer with put-if-absent loses against an existing key */
	CHECK_OK(s->writer_open(s, "big/file.bin", LOOM_PUT_IF_ABSENT, &w));
	CHECK_OK(w->write(w, "y", 1));
	CHECK_ERR(w->commit(w), LOOM_EEXISTS);
	CHECK_OK(s->stat(s, "big/file.bin", &st));
	CHECK_INT(st.size, 10000);
	/* no temp files left behind */
	CHECK_INT(test_sh("test -z \"$(find '%s/big' -name '.*tmp')\"", root), 0);
	loom_store_free(s);
}

typedef struct collected {
	char keys[64][64];
	int dirs[64];
	int n;
} collected;

static int collect(const loom_store_entry *e, void *payload)
{
	collected *c = payload;
	if (c->n < 64) {
		snprintf(c->keys[c->n], 64, "%s", e->key);
		c->dirs[c->n] = e->is_dir;
		c->n++;
	}
	return 0;
}

static int stop_at_two(const loom_store_entry *e, void *payload)
{
	(void)e;
	return ++*(int *)payload == 2 ? 42 : 0;
}

static int cmp_strs(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The walk sorts each directory on its own; the whole listing must still
 * be in bytewise key order where names sort around a directory's '/'
 * ('-' and '.' before it, '0' and letters after). */
TEST(list_order_crosses_directories)
{
	const char *keys[] = { "a/b.parquet", "a-x.parquet", "a.parquet", "a0/c.parquet",
	                       "a/b/c.parquet", "a/b-c.parquet", "ab", "a/b0", "b/a.parquet" };
	const size_t n = sizeof(keys) / sizeof(keys[0]);
	const char *sorted[sizeof(keys) / sizeof(keys[0])];
	loom_store *s;
	collected c;
	size_t i;
	char *dir = test_mkdtemp("list-order");
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	for (i = 0; i < n; i++) {
		CHECK_OK(s->put(s, keys[i], "x", 1, 0));
		sorted[i] = keys[i];
	}
	qsort(sorted, n, sizeof(sorted[0]), cmp_strs);
	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	REQUIRE(c.n == (int)n);
	for (i = 0; i < n; i++)
		CHECK_STR(c.keys[i], sorted[i]);
	/* from a start key inside a directory */
	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "", "a/b.parquet", LOOM_LIST_RECURSIVE, collect, &c));
	REQUIRE(c.n == 5);
	CHECK_STR(c.keys[0], "a/b/c.parquet");
	CHECK_STR(c.keys[4], "b/a.parquet");
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(list_is_sorted_recursive_and_resumable)
{
	loom_store *s;
	collected c;
	int count = 0;
	char *dir = test_mkdtemp("list");
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	CHECK_OK(s->put(s, "_delta_log/00000000000000000001.json", "1", 1, 0));
	CHECK_OK(s->put(s, "_delta_log/00000000000000000000.json", "0", 1, 0));
	CHECK_OK(s->put(s, "_delta_log/_sidecars/a.parquet", "s", 1, 0));
	CHECK_OK(s->put(s, "p=1/b.parquet", "bb", 2, 0));
	CHECK_OK(s->put(s, "p=1/a.parquet", "a", 1, 0));
	CHECK_OK(s->put(s, "top.parquet", "t", 1, 0));

	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	REQUIRE(c.n == 6);
	CHECK_STR(c.keys[0], "_delta_log/00000000000000000000.json");
	CHECK_STR(c.keys[1], "_delta_log/00000000000000000001.json");
	CHECK_STR(c.keys[2], "_delta_log/_sidecars/a.parquet");
	CHECK_STR(c.keys[3], "p=1/a.parquet");
	CHECK_STR(c.keys[4], "p=1/b.parquet");
	CHECK_STR(c.keys[5], "top.parquet");

	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "_delta_log/", "_delta_log/00000000000000000000.json", 0, collect, &c));
	REQUIRE(c.n == 2);
	CHECK_STR(c.keys[0], "_delta_log/00000000000000000001.json");
	CHECK_STR(c.keys[1], "_delta_log/_sidecars");
	CHECK_INT(c.dirs[1], 1);

	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "p=1/b", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	REQUIRE(c.n == 1);
	CHECK_STR(c.keys[0], "p=1/b.parquet");

	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "nothing/here/", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	CHECK_INT(c.n, 0);
	CHECK_ERR(s->list(s, "../", NULL, 0, collect, &c), LOOM_EINVAL);

	CHECK_INT(s->list(s, "", NULL, LOOM_LIST_RECURSIVE, stop_at_two, &count), 42);

	CHECK_OK(s->remove(s, "p=1/a.parquet"));
	CHECK_OK(s->remove(s, "p=1/a.parquet")); /* missing is fine */
	CHECK_OK(s->remove_empty_dir(s, "p=1/"));  /* not empty: kept */
	CHECK_OK(s->remove(s, "p=1/b.parquet"));
	CHECK_OK(s->remove_empty_dir(s, "p=1/"));
	CHECK_INT(test_sh("test ! -e '%s/p=1'", dir), 0);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* 8 processes race put-if-absent on the same 1,000 names; each records the
 * names it won. Exactly one process must win each name. */
TEST(put_if_absent_race_across_processes)
{
	enum { PROCS = 8, NAMES = 1000 };
	char *dir = test_mkdtemp("race");
	pid_t pids[PROCS];
	int p, i, total_wins = 0;
	static int winners[NAMES];

	memset(winners, 0, sizeof(winners));
	for (p = 0; p < PROCS; p++) {
		pids[p] = fork();
		REQUIRE(pids[p] >= 0);
		if (pids[p] == 0) {
			loom_store *s;
			char key[64], tag[8], winfile[4200];
			FILE *wf;
			snprintf(winfile, sizeof(winfile), "%s/wins-%d", dir, p);
			wf = fopen(winfile, "w");
			if (!wf || loom_store_open_local(&s, dir) < 0)
				_exit(3);
			snprintf(tag, sizeof(tag), "%d", p);
			for (i = 0; i < NAMES; i++) {
				int rc;
				snprintf(key, sizeof(key), "_delta_log/%020d.json", i);
				rc = s->put(s, key, tag, strlen(tag), LOOM_PUT_IF_ABSENT);
				if (rc == 0)
					fprintf(wf, "%d\n", i);
				else if (rc != LOOM_EEXISTS)
					_exit(4);
			}
			fclose(wf);
			loom_store_free(s);
			_exit(0);
		}
	}
	for (p = 0; p < PROCS; p++) {
		int status;
		waitpid(pids[p], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (p = 0; p < PROCS; p++) {
		char winfile[4200], line[32], content[8];
		FILE *wf;
		snprintf(winfile, sizeof(winfile), "%s/wins-%d", dir, p);
		wf = fopen(winfile, "r");
		REQUIRE(wf != NULL);
		while (fgets(line, sizeof(line), wf)) {
			int name = atoi(line);
			char key[4300];
			FILE *kf;
			REQUIRE(name >= 0 && name < NAMES);
			winners[name]++;
			total_wins++;
			/* the stored bytes are the winner's */
			snprintf(key, sizeof(key), "%s/_delta_log/%020d.json", dir, name);
			kf = fopen(key, "r");
			REQUIRE(kf != NULL);
			memset(content, 0, sizeof(content));
			CHECK(fread(content, 1, sizeof(content) - 1, kf) > 0);
			fclose(kf);
			CHECK_INT(atoi(content), p);
		}
		fclose(wf);
	}
	for (i = 0; i < NAMES; i++)
		if (winners[i] != 1)
			TEST_FAIL_AT("name %d has %d winners", i, winners[i]);
	CHECK_INT(total_wins, NAMES);
	CHECK_INT(test_sh("test -z \"$(find '%s/_delta_log' -name '.*')\"", dir), 0);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	root = test_mkdtemp("store");
	RUN(open_accepts_paths_and_file_uris);
	RUN(put_read_stat_roundtrip);
	RUN(keys_that_escape_are_rejected);
	RUN(symlinked_dir_leading_out_is_not_deleted_through);
	RUN(put_if_absent_reports_exists);
	RUN(streaming_writer_commit_and_abort);
	RUN(list_is_sorted_recursive_and_resumable);
	RUN(list_order_crosses_directories);
	RUN(put_if_absent_race_across_processes);
	test_rmtree(root);
	free(root);
	return test_summary();
}
