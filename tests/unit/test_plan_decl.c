/* Declarations: every builder rule (errors at the call and again at
 * validation), schema expansion over config routes only, spec rules,
 * custom declarations, static and dynamic steps. */
#include <string.h>

#include "loom/auto.h"
#include "loom/plan.h"
#include "test.h"

static loom_config *config(void)
{
	static const char yaml[] =
		"storage:\n"
		"  defaults:\n"
		"    table_path: {uri: /lake}\n"
		"  tables:\n"
		"    - {name: raw.events, path: {uri: /lake/raw/events}}\n"
		"    - {name: raw_backup.events, path: {uri: /lake/raw_backup/events}}\n"
		"    - {name: raw, path: {uri: /lake/raw_root}}\n"
		"    - {name: staging.orders, path: {uri: /lake/staging/orders}}\n"
		"    - {name: raw.orders, path: {uri: /lake/raw/orders}}\n"
		"    - {name: raw.deep.table, path: {uri: /lake/raw/deep/table}}\n"
		"    - {name: rawx, ref: cat.rawx}\n";
	loom_config *cfg = NULL;
	if (loom_config_load_string(&cfg, yaml, sizeof(yaml) - 1, "decl.yaml") < 0)
		return NULL;
	return cfg;
}

static const char *op_of(const loom_spec_list *l, size_t spec, size_t op)
{
	return loom_op_name(loom_spec_op_at(loom_spec_list_at(l, spec), op));
}

TEST(empty_refs_are_errors)
{
	loom_decl *d = (loom_decl *)1;
	CHECK_ERR(loom_maintain_table(&d, ""), LOOM_EINVAL);
	CHECK(d == NULL);
	CHECK_ERR(loom_maintain_table(&d, NULL), LOOM_EINVAL);
	CHECK_ERR(loom_maintain_schema(&d, ""), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "schema prefix") != NULL);
	CHECK_ERR(loom_maintain_table(&d, "raw..events"), LOOM_EINVAL);
	CHECK_ERR(loom_maintain_schema(&d, "raw."), LOOM_EINVAL);
}

TEST(builder_rules_are_sticky)
{
	loom_decl *d;
	loom_spec_list *l;
	const char *none[] = { NULL };
	const char *cols[] = { "run_date", "_id" };
	const char *dup[] = { "a", "a" };
	loom_vacuum_opts bad = LOOM_VACUUM_OPTS_INIT;
	loom_vacuum_opts unversioned;

	/* empty column list */
	CHECK_OK(loom_maintain_table(&d, "staging.orders"));
	CHECK_ERR(loom_decl_zorder_by(d, none, 0, 0), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "column list is empty") != NULL);
	loom_error_clear();
	CHECK_ERR(loom_decl_validate(d), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "column list is empty") != NULL);
	loom_decl_free(d);

	CHECK_OK(loom_maintain_table(&d, "staging.orders"));
	CHECK_ERR(loom_decl_zorder_by(d, dup, 2, 0), LOOM_EINVAL);
	CHECK_ERR(loom_decl_zorder_by(d, cols, 2, -1), LOOM_EINVAL);
	loom_decl_free(d);

	/* compact + z-order, either order, caught at the call and at validation
	 * even though the first error was ignored */
	CHECK_OK(loom_maintain_table(&d, "staging.orders"));
	CHECK_OK(loom_decl_compact(d, NULL));
	CHECK_ERR(loom_decl_zorder_by(d, cols, 2, 0), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "mutually exclusive") != NULL);
	loom_error_clear();
	CHECK_ERR(loom_decl_validate(d), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "mutually exclusive") != NULL);
	CHECK_OK(loom_spec_list_new(&l));
	CHECK_ERR(loom_decl_resolve(l, d, NULL), LOOM_EINVAL);
	CHECK_INT(loom_spec_list_count(l), 0);
	loom_spec_list_free(l);
	loom_decl_free(d);

	CHECK_OK(loom_maintain_schema(&d, "raw"));
	CHECK_OK(loom_decl_zorder_by(d, cols, 2, 0));
	CHECK_ERR(loom_decl_compact(d, NULL), LOOM_EINVAL);
	CHECK_ERR(loom_decl_validate(d), LOOM_EINVAL);
	loom_decl_free(d);

	/* the same op twice: results are keyed by name */
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_OK(loom_decl_vacuum(d, NULL));
	CHECK_ERR(loom_decl_vacuum(d, NULL), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "twice") != NULL);
	loom_decl_free(d);

	/* bad options: negative retention, zero-filled (unversioned) struct */
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	bad.retention_hours = -3;
	CHECK_ERR(loom_decl_vacuum(d, &bad), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "MaintainTable('raw.events')") != NULL);
	loom_decl_free(d);
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	memset(&unversioned, 0, sizeof(unversioned));
	CHECK_ERR(loom_decl_vacuum(d, &unversioned), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "LOOM_VACUUM_OPTS_INIT") != NULL);
	loom_decl_free(d);
	{
		loom_compact_opts c = LOOM_COMPACT_OPTS_INIT;
		c.target_size = -1;
		CHECK_OK(loom_maintain_table(&d, "raw.events"));
		CHECK_ERR(loom_decl_compact(d, &c), LOOM_EINVAL);
		loom_decl_free(d);
	}

	/* a declaration with no ops is not silently a no-op */
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_ERR(loom_decl_validate(d), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "declares no operations") != NULL);
	loom_decl_free(d);
}

