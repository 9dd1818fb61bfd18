/* The runner over copies of fixture tables, with a test maintainer that
 * does real, checkable work through the store (lists, deletes planted
 * orphan-* files, counts Parquet files) and records its calls:
 * policies, error capture, concurrency, cancel, custom ops, the report and
 * its JSON. The checks compare against the filesystem (find/test -f), not
 * against loom's own view. */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "loom/plan.h"
#include "loom/store.h"
#include "test.h"
#include "tmpdir.h"
#include "util/error.h"

#define SECRET "sup3rs3cretvalue42"

/* ---- the test maintainer ------------------------------------------------ */

typedef struct backend {
	pthread_mutex_t mu;
	char calls[64][160];
	int n_calls;
	atomic_int inflight, max_inflight;
	int sleep_ms;
	int cancel_at_call;          /* call number (1-based) that cancels the run */
	loom_runner *runner;
	int saw_cancel_token;        /* the op observed the cancel through its token */
} backend;

static int record(backend *b, const char *op, const char *uri)
{
	int n;
	const char *tail = strstr(uri, "/lake/");
	pthread_mutex_lock(&b->mu);
	n = ++b->n_calls;
	if (n <= 64)
		snprintf(b->calls[n - 1], sizeof(b->calls[0]), "%s %s", op, tail ? tail + 6 : uri);
	pthread_mutex_unlock(&b->mu);
	return n;
}

static void enter(backend *b)
{
	int now = atomic_fetch_add(&b->inflight, 1) + 1, max = atomic_load(&b->max_inflight);
	while (now > max && !atomic_compare_exchange_weak(&b->max_inflight, &max, now))
		;
	if (b->sleep_ms)
		usleep((useconds_t)b->sleep_ms * 1000);
}

static void leave(backend *b, int call, const loom_cancel *cancel)
{
	atomic_fetch_sub(&b->inflight, 1);
	if (b->cancel_at_call && call == b->cancel_at_call) {
		loom_runner_cancel(b->runner);
		b->saw_cancel_token = loom_cancel_requested(cancel);
	}
}

static const char *opt(const loom_table_location *loc, const char *key)
{
	size_t i;
	for (i = 0; i < loc->n_storage_options; i++)
		if (strcmp(loc->storage_options[i].key, key) == 0)
			return loc->storage_options[i].value;
	return "";
}

typedef struct listing {
	char **keys;
	size_t n;
	uint64_t bytes;
	int parquet_only;
	int orphans_only;
} listing;

static int collect(const loom_store_entry *e, void *payload)
{
	listing *l = payload;
	const char *base = strrchr(e->key, '/');
	base = base ? base + 1 : e->key;
	if (strncmp(e->key, "_delta_log/", 11) == 0)
		return 0;
	if (l->orphans_only && strncmp(base, "orphan-", 7) != 0)
		return 0;
	if (l->parquet_only && (strlen(base) < 8 || strcmp(base + strlen(base) - 8, ".parquet") != 0))
		return 0;
	l->keys = realloc(l->keys, (l->n + 1) * sizeof(char *));
	l->keys[l->n++] = strdup(e->key);
	l->bytes += e->size;
	return 0;
}

static int list_table(const char *uri, listing *l, loom_store **store)
{
	int rc = loom_store_open(store, uri, NULL);
	if (rc < 0)
		return rc;
	return (*store)->list(*store, "", NULL, LOOM_LIST_RECURSIVE, collect, l);
}

static void listing_free(listing *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		free(l->keys[i]);
	free(l->keys);
}

/* "vacuum": files named orphan-* are the garbage; dry run lists them. */
static int t_vacuum(loom_op_result *out, const loom_maintainer *self, const char *uri,
                    const loom_table_location *loc, const loom_vacuum_opts *o,
                    const loom_cancel *cancel)
{
	backend *b = self->payload;
	listing l = { NULL, 0, 0, 0, 1 };
	loom_store *s = NULL;
	size_t i;
	int rc, call = record(b, "vacuum", uri);
	(void)loc;
	enter(b);
	rc = list_table(uri, &l, &s);
	out->kind = LOOM_RESULT_VACUUM;
	out->dry_run = o->dry_run;
	for (i = 0; rc == 0 && i < l.n; i++) {
		if (loom_cancel_requested(cancel)) {
			rc = LOOM_ECANCELLED;
			break;
		}
		if (!o->dry_run && (rc = s->remove(s, l.keys[i])) < 0)
			break;
		rc = loom_op_result_add_deleted(out, l.keys[i]);
	}
	if (rc == 0)
		loom_op_result_set_metric(out, "retention_hours", o->retention_hours);
	loom_store_free(s);
	listing_free(&l);
	leave(b, call, cancel);
	return rc;
}

static int count_parquet(loom_op_result *out, const loom_maintainer *self, const char *uri,
                         const loom_table_location *loc, const char *what,
                         const loom_cancel *cancel)
{
	backend *b = self->payload;
	listing l = { NULL, 0, 0, 1, 0 };
	loom_store *s = NULL;
	int rc, call = record(b, what, uri);
	enter(b);
	if (strstr(uri, "broken")) {
		/* an error that (badly) echoes a credential: the report must mask it */
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_OPS,
		              "%s: part-0001.parquet: bad magic at offset 4 (signed with %s)", uri,
		              opt(loc, "aws_secret_access_key"));
		leave(b, call, cancel);
		return rc;
	}
	rc = list_table(uri, &l, &s);
	out->kind = LOOM_RESULT_OPTIMIZE;
	out->num_files_removed = (int64_t)l.n;
	out->num_files_added = l.n ? 1 : 0;
	loom_op_result_set_metric(out, "bytes_scanned", (int64_t)l.bytes);
	loom_store_free(s);
	listing_free(&l);
	leave(b, call, cancel);
	return rc;
}

