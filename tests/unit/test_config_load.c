/* Storage config: the ETL's file loads unchanged, routes and defaults
 * resolve, interpolation, sizes, every validation error with its line, and
 * secrets never shown. */
#include <stdlib.h>
#include <string.h>

#include "loom/auto.h"
#include "loom/config.h"
#include "loom/plan.h"
#include "test.h"

#define RES LOOM_SOURCE_DIR "/tests/resources/config/"

static const char *kv(const loom_kv *items, size_t n, const char *key)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(items[i].key, key) == 0)
			return items[i].value;
	return NULL;
}

static int load(loom_config **cfg, const char *yaml)
{
	return loom_config_load_string(cfg, yaml, strlen(yaml), "t.yaml");
}

/* The message must carry "t.yaml:LINE:" and a fragment. */
#define CHECK_CONFIG_ERR(yaml, line, fragment)                                   \
	do {                                                                         \
		loom_config *c_ = NULL;                                                  \
		char want_[64];                                                          \
		const loom_error *ce_;                                                  \
		CHECK_ERR(load(&c_, yaml), LOOM_EINVAL);                                 \
		CHECK(c_ == NULL);                                                       \
		ce_ = loom_error_last();                                                 \
		snprintf(want_, sizeof(want_), "t.yaml:%d:", line);                      \
		if (!ce_ || strncmp(ce_->message, want_, strlen(want_)) != 0 ||            \
		    !strstr(ce_->message, fragment))                                      \
			TEST_FAIL_AT("expected '%s...%s', got '%s'", want_, fragment,        \
			             ce_ ? ce_->message : "(none)");                           \
	} while (0)

TEST(etl_config_loads_unchanged)
{
	loom_config *cfg = NULL;
	loom_table_location *loc = NULL;
	loom_vacuum_opts v;
	loom_compact_opts c;
	loom_zorder_opts z;

	unsetenv("LOOM_TEST_LAKE");
	unsetenv("LOOM_TEST_SECRET");
	CHECK_OK(loom_config_load_file(&cfg, RES "etl_storage.yaml"));
	CHECK_INT(loom_config_table_count(cfg), 5);
	CHECK_STR(loom_config_table_name_at(cfg, 0), "raw.events");
	CHECK_STR(loom_config_table_name_at(cfg, 4), "gold.revenue");
	CHECK_INT(loom_config_table_has_path_at(cfg, 4), 0);
	CHECK(loom_config_has_default_path(cfg));

	/* explicit route: its own uri and size, the rest from the defaults */
	CHECK_OK(loom_config_locate(&loc, cfg, "raw.events"));
	CHECK_STR(loc->uri, "/lake/raw/events");
	CHECK_INT(loc->target_file_size, 1000000000LL);
	CHECK_STR(kv(loc->storage_options, loc->n_storage_options, "AWS_REGION"), "eu-west-1");
	CHECK_STR(kv(loc->writer, loc->n_writer, "compression"), "zstd");
	CHECK_STR(kv(loc->writer, loc->n_writer, "row_group_size"), "1_000_000");
	CHECK_STR(kv(loc->commit, loc->n_commit, "custom_metadata.owner"), "data-eng");
	CHECK_STR(kv(loc->delta_config, loc->n_delta_config, "delta.deletedFileRetentionDuration"),
	          "interval 7 days");
	loom_table_location_free(loc);

	/* a route with its own storage options does not mix in the defaults' */
	CHECK_OK(loom_config_locate(&loc, cfg, "raw.orders"));
	CHECK_STR(loc->uri, "/lake/raw/orders_v2");
	CHECK_INT(loc->n_storage_options, 1);
	CHECK_STR(kv(loc->storage_options, 1, "AWS_SESSION_TOKEN"), "session-token-value-123");
	CHECK_INT(loc->target_file_size, 128LL << 20);
	loom_table_location_free(loc);

	/* not listed: the default root, dots become slashes */
	CHECK_OK(loom_config_locate(&loc, cfg, "staging.orders"));
	CHECK_STR(loc->uri, "/lake/staging/orders");
	CHECK_STR(kv(loc->storage_options, loc->n_storage_options, "AWS_SECRET_ACCESS_KEY"),
	          "wJalrXUtnFEMIexamplesecret");
	loom_table_location_free(loc);
	CHECK_OK(loom_config_locate(&loc, cfg, "a.b.c.d"));
	CHECK_STR(loc->uri, "/lake/a/b/c/d");
	loom_table_location_free(loc);

	/* a catalog ref route is accepted but cannot be maintained */
	CHECK_ERR(loom_config_locate(&loc, cfg, "gold.revenue"), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "catalog ref"));
	CHECK_ERR(loom_config_locate(&loc, cfg, "raw..x"), LOOM_EINVAL);
	CHECK_ERR(loom_config_locate(&loc, cfg, "raw/../../etc"), LOOM_EINVAL);

	CHECK(loom_config_has_maintenance(cfg));
	CHECK_INT(loom_config_maintenance_schema_count(cfg), 1);
	CHECK_STR(loom_config_maintenance_schema_at(cfg, 0), "raw");
	CHECK_OK(loom_config_maintenance_vacuum(&v, cfg));
	CHECK_INT(v.retention_hours, 168);
	CHECK_INT(v.dry_run, 0);
	CHECK_INT(v.full, 0);
	CHECK_OK(loom_config_maintenance_compact(&c, cfg));
	CHECK_INT(c.target_size, 256LL << 20);
	CHECK_INT(loom_config_maintenance_zorder(&z, cfg), LOOM_ENOTFOUND);
	loom_config_free(cfg);
}