TEST(table_declaration_keeps_op_order)
{
	loom_decl *d;
	loom_spec_list *l;
	const char *cols[] = { "run_date", "_id" };
	loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
	v.dry_run = 0;
	CHECK_OK(loom_maintain_table(&d, "staging.orders"));
	CHECK_OK(loom_decl_vacuum(d, &v));
	CHECK_OK(loom_decl_zorder_by(d, cols, 2, 0));
	CHECK_OK(loom_decl_validate(d));
	CHECK_OK(loom_spec_list_new(&l));
	CHECK_OK(loom_decl_resolve(l, d, NULL));
	CHECK_INT(loom_spec_list_count(l), 1);
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 0)), "staging.orders");
	CHECK_INT(loom_spec_op_count(loom_spec_list_at(l, 0)), 2);
	CHECK_STR(op_of(l, 0, 0), "vacuum");
	CHECK_STR(op_of(l, 0, 1), "z_order");
	loom_spec_list_free(l);
	loom_decl_free(d);
}

TEST(schema_expands_over_routes_only)
{
	loom_config *cfg = config();
	loom_decl *d;
	loom_spec_list *l;
	REQUIRE(cfg != NULL);
	CHECK_OK(loom_maintain_schema(&d, "raw"));
	CHECK_OK(loom_decl_compact(d, NULL));
	CHECK_OK(loom_spec_list_new(&l));
	CHECK_OK(loom_decl_resolve(l, d, cfg));
	/* raw.events, raw.orders, raw.deep.table in config order; not
	 * raw_backup.events, not the route named "raw", not rawx */
	CHECK_INT(loom_spec_list_count(l), 3);
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 0)), "raw.events");
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 1)), "raw.orders");
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 2)), "raw.deep.table");
	CHECK_STR(op_of(l, 2, 0), "compact");
	loom_spec_list_free(l);
	loom_decl_free(d);

	/* nested prefix */
	CHECK_OK(loom_maintain_schema(&d, "raw.deep"));
	CHECK_OK(loom_decl_vacuum(d, NULL));
	CHECK_OK(loom_spec_list_new(&l));
	CHECK_OK(loom_decl_resolve(l, d, cfg));
	CHECK_INT(loom_spec_list_count(l), 1);
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 0)), "raw.deep.table");
	loom_spec_list_free(l);
	loom_decl_free(d);

	/* the default table_path is not scanned: a schema with no routes
	 * expands to nothing */
	CHECK_OK(loom_maintain_schema(&d, "silver"));
	CHECK_OK(loom_decl_vacuum(d, NULL));
	CHECK_OK(loom_spec_list_new(&l));
	CHECK_OK(loom_decl_resolve(l, d, cfg));
	CHECK_INT(loom_spec_list_count(l), 0);
	loom_spec_list_free(l);
	loom_decl_free(d);
	loom_config_free(cfg);
}

