/* plan/report_html.c - a run record as one self-contained HTML page: no
 * script, no external resource (styles inline, charts inline SVG), readable
 * without JavaScript. Per table: the file-size histogram before and after,
 * the operations with their numbers, health and advice; the lake's totals;
 * the history when given. Every number is also in a data-value attribute,
 * exactly as in the JSON. */
#include <stdio.h>
#include <string.h>

#include "loom/config.h"
#include "plan/observe_int.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

typedef struct page {
	loom_buf b;
	int rc;
} page;

#define P(pg, ...) plan_bprintf(&(pg)->rc, &(pg)->b, __VA_ARGS__)

static void esc(page *pg, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': P(pg, "&amp;"); break;
		case '<': P(pg, "&lt;"); break;
		case '>': P(pg, "&gt;"); break;
		case '"': P(pg, "&quot;"); break;
		case '\'': P(pg, "&#39;"); break;
		default: P(pg, "%c", *s);
		}
	}
}

/* A table cell holding a number: exact in data-value, bytes also in units. */
static void num_cell(page *pg, const char *name, int64_t v, int bytes)
{
	char h[32];
	P(pg, "<td data-metric=\"%s\" data-value=\"%lld\">", name, (long long)v);
	if (bytes) {
		loom_size_format(h, sizeof(h), v);
		P(pg, "%s", h);
	} else {
		P(pg, "%lld", (long long)v);
	}
	P(pg, "</td>");
}

static const char style[] =
	"body{font-family:system-ui,sans-serif;margin:2em;color:#1a1a1a;background:#fff;max-width:72em}"
	"h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}"
	"table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #bbb;padding:.25em .6em;"
	"text-align:right}th[scope=row],td.text{text-align:left}thead th{background:#eef}"
	".ok{color:#176117}.failed{color:#a11}.skipped{color:#666}"
	".legend span{display:inline-block;width:1em;height:1em;margin:0 .3em 0 1em;vertical-align:middle}"
	"figure{margin:.5em 0}figcaption{font-size:.9em;color:#444}";

/* ---- histogram ------------------------------------------------------------ */

static const json_t *histogram(const json_t *h)
{
	return json_object_get(json_object_get(json_object_get(h, "health"), "table"), "histogram");
}

static int64_t bucket_files(const json_t *hist, int64_t min_bytes)
{
	const json_t *b;
	size_t i;
	json_array_foreach((json_t *)hist, i, b)
		if ((int64_t)obs_num(b, "minBytes", -1) == min_bytes)
			return (int64_t)obs_num(b, "files", 0);
	return 0;
}

