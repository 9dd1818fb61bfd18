/* cli/cmd_parquet.c - `loom parquet schema|meta|cat FILE`: inspect a
 * Parquet file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom.h"
#include "loom/parquet.h"

static void parquet_usage(FILE *out)
{
	fprintf(out,
	        "usage: loom parquet schema FILE\n"
	        "       loom parquet meta FILE\n"
	        "       loom parquet cat FILE [--columns a,b] [--limit N]\n"
	        "\n"
	        "schema  the schema tree with types and levels\n"
	        "meta    the footer as JSON (row groups, column chunks, statistics)\n"
	        "cat     rows as JSON lines (see include/loom/parquet.h for the rendering)\n");
}

static int print_line(const char *line, size_t len, void *payload)
{
	FILE *out = payload;
	if (fwrite(line, 1, len, out) != len || fputc('\n', out) == EOF)
		return -1;
	return 0;
}

int cmd_parquet(int argc, char **argv)
{
	const char *verb, *path = NULL;
	loom_parquet_cat_opts opt = LOOM_PARQUET_CAT_OPTS_INIT;
	loom_parquet_file *f;
	int i, rc;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		parquet_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	verb = argv[1];
	if (strcmp(verb, "schema") && strcmp(verb, "meta") && strcmp(verb, "cat")) {
		fprintf(stderr, "loom parquet: unknown subcommand '%s'\n", verb);
		parquet_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--columns") == 0 && i + 1 < argc && strcmp(verb, "cat") == 0)
			opt.columns = argv[++i];
		else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc && strcmp(verb, "cat") == 0) {
			char *end;
			opt.limit = strtoll(argv[++i], &end, 10);
			if (*end || opt.limit < 0) {
				fprintf(stderr, "loom parquet: --limit wants a non-negative number\n");
				return CLI_EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "loom parquet: unknown option '%s'\n", argv[i]);
			parquet_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (!path)
			path = argv[i];
		else {
			fprintf(stderr, "loom parquet: more than one file given\n");
			return CLI_EXIT_USAGE;
		}
	}
	if (!path) {
		parquet_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (loom_parquet_open(&f, path) < 0) {
		cli_print_error(path);
		return CLI_EXIT_FAILED;
	}
	if (strcmp(verb, "schema") == 0)
		rc = loom_parquet_render_schema(f, print_line, stdout);
	else if (strcmp(verb, "meta") == 0)
		rc = loom_parquet_render_meta(f, print_line, stdout);
	else
		rc = loom_parquet_render_rows(f, &opt, print_line, stdout);
	loom_parquet_file_free(f);
	if (fflush(stdout) != 0 && rc == 0) {
		fprintf(stderr, "loom parquet: writing output failed\n");
		return CLI_EXIT_FAILED;
	}
	if (rc == -1 && loom_error_last() == NULL) {
		fprintf(stderr, "loom parquet: writing output failed\n");
		return CLI_EXIT_FAILED;
	}
	if (rc != 0) {
		cli_print_error(path);
		return CLI_EXIT_FAILED;
	}
	return CLI_EXIT_OK;
}