static int t_compact(loom_op_result *out, const loom_maintainer *self, const char *uri,
                     const loom_table_location *loc, const loom_compact_opts *o,
                     const loom_cancel *cancel)
{
	int rc = count_parquet(out, self, uri, loc, "compact", cancel);
	if (rc == 0)
		loom_op_result_set_metric(out, "target_size", o->target_size);
	return rc;
}

static int t_zorder(loom_op_result *out, const loom_maintainer *self, const char *uri,
                    const loom_table_location *loc, const loom_zorder_opts *o,
                    const loom_cancel *cancel)
{
	int rc = count_parquet(out, self, uri, loc, "z_order", cancel);
	if (rc == 0)
		loom_op_result_set_metric(out, "z_columns", (int64_t)o->n_columns);
	return rc;
}

static backend B;
static loom_maintainer M = { 1, "test", t_vacuum, t_compact, t_zorder, &B, NULL, NULL };

static void backend_reset(void)
{
	pthread_mutex_destroy(&B.mu);
	memset(&B, 0, sizeof(B));
	pthread_mutex_init(&B.mu, NULL);
}

/* ---- the lake ------------------------------------------------------------- */

static char *lake_root;   /* <tmp>/lake */
static char cfg_path[4096];

static void make_lake(void)
{
	char *dir = test_mkdtemp("runner");
	FILE *f;
	lake_root = malloc(4096);
	snprintf(lake_root, 4096, "%s/lake", dir);
	free(dir);
	if (test_sh("set -e; L='%s'; F='%s'; mkdir -p $L/raw $L/staging $L/raw_backup;"
	            "cp -r $F/delta/simple_table $L/raw/events;"
	            "cp -r $F/delta/delta-0.8.0-partitioned $L/raw/orders;"
	            "cp -r $F/delta/simple_table $L/raw/broken;"
	            "cp -r $F/delta/delta-0.8.0-partitioned $L/staging/orders;"
	            "cp -r $F/delta/simple_table $L/raw_backup/events;"
	            "mkdir -p $L/raw/notyet; echo x > $L/raw/notyet/part-0.parquet;"
	            "chmod -R u+w $L;"
	            "echo a > $L/raw/events/orphan-1.parquet; echo b > $L/raw/events/orphan-2.tmp;"
	            "echo c > $L/raw_backup/events/orphan-9.parquet",
	            lake_root, LOOM_FIXTURES_DIR) != 0) {
		fprintf(stderr, "cannot build the test lake\n");
		exit(2);
	}
	snprintf(cfg_path, sizeof(cfg_path), "%s/../storage.yaml", lake_root);
	f = fopen(cfg_path, "w");
	fprintf(f,
	        "engine: {backend: polars}\n"
	        "storage:\n"
	        "  defaults:\n"
	        "    table_path:\n"
	        "      uri: %s\n"
	        "      storage_options:\n"
	        "        aws_secret_access_key: " SECRET "\n"
	        "        aws_region: eu-west-1\n"
	        "  tables:\n"
	        "    - {name: raw.events, path: {uri: %s/raw/events}}\n"
	        "    - {name: raw.orders, path: {uri: %s/raw/orders}}\n"
	        "    - {name: raw.broken, path: {uri: %s/raw/broken}}\n"
	        "    - {name: raw.notyet, path: {uri: %s/raw/notyet}}\n"
	        "    - {name: raw.ghost, path: {uri: %s/raw/ghost}}\n"
	        "    - {name: raw_backup.events, path: {uri: %s/raw_backup/events}}\n"
	        "    - {name: staging.orders, path: {uri: %s/staging/orders}}\n"
	        "  maintenance:\n"
	        "    schemas: [staging]\n"
	        "    vacuum: {retention_hours: 72, dry_run: true}\n"
	        "    z_order_by: [year, month]\n",
	        lake_root, lake_root, lake_root, lake_root, lake_root, lake_root, lake_root,
	        lake_root);
	fclose(f);
}

static long count_files(const char *rel, const char *find_args)
{
	char cmd[8192];
	FILE *p;
	long n = -1;
	snprintf(cmd, sizeof(cmd), "find '%s/%s' -type f %s -not -path '*/_delta_log/*' | wc -l",
	         lake_root, rel, find_args);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%ld", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static int exists(const char *rel)
{
	return test_sh("test -e '%s/%s'", lake_root, rel) == 0;
}

static const loom_table_result *find(const loom_report *rep, const char *ref)
{
	size_t i;
	for (i = 0; i < loom_report_count(rep); i++)
		if (strcmp(loom_table_result_ref(loom_report_at(rep, i)), ref) == 0)
			return loom_report_at(rep, i);
	return NULL;
}

/* NightlyMaintenance: schema raw (vacuum + compact), staging.orders
 * (vacuum + z-order). */
static loom_step *nightly(int dry_run)
{
	loom_step *step;
	loom_decl *d;
	const char *cols[] = { "year", "month" };
	loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
	loom_step_new(&step, "NightlyMaintenance");
	v.retention_hours = 168;
	v.dry_run = dry_run;
	loom_maintain_schema(&d, "raw");
	loom_decl_vacuum(d, &v);
	loom_decl_compact(d, NULL);
	loom_step_add(step, d);
	v.retention_hours = LOOM_RETENTION_TABLE_DEFAULT;
	loom_maintain_table(&d, "staging.orders");
	loom_decl_vacuum(d, &v);
	loom_decl_zorder_by(d, cols, 2, 0);
	loom_step_add(step, d);
	return step;
}

TEST(null_maintainer_means_the_native_engine)
{
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	const loom_maintainer *native = NULL;
	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, NULL, LOOM_MISSING_SKIP));
	CHECK(r != NULL);
	loom_runner_free(r);
	CHECK_OK(loom_maintainer_native(&native));
	REQUIRE(native != NULL);
	CHECK_STR(native->name, "native");
	CHECK(native->vacuum && native->compact && native->zorder);
	CHECK_ERR(loom_runner_from_config(&r, cfg, &M, 7), LOOM_EINVAL);
	loom_config_free(cfg);
}