TEST(env_interpolation)
{
	loom_config *cfg = NULL;
	loom_table_location *loc = NULL;
	setenv("LOOM_TEST_LAKE", "s3://bucket/lake", 1);
	CHECK_OK(loom_config_load_file(&cfg, RES "etl_storage.yaml"));
	CHECK_OK(loom_config_locate(&loc, cfg, "raw.events"));
	CHECK_STR(loc->uri, "s3://bucket/lake/raw/events");
	loom_table_location_free(loc);
	CHECK_OK(loom_config_locate(&loc, cfg, "x.y"));
	CHECK_STR(loc->uri, "s3://bucket/lake/x/y");
	loom_table_location_free(loc);
	loom_config_free(cfg);
	unsetenv("LOOM_TEST_LAKE");

	/* several in one value, quoted and empty defaults, escapes */
	setenv("LOOM_T_A", "alpha", 1);
	CHECK_OK(load(&cfg,
	              "storage:\n"
	              "  defaults:\n"
	              "    table_path:\n"
	              "      uri: /r/${oc.env:LOOM_T_A}/${ oc.env:LOOM_T_UNSET , 'dflt' }${oc.env:LOOM_T_UNSET,}/x\\${lit}\n"));
	CHECK_OK(loom_config_locate(&loc, cfg, "t"));
	CHECK_STR(loc->uri, "/r/alpha/dflt/x${lit}/t");
	loom_table_location_free(loc);
	loom_config_free(cfg);

	/* a missing variable without default names the variable and line */
	unsetenv("LOOM_T_MISSING");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path:\n"
	                 "      uri: /lake\n"
	                 "      storage_options:\n"
	                 "        AWS_REGION: ${oc.env:LOOM_T_MISSING}\n",
	                 6, "LOOM_T_MISSING");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path:\n"
	                 "      uri: ${other.key}\n",
	                 4, "unsupported interpolation");
	/* ignored sections are not interpolated: their resolvers are the ETL's */
	CHECK_OK(load(&cfg, "engine:\n  x: ${oc.env:LOOM_T_MISSING}\n  y: ${now:}\n"
	                    "storage:\n  defaults:\n    table_path:\n      uri: /l\n"));
	loom_config_free(cfg);
}

TEST(sizes)
{
	int64_t v = 0;
	CHECK_OK(loom_size_parse(&v, "134217728"));
	CHECK_INT(v, 134217728);
	CHECK_OK(loom_size_parse(&v, "128MiB"));
	CHECK_INT(v, 128LL << 20);
	CHECK_OK(loom_size_parse(&v, "1GB"));
	CHECK_INT(v, 1000000000LL);
	CHECK_OK(loom_size_parse(&v, "1.5 GiB"));
	CHECK_INT(v, 3LL << 29);
	CHECK_OK(loom_size_parse(&v, "512kb"));
	CHECK_INT(v, 512000);
	CHECK_ERR(loom_size_parse(&v, "12XB"), LOOM_EINVAL);
	CHECK_ERR(loom_size_parse(&v, "MiB"), LOOM_EINVAL);
	CHECK_ERR(loom_size_parse(&v, "99999999999TiB"), LOOM_EINVAL);
	CHECK_ERR(loom_size_parse(&v, "1.5"), LOOM_EINVAL);
}

