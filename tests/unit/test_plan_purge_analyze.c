/* purge and analyze as plan operations (issue 32 part 3): the ops and
 * builders, dispatch through a version-2 maintainer and refusal by a
 * version-1 one, the storage YAML's maintenance block and plan files
 * (bad values refused at file:line naming the key), explain, and the
 * report's phrases. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "loom/metrics.h"
#include "loom/plan.h"
#include "test.h"

typedef struct seen {
	int purges, analyzes;
	char filter[64];
	char column[64];
	int all, dry_run;
} seen;
static seen S;

static int r_purge(loom_op_result *out, const loom_maintainer *self, const char *uri,
                   const loom_table_location *loc, const loom_purge_opts *o, const loom_cancel *c)
{
	(void)self; (void)uri; (void)loc; (void)c;
	S.purges++;
	S.dry_run = o->dry_run;
	snprintf(S.filter, sizeof(S.filter), "%s", o->n_partition_filters ? o->partition_filters[0] : "");
	out->kind = LOOM_RESULT_OPTIMIZE;
	out->num_files_removed = 3;
	out->num_files_added = 1;
	loom_op_result_set_metric(out, LOOM_METRIC_NUM_ROWS_PURGED, 7);
	return 0;
}

static int r_analyze(loom_op_result *out, const loom_maintainer *self, const char *uri,
                     const loom_table_location *loc, const loom_analyze_opts *o,
                     const loom_cancel *c)
{
	(void)self; (void)uri; (void)loc; (void)c;
	S.analyzes++;
	S.all = o->all;
	snprintf(S.column, sizeof(S.column), "%s", o->n_columns ? o->columns[0] : "");
	out->kind = LOOM_RESULT_OPTIMIZE;
	loom_op_result_set_metric(out, LOOM_METRIC_NUM_FILES_ANALYZED, 4);
	loom_op_result_set_metric(out, LOOM_METRIC_NUM_FILES_SCANNED, 2);
	return 0;
}

static const loom_maintainer V2 = { LOOM_MAINTAINER_VERSION, "rec2", NULL, NULL, NULL, NULL,
	                            r_purge, r_analyze };
/* a maintainer built against version 1: it has no purge / analyze members,
 * and the library must not read past `payload` */
static const loom_maintainer V1 = { 1, "old", NULL, NULL, NULL, NULL, NULL, NULL };

TEST(ops_copy_their_options_and_dispatch)
{
	char f[16] = "d=1", col[16] = "a.b";
	const char *fv[] = { f };
	const char *cv[] = { col };
	loom_purge_opts p = LOOM_PURGE_OPTS_INIT;
	loom_analyze_opts a = LOOM_ANALYZE_OPTS_INIT;
	loom_op *op = NULL, *op2 = NULL;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	memset(&S, 0, sizeof(S));
	p.partition_filters = fv;
	p.n_partition_filters = 1;
	p.dry_run = 1;
	a.columns = cv;
	a.n_columns = 1;
	a.all = 1;
	CHECK_OK(loom_op_purge(&op, &p));
	CHECK_OK(loom_op_analyze(&op2, &a));
	CHECK_STR(loom_op_name(op), "purge");
	CHECK_STR(loom_op_name(op2), "analyze");
	strcpy(f, "zz");      /* the ops hold copies */
	strcpy(col, "zz");
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(loom_op_execute(&r, op, &V2, "/t", NULL, NULL));
	CHECK_STR(S.filter, "d=1");
	CHECK_INT(S.dry_run, 1);
	CHECK_INT(loom_op_result_metric(&r, LOOM_METRIC_NUM_ROWS_PURGED, -1), 7);
	loom_op_result_free(&r);
	CHECK_OK(loom_op_execute(&r, op2, &V2, "/t", NULL, NULL));
	CHECK_STR(S.column, "a.b");
	CHECK_INT(S.all, 1);
	loom_op_result_free(&r);
	/* version 1: refused, naming the maintainer and the op */
	CHECK_ERR(loom_op_execute(&r, op, &V1, "/t", NULL, NULL), LOOM_EUNSUPPORTED);
	CHECK(strstr(loom_error_last()->message, "'old'") && strstr(loom_error_last()->message, "purge"));
	CHECK_ERR(loom_op_execute(&r, op2, &V1, "/t", NULL, NULL), LOOM_EUNSUPPORTED);
	CHECK_INT(S.purges, 1);
	CHECK_INT(S.analyzes, 1);
	loom_op_result_free(&r);
	loom_op_free(op);
	loom_op_free(op2);
	/* NULL = defaults; bad options refused */
	CHECK_OK(loom_op_purge(&op, NULL));
	loom_op_free(op);
	p.target_size = -1;
	CHECK_ERR(loom_op_purge(&op, &p), LOOM_EINVAL);
	CHECK(op == NULL);
	p.version = 0;
	CHECK_ERR(loom_op_purge(&op, &p), LOOM_EINVAL);
	a.version = 0;
	CHECK_ERR(loom_op_analyze(&op, &a), LOOM_EINVAL);
}

