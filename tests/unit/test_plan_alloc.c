/* Allocation failures: loading a config and a plan, resolving and running
 * a step, and rendering the report fail cleanly (a negative code, nothing
 * leaked - ASan checks) at every allocation, then succeed. */
#include <string.h>

#include "loom/plan.h"
#include "test.h"
#include "tmpdir.h"
#include "util/alloc.h"

#define RES LOOM_SOURCE_DIR "/tests/resources/config/"

static int ok_vacuum(loom_op_result *out, const loom_maintainer *self, const char *uri,
                     const loom_table_location *loc, const loom_vacuum_opts *o,
                     const loom_cancel *cancel)
{
	(void)self; (void)loc; (void)o; (void)cancel;
	return loom_op_result_add_deleted(out, uri);
}

static int ok_compact(loom_op_result *out, const loom_maintainer *self, const char *uri,
                      const loom_table_location *loc, const loom_compact_opts *o,
                      const loom_cancel *cancel)
{
	(void)self; (void)uri; (void)loc; (void)o; (void)cancel;
	out->kind = LOOM_RESULT_OPTIMIZE;
	return loom_op_result_set_metric(out, "m", 1);
}

static const loom_maintainer M = { 1, "t", ok_vacuum, ok_compact, NULL, NULL, NULL, NULL };

static const char plan_yaml[] =
	"steps:\n  s:\n    - schema: raw\n      vacuum:\n      compact: {target_size: 1MiB}\n";

/* One full pass; returns 0 when everything succeeded. */
static int pass(char *lake)
{
	loom_config *cfg = NULL;
	loom_plan *plan = NULL;
	loom_runner *r = NULL;
	loom_report *rep = NULL;
	char *json = NULL, *text = NULL, *explain = NULL;
	char yaml[4096];
	int rc;

	snprintf(yaml, sizeof(yaml),
	         "storage:\n"
	         "  defaults: {table_path: {uri: %s, storage_options: {api_token: abcdefgh}}}\n"
	         "  tables:\n"
	         "    - {name: raw.events, path: {uri: %s/raw/events}}\n"
	         "    - {name: raw.orders, path: {uri: %s/raw/orders}}\n",
	         lake, lake, lake);
	rc = loom_config_load_string(&cfg, yaml, strlen(yaml), "a.yaml");
	if (rc == 0)
		rc = loom_plan_load_string(&plan, plan_yaml, strlen(plan_yaml), "p.yaml");
	if (rc == 0)
		rc = loom_runner_from_config(&r, cfg, &M, LOOM_MISSING_SKIP);
	if (rc == 0)
		rc = loom_runner_run(&rep, r, loom_plan_step_at(plan, 0), NULL);
	if (rc == 0)
		rc = loom_report_to_json(&json, rep);
	if (rc == 0)
		rc = loom_report_to_text(&text, rep);
	if (rc == 0)
		rc = loom_step_explain(&explain, loom_plan_step_at(plan, 0), NULL, cfg, 0);
	if (rc == 0 && loom_report_count(rep) == 2 && loom_report_has_errors(rep))
		rc = loom_table_result_error_code(loom_report_at(rep, 0))
		         ? loom_table_result_error_code(loom_report_at(rep, 0))
		         : loom_table_result_error_code(loom_report_at(rep, 1));
	loom_string_free(explain);
	loom_string_free(text);
	loom_string_free(json);
	loom_report_free(rep);
	loom_runner_free(r);
	loom_plan_free(plan);
	loom_config_free(cfg);
	return rc;
}

TEST(every_allocation_can_fail)
{
	char *lake = test_mkdtemp("alloc");
	long n;
	int rc = -1;
	REQUIRE(test_sh("set -e; L='%s'; mkdir -p $L/raw; cp -r '%s/delta/simple_table' $L/raw/events;"
	                "cp -r '%s/delta/simple_table' $L/raw/orders; chmod -R u+w $L",
	                lake, LOOM_FIXTURES_DIR, LOOM_FIXTURES_DIR) == 0);
	for (n = 1; n < 5000; n++) {
		loom_alloc_fail_after(n);
		rc = pass(lake);
		if (rc == 0) {
			/* success must mean the pass needed fewer than n allocations
			 * (the armed failure is still pending), not that a failed
			 * allocation was swallowed */
			void *p = loom_malloc(1);
			CHECK(p == NULL);
			loom_free(p);
			loom_alloc_fail_after(0);
			break;
		}
		loom_alloc_fail_after(0);
		/* a failed allocation surfaces as an error: never a crash, never a
		 * half-made object returned as success */
		CHECK(rc < 0);
	}
	CHECK_INT(rc, 0);
	printf("passed after failing each of the first %ld allocations\n", n - 1);
	CHECK(n > 20);   /* the loop really did fail allocations */
	CHECK_INT(pass(lake), 0);
	test_rmtree(lake);
	free(lake);
}

static int config_pass(void)
{
	loom_config *cfg = NULL;
	loom_table_location *loc = NULL;
	char *json = NULL;
	int rc = loom_config_load_file(&cfg, RES "etl_storage.yaml");
	if (rc == 0)
		rc = loom_config_to_json(&json, cfg);
	if (rc == 0)
		rc = loom_config_locate(&loc, cfg, "raw.orders");
	loom_table_location_free(loc);
	loom_string_free(json);
	loom_config_free(cfg);
	return rc;
}

TEST(config_allocations_can_fail)
{
	long n;
	int rc = -1;
	for (n = 1; n < 5000; n++) {
		loom_alloc_fail_after(n);
		rc = config_pass();
		if (rc == 0) {
			void *p = loom_malloc(1);
			CHECK(p == NULL);
			loom_free(p);
			loom_alloc_fail_after(0);
			break;
		}
		loom_alloc_fail_after(0);
		CHECK(rc < 0);
	}
	CHECK_INT(rc, 0);
	CHECK(n > 50);
}

int main(void)
{
	RUN(every_allocation_can_fail);
	RUN(config_allocations_can_fail);
	return test_summary();
}
