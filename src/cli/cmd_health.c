/* cli/cmd_health.c - `loom health` and `loom advise`: what a table (or every
 * table of a storage YAML) needs, from its log alone. Both only read. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/auto.h"
#include "loom/health.h"
#include "loom/observe.h"
#include "loom/plan.h"

typedef struct health_args {
	const char *table, *config;
	int json;
	size_t jobs;               /* --config: tables read at once (--jobs) */
	int metrics;               /* -1: off, else LOOM_METRICS_* (--format) */
	loom_run_record *record;   /* the tables' health, for --format metrics */
	loom_health_policy policy;
} health_args;

static void health_usage(FILE *o, const char *verb)
{
	fprintf(o,
	        "usage: loom %s TABLE [--config FILE] [--json | --format F] [policy options]\n"
	        "       loom %s --config FILE [--jobs N] [--json | --format F] [policy options]\n"
	        "            (every table of the YAML; --jobs N: N tables read at once, each\n"
	        "            printed when read; default 1, in the YAML's order; 0 = CPUs)\n"
	        "--format text (default), json (= --json), openmetrics or prometheus (the\n"
	        "health gauges as metrics text; docs/observability.md)\n"
	        "\n"
	        "%s\n"
	        "Reads the log only (no data file). With --config, the policy is the YAML's\n"
	        "maintenance.auto (and its z_order_by columns); these options change it\n"
	        "(docs/health.md):\n"
	        "  --target-size S  --min-small-files N  --dv-purge-ratio R  --min-dv-files N\n"
	        "  --max-clustering-depth D  --checkpoint-commits N  --checkpoint-json-bytes S\n"
	        "  --min-vacuum-files N  --min-expired-logs N  --min-files-without-stats N\n"
	        "  --zorder-columns a,b\n",
	        verb, verb,
	        strcmp(verb, "health") == 0
	                ? "Per table and partition: files, bytes, size histogram, small files,\n"
	                  "deletion vectors, tombstones, log since the checkpoint, clustering depth."
	                : "What the policy recommends for each table, with the figure that decided;\n"
	                  "changes nothing.");
}

static int num(const char *verb, const char *opt, const char *v, int64_t *out)
{
	if (loom_size_parse(out, v) < 0) {
		fprintf(stderr, "loom %s: %s takes a number, not '%s'\n", verb, opt, v);
		return -1;
	}
	return 0;
}

static int ratio(const char *verb, const char *opt, const char *v, double *out)
{
	char *end;
	*out = strtod(v, &end);
	if (!*v || *end) {
		fprintf(stderr, "loom %s: %s takes a number, not '%s'\n", verb, opt, v);
		return -1;
	}
	return 0;
}

static char *zcols_buf;
static const char *zcols[64];