TEST(validation_errors_have_lines)
{
	CHECK_CONFIG_ERR("storage:\n"
	                 "  tables:\n"
	                 "    - name: raw.a\n"
	                 "      path: {uri: /a}\n"
	                 "    - name: raw.a\n"
	                 "      path: {uri: /b}\n",
	                 5, "duplicate table name 'raw.a' (first defined at line 3)");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  tables:\n"
	                 "    - name: raw.a\n"
	                 "      path: {uri: /a}\n"
	                 "      ref: cat.raw.a\n",
	                 3, "both 'path' and 'ref'");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  tables:\n"
	                 "    - name: raw.a\n"
	                 "    - name: raw.b\n"
	                 "      something: else\n",
	                 3, "neither 'path' nor 'ref'");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path:\n"
	                 "      uri: /lake\n"
	                 "      target_file_size: 0\n",
	                 5, "positive");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path:\n"
	                 "      uri: /lake\n"
	                 "      target_file_size: -5MiB\n",
	                 5, "positive");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path: {uri: /lake}\n"
	                 "  maintenance:\n"
	                 "    schemas: [raw]\n"
	                 "    compact:\n"
	                 "      target_size: 0\n",
	                 7, "positive");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path: {uri: /lake}\n"
	                 "  maintenance:\n"
	                 "    schemas: [raw]\n"
	                 "    vacum: {}\n",
	                 6, "unknown key 'vacum' in maintenance");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path: {uri: /lake}\n"
	                 "  maintenance:\n"
	                 "    vacuum:\n"
	                 "      retention_hours: 24\n"
	                 "      dryrun: false\n",
	                 7, "unknown key 'dryrun' in maintenance.vacuum");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: []}\n",
	                 3, "empty");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    compact: yes please\n",
	                 3, "maintenance.compact: expected true, false or a mapping {target_size} "
	                    "(or nothing for the defaults), got 'yes please'");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    vacuum: weekly\n",
	                 3, "maintenance.vacuum: expected true, false or a mapping {retention_hours, "
	                    "dry_run, full}");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: [a], curve: peano}\n",
	                 3, "expected z or hilbert, got 'peano'");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: [a], memory: 0}\n",
	                 3, "memory");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: [a], spill_limit: lots}\n",
	                 3, "spill_limit");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: [a], temp_dir: ''}\n",
	                 3, "temp_dir is empty");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: [a], sort: fast}\n",
	                 3, "unknown key 'sort'");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    schemas: raw\n",
	                 3, "expected a list");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  tables:\n"
	                 "    - name: raw.a\n"
	                 "      path: {uri: /a\n",
	                 5, "YAML syntax error");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  tables:\n"
	                 "  - name: x\n"
	                 "   bad: indent\n",
	                 4, "YAML syntax error");
	CHECK_CONFIG_ERR("engine: {}\n", 1, "no top-level 'storage:'");
	CHECK_CONFIG_ERR("storage: {}\n---\nstorage: {tables: []}\n", 3, "second YAML document");
	CHECK_CONFIG_ERR("", 1, "empty");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    vacuum:\n"
	                 "      dry_run: maybe\n",
	                 4, "maintenance.vacuum.dry_run: expected true or false");
	/* a quoted switch is a string (so is "false" in a parsed mapping's JSON) */
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    vacuum:\n"
	                 "      dry_run: 'false'\n",
	                 4, "maintenance.vacuum.dry_run: expected true or false, got the string 'false'");
	CHECK_CONFIG_ERR("storage:\n"
	                 "  maintenance:\n"
	                 "    z_order_by: {columns: [a], full: \"true\"}\n",
	                 3, "maintenance.z_order_by.full: expected true or false");
}

/* compact together with z_order_by: the file loads (a plan's steps may
 * use it), the block itself cannot run -- loom-py's rule, raised where
 * loom-py raises it (run_from_config), with the line of the later key. */
