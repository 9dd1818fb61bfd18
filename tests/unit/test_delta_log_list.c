/* delta/log_list_split.c over an in-memory object store that lists as S3
 * does (ascending keys after start-after, a delimiter, pages of 1,000 keys
 * each one request, a few ms per request): the log listed in version
 * ranges side by side gives exactly the files one plain listing gives, in
 * the same order, for logs short and long, with checkpoints, .crc files,
 * names that are not log files, a log that starts late (old commits
 * cleaned up), a gap, and from a start key; it keeps several listings in
 * flight on a long log, spends one request on a short one, and reports a
 * failed range's error. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delta/log_list_split.h"
#include "delta/log_listing.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

#define PAGE 1000

typedef struct mem_store {
	loom_store base;
	char **keys;              /* sorted */
	size_t n;
	const char *fail_after;   /* a listing from this start key fails */
	long delay_ms;            /* per request */
	atomic_int in_flight, most_in_flight, requests;
} mem_store;

static void one_request(mem_store *s)
{
	struct timespec ts = { 0, s->delay_ms * 1000 * 1000 };
	int now = atomic_fetch_add(&s->in_flight, 1) + 1, most = atomic_load(&s->most_in_flight);
	atomic_fetch_add(&s->requests, 1);
	while (now > most && !atomic_compare_exchange_weak(&s->most_in_flight, &most, now))
		;
	nanosleep(&ts, NULL);  /* a round trip, so listings overlap */
	atomic_fetch_sub(&s->in_flight, 1);
}

/* The first key > start_after (binary search). */
static size_t first_after(const mem_store *s, const char *start_after)
{
	size_t lo = 0, hi = s->n;
	if (!start_after)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->keys[mid], start_after) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Pages of PAGE entries (a common prefix counts as one), one request each,
 * the next page fetched only when the callback took the whole page. */
static int mem_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
                    loom_store_list_cb cb, void *payload)
{
	mem_store *s = (mem_store *)st;
	size_t plen = strlen(prefix), i = first_after(s, start_after), in_page = 0;
	char last_dir[256] = "";

	one_request(s);
	if (s->fail_after && start_after && strcmp(start_after, s->fail_after) == 0)
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "LIST after \"%s\": injected failure",
		                start_after);
	for (; i < s->n; i++) {
		const char *k = s->keys[i], *slash;
		loom_store_entry e = { k, 100, 1000, 0, 0 };
		char dir[256];
		int rc;
		if (strncmp(k, prefix, plen) != 0)
			continue;
		slash = strchr(k + plen, '/');
		if (!(flags & LOOM_LIST_RECURSIVE) && slash) {
			snprintf(dir, sizeof(dir), "%.*s/", (int)(slash - k), k);
			if (strcmp(dir, last_dir) == 0)
				continue;
			strcpy(last_dir, dir);
			e.key = dir;
			e.is_dir = 1;
		}
		if (in_page == PAGE) {
			one_request(s);
			in_page = 0;
		}
		in_page++;
		if ((rc = cb(&e, payload)) != 0)
			return rc;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void mem_init(mem_store *s, char **keys, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->base.version = 1;
	s->base.name = "memory";
	s->base.caps = LOOM_STORE_CAP_REQUEST_READS;
	s->base.list = mem_list;
	qsort(keys, n, sizeof(*keys), cmp_str);
	s->keys = keys;
	s->n = n;
	s->delay_ms = 2;
}

/* Keys of a log: commits first..last (a checkpoint every `ckpt_every`
 * versions, 0: none; a .crc per commit when `crc`), plus names that are
 * not log files and _last_checkpoint, _sidecars/. */
typedef struct keyset {
	char **keys;
	size_t n, cap;
} keyset;

static void add_key(keyset *k, const char *key)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 1024;
		k->keys = realloc(k->keys, k->cap * sizeof(char *));
		REQUIRE(k->keys != NULL);
	}
	k->keys[k->n++] = strdup(key);
}

/* "_delta_log/<v, 20 digits><suffix>" */
static void add_version(keyset *k, long long v, const char *suffix)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "_delta_log/%020lld%s", v, suffix);
	add_key(k, buf);
}

static void add_commits(keyset *k, long long first, long long last, long long ckpt_every, int crc)
{
	long long v;
	for (v = first; v <= last; v++) {
		add_version(k, v, ".json");
		if (crc)
			add_version(k, v, ".crc");
		if (ckpt_every && v && v % ckpt_every == 0)
			add_version(k, v, ".checkpoint.parquet");
	}
}

static void add_extras(keyset *k)
{
	add_key(k, "_delta_log/.s3-optimization-0");
	add_key(k, "_delta_log/_last_checkpoint");
	add_key(k, "_delta_log/_sidecars/a-1.parquet");
	add_key(k, "_delta_log/_sidecars/a-2.parquet");
	add_key(k, "_delta_log/Zebra-0");
	add_key(k, "_delta_log/zz-0.json");
	add_version(k, 7, "x.json");              /* a version's digits, not a log name */
	add_key(k, "part-00001.parquet");         /* outside _delta_log/ */
}

static void keyset_free(keyset *k)
{
	size_t i;
	for (i = 0; i < k->n; i++)
		free(k->keys[i]);
	free(k->keys);
	memset(k, 0, sizeof(*k));
}

/* The files as "key\n" lines. */
static void files_text(const loom_vec *files, loom_buf *out)
{
	size_t i;
	for (i = 0; i < files->len; i++) {
		const delta_log_file *f = loom_vec_at(files, i);
		REQUIRE(loom_buf_printf(out, "%s\n", f->key) == 0);
	}
}

