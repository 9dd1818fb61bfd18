/* Plan files: the NightlyMaintenance example parses into the same specs
 * the C builders make, ops keep their written order, every error has its
 * line. */
#include <string.h>

#include "loom/plan.h"
#include "test.h"

#define RES LOOM_SOURCE_DIR "/tests/resources/config/"

static int load(loom_plan **p, const char *yaml)
{
	return loom_plan_load_string(p, yaml, strlen(yaml), "p.yaml");
}

#define CHECK_PLAN_ERR(yaml, line, fragment)                                     \
	do {                                                                         \
		loom_plan *p_ = NULL;                                                    \
		char want_[64];                                                          \
		const loom_error *pe_;                                                   \
		CHECK_ERR(load(&p_, yaml), LOOM_EINVAL);                                 \
		CHECK(p_ == NULL);                                                       \
		pe_ = loom_error_last();                                                 \
		snprintf(want_, sizeof(want_), "p.yaml:%d:", line);                      \
		if (!pe_ || strncmp(pe_->message, want_, strlen(want_)) != 0 ||          \
		    !strstr(pe_->message, fragment))                                     \
			TEST_FAIL_AT("expected '%s...%s', got '%s'", want_, fragment,        \
			             pe_ ? pe_->message : "(none)");                         \
	} while (0)

static const char cfg_yaml[] =
	"storage:\n"
	"  defaults: {table_path: {uri: /lake}}\n"
	"  tables:\n"
	"    - {name: raw.events, path: /lake/raw/events}\n"
	"    - {name: raw.orders, path: /lake/raw/orders}\n"
	"    - {name: staging.orders, path: /lake/staging/orders}\n";

TEST(nightly_example)
{
	loom_plan *plan = NULL;
	loom_config *cfg = NULL;
	loom_spec_list *l = NULL;
	const loom_step *step;

	CHECK_OK(loom_plan_load_file(&plan, RES "nightly_plan.yaml"));
	CHECK_OK(loom_config_load_string(&cfg, cfg_yaml, sizeof(cfg_yaml) - 1, "c.yaml"));
	CHECK_INT(loom_plan_step_count(plan), 2);
	CHECK_STR(loom_step_name(loom_plan_step_at(plan, 0)), "nightly");
	step = loom_plan_step(plan, "nightly");
	REQUIRE(step != NULL);
	CHECK_INT(loom_step_decl_count(step), 2);
	CHECK_OK(loom_step_resolve(&l, step, NULL, cfg));
	CHECK_INT(loom_spec_list_count(l), 3);
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 0)), "raw.events");
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 1)), "raw.orders");
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 2)), "staging.orders");
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 0), 0)), "vacuum");
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 0), 1)), "compact");
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 2), 1)), "z_order");
	loom_spec_list_free(l);

	/* ops in written order: compact before vacuum */
	step = loom_plan_step(plan, "weekly_full_vacuum");
	REQUIRE(step != NULL);
	CHECK_OK(loom_step_resolve(&l, step, NULL, cfg));
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 2), 0)), "compact");
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 2), 1)), "vacuum");
	loom_spec_list_free(l);

	CHECK(loom_plan_step(plan, "hourly") == NULL);
	CHECK_INT(loom_error_last()->code, LOOM_ENOTFOUND);
	loom_plan_free(plan);
	loom_config_free(cfg);
}

/* The options reach the maintainer exactly as written. */
static loom_vacuum_opts seen_v;
static loom_zorder_opts seen_z;
static char seen_cols[2][32];
static char seen_tmp[64];
static int rec_vacuum(loom_op_result *out, const loom_maintainer *self, const char *uri,
                      const loom_table_location *loc, const loom_vacuum_opts *o,
                      const loom_cancel *cancel)
{
	(void)self; (void)uri; (void)loc; (void)cancel;
	seen_v = *o;
	out->kind = LOOM_RESULT_VACUUM;
	return 0;
}

