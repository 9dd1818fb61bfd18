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

CLI_TABLE_OP(run_convert, loom_convert)

int cmd_convert(int argc, char **argv)
{
	loom_convert_opts copts = LOOM_CONVERT_OPTS_INIT;
	cli_table_args args = CLI_TABLE_ARGS("convert", convert_usage);
	const char *pcols[MAX_PCOLS];
	char *list = NULL;
	size_t np = 0;
	cli_table table;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--partition-by") == 0 && i + 1 < argc)
			list = argv[++i];
		else if ((rc = cli_table_arg(&args, argc, argv, &i)) != CLI_ARG_TAKEN)
			return rc;
	}
	if (!args.table) {
		convert_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (list) {
		char *p = list, *comma;
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
			pcols[np++] = p;
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	if ((rc = cli_table_args_end(&args, &table)) != 0)
		return rc;
	copts.partition_columns = np ? pcols : NULL;
	copts.n_partition_columns = np;
	return cli_table_run(&table, &args, run_convert, &copts, print_result);
}