/* `base`: the policy the options change (the YAML's, else the defaults). */
static int parse(int argc, char **argv, const char *verb, const loom_health_policy *base,
                 health_args *a)
{
	int i;
	memset(a, 0, sizeof(*a));
	a->jobs = 1;
	a->metrics = -1;
	a->policy = *base;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			health_usage(stdout, verb);
			return 1;
		} else if (!strcmp(o, "--json")) {
			a->json = 1;
			continue;
		} else if (o[0] != '-') {
			if (a->table) {
				fprintf(stderr, "loom %s: one TABLE only ('%s')\n", verb, o);
				return -1;
			}
			a->table = o;
			continue;
		}
		if (!v) {
			fprintf(stderr, "loom %s: %s needs a value\n", verb, o);
			return -1;
		}
		i++;
		if (!strcmp(o, "--config"))
			a->config = v;
		else if (!strcmp(o, "--jobs")) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			if (!*v || *end || n > 256 || v[0] == '-') {
				fprintf(stderr, "loom %s: --jobs takes 0..256, not '%s'\n", verb, v);
				return -1;
			}
			a->jobs = (size_t)n;
		}
		else if (!strcmp(o, "--format")) {
			a->json = !strcmp(v, "json");
			a->metrics = !strcmp(v, "openmetrics")  ? LOOM_METRICS_OPENMETRICS
			             : !strcmp(v, "prometheus") ? LOOM_METRICS_PROMETHEUS : -1;
			if (!a->json && a->metrics < 0 && strcmp(v, "text") != 0) {
				fprintf(stderr, "loom %s: --format is text, json, openmetrics or prometheus, "
				                "not '%s'\n", verb, v);
				return -1;
			}
		}
		else if (!strcmp(o, "--target-size"))
			rc = num(verb, o, v, &a->policy.target_size);
		else if (!strcmp(o, "--min-small-files"))
			rc = num(verb, o, v, &a->policy.min_small_files);
		else if (!strcmp(o, "--dv-purge-ratio"))
			rc = ratio(verb, o, v, &a->policy.dv_purge_ratio);
		else if (!strcmp(o, "--min-dv-files"))
			rc = num(verb, o, v, &a->policy.min_dv_files);
		else if (!strcmp(o, "--max-clustering-depth"))
			rc = ratio(verb, o, v, &a->policy.max_clustering_depth);
		else if (!strcmp(o, "--checkpoint-commits"))
			rc = num(verb, o, v, &a->policy.checkpoint_commits);
		else if (!strcmp(o, "--checkpoint-json-bytes"))
			rc = num(verb, o, v, &a->policy.checkpoint_json_bytes);
		else if (!strcmp(o, "--min-vacuum-files"))
			rc = num(verb, o, v, &a->policy.min_vacuum_files);
		else if (!strcmp(o, "--min-expired-logs"))
			rc = num(verb, o, v, &a->policy.min_expired_logs);
		else if (!strcmp(o, "--min-files-without-stats"))
			rc = num(verb, o, v, &a->policy.min_files_without_stats);
		else if (!strcmp(o, "--zorder-columns")) {
			char *save = NULL, *tok;
			size_t n = 0;
			free(zcols_buf);
			if (!(zcols_buf = strdup(v)))
				return -1;
			for (tok = strtok_r(zcols_buf, ",", &save); tok && n < 64; tok = strtok_r(NULL, ",", &save))
				zcols[n++] = tok;
			a->policy.zorder_columns = zcols;
			a->policy.n_zorder_columns = n;
		} else {
			fprintf(stderr, "loom %s: unknown option '%s'\n", verb, o);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	if (!a->table && !a->config) {
		fprintf(stderr, "loom %s: give a TABLE or --config FILE\n", verb);
		return -1;
	}
	if (loom_health_policy_check(&a->policy) < 0) {
		cli_print_error(verb);
		return -1;
	}
	return 0;
}

static void print_human(const char *shown, const loom_health *h, int advice_only)
{
	const loom_health_table *t = loom_health_summary(h);
	size_t i;
	char b[32], sb[32];
	printf("%s (version %lld)\n", shown, (long long)t->version);
	if (!advice_only) {
		loom_size_format(b, sizeof(b), t->files.bytes);
		loom_size_format(sb, sizeof(sb), t->files.small_bytes);
		printf("  files %lld (%s) in %lld partition(s); small %lld (%s); without stats %lld\n",
		       (long long)t->files.files, b, (long long)t->num_partitions,
		       (long long)t->files.small_files, sb, (long long)t->files.files_without_stats);
		printf("  deletion vectors: %lld files, %lld rows deleted, %lld above the purge ratio\n",
		       (long long)t->files.dv_files, (long long)t->files.dv_deleted_rows,
		       (long long)t->files.dv_purge_files);
		printf("  tombstones: %lld past the retention (%lld since the last vacuum), %lld within\n",
		       (long long)t->tombstones_expired, (long long)t->tombstones_unvacuumed,
		       (long long)t->tombstones_retained);
		printf("  log: %lld commits since the checkpoint, %lld JSON bytes, %lld expired files\n",
		       (long long)t->commits_since_checkpoint, (long long)t->json_bytes_since_checkpoint,
		       (long long)t->expired_log_files);
		for (i = 0; i < t->n_columns; i++)
			printf("  clustering (%s) '%s': depth %.2f over %lld files\n", t->clustering_source,
			       t->columns[i].column, t->columns[i].depth, (long long)t->columns[i].files);
	}
	for (i = 0; i < loom_health_advice_count(h); i++) {
		const loom_advice *a = loom_health_advice_at(h, i);
		printf("  %-12s %s: %s\n", a->op, a->recommended ? "RECOMMENDED" : "not needed",
		       a->reason);
	}
}

