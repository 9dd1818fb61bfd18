/* cli/observe.h - `loom maintain`'s metrics, JSON logs, history and HTML
 * (cli/observe.c), and what `loom history` and `loom report` share. */
#ifndef LOOM_CLI_OBSERVE_H
#define LOOM_CLI_OBSERVE_H

#include <pthread.h>
#include <stdio.h>

#include "loom/config.h"
#include "loom/health.h"
#include "loom/observe.h"
#include "loom/plan.h"

typedef struct cli_observe {
	/* the options (NULL / 0: off) */
	const char *metrics, *history, *html, *log_file;
	int log_json;
	/* state */
	const loom_config *cfg;
	int64_t started_ms;
	FILE *log_out;
	loom_event_log *log;
	pthread_mutex_t lock;
	size_t n;                 /* tables, by the report's index */
	loom_health **before, **after;
	char **refs, **shown;
} cli_observe;

/* Open the log; 0, or -1 after saying why. */
int cli_observe_begin(cli_observe *o, const loom_config *cfg);
/* The runner's progress callback (payload: the cli_observe). */
void cli_observe_progress(const loom_progress *p, void *payload);
/* Log the run's end; write the metrics, the HTML, the history entry. 0,
 * or -1 after saying what could not be written. */
int cli_observe_end(cli_observe *o, const loom_report *rep);
void cli_observe_free(cli_observe *o);

int64_t cli_now_ms(void);
/* Storage options for a history URI from the YAML (`cfg` may be NULL): a
 * route in the same bucket lends its options; *keep holds them (free with
 * loom_table_location_free). */
int cli_history_open_options(const loom_config *cfg, const char *uri, loom_store_opts *opts,
                             loom_table_location **keep);
/* Write `text` to `path` atomically; -1 after printing why. */
int cli_write_text_file(const char *verb, const char *what, const char *path, const char *text);
/* cli_parse_since (--since 7d) is declared in cli/cli.h. */

#endif
