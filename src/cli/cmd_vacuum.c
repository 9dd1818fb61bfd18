/* cli/cmd_vacuum.c - `loom vacuum URI [--retention-hours N] [--full]
 * [--no-dry-run] [--no-retention-check] [--summary] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/metrics.h"
#include "loom/ops.h"

static void vacuum_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom vacuum TABLE [options]\n\n"
	        "Delete data files that no retained table version needs, and abort the incomplete\n"
	        "multipart uploads (S3) under the table started before the retention. Dry run by default.\n"
	        "TABLE is a path or URI, or with --config a table name like raw.events.\n\n"
	        "  --config FILE           the loom storage YAML that names the table\n"
	        "  --retention-hours N     keep files removed less than N hours ago\n"
	        "                          (default: the table's delta.deletedFileRetentionDuration, 168)\n"
	        "  --full                  also delete unreferenced files older than the retention\n"
	        "                          (default lite: only files the log records as removed)\n"
	        "  --dry-run               list what would be deleted (the default)\n"
	        "  --no-dry-run            delete the files\n"
	        "  --no-retention-check    allow a retention below the table's configured one\n"
	        "  --summary               print the counts only, not every file (a table of\n"
	        "                          millions of files prints millions of lines otherwise)\n"
	        "  --json                  machine-readable output\n");
}

/* --summary: the files are counted, not printed */
static int summary_only;

/* vacuum's own options (a cli_verb_option over a loom_vacuum_opts). An
 * empty --retention-hours is 0 hours. */
static int vacuum_option(void *ctx, int argc, char **argv, int *i)
{
	loom_vacuum_opts *opts = ctx;
	const char *a = argv[*i];

	if (strcmp(a, "--retention-hours") == 0 && *i + 1 < argc) {
		char *end;
		opts->retention_hours = strtoll(argv[++*i], &end, 10);
		if (*end || opts->retention_hours < 0) {
			fprintf(stderr, "loom vacuum: --retention-hours needs a whole number >= 0, got '%s'\n",
			        argv[*i]);
			return CLI_EXIT_USAGE;
		}
	} else if (strcmp(a, "--full") == 0) {
		opts->full = 1;
	} else if (strcmp(a, "--no-retention-check") == 0) {
		opts->retention_check = 0;
	} else if (strcmp(a, "--summary") == 0) {
		summary_only = 1;
	} else {
		return CLI_ARG_OTHER;
	}
	return CLI_ARG_TAKEN;
}

/* The incomplete multipart uploads aborted (dry: to abort): count, bytes
 * of their parts, and each one (bytes null where the store lists none). */
static void print_uploads_json(const loom_op_result *r)
{
	size_t i;
	printf("{\"count\":%zu,\"bytes\":%lld,\"uploads\":[", r->n_uploads,
	       (long long)loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_UPLOADS, 0));
	for (i = 0; i < r->n_uploads; i++) {
		printf("%s{\"key\":", i ? "," : "");
		cli_print_json_string(r->uploads[i].key);
		printf(",\"initiated_ms\":%lld,\"bytes\":", (long long)r->uploads[i].initiated_ms);
		if (r->uploads[i].bytes >= 0)
			printf("%lld}", (long long)r->uploads[i].bytes);
		else
			printf("null}");
	}
	printf("]}");
}

static void print_json(const char *uri, const loom_op_result *r)
{
	printf("{\"table\":");
	cli_print_json_string(uri);
	printf(",\"dry_run\":%s,\"num_files\":%zu,\"bytes\":%lld,\"version\":%lld",
	       r->dry_run ? "true" : "false", r->n_files_deleted,
	       (long long)loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0),
	       (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1));
	if (!summary_only) {
		printf(",\"files\":");
		cli_print_json_strings(r->files_deleted, r->n_files_deleted);
	}
	printf(",\"directories_removed\":%lld,\"multipart_uploads\":",
	       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_VACUUMED_DIRECTORIES, 0));
	print_uploads_json(r);
	printf("}\n");
}

static void print_result(const char *verb, const char *shown, const loom_op_result *r, int json)
{
	if (json)
		print_json(shown, r);
	else if (summary_only)
		cli_print_vacuum_summary(shown, r);
	else
		cli_print_result_human(verb, shown, r);
}

CLI_TABLE_OP(run_vacuum, loom_vacuum)

int cmd_vacuum(int argc, char **argv)
{
	loom_vacuum_opts opts = LOOM_VACUUM_OPTS_INIT;
	cli_table_args args = CLI_DRY_RUN_ARGS("vacuum", vacuum_usage, vacuum_option, &opts);

	return cli_table_main(&args, argc, argv, run_vacuum, &opts, print_result);
}