static int rec_zorder(loom_op_result *out, const loom_maintainer *self, const char *uri,
                      const loom_table_location *loc, const loom_zorder_opts *o,
                      const loom_cancel *cancel)
{
	(void)self; (void)uri; (void)loc; (void)cancel;
	seen_z = *o;
	snprintf(seen_cols[0], 32, "%s", o->columns[0]);
	snprintf(seen_cols[1], 32, "%s", o->columns[1]);
	snprintf(seen_tmp, sizeof(seen_tmp), "%s", o->temp_dir ? o->temp_dir : "(null)");
	out->kind = LOOM_RESULT_OPTIMIZE;
	return 0;
}

TEST(options_reach_the_maintainer)
{
	static const loom_maintainer m = { 1, "rec", rec_vacuum, NULL,
		                               rec_zorder, NULL, NULL, NULL };
	loom_plan *plan = NULL;
	loom_spec_list *l = NULL;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	const loom_spec *s;
	CHECK_OK(load(&plan, "steps:\n"
	                     "  s:\n"
	                     "    - table: a.b\n"
	                     "      vacuum: {retention_hours: 12, dry_run: false, full: yes}\n"
	                     "      z_order_by: {columns: [x, y], target_size: 1GiB}\n"));
	CHECK_OK(loom_step_resolve(&l, loom_plan_step_at(plan, 0), NULL, NULL));
	s = loom_spec_list_at(l, 0);
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(loom_op_execute(&r, loom_spec_op_at(s, 0), &m, "/x", NULL, NULL));
	CHECK_INT(seen_v.retention_hours, 12);
	CHECK_INT(seen_v.dry_run, 0);
	CHECK_INT(seen_v.full, 1);
	CHECK_OK(loom_op_execute(&r, loom_spec_op_at(s, 1), &m, "/x", NULL, NULL));
	CHECK_INT(seen_z.n_columns, 2);
	CHECK_STR(seen_cols[0], "x");
	CHECK_STR(seen_cols[1], "y");
	CHECK_INT(seen_z.target_size, 1LL << 30);
	CHECK_INT(seen_z.curve, LOOM_ZORDER_CURVE_AUTO);
	CHECK_INT(seen_z.memory_budget, 0);
	CHECK_STR(seen_tmp, "(null)");
	loom_spec_list_free(l);
	loom_plan_free(plan);

	/* every option `loom zorder` has */
	CHECK_OK(load(&plan, "steps:\n"
	                     "  s:\n"
	                     "    - table: a.b\n"
	                     "      z_order_by:\n"
	                     "        columns: [x, y]\n"
	                     "        curve: z\n"
	                     "        memory: 256MiB\n"
	                     "        temp_dir: /spill/here\n"
	                     "        spill_limit: 10GiB\n"
	                     "        full: true\n"
	                     "        dry_run: true\n"));
	CHECK_OK(loom_step_resolve(&l, loom_plan_step_at(plan, 0), NULL, NULL));
	s = loom_spec_list_at(l, 0);
	CHECK_OK(loom_op_execute(&r, loom_spec_op_at(s, 0), &m, "/x", NULL, NULL));
	CHECK_INT(seen_z.curve, LOOM_ZORDER_CURVE_Z);
	CHECK_INT(seen_z.memory_budget, 256LL << 20);
	CHECK_STR(seen_tmp, "/spill/here");
	CHECK_INT(seen_z.spill_limit, 10LL << 30);
	CHECK_INT(seen_z.full, 1);
	CHECK_INT(seen_z.dry_run, 1);
	CHECK_INT(seen_z.target_size, 0);
	{
		/* explain shows them (text and JSON) */
		static const char yaml[] = "storage:\n  defaults: {table_path: {uri: /lake}}\n";
		loom_config *cfg = NULL;
		char *text = NULL;
		CHECK_OK(loom_config_load_string(&cfg, yaml, sizeof(yaml) - 1, "c.yaml"));
		CHECK_OK(loom_step_explain(&text, loom_plan_step_at(plan, 0), NULL, cfg, 0));
		CHECK(strstr(text, "by x,y curve=z memory=268435456 temp_dir=/spill/here "
		                   "spill_limit=10737418240 full dry-run") != NULL);
		loom_string_free(text);
		CHECK_OK(loom_step_explain(&text, loom_plan_step_at(plan, 0), NULL, cfg, 1));
		CHECK(strstr(text, "\"curve\": \"z\"") != NULL);
		CHECK(strstr(text, "\"temp_dir\": \"/spill/here\"") != NULL);
		loom_string_free(text);
		loom_config_free(cfg);
	}
	/* the maintainer has no compact: a clear error, not a crash */
	{
		loom_op *c;
		CHECK_OK(loom_op_compact(&c, NULL));
		CHECK_ERR(loom_op_execute(&r, c, &m, "/x", NULL, NULL), LOOM_EUNSUPPORTED);
		CHECK(strstr(loom_error_last()->message, "does not implement compact") != NULL);
		loom_op_free(c);
	}
	loom_op_result_free(&r);
	loom_spec_list_free(l);
	loom_plan_free(plan);
}