TEST(spec_rules)
{
	loom_spec *s;
	loom_op *c, *z, *v, *v2;
	const char *cols[] = { "a" };
	loom_zorder_opts zo = LOOM_ZORDER_OPTS_INIT;
	zo.columns = cols;
	zo.n_columns = 1;
	CHECK_ERR(loom_spec_new(&s, ""), LOOM_EINVAL);
	CHECK_OK(loom_spec_new(&s, "t.x"));
	CHECK_OK(loom_op_compact(&c, NULL));
	CHECK_OK(loom_op_zorder(&z, &zo));
	CHECK_OK(loom_op_vacuum(&v, NULL));
	CHECK_OK(loom_op_vacuum(&v2, NULL));
	/* the spec takes each op over, added or refused (ASan: no leak, no
	 * double free); the caller keeps c through a reference of its own */
	CHECK_OK(loom_spec_add_op(s, loom_op_ref(c)));
	CHECK_ERR(loom_spec_add_op(s, z), LOOM_EINVAL);
	CHECK_OK(loom_spec_add_op(s, v));
	CHECK_ERR(loom_spec_add_op(s, v2), LOOM_EINVAL);
	CHECK_INT(loom_spec_op_count(s), 2);
	loom_op_free(c);
	/* the spec still holds its own references */
	CHECK_STR(loom_op_name(loom_spec_op_at(s, 0)), "compact");
	loom_spec_free(s);
	{
		loom_op *bad;
		loom_zorder_opts empty = LOOM_ZORDER_OPTS_INIT;
		CHECK_ERR(loom_op_zorder(&bad, &empty), LOOM_EINVAL);
		CHECK_ERR(loom_op_new(&bad, "", NULL, NULL, NULL), LOOM_EINVAL);
	}
}

/* operations_for(params): the params pick which schema to maintain */
static int build_for(loom_step *into, const void *params, void *payload)
{
	const char *schema = params;
	loom_decl *d;
	int *calls = payload;
	(*calls)++;
	if (!schema)
		return 0;   /* no params: nothing to do */
	if (loom_maintain_schema(&d, schema) < 0)
		return -1;
	if (loom_decl_vacuum(d, NULL) < 0) {
		loom_decl_free(d);
		return -1;
	}
	return loom_step_add(into, d);
}

