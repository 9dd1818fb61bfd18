/* cli/observe.c - what `loom maintain` leaves for monitoring and people
 * (--metrics, --log-format json, --history, --html): the health of each
 * table before and after it runs (from the progress events), the JSON event
 * log, and at the end one run record rendered as metrics, appended to the
 * history and drawn as HTML. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/observe.h"
#include "loom.h"
#include "loom/health.h"
#include "loom/observe.h"

int64_t cli_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void log_line(const char *line, void *payload)
{
	FILE *f = payload;
	fputs(line, f);
	fputc('\n', f);
	fflush(f);
}

int cli_observe_begin(cli_observe *o, const loom_config *cfg)
{
	o->cfg = cfg;
	o->started_ms = cli_now_ms();
	pthread_mutex_init(&o->lock, NULL);
	if (!o->log_json)
		return 0;
	o->log_out = stderr;
	if (o->log_file && !(o->log_out = fopen(o->log_file, "a"))) {
		fprintf(stderr, "loom maintain: cannot open the log file %s\n", o->log_file);
		return -1;
	}
	if (loom_event_log_new(&o->log, log_line, o->log_out) < 0) {
		cli_print_error("maintain");
		return -1;
	}
	return 0;
}

static int wants_health(const cli_observe *o)
{
	return o->metrics || o->history || o->html;
}

/* The table's health now, or NULL (not a Delta table yet, unreadable:
 * the run reports that itself). */
static loom_health *health_of(const cli_observe *o, const char *ref, char **shown)
{
	loom_table_location *loc = NULL;
	loom_health *h = NULL;
	char masked[1024];
	if (loom_config_locate(&loc, o->cfg, ref) < 0) {
		loom_error_clear();
		return NULL;
	}
	if (loom_health_load(&h, loc->uri, loc, NULL) < 0) {
		loom_error_clear();
		h = NULL;
	}
	if (h && shown && !*shown) {
		loom_config_mask(masked, sizeof(masked), o->cfg, loc->uri);
		*shown = strdup(masked);
	}
	loom_table_location_free(loc);
	return h;
}

static int grow(cli_observe *o, size_t n)
{
	if (o->n >= n)
		return 0;
	o->before = realloc(o->before, n * sizeof(*o->before));
	o->after = realloc(o->after, n * sizeof(*o->after));
	o->shown = realloc(o->shown, n * sizeof(*o->shown));
	o->refs = realloc(o->refs, n * sizeof(*o->refs));
	if (!o->before || !o->after || !o->shown || !o->refs)
		return -1;
	memset(o->before + o->n, 0, (n - o->n) * sizeof(*o->before));
	memset(o->after + o->n, 0, (n - o->n) * sizeof(*o->after));
	memset(o->shown + o->n, 0, (n - o->n) * sizeof(*o->shown));
	memset(o->refs + o->n, 0, (n - o->n) * sizeof(*o->refs));
	o->n = n;
	return 0;
}

void cli_observe_progress(const loom_progress *p, void *payload)
{
	cli_observe *o = payload;
	int done = p->event == LOOM_PROGRESS_TABLE_DONE;
	if (o->log)
		loom_event_log_progress(p, o->log);
	if (!wants_health(o) || (p->event != LOOM_PROGRESS_TABLE_START && !done) ||
	    (done && p->skipped))
		return;
	{
		char *shown = NULL;
		loom_health *h = health_of(o, p->table_ref, &shown);
		pthread_mutex_lock(&o->lock);
		if (grow(o, p->table_count) == 0 && p->table_index < o->n) {
			loom_health **slot = done ? &o->after[p->table_index] : &o->before[p->table_index];
			loom_health_free(*slot);
			*slot = h;
			h = NULL;
			if (!o->refs[p->table_index])
				o->refs[p->table_index] = strdup(p->table_ref);
			if (!o->shown[p->table_index]) {
				o->shown[p->table_index] = shown;
				shown = NULL;
			}
		}
		pthread_mutex_unlock(&o->lock);
		loom_health_free(h);
		free(shown);
	}
}

/* Storage options for the history URI: those of the first table route in
 * the same bucket / container (scheme://authority/), else none (the
 * environment). *loc keeps them alive. */