static void histogram_svg(page *pg, const char *ref, size_t idx, const json_t *before,
                          const json_t *after)
{
	const json_t *hb = histogram(before), *ha = histogram(after), *b;
	int64_t mins[64], maxf = 1;
	size_t n = 0, i, j;
	const json_t *both[2] = { hb, ha };
	int k;
	char label[32];
	for (k = 0; k < 2; k++)
		json_array_foreach((json_t *)both[k], i, b) {
			int64_t m = (int64_t)obs_num(b, "minBytes", 0), f = (int64_t)obs_num(b, "files", 0);
			for (j = 0; j < n && mins[j] != m; j++)
				;
			if (j == n && n < 64)
				mins[n++] = m;
			if (f > maxf)
				maxf = f;
		}
	for (i = 1; i < n; i++)   /* sort the bucket bounds */
		for (j = i; j > 0 && mins[j - 1] > mins[j]; j--) {
			int64_t t = mins[j];
			mins[j] = mins[j - 1];
			mins[j - 1] = t;
		}
	P(pg, "<figure><svg role=\"img\" width=\"%zu\" "
	      "height=\"200\" aria-labelledby=\"hist-title-%zu\"><title id=\"hist-title-%zu\">"
	      "File-size histogram of ", n * 70 + 50, idx, idx);
	esc(pg, ref);
	P(pg, ": files per size bucket before (grey) and after (blue) the run</title>");
	for (i = 0; i < n; i++) {
		int64_t fb = bucket_files(hb, mins[i]), fa = bucket_files(ha, mins[i]);
		int x = 40 + (int)i * 70, hbh = (int)(150 * fb / maxf), hah = (int)(150 * fa / maxf);
		loom_size_format(label, sizeof(label), mins[i]);
		P(pg, "<rect x=\"%d\" y=\"%d\" width=\"28\" height=\"%d\" fill=\"#9a9a9a\">"
		      "<title>%s and up, before: %lld files</title></rect>",
		  x, 170 - hbh, hbh, label, (long long)fb);
		P(pg, "<rect x=\"%d\" y=\"%d\" width=\"28\" height=\"%d\" fill=\"#2f6fbf\">"
		      "<title>%s and up, after: %lld files</title></rect>",
		  x + 30, 170 - hah, hah, label, (long long)fa);
		P(pg, "<text x=\"%d\" y=\"188\" font-size=\"11\" text-anchor=\"middle\">%s</text>", x + 29,
		  label);
	}
	P(pg, "<line x1=\"35\" y1=\"170\" x2=\"%zu\" y2=\"170\" stroke=\"#333\"/>"
	      "<text x=\"4\" y=\"20\" font-size=\"11\">%lld</text></svg>",
	  n * 70 + 45, (long long)maxf);
	P(pg, "<figcaption class=\"legend\">Files per size bucket (2<sup>k</sup> bytes and up):"
	      "<span style=\"background:#9a9a9a\"></span>before<span style=\"background:#2f6fbf\">"
	      "</span>after</figcaption></figure>");
	/* the same numbers as a table, for screen readers and copying */
	P(pg, "<table class=\"histogram\"><caption>File-size histogram</caption><thead><tr>"
	      "<th scope=\"col\">size from</th><th scope=\"col\">files before</th>"
	      "<th scope=\"col\">files after</th></tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		loom_size_format(label, sizeof(label), mins[i]);
		P(pg, "<tr data-bucket=\"%lld\"><th scope=\"row\">%s</th>", (long long)mins[i], label);
		num_cell(pg, "files_before", bucket_files(hb, mins[i]), 0);
		num_cell(pg, "files_after", bucket_files(ha, mins[i]), 0);
		P(pg, "</tr>");
	}
	P(pg, "</tbody></table>");
}

/* ---- per table -------------------------------------------------------------- */

static void ops_table(page *pg, const json_t *t)
{
	const json_t *ops = json_object_get(t, "ops"), *op;
	const char *name;
	if (!json_object_size(ops)) {
		P(pg, "<p>No operation completed.</p>");
		return;
	}
	P(pg, "<table class=\"ops\"><caption>Operations</caption><thead><tr>"
	      "<th scope=\"col\">operation</th><th scope=\"col\">seconds</th>"
	      "<th scope=\"col\">files read</th><th scope=\"col\">files written</th>"
	      "<th scope=\"col\">files removed</th><th scope=\"col\">bytes read</th>"
	      "<th scope=\"col\">bytes written</th><th scope=\"col\">bytes removed</th>"
	      "<th scope=\"col\">rows removed</th><th scope=\"col\">metrics</th></tr></thead><tbody>");
	json_object_foreach((json_t *)ops, name, op) {
		obs_op_io io;
		const json_t *m = json_object_get(op, "metrics"), *v;
		const char *mn;
		obs_op_io_of(op, &io);
		P(pg, "<tr data-op=\"");
		esc(pg, name);
		P(pg, "\"><th scope=\"row\">");
		esc(pg, name);
		P(pg, "</th><td data-metric=\"duration_seconds\" data-value=\"%.17g\">%.2f</td>",
		  obs_num(op, "duration_seconds", 0), obs_num(op, "duration_seconds", 0));
		num_cell(pg, "files_read", io.files_read, 0);
		num_cell(pg, "files_written", io.files_written, 0);
		num_cell(pg, "files_removed", io.files_removed, 0);
		num_cell(pg, "bytes_read", io.bytes_read, 1);
		num_cell(pg, "bytes_written", io.bytes_written, 1);
		num_cell(pg, "bytes_removed", io.bytes_removed, 1);
		num_cell(pg, "rows_removed", io.rows_removed, 0);
		P(pg, "<td class=\"text\">");
		json_object_foreach((json_t *)m, mn, v) {
			P(pg, "<span data-name=\"");
			esc(pg, mn);
			P(pg, "\" data-value=\"%lld\">", (long long)json_integer_value(v));
			esc(pg, mn);
			P(pg, " %lld</span> ", (long long)json_integer_value(v));
		}
		P(pg, "</td></tr>");
	}
	P(pg, "</tbody></table>");
}