/* The split listing against one plain listing of the same store (the
 * capability off: the store lists in one listing). */
static void compare(mem_store *s, const char *start_after, const char *label)
{
	loom_vec split = LOOM_VEC_INIT(delta_log_file), plain = LOOM_VEC_INIT(delta_log_file);
	loom_buf a = LOOM_BUF_INIT, b = LOOM_BUF_INIT;

	CHECK_OK(delta_log_list_files(&s->base, start_after, &split));
	s->base.caps = 0;
	CHECK_OK(delta_log_list_files(&s->base, start_after, &plain));
	s->base.caps = LOOM_STORE_CAP_REQUEST_READS;
	files_text(&split, &a);
	files_text(&plain, &b);
	if (split.len != plain.len || a.size != b.size || (a.size && memcmp(a.ptr, b.ptr, a.size)))
		fprintf(stderr, "%s: split %zu files, plain %zu\n", label, split.len, plain.len);
	CHECK(split.len == plain.len);
	CHECK(a.size == b.size && (!a.size || memcmp(a.ptr, b.ptr, a.size) == 0));
	delta_log_files_dispose(&split);
	delta_log_files_dispose(&plain);
	loom_buf_dispose(&a);
	loom_buf_dispose(&b);
}

/* Requests and most in flight of one split listing. */
static void measure(mem_store *s, const char *start_after, int *requests, int *most, size_t *files)
{
	loom_vec v = LOOM_VEC_INIT(delta_log_file);
	atomic_store(&s->requests, 0);
	atomic_store(&s->most_in_flight, 0);
	s->delay_ms = 20;  /* long enough that every listing of a round overlaps */
	CHECK_OK(delta_log_list_files(&s->base, start_after, &v));
	*requests = atomic_load(&s->requests);
	*most = atomic_load(&s->most_in_flight);
	*files = v.len;
	delta_log_files_dispose(&v);
}

TEST(same_files_same_order_as_one_listing)
{
	static const long long sizes[] = { 1, 5, 998, 999, 1000, 1001, 1998, 2500, 20000 };
	size_t i;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int crc;
		for (crc = 0; crc <= 1; crc++) {
			keyset k = { 0 };
			mem_store s;
			char label[64];
			add_commits(&k, 0, sizes[i] - 1, 100, crc);
			add_extras(&k);
			mem_init(&s, k.keys, k.n);
			snprintf(label, sizeof(label), "%lld commits, crc %d", sizes[i], crc);
			compare(&s, NULL, label);
			compare(&s, "_delta_log/00000000000000000700.~", label);
			compare(&s, "_delta_log/00000000000000000999.json", label);
			keyset_free(&k);
		}
	}
}

TEST(a_log_that_starts_late_or_has_a_gap)
{
	keyset k = { 0 };
	mem_store s;
	add_commits(&k, 50000, 53500, 10000, 0);
	add_commits(&k, 90000, 91200, 0, 0);         /* a gap of 36,500 versions */
	add_extras(&k);
	mem_init(&s, k.keys, k.n);
	compare(&s, NULL, "late start and a gap");
	compare(&s, "_delta_log/00000000000000050000.~", "late start, from a version");
	keyset_free(&k);
}

TEST(long_logs_are_listed_side_by_side_short_ones_in_one_request)
{
	keyset k = { 0 };
	mem_store s;
	int requests, most;
	size_t files;

	add_commits(&k, 0, 99999, 0, 0);
	add_key(&k, "_delta_log/_last_checkpoint");
	mem_init(&s, k.keys, k.n);
	measure(&s, NULL, &requests, &most, &files);
	CHECK(files == 100001);
	/* 100 pages one after the other before; now the first page, then
	 * ranges of 999 versions, one page each, 16 at a time, and fewer
	 * than 16 past the end */
	if (most < LOG_LIST_WIDTH || requests > 100 + LOG_LIST_WIDTH)
		fprintf(stderr, "100,000 commits: %d requests, %d in flight\n", requests, most);
	CHECK(most >= LOG_LIST_WIDTH);
	CHECK(requests <= 100 + LOG_LIST_WIDTH);
	keyset_free(&k);

	/* 1,050 commits: the first page and the rest, as a plain listing */
	add_commits(&k, 0, 1049, 0, 0);
	mem_init(&s, k.keys, k.n);
	measure(&s, NULL, &requests, &most, &files);
	CHECK(files == 1050);
	CHECK_INT(requests, 2);
	keyset_free(&k);

	/* 20 commits: one request */
	add_commits(&k, 0, 19, 0, 0);
	mem_init(&s, k.keys, k.n);
	measure(&s, NULL, &requests, &most, &files);
	CHECK(files == 20);
	CHECK_INT(requests, 1);
	keyset_free(&k);
}

TEST(a_failed_range_fails_the_listing)
{
	keyset k = { 0 };
	mem_store s;
	loom_vec v = LOOM_VEC_INIT(delta_log_file);

	add_commits(&k, 0, 9999, 0, 0);
	mem_init(&s, k.keys, k.n);
	/* the range after the first page's ranges: versions 1998..2996 */
	s.fail_after = "_delta_log/00000000000000001997.~";
	CHECK_ERR(delta_log_list_files(&s.base, NULL, &v), LOOM_EIO);
	CHECK(strstr(loom_error_last()->message, "injected failure") != NULL);
	delta_log_files_dispose(&v);
	keyset_free(&k);
}

int main(void)
{
	RUN(same_files_same_order_as_one_listing);
	RUN(a_log_that_starts_late_or_has_a_gap);
	RUN(long_logs_are_listed_side_by_side_short_ones_in_one_request);
	RUN(a_failed_range_fails_the_listing);
	return test_summary();
}
