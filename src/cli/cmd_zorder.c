/* cli/cmd_zorder.c - `loom zorder TABLE --columns a,b [--config FILE]
 * [--target-size 128MiB] [--curve z|hilbert] [--full] [--memory 1GiB]
 * [--dry-run] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/distributed.h"
#include "loom/ops.h"

#define MAX_COLUMNS 32

static void zorder_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom zorder TABLE --columns A,B [options]\n\n"
	        "OPTIMIZE ZORDER BY: rewrite every partition's rows in space-filling-curve\n"
	        "order of the columns, into files of the target size, so min/max stats let\n"
	        "readers skip files for predicates on any of the columns. One commit that\n"
	        "changes no data. Partitions already clustered by the same columns and\n"
	        "curve (their files carry the loom.zorder tag) are skipped.\n\n"
	        "TABLE is a path or URI, or with --config a table name like raw.events.\n\n"
	        "  --columns A,B        columns to cluster by (dotted paths reach into structs)\n"
	        "  --config FILE        the loom storage YAML that names the table\n"
	        "  --target-size SIZE   target file size (e.g. 128MiB); default: the table's\n"
	        "                       delta.targetFileSize, else 100MiB\n"
	        "  --curve z|hilbert    space-filling curve (default hilbert)\n"
	        "  --full               also rewrite partitions that are already clustered\n"
	        "  --memory SIZE        memory for the rows of one partition (default 1GiB);\n"
	        "                       larger partitions are sorted externally\n"
	        "  --temp-dir DIR       spill files of the external sort (default\n"
	        "                       $LOOM_TMPDIR, $TMPDIR, /tmp); they are anonymous and\n"
	        "                       vanish however the run ends\n"
	        "  --spill-limit SIZE   most temp space the spills may take (default 90%%\n"
	        "                       of the free space there)\n"
	        "  --commit-every SIZE  commit finished partitions as they finish, once they\n"
	        "                       hold SIZE of input (a partition is committed whole;\n"
	        "                       a stopped or killed run keeps its commits)\n"
	        "  --dry-run            print the plan, write nothing\n"
	        "  --plan-out FILE      sample once and write a plan of key-range units for\n"
	        "                       `loom execute-unit` / `loom commit`; changes nothing\n"
	        "  --units N            with --plan-out: about N units in all (default: one\n"
	        "                       per GiB of each partition)\n"
	        "  --json               machine-readable output\n");
}


/* What zorder's own options fill: its options, their columns in `cols`. */
typedef struct zorder_cli {
	loom_zorder_opts opts;
	const char *cols[MAX_COLUMNS];
} zorder_cli;

/* zorder's own options (a cli_verb_option over a zorder_cli). */
static int zorder_option(void *ctx, int argc, char **argv, int *i)
{
	zorder_cli *z = ctx;
	loom_zorder_opts *opts = &z->opts;
	const char *a = argv[*i];
	int has_value = *i + 1 < argc;

	if (strcmp(a, "--columns") == 0 && has_value) {
		char *tok, *save = NULL;
		opts->n_columns = 0;
		/* split in place: argv's strings are the program's to change */
		for (tok = strtok_r(argv[++*i], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (opts->n_columns == MAX_COLUMNS) {
				fprintf(stderr, "loom zorder: at most %d columns\n", MAX_COLUMNS);
				return CLI_EXIT_USAGE;
			}
			z->cols[opts->n_columns++] = tok;
		}
	} else if (strcmp(a, "--temp-dir") == 0 && has_value) {
		opts->temp_dir = argv[++*i];
	} else if (strcmp(a, "--memory") == 0 && has_value) {
		if (cli_size_opt("zorder", a, argv[++*i], &opts->memory_budget) != CLI_EXIT_OK)
			return CLI_EXIT_USAGE;
	} else if (strcmp(a, "--spill-limit") == 0 && has_value) {
		if (cli_size_opt("zorder", a, argv[++*i], &opts->spill_limit) != CLI_EXIT_OK)
			return CLI_EXIT_USAGE;
	} else if (strcmp(a, "--curve") == 0 && has_value) {
		const char *c = argv[++*i];
		if (loom_zorder_curve_from_name(&opts->curve, c) < 0) {
			fprintf(stderr, "loom zorder: --curve is z or hilbert, got '%s'\n", c);
			return CLI_EXIT_USAGE;
		}
	} else if (strcmp(a, "--full") == 0) {
		opts->full = 1;
	} else {
		return CLI_ARG_OTHER;
	}
	return CLI_ARG_TAKEN;
}

/* With a TABLE given, --columns is required. */
static int zorder_check(void *ctx)
{
	const zorder_cli *z = ctx;
	if (z->opts.n_columns == 0) {
		fprintf(stderr, "loom zorder: --columns is required\n");
		zorder_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

CLI_TABLE_OP(run_zorder, loom_zorder)
CLI_TABLE_PLANNER(plan_zorder, loom_dist_plan_zorder)

int cmd_zorder(int argc, char **argv)
{
	zorder_cli z = { .opts = LOOM_ZORDER_OPTS_INIT };
	cli_table_args args = CLI_TABLE_ARGS("zorder", zorder_usage, zorder_option, &z);

	z.opts.columns = z.cols;
	args.dry_run = &z.opts.dry_run;
	args.target_size = &z.opts.target_size;
	args.commit_every = &z.opts.commit_every;
	args.planner = plan_zorder;
	args.check = zorder_check;
	args.status = "sampling, sorting and rewriting...";
	return cli_table_main(&args, argc, argv, run_zorder, &z.opts, cli_print_optimize);
}
