/* Unit tests of the util layer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/percent.h"
#include "util/threadpool.h"
#include "util/uuid.h"
#include "util/vec.h"

TEST(error_record_holds_code_class_message)
{
	loom_error_clear();
	CHECK(loom_error_last() == NULL);
	CHECK_INT(loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: bad magic at offset %d", "a.parquet", 4),
	          LOOM_ECORRUPT);
	REQUIRE(loom_error_last() != NULL);
	CHECK_INT(loom_error_last()->code, LOOM_ECORRUPT);
	CHECK_INT(loom_error_last()->klass, LOOM_ERRCLASS_PARQUET);
	CHECK_STR(loom_error_last()->message, "a.parquet: bad magic at offset 4");
	loom_err_wrap("table %s", "t1");
	CHECK_STR(loom_error_last()->message, "table t1: a.parquet: bad magic at offset 4");
	CHECK_STR(loom_error_code_name(LOOM_EEXISTS), "EEXISTS");
	CHECK_STR(loom_error_code_name(12345), "UNKNOWN");
}

TEST(error_os_appends_strerror)
{
	CHECK_INT(loom_err_os(LOOM_ENOTFOUND, 2, "cannot open %s", "x"), LOOM_ENOTFOUND);
	CHECK(strstr(loom_error_last()->message, "cannot open x: ") == loom_error_last()->message);
	CHECK_INT(loom_err_from_errno(2), LOOM_ENOTFOUND);
	CHECK_INT(loom_err_from_errno(17), LOOM_EEXISTS);
	CHECK_INT(loom_err_from_errno(5), LOOM_EIO);
}

static void *thread_error(void *arg)
{
	(void)arg;
	loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "other thread");
	return NULL;
}

#include <pthread.h>
TEST(error_is_per_thread)
{
	pthread_t t;
	loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "mine");
	pthread_create(&t, NULL, thread_error, NULL);
	pthread_join(t, NULL);
	CHECK_STR(loom_error_last()->message, "mine");
}

/* A worker's failure is handed over as a copied record and raised again:
 * a record copied after some cleanup cleared the error must still raise
 * a failure, never 0 (a Z-order unit whose upload failed so was once
 * counted as finished with no output, and its rows left the table). */
TEST(error_raise_of_an_empty_record_is_a_failure)
{
	loom_error copied;
	loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "upload failed");
	loom_error_clear(); /* what a best-effort cleanup did */
	loom_err_copy(&copied);
	CHECK_INT(copied.code, 0);
	CHECK_INT(loom_err_raise(&copied), LOOM_ERROR);
	REQUIRE(loom_error_last() != NULL);
	CHECK_INT(loom_error_last()->code, LOOM_ERROR);
	CHECK(loom_error_last()->message[0] != '\0');
	/* a real record is raised as it was */
	loom_err(LOOM_ETRANSIENT, LOOM_ERRCLASS_STORE, "throttled");
	loom_err_copy(&copied);
	loom_error_clear();
	CHECK_INT(loom_err_raise(&copied), LOOM_ETRANSIENT);
	CHECK_STR(loom_error_last()->message, "throttled");
}

TEST(buf_appends_and_formats)
{
	loom_buf b = LOOM_BUF_INIT;
	int i;
	CHECK_OK(loom_buf_puts(&b, "abc"));
	CHECK_OK(loom_buf_printf(&b, "-%d-%s", 42, "x"));
	CHECK_STR(b.ptr, "abc-42-x");
	for (i = 0; i < 10000; i++)
		CHECK_OK(loom_buf_putc(&b, 'z'));
	CHECK_INT(b.size, 8 + 10000);
	CHECK_INT(b.ptr[b.size], 0);
	loom_buf_clear(&b);
	CHECK_INT(b.size, 0);
	CHECK_OK(loom_buf_put_json_string(&b, "a\"b\\c\n\x01", 7));
	CHECK_STR(b.ptr, "\"a\\\"b\\\\c\\n\\u0001\"");
	{
		char *d = loom_buf_detach(&b);
		CHECK(b.ptr == NULL && b.size == 0);
		loom_free(d);
	}
	loom_buf_dispose(&b);
}