TEST(steps_static_and_dynamic)
{
	loom_config *cfg = config();
	loom_step *step;
	loom_decl *d;
	loom_spec_list *l;
	int calls = 0;
	const char *cols[] = { "run_date", "_id" };
	loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
	REQUIRE(cfg != NULL);

	/* the seed's NightlyMaintenance */
	CHECK_OK(loom_step_new(&step, "NightlyMaintenance"));
	v.retention_hours = 168;
	v.dry_run = 0;
	CHECK_OK(loom_maintain_schema(&d, "raw"));
	CHECK_OK(loom_decl_vacuum(d, &v));
	CHECK_OK(loom_decl_compact(d, NULL));
	CHECK_OK(loom_step_add(step, d));
	v.retention_hours = LOOM_RETENTION_TABLE_DEFAULT;
	CHECK_OK(loom_maintain_table(&d, "staging.orders"));
	CHECK_OK(loom_decl_vacuum(d, &v));
	CHECK_OK(loom_decl_zorder_by(d, cols, 2, 0));
	CHECK_OK(loom_step_add(step, d));
	CHECK_INT(loom_step_decl_count(step), 2);
	CHECK_OK(loom_step_resolve(&l, step, NULL, cfg));
	CHECK_INT(loom_spec_list_count(l), 4);
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 3)), "staging.orders");
	CHECK_STR(op_of(l, 0, 1), "compact");
	CHECK_STR(op_of(l, 3, 1), "z_order");
	loom_spec_list_free(l);

	/* a bad declaration fails the whole step, naming it */
	CHECK_OK(loom_maintain_table(&d, "x.y"));
	CHECK_OK(loom_step_add(step, d));
	CHECK_ERR(loom_step_resolve(&l, step, NULL, cfg), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "declaration 3") != NULL);
	loom_step_free(step);

	CHECK_OK(loom_step_new_dynamic(&step, "by_params", build_for, &calls, NULL));
	CHECK_OK(loom_step_resolve(&l, step, "staging", cfg));
	CHECK_INT(loom_spec_list_count(l), 1);
	CHECK_STR(loom_spec_table_ref(loom_spec_list_at(l, 0)), "staging.orders");
	loom_spec_list_free(l);
	CHECK_OK(loom_step_resolve(&l, step, "raw", cfg));
	CHECK_INT(loom_spec_list_count(l), 3);
	loom_spec_list_free(l);
	CHECK_OK(loom_step_resolve(&l, step, NULL, cfg));
	CHECK_INT(loom_spec_list_count(l), 0);
	loom_spec_list_free(l);
	CHECK_INT(calls, 3);
	loom_step_free(step);
	loom_config_free(cfg);
}

TEST(op_results)
{
	loom_op_result a = LOOM_OP_RESULT_INIT, b = LOOM_OP_RESULT_INIT;
	CHECK_OK(loom_op_result_add_deleted(&a, "x/part-1.parquet"));
	CHECK_OK(loom_op_result_add_deleted(&a, "part-2.parquet"));
	CHECK_INT(a.kind, LOOM_RESULT_VACUUM);
	CHECK_OK(loom_op_result_set_metric(&a, "bytes", 10));
	CHECK_OK(loom_op_result_set_metric(&a, "bytes", 12));   /* replaces */
	CHECK_INT(a.n_metrics, 1);
	CHECK_INT(loom_op_result_metric(&a, "bytes", -1), 12);
	CHECK_INT(loom_op_result_metric(&a, "nope", -1), -1);
	a.dry_run = 1;
	CHECK_OK(loom_op_result_copy(&b, &a));
	loom_op_result_free(&a);
	CHECK_INT(a.n_files_deleted, 0);
	CHECK(a.files_deleted == NULL);
	CHECK_INT(b.n_files_deleted, 2);
	CHECK_STR(b.files_deleted[1], "part-2.parquet");
	CHECK_INT(b.dry_run, 1);
	CHECK_INT(loom_op_result_metric(&b, "bytes", -1), 12);
	loom_op_result_free(&b);
	loom_op_result_free(NULL);
	{
		loom_vacuum_opts v;
		CHECK_OK(loom_vacuum_opts_init(&v, LOOM_VACUUM_OPTS_VERSION));
		CHECK_INT(v.dry_run, 1);
		CHECK_INT(v.retention_hours, LOOM_RETENTION_TABLE_DEFAULT);
		CHECK_ERR(loom_vacuum_opts_init(&v, 99), LOOM_EINVAL);
		v.dry_run = 2;
		CHECK_ERR(loom_vacuum_opts_check(&v), LOOM_EINVAL);
	}
	{
		/* a binding's switch other than 0 / 1 is refused, never read as
		 * "on": every switch of every options struct, named */
		loom_vacuum_opts v;
		loom_compact_opts c;
		loom_zorder_opts z;
		const char *cols[] = { "a" };
		loom_op *op = NULL;
		loom_vacuum_opts_init(&v, LOOM_VACUUM_OPTS_VERSION);
		v.retention_check = 2;
		CHECK_ERR(loom_vacuum_opts_check(&v), LOOM_EINVAL);
		CHECK(strstr(loom_error_last()->message, "vacuum: retention_check must be 0 or 1"));
		CHECK_ERR(loom_op_vacuum(&op, &v), LOOM_EINVAL);
		CHECK(op == NULL);
		v.retention_check = 1;
		v.full = -1;
		CHECK_ERR(loom_vacuum_opts_check(&v), LOOM_EINVAL);
		CHECK(strstr(loom_error_last()->message, "vacuum: full must be 0 or 1, got -1"));
		loom_compact_opts_init(&c, LOOM_COMPACT_OPTS_VERSION);
		c.dry_run = 2;
		CHECK_ERR(loom_compact_opts_check(&c), LOOM_EINVAL);
		CHECK(strstr(loom_error_last()->message, "compact: dry_run must be 0 or 1"));
		loom_zorder_opts_init(&z, LOOM_ZORDER_OPTS_VERSION);
		z.columns = cols;
		z.n_columns = 1;
		z.full = 3;
		CHECK_ERR(loom_zorder_opts_check(&z), LOOM_EINVAL);
		CHECK(strstr(loom_error_last()->message, "z_order_by: full must be 0 or 1"));
	}
}