TEST(builders_and_rules)
{
	loom_decl *d = NULL;
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_OK(loom_decl_compact(d, NULL));
	CHECK_OK(loom_decl_purge(d, NULL));
	CHECK_OK(loom_decl_analyze(d, NULL));
	CHECK_OK(loom_decl_validate(d));
	CHECK_ERR(loom_decl_purge(d, NULL), LOOM_EINVAL);   /* twice */
	CHECK(strstr(loom_error_last()->message, "'purge' is scheduled twice"));
	CHECK_ERR(loom_decl_validate(d), LOOM_EINVAL);       /* sticky */
	loom_decl_free(d);
}

static const char yaml_ok[] =
	"storage:\n"
	"  tables:\n"
	"    - {name: raw.events, path: {uri: /lake/raw/events}}\n"
	"  maintenance:\n"
	"    schemas: [raw]\n"
	"    vacuum: {retention_hours: 200}\n"
	"    purge: {partition: [d=1], target_size: 64MiB}\n"
	"    analyze: {columns: [a, b.c], all: true}\n";

TEST(maintenance_block_runs_purge_and_analyze)
{
	loom_config *cfg = NULL;
	loom_step *st = NULL;
	char *text = NULL, *json = NULL;
	CHECK_OK(loom_config_load_string(&cfg, yaml_ok, sizeof(yaml_ok) - 1, "m.yaml"));
	CHECK_OK(loom_step_from_config(&st, cfg));
	CHECK_OK(loom_step_explain(&text, st, NULL, cfg, 0));
	/* the block's order: vacuum, (compact / z_order_by), purge, analyze */
	CHECK(strstr(text, "vacuum retention=200h"));
	CHECK(strstr(text, "purge partition=d=1 target_size=67108864\n"));
	CHECK(strstr(text, "analyze columns=a,b.c all\n"));
	CHECK(strstr(text, "vacuum") < strstr(text, "purge") && strstr(text, "purge") < strstr(text, "analyze"));
	CHECK_OK(loom_step_explain(&json, st, NULL, cfg, 1));
	CHECK(strstr(json, "\"partition\": [\n"));
	CHECK(strstr(json, "\"all\": true"));
	loom_string_free(text);
	loom_string_free(json);
	CHECK_OK(loom_config_to_json(&json, cfg));
	CHECK(strstr(json, "\"purge\"") && strstr(json, "\"analyze\""));
	loom_string_free(json);
	loom_step_free(st);
	loom_config_free(cfg);
}

TEST(maintenance_block_forms)
{
	static const char *const ok[] = {
		"storage:\n  maintenance:\n    purge: true\n    analyze: true\n",
		"storage:\n  maintenance:\n    purge:\n    analyze:\n",
		"storage:\n  maintenance:\n    purge: false\n    analyze: {}\n",
	};
	static const int purge_on[] = { 1, 1, 0 };
	size_t i;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		loom_config *cfg = NULL;
		char *json = NULL;
		CHECK_OK(loom_config_load_string(&cfg, ok[i], strlen(ok[i]), "f.yaml"));
		CHECK_OK(loom_config_to_json(&json, cfg));
		CHECK_INT(strstr(json, "\"purge\"") != NULL, purge_on[i]);
		CHECK(strstr(json, "\"analyze\"") != NULL);
		loom_string_free(json);
		loom_config_free(cfg);
	}
}

/* Each bad value: refused at its line, naming the key. */
TEST(bad_values_name_the_key_and_line)
{
	static const struct { const char *yaml, *want; } bad[] = {
		{ "storage:\n  maintenance:\n    purge: please\n", "f.yaml:3:" },
		{ "storage:\n  maintenance:\n    purge: {partitions: [d=1]}\n", "partitions" },
		{ "storage:\n  maintenance:\n\n    purge:\n      partition: [nope]\n", "f.yaml:5:" },
		{ "storage:\n  maintenance:\n    purge: {partition: d=1}\n", "maintenance.purge.partition" },
		{ "storage:\n  maintenance:\n    purge: {target_size: huge}\n", "maintenance.purge.target_size" },
		{ "storage:\n  maintenance:\n    purge: {dry_run: 2}\n", "maintenance.purge.dry_run" },
		{ "storage:\n  maintenance:\n    analyze: {all: maybe}\n", "maintenance.analyze.all" },
		{ "storage:\n  maintenance:\n    analyze: {columns: [a, a]}\n", "listed twice" },
		{ "storage:\n  maintenance:\n    analyze: {columns: [\"\"]}\n", "maintenance.analyze.columns" },
		{ "storage:\n  maintenance:\n    analyze: [a]\n", "maintenance.analyze" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		loom_config *cfg = NULL;
		int rc = loom_config_load_string(&cfg, bad[i].yaml, strlen(bad[i].yaml), "f.yaml");
		CHECK(rc < 0);
		CHECK(cfg == NULL);
		if (rc < 0 && !strstr(loom_error_last()->message, bad[i].want)) {
			fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, loom_error_last()->message, bad[i].want);
			CHECK(0);
		}
		if (rc < 0)
			CHECK(strstr(loom_error_last()->message, "f.yaml:"));
	}
}

