/* cli/cmd_zorder.c - `loom zorder TABLE --columns a,b [--config FILE]
 * [--target-size 128MiB] [--curve z|hilbert] [--full] [--memory 1GiB]
 * [--dry-run] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	        "  --dry-run            print the plan, write nothing\n"
	        "  --plan-out FILE      sample once and write a plan of key-range units for\n"
	        "                       `loom execute-unit` / `loom commit`; changes nothing\n"
	        "  --units N            with --plan-out: about N units in all (default: one\n"
	        "                       per GiB of each partition)\n"
	        "  --json               machine-readable output\n");
}


int cmd_zorder(int argc, char **argv)
{
	loom_zorder_opts opts = LOOM_ZORDER_OPTS_INIT;
	loom_cancel *cancel;
	const char *cols[MAX_COLUMNS];
	char *colbuf = NULL;
	size_t nc = 0;
	loom_op_result result;
	const char *uri = NULL, *config = NULL, *plan_out = NULL;
	size_t units = 0;
	cli_table table;
	int json = 0, i, rc, tty = isatty(2);

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			zorder_usage(stdout);
			free(colbuf);
			return CLI_EXIT_OK;
		} else if (strcmp(a, "--columns") == 0 && i + 1 < argc) {
			char *tok, *save = NULL;
			free(colbuf);
			colbuf = strdup(argv[++i]);
			nc = 0;
			for (tok = colbuf ? strtok_r(colbuf, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
				if (nc == MAX_COLUMNS) {
					fprintf(stderr, "loom zorder: at most %d columns\n", MAX_COLUMNS);
					free(colbuf);
					return CLI_EXIT_USAGE;
				}
				cols[nc++] = tok;
			}
		} else if (strcmp(a, "--plan-out") == 0 && i + 1 < argc) {
			plan_out = argv[++i];
		} else if (strcmp(a, "--units") == 0 && i + 1 < argc) {
			if (cli_parse_units("zorder", argv[++i], &units) != CLI_EXIT_OK) {
				free(colbuf);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strcmp(a, "--temp-dir") == 0 && i + 1 < argc) {
			opts.temp_dir = argv[++i];
		} else if ((strcmp(a, "--target-size") == 0 || strcmp(a, "--memory") == 0 ||
		            strcmp(a, "--spill-limit") == 0) && i + 1 < argc) {
			int64_t v = 0;
			if (loom_parse_size(argv[++i], &v) < 0 || v <= 0) {
				fprintf(stderr, "loom zorder: %s needs a size like 128MiB, got '%s'\n", a, argv[i]);
				free(colbuf);
				return CLI_EXIT_USAGE;
			}
			if (a[2] == 't')
				opts.target_size = v;
			else if (a[2] == 's')
				opts.spill_limit = v;
			else
				opts.memory_budget = v;
		} else if (strcmp(a, "--curve") == 0 && i + 1 < argc) {
			const char *c = argv[++i];
			if (loom_zorder_curve_from_name(c, &opts.curve) < 0) {
				fprintf(stderr, "loom zorder: --curve is z or hilbert, got '%s'\n", c);
				free(colbuf);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(a, "--full") == 0) {
			opts.full = 1;
		} else if (strcmp(a, "--dry-run") == 0) {
			opts.dry_run = 1;
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "loom zorder: unknown option '%s'\n", a);
			zorder_usage(stderr);
			free(colbuf);
			return CLI_EXIT_USAGE;
		} else if (!uri) {
			uri = a;
		} else {
			fprintf(stderr, "loom zorder: one table at a time (got '%s' and '%s')\n", uri, a);
			free(colbuf);
			return CLI_EXIT_USAGE;
		}
	}
	if (!uri || nc == 0) {
		if (uri)
			fprintf(stderr, "loom zorder: --columns is required\n");
		zorder_usage(stderr);
		free(colbuf);
		return CLI_EXIT_USAGE;
	}
	opts.columns = cols;
	opts.n_columns = nc;
	if ((rc = cli_table_resolve(&table, "zorder", uri, config)) != 0) {
		free(colbuf);
		return rc;
	}
	if (plan_out) {
		char *plan = NULL;
		rc = loom_plan_zorder(&plan, table.uri, table.loc, &opts, units);
		free(colbuf);
		if (rc < 0) {
			cli_print_error("zorder");
			cli_table_release(&table);
			return rc == LOOM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
		}
		rc = cli_write_plan("zorder", table.shown, plan_out, plan, json);
		loom_string_free(plan);
		cli_table_release(&table);
		return rc;
	}
	if (tty)
		fprintf(stderr, "loom zorder: %s: sampling, sorting and rewriting...\r", table.shown);
	memset(&result, 0, sizeof(result));
	cancel = cli_cancel_begin();
	rc = loom_zorder(&result, table.uri, table.loc, &opts, cancel);
	cli_cancel_end(cancel);
	if (tty)
		fprintf(stderr, "\033[K");
	free(colbuf);
	if (rc < 0) {
		cli_print_error("zorder");
		loom_op_result_clear(&result);
		cli_table_release(&table);
		return rc == LOOM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
	}
	if (json)
		cli_print_optimize_json(table.shown, &result);
	else
		cli_print_result_human("zorder", table.shown, &result);
	loom_op_result_clear(&result);
	cli_table_release(&table);
	return CLI_EXIT_OK;
}