TEST(compact_with_zorder_loads_but_the_block_cannot_run)
{
	static const loom_maintainer m = { 1, "none", NULL, NULL, NULL, NULL, NULL, NULL };
	loom_config *cfg = NULL;
	loom_step *step = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	loom_compact_opts c;
	loom_zorder_opts z;

	CHECK_OK(load(&cfg, "storage:\n"
	                    "  defaults: {table_path: {uri: /lake}}\n"
	                    "  maintenance:\n"
	                    "    schemas: [raw]\n"
	                    "    compact: {}\n"
	                    "    z_order_by: [a, b]\n"));
	CHECK_OK(loom_config_maintenance_compact(&c, cfg));
	CHECK_OK(loom_config_maintenance_zorder(&z, cfg));
	CHECK_ERR(loom_step_from_config(&step, cfg), LOOM_EINVAL);
	CHECK(step == NULL);
	CHECK(strstr(loom_error_last()->message, "t.yaml:6:5: maintenance: compact and z_order_by "
	                                         "are mutually exclusive"));
	CHECK_OK(loom_runner_from_config(&r, cfg, &m, LOOM_MISSING_SKIP));
	CHECK_ERR(loom_runner_run_from_config(&rep, r), LOOM_EINVAL);
	CHECK(rep == NULL);
	loom_runner_free(r);
	loom_config_free(cfg);
}

TEST(catalog_only_config_has_no_path_routes)
{
	static const loom_maintainer m = { 1, "none", NULL, NULL, NULL, NULL, NULL, NULL };
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	const char *yaml = "storage:\n"
	                   "  catalogs: {unity: {host: h}}\n"
	                   "  tables:\n"
	                   "    - name: gold.a\n"
	                   "      ref: main.gold.a\n";
	CHECK_OK(load(&cfg, yaml));   /* valid for the ETL */
	CHECK_ERR(loom_runner_from_config(&r, cfg, &m, LOOM_MISSING_SKIP), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "t.yaml:3:3: no path routes") != NULL);
	CHECK(r == NULL);
	loom_config_free(cfg);
}

TEST(secrets_are_masked)
{
	loom_config *cfg = NULL;
	char *json = NULL;
	char out[256];

	CHECK(loom_secret_name("AWS_SECRET_ACCESS_KEY"));
	CHECK(loom_secret_name("aws_access_key_id"));
	CHECK(loom_secret_name("AWS_SESSION_TOKEN"));
	CHECK(loom_secret_name("db_password"));
	CHECK(loom_secret_name("google_application_credentials"));
	CHECK(!loom_secret_name("AWS_ENDPOINT_URL"));
	CHECK(!loom_secret_name("endpoint_key"));
	CHECK(!loom_secret_name("AWS_REGION"));

	unsetenv("LOOM_TEST_SECRET");
	CHECK_OK(loom_config_load_file(&cfg, RES "etl_storage.yaml"));
	CHECK_OK(loom_config_to_json(&json, cfg));
	CHECK(strstr(json, "wJalrXUtnFEMIexamplesecret") == NULL);
	CHECK(strstr(json, "AKIAEXAMPLEKEY") == NULL);
	CHECK(strstr(json, "session-token-value-123") == NULL);
	CHECK(strstr(json, "\"AWS_SECRET_ACCESS_KEY\": \"***\"") != NULL);
	CHECK(strstr(json, "http://minio:9000") != NULL);   /* endpoint stays visible */
	CHECK(strstr(json, "eu-west-1") != NULL);
	loom_string_free(json);

	loom_config_mask(out, sizeof(out), cfg,
	                 "denied for wJalrXUtnFEMIexamplesecret and session-token-value-123!");
	CHECK_STR(out, "denied for *** and ***!");
	loom_config_free(cfg);

	/* passwords in URIs, and a secret interpolated into an error message */
	setenv("LOOM_T_PW", "hunter2hunter2", 1);
	CHECK_OK(load(&cfg, "storage:\n"
	                    "  defaults:\n"
	                    "    table_path:\n"
	                    "      uri: s3://user:${oc.env:LOOM_T_PW}@host/lake\n"));
	CHECK_OK(loom_config_to_json(&json, cfg));
	CHECK(strstr(json, "hunter2") == NULL);
	CHECK(strstr(json, "s3://user:***@host/lake") != NULL);
	loom_string_free(json);
	loom_config_free(cfg);

	setenv("LOOM_T_SIZE_SECRET", "topsecretvalue", 1);
	CHECK_ERR(load(&cfg, "storage:\n"
	                     "  defaults:\n"
	                     "    table_path:\n"
	                     "      uri: /l\n"
	                     "      storage_options:\n"
	                     "        client_secret: ${oc.env:LOOM_T_SIZE_SECRET}\n"
	                     "      target_file_size: ${oc.env:LOOM_T_SIZE_SECRET}\n"),
	          LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "topsecretvalue") == NULL);
	CHECK(strstr(loom_error_last()->message, "t.yaml:7:") != NULL);

	/* a secret-named variable stays secret under any key: here a storage
	 * option whose name says nothing, and a writer setting (found by
	 * fuzzing: the JSON showed it) */
	setenv("LOOM_T_SECRET_KEY", "s3cr3t-from-env", 1);
	CHECK_OK(load(&cfg, "storage:\n"
	                    "  defaults:\n"
	                    "    table_path:\n"
	                    "      uri: /l\n"
	                    "      storage_options: {AWS_KE://Y: \"${oc.env:LOOM_T_SECRET_KEY}\"}\n"
	                    "      writer: {note: \"x-${oc.env:LOOM_T_SECRET_KEY}\"}\n"));
	CHECK_OK(loom_config_to_json(&json, cfg));
	CHECK(strstr(json, "s3cr3t-from-env") == NULL);
	CHECK(strstr(json, "x-***") != NULL);
	loom_string_free(json);
	loom_config_free(cfg);
}