TEST(nightly_skip_policy_and_error_capture)
{
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step = nightly(0);
	const loom_table_result *t;
	const loom_op_result *o;
	long orders_parquet = count_files("raw/orders", "-name '*.parquet'");

	backend_reset();
	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	REQUIRE(rep != NULL);

	/* declaration order: raw.* in config order, then staging.orders */
	CHECK_INT(loom_report_count(rep), 6);
	CHECK_STR(loom_table_result_ref(loom_report_at(rep, 0)), "raw.events");
	CHECK_STR(loom_table_result_ref(loom_report_at(rep, 2)), "raw.broken");
	CHECK_STR(loom_table_result_ref(loom_report_at(rep, 5)), "staging.orders");
	CHECK(find(rep, "raw_backup.events") == NULL);

	/* raw.events: vacuum really deleted the planted orphans (and only them) */
	t = find(rep, "raw.events");
	CHECK(loom_table_result_ok(t));
	CHECK(!loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_uri(t), "/lake/raw/events") != NULL);
	o = loom_table_result_op(t, "vacuum");
	REQUIRE(o != NULL);
	CHECK_INT(o->kind, LOOM_RESULT_VACUUM);
	CHECK_INT(o->n_files_deleted, 2);
	CHECK_INT(o->dry_run, 0);
	CHECK_INT(loom_op_result_metric(o, "retention_hours", -9), 168);
	CHECK(!exists("raw/events/orphan-1.parquet"));
	CHECK(!exists("raw/events/orphan-2.tmp"));
	CHECK(exists("raw_backup/events/orphan-9.parquet"));   /* not in the schema */
	CHECK_INT(loom_table_result_op_count(t), 2);
	CHECK_STR(loom_table_result_op_name_at(t, 0), "vacuum");
	CHECK_STR(loom_table_result_op_name_at(t, 1), "compact");
	CHECK(loom_table_result_duration_seconds(t) >= 0.0);

	/* raw.orders: compact counted what `find` counts */
	t = find(rep, "raw.orders");
	o = loom_table_result_op(t, "compact");
	REQUIRE(o != NULL);
	CHECK_INT(o->kind, LOOM_RESULT_OPTIMIZE);
	CHECK_INT(o->num_files_removed, orders_parquet);
	CHECK(orders_parquet == 6);

	/* raw.broken: vacuum ran, compact failed; error copied from the worker
	 * with the secret masked; its later ops did not run */
	t = find(rep, "raw.broken");
	CHECK(!loom_table_result_ok(t));
	CHECK_INT(loom_table_result_error_code(t), LOOM_ECORRUPT);
	CHECK_STR(loom_table_result_failed_op(t), "compact");
	CHECK(strstr(loom_table_result_error_message(t), "bad magic at offset 4") != NULL);
	CHECK(strstr(loom_table_result_error_message(t), "signed with ***") != NULL);
	CHECK(strstr(loom_table_result_error_message(t), SECRET) == NULL);
	CHECK(loom_table_result_op(t, "vacuum") != NULL);
	CHECK(loom_table_result_op(t, "compact") == NULL);

	/* not Delta tables: skipped with a reason, not silently lost */
	t = find(rep, "raw.notyet");
	CHECK(loom_table_result_ok(t));
	CHECK(loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_skip_reason(t), "no _delta_log") != NULL);
	CHECK_INT(loom_table_result_op_count(t), 0);
	t = find(rep, "raw.ghost");
	CHECK(loom_table_result_skipped(t));

	/* the table after the failing one still ran */
	t = find(rep, "staging.orders");
	CHECK(loom_table_result_ok(t));
	CHECK(loom_table_result_op(t, "z_order") != NULL);
	CHECK_INT(loom_op_result_metric(loom_table_result_op(t, "z_order"), "z_columns", 0), 2);

	CHECK(loom_report_has_errors(rep));
	CHECK_INT(loom_report_error_count(rep), 1);
	CHECK(!loom_report_cancelled(rep));
	/* the backend was called for exactly the Delta tables */
	CHECK_INT(B.n_calls, 8);   /* events, orders, broken (compact fails), staging: 2 each */
	CHECK_STR(B.calls[0], "vacuum raw/events");
	CHECK_STR(B.calls[5], "compact raw/broken");
	CHECK_STR(B.calls[6], "vacuum staging/orders");
	CHECK_STR(B.calls[7], "z_order staging/orders");

	loom_report_free(rep);
	loom_runner_free(r);
	loom_step_free(step);
	loom_config_free(cfg);
}

