/* cli/cmd_analyze.c - `loom analyze TABLE [--columns a,b] [--all] [--dry-run]
 * [--json]`: ANALYZE TABLE ... COMPUTE DELTA STATISTICS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/metrics.h"
#include "loom/ops.h"

#define MAX_COLUMNS 64

static void analyze_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom analyze TABLE [options]\n\n"
	        "COMPUTE DELTA STATISTICS: give live files without statistics, or whose statistics\n"
	        "miss one of the table's stats columns (delta.dataSkippingStatsColumns /\n"
	        "delta.dataSkippingNumIndexedCols), new ones: numRecords, minValues, maxValues,\n"
	        "nullCount, from the Parquet footers where exact, else from a scan of the column.\n"
	        "One commit of metadata-only adds; no data file is written.\n"
	        "TABLE is a path or URI, or with --config a table name like raw.events.\n\n"
	        "  --config FILE        the loom storage YAML that names the table\n"
	        "  --columns A,B        only files whose statistics miss one of these columns\n"
	        "                       (dotted into structs); the stats written always follow\n"
	        "                       the table's stats columns\n"
	        "  --all                recompute every live file's statistics\n"
	        "  --dry-run            list the files that would get statistics, commit nothing\n"
	        "  --json               machine-readable output\n");
}

static void print_result(const char *verb, const char *shown, const loom_op_result *r, int json)
{
	long long version = (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1);
	long long considered = (long long)loom_op_result_metric(r, LOOM_METRIC_TOTAL_CONSIDERED_FILES, 0);
	long long scanned = (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_FILES_SCANNED, 0);
	size_t i;
	(void)verb;
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(shown);
		printf(",\"dry_run\":%s,\"version\":%lld,\"files_considered\":%lld,\"files_analyzed\":%zu,"
		       "\"files_scanned\":%lld,\"files\":[",
		       r->dry_run ? "true" : "false", version, considered, r->n_files_deleted, scanned);
		for (i = 0; i < r->n_files_deleted; i++) {
			if (i)
				putchar(',');
			cli_print_json_string(r->files_deleted[i]);
		}
		printf("]}\n");
		return;
	}
	for (i = 0; i < r->n_files_deleted; i++)
		printf("%s %s\n", r->dry_run ? "would analyze" : "analyzed", r->files_deleted[i]);
	if (r->n_files_deleted == 0)
		printf("%s: nothing to do: the statistics of all %lld files cover the stats columns\n", shown,
		       considered);
	else if (r->dry_run)
		printf("%s: %zu of %lld files would get new statistics\n", shown, r->n_files_deleted, considered);
	else
		printf("%s: new statistics for %zu of %lld files (%lld read a column the footer could not "
		       "answer); version %lld\n", shown, r->n_files_deleted, considered, scanned, version);
}

/* What analyze's own options fill: its options, their columns in `cols`
 * over `list`, the copy of the last --columns they are cut from. */
typedef struct analyze_cli {
	loom_analyze_opts opts;
	const char *cols[MAX_COLUMNS];
	char *list;
} analyze_cli;

/* analyze's own options (a cli_verb_option over an analyze_cli). */
static int analyze_option(void *ctx, int argc, char **argv, int *i)
{
	analyze_cli *c = ctx;
	const char *a = argv[*i];
	size_t nc = 0;
	char *save = NULL, *tok;

	if (strcmp(a, "--all") == 0) {
		c->opts.all = 1;
		return CLI_ARG_TAKEN;
	}
	if (strcmp(a, "--columns") != 0 || *i + 1 >= argc)
		return CLI_ARG_OTHER;
	free(c->list);
	c->list = strdup(argv[++*i]);
	for (tok = c->list ? strtok_r(c->list, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		if (nc == MAX_COLUMNS) {
			fprintf(stderr, "loom analyze: --columns takes at most %d columns\n", MAX_COLUMNS);
			return CLI_EXIT_USAGE;
		}
		c->cols[nc++] = tok;
	}
	if (nc == 0) {
		fprintf(stderr, "loom analyze: --columns needs a list like a,b.c, got '%s'\n", argv[*i]);
		return CLI_EXIT_USAGE;
	}
	c->opts.columns = c->cols;
	c->opts.n_columns = nc;
	return CLI_ARG_TAKEN;
}

CLI_TABLE_OP(run_analyze, loom_analyze)

int cmd_analyze(int argc, char **argv)
{
	analyze_cli c = { .opts = LOOM_ANALYZE_OPTS_INIT };
	cli_table_args args = CLI_TABLE_ARGS("analyze", analyze_usage, analyze_option, &c);
	int rc;

	args.dry_run = &c.opts.dry_run;
	rc = cli_table_main(&args, argc, argv, run_analyze, &c.opts, print_result);
	free(c.list);
	return rc;
}
