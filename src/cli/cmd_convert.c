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

int cmd_convert(int argc, char **argv)
{
	const char *pcols[MAX_PCOLS];
	char *list = NULL;
	size_t np = 0;
	loom_op_result result;
	const char *uri = NULL, *config = NULL;
	cli_table table;
	int json = 0, i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			convert_usage(stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--partition-by") == 0 && i + 1 < argc) {
			list = argv[++i];
		} else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "loom convert: unknown option '%s'\n", a);
			convert_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!uri) {
			uri = a;
		} else {
			fprintf(stderr, "loom convert: one directory at a time (got '%s' and '%s')\n", uri, a);
			return CLI_EXIT_USAGE;
		}
	}
	if (!uri) {
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
	if ((rc = cli_table_resolve(&table, "convert", uri, config)) != 0)
		return rc;
	memset(&result, 0, sizeof(result));
	rc = loom_convert(&result, table.uri, np ? pcols : NULL, np, table.loc);
	uri = table.shown;
	if (rc < 0) {
		cli_print_error("convert");
		loom_op_result_clear(&result);
		cli_table_release(&table);
		return rc == LOOM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
	}
	if (json) {
		printf("{\"table\":");
		cli_print_json_string(uri);
		printf(",\"version\":%lld,\"num_files\":%lld,\"num_records\":%lld,\"bytes\":%lld}\n",
		       (long long)loom_op_result_metric(&result, LOOM_METRIC_VERSION, -1),
		       (long long)loom_op_result_metric(&result, "numFiles", 0),
		       (long long)loom_op_result_metric(&result, "numRecords", 0),
		       (long long)loom_op_result_metric(&result, "numBytes", 0));
	} else {
		printf("%s: converted %lld Parquet files (%lld rows) to a Delta table, version %lld\n", uri,
		       (long long)loom_op_result_metric(&result, "numFiles", 0),
		       (long long)loom_op_result_metric(&result, "numRecords", 0),
		       (long long)loom_op_result_metric(&result, LOOM_METRIC_VERSION, -1));
	}
	loom_op_result_clear(&result);
	cli_table_release(&table);
	return CLI_EXIT_OK;
}
