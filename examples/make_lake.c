/* examples/make_lake.c - build the example lake the README's main job runs
 * on: what a streaming pipeline and an hourly updater leave behind.
 *
 *   raw/events      partitioned by event_date, 300 small files appended by
 *                   30 streaming commits (10 files each)
 *   raw/orders      60 small files, then 4 update commits ten days ago that
 *                   rewrote 5 files each, leaving 20 expired tombstones
 *   staging/orders  60 small files with run_date and _id (the seed Z-orders
 *                   by them)
 *
 * Data is deterministic; the tables are written with libloom's own Parquet
 * writer and commit writer, so the demo needs nothing but loom.
 *   loom-example-lake DIR        (DIR must not exist yet)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/commit_write.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/writer.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/uuid.h"

#define DAY_MS (24LL * 3600 * 1000)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int die(const char *what)
{
	const loom_error *e = loom_error_last();
	fprintf(stderr, "loom-example-lake: %s: %s\n", what, e ? e->message : "failed");
	exit(1);
}

/* One leaf of a flat schema. */
typedef struct col { const char *name; pq_physical_type type; pq_logical_kind lt; int optional; } col;

static void make_schema(pq_schema_node *nodes, const col *cols, size_t n)
{
	size_t i;
	memset(nodes, 0, sizeof(*nodes) * (n + 1));
	nodes[0].name = "schema";
	nodes[0].is_group = 1;
	nodes[0].num_children = (int32_t)n;
	nodes[0].converted_type = PQ_CT_NONE;
	for (i = 0; i < n; i++) {
		pq_schema_node *s = &nodes[i + 1];
		s->name = cols[i].name;
		s->has_repetition = 1;
		s->repetition = cols[i].optional ? PQ_OPTIONAL : PQ_REQUIRED;
		s->type = cols[i].type;
		s->converted_type = PQ_CT_NONE;
		s->logical_type.kind = cols[i].lt;
		if (cols[i].lt == PQ_LT_TIMESTAMP) {
			s->logical_type.unit = PQ_UNIT_MICROS;
			s->logical_type.is_adjusted_to_utc = 1;
		}
	}
}

static void init_batch(pq_batch *b, const col *cols, size_t n)
{
	size_t i;
	if (pq_batch_init(b, n) < 0)
		die("batch");
	for (i = 0; i < n; i++) {
		b->columns[i].type = cols[i].type;
		b->columns[i].max_def = (int16_t)(cols[i].optional ? 1 : 0);
	}
}

static void put(pq_column *c, const void *v, size_t len)
{
	if (pq_column_append(c, c->max_def, 0, v, len) < 0)
		die("append");
}

/* Write one Parquet file; returns its size. */
static uint64_t write_file(loom_store *s, const char *key, const col *cols, size_t n, const pq_batch *b)
{
	pq_schema_node nodes[16];
	loom_store_writer *sink;
	pq_writer *w;
	pq_write_result res;
	uint64_t size;

	make_schema(nodes, cols, n);
	if (s->writer_open(s, key, 0, &sink) < 0 || pq_writer_open(&w, sink, nodes, n + 1, NULL) < 0 ||
	    pq_writer_write(w, b) < 0 || pq_writer_close(w, &res) < 0 || sink->commit(sink) < 0)
		die(key);
	size = res.file_size;
	pq_write_result_free(&res);
	return size;
}

static void file_name(char *out, size_t cap, const char *dir, int part)
{
	char uuid[37];
	if (loom_uuid_v4_string(uuid) < 0)
		die("uuid");
	snprintf(out, cap, "%s%spart-%05d-%s-c000.snappy.parquet", dir, *dir ? "/" : "", part, uuid);
}

static void add_action(loom_buf *a, const char *path, const char *pv_json, uint64_t size, int64_t mtime,
                       int64_t rows, int64_t min_id, int64_t max_id)
{
	loom_buf_printf(a, "{\"add\":{\"path\":\"%s\",\"partitionValues\":%s,\"size\":%" PRIu64
	                   ",\"modificationTime\":%" PRId64 ",\"dataChange\":true,\"stats\":"
	                   "\"{\\\"numRecords\\\":%" PRId64 ",\\\"minValues\\\":{\\\"%s\\\":%" PRId64
	                   "},\\\"maxValues\\\":{\\\"%s\\\":%" PRId64 "},\\\"nullCount\\\":{\\\"%s\\\":0}}\"}}\n",
	                path, pv_json, size, mtime, rows, "id", min_id, "id", max_id, "id");
}