TEST(minimal_and_no_maintenance)
{
	loom_config *cfg = NULL;
	loom_vacuum_opts v;
	CHECK_OK(load(&cfg, "storage:\n  defaults:\n    table_path:\n      uri: /lake/\n"));
	CHECK(!loom_config_has_maintenance(cfg));
	CHECK_INT(loom_config_maintenance_vacuum(&v, cfg), LOOM_ENOTFOUND);
	CHECK_INT(loom_config_table_count(cfg), 0);
	CHECK(loom_config_knows(cfg, "any.table"));
	loom_config_free(cfg);

	CHECK_OK(load(&cfg, "storage:\n"
	                    "  tables:\n"
	                    "    - name: s.t\n"
	                    "      path: /only/path\n"
	                    "  maintenance:\n"
	                    "    schemas: [s]\n"
	                    "    vacuum: {}\n"
	                    "    z_order_by: {columns: [a, b], target_size: 64MiB}\n"));
	CHECK(!loom_config_knows(cfg, "s.other"));
	CHECK(loom_config_knows(cfg, "s.t"));
	CHECK_OK(loom_config_maintenance_vacuum(&v, cfg));
	CHECK_INT(v.dry_run, 1);   /* the safe default */
	CHECK_INT(v.retention_hours, LOOM_RETENTION_TABLE_DEFAULT);
	{
		loom_zorder_opts z;
		CHECK_OK(loom_config_maintenance_zorder(&z, cfg));
		CHECK_INT(z.n_columns, 2);
		CHECK_STR(z.columns[1], "b");
		CHECK_INT(z.target_size, 64LL << 20);
	}
	loom_config_free(cfg);
	CHECK_ERR(loom_config_load_file(&cfg, RES "does-not-exist.yaml"), LOOM_ENOTFOUND);
}

TEST(alias_tricks_are_bounded)
{
	loom_config *cfg = NULL;
	/* a self-referencing mapping */
	CHECK_CONFIG_ERR("storage:\n"
	                 "  defaults:\n"
	                 "    table_path:\n"
	                 "      uri: /l\n"
	                 "      writer: &w {a: 1, self: *w}\n",
	                 5, "nested deeper");
	/* exponential sharing */
	CHECK_ERR(load(&cfg, "storage:\n"
	                     "  defaults:\n"
	                     "    table_path:\n"
	                     "      uri: /l\n"
	                     "      commit:\n"
	                     "        a: &a {x: 1, y: 2, z: 3, w: 4}\n"
	                     "        b: &b {a: *a, b: *a, c: *a, d: *a}\n"
	                     "        c: &c {a: *b, b: *b, c: *b, d: *b}\n"
	                     "        d: &d {a: *c, b: *c, c: *c, d: *c}\n"
	                     "        e: &e {a: *d, b: *d, c: *d, d: *d}\n"
	                     "        f: &f {a: *e, b: *e, c: *e, d: *e}\n"
	                     "        g: {a: *f, b: *f, c: *f, d: *f}\n"),
	          LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "more than") != NULL);
}