/* Print (or record) one table's health: 0 ok, 1 failed (reported). */
static int emit(const health_args *a, const char *verb, const char *name, const char *shown,
                const loom_health *h)
{
	char *json = NULL;
	if (a->record) {
		if (loom_run_record_set_health(a->record, name, shown, LOOM_HEALTH_AFTER, h) < 0) {
			cli_print_error(verb);
			return 1;
		}
		return 0;
	}
	if (a->json) {
		int what = !strcmp(verb, "health") ? LOOM_HEALTH_JSON_HEALTH | LOOM_HEALTH_JSON_ADVICE
		                                   : LOOM_HEALTH_JSON_ADVICE;
		if (loom_health_to_json(&json, h, shown, what) < 0) {
			cli_print_error(verb);
			return 1;
		}
		printf("%s\n", json);
		loom_string_free(json);
	} else {
		print_human(shown, h, strcmp(verb, "advise") == 0);
	}
	return 0;
}

/* One table (`name`: how metrics label it): 0 ok, 1 failed (reported). */
static int one(const health_args *a, const char *verb, const char *name, const char *uri,
               const char *shown, const loom_table_location *loc)
{
	loom_health *h = NULL;
	int failed;
	if (loom_health_load(&h, uri, loc, &a->policy) < 0) {
		cli_print_error(verb);
		return 1;
	}
	failed = emit(a, verb, name, shown, h);
	loom_health_free(h);
	return failed;
}

/* ---- every table of the YAML ----------------------------------------------
 * Each table's health is a custom operation the runner runs on its pool
 * (--jobs N tables at once on the library's threads; in the YAML's order
 * with one). A table is read outside the lock and printed under it as soon
 * as it is read, then freed: memory follows the jobs, not the lake. */
typedef struct health_lake {
	const health_args *a;
	const char *verb;
	const loom_config *cfg;
	pthread_mutex_t lock;   /* stdout and the metrics record */
	int failed;
} health_lake;

typedef struct health_table {
	health_lake *lake;
	char *name;
} health_table;

static void health_table_free(void *payload)
{
	health_table *t = payload;
	free(t->name);
	free(t);
}

static int health_table_op(loom_op_result *out, const loom_maintainer *m, const char *uri,
                           const loom_table_location *loc, const loom_cancel *cancel,
                           void *payload)
{
	health_table *t = payload;
	health_lake *l = t->lake;
	loom_health *h = NULL;
	char shown[1024];
	int rc;
	(void)out;
	(void)m;
	(void)cancel;
	rc = loom_health_load(&h, uri, loc, &l->a->policy);
	if (rc < 0)
		return rc;   /* in the report: printed with the runner's own failures */
	loom_config_mask(shown, sizeof(shown), l->cfg, uri);
	pthread_mutex_lock(&l->lock);
	if (!l->a->json && !l->a->record)
		printf("%s: ", t->name);
	l->failed |= emit(l->a, l->verb, t->name, shown, h);
	pthread_mutex_unlock(&l->lock);
	loom_health_free(h);
	return 0;
}

/* The declaration: every path route of the YAML, one health op each. */
static int health_tables(loom_spec_list *out, const loom_config *cfg, void *payload)
{
	size_t i;
	for (i = 0; i < loom_config_table_count(cfg); i++) {
		health_table *t;
		loom_spec *spec = NULL;
		loom_op *op = NULL;
		int rc;
		if (!loom_config_table_has_path_at(cfg, i))
			continue;
		t = calloc(1, sizeof(*t));
		if (!t || !(t->name = strdup(loom_config_table_name_at(cfg, i)))) {
			free(t);
			return loom_error_set(LOOM_ENOMEM, LOOM_ERRCLASS_USER, "out of memory");
		}
		t->lake = payload;
		if ((rc = loom_op_new(&op, "health", health_table_op, t, health_table_free)) < 0) {
			health_table_free(t);
			return rc;
		}
		if ((rc = loom_spec_new(&spec, t->name)) < 0) {
			loom_op_free(op);
			return rc;
		}
		if ((rc = loom_spec_add_op(spec, op)) < 0 || (rc = loom_spec_list_add(out, spec)) < 0)
			return rc;
	}
	return 0;
}

/* 0 every table read; 1 one failed (its error printed); -1 the run could
 * not start (printed). */