static const struct {
	const char *label, *path;
	int bytes;
} health_rows[] = {
	{ "version", "health.version", 0 },
	{ "files", "health.table.files", 0 },
	{ "bytes", "health.table.bytes", 1 },
	{ "rows", "health.table.rows", 0 },
	{ "small files", "health.table.smallFiles", 0 },
	{ "small-file bytes", "health.table.smallBytes", 1 },
	{ "files with deletion vectors", "health.table.dvFiles", 0 },
	{ "rows deleted by deletion vectors", "health.table.dvDeletedRows", 0 },
	{ "tombstones past the retention", "health.tombstones.expiredFiles", 0 },
	{ "commits since the checkpoint", "health.log.commitsSinceCheckpoint", 0 },
	{ "expired log files", "health.log.expiredFiles", 0 },
};

static void health_table(page *pg, const json_t *before, const json_t *after)
{
	size_t i;
	P(pg, "<table class=\"health\"><caption>Health</caption><thead><tr><th scope=\"col\">figure"
	      "</th><th scope=\"col\">before</th><th scope=\"col\">after</th></tr></thead><tbody>");
	for (i = 0; i < sizeof(health_rows) / sizeof(health_rows[0]); i++) {
		char key[64];
		snprintf(key, sizeof(key), "%s", strrchr(health_rows[i].path, '.') + 1);
		P(pg, "<tr data-figure=\"%s\"><th scope=\"row\">%s</th>", key, health_rows[i].label);
		if (before)
			num_cell(pg, "before", (int64_t)obs_num(before, health_rows[i].path, 0), health_rows[i].bytes);
		else
			P(pg, "<td>&#8212;</td>");
		if (after)
			num_cell(pg, "after", (int64_t)obs_num(after, health_rows[i].path, 0), health_rows[i].bytes);
		else
			P(pg, "<td>&#8212;</td>");
		P(pg, "</tr>");
	}
	P(pg, "</tbody></table>");
}

static void advice_list(page *pg, const json_t *h)
{
	const json_t *advice = json_object_get(h, "advice"), *a;
	size_t i;
	if (!json_array_size(advice))
		return;
	P(pg, "<h4>Advice</h4><ul class=\"advice\">");
	json_array_foreach((json_t *)advice, i, a) {
		int rec = obs_num(a, "recommended", 0) != 0;
		P(pg, "<li data-op=\"");
		esc(pg, obs_str(a, "op"));
		P(pg, "\" data-recommended=\"%s\"><strong>", rec ? "true" : "false");
		esc(pg, obs_str(a, "op"));
		P(pg, "</strong>: %s &#8212; ", rec ? "recommended" : "not needed");
		esc(pg, obs_str(a, "reason"));
		P(pg, "</li>");
	}
	P(pg, "</ul>");
}

static void table_section(page *pg, size_t idx, const char *ref, const json_t *t,
                          const json_t *entry)
{
	const char *status = t ? obs_str(t, "status") : NULL;
	const json_t *before = entry ? json_object_get(entry, "before") : NULL;
	const json_t *after = entry ? json_object_get(entry, "after") : NULL;
	const char *uri = t ? obs_str(t, "uri") : NULL;
	before = json_is_object(before) ? before : NULL;
	after = json_is_object(after) ? after : NULL;
	if (!uri && entry)
		uri = obs_str(entry, "uri");
	P(pg, "<section class=\"table\" data-table=\"");
	esc(pg, ref);
	P(pg, "\"><h2>");
	esc(pg, ref);
	P(pg, "</h2><p>");
	if (uri) {
		P(pg, "<code>");
		esc(pg, uri);
		P(pg, "</code> &#8212; ");
	}
	if (status) {
		P(pg, "status <strong class=\"%s\" data-status=\"%s\">%s</strong>", status, status, status);
		P(pg, " in <span data-metric=\"duration_seconds\" data-value=\"%.17g\">%.2f s</span>",
		  obs_num(t, "duration_seconds", 0), obs_num(t, "duration_seconds", 0));
	} else {
		P(pg, "health only (no run)");
	}
	P(pg, "</p>");
	if (t && json_is_object(json_object_get(t, "error"))) {
		P(pg, "<p class=\"failed\" data-error-class=\"");
		esc(pg, obs_str(t, "error.class"));
		P(pg, "\">Error (");
		esc(pg, obs_str(t, "error.class"));
		P(pg, ", ");
		esc(pg, obs_str(t, "error.name"));
		P(pg, ") in ");
		esc(pg, obs_str(t, "error.op") ? obs_str(t, "error.op") : "locating the table");
		P(pg, ": ");
		esc(pg, obs_str(t, "error.message"));
		P(pg, "</p>");
	}
	if (t && obs_str(t, "skip_reason")) {
		P(pg, "<p class=\"skipped\">Skipped: ");
		esc(pg, obs_str(t, "skip_reason"));
		P(pg, "</p>");
	}
	if (before || after) {
		P(pg, "<h3>File sizes</h3>");
		histogram_svg(pg, ref, idx, before, after);
	}
	if (t) {
		P(pg, "<h3>Operations</h3>");
		ops_table(pg, t);
	}
	if (before || after) {
		P(pg, "<h3>Health and advice</h3>");
		health_table(pg, before, after);
		advice_list(pg, after ? after : before);
	}
	P(pg, "</section>");
}

