/* cli/cmd_compact.c - `loom compact URI [--target-size 128MiB]
 * [--partition 'k=v']... [--dry-run] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/distributed.h"
#include "loom/ops.h"

static void compact_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom compact TABLE [options]\n\n"
	        "OPTIMIZE: rewrite small files (and files whose deletion vectors delete\n"
	        "more than 5%% of their rows) of each partition into files of up to the\n"
	        "target size, in one commit that changes no data. A clustered table\n"
	        "(liquid clustering) is clustered by its clustering columns instead, new\n"
	        "files and small ZCubes only. Row ids (row tracking) are preserved and old\n"
	        "files are written with the table's widened types. TABLE is a path or URI,\n"
	        "or with --config a table name like raw.events.\n\n"
	        "  --config FILE        the loom storage YAML that names the table (its\n"
	        "                       writer settings and target_file_size apply)\n"
	        "  --target-size SIZE   target file size (e.g. 128MiB, 1GB, 1048576); default:\n"
	        "                       the table's delta.targetFileSize, else 100MiB\n"
	        "  --partition K=V      only partitions where column K has value V (repeatable)\n"
	        "  --copy-row-group-min SIZE|off\n"
	        "                       input row groups of at least SIZE (compressed) that\n"
	        "                       need no change are copied as they are (fast; they keep\n"
	        "                       their size), smaller ones merged into new row groups;\n"
	        "                       off: re-encode all. Default: the writer setting\n"
	        "                       copy_row_group_min_size, else 1/8 of the row-group\n"
	        "                       size (2MiB)\n"
	        "  --commit-every SIZE  commit finished units of work as they finish, once\n"
	        "                       they hold SIZE of input (a stopped or killed run\n"
	        "                       keeps its commits; the next run does the rest)\n"
	        "  --dry-run            print the plan, write nothing\n"
	        "  --plan-out FILE      write a plan for `loom execute-unit` / `loom commit`\n"
	        "                       (units run anywhere, one commit); changes nothing\n"
	        "  --units N            with --plan-out: about N units (default: one per\n"
	        "                       partition with files to rewrite)\n"
	        "  --json               machine-readable output\n");
}


static void progress_line(void *ctx, int64_t bins_done, int64_t bins_total, int64_t bytes_done,
                          int64_t bytes_total)
{
	char done[32], total[32];
	loom_size_format(done, sizeof(done), bytes_done);
	loom_size_format(total, sizeof(total), bytes_total);
	fprintf(stderr, "\r\033[Kloom compact: %s: %lld/%lld bins, %s of %s rewritten", (const char *)ctx,
	        (long long)bins_done, (long long)bins_total, done, total);
}

/* The compaction, with a progress line on a terminal. */
static int run_compact(loom_op_result *out, const cli_table *t, void *opts, loom_cancel *cancel)
{
	loom_compact_opts *o = opts;
	if (isatty(2)) {
		o->progress = progress_line;
		o->progress_ctx = (void *)t->shown;
	}
	return loom_compact(out, t->uri, t->loc, o, cancel);
}

CLI_TABLE_PLANNER(plan_compact, loom_dist_plan_compact)

/* compact's own option (a cli_verb_option over a loom_compact_opts). */
static int compact_option(void *ctx, int argc, char **argv, int *i)
{
	loom_compact_opts *opts = ctx;

	if (strcmp(argv[*i], "--copy-row-group-min") != 0 || *i + 1 >= argc)
		return CLI_ARG_OTHER;
	if (strcasecmp(argv[++*i], "off") == 0) {
		opts->copy_row_group_min_size = LOOM_COPY_ROW_GROUPS_OFF;
	} else if (loom_size_parse(&opts->copy_row_group_min_size, argv[*i]) < 0 ||
	           opts->copy_row_group_min_size <= 0) {
		fprintf(stderr, "loom compact: --copy-row-group-min needs a size like 2MiB or off, got '%s'\n",
		        argv[*i]);
		return CLI_EXIT_USAGE;
	}
	return CLI_ARG_TAKEN;
}

int cmd_compact(int argc, char **argv)
{
	loom_compact_opts opts = LOOM_COMPACT_OPTS_INIT;
	cli_table_args args = CLI_TABLE_ARGS("compact", compact_usage, compact_option, &opts);

	args.dry_run = &opts.dry_run;
	args.target_size = &opts.target_size;
	args.commit_every = &opts.commit_every;
	args.partition_filters = &opts.partition_filters;
	args.n_partition_filters = &opts.n_partition_filters;
	args.planner = plan_compact;
	args.status = "planning...";
	return cli_table_main(&args, argc, argv, run_compact, &opts, cli_print_optimize);
}