/* auto decides when vacuum, compaction and Z-order run: one of them
 * declared beside it (before or after, in a declaration or a spec) would
 * run every time, so it is refused, naming auto's options instead. */
TEST(auto_refuses_ops_it_decides)
{
	loom_decl *d;
	loom_spec *s;
	loom_op *a, *v;
	const char *cols[] = { "id" };
	loom_vacuum_opts vo = LOOM_VACUUM_OPTS_INIT;
	loom_auto_opts ao = LOOM_AUTO_OPTS_INIT;

	CHECK_OK(loom_maintain_schema(&d, "raw"));
	CHECK_OK(loom_decl_vacuum(d, NULL));
	CHECK_ERR(loom_decl_auto(d, NULL), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "MaintainSchema('raw'): auto decides") != NULL);
	CHECK(strstr(loom_error_last()->message, "loom_auto_opts.vacuum") != NULL);
	loom_error_clear();
	CHECK_ERR(loom_decl_validate(d), LOOM_EINVAL);   /* sticky */
	loom_decl_free(d);

	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_OK(loom_decl_auto(d, NULL));
	CHECK_ERR(loom_decl_zorder_by(d, cols, 1, 0), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "auto decides") != NULL);
	CHECK_ERR(loom_decl_compact(d, NULL), LOOM_EINVAL);
	loom_decl_free(d);

	/* its settings are fine, and so is a custom op beside it */
	vo.dry_run = 0;
	ao.vacuum = &vo;
	ao.policy.min_small_files = 1;   /* out of range: refused, nothing added */
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_ERR(loom_decl_auto(d, &ao), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "min_small_files") != NULL);
	loom_decl_free(d);
	ao.policy.min_small_files = 10;
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_OK(loom_decl_auto(d, &ao));
	CHECK_OK(loom_decl_validate(d));
	loom_decl_free(d);

	/* the same rule for specs built by hand */
	CHECK_OK(loom_op_auto(&a, &ao));
	CHECK_OK(loom_op_vacuum(&v, &vo));
	CHECK_OK(loom_spec_new(&s, "raw.events"));
	CHECK_OK(loom_spec_add_op(s, a));
	CHECK_ERR(loom_spec_add_op(s, v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "auto decides") != NULL);
	loom_spec_free(s);
}

int main(void)
{
	RUN(op_results);
	RUN(empty_refs_are_errors);
	RUN(builder_rules_are_sticky);
	RUN(table_declaration_keeps_op_order);
	RUN(schema_expands_over_routes_only);
	RUN(spec_rules);
	RUN(steps_static_and_dynamic);
	RUN(auto_refuses_ops_it_decides);
	return test_summary();
}