TEST(plan_file_declares_purge_and_analyze)
{
	static const char plan[] =
		"steps:\n"
		"  nightly:\n"
		"    - table: raw.events\n"
		"      purge: {partition: [d=1]}\n"
		"      analyze:\n"
		"    - schema: raw\n"
		"      auto: {}\n"
		"      compact: {target_size: 1MiB}\n"
		"      analyze: {all: true}\n";
	static const char badplan[] =
		"steps:\n"
		"  s:\n"
		"    - table: raw.events\n"
		"      analyze: {all: yes please}\n";
	loom_config *cfg = NULL;
	loom_plan *p = NULL;
	char *text = NULL;
	CHECK_OK(loom_config_load_string(&cfg, yaml_ok, sizeof(yaml_ok) - 1, "m.yaml"));
	CHECK_OK(loom_plan_load_string(&p, plan, sizeof(plan) - 1, "p.yaml"));
	CHECK_OK(loom_step_explain(&text, loom_plan_step(p, "nightly"), NULL, cfg, 0));
	CHECK(strstr(text, "    purge partition=d=1\n    analyze\n"));
	/* beside auto, purge / analyze are ops of their own (not auto's settings) */
	CHECK(strstr(text, "    auto ") && strstr(text, "    analyze all\n"));
	loom_string_free(text);
	loom_plan_free(p);
	p = NULL;
	CHECK(loom_plan_load_string(&p, badplan, sizeof(badplan) - 1, "p.yaml") < 0);
	CHECK(strstr(loom_error_last()->message, "p.yaml:4:") &&
	      strstr(loom_error_last()->message, "analyze.all"));
	loom_config_free(cfg);
}

TEST(report_text_phrases)
{
	static const char yaml[] =
		"storage:\n"
		"  tables:\n"
		"    - {name: raw.events, path: {uri: " LOOM_BINARY_DIR "/p3-plan-table}}\n";
	loom_config *cfg = NULL;
	loom_runner *r = NULL;
	loom_step *st = NULL;
	loom_decl *d = NULL;
	loom_report *rep = NULL;
	char *text = NULL, *json = NULL;
	FILE *f;
	/* the runner only looks for _delta_log; the recording maintainer reads nothing */
	mkdir(LOOM_BINARY_DIR "/p3-plan-table", 0755);
	mkdir(LOOM_BINARY_DIR "/p3-plan-table/_delta_log", 0755);
	if ((f = fopen(LOOM_BINARY_DIR "/p3-plan-table/_delta_log/00000000000000000000.json", "w")))
		fclose(f);
	memset(&S, 0, sizeof(S));
	CHECK_OK(loom_config_load_string(&cfg, yaml, sizeof(yaml) - 1, "r.yaml"));
	CHECK_OK(loom_runner_from_config(&r, cfg, &V2, LOOM_MISSING_SKIP));
	CHECK_OK(loom_step_new(&st, "s"));
	CHECK_OK(loom_maintain_table(&d, "raw.events"));
	CHECK_OK(loom_decl_purge(d, NULL));
	CHECK_OK(loom_decl_analyze(d, NULL));
	CHECK_OK(loom_step_add(st, d));
	CHECK_OK(loom_runner_run(&rep, r, st, NULL));
	CHECK_INT(loom_report_has_errors(rep), 0);
	CHECK_INT(S.purges, 1);
	CHECK_INT(S.analyzes, 1);
	CHECK_OK(loom_report_to_text(&text, rep));
	CHECK(strstr(text, "purge: 3 files -> 1 file, 7 deleted rows purged; "
	                   "analyze: computed statistics of 4 files (2 scanned)"));
	CHECK_OK(loom_report_to_json(&json, rep));
	CHECK(strstr(json, "\"numRowsPurged\": 7") && strstr(json, "\"numFilesAnalyzed\": 4"));
	loom_string_free(text);
	loom_string_free(json);
	loom_report_free(rep);
	loom_runner_free(r);
	/* a version-1 maintainer still drives a runner; its purge fails cleanly */
	CHECK_OK(loom_runner_from_config(&r, cfg, &V1, LOOM_MISSING_SKIP));
	CHECK_OK(loom_runner_run(&rep, r, st, NULL));
	CHECK_INT(loom_table_result_error_code(loom_report_at(rep, 0)), LOOM_EUNSUPPORTED);
	CHECK_STR(loom_table_result_failed_op(loom_report_at(rep, 0)), "purge");
	loom_report_free(rep);
	loom_runner_free(r);
	loom_config_free(cfg);
	loom_step_free(st);
}

int main(void)
{
	RUN(ops_copy_their_options_and_dispatch);
	RUN(builders_and_rules);
	RUN(maintenance_block_runs_purge_and_analyze);
	RUN(maintenance_block_forms);
	RUN(bad_values_name_the_key_and_line);
	RUN(plan_file_declares_purge_and_analyze);
	RUN(report_text_phrases);
	return test_summary();
}
