/* cli/main.c - the loom command-line tool: dispatch to subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const cli_command commands[] = {
	{ "version", "print the loom version", cmd_version },
	{ "inspect", "show the state of a Delta table", cmd_inspect },
	{ "vacuum", "delete files no retained version needs (dry run by default)", cmd_vacuum },
	{ "parquet", "inspect a Parquet file (schema, meta, cat)", cmd_parquet },
	{ "checkpoint", "write a checkpoint of a Delta table", cmd_checkpoint },
	{ "cleanup-logs", "delete expired _delta_log files (dry run by default)", cmd_cleanup_logs },
	{ "compact", "OPTIMIZE: rewrite small files into larger ones", cmd_compact },
	{ "zorder", "OPTIMIZE ZORDER BY: cluster rows by columns along a space-filling curve", cmd_zorder },
	{ "execute-unit", "run one unit of an OPTIMIZE / Z-order plan (no commit)", cmd_execute_unit },
	{ "commit", "commit the results of a plan's units in one commit", cmd_commit },
	{ "purge", "REORG ... APPLY (PURGE): rewrite files with deletion vectors without their deleted rows", cmd_purge },
	{ "analyze", "COMPUTE STATISTICS: give files without (complete) stats new ones, metadata only", cmd_analyze },
	{ "convert", "make a Delta table of a directory of Parquet files", cmd_convert },
	{ "maintain", "run the maintenance plan of a storage YAML", cmd_maintain },
	{ "health", "what a table's log says it needs: files, DVs, tombstones, log, clustering", cmd_health },
	{ "advise", "what the maintenance policy recommends for a table, and why (changes nothing)", cmd_advise },
	{ "history", "summarize the run history of loom maintain --history", cmd_history },
	{ "report", "write a self-contained HTML report of a run, the history or health", cmd_report },
};

static void usage(FILE *out)
{
	size_t i;
	fprintf(out, "usage: loom <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nloom <command> --help shows a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	cli_tune_malloc();
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return cmd_version(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			int status = commands[i].run(argc - 1, argv + 1);
			cli_report_store_stats();
			return status;
		}
	fprintf(stderr, "loom: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