TEST(buf_reports_out_of_memory)
{
	loom_buf b = LOOM_BUF_INIT;
	loom_alloc_fail_after(1);
	CHECK_ERR(loom_buf_puts(&b, "x"), LOOM_ENOMEM);
	loom_alloc_fail_after(0);
	CHECK_OK(loom_buf_puts(&b, "x"));
	loom_buf_dispose(&b);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

TEST(vec_push_sort_at)
{
	loom_vec v = LOOM_VEC_INIT(int);
	int i, *slot;
	for (i = 100; i > 0; i--)
		CHECK_OK(loom_vec_push(&v, &i));
	CHECK_INT(v.len, 100);
	loom_vec_sort(&v, cmp_int);
	for (i = 0; i < 100; i++)
		CHECK_INT(LOOM_VEC_AT(&v, int, i), i + 1);
	CHECK(loom_vec_at(&v, 100) == NULL);
	CHECK_OK(loom_vec_push_zero(&v, (void **)&slot));
	CHECK_INT(*slot, 0);
	loom_alloc_fail_after(1);
	CHECK_ERR(loom_vec_reserve(&v, 1000000), LOOM_ENOMEM);
	loom_alloc_fail_after(0);
	loom_vec_dispose(&v);
}

TEST(array_grow_doubles_and_never_leaves_null)
{
	int *a = NULL;
	size_t cap = 0;
	CHECK_OK(loom_array_grow((void **)&a, &cap, 0, sizeof(int)));
	CHECK(a != NULL && cap >= 1);
	CHECK_OK(loom_array_grow((void **)&a, &cap, 1000, sizeof(int)));
	CHECK(cap >= 1000);
	a[999] = 7;
	CHECK_ERR(loom_array_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof(int)), LOOM_ENOMEM);
	CHECK_INT(a[999], 7);
	loom_free(a);
	CHECK_INT(loom_hex_digit('f'), 15);
	CHECK_INT(loom_hex_digit('A'), 10);
	CHECK_INT(loom_hex_digit('g'), -1);
}

TEST(hashmap_put_get_remove_many)
{
	loom_map m = LOOM_MAP_INIT;
	enum { N = 20000 };
	char (*keys)[24] = malloc(sizeof(*keys) * N);
	void *old;
	size_t pos = 0, seen = 0;
	int i;

	for (i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "part-%05d.parquet", i);
		CHECK_OK(loom_map_put(&m, keys[i], strlen(keys[i]), (void *)(intptr_t)(i + 1), &old));
		CHECK(old == NULL);
	}
	CHECK_INT(m.count, N);
	CHECK_OK(loom_map_put(&m, keys[7], strlen(keys[7]), (void *)(intptr_t)777, &old));
	CHECK((intptr_t)old == 8);
	CHECK((intptr_t)loom_map_gets(&m, keys[7]) == 777);
	/* remove every other key, then all remaining must still be found */
	for (i = 0; i < N; i += 2)
		CHECK(loom_map_remove(&m, keys[i], strlen(keys[i])) != NULL);
	CHECK_INT(m.count, N / 2);
	for (i = 0; i < N; i++) {
		void *v = loom_map_gets(&m, keys[i]);
		if (i % 2 == 0)
			CHECK(v == NULL);
		else if (i != 7)
			CHECK((intptr_t)v == i + 1);
	}
	CHECK(loom_map_remove(&m, "missing", 7) == NULL);
	while (loom_map_next(&m, &pos, NULL, NULL, NULL))
		seen++;
	CHECK_INT(seen, N / 2);
	loom_map_dispose(&m);
	free(keys);
}

TEST(arena_aligns_and_holds_big_blocks)
{
	loom_arena a;
	char *s;
	void *big, *p;
	int i;
	loom_arena_init(&a, 256);
	for (i = 0; i < 1000; i++) {
		p = loom_arena_alloc(&a, (size_t)(i % 37) + 1);
		REQUIRE(p != NULL);
		CHECK(((uintptr_t)p & 15) == 0);
	}
	big = loom_arena_calloc(&a, 10000);
	REQUIRE(big != NULL);
	CHECK(((char *)big)[9999] == 0);
	s = loom_arena_strdup(&a, "hello");
	CHECK_STR(s, "hello");
	loom_arena_dispose(&a);
}

static void add_task(void *arg)
{
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_SEQ_CST);
}

TEST(threadpool_runs_every_task)
{
	loom_threadpool *p;
	int counter = 0, i;
	CHECK_OK(loom_threadpool_new(&p, 4));
	CHECK_INT(loom_threadpool_size(p), 4);
	for (i = 0; i < 5000; i++)
		CHECK_OK(loom_threadpool_submit(p, add_task, &counter));
	loom_threadpool_wait(p);
	CHECK_INT(counter, 5000);
	loom_threadpool_free(p);
	loom_threadpool_free(NULL);
	CHECK(loom_cpu_count() >= 1);
}

/* An outer task fans out into its own group and waits for it on a pool
 * whose every thread runs such an outer task: only helping waits (the
 * waiter runs its group's queued tasks) let this finish. */
typedef struct nest {
	loom_threadpool *p;
	int counter;
} nest;