TEST(error_policy_fails_missing_tables)
{
	loom_config *cfg = NULL, *nodefault = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step = nightly(1);
	loom_decl *d;
	const loom_table_result *t;
	char yaml[8192];

	backend_reset();
	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_ERROR));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	t = find(rep, "raw.notyet");
	CHECK_INT(loom_table_result_error_code(t), LOOM_ENOTFOUND);
	CHECK(!loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_error_message(t), "no _delta_log") != NULL);
	CHECK_INT(loom_table_result_error_code(find(rep, "raw.ghost")), LOOM_ENOTFOUND);
	CHECK(loom_table_result_ok(find(rep, "raw.events")));
	/* dry run: the planted orphans of a fresh copy are listed, not deleted */
	CHECK_INT(loom_report_error_count(rep), 3);
	loom_report_free(rep);
	loom_runner_free(r);
	loom_step_free(step);

	/* a table not in a config without default path */
	snprintf(yaml, sizeof(yaml),
	         "storage:\n  tables:\n    - {name: raw.events, path: {uri: %s/raw/events}}\n",
	         lake_root);
	CHECK_OK(loom_config_load_string(&nodefault, yaml, strlen(yaml), "nodefault.yaml"));
	CHECK_OK(loom_step_new(&step, "s"));
	CHECK_OK(loom_maintain_table(&d, "raw.missing"));
	CHECK_OK(loom_decl_compact(d, NULL));
	CHECK_OK(loom_step_add(step, d));
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_OK(loom_decl_compact(d, NULL));
	CHECK_OK(loom_step_add(step, d));
	CHECK_OK(loom_runner_from_config(&r, nodefault, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	t = loom_report_at(rep, 0);
	CHECK(loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_skip_reason(t), "not in nodefault.yaml") != NULL);
	CHECK(loom_table_result_uri(t) == NULL);
	CHECK(loom_table_result_ok(loom_report_at(rep, 1)));
	CHECK(!loom_report_has_errors(rep));
	loom_report_free(rep);
	loom_runner_free(r);
	CHECK_OK(loom_runner_from_config(&r, nodefault, &M, LOOM_MISSING_ERROR));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(loom_table_result_error_code(loom_report_at(rep, 0)), LOOM_ENOTFOUND);
	CHECK(loom_report_has_errors(rep));
	loom_report_free(rep);
	loom_runner_free(r);
	loom_step_free(step);
	loom_config_free(nodefault);

	/* a schema member that routes to a catalog: visible, never silently lost */
	snprintf(yaml, sizeof(yaml),
	         "storage:\n  tables:\n"
	         "    - {name: raw.events, path: {uri: %s/raw/events}}\n"
	         "    - {name: raw.cat, ref: main.raw.cat}\n", lake_root);
	CHECK_OK(loom_config_load_string(&nodefault, yaml, strlen(yaml), "cat.yaml"));
	CHECK_OK(loom_step_new(&step, "s"));
	CHECK_OK(loom_maintain_schema(&d, "raw"));
	CHECK_OK(loom_decl_vacuum(d, NULL));
	CHECK_OK(loom_step_add(step, d));
	CHECK_OK(loom_runner_from_config(&r, nodefault, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(loom_report_count(rep), 2);
	t = loom_report_at(rep, 1);
	CHECK_STR(loom_table_result_ref(t), "raw.cat");
	CHECK(loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_skip_reason(t), "catalog ref 'main.raw.cat'") != NULL);
	loom_report_free(rep);
	loom_runner_free(r);
	CHECK_OK(loom_runner_from_config(&r, nodefault, &M, LOOM_MISSING_ERROR));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(loom_table_result_error_code(loom_report_at(rep, 1)), LOOM_EINVAL);
	CHECK(loom_table_result_ok(loom_report_at(rep, 0)));
	loom_report_free(rep);
	loom_runner_free(r);
	loom_step_free(step);
	loom_config_free(nodefault);
	loom_config_free(cfg);
}

/* ---- a locator and a progress sink, as the Python binding installs -------- */

typedef struct test_locator {
	int calls, releases;
	loom_kv opts[1];
	char uris[8][4096];
	loom_table_location locs[8];
} test_locator;

/* raw.* tables live under the lake; "raw.ghost" is unknown; anything else
 * fails with EIO. */
static int t_locate(const loom_table_location **out, const char *ref, void *payload)
{
	test_locator *l = payload;
	int i = l->calls++;
	if (i >= 8)
		return loom_error_set(LOOM_ENOMEM, LOOM_ERRCLASS_USER, "too many tables");
	if (strcmp(ref, "raw.ghost") == 0)
		return loom_error_set(LOOM_ENOTFOUND, LOOM_ERRCLASS_USER, "KeyError: 'raw.ghost'");
	if (strncmp(ref, "raw.", 4) != 0)
		return loom_error_set(LOOM_EIO, LOOM_ERRCLASS_USER, "locator backend down");
	snprintf(l->uris[i], sizeof(l->uris[i]), "%s/raw/%s", lake_root, ref + 4);
	loom_table_location_init(&l->locs[i], LOOM_TABLE_LOCATION_VERSION);
	l->locs[i].uri = l->uris[i];
	l->locs[i].storage_options = l->opts;
	l->locs[i].n_storage_options = 1;
	*out = &l->locs[i];
	return 0;
}

static void t_release(const loom_table_location *loc, void *payload)
{
	test_locator *l = payload;
	(void)loc;
	l->releases++;
}

typedef struct events {
	pthread_mutex_t mu;
	char log[2048];
} events;

static void t_progress(const loom_progress *p, void *payload)
{
	static const char *const names[] = { "start", "op", "op-done", "done" };
	events *e = payload;
	pthread_mutex_lock(&e->mu);
	snprintf(e->log + strlen(e->log), sizeof(e->log) - strlen(e->log), "%s:%s%s%s:%d%s/%zu ",
	         names[p->event], p->table_ref, p->op_name ? "." : "", p->op_name ? p->op_name : "",
	         p->code, p->skipped ? "s" : "", p->table_count);
	pthread_mutex_unlock(&e->mu);
}

/* LOOM_MISSING_STOP: the first missing table fails and no table starts
 * after it; a runner-supplied locator replaces the config's routes (its
 * ENOTFOUND is "missing", other errors fail the table with the locator's
 * message and class); progress events in order. */
TEST(stop_policy_locator_and_progress)
{
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step = nightly(1);
	const loom_table_result *t;
	test_locator loc;
	events ev;
	char *json = NULL;

	backend_reset();
	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_STOP));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	/* raw.events, raw.orders, raw.broken ran; raw.notyet stopped the run */
	CHECK_INT(loom_report_stopped_at(rep), 3);
	t = loom_report_at(rep, 3);
	CHECK_STR(loom_table_result_ref(t), "raw.notyet");
	CHECK_INT(loom_table_result_error_code(t), LOOM_ENOTFOUND);
	CHECK_INT(loom_table_result_error_class(t), LOOM_ERRCLASS_PLAN);
	CHECK(loom_table_result_failed_op(t) == NULL);
	CHECK_INT(loom_table_result_error_class(loom_report_at(rep, 2)), LOOM_ERRCLASS_OPS);
	CHECK_INT(loom_table_result_error_class(loom_report_at(rep, 0)), LOOM_ERRCLASS_NONE);
	t = loom_report_at(rep, 4);
	CHECK(loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_skip_reason(t), "run stopped") != NULL);
	CHECK(strstr(loom_table_result_skip_reason(t), "raw.notyet") != NULL);
	CHECK(loom_table_result_skipped(loom_report_at(rep, 5)));
	CHECK_INT(B.n_calls, 6);   /* nothing ran on staging.orders */
	CHECK_OK(loom_report_to_json(&json, rep));
	CHECK(strstr(json, "\"class\": \"ops\"") != NULL);
	loom_string_free(json);
	loom_report_free(rep);
	/* the run can be repeated: the stop is per run */
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(loom_report_stopped_at(rep), 3);
	loom_report_free(rep);
	loom_runner_free(r);

	/* a locator and progress */
	memset(&loc, 0, sizeof(loc));
	loc.opts[0].key = "aws_region";
	loc.opts[0].value = "from-locator";
	memset(&ev, 0, sizeof(ev));
	pthread_mutex_init(&ev.mu, NULL);
	backend_reset();
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_set_locator(r, t_locate, t_release, &loc));
	CHECK_OK(loom_runner_set_progress(r, t_progress, &ev));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(loom_report_count(rep), 6);
	CHECK(loom_table_result_ok(loom_report_at(rep, 0)));
	t = loom_report_at(rep, 4);   /* raw.ghost: the locator's ENOTFOUND is a skip */
	CHECK(loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_skip_reason(t), "KeyError: 'raw.ghost'") != NULL);
	t = loom_report_at(rep, 5);   /* staging.orders: the locator failed */
	CHECK_INT(loom_table_result_error_code(t), LOOM_EIO);
	CHECK_INT(loom_table_result_error_class(t), LOOM_ERRCLASS_USER);
	CHECK_STR(loom_table_result_error_message(t), "locator backend down");
	CHECK_INT(loc.calls, 6);
	CHECK_INT(loc.releases, 4);   /* every location handed out went back */
	CHECK(strstr(ev.log, "start:raw.events:0/6 op:raw.events.vacuum:0/6 "
	                     "op-done:raw.events.vacuum:0/6 op:raw.events.compact:0/6 "
	                     "op-done:raw.events.compact:0/6 done:raw.events:0/6 ") == ev.log);
	CHECK(strstr(ev.log, "op-done:raw.broken.compact:-6/6 done:raw.broken:-6/6") != NULL);
	CHECK(strstr(ev.log, "done:raw.ghost:0s/6") != NULL);
	CHECK(strstr(ev.log, "done:staging.orders:-10/6") != NULL);
	loom_report_free(rep);
	loom_runner_free(r);
	pthread_mutex_destroy(&ev.mu);
	loom_step_free(step);
	loom_config_free(cfg);
}