/* Random byte mutations of real files never crash the readers (ASan
 * builds check memory too); each load either succeeds or explains. */
TEST(mutations_never_crash)
{
	static const char *files[] = { RES "etl_storage.yaml", RES "nightly_plan.yaml" };
	static const char alphabet[] = "{}[]:,-&*!|>'\"#%@`$ \n\tab01.~";
	unsigned long seed = 12345;
	size_t f, i;
	for (f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "rb");
		char base[8192], buf[8192];
		size_t n;
		REQUIRE(fp != NULL);
		n = fread(base, 1, sizeof(base), fp);
		fclose(fp);
		for (i = 0; i < 1500; i++) {
			size_t k, edits;
			loom_config *cfg = NULL;
			loom_plan *plan = NULL;
			int rc;
			memcpy(buf, base, n);
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			edits = 1 + (seed >> 60);
			for (k = 0; k < edits; k++) {
				seed = seed * 6364136223846793005UL + 1442695040888963407UL;
				buf[(seed >> 33) % n] = alphabet[(seed >> 13) % (sizeof(alphabet) - 1)];
			}
			rc = f == 0 ? loom_config_load_string(&cfg, buf, n, "m.yaml")
			            : loom_plan_load_string(&plan, buf, n, "m.yaml");
			if (rc < 0) {
				const loom_error *e = loom_error_last();
				if (!e || !e->message[0])
					TEST_FAIL_AT("mutation %zu failed without a message", i);
			} else {
				CHECK(f == 0 ? cfg != NULL : plan != NULL);
			}
			if (cfg) {
				char *json = NULL;
				if (loom_config_to_json(&json, cfg) == 0)
					loom_string_free(json);
			}
			loom_config_free(cfg);
			loom_plan_free(plan);
		}
	}
}

/* The resolved table refs of the config's maintenance block, joined
 * with spaces ("" when it resolves to no table). */
static void block_tables(const loom_config *cfg, char *out, size_t cap)
{
	loom_step *step = NULL;
	loom_spec_list *l = NULL;
	size_t i;
	out[0] = '\0';
	if (loom_step_from_config(&step, cfg) < 0 ||
	    loom_step_resolve(&l, step, NULL, cfg) < 0) {
		snprintf(out, cap, "error: %.400s", loom_error_last()->message);
	} else {
		for (i = 0; i < loom_spec_list_count(l); i++) {
			const loom_spec *s = loom_spec_list_at(l, i);
			size_t k;
			snprintf(out + strlen(out), cap - strlen(out), "%s%s[", i ? " " : "",
			         loom_spec_table_ref(s));
			for (k = 0; k < loom_spec_op_count(s); k++)
				snprintf(out + strlen(out), cap - strlen(out), "%s%s", k ? "," : "",
				         loom_op_name(loom_spec_op_at(s, k)));
			snprintf(out + strlen(out), cap - strlen(out), "]");
		}
	}
	loom_spec_list_free(l);
	loom_step_free(step);
}

#define ROUTES "storage:\n"                                    \
	"  defaults: {table_path: {uri: /lake}}\n"                 \
	"  tables:\n"                                              \
	"    - {name: raw.a, path: /lake/raw/a}\n"                 \
	"    - {name: staging.b, path: /lake/staging/b}\n"         \
	"    - {name: raw.c, path: /lake/raw/c}\n"                 \
	"  maintenance:\n"

/* Every form loom's Python ETL (loom-py's MaintenanceConfig: schemas
 * tuple, vacuum mapping or null, compact bool, z_order_by list) accepts
 * loads, and means what it means there; loom's richer forms (mappings
 * with options, bools for vacuum) keep working. */