static void history_options(const loom_config *cfg, const char *uri, loom_store_opts *opts,
                            loom_table_location **keep)
{
	const char *sep = strstr(uri, "://");
	size_t i, n;
	const char *slash;
	*keep = NULL;
	if (!sep)
		return;
	slash = strchr(sep + 3, '/');
	n = slash ? (size_t)(slash - uri) : strlen(uri);
	for (i = 0; cfg && i < loom_config_table_count(cfg); i++) {
		loom_table_location *loc = NULL;
		if (!loom_config_table_has_path_at(cfg, i) ||
		    loom_config_locate(&loc, cfg, loom_config_table_name_at(cfg, i)) < 0) {
			loom_error_clear();
			continue;
		}
		if (strncmp(loc->uri, uri, n) == 0 && (loc->uri[n] == '/' || loc->uri[n] == '\0')) {
			opts->options = loc->storage_options;
			opts->n_options = loc->n_storage_options;
			*keep = loc;
			return;
		}
		loom_table_location_free(loc);
	}
}

int cli_history_open_options(const loom_config *cfg, const char *uri, loom_store_opts *opts,
                             loom_table_location **keep)
{
	const loom_store_opts d = LOOM_STORE_OPTS_INIT;
	*opts = d;
	history_options(cfg, uri, opts, keep);
	return 0;
}

int cli_write_text_file(const char *verb, const char *what, const char *path, const char *text)
{
	if (loom_file_write_atomic(path, text, strlen(text)) < 0) {
		fprintf(stderr, "loom %s: cannot write the %s: ", verb, what);
		cli_print_error(verb);
		return -1;
	}
	return 0;
}

int cli_observe_end(cli_observe *o, const loom_report *rep)
{
	loom_run_record *rec = NULL;
	loom_store_stats st;
	char *text = NULL;
	size_t i;
	int failed = 0;
	if (o->log)
		loom_event_log_run_end(o->log, rep);
	if (!wants_health(o))
		return 0;
	if (loom_run_record_new(&rec, rep, o->started_ms, cli_now_ms()) < 0) {
		cli_print_error("maintain");
		return -1;
	}
	for (i = 0; i < o->n; i++) {
		if (o->before[i])
			loom_run_record_set_health(rec, o->refs[i], o->shown[i], LOOM_HEALTH_BEFORE, o->before[i]);
		if (o->after[i])
			loom_run_record_set_health(rec, o->refs[i], o->shown[i], LOOM_HEALTH_AFTER, o->after[i]);
	}
	memset(&st, 0, sizeof(st));
	st.version = LOOM_STORE_STATS_VERSION;
	if (loom_store_stats_total(&st) == 0)
		loom_run_record_set_store_stats(rec, &st);
	if (o->metrics) {
		if (loom_run_record_to_metrics(&text, rec, LOOM_METRICS_PROMETHEUS) < 0 ||
		    cli_write_text_file("maintain", "metrics", o->metrics, text) < 0)
			failed = 1;
		loom_string_free(text);
		text = NULL;
	}
	if (o->html) {
		if (loom_run_record_to_html(&text, rec, NULL) < 0 ||
		    cli_write_text_file("maintain", "HTML report", o->html, text) < 0)
			failed = 1;
		loom_string_free(text);
		text = NULL;
	}
	if (o->history) {
		loom_store_opts opts;
		loom_table_location *keep = NULL;
		cli_history_open_options(o->cfg, o->history, &opts, &keep);
		if (loom_history_append(NULL, rec, o->history, &opts) < 0) {
			cli_print_error("maintain");
			failed = 1;
		}
		loom_table_location_free(keep);
	}
	loom_run_record_free(rec);
	return failed ? -1 : 0;
}

void cli_observe_free(cli_observe *o)
{
	size_t i;
	for (i = 0; i < o->n; i++) {
		loom_health_free(o->before[i]);
		loom_health_free(o->after[i]);
		free(o->shown[i]);
		free(o->refs[i]);
	}
	free(o->before);
	free(o->after);
	free(o->shown);
	free(o->refs);
	loom_event_log_free(o->log);
	if (o->log_out && o->log_out != stderr)
		fclose(o->log_out);
	if (o->started_ms)
		pthread_mutex_destroy(&o->lock);
	memset(o, 0, sizeof(*o));
}