static void table_signature(const loom_report *rep, char *out, size_t cap)
{
	size_t i, j, used = 0;
	out[0] = '\0';
	for (i = 0; i < loom_report_count(rep); i++) {
		const loom_table_result *t = loom_report_at(rep, i);
		used += (size_t)snprintf(out + used, cap - used, "%s:%d:%d[",
		                         loom_table_result_ref(t), loom_table_result_error_code(t),
		                         loom_table_result_skipped(t));
		for (j = 0; j < loom_table_result_op_count(t); j++) {
			const loom_op_result *o = loom_table_result_op_at(t, j);
			used += (size_t)snprintf(out + used, cap - used, "%s=%zu/%lld,",
			                         loom_table_result_op_name_at(t, j), o->n_files_deleted,
			                         (long long)o->num_files_removed);
		}
		used += (size_t)snprintf(out + used, cap - used, "] ");
	}
}

TEST(concurrency_is_bounded_and_deterministic)
{
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step = nightly(1);
	char sig1[4096], sig4[4096];
	int max1, max4;

	CHECK_OK(loom_config_load_file(&cfg, cfg_path));

	backend_reset();
	B.sleep_ms = 40;
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	table_signature(rep, sig1, sizeof(sig1));
	max1 = atomic_load(&B.max_inflight);
	loom_report_free(rep);

	backend_reset();
	B.sleep_ms = 40;
	CHECK_OK(loom_runner_set_jobs(r, 3));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	table_signature(rep, sig4, sizeof(sig4));
	max4 = atomic_load(&B.max_inflight);
	loom_report_free(rep);

	CHECK_STR(sig4, sig1);
	CHECK_INT(max1, 1);
	CHECK(max4 >= 2);
	CHECK(max4 <= 3);
	CHECK_ERR(loom_runner_set_jobs(r, 100000), LOOM_EINVAL);
	loom_runner_free(r);

	/* two declarations on one table run in order, never concurrently */
	{
		loom_step *s2;
		loom_decl *d;
		int i;
		backend_reset();
		B.sleep_ms = 10;
		CHECK_OK(loom_step_new(&s2, "twice"));
		for (i = 0; i < 2; i++) {
			CHECK_OK(loom_maintain_table(&d, "raw.orders"));
			CHECK_OK(i == 0 ? loom_decl_compact(d, NULL) : loom_decl_vacuum(d, NULL));
			CHECK_OK(loom_step_add(s2, d));
		}
		CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
		CHECK_OK(loom_runner_set_jobs(r, 4));
		CHECK_OK(loom_runner_run(&rep, r, s2, NULL));
		CHECK_INT(loom_report_count(rep), 2);
		CHECK_INT(atomic_load(&B.max_inflight), 1);
		CHECK_STR(B.calls[0], "compact raw/orders");
		CHECK_STR(B.calls[1], "vacuum raw/orders");
		loom_report_free(rep);
		loom_runner_free(r);
		loom_step_free(s2);
	}
	loom_step_free(step);
	loom_config_free(cfg);
}

