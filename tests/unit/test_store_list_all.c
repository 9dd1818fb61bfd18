/* store/list_all.c over an in-memory object store that answers listings
 * as S3 does (prefix, delimiter, ascending keys) and counts the listings
 * in flight: the fanned-out listing gives exactly what one recursive
 * listing gives, in the same order, from the calling thread; keeps
 * several listings in flight; stops when the callback says so; reports a
 * failed directory's error; and lists plainly on stores without
 * request-priced reads or with width 1. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/client.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

typedef struct mem_store {
	loom_store base;
	const char **keys;        /* sorted */
	size_t n;
	const char *fail_prefix;  /* a listing of this prefix fails */
	atomic_int in_flight;
	atomic_int most_in_flight;
	atomic_int listings;
} mem_store;

static void pause_a_little(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

/* A delimiter listing reports "dir" once for every key under "prefix" +
 * "dir/", in the place of its first key, as a common prefix. */
static int mem_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
                    loom_store_list_cb cb, void *payload)
{
	mem_store *s = (mem_store *)st;
	size_t plen = strlen(prefix), i;
	char last_dir[256] = "";
	int now, most, rc = 0;

	now = atomic_fetch_add(&s->in_flight, 1) + 1;
	atomic_fetch_add(&s->listings, 1);
	most = atomic_load(&s->most_in_flight);
	while (now > most && !atomic_compare_exchange_weak(&s->most_in_flight, &most, now))
		;
	pause_a_little(); /* a round trip, so listings overlap */
	if (s->fail_prefix && strcmp(prefix, s->fail_prefix) == 0) {
		rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "LIST \"%s\": injected failure", prefix);
		goto done;
	}
	for (i = 0; i < s->n && rc == 0; i++) {
		const char *k = s->keys[i], *slash;
		loom_store_entry e = { k, 10, 1000, 0, 0 };
		char dir[256];
		if (strncmp(k, prefix, plen) != 0 || (start_after && strcmp(k, start_after) <= 0))
			continue;
		slash = strchr(k + plen, '/');
		if (!(flags & LOOM_LIST_RECURSIVE) && slash) {
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - k), k);
			if (strcmp(dir, last_dir) == 0)
				continue;
			strcpy(last_dir, dir);
			e.key = dir;
			e.is_dir = 1;
			e.size = 0;
		}
		rc = cb(&e, payload);
	}
done:
	atomic_fetch_sub(&s->in_flight, 1);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void mem_init(mem_store *s, const char **keys, size_t n, uint32_t caps)
{
	memset(s, 0, sizeof(*s));
	s->base.version = 1;
	s->base.name = "memory";
	s->base.caps = caps;
	s->base.list = mem_list;
	qsort(keys, n, sizeof(*keys), cmp_str);
	s->keys = keys;
	s->n = n;
	atomic_init(&s->in_flight, 0);
	atomic_init(&s->most_in_flight, 0);
	atomic_init(&s->listings, 0);
}

typedef struct collected {
	loom_buf text;          /* "key size\n" per entry */
	pthread_t thread;
	int other_thread;       /* the callback ran on another thread */
	size_t count;
	size_t stop_after;      /* return 7 after this many (0: never) */
} collected;

static int collect(const loom_store_entry *e, void *payload)
{
	collected *c = payload;
	if (!pthread_equal(pthread_self(), c->thread))
		c->other_thread = 1;
	if (loom_buf_printf(&c->text, "%s %llu%s\n", e->key, (unsigned long long)e->size,
	                    e->is_dir ? " dir" : "") < 0)
		return LOOM_ENOMEM;
	if (c->stop_after && ++c->count == c->stop_after)
		return 7;
	return 0;
}

static void collected_init(collected *c)
{
	memset(c, 0, sizeof(*c));
	c->thread = pthread_self();
}

/* The plain recursive listing of `dir` ("" the root), for comparison. */
static void plain_listing(mem_store *s, const char *dir, collected *out)
{
	char prefix[256];
	snprintf(prefix, sizeof(prefix), "%s%s", dir, *dir ? "/" : "");
	collected_init(out);
	CHECK_OK(s->base.list(&s->base, prefix, NULL, LOOM_LIST_RECURSIVE, collect, out));
}

/* keys for a table of `dirs` partition directories, `per_dir` files each,
 * a log, and files at the root */
static const char **table_keys(size_t dirs, size_t per_dir, size_t *n)
{
	const char **keys = loom_calloc(dirs * per_dir + 16, sizeof(char *));
	size_t d, f, k = 0;
	char buf[128];
	for (d = 0; d < dirs; d++)
		for (f = 0; f < per_dir; f++) {
			snprintf(buf, sizeof(buf), "p=%zu/part-%zu.parquet", d, f);
			keys[k++] = strdup(buf);
		}
	keys[k++] = strdup("_delta_log/00000000000000000000.json");
	keys[k++] = strdup("_delta_log/00000000000000000001.json");
	keys[k++] = strdup("_delta_log/_last_checkpoint");
	keys[k++] = strdup("root-file.parquet");
	keys[k++] = strdup("p=1.parquet");          /* sorts before p=1/... */
	keys[k++] = strdup("p=10");                 /* an object named like a directory */
	*n = k;
	return keys;
}

static void free_keys(const char **keys, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free((void *)keys[i]);
	loom_free(keys);
}