static void commit(loom_store *s, delta_commit_kind kind, int64_t read_version, const char *op,
                   const loom_buf *actions, const loom_clock *clock)
{
	delta_commit c;
	int64_t v;
	delta_commit_init(&c, kind, read_version, op);
	c.actions = actions->ptr;
	c.actions_len = actions->size;
	c.is_blind_append = kind != DELTA_COMMIT_REARRANGE;
	c.clock = clock;
	if (delta_commit_write(s, &c, &v) < 0)
		die(op);
}

static void create_header(loom_buf *a, const char *schema_json, const char *part_cols, int64_t now)
{
	char uuid[37];
	loom_uuid_v4_string(uuid);
	loom_buf_printf(a, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n");
	loom_buf_printf(a, "{\"metaData\":{\"id\":\"%s\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	                   "\"schemaString\":", uuid);
	loom_buf_put_json_string(a, schema_json, strlen(schema_json));
	loom_buf_printf(a, ",\"partitionColumns\":%s,\"configuration\":{},\"createdTime\":%" PRId64 "}}\n",
	                part_cols, now);
}

static loom_store *open_table(const char *root, const char *rel)
{
	char path[4096];
	loom_store *s;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	if (loom_store_open_local(&s, path) < 0)
		die(path);
	return s;
}

static const col event_cols[] = {
	{ "id", PQ_INT64, PQ_LT_NONE, 0 }, { "user_id", PQ_INT32, PQ_LT_NONE, 1 },
	{ "event_type", PQ_BYTE_ARRAY, PQ_LT_STRING, 1 }, { "amount", PQ_DOUBLE, PQ_LT_NONE, 1 },
	{ "ts", PQ_INT64, PQ_LT_TIMESTAMP, 1 },
};
static const char *const event_types[] = { "view", "click", "cart", "purchase", "refund" };

static void make_events(const char *root, int64_t now)
{
	loom_store *s = open_table(root, "raw/events");
	const char *schema =
		"{\"type\":\"struct\",\"fields\":["
		"{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
		"{\"name\":\"user_id\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
		"{\"name\":\"event_type\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
		"{\"name\":\"amount\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}},"
		"{\"name\":\"ts\",\"type\":\"timestamp\",\"nullable\":true,\"metadata\":{}},"
		"{\"name\":\"event_date\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}}]}";
	int64_t id = 0;
	int commit_no, f;

	for (commit_no = 0; commit_no < 30; commit_no++) {
		loom_buf a = LOOM_BUF_INIT;
		if (commit_no == 0)
			create_header(&a, schema, "[\"event_date\"]", now);
		for (f = 0; f < 10; f++) {
			int day = (commit_no * 10 + f) % 10;
			char dir[64], key[256], pv[64];
			int64_t first = id, r, rows = 150 + (int64_t)(rnd() % 100);
			pq_batch b;
			uint64_t size;
			snprintf(dir, sizeof(dir), "event_date=2026-11-%02d", day + 1);
			init_batch(&b, event_cols, 5);
			for (r = 0; r < rows; r++, id++) {
				int32_t user = (int32_t)(rnd() % 5000);
				const char *et = event_types[rnd() % 5];
				double amount = (double)(rnd() % 100000) / 100.0;
				int64_t ts = (1793491200000LL + day * DAY_MS + (int64_t)(rnd() % DAY_MS)) * 1000;
				put(&b.columns[0], &id, 8);
				put(&b.columns[1], &user, 4);
				put(&b.columns[2], et, strlen(et));
				put(&b.columns[3], &amount, 8);
				put(&b.columns[4], &ts, 8);
			}
			b.num_rows = (size_t)rows;
			file_name(key, sizeof(key), dir, f);
			size = write_file(s, key, event_cols, 5, &b);
			pq_batch_free(&b);
			snprintf(pv, sizeof(pv), "{\"event_date\":\"2026-11-%02d\"}", day + 1);
			add_action(&a, key, pv, size, now, rows, first, id - 1);
		}
		commit(s, commit_no == 0 ? DELTA_COMMIT_CREATE : DELTA_COMMIT_APPEND, commit_no - 1,
		       commit_no == 0 ? "CREATE TABLE" : "STREAMING UPDATE", &a, NULL);
		loom_buf_dispose(&a);
	}
	loom_store_free(s);
}

static const col order_cols[] = {
	{ "id", PQ_INT64, PQ_LT_NONE, 0 }, { "customer", PQ_BYTE_ARRAY, PQ_LT_STRING, 1 },
	{ "total", PQ_DOUBLE, PQ_LT_NONE, 1 }, { "status", PQ_BYTE_ARRAY, PQ_LT_STRING, 1 },
};

static uint64_t order_file(loom_store *s, char *key, size_t cap, int part, int64_t first, int64_t rows,
                           const char *status)
{
	pq_batch b;
	uint64_t size;
	int64_t r, id;
	init_batch(&b, order_cols, 4);
	for (r = 0; r < rows; r++) {
		char customer[32];
		double total = (double)((first + r) * 37 % 50000) / 100.0;
		id = first + r;
		snprintf(customer, sizeof(customer), "customer-%04" PRId64, id % 977);
		put(&b.columns[0], &id, 8);
		put(&b.columns[1], customer, strlen(customer));
		put(&b.columns[2], &total, 8);
		put(&b.columns[3], status, strlen(status));
	}
	b.num_rows = (size_t)rows;
	file_name(key, cap, "", part);
	size = write_file(s, key, order_cols, 4, &b);
	pq_batch_free(&b);
	return size;
}

static void make_orders(const char *root, const char *rel, int64_t now, int updates)
{
	loom_store *s = open_table(root, rel);
	const char *schema =
		"{\"type\":\"struct\",\"fields\":["
		"{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
		"{\"name\":\"customer\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
		"{\"name\":\"total\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}},"
		"{\"name\":\"status\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}";
	enum { FILES = 60, ROWS = 100 };
	char keys[FILES][160];
	uint64_t sizes[FILES];
	loom_buf a = LOOM_BUF_INIT;
	loom_fixed_clock past;
	int f, u;

	create_header(&a, schema, "[]", now - 12 * DAY_MS);
	for (f = 0; f < FILES; f++) {
		sizes[f] = order_file(s, keys[f], sizeof(keys[f]), f, (int64_t)f * ROWS, ROWS, "open");
		add_action(&a, keys[f], "{}", sizes[f], now, ROWS, (int64_t)f * ROWS, (int64_t)f * ROWS + ROWS - 1);
	}
	loom_fixed_clock_init(&past, now - 12 * DAY_MS);
	commit(s, DELTA_COMMIT_CREATE, -1, "CREATE TABLE", &a, &past.clock);
	/* UPDATE ... SET status = 'shipped': each rewrites 5 files, ten days ago */
	for (u = 0; u < updates; u++) {
		loom_buf_clear(&a);
		loom_fixed_clock_init(&past, now - 10 * DAY_MS + u * 3600 * 1000);
		for (f = u * 5; f < u * 5 + 5; f++) {
			char key[160];
			uint64_t size;
			loom_buf_printf(&a, "{\"remove\":{\"path\":\"%s\",\"deletionTimestamp\":%" PRId64
			                    ",\"dataChange\":true,\"extendedFileMetadata\":true,"
			                    "\"partitionValues\":{},\"size\":%" PRIu64 "}}\n",
			                keys[f], past.now_ms, sizes[f]);
			size = order_file(s, key, sizeof(key), 100 + f, (int64_t)f * ROWS, ROWS, "shipped");
			add_action(&a, key, "{}", size, past.now_ms, ROWS, (int64_t)f * ROWS, (int64_t)f * ROWS + ROWS - 1);
		}
		commit(s, DELTA_COMMIT_APPEND, u, "UPDATE", &a, &past.clock);
	}
	loom_buf_dispose(&a);
	loom_store_free(s);
}

int main(int argc, char **argv)
{
	char path[4096];
	int64_t now = loom_clock_wall_ms(NULL);
	if (argc != 2) {
		fprintf(stderr, "usage: loom-example-lake DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0777) != 0) {
		fprintf(stderr, "loom-example-lake: cannot create %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/raw", argv[1]);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/staging", argv[1]);
	mkdir(path, 0777);
	make_events(argv[1], now);
	make_orders(argv[1], "raw/orders", now, 4);
	make_orders(argv[1], "staging/orders", now, 0);
	printf("example lake written to %s: raw.events (300 files), raw.orders (60 files, 20 removed), "
	       "staging.orders (60 files)\n", argv[1]);
	return 0;
}
