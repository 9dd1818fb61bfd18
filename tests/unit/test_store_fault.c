/* The fault-injecting store (store/fault.h) over the local store: plan
 * parsing, counting by kind, every mode, and what a commit makes of a lost
 * reply (delta/commit_write.c reads its commit back). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "delta/commit_write.h"
#include "delta/snapshot.h"
#include "loom/ops.h"
#include "store/fault.h"
#include "store/backend.h"
#include "test.h"
#include "tmpdir.h"

static loom_store *open_faulty(const char *dir, const char *plan)
{
	loom_store *inner = NULL, *s = NULL;
	if (loom_fault_configure(plan) < 0 || loom_store_open_local(&inner, dir) < 0 ||
	    loom_fault_store_wrap(&s, inner) < 0)
		return NULL;
	return s;
}

static int count_entries(const loom_store_entry *e, void *payload)
{
	(void)e;
	(*(int *)payload)++;
	return 0;
}

static int exists(loom_store *s, const char *key)
{
	loom_store_entry e;
	return loom_fault_store_inner(s)->stat((loom_store *)loom_fault_store_inner(s), key, &e) == 0;
}

TEST(plan_syntax)
{
	CHECK_OK(loom_fault_configure("read@3,write@1+:enospc,put-if-absent@2:after,list@1:partial,"
	                              "delete@4:crash-after,stat@9:delay=5"));
	CHECK_OK(loom_fault_configure(""));
	CHECK_OK(loom_fault_configure(NULL));
	CHECK_ERR(loom_fault_configure("reed@1"), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "reed@1") != NULL);
	CHECK_ERR(loom_fault_configure("read@0"), LOOM_EINVAL);
	CHECK_ERR(loom_fault_configure("read@x"), LOOM_EINVAL);
	CHECK_ERR(loom_fault_configure("write@1:short"), LOOM_EINVAL);   /* short is for reads */
	CHECK_ERR(loom_fault_configure("read@1:partial"), LOOM_EINVAL);  /* partial is for lists */
	CHECK_ERR(loom_fault_configure("read@1:delay"), LOOM_EINVAL);
	CHECK_ERR(loom_fault_configure("read@1:eio=4"), LOOM_EINVAL);
	CHECK_ERR(loom_fault_configure("read@1;write@2"), LOOM_EINVAL);
	CHECK_OK(loom_fault_configure(NULL));
}

