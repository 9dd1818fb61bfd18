/* The compact file index (delta/file_index.h): names in binary, paths
 * sorted as their text, first added of a key kept, views equal to what
 * went in, stats read back from a span of a commit file, and the bytes per
 * file of a generated 100,000-file table. The fixtures' views against the
 * independent oracle: tests/scripts/file_index_vs_oracle.sh. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delta/file_index.h"
#include "delta/file_names.h"
#include "delta/snapshot.h"
#include "loom/store.h"
#include "delta_compare.h"
#include "test.h"
#include "tmpdir.h"
#include "util/buf.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void uuid_text(char *out)
{
	static const char hex[] = "0123456789abcdef";
	int i, n = 0;
	for (i = 0; i < 32; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[n++] = '-';
		out[n++] = hex[rnd() & 15];
	}
	out[n] = '\0';
}

TEST(names_round_trip)
{
	const char *good[] = {
		"part-00000-0a1b2c3d-4e5f-6789-abcd-ef0123456789-c000.snappy.parquet",
		"part-99999-ffffffff-ffff-ffff-ffff-ffffffffffff.c000.snappy.parquet",
		"part-00001-00000000-0000-0000-0000-000000000000-c001.zstd.parquet",
	};
	const char *bad[] = {
		"part-0000-0a1b2c3d-4e5f-6789-abcd-ef0123456789-c000.snappy.parquet",
		"part-000000-0a1b2c3d-4e5f-6789-abcd-ef0123456789-c000.snappy.parquet",
		"part-00000-0A1B2C3D-4e5f-6789-abcd-ef0123456789-c000.snappy.parquet",
		"part-00000-0a1b2c3d-4e5f-6789-abcd-ef0123456789",
		"part-00000-0a1b2c3d_4e5f-6789-abcd-ef0123456789-c000.snappy.parquet",
		"part-00000-0a1b2c3d-4e5f-6789-abcd-ef0123456789-this-suffix-is-longer-than-32-bytes.parquet",
		"data-00000-0a1b2c3d-4e5f-6789-abcd-ef0123456789-c000.snappy.parquet",
	};
	size_t i;
	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		delta_name_parts p;
		char out[DELTA_NAME_FORMAT_MAX];
		REQUIRE(delta_name_parse(good[i], strlen(good[i]), &p) == 1);
		CHECK(delta_name_format(&p, out) == strlen(good[i]));
		CHECK(strcmp(out, good[i]) == 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		delta_name_parts p;
		CHECK(delta_name_parse(bad[i], strlen(bad[i]), &p) == 0);
	}
}

TEST(names_compare_as_text)
{
	int i;
	for (i = 0; i < 20000; i++) {
		char a[128], b[128], ua[40], ub[40];
		delta_name_parts pa, pb;
		int want, got;
		uuid_text(ua);
		uuid_text(ub);
		if (rnd() % 4 == 0)
			memcpy(ub, ua, 20); /* shared leading bytes */
		snprintf(a, sizeof(a), "part-%05u-%s%s", (unsigned)(rnd() % 3), ua,
		         rnd() % 2 ? "-c000.snappy.parquet" : ".c000.snappy.parquet");
		snprintf(b, sizeof(b), "part-%05u-%s%s", (unsigned)(rnd() % 3),
		         rnd() % 8 ? ub : ua, rnd() % 2 ? "-c000.snappy.parquet" : "-c000.parquet");
		REQUIRE(delta_name_parse(a, strlen(a), &pa) && delta_name_parse(b, strlen(b), &pb));
		want = strcmp(a, b);
		got = delta_name_compare(&pa, &pb);
		CHECK((want > 0) == (got > 0) && (want < 0) == (got < 0));
	}
}

/* ---- a generated set of actions and the reference reconciliation ---- */

typedef struct gen_file {
	delta_file f;
	char raw[160], dec[160], dvid[64], dvpath[32], stats[120];
	delta_kv pv[2];
	char pv_val[2][24];
	size_t seq;
} gen_file;

/* Fill g as the i-th action. `tricky` adds root files, nested directories,
 * escaped directories and names, tombstones and duplicate keys. */