TEST(cancel_stops_between_tables_and_ops)
{
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step = nightly(1);
	const loom_table_result *t;

	backend_reset();
	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
	B.runner = r;
	B.cancel_at_call = 3;   /* during raw.orders' vacuum */
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK(B.saw_cancel_token);
	CHECK_INT(B.n_calls, 3);
	CHECK(loom_report_cancelled(rep));
	CHECK(loom_report_has_errors(rep));
	CHECK(loom_table_result_ok(find(rep, "raw.events")));
	t = find(rep, "raw.orders");
	CHECK_INT(loom_table_result_error_code(t), LOOM_ECANCELLED);
	CHECK_STR(loom_table_result_failed_op(t), "compact");
	CHECK(loom_table_result_op(t, "vacuum") != NULL);
	t = find(rep, "staging.orders");
	CHECK(loom_table_result_skipped(t));
	CHECK(strstr(loom_table_result_skip_reason(t), "cancelled") != NULL);
	CHECK(loom_table_result_skipped(find(rep, "raw.broken")));
	loom_report_free(rep);

	/* still cancelled: nothing runs until reset */
	B.cancel_at_call = 0;
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(B.n_calls, 3);
	loom_report_free(rep);
	loom_runner_reset_cancel(r);
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK(!loom_report_cancelled(rep));
	CHECK(B.n_calls > 3);
	loom_report_free(rep);

	loom_runner_free(r);
	loom_step_free(step);
	loom_config_free(cfg);
}

/* ---- the seed's custom-operation example ----------------------------------- */

/* CheckpointSpec stand-in: writes a marker into the table through the store
 * (the real checkpoint writer is not built yet). */
static int checkpoint_execute(loom_op_result *out, const loom_maintainer *m, const char *uri,
                              const loom_table_location *loc, const loom_cancel *cancel,
                              void *payload)
{
	loom_store *s = NULL;
	int rc;
	int *count = payload;
	(void)m;
	(void)loc;
	(void)cancel;
	if ((rc = loom_store_open(&s, uri, NULL)) < 0)
		return rc;
	rc = s->put(s, "_delta_log/_loom_checkpoint_marker", "ok\n", 3, 0);
	loom_store_free(s);
	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	out->kind = LOOM_RESULT_OPTIMIZE;   /* OptimizeResult() */
	return rc;
}

typedef struct checkpointed {
	loom_decl *inner;
	loom_op *op;
} checkpointed;

static int checkpointed_resolve(loom_spec_list *out, const loom_config *cfg, void *payload)
{
	checkpointed *c = payload;
	size_t i, start = loom_spec_list_count(out);
	LOOM_TRY(loom_decl_resolve(out, c->inner, cfg));
	for (i = start; i < loom_spec_list_count(out); i++)
		LOOM_TRY(loom_spec_add_op(loom_spec_list_at(out, i), loom_op_ref(c->op)));
	return 0;
}

static void checkpointed_free(void *payload)
{
	checkpointed *c = payload;
	loom_decl_free(c->inner);
	loom_op_free(c->op);
	free(c);
}