static void outer_task(void *arg)
{
	nest *n = arg;
	loom_taskgroup g;
	int i;
	loom_taskgroup_init(&g, n->p);
	for (i = 0; i < 50; i++)
		loom_taskgroup_run(&g, add_task, &n->counter);
	loom_taskgroup_wait(&g);
	__atomic_fetch_add(&n->counter, 1000, __ATOMIC_SEQ_CST);
}

TEST(taskgroups_nest_on_one_pool)
{
	nest n;
	loom_taskgroup g;
	int i;
	memset(&n, 0, sizeof(n));
	CHECK_OK(loom_threadpool_new(&n.p, 2));
	loom_taskgroup_init(&g, n.p);
	for (i = 0; i < 8; i++)
		loom_taskgroup_run(&g, outer_task, &n);
	loom_taskgroup_wait(&g);
	CHECK_INT(n.counter, 8 * 1050);
	/* without a pool, tasks run at once */
	loom_taskgroup_init(&g, NULL);
	loom_taskgroup_run(&g, add_task, &n.counter);
	loom_taskgroup_wait(&g);
	CHECK_INT(n.counter, 8 * 1050 + 1);
	loom_threadpool_free(n.p);
}

TEST(clock_system_and_fixed)
{
	loom_fixed_clock fc;
	int64_t t0 = loom_clock_wall_ms(NULL);
	CHECK(t0 > 1600000000000LL);
	CHECK(loom_clock_mono_ns(loom_clock_system()) > 0);
	loom_fixed_clock_init(&fc, 1234);
	CHECK_INT(loom_clock_wall_ms(&fc.clock), 1234);
	fc.now_ms = 5000;
	CHECK_INT(loom_clock_wall_ms(&fc.clock), 5000);
	CHECK_INT(loom_clock_mono_ns(&fc.clock), 5000000000LL);
}

TEST(uuid_v4_format_and_uniqueness)
{
	char a[37], b[37];
	CHECK_OK(loom_uuid_v4_string(a));
	CHECK_OK(loom_uuid_v4_string(b));
	CHECK_INT(strlen(a), 36);
	CHECK(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
	CHECK(a[14] == '4');
	CHECK(strchr("89ab", a[19]) != NULL);
	CHECK(strcmp(a, b) != 0);
}

TEST(percent_round_trips_delta_paths)
{
	loom_buf b = LOOM_BUF_INIT, d = LOOM_BUF_INIT;
	const char *raw = "x=a%3Ab c/part 1+é.parquet";
	CHECK_OK(loom_percent_encode_path(&b, raw, strlen(raw)));
	CHECK_STR(b.ptr, "x=a%253Ab%20c/part%201+%C3%A9.parquet");
	CHECK_OK(loom_percent_decode(&d, b.ptr, b.size));
	CHECK_STR(d.ptr, raw);
	loom_buf_clear(&d);
	CHECK_ERR(loom_percent_decode(&d, "a%2", 3), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "offset 1") != NULL);
	CHECK_ERR(loom_percent_decode(&d, "a%zz", 4), LOOM_EINVAL);
	loom_buf_clear(&b);
	CHECK_OK(loom_hive_escape(&b, "2021-01-01 10:00:00/x=y", 23));
	CHECK_STR(b.ptr, "2021-01-01 10%3A00%3A00%2Fx%3Dy");
	loom_buf_dispose(&b);
	loom_buf_dispose(&d);
}

/* A buffer only grown (a decode of "") is an empty string, not stray
 * bytes (found by fuzzing: a DV path message read past one). */
TEST(buf_grown_is_terminated)
{
	loom_buf b = LOOM_BUF_INIT;
	CHECK_OK(loom_buf_grow(&b, 10));
	CHECK(b.ptr != NULL && b.ptr[0] == '\0');
	CHECK_OK(loom_percent_decode(&b, "", 0));
	CHECK_STR(b.ptr, "");
	loom_buf_dispose(&b);
}

int main(void)
{
	RUN(error_record_holds_code_class_message);
	RUN(error_os_appends_strerror);
	RUN(error_is_per_thread);
	RUN(error_raise_of_an_empty_record_is_a_failure);
	RUN(buf_appends_and_formats);
	RUN(buf_grown_is_terminated);
	RUN(buf_reports_out_of_memory);
	RUN(vec_push_sort_at);
	RUN(array_grow_doubles_and_never_leaves_null);
	RUN(hashmap_put_get_remove_many);
	RUN(arena_aligns_and_holds_big_blocks);
	RUN(threadpool_runs_every_task);
	RUN(taskgroups_nest_on_one_pool);
	RUN(clock_system_and_fixed);
	RUN(uuid_v4_format_and_uniqueness);
	RUN(percent_round_trips_delta_paths);
	return test_summary();
}