static void gen_one(gen_file *g, size_t i, int tricky)
{
	char uuid[40];
	unsigned p = (unsigned)(rnd() % 500);
	uint64_t kind = rnd() % 100;
	memset(g, 0, sizeof(*g));
	uuid_text(uuid);
	snprintf(g->pv_val[0], sizeof(g->pv_val[0]), "%u", p);
	g->pv[0].key = "p";
	g->pv[0].value = p % 97 == 0 ? NULL : g->pv_val[0];
	if (g->pv[0].value)
		snprintf(g->raw, sizeof(g->raw), "p=%u/part-%05u-%s-c000.snappy.parquet", p,
		         (unsigned)(rnd() % 4), uuid);
	else
		snprintf(g->raw, sizeof(g->raw),
		         "p=__HIVE_DEFAULT_PARTITION__/part-%05u-%s-c000.snappy.parquet",
		         (unsigned)(rnd() % 4), uuid);
	if (kind < 3)
		snprintf(g->raw, sizeof(g->raw), "p=%u/%zu-written-by-someone-else.parquet", p, i);
	if (tricky && kind >= 3 && kind < 8)
		snprintf(g->raw, sizeof(g->raw), "root-%zu.parquet", i);
	if (tricky && kind >= 8 && kind < 12)
		snprintf(g->raw, sizeof(g->raw), "p=%u/sub/part-00000-%s-c000.snappy.parquet", p, uuid);
	if (tricky && kind >= 12 && kind < 16)
		snprintf(g->raw, sizeof(g->raw), "s=a%%20b%u/x%%25%zu.parquet", p % 3, i);
	if (tricky && kind >= 16 && kind < 18)
		snprintf(g->raw, sizeof(g->raw), "s=a b%u/part-00000-%s-c000.snappy.parquet", p % 3,
		         uuid);
	/* decoded: only %20 and %25 are used above */
	{
		const char *s = g->raw;
		char *d = g->dec;
		while (*s) {
			if (s[0] == '%' && s[1] == '2' && (s[2] == '0' || s[2] == '5')) {
				*d++ = s[2] == '0' ? ' ' : '%';
				s += 3;
			} else {
				*d++ = *s++;
			}
		}
		*d = '\0';
	}
	g->f.path_raw = g->raw;
	g->f.path = g->dec;
	g->f.partition_values = g->pv;
	g->f.num_partition_values = 1;
	g->f.size = (int64_t)(1000 + rnd() % 100000000);
	g->f.is_add = !(tricky && rnd() % 10 == 0);
	g->f.modification_time = g->f.is_add ? 1700000000000 + (int64_t)(rnd() % 1000000) : -1;
	g->f.deletion_timestamp = g->f.is_add ? -1 : 1700000000000 + (int64_t)(rnd() % 1000);
	g->f.num_records = (int64_t)(rnd() % 1000000);
	g->f.base_row_id = -1;
	g->f.default_row_commit_version = -1;
	g->f.version = (int64_t)(rnd() % 10000);
	g->f.data_change = (uint8_t)(rnd() % 2);
	snprintf(g->stats, sizeof(g->stats),
	         "{\"numRecords\":%lld,\"minValues\":{\"id\":%zu},\"maxValues\":{\"id\":%zu}}",
	         (long long)g->f.num_records, i, i + 99);
	g->f.stats = g->stats;
	if (rnd() % 100 == 0) {
		snprintf(g->dvpath, sizeof(g->dvpath), "ab^-aqEH.-t@S}K{vb[*k^%zu", i % 1000);
		g->f.dv.storage_type = 'u';
		g->f.dv.path_or_inline_dv = g->dvpath;
		g->f.dv.has_offset = 1;
		g->f.dv.offset = 1;
		g->f.dv.size_in_bytes = 36;
		g->f.dv.cardinality = (int64_t)(1 + rnd() % 9);
		snprintf(g->dvid, sizeof(g->dvid), "u%s@1", g->dvpath);
	}
	g->seq = i;
}

