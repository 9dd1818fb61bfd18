/* cli/cmd_report.c - `loom report --html FILE`: one self-contained HTML page
 * of a run (a saved record or report), of the history's newest run with the
 * history's summary, or of the tables' health now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/observe.h"
#include "loom.h"
#include "loom/health.h"
#include "loom/observe.h"

static void report_usage(FILE *o)
{
	fprintf(o,
	        "usage: loom report --html FILE (--run FILE | --history URI | --config FILE)\n"
	        "\n"
	        "Write one self-contained HTML page (no script, no network; inline SVG):\n"
	        "  --run FILE      a run record (a history entry) or a `loom maintain --json`\n"
	        "                  report\n"
	        "  --history URI   the newest run of the history, and the history's summary\n"
	        "                  (--since D limits the summary; --config lends storage options)\n"
	        "  --config FILE   alone: the health and advice of every table of the YAML now\n");
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 > cap) {
			char *g = realloc(buf, cap = n + 65536 + cap);
			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = g;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The health of every table of the YAML, as a record without a run. */
static int health_record(loom_run_record **rec, const loom_config *cfg)
{
	size_t i;
	int64_t now = cli_now_ms();
	if (loom_run_record_new(rec, NULL, now, now) < 0)
		return -1;
	for (i = 0; i < loom_config_table_count(cfg); i++) {
		loom_table_location *loc = NULL;
		loom_health *h = NULL;
		char shown[1024];
		const char *name = loom_config_table_name_at(cfg, i);
		if (!loom_config_table_has_path_at(cfg, i))
			continue;
		if (loom_config_locate(&loc, cfg, name) < 0 || loom_health_load(&h, loc->uri, loc, NULL) < 0) {
			cli_print_error("report");
			loom_table_location_free(loc);
			continue;
		}
		loom_config_mask(shown, sizeof(shown), cfg, loc->uri);
		loom_run_record_set_health(*rec, name, shown, LOOM_HEALTH_AFTER, h);
		loom_health_free(h);
		loom_table_location_free(loc);
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	const char *html = NULL, *run = NULL, *history = NULL, *config = NULL, *since = NULL;
	loom_config *cfg = NULL;
	loom_run_record *rec = NULL;
	char *summary = NULL, *page = NULL;
	int i, status = CLI_EXIT_FAILED;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char **dst = !strcmp(o, "--html") ? &html : !strcmp(o, "--run") ? &run
		                 : !strcmp(o, "--history") ? &history : !strcmp(o, "--config") ? &config
		                 : !strcmp(o, "--since") ? &since : NULL;
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			report_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (!dst) {
			fprintf(stderr, "loom report: unknown option '%s'\n", o);
			report_usage(stderr);
			return CLI_EXIT_USAGE;
		}
		if (!v) {
			fprintf(stderr, "loom report: %s needs a value\n", o);
			return CLI_EXIT_USAGE;
		}
		*dst = v;
		i++;
	}
	if (!html || (!!run + !!history + (!run && !history && config)) != 1) {
		fprintf(stderr, "loom report: give --html FILE and one of --run FILE, --history URI, "
		                "--config FILE\n");
		report_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (since && cli_parse_since(since) < 0) {
		fprintf(stderr, "loom report: --since takes a span like 7d, 12h or 30m, not '%s'\n", since);
		return CLI_EXIT_USAGE;
	}
	if (config && loom_config_load_file(&cfg, config) < 0) {
		cli_print_error("report");
		return CLI_EXIT_USAGE;
	}
	if (run) {
		size_t len = 0;
		char *text = read_all(run, &len);
		if (!text) {
			fprintf(stderr, "loom report: cannot read %s\n", run);
			goto out;
		}
		i = loom_run_record_from_json(&rec, text, len, run);
		free(text);
		if (i < 0) {
			cli_print_error("report");
			status = CLI_EXIT_USAGE;
			goto out;
		}
	} else if (history) {
		loom_store_opts opts;
		loom_table_location *keep = NULL;
		cli_history_open_options(cfg, history, &opts, &keep);
		i = loom_history_latest(&rec, history, &opts);
		if (i >= 0)
			i = loom_history_summary(&summary, history, &opts, NULL, since ? cli_parse_since(since) : 0);
		loom_table_location_free(keep);
		if (i < 0) {
			cli_print_error("report");
			goto out;
		}
	} else if (health_record(&rec, cfg) < 0) {
		cli_print_error("report");
		goto out;
	}
	if (loom_run_record_to_html(&page, rec, summary) < 0) {
		cli_print_error("report");
		goto out;
	}
	if (cli_write_text_file("report", "HTML report", html, page) == 0)
		status = CLI_EXIT_OK;
out:
	loom_string_free(page);
	loom_string_free(summary);
	loom_run_record_free(rec);
	loom_config_free(cfg);
	return status;
}