TEST(loom_py_maintenance_forms)
{
	static const struct { const char *block; const char *tables; } cases[] = {
		/* loom-py's documented form: a bool, no schemas = every route */
		{ "    compact: true\n", "raw.a[compact] staging.b[compact] raw.c[compact]" },
		{ "    schemas: []\n    compact: true\n",
		  "raw.a[compact] staging.b[compact] raw.c[compact]" },
		{ "    schemas: [raw]\n    compact: true\n", "raw.a[compact] raw.c[compact]" },
		{ "    schemas: [raw, staging]\n    vacuum: {retention_hours: 168, dry_run: false}\n",
		  "raw.a[vacuum] raw.c[vacuum] staging.b[vacuum]" },
		{ "    compact: false\n", "" },
		{ "    vacuum: null\n    compact: false\n    z_order_by: []\n", "" },
		{ "    vacuum:\n", "" },
		{ "    vacuum: {}\n", "raw.a[vacuum] staging.b[vacuum] raw.c[vacuum]" },
		{ "    vacuum: {retention_hours: null, dry_run: true}\n    compact: true\n"
		  "    z_order_by: []\n",
		  "raw.a[vacuum,compact] staging.b[vacuum,compact] raw.c[vacuum,compact]" },
		{ "    schemas: [staging]\n    compact: false\n    z_order_by: [a, b]\n",
		  "staging.b[z_order]" },
		/* schemas without ops: their tables, with no ops (loom-py) */
		{ "    schemas: [raw]\n", "raw.a[] raw.c[]" },
		{ "    schemas: [raw]\n    z_order_by: []\n", "raw.a[] raw.c[]" },
		{ "    schemas: [raw, staging]\n    vacuum: null\n    compact: false\n",
		  "raw.a[] raw.c[] staging.b[]" },
		{ "    {}\n", "" },
		{ "    schemas: [nothere]\n    compact: true\n", "" },
		/* loom's extensions */
		{ "    schemas: [raw]\n    compact: {target_size: 256MiB}\n", "raw.a[compact] raw.c[compact]" },
		{ "    schemas: [raw]\n    compact:\n", "raw.a[compact] raw.c[compact]" },
		{ "    vacuum: true\n    compact: no\n", "raw.a[vacuum] staging.b[vacuum] raw.c[vacuum]" },
		{ "    z_order_by: {columns: [x], curve: z, memory: 64MiB, temp_dir: /tmp,"
		  " spill_limit: 1GiB, full: true}\n",
		  "raw.a[z_order] staging.b[z_order] raw.c[z_order]" },
	};
	char got[2048], yaml[1024];
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		loom_config *cfg = NULL;
		snprintf(yaml, sizeof(yaml), "%s%s", ROUTES, cases[i].block);
		if (load(&cfg, yaml) < 0) {
			TEST_FAIL_AT("case %zu does not load: %s", i, loom_error_last()->message);
			continue;
		}
		block_tables(cfg, got, sizeof(got));
		if (strcmp(got, cases[i].tables) != 0)
			TEST_FAIL_AT("case %zu: expected '%s', got '%s'", i, cases[i].tables, got);
		loom_config_free(cfg);
	}
	{
		/* the options of the mapping forms arrive intact */
		loom_config *cfg = NULL;
		loom_vacuum_opts v;
		loom_compact_opts c;
		loom_zorder_opts z;
		CHECK_OK(load(&cfg, ROUTES "    vacuum: {retention_hours: null, dry_run: false}\n"
		                    "    compact: false\n"
		                    "    z_order_by: {columns: [x, y], target_size: 1GiB, curve: hilbert,"
		                    " memory: 64MiB, temp_dir: /spill, spill_limit: 2GiB, full: yes,"
		                    " dry_run: true}\n"));
		CHECK_OK(loom_config_maintenance_vacuum(&v, cfg));
		CHECK_INT(v.retention_hours, LOOM_RETENTION_TABLE_DEFAULT);
		CHECK_INT(v.dry_run, 0);
		CHECK_INT(loom_config_maintenance_compact(&c, cfg), LOOM_ENOTFOUND);
		CHECK_OK(loom_config_maintenance_zorder(&z, cfg));
		CHECK_INT(z.n_columns, 2);
		CHECK_STR(z.columns[1], "y");
		CHECK_INT(z.target_size, 1LL << 30);
		CHECK_INT(z.curve, LOOM_ZORDER_CURVE_HILBERT);
		CHECK_INT(z.memory_budget, 64LL << 20);
		CHECK_STR(z.temp_dir, "/spill");
		CHECK_INT(z.spill_limit, 2LL << 30);
		CHECK_INT(z.full, 1);
		CHECK_INT(z.dry_run, 1);
		loom_config_free(cfg);
	}
}

#define AUTO_HEAD "storage:\n" \
	"  tables:\n" \
	"    - {name: raw.a, path: /lake/raw/a}\n" \
	"  maintenance:\n"