/* ---- totals, history ---------------------------------------------------------- */

static void totals(page *pg, const json_t *root)
{
	const json_t *rep = json_object_get(root, "report"), *tables = json_object_get(root, "tables");
	const json_t *t, *op;
	int64_t fb = 0, fa = 0, bb = 0, ba = 0;
	obs_op_io sum, io;
	const char *name;
	size_t i;
	memset(&sum, 0, sizeof(sum));
	json_array_foreach((json_t *)tables, i, t) {
		const json_t *b = json_object_get(t, "before"), *a = obs_health_latest(t);
		if (!json_is_object(b))
			b = a;
		fb += (int64_t)obs_num(b, "health.table.files", 0);
		bb += (int64_t)obs_num(b, "health.table.bytes", 0);
		fa += (int64_t)obs_num(a, "health.table.files", 0);
		ba += (int64_t)obs_num(a, "health.table.bytes", 0);
	}
	json_array_foreach(json_object_get(rep, "tables"), i, t)
		json_object_foreach(json_object_get(t, "ops"), name, op) {
			obs_op_io_of(op, &io);
			sum.files_read += io.files_read;
			sum.files_written += io.files_written;
			sum.files_removed += io.files_removed;
			sum.bytes_read += io.bytes_read;
			sum.bytes_written += io.bytes_written;
			sum.bytes_removed += io.bytes_removed;
		}
	P(pg, "<section id=\"totals\"><h2>Lake totals</h2><table class=\"totals\"><thead><tr>"
	      "<th scope=\"col\">figure</th><th scope=\"col\">value</th></tr></thead><tbody>");
#define ROW(label, key, v, bytes) \
	do { P(pg, "<tr><th scope=\"row\">%s</th>", label); num_cell(pg, key, v, bytes); P(pg, "</tr>"); } while (0)
	if (json_is_object(rep)) {
		ROW("tables", "tables", (int64_t)obs_num(rep, "summary.tables", 0), 0);
		ROW("ok", "ok", (int64_t)obs_num(rep, "summary.ok", 0), 0);
		ROW("failed", "failed", (int64_t)obs_num(rep, "summary.failed", 0), 0);
		ROW("skipped", "skipped", (int64_t)obs_num(rep, "summary.skipped", 0), 0);
		ROW("files read", "files_read", sum.files_read, 0);
		ROW("files written", "files_written", sum.files_written, 0);
		ROW("files removed", "files_removed", sum.files_removed, 0);
		ROW("bytes read", "bytes_read", sum.bytes_read, 1);
		ROW("bytes written", "bytes_written", sum.bytes_written, 1);
		ROW("bytes removed", "bytes_removed", sum.bytes_removed, 1);
	}
	ROW("files before", "files_before", fb, 0);
	ROW("files after", "files_after", fa, 0);
	ROW("bytes before", "bytes_before", bb, 1);
	ROW("bytes after", "bytes_after", ba, 1);
#undef ROW
	P(pg, "</tbody></table></section>");
}