static char seen_filters[2][32];
static int rec_compact(loom_op_result *out, const loom_maintainer *self, const char *uri,
                       const loom_table_location *loc, const loom_compact_opts *o,
                       const loom_cancel *cancel)
{
	size_t i;
	(void)self; (void)uri; (void)loc; (void)cancel;
	for (i = 0; i < 2 && i < o->n_partition_filters; i++)
		snprintf(seen_filters[i], sizeof(seen_filters[i]), "%s", o->partition_filters[i]);
	out->kind = LOOM_RESULT_OPTIMIZE;
	return 0;
}

/* A compaction op keeps its own copy of the partition filters: the
 * caller's strings may be gone when the op runs. */
TEST(compact_op_copies_its_filters)
{
	static const loom_maintainer m = { 1, "rec", NULL, rec_compact, NULL,
		                               NULL, NULL, NULL };
	loom_compact_opts o = LOOM_COMPACT_OPTS_INIT;
	char a[16] = "day=2024-01-01", b[16] = "region=eu";
	const char *filters[2] = { a, b };
	loom_op *op = NULL;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	o.partition_filters = filters;
	o.n_partition_filters = 2;
	CHECK_OK(loom_op_compact(&op, &o));
	memset(a, 'x', sizeof(a) - 1);
	memset(b, 'y', sizeof(b) - 1);
	filters[0] = filters[1] = NULL;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(loom_op_execute(&r, op, &m, "/x", NULL, NULL));
	CHECK_STR(seen_filters[0], "day=2024-01-01");
	CHECK_STR(seen_filters[1], "region=eu");
	loom_op_result_free(&r);
	loom_op_free(op);
}

TEST(errors_have_lines)
{
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - table: a.b\n"
	               "      compact:\n"
	               "      z_order_by: [x]\n",
	               5, "mutually exclusive");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - table: a.b\n"
	               "      z_order_by: []\n",
	               4, "column list is empty");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - table: ''\n"
	               "      vacuum:\n",
	               3, "empty");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - schema: raw\n"
	               "      table: raw.x\n"
	               "      vacuum:\n",
	               3, "not both");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - schema: raw\n",
	               3, "declares no operations");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - schema: raw\n"
	               "      vacuum: {retention: 5}\n",
	               4, "unknown key 'retention' in vacuum");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - schema: raw\n"
	               "      optimize: {}\n",
	               4, "unknown key 'optimize'");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - schema: raw\n"
	               "      compact: {target_size: 0}\n",
	               4, "positive");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - schema: raw\n"
	               "      vacuum:\n"
	               "      vacuum:\n",
	               5, "duplicate key 'vacuum'");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - table: a.b\n"
	               "      z_order_by: {columns: [x], curve: peano}\n",
	               4, "expected z or hilbert");
	CHECK_PLAN_ERR("steps:\n"
	               "  s:\n"
	               "    - table: a.b\n"
	               "      z_order_by: {columns: [x], memory: -1GiB}\n",
	               4, "memory");
	CHECK_PLAN_ERR("steps:\n  s: []\n", 2, "non-empty list");
	CHECK_PLAN_ERR("version: 2\nsteps:\n  s: []\n", 1, "version 2");
	CHECK_PLAN_ERR("steps: [\n", 2, "YAML syntax error");
}

