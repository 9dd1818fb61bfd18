/* cli/cmd_purge.c - `loom purge TABLE [--partition k=v]... [--target-size S]
 * [--dry-run] [--json]`: REORG TABLE ... APPLY (PURGE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/metrics.h"
#include "loom/ops.h"

static void purge_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom purge TABLE [options]\n\n"
	        "REORG ... APPLY (PURGE): rewrite every file that has a deletion vector without\n"
	        "its deleted rows, whatever share of its rows the vector deletes, in one commit\n"
	        "that changes no data (row ids kept). The old files stay on storage for the\n"
	        "table's history: the deleted rows are physically gone only once a vacuum after\n"
	        "the retention (`loom vacuum TABLE --no-dry-run`) has removed them.\n"
	        "TABLE is a path or URI, or with --config a table name like raw.events.\n\n"
	        "  --config FILE        the loom storage YAML that names the table\n"
	        "  --partition K=V      only partitions where column K has value V (repeatable)\n"
	        "  --target-size SIZE   most bytes a new file holds (default as compact)\n"
	        "  --dry-run            list the files that would be purged, write nothing\n"
	        "  --json               machine-readable output\n");
}

static void print_json(const char *shown, const loom_op_result *r)
{
	size_t i;
	printf("{\"table\":");
	cli_print_json_string(shown);
	printf(",\"dry_run\":%s,\"version\":%lld,\"files_purged\":%zu,\"rows_purged\":%lld,"
	       "\"files_added\":%lld,\"bytes_removed\":%lld,\"bytes_added\":%lld,\"files\":[",
	       r->dry_run ? "true" : "false", (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1),
	       r->n_files_deleted, (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_ROWS_PURGED, 0),
	       (long long)r->num_files_added,
	       (long long)loom_op_result_metric(r, LOOM_METRIC_FILES_REMOVED_TOTAL_SIZE, 0),
	       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_ADDED_BYTES, 0));
	for (i = 0; i < r->n_files_deleted; i++) {
		if (i)
			putchar(',');
		cli_print_json_string(r->files_deleted[i]);
	}
	printf("]}\n");
}

static void print_result(const char *verb, const char *shown, const loom_op_result *r, int json)
{
	long long version = (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1);
	long long rows = (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_ROWS_PURGED, 0);
	size_t i;
	(void)verb;
	if (json) {
		print_json(shown, r);
		return;
	}
	for (i = 0; i < r->n_files_deleted; i++)
		printf("%s %s\n", r->dry_run ? "would purge" : "purged", r->files_deleted[i]);
	if (r->n_files_deleted == 0)
		printf("%s: nothing to purge: no live file has a deletion vector\n", shown);
	else if (r->dry_run)
		printf("%s: would rewrite %zu files with deletion vectors, dropping %lld deleted rows\n", shown,
		       r->n_files_deleted, rows);
	else
		printf("%s: rewrote %zu files with deletion vectors into %lld files, dropping %lld deleted rows; "
		       "version %lld. The old files go with the next vacuum after the retention.\n",
		       shown, r->n_files_deleted, (long long)r->num_files_added, rows, version);
}

CLI_TABLE_OP(run_purge, loom_purge)

int cmd_purge(int argc, char **argv)
{
	loom_purge_opts opts = LOOM_PURGE_OPTS_INIT;
	cli_table_args args = CLI_TABLE_ARGS("purge", purge_usage, NULL, NULL);

	args.dry_run = &opts.dry_run;
	args.target_size = &opts.target_size;
	args.partition_filters = &opts.partition_filters;
	args.n_partition_filters = &opts.n_partition_filters;
	return cli_table_main(&args, argc, argv, run_purge, &opts, print_result);
}