TEST(custom_operation_checkpointed)
{
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step;
	loom_decl *inner, *wrapped;
	checkpointed *c = calloc(1, sizeof(*c));
	loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
	int count = 0;
	size_t i;

	backend_reset();
	test_sh("rm -f %s/*/*/_delta_log/_loom_checkpoint_marker", lake_root);
	v.dry_run = 0;
	CHECK_OK(loom_maintain_schema(&inner, "raw"));
	CHECK_OK(loom_decl_vacuum(inner, &v));
	CHECK_OK(loom_op_new(&c->op, "checkpoint", checkpoint_execute, &count, NULL));
	c->inner = inner;
	CHECK_OK(loom_decl_new(&wrapped, checkpointed_resolve, c, checkpointed_free));
	CHECK_OK(loom_step_new(&step, "Nightly"));
	CHECK_OK(loom_step_add(step, wrapped));

	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_set_jobs(r, 2));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_INT(loom_report_count(rep), 5);
	for (i = 0; i < loom_report_count(rep); i++) {
		const loom_table_result *t = loom_report_at(rep, i);
		if (loom_table_result_skipped(t))
			continue;
		CHECK_INT(loom_table_result_op_count(t), 2);
		CHECK_STR(loom_table_result_op_name_at(t, 0), "vacuum");
		CHECK_STR(loom_table_result_op_name_at(t, 1), "checkpoint");
		CHECK_INT(loom_table_result_op(t, "checkpoint")->kind, LOOM_RESULT_OPTIMIZE);
	}
	CHECK_INT(count, 3);   /* events, orders, broken (vacuum does not fail) */
	CHECK(exists("raw/events/_delta_log/_loom_checkpoint_marker"));
	CHECK(exists("raw/orders/_delta_log/_loom_checkpoint_marker"));
	CHECK(exists("raw/broken/_delta_log/_loom_checkpoint_marker"));
	CHECK(!exists("staging/orders/_delta_log/_loom_checkpoint_marker"));
	CHECK(!exists("raw_backup/events/_delta_log/_loom_checkpoint_marker"));
	CHECK(!exists("raw/notyet/_delta_log"));
	loom_report_free(rep);
	loom_runner_free(r);
	loom_step_free(step);
	loom_config_free(cfg);
}

/* ---- report JSON and run_from_config ---------------------------------------- */