/* auto: one op whose siblings are its settings (explain shows them:
 * vacuum=DELETE, the Z-order columns); its policy errors have lines. */
TEST(auto_takes_its_siblings)
{
	static const char yaml[] =
		"steps:\n"
		"  nightly:\n"
		"    - schema: raw\n"
		"      auto: {min_small_files: 20, checkpoint_commits: 50}\n"
		"      vacuum: {dry_run: false}\n"
		"      compact:\n"
		"      z_order_by: [id, ts]\n";
	loom_plan *plan = NULL;
	loom_config *cfg = NULL;
	loom_spec_list *l = NULL;
	char *text = NULL;

	CHECK_OK(load(&plan, yaml));
	CHECK_OK(loom_config_load_string(&cfg, cfg_yaml, sizeof(cfg_yaml) - 1, "c.yaml"));
	CHECK_OK(loom_step_resolve(&l, loom_plan_step_at(plan, 0), NULL, cfg));
	CHECK_INT(loom_spec_list_count(l), 2);
	CHECK_INT(loom_spec_op_count(loom_spec_list_at(l, 0)), 1);
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 0), 0)), "auto");
	loom_spec_list_free(l);
	CHECK_OK(loom_step_explain(&text, loom_plan_step_at(plan, 0), NULL, cfg, 0));
	CHECK(strstr(text, "auto min_small_files=20") != NULL);
	CHECK(strstr(text, "checkpoint_commits=50") != NULL);
	CHECK(strstr(text, "vacuum=DELETE z_order_by=id,ts") != NULL);
	loom_string_free(text);
	loom_plan_free(plan);
	loom_config_free(cfg);

	/* auto: false leaves the ops as ops */
	CHECK_OK(load(&plan, "steps:\n  s:\n    - table: raw.events\n      auto: false\n"
	                     "      vacuum:\n"));
	CHECK_OK(loom_config_load_string(&cfg, cfg_yaml, sizeof(cfg_yaml) - 1, "c.yaml"));
	CHECK_OK(loom_step_resolve(&l, loom_plan_step_at(plan, 0), NULL, cfg));
	CHECK_STR(loom_op_name(loom_spec_op_at(loom_spec_list_at(l, 0), 0)), "vacuum");
	loom_spec_list_free(l);
	loom_plan_free(plan);
	loom_config_free(cfg);

	CHECK_PLAN_ERR("steps:\n  s:\n    - table: raw.events\n      auto:\n"
	               "        max_clustering_depth: 0.9\n", 5,
	               "auto.max_clustering_depth: max_clustering_depth must be >= 1.0");
	CHECK_PLAN_ERR("steps:\n  s:\n    - table: raw.events\n      auto: {ratio: 1}\n", 4,
	               "unknown key 'ratio' in auto");
	CHECK_PLAN_ERR("steps:\n  s:\n    - table: raw.events\n      auto: true\n"
	               "      vacuum: {dry_run: maybe}\n", 5, "vacuum.dry_run");
}

int main(void)
{
	RUN(nightly_example);
	RUN(options_reach_the_maintainer);
	RUN(compact_op_copies_its_filters);
	RUN(errors_have_lines);
	RUN(auto_takes_its_siblings);
	return test_summary();
}