TEST(counts_and_fails_the_nth_call)
{
	char *dir = test_mkdtemp("fault");
	loom_store *s = open_faulty(dir, "write@2,stat@2");
	loom_store_entry e;
	int n = 0;
	REQUIRE(s != NULL);
	CHECK_STR(s->name, "fault");
	CHECK_OK(s->put(s, "a", "1", 1, 0));
	CHECK_ERR(s->put(s, "b", "2", 1, 0), LOOM_EIO);
	CHECK(strstr(loom_error_last()->message, "injected") != NULL);
	CHECK(!exists(s, "b"));               /* failed before reaching the store */
	CHECK_OK(s->put(s, "c", "3", 1, 0));  /* only the 2nd */
	CHECK_OK(s->stat(s, "a", &e));
	CHECK_ERR(s->stat(s, "a", &e), LOOM_EIO);
	CHECK_OK(s->list(s, "", NULL, 0, count_entries, &n));
	CHECK_INT(n, 2);
	CHECK_INT(loom_fault_count("write"), 3);
	CHECK_INT(loom_fault_count("stat"), 2);
	CHECK_INT(loom_fault_count("list"), 1);
	CHECK_INT(loom_fault_count(NULL), 2);
	CHECK_INT(loom_fault_count("nope"), -1);
	CHECK(loom_store_local_root(s) != NULL); /* seen through the wrapper */
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(writer_calls_count_as_writes_and_publication)
{
	char *dir = test_mkdtemp("fault");
	loom_store *s = open_faulty(dir, "write@3+:enospc");
	loom_store_writer *w;
	int n = 0;
	REQUIRE(s != NULL);
	CHECK_OK(s->writer_open(s, "x/obj", 0, &w));       /* write 1 */
	CHECK_OK(w->write(w, "abc", 3));                    /* write 2 */
	CHECK_ERR(w->write(w, "def", 3), LOOM_EIO);         /* write 3: disk full */
	CHECK(strstr(loom_error_last()->message, "No space left") != NULL);
	w->abort(w);
	CHECK_ERR(s->put(s, "y", "1", 1, 0), LOOM_EIO);     /* and it stays full */
	CHECK_OK(loom_fault_store_inner(s)->list((loom_store *)loom_fault_store_inner(s), "", NULL,
	                                         LOOM_LIST_RECURSIVE, count_entries, &n));
	CHECK_INT(n, 0);                                    /* no object, no temp file */

	/* the commit of a put-if-absent writer is a put-if-absent call */
	CHECK_OK(loom_fault_configure("put-if-absent@1"));
	CHECK_OK(s->writer_open(s, "z", LOOM_PUT_IF_ABSENT, &w));
	CHECK_OK(w->write(w, "abc", 3));
	CHECK_ERR(w->commit(w), LOOM_EIO);
	CHECK(!exists(s, "z"));
	CHECK_INT(loom_fault_count("put-if-absent"), 1);
	CHECK_INT(loom_fault_count("write"), 2);
	n = 0;
	CHECK_OK(loom_fault_store_inner(s)->list((loom_store *)loom_fault_store_inner(s), "", NULL,
	                                         LOOM_LIST_RECURSIVE, count_entries, &n));
	CHECK_INT(n, 0);
	loom_store_free(s);
	CHECK_OK(loom_fault_configure(NULL));
	test_rmtree(dir);
	free(dir);
}

TEST(short_reads_lost_replies_and_partial_lists)
{
	char *dir = test_mkdtemp("fault");
	loom_store *s = open_faulty(dir, "read@1:short,put-if-absent@1:after,delete@1:after,list@1:partial");
	char buf[16];
	size_t got = 0;
	int n = 0, i;
	REQUIRE(s != NULL);
	for (i = 0; i < 4; i++) {
		char key[8];
		snprintf(key, sizeof(key), "k%d", i);
		CHECK_OK(loom_fault_store_inner(s)->put((loom_store *)loom_fault_store_inner(s), key,
		                                        "0123456789", 10, 0));
	}
	CHECK_OK(s->read_range(s, "k0", 0, 10, buf, &got));
	CHECK_INT(got, 5);                                  /* short, not at the end */
	CHECK_OK(s->read_range(s, "k0", 0, 10, buf, &got));
	CHECK_INT(got, 10);
	CHECK_ERR(s->put(s, "new", "x", 1, LOOM_PUT_IF_ABSENT), LOOM_EIO);
	CHECK(exists(s, "new"));                            /* done, reply lost */
	CHECK_ERR(s->remove(s, "k1"), LOOM_EIO);
	CHECK(!exists(s, "k1"));
	CHECK_ERR(s->list(s, "", NULL, 0, count_entries, &n), LOOM_EIO);
	CHECK_INT(n, 2);                                    /* half of k0 k2 k3 new */
	loom_store_free(s);
	CHECK_OK(loom_fault_configure(NULL));
	test_rmtree(dir);
	free(dir);
}

TEST(crash_kills_the_process)
{
	char *dir = test_mkdtemp("fault");
	pid_t pid = fork();
	int status = 0;
	REQUIRE(pid >= 0);
	if (pid == 0) {
		loom_store *s = open_faulty(dir, "put-if-absent@1:crash-after");
		if (s)
			s->put(s, "published", "x", 1, LOOM_PUT_IF_ABSENT);
		_exit(3); /* not reached */
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	{
		loom_store *s = NULL;
		loom_store_entry e;
		CHECK_OK(loom_store_open_local(&s, dir));
		CHECK_OK(s->stat(s, "published", &e));
		loom_store_free(s);
	}
	test_rmtree(dir);
	free(dir);
}

TEST(plan_from_the_environment)
{
	char *dir = test_mkdtemp("fault");
	loom_store *s = NULL;
	/* without LOOM_FAULTS loom_store_open gives the store itself */
	unsetenv("LOOM_FAULTS");
	CHECK_OK(loom_store_open(&s, dir, NULL));
	CHECK_STR(s->name, "local");
	loom_store_free(s);
	setenv("LOOM_FAULTS", "stat@1", 1);
	CHECK_OK(loom_store_open(&s, dir, NULL));
	CHECK_STR(s->name, "fault");
	loom_store_free(s);
	unsetenv("LOOM_FAULTS");
	CHECK_OK(loom_fault_configure(NULL));
	test_rmtree(dir);
	free(dir);
}

static const char *ADD = "{\"add\":{\"path\":\"new-1.parquet\",\"partitionValues\":{},\"size\":1,"
                         "\"modificationTime\":1,\"dataChange\":true}}\n";

/* A commit whose reply was lost is found by reading it back: the version
 * is reported as written and no second copy is committed. */
TEST(commit_with_a_lost_reply_is_ours)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_store *s = open_faulty(dir, "put-if-absent@1:after");
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	delta_commit_init(&c, DELTA_COMMIT_APPEND, 4, "WRITE");
	c.actions = ADD;
	c.actions_len = strlen(ADD);
	c.is_blind_append = 1;
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_INT(v, 5);
	CHECK(!exists(s, "_delta_log/00000000000000000006.json"));
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* ... and when reading it back fails too, the outcome is unknown: the
 * caller learns it must keep the files the commit may reference. */
TEST(commit_with_an_unknown_outcome)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_store *s = open_faulty(dir, "put-if-absent@1:after,read@1+,stat@1+");
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	delta_commit_init(&c, DELTA_COMMIT_APPEND, 4, "WRITE");
	c.actions = ADD;
	c.actions_len = strlen(ADD);
	CHECK_ERR(delta_commit_write(s, &c, &v), LOOM_EIO);
	CHECK_INT(v, DELTA_COMMIT_UNKNOWN);
	CHECK(strstr(loom_error_last()->message, "unknown") != NULL);
	loom_store_free(s);
	/* a plain failure before the store is a clean one */
	s = open_faulty(dir, "put-if-absent@1");
	REQUIRE(s != NULL);
	v = -1;
	c.read_version = 5;
	CHECK_ERR(delta_commit_write(s, &c, &v), LOOM_EIO);
	CHECK_INT(v, -1);
	CHECK(!exists(s, "_delta_log/00000000000000000006.json"));
	loom_store_free(s);
	CHECK_OK(loom_fault_configure(NULL));
	test_rmtree(dir);
	free(dir);
}

static int compact_under(const char *dir, const char *plan)
{
	loom_op_result r = LOOM_OP_RESULT_INIT;
	loom_compact_opts o;
	int rc;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	loom_compact_opts_init(&o, LOOM_COMPACT_OPTS_VERSION);
	if (loom_fault_configure(plan) < 0)
		return -100;
	rc = loom_compact(&r, dir, NULL, &o, NULL);
	loom_op_result_free(&r);
	return rc;
}

/* A compaction whose commit outcome is unknown keeps the files it wrote:
 * here the commit did land, and every file it references must be there. */
TEST(compaction_keeps_its_files_when_the_commit_outcome_is_unknown)
{
	char *probe = test_copy_fixture("delta/simple_table");
	char *dir = test_copy_fixture("delta/simple_table");
	char plan[128];
	loom_store *s = NULL;
	delta_snapshot *snap = NULL;
	long pia, reads, stats;
	size_t i;

	setenv("LOOM_FAULTS", "", 1);    /* loom_store_open wraps; the plan is set below */
	CHECK_OK(compact_under(probe, ""));
	pia = loom_fault_count("put-if-absent");
	reads = loom_fault_count("read");
	stats = loom_fault_count("stat");
	REQUIRE(pia >= 2);               /* the new file(s), then the commit */
	/* the commit's reply is lost, and every read after it fails */
	snprintf(plan, sizeof(plan), "put-if-absent@%ld:after,read@%ld+,stat@%ld+", pia, reads + 1,
	         stats + 1);
	CHECK_ERR(compact_under(dir, plan), LOOM_EIO);
	CHECK(strstr(loom_error_last()->message, "unknown") != NULL);
	unsetenv("LOOM_FAULTS");
	CHECK_OK(loom_fault_configure(NULL));
	CHECK_OK(loom_store_open_local(&s, dir));
	CHECK_OK(delta_snapshot_load(&snap, s, -1, NULL));
	CHECK_INT(snap->version, 5);     /* the compaction is in the table */
	for (i = 0; i < snap->num_files; i++) {
		loom_store_entry e;
		if (s->stat(s, snap->files[i]->path, &e) < 0)
			TEST_FAIL_AT("live file %s is missing", snap->files[i]->path);
	}
	delta_snapshot_free(snap);
	loom_store_free(s);
	test_rmtree(probe);
	test_rmtree(dir);
	free(probe);
	free(dir);
}

int main(void)
{
	RUN(plan_syntax);
	RUN(counts_and_fails_the_nth_call);
	RUN(writer_calls_count_as_writes_and_publication);
	RUN(short_reads_lost_replies_and_partial_lists);
	RUN(crash_kills_the_process);
	RUN(plan_from_the_environment);
	RUN(commit_with_a_lost_reply_is_ours);
	RUN(commit_with_an_unknown_outcome);
	RUN(compaction_keeps_its_files_when_the_commit_outcome_is_unknown);
	return test_summary();
}