static int cmp_ref(const void *pa, const void *pb)
{
	const gen_file *a = *(gen_file *const *)pa, *b = *(gen_file *const *)pb;
	int c = strcmp(a->dec, b->dec);
	if (c)
		return c;
	c = strcmp(a->dvid, b->dvid);
	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The view must equal what was added. */
static int same_file(const delta_file *v, const gen_file *g)
{
	const delta_file *f = &g->f;
	if (strcmp(v->path, f->path) || strcmp(v->path_raw, f->path_raw) || v->size != f->size ||
	    v->is_add != f->is_add || v->modification_time != f->modification_time ||
	    v->deletion_timestamp != f->deletion_timestamp || v->num_records != f->num_records ||
	    v->version != f->version || v->data_change != f->data_change ||
	    v->num_partition_values != 1 || strcmp(v->partition_values[0].key, "p") ||
	    (v->partition_values[0].value == NULL) != (f->partition_values[0].value == NULL) ||
	    (f->partition_values[0].value &&
	     strcmp(v->partition_values[0].value, f->partition_values[0].value)) ||
	    v->dv.storage_type != f->dv.storage_type)
		return 0;
	if (strcmp(v->key + strlen(v->key) + 1, g->dvid))
		return 0;
	if (f->dv.storage_type && (strcmp(v->dv.path_or_inline_dv, f->dv.path_or_inline_dv) ||
	                           v->dv.cardinality != f->dv.cardinality))
		return 0;
	return 1;
}

/* Build from n generated actions (shuffled in), check every view against
 * the reference, return the bytes per live file of an index with stats
 * referenced (not held) in *per_file. */
static void check_generated(size_t n, int tricky, double *per_file)
{
	gen_file *gs = malloc(n * sizeof(*gs));
	gen_file **ref = malloc(n * sizeof(*ref));
	delta_file_index *x = NULL, *y = NULL;
	delta_file_scratch sc;
	size_t i, live = 0, tombs = 0, kept = 0;
	uint32_t src;
	int bad = 0;

	REQUIRE(gs && ref);
	for (i = 0; i < n; i++) {
		gen_one(&gs[i], i, tricky);
		/* a later action with an earlier one's key loses to it */
		if (tricky && i > 10 && rnd() % 20 == 0) {
			gen_file *old = &gs[rnd() % (i - 1)];
			strcpy(gs[i].raw, old->raw);
			strcpy(gs[i].dec, old->dec);
			strcpy(gs[i].dvid, old->dvid);
			strcpy(gs[i].dvpath, old->dvpath);
			gs[i].f.dv = old->f.dv;
			gs[i].f.dv.path_or_inline_dv = old->f.dv.storage_type ? gs[i].dvpath : NULL;
		}
		ref[i] = &gs[i];
	}
	CHECK_OK(delta_file_index_new(&x));
	CHECK_OK(delta_file_index_new(&y));
	CHECK_OK(delta_file_index_add_source(y, "_delta_log/00000000000000000000.checkpoint.parquet",
	                                     &src));
	for (i = 0; i < n; i++) {
		delta_stats_ref r = { DELTA_STATS_ROW, src, 0, (uint64_t)i };
		CHECK_OK(delta_file_index_add(x, &gs[i].f, NULL));
		CHECK_OK(delta_file_index_add(y, &gs[i].f, &r));
	}
	CHECK_OK(delta_file_index_finish(x));
	CHECK_OK(delta_file_index_finish(y));
	qsort(ref, n, sizeof(*ref), cmp_ref);
	delta_file_scratch_init(&sc);
	for (i = 0; i < n && bad < 5; i++) {
		delta_file v;
		const gen_file *g = ref[i];
		int list;
		size_t pos;
		if (i && strcmp(g->dec, ref[i - 1]->dec) == 0 && strcmp(g->dvid, ref[i - 1]->dvid) == 0)
			continue; /* a later duplicate */
		kept++;
		list = g->f.is_add ? DELTA_FILES_LIVE : DELTA_FILES_TOMBSTONES;
		pos = g->f.is_add ? live++ : tombs++;
		if (delta_file_index_get(x, (delta_file_list)list, pos, &sc, &v) < 0 || !same_file(&v, g) ||
		    !v.stats || strcmp(v.stats, g->stats) != 0) {
			TEST_FAIL_AT("file %zu (%s %s) differs from the index's %s", pos,
			             g->f.is_add ? "add" : "remove", g->dec, v.path ? v.path : "?");
			bad++;
		}
		if (g->f.is_add && delta_file_index_find(x, g->dec) != (long long)pos) {
			TEST_FAIL_AT("find(%s) = %lld, expected %zu", g->dec, delta_file_index_find(x, g->dec),
			             pos);
			bad++;
		}
		delta_file_scratch_reset(&sc);
	}
	delta_file_scratch_dispose(&sc);
	CHECK(delta_file_index_num_live(x) == live);
	CHECK(delta_file_index_num_tombstones(x) == tombs);
	CHECK(delta_file_index_num_live(y) == live);
	CHECK(delta_file_index_find(x, "no/such/file.parquet") == -1);
	*per_file = (double)delta_file_index_memory(y) / (double)(live ? live : 1);
	printf("  %zu actions, %zu kept (%zu live, %zu tombstones): %.1f bytes per live file "
	       "(stats referenced), %.1f (stats held)\n",
	       n, kept, live, tombs, *per_file,
	       (double)delta_file_index_memory(x) / (double)(live ? live : 1));
	delta_file_index_free(x);
	delta_file_index_free(y);
	free(gs);
	free(ref);
}

TEST(generated_tricky_paths)
{
	double per;
	check_generated(30000, 1, &per);
}

TEST(generated_100k_files_within_budget)
{
	double per = 0;
	clock_t t0 = clock();
	check_generated(100000, 0, &per);
	printf("  built, sorted and checked in %.2f s cpu\n",
	       (double)(clock() - t0) / CLOCKS_PER_SEC);
	/* issue 30: at most 150 bytes a live file for everything but stats */
	CHECK(per <= 150.0);
}

/* Stats referenced as a span of a commit file are read back unescaped. */
TEST(stats_from_a_commit_span)
{
	const char *stats[] = {
		"{\"numRecords\":3,\"minValues\":{\"s\":\"a\\\"b\"}}",
		"{\"numRecords\":1,\"minValues\":{\"s\":\"caf\\u00e9 \\\\ /\"}}",
		"{\"numRecords\":0}",
	};
	char *dir = test_mkdtemp("file-index");
	loom_store *store = NULL;
	delta_stats_reader rd;
	delta_file_index *x = NULL;
	loom_buf text = LOOM_BUF_INIT, got = LOOM_BUF_INIT;
	size_t i, off = 0;
	uint32_t src;
	FILE *fp;
	char path[4096];

	REQUIRE(dir);
	CHECK_OK(delta_file_index_new(&x));
	CHECK_OK(delta_file_index_add_source(x, "00000000000000000001.json", &src));
	for (i = 0; i < 3; i++) {
		loom_buf line = LOOM_BUF_INIT;
		delta_file f;
		delta_stats_ref r;
		char raw[64];
		const char *body;
		memset(&f, 0, sizeof(f));
		snprintf(raw, sizeof(raw), "f%zu.parquet", i);
		f.path = f.path_raw = raw;
		f.is_add = 1;
		f.base_row_id = f.default_row_commit_version = -1;
		CHECK_OK(loom_buf_printf(&line, "{\"add\":{\"path\":\"%s\",\"size\":1,\"stats\":", raw));
		CHECK_OK(loom_buf_put_json_string(&line, stats[i], strlen(stats[i])));
		CHECK_OK(loom_buf_puts(&line, "}}\n"));
		body = strstr(line.ptr, "\"stats\":\"") + 9;
		r.kind = DELTA_STATS_SPAN;
		r.source = src;
		r.offset = off + (uint64_t)(body - line.ptr);
		r.len = (uint32_t)(line.size - 4 - (size_t)(body - line.ptr)); /* before "}}\n */
		CHECK_OK(delta_file_index_add(x, &f, &r));
		CHECK_OK(loom_buf_put(&text, line.ptr, line.size));
		off += line.size;
		loom_buf_dispose(&line);
	}
	snprintf(path, sizeof(path), "%s/00000000000000000001.json", dir);
	fp = fopen(path, "w");
	REQUIRE(fp);
	fwrite(text.ptr, 1, text.size, fp);
	fclose(fp);
	CHECK_OK(delta_file_index_finish(x));
	CHECK_OK(loom_store_open_local(&store, dir));
	delta_stats_reader_init(&rd, store);
	for (i = 0; i < 3; i++) {
		int found = 0;
		CHECK_OK(delta_file_index_stats(x, &rd, DELTA_FILES_LIVE, i, &got, &found));
		CHECK(found == 1);
		CHECK(got.size == strlen(stats[i]) && memcmp(got.ptr, stats[i], got.size) == 0);
	}
	delta_stats_reader_dispose(&rd);
	loom_store_free(store);
	delta_file_index_free(x);
	loom_buf_dispose(&text);
	loom_buf_dispose(&got);
	test_rmtree(dir);
	free(dir);
}

/* ---- every fixture table: the index built from loom's snapshot gives
 * back the same files (the oracle side: file_index_vs_oracle.sh) ---- */

static void check_fixture(const char *table, void *ctx)
{
	loom_store *store = NULL;
	delta_snapshot *s = NULL;
	delta_file_index *x = NULL;
	delta_file_scratch sc;
	size_t i;

	(void)ctx;
	CHECK_OK(loom_store_open_local(&store, table));
	if (delta_snapshot_load(&s, store, -1, NULL) < 0) {
		printf("  %s: not loaded (%s): skipped\n", table, loom_error_last()->message);
		loom_store_free(store);
		return;
	}
	CHECK_OK(delta_file_index_new(&x));
	/* added in an order unlike the result, tombstones in between */
	for (i = s->num_files; i > 0; i--) {
		CHECK_OK(delta_file_index_add(x, s->files[i - 1], NULL));
		if (i <= s->num_tombstones)
			CHECK_OK(delta_file_index_add(x, s->tombstones[i - 1], NULL));
	}
	for (i = s->num_files; i < s->num_tombstones; i++)
		CHECK_OK(delta_file_index_add(x, s->tombstones[i], NULL));
	CHECK_OK(delta_file_index_finish(x));
	CHECK(delta_file_index_num_live(x) == s->num_files);
	CHECK(delta_file_index_num_tombstones(x) == s->num_tombstones);
	CHECK(delta_file_index_total_bytes(x) == s->total_bytes);
	delta_file_scratch_init(&sc);
	for (i = 0; i < s->num_files + s->num_tombstones; i++) {
		int live = i < s->num_files;
		size_t pos = live ? i : i - s->num_files;
		const delta_file *f = live ? s->files[pos] : s->tombstones[pos];
		delta_file v;
		CHECK_OK(delta_file_index_get(x, live ? DELTA_FILES_LIVE : DELTA_FILES_TOMBSTONES, pos,
		                              &sc, &v));
		if (!test_same_file(&v, f))
			TEST_FAIL_AT("%s: %s %zu: index %s, snapshot %s", table, live ? "file" : "tombstone",
			             pos, v.path, f->path);
		if (live && delta_file_index_find(x, f->path) != (long long)pos)
			TEST_FAIL_AT("%s: find(%s) failed", table, f->path);
		delta_file_scratch_reset(&sc);
	}
	delta_file_scratch_dispose(&sc);
	delta_file_index_free(x);
	delta_snapshot_free(s);
	loom_store_free(store);
}

TEST(fixtures_match_the_snapshot)
{
	CHECK(test_each_fixture(check_fixture, NULL) > 30);
}

int main(void)
{
	RUN(names_round_trip);
	RUN(names_compare_as_text);
	RUN(generated_tricky_paths);
	RUN(generated_100k_files_within_budget);
	RUN(stats_from_a_commit_span);
	RUN(fixtures_match_the_snapshot);
	return test_summary();
}
