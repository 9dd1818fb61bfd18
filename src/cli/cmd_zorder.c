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


CLI_TABLE_OP(run_zorder, loom_zorder)
CLI_TABLE_PLANNER(plan_zorder, loom_dist_plan_zorder)

int cmd_zorder(int argc, char **argv)
{
	loom_zorder_opts opts = LOOM_ZORDER_OPTS_INIT;
	cli_table_args args = CLI_TABLE_ARGS("zorder", zorder_usage);
	const char *cols[MAX_COLUMNS];
	size_t nc = 0;
	cli_table table;
	int i, rc;

	args.dry_run = &opts.dry_run;
	args.target_size = &opts.target_size;
	args.commit_every = &opts.commit_every;
	args.plans = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--columns") == 0 && i + 1 < argc) {
			char *tok, *save = NULL;
			nc = 0;
			/* split in place: argv's strings are the program's to change */
			for (tok = strtok_r(argv[++i], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (nc == MAX_COLUMNS) {
					fprintf(stderr, "loom zorder: at most %d columns\n", MAX_COLUMNS);
					return CLI_EXIT_USAGE;
				}
				cols[nc++] = tok;
			}
		} else if (strcmp(a, "--temp-dir") == 0 && i + 1 < argc) {
			opts.temp_dir = argv[++i];
		} else if (strcmp(a, "--memory") == 0 && i + 1 < argc) {
			if (cli_size_opt("zorder", a, argv[++i], &opts.memory_budget) != CLI_EXIT_OK)
				return CLI_EXIT_USAGE;
		} else if (strcmp(a, "--spill-limit") == 0 && i + 1 < argc) {
			if (cli_size_opt("zorder", a, argv[++i], &opts.spill_limit) != CLI_EXIT_OK)
				return CLI_EXIT_USAGE;
		} else if (strcmp(a, "--curve") == 0 && i + 1 < argc) {
			const char *c = argv[++i];
			if (loom_zorder_curve_from_name(&opts.curve, c) < 0) {
				fprintf(stderr, "loom zorder: --curve is z or hilbert, got '%s'\n", c);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(a, "--full") == 0) {
			opts.full = 1;
		} else if ((rc = cli_table_arg(&args, argc, argv, &i)) != CLI_ARG_TAKEN) {
			return rc;
		}
	}
	if (args.table && nc == 0) {
		fprintf(stderr, "loom zorder: --columns is required\n");
		zorder_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_table_args_end(&args, &table)) != 0)
		return rc;
	args.status = "sampling, sorting and rewriting...";
	opts.columns = cols;
	opts.n_columns = nc;
	return cli_table_run_or_plan(&table, &args, run_zorder, plan_zorder, &opts, cli_print_optimize);
}
