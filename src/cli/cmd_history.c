/* cli/cmd_history.c - `loom history`: what the run history says (runs,
 * failures, bytes compacted per table, how health moved). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/observe.h"
#include "loom.h"
#include "loom/observe.h"

static void history_usage(FILE *o)
{
	fprintf(o,
	        "usage: loom history --history URI [--config FILE] [--table T] [--since 7d] [--json]\n"
	        "\n"
	        "Summarize the run history `loom maintain --history URI` appends to: runs and\n"
	        "failures, then per table its runs, files and bytes compacted and removed, and\n"
	        "its health first and last seen (docs/observability.md).\n"
	        "  --history URI  a directory or an object-store prefix\n"
	        "  --config FILE  the storage YAML lending the URI's storage options (a route\n"
	        "                 in the same bucket); without it, the environment's\n"
	        "  --table T      only this table\n"
	        "  --since D      only runs started in the last D (7d, 12h, 30m)\n"
	        "  --json         the summary as JSON (\"loom.history/1\")\n");
}

int64_t cli_parse_since(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	double unit;
	if (end == s || v < 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	switch (*end) {
	case 'd': unit = 86400e3; break;
	case 'h': unit = 3600e3; break;
	case 'm': unit = 60e3; break;
	case 's': unit = 1e3; break;
	default: return -1;
	}
	return cli_now_ms() - (int64_t)(v * unit);
}

typedef struct history_args {
	const char *uri, *config, *table;
	int64_t since_ms;
	int json;
} history_args;

static int parse(int argc, char **argv, history_args *a)
{
	int i;
	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			history_usage(stdout);
			return 1;
		} else if (!strcmp(o, "--json")) {
			a->json = 1;
			continue;
		} else if (strcmp(o, "--history") && strcmp(o, "--config") && strcmp(o, "--table") &&
		           strcmp(o, "--since")) {
			fprintf(stderr, "loom history: unknown option '%s'\n", o);
			return -1;
		}
		if (!v) {
			fprintf(stderr, "loom history: %s needs a value\n", o);
			return -1;
		}
		i++;
		if (!strcmp(o, "--history"))
			a->uri = v;
		else if (!strcmp(o, "--config"))
			a->config = v;
		else if (!strcmp(o, "--table"))
			a->table = v;
		else if ((a->since_ms = cli_parse_since(v)) < 0) {
			fprintf(stderr, "loom history: --since takes a span like 7d, 12h or 30m, not '%s'\n", v);
			return -1;
		}
	}
	if (!a->uri) {
		fprintf(stderr, "loom history: --history URI is required\n");
		return -1;
	}
	return 0;
}

int cmd_history(int argc, char **argv)
{
	history_args a;
	loom_config *cfg = NULL;
	loom_store_opts opts;
	loom_table_location *keep = NULL;
	char *json = NULL;
	int rc = parse(argc, argv, &a);
	if (rc != 0) {
		if (rc < 0)
			history_usage(stderr);
		return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (a.config && loom_config_load_file(&cfg, a.config) < 0) {
		cli_print_error("history");
		return CLI_EXIT_USAGE;
	}
	cli_history_open_options(cfg, a.uri, &opts, &keep);
	rc = loom_history_summary(&json, a.uri, &opts, a.table, a.since_ms);
	loom_table_location_free(keep);
	loom_config_free(cfg);
	if (rc < 0) {
		cli_print_error("history");
		return CLI_EXIT_FAILED;
	}
	if (!a.json) {
		char *text = NULL;
		if (loom_history_summary_text(&text, json) < 0) {
			cli_print_error("history");
			loom_string_free(json);
			return CLI_EXIT_FAILED;
		}
		loom_string_free(json);
		json = text;
	}
	fputs(json, stdout);
	if (a.json)
		fputc('\n', stdout);
	loom_string_free(json);
	return CLI_EXIT_OK;
}