/* maintenance.auto: on / off / a policy; the block's ops become its
 * settings (compact beside z_order_by is fine then); every policy value
 * out of range is refused at its own line naming the key. */
TEST(auto_block)
{
	loom_config *cfg = NULL;
	loom_step *step = NULL;
	loom_auto_opts a;
	char *json = NULL;

	CHECK_OK(load(&cfg, AUTO_HEAD "    auto: {min_small_files: 8, dv_purge_ratio: 0.2,"
	                             " max_clustering_depth: 1.5, target_size: 64MiB,"
	                             " checkpoint_commits: 20, checkpoint_json_bytes: 0,"
	                             " min_dv_files: 3, min_vacuum_files: 4, min_expired_logs: 5}\n"
	                             "    vacuum: {dry_run: false}\n"
	                             "    compact: true\n"
	                             "    z_order_by: [id]\n"));
	CHECK(loom_config_maintenance_auto(&a, cfg) == 1);
	CHECK(a.policy.min_small_files == 8 && a.policy.dv_purge_ratio == 0.2 &&
	      a.policy.max_clustering_depth == 1.5 && a.policy.target_size == (64 << 20) &&
	      a.policy.checkpoint_commits == 20 && a.policy.checkpoint_json_bytes == 0 &&
	      a.policy.min_dv_files == 3 && a.policy.min_vacuum_files == 4 &&
	      a.policy.min_expired_logs == 5);
	CHECK(a.vacuum && a.vacuum->dry_run == 0 && a.compact && a.zorder &&
	      a.zorder->n_columns == 1);
	CHECK_OK(loom_step_from_config(&step, cfg));   /* compact + z_order_by: auto's settings */
	CHECK(loom_step_decl_count(step) == 1);
	loom_step_free(step);
	CHECK_OK(loom_config_to_json(&json, cfg));
	CHECK(strstr(json, "\"min_small_files\": 8") != NULL);
	loom_string_free(json);
	loom_config_free(cfg);

	/* off: the block's ops run as declared (and compact + z_order_by cannot) */
	CHECK_OK(load(&cfg, AUTO_HEAD "    auto: false\n    compact: true\n"));
	CHECK(loom_config_maintenance_auto(&a, cfg) == 0);
	CHECK(a.policy.min_small_files == 50 && a.compact && !a.vacuum);
	loom_config_free(cfg);
	CHECK_OK(load(&cfg, AUTO_HEAD "    auto:\n"));
	CHECK(loom_config_maintenance_auto(&a, cfg) == 1);
	loom_config_free(cfg);

	CHECK_CONFIG_ERR(AUTO_HEAD "    auto:\n      min_small_files: 1\n", 6,
	                 "maintenance.auto.min_small_files: min_small_files must be >= 2");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto:\n      target_size: 1MiB\n      dv_purge_ratio: 0.01\n",
	                 7, "maintenance.auto.dv_purge_ratio");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {max_clustering_depth: deep}\n", 5,
	                 "maintenance.auto.max_clustering_depth: expected a number");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {checkpoint_commits: -1}\n", 5,
	                 "maintenance.auto.checkpoint_commits");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {min_vacuum_files: 0}\n", 5, "min_vacuum_files");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {min_expired_logs: 0}\n", 5, "min_expired_logs");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {min_dv_files: 0}\n", 5, "min_dv_files");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {target_size: 0}\n", 5, "maintenance.auto.target_size");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: {small_file_ratio: 0.5}\n", 5,
	                 "unknown key 'small_file_ratio' in maintenance.auto");
	CHECK_CONFIG_ERR(AUTO_HEAD "    auto: \"false\"\n", 5, "got the string 'false'");
}

int main(void)
{
	RUN(alias_tricks_are_bounded);
	RUN(mutations_never_crash);
	RUN(etl_config_loads_unchanged);
	RUN(env_interpolation);
	RUN(sizes);
	RUN(validation_errors_have_lines);
	RUN(compact_with_zorder_loads_but_the_block_cannot_run);
	RUN(catalog_only_config_has_no_path_routes);
	RUN(secrets_are_masked);
	RUN(minimal_and_no_maintenance);
	RUN(loom_py_maintenance_forms);
	RUN(auto_block);
	return test_summary();
}