static int every_table(const health_args *a, const char *verb, const loom_config *cfg)
{
	health_lake lake = { a, verb, cfg, PTHREAD_MUTEX_INITIALIZER, 0 };
	loom_step *step = NULL;
	loom_decl *decl = NULL;
	loom_runner *runner = NULL;
	loom_report *report = NULL;
	size_t i;
	int rc = -1;
	if (loom_step_new(&step, verb) < 0 ||
	    loom_decl_new(&decl, health_tables, &lake, NULL) < 0 || loom_step_add(step, decl) < 0 ||
	    loom_runner_from_config(&runner, cfg, NULL, LOOM_MISSING_ERROR) < 0 ||
	    loom_runner_set_jobs(runner, a->jobs) < 0 || loom_runner_run(&report, runner, step, NULL) < 0) {
		cli_print_error(verb);
		goto out;
	}
	for (i = 0; i < loom_report_count(report); i++) {
		const loom_table_result *t = loom_report_at(report, i);
		if (loom_table_result_ok(t))
			continue;
		fprintf(stderr, "loom: %s: %s: %s (%s)\n", verb, loom_table_result_ref(t),
		        loom_table_result_error_message(t),
		        loom_error_code_name(loom_table_result_error_code(t)));
		lake.failed = 1;
	}
	rc = lake.failed;
out:
	loom_report_free(report);
	loom_runner_free(runner);
	loom_step_free(step);
	return rc;
}

/* With --config, the policy starts as the maintenance block's auto:
 * policy and its z_order_by columns (what `loom maintain` would judge
 * by); the options given change it. *cfg is kept for the columns. */
static int yaml_policy(int argc, char **argv, const char *verb, loom_config **cfg,
                       loom_health_policy *base)
{
	loom_auto_opts ao;
	int i;
	loom_health_policy_init(base, LOOM_HEALTH_POLICY_VERSION);
	*cfg = NULL;
	for (i = 1; i + 1 < argc && strcmp(argv[i], "--config") != 0; i++)
		;
	if (i + 1 >= argc)
		return 0;
	if (loom_config_load_file(cfg, argv[i + 1]) < 0) {
		cli_print_error(verb);
		return -1;
	}
	if (loom_config_maintenance_auto(&ao, *cfg) >= 0) {
		*base = ao.policy;
		if (ao.zorder) {
			base->zorder_columns = ao.zorder->columns;
			base->n_zorder_columns = ao.zorder->n_columns;
		}
	}
	return 0;
}

static int run(int argc, char **argv, const char *verb)
{
	health_args a;
	cli_table t;
	loom_health_policy base;
	loom_config *yaml = NULL;
	int rc, failed = 0;
	if (yaml_policy(argc, argv, verb, &yaml, &base) < 0)
		return CLI_EXIT_USAGE;
	rc = parse(argc, argv, verb, &base, &a);
	if (rc != 0) {
		free(zcols_buf);
		loom_config_free(yaml);
		return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (a.metrics >= 0 && loom_run_record_new(&a.record, NULL, 0, 0) < 0) {
		cli_print_error(verb);
		loom_config_free(yaml);
		return CLI_EXIT_FAILED;
	}
	if (a.table) {
		if ((rc = cli_table_resolve(&t, verb, a.table, a.config)) != 0) {
			loom_run_record_free(a.record);
			loom_config_free(yaml);
			return rc;
		}
		failed = one(&a, verb, t.shown, t.uri, t.shown, t.loc);
		cli_table_release(&t);
	} else {
		loom_config *cfg = NULL;
		if (loom_config_load_file(&cfg, a.config) < 0) {
			cli_print_error(verb);
			loom_config_free(yaml);
			loom_run_record_free(a.record);
			return CLI_EXIT_USAGE;
		}
		failed = every_table(&a, verb, cfg) != 0;
		loom_config_free(cfg);
	}
	free(zcols_buf);
	zcols_buf = NULL;
	loom_config_free(yaml);
	if (a.record) {
		char *text = NULL;
		if (loom_run_record_to_metrics(&text, a.record, a.metrics) < 0) {
			cli_print_error(verb);
			failed = 1;
		} else {
			fputs(text, stdout);
			loom_string_free(text);
		}
		loom_run_record_free(a.record);
	}
	return failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

int cmd_health(int argc, char **argv)
{
	return run(argc, argv, "health");
}

int cmd_advise(int argc, char **argv)
{
	return run(argc, argv, "advise");
}
