/* cli/cmd_convert.c - `loom convert DIR [--config FILE] [--partition-by a,b]
 * [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/metrics.h"
#include "loom/convert.h"

#define MAX_PCOLS 64

static void convert_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom convert DIR [options]\n\n"
	        "CONVERT TO DELTA: make the Parquet files under DIR a Delta table, in place\n"
	        "(schema from the files, statistics from their footers, one commit).\n"
	        "DIR is a path or URI, or with --config a table name like raw.events.\n\n"
	        "  --config FILE        the loom storage YAML that names the table\n"
	        "  --partition-by a,b   the Hive partition directories (a=1/b=x/...), in order\n"
	        "  --json               machine-readable output\n");
}

static void print_result(const char *verb, const char *uri, const loom_op_result *r, int json)
{
	(void)verb;
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(uri);
		printf(",\"version\":%lld,\"num_files\":%lld,\"num_records\":%lld,\"bytes\":%lld}\n",
		       (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_FILES, 0),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_RECORDS, 0),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_BYTES, 0));
	} else {
		printf("%s: converted %lld Parquet files (%lld rows) to a Delta table, version %lld\n", uri,
		       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_FILES, 0),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_RECORDS, 0),
		       (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1));
	}
}

/* What convert's own option fills: its options, the last --partition-by
 * (`list`) and, once a TABLE is given, its columns cut in place. */
typedef struct convert_cli {
	loom_convert_opts opts;
	char *list;
	const char *pcols[MAX_PCOLS];
} convert_cli;

/* convert's own option (a cli_verb_option over a convert_cli). */
static int convert_option(void *ctx, int argc, char **argv, int *i)
{
	convert_cli *c = ctx;
	if (strcmp(argv[*i], "--partition-by") != 0 || *i + 1 >= argc)
		return CLI_ARG_OTHER;
	c->list = argv[++*i];
	return CLI_ARG_TAKEN;
}

/* With a TABLE given: the columns of --partition-by, none of them empty. */
static int convert_check(void *ctx)
{
	convert_cli *c = ctx;
	char *p = c->list, *comma;
	size_t np = 0;

	if (!p)
		return 0;
	for (;;) {
		if (np == MAX_PCOLS) {
			fprintf(stderr, "loom convert: at most %d partition columns\n", MAX_PCOLS);
			return CLI_EXIT_USAGE;
		}
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p) {
			fprintf(stderr, "loom convert: --partition-by has an empty column name\n");
			return CLI_EXIT_USAGE;
		}
		c->pcols[np++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
	c->opts.partition_columns = c->pcols;
	c->opts.n_partition_columns = np;
	return 0;
}

CLI_TABLE_OP(run_convert, loom_convert)

int cmd_convert(int argc, char **argv)
{
	convert_cli c = { .opts = LOOM_CONVERT_OPTS_INIT };
	cli_table_args args = CLI_TABLE_ARGS("convert", convert_usage, convert_option, &c);

	args.check = convert_check;
	return cli_table_main(&args, argc, argv, run_convert, &c.opts, print_result);
}