static void history_section(page *pg, const char *history_json)
{
	json_error_t jerr;
	json_t *h = json_loads(history_json, 0, &jerr), *t;
	const char *ref;
	if (!h)
		return;
	P(pg, "<section id=\"history\"><h2>History</h2><p><span data-metric=\"runs\" data-value=\"%lld\">"
	      "%lld runs</span>, <span data-metric=\"failed_runs\" data-value=\"%lld\">%lld failed</span>."
	      "</p><table class=\"history\"><thead><tr><th scope=\"col\">table</th>"
	      "<th scope=\"col\">runs</th><th scope=\"col\">failed</th>"
	      "<th scope=\"col\">bytes compacted</th><th scope=\"col\">files first seen</th>"
	      "<th scope=\"col\">files last seen</th></tr></thead><tbody>",
	  (long long)obs_num(h, "runs", 0), (long long)obs_num(h, "runs", 0),
	  (long long)obs_num(h, "failed_runs", 0), (long long)obs_num(h, "failed_runs", 0));
	json_object_foreach(json_object_get(h, "tables"), ref, t) {
		P(pg, "<tr data-table=\"");
		esc(pg, ref);
		P(pg, "\"><th scope=\"row\">");
		esc(pg, ref);
		P(pg, "</th>");
		num_cell(pg, "runs", (int64_t)obs_num(t, "runs", 0), 0);
		num_cell(pg, "failed", (int64_t)obs_num(t, "failed", 0), 0);
		num_cell(pg, "bytes_compacted", (int64_t)obs_num(t, "bytes_compacted", 0), 1);
		num_cell(pg, "files_first", (int64_t)obs_num(t, "health_first.files", 0), 0);
		num_cell(pg, "files_last", (int64_t)obs_num(t, "health_last.files", 0), 0);
		P(pg, "</tr>");
	}
	P(pg, "</tbody></table></section>");
	json_decref(h);
}

LOOM_EXTERN(int) loom_run_record_to_html(char **out, const loom_run_record *r,
                                         const char *history_json)
{
	page pg = { LOOM_BUF_INIT, 0 };
	const json_t *rep, *t, *entries;
	const char *step;
	size_t i, idx = 0;
	if (!r || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_run_record_to_html: NULL argument");
	rep = json_object_get(r->root, "report");
	entries = json_object_get(r->root, "tables");
	step = json_is_object(rep) ? obs_str(rep, "step") : NULL;
	P(&pg, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	       "<meta name=\"viewport\" content=\"width=device-width\"><title>loom report");
	if (step) {
		P(&pg, " &#8212; ");
		esc(&pg, step);
	}
	P(&pg, "</title><style>%s</style></head><body><main><h1>loom maintenance report</h1>", style);
	P(&pg, "<p>Run <code data-run-id=\"");
	esc(&pg, loom_run_record_id(r));
	P(&pg, "\">");
	esc(&pg, loom_run_record_id(r));
	P(&pg, "</code>");
	if (step) {
		P(&pg, ", step <strong>");
		esc(&pg, step);
		P(&pg, "</strong>, %.2f s, %s", obs_num(rep, "duration_seconds", 0),
		  obs_num(rep, "has_errors", 0) ? "<strong class=\"failed\">with errors</strong>"
		                                : "<strong class=\"ok\">no error</strong>");
	} else {
		P(&pg, " (health only)");
	}
	P(&pg, ".</p>");
	totals(&pg, r->root);
	if (json_is_object(rep))
		json_array_foreach(json_object_get(rep, "tables"), i, t) {
			const char *ref = obs_str(t, "ref");
			if (ref)
				table_section(&pg, idx++, ref, t, obs_table_entry(r, ref));
		}
	json_array_foreach((json_t *)entries, i, t) {   /* health without a run */
		const char *ref = obs_str(t, "ref");
		int in_report = 0;
		const json_t *rt;
		size_t j;
		json_array_foreach(json_object_get(rep, "tables"), j, rt)
			if (ref && obs_str(rt, "ref") && strcmp(obs_str(rt, "ref"), ref) == 0)
				in_report = 1;
		if (ref && !in_report)
			table_section(&pg, idx++, ref, NULL, t);
	}
	if (history_json)
		history_section(&pg, history_json);
	P(&pg, "</main></body></html>\n");
	if (pg.rc < 0) {
		loom_buf_dispose(&pg.b);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory rendering the HTML report");
	}
	*out = loom_buf_detach(&pg.b);
	return 0;
}