TEST(same_objects_same_order_as_one_recursive_listing)
{
	size_t n, widths[] = { 2, 16, 64 }, w;
	const char **keys = table_keys(100, 5, &n);
	mem_store s;
	collected plain, fanned;
	mem_init(&s, keys, n, LOOM_STORE_CAP_REQUEST_READS);
	plain_listing(&s, "", &plain);
	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		collected_init(&fanned);
		atomic_store(&s.most_in_flight, 0);
		CHECK_OK(loom_store_list_all(&s.base, "", widths[w], collect, &fanned));
		REQUIRE(fanned.text.ptr != NULL);
		CHECK_STR(fanned.text.ptr, plain.text.ptr);
		CHECK(!fanned.other_thread);
		/* several directories listed at once, never more than asked */
		CHECK(atomic_load(&s.most_in_flight) >= 2);
		CHECK(atomic_load(&s.most_in_flight) <= (int)widths[w]);
		loom_buf_dispose(&fanned.text);
	}
	loom_buf_dispose(&plain.text);
	free_keys(keys, n);
}

TEST(opens_levels_to_find_enough_directories)
{
	/* two directories at the top, 30 below each */
	const char **keys = loom_calloc(2 * 30 * 3 + 1, sizeof(char *));
	size_t n = 0, a, b, f;
	char buf[128];
	mem_store s;
	collected plain, fanned;
	for (a = 0; a < 2; a++)
		for (b = 0; b < 30; b++)
			for (f = 0; f < 3; f++) {
				snprintf(buf, sizeof(buf), "date=%zu/hour=%02zu/f%zu.parquet", a, b, f);
				keys[n++] = strdup(buf);
			}
	keys[n++] = strdup("date=0/loose.parquet"); /* a file beside the sub-directories */
	mem_init(&s, keys, n, LOOM_STORE_CAP_REQUEST_READS);
	plain_listing(&s, "", &plain);
	collected_init(&fanned);
	CHECK_OK(loom_store_list_all(&s.base, "", 16, collect, &fanned));
	REQUIRE(fanned.text.ptr != NULL);
	CHECK_STR(fanned.text.ptr, plain.text.ptr);
	/* with only two directories at the top, 16 in flight needs the
	 * second level */
	CHECK(atomic_load(&s.most_in_flight) > 2);
	loom_buf_dispose(&plain.text);
	loom_buf_dispose(&fanned.text);
	free_keys(keys, n);
}

TEST(a_subdirectory_and_plain_stores)
{
	size_t n;
	const char **keys = table_keys(20, 3, &n);
	mem_store s;
	collected plain, fanned;
	/* under one directory */
	mem_init(&s, keys, n, LOOM_STORE_CAP_REQUEST_READS);
	plain_listing(&s, "_delta_log", &plain);
	collected_init(&fanned);
	CHECK_OK(loom_store_list_all(&s.base, "_delta_log", 8, collect, &fanned));
	CHECK_STR(fanned.text.ptr, plain.text.ptr);
	loom_buf_dispose(&fanned.text);
	loom_buf_dispose(&plain.text);
	/* a store whose reads are not requests, and width 1: one listing */
	mem_init(&s, keys, n, 0);
	plain_listing(&s, "", &plain);
	atomic_store(&s.listings, 0);
	collected_init(&fanned);
	CHECK_OK(loom_store_list_all(&s.base, "", 16, collect, &fanned));
	CHECK_STR(fanned.text.ptr, plain.text.ptr);
	CHECK_INT(atomic_load(&s.listings), 1);
	loom_buf_dispose(&fanned.text);
	mem_init(&s, keys, n, LOOM_STORE_CAP_REQUEST_READS);
	collected_init(&fanned);
	CHECK_OK(loom_store_list_all(&s.base, "", 1, collect, &fanned));
	CHECK_STR(fanned.text.ptr, plain.text.ptr);
	CHECK_INT(atomic_load(&s.listings), 1);
	loom_buf_dispose(&fanned.text);
	loom_buf_dispose(&plain.text);
	free_keys(keys, n);
}

TEST(the_callback_stops_the_listing)
{
	size_t n;
	const char **keys = table_keys(200, 5, &n);
	mem_store s;
	collected c;
	mem_init(&s, keys, n, LOOM_STORE_CAP_REQUEST_READS);
	collected_init(&c);
	c.stop_after = 123;
	CHECK_INT(loom_store_list_all(&s.base, "", 16, collect, &c), 7);
	CHECK(c.count == 123);
	/* the workers stopped too: far fewer than 200 directories listed */
	CHECK(atomic_load(&s.listings) < 200);
	loom_buf_dispose(&c.text);
	free_keys(keys, n);
}

TEST(a_failed_directory_fails_the_listing)
{
	size_t n;
	const char **keys = table_keys(100, 2, &n);
	mem_store s;
	collected c;
	mem_init(&s, keys, n, LOOM_STORE_CAP_REQUEST_READS);
	s.fail_prefix = "p=42/";
	collected_init(&c);
	CHECK_ERR(loom_store_list_all(&s.base, "", 16, collect, &c), LOOM_EIO);
	CHECK(strstr(loom_error_last()->message, "p=42/") != NULL);
	/* everything before the failed directory was delivered, nothing after */
	REQUIRE(c.text.ptr != NULL);
	CHECK(strstr(c.text.ptr, "p=41/part-1.parquet") != NULL);
	CHECK(strstr(c.text.ptr, "p=43/") == NULL);
	loom_buf_dispose(&c.text);
	/* the top listing failing */
	s.fail_prefix = "";
	collected_init(&c);
	CHECK_ERR(loom_store_list_all(&s.base, "", 16, collect, &c), LOOM_EIO);
	CHECK(c.text.ptr == NULL);
	free_keys(keys, n);
}

int main(void)
{
	RUN(same_objects_same_order_as_one_recursive_listing);
	RUN(opens_levels_to_find_enough_directories);
	RUN(a_subdirectory_and_plain_stores);
	RUN(the_callback_stops_the_listing);
	RUN(a_failed_directory_fails_the_listing);
	return test_summary();
}