TEST(report_json_and_run_from_config)
{
	loom_config *cfg = NULL, *plain = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_step *step = nightly(1);
	char *js = NULL;
	json_t *root, *tables, *t, *err;
	json_error_t jerr;
	size_t i;

	backend_reset();
	test_sh("echo z > %s/raw/events/orphan-3.parquet", lake_root);
	CHECK_OK(loom_config_load_file(&cfg, cfg_path));
	CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_run(&rep, r, step, NULL));
	CHECK_OK(loom_report_to_json(&js, rep));
	CHECK(strstr(js, SECRET) == NULL);
	root = json_loads(js, 0, &jerr);
	REQUIRE(root != NULL);
	CHECK_STR(json_string_value(json_object_get(root, "schema")), "loom.report/1");
	CHECK_STR(json_string_value(json_object_get(root, "step")), "NightlyMaintenance");
	CHECK(json_is_true(json_object_get(root, "has_errors")));
	CHECK(json_is_false(json_object_get(root, "cancelled")));
	CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "summary"), "failed")), 1);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "summary"), "skipped")), 2);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "summary"), "ok")), 3);
	tables = json_object_get(root, "tables");
	CHECK_INT(json_array_size(tables), 6);
	t = json_array_get(tables, 0);
	CHECK_STR(json_string_value(json_object_get(t, "ref")), "raw.events");
	CHECK_STR(json_string_value(json_object_get(t, "status")), "ok");
	CHECK(json_is_null(json_object_get(t, "error")));
	CHECK(json_is_real(json_object_get(t, "duration_seconds")));
	{
		json_t *vac = json_object_get(json_object_get(t, "ops"), "vacuum");
		json_t *files = json_object_get(vac, "files_deleted");
		CHECK_STR(json_string_value(json_object_get(vac, "kind")), "vacuum");
		CHECK(json_is_true(json_object_get(vac, "dry_run")));
		CHECK_INT(json_array_size(files), 1);
		CHECK_STR(json_string_value(json_array_get(files, 0)), "orphan-3.parquet");
		CHECK_INT(json_integer_value(json_object_get(vac, "num_files_deleted")), 1);
	}
	CHECK(exists("raw/events/orphan-3.parquet"));   /* dry run */
	for (i = 0; i < json_array_size(tables); i++) {
		t = json_array_get(tables, i);
		if (strcmp(json_string_value(json_object_get(t, "ref")), "raw.broken") == 0) {
			err = json_object_get(t, "error");
			CHECK_STR(json_string_value(json_object_get(t, "status")), "failed");
			CHECK_INT(json_integer_value(json_object_get(err, "code")), LOOM_ECORRUPT);
			CHECK_STR(json_string_value(json_object_get(err, "name")), "ECORRUPT");
			CHECK_STR(json_string_value(json_object_get(err, "op")), "compact");
			CHECK(json_object_get(json_object_get(t, "ops"), "vacuum") != NULL);
		}
		if (strcmp(json_string_value(json_object_get(t, "ref")), "raw.notyet") == 0) {
			CHECK_STR(json_string_value(json_object_get(t, "status")), "skipped");
			CHECK(json_is_true(json_object_get(t, "skipped")));
			CHECK(json_is_string(json_object_get(t, "skip_reason")));
		}
		if (strcmp(json_string_value(json_object_get(t, "ref")), "raw.orders") == 0) {
			json_t *cmp = json_object_get(json_object_get(t, "ops"), "compact");
			CHECK_STR(json_string_value(json_object_get(cmp, "kind")), "optimize");
			CHECK_INT(json_integer_value(json_object_get(cmp, "num_files_removed")),
			          count_files("raw/orders", "-name '*.parquet'"));
		}
	}
	json_decref(root);
	loom_string_free(js);

	/* the human summary: one line per table, totals, no secret */
	CHECK_OK(loom_report_to_text(&js, rep));
	CHECK(strstr(js, SECRET) == NULL);
	CHECK(strstr(js, "raw.events") != NULL);
	CHECK(strstr(js, "vacuum: would delete 1 file (dry run)") != NULL);
	{
		/* one short phrase per op: counts, not every metric */
		char want[64];
		snprintf(want, sizeof(want), "compact: %ld files -> 1 file",
		         (long)count_files("raw/orders", "-name '*.parquet'"));
		CHECK(strstr(js, want) != NULL);
		CHECK(strstr(js, "bytes_scanned") == NULL);
		CHECK(strstr(js, "target_size") == NULL);
	}
	CHECK(strstr(js, "compact ECORRUPT: ") != NULL);
	CHECK(strstr(js, "FAILED") != NULL);
	CHECK(strstr(js, "not a Delta table yet") != NULL);
	CHECK(strstr(js, "6 tables: 3 ok, 1 failed, 2 skipped\n") != NULL);
	loom_string_free(js);
	loom_report_free(rep);

	/* explain: what would run, without running anything */
	backend_reset();
	CHECK_OK(loom_step_explain(&js, step, NULL, cfg, 0));
	CHECK_INT(B.n_calls, 0);
	CHECK(strstr(js, "step NightlyMaintenance: 6 tables\n") != NULL);
	CHECK(strstr(js, "    vacuum retention=168h dry-run lite\n    compact\n") != NULL);
	CHECK(strstr(js, "    z_order by year,month\n") != NULL);
	CHECK(strstr(js, "/lake/raw/events\n") != NULL);
	loom_string_free(js);
	CHECK_OK(loom_step_explain(&js, step, NULL, cfg, 1));
	root = json_loads(js, 0, &jerr);
	REQUIRE(root != NULL);
	CHECK_STR(json_string_value(json_object_get(root, "schema")), "loom.explain/1");
	CHECK_INT(json_array_size(json_object_get(root, "tables")), 6);
	t = json_array_get(json_object_get(root, "tables"), 5);
	CHECK_STR(json_string_value(json_object_get(t, "ref")), "staging.orders");
	CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(t, "ops"), 1), "name")),
	          "z_order");
	json_decref(root);
	loom_string_free(js);

	/* the config's maintenance block: schema staging, vacuum + z-order */
	backend_reset();
	CHECK_OK(loom_runner_run_from_config(&rep, r));
	CHECK_INT(loom_report_count(rep), 1);
	CHECK_STR(loom_table_result_ref(loom_report_at(rep, 0)), "staging.orders");
	CHECK_INT(loom_op_result_metric(loom_table_result_op(loom_report_at(rep, 0), "vacuum"),
	                                "retention_hours", 0), 72);
	CHECK(loom_table_result_op(loom_report_at(rep, 0), "z_order") != NULL);
	CHECK(!loom_report_has_errors(rep));
	loom_report_free(rep);
	loom_runner_free(r);

	/* no maintenance block: an empty report */
	{
		char yaml[4096];
		snprintf(yaml, sizeof(yaml), "storage:\n  defaults:\n    table_path: {uri: %s}\n",
		         lake_root);
		CHECK_OK(loom_config_load_string(&plain, yaml, strlen(yaml), "plain.yaml"));
		CHECK_OK(loom_runner_from_config(&r, plain, &M, LOOM_MISSING_SKIP));
		CHECK_OK(loom_runner_run_from_config(&rep, r));
		CHECK_INT(loom_report_count(rep), 0);
		CHECK(!loom_report_has_errors(rep));
		CHECK_OK(loom_report_to_json(&js, rep));
		CHECK(strstr(js, "\"tables\": []") != NULL);
		CHECK(strstr(js, "plain.yaml has no maintenance block") != NULL);
		loom_string_free(js);
		loom_report_free(rep);
		loom_runner_free(r);
		loom_config_free(plain);
	}
	/* a schema matching nothing is reported as a warning */
	{
		loom_step *s;
		loom_decl *d;
		CHECK_OK(loom_step_new(&s, "w"));
		CHECK_OK(loom_maintain_schema(&d, "silver"));
		CHECK_OK(loom_decl_vacuum(d, NULL));
		CHECK_OK(loom_step_add(s, d));
		CHECK_OK(loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP));
		CHECK_OK(loom_runner_run(&rep, r, s, NULL));
		CHECK_OK(loom_report_to_json(&js, rep));
		CHECK(strstr(js, "MaintainSchema('silver') matched no tables[] route") != NULL);
		loom_string_free(js);
		loom_report_free(rep);
		/* a ref that is not UTF-8 still shows up in the JSON */
		CHECK_OK(loom_maintain_table(&d, "raw.caf\xe9"));
		CHECK_OK(loom_decl_vacuum(d, NULL));
		CHECK_OK(loom_step_add(s, d));
		CHECK_OK(loom_runner_run(&rep, r, s, NULL));
		CHECK_OK(loom_report_to_json(&js, rep));
		CHECK(strstr(js, "\"ref\": \"raw.caf?\"") != NULL);
		loom_string_free(js);
		loom_report_free(rep);
		loom_runner_free(r);
		loom_step_free(s);
	}
	loom_step_free(step);
	loom_config_free(cfg);
}

int main(void)
{
	pthread_mutex_init(&B.mu, NULL);
	make_lake();
	RUN(null_maintainer_means_the_native_engine);
	RUN(nightly_skip_policy_and_error_capture);
	RUN(error_policy_fails_missing_tables);
	RUN(stop_policy_locator_and_progress);
	RUN(concurrency_is_bounded_and_deterministic);
	RUN(cancel_stops_between_tables_and_ops);
	RUN(custom_operation_checkpointed);
	RUN(report_json_and_run_from_config);
	{
		char *parent = strdup(lake_root);
		*strrchr(parent, '/') = '\0';
		test_rmtree(parent);
		free(parent);
	}
	free(lake_root);
	return test_summary();
}
