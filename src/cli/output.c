/* cli/output.c - small output helpers shared by the commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "loom/metrics.h"

void cli_json_string(FILE *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!s) {
		fputs("null", o);
		return;
	}
	fputc('"', o);
	for (; *p; p++) {
		/* the run of characters that need no escape, in one write: a
		 * VACUUM prints millions of paths */
		size_t run = 0;
		while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run) {
			fwrite(p, 1, run, o);
			p += run;
			if (!*p)
				break;
		}
		switch (*p) {
		case '"': fputs("\\\"", o); break;
		case '\\': fputs("\\\\", o); break;
		case '\n': fputs("\\n", o); break;
		case '\r': fputs("\\r", o); break;
		case '\t': fputs("\\t", o); break;
		default:
			if (*p < 0x20)
				fprintf(o, "\\u%04x", *p);
			else
				fputc(*p, o);
		}
	}
	fputc('"', o);
}

void cli_print_json_string(const char *s)
{
	cli_json_string(stdout, s ? s : "");
}

void cli_print_json_strings(char *const *items, size_t n)
{
	size_t i;
	putchar('[');
	for (i = 0; i < n; i++) {
		if (i)
			putchar(',');
		cli_print_json_string(items[i]);
	}
	putchar(']');
}

void cli_print_optimize_json(const char *uri, const loom_op_result *r)
{
	size_t i;
	printf("{\"table\":");
	cli_print_json_string(uri);
	printf(",\"dry_run\":%s,\"num_files_added\":%lld,\"num_files_removed\":%lld,\"metrics\":{",
	       r->dry_run ? "true" : "false", (long long)r->num_files_added, (long long)r->num_files_removed);
	for (i = 0; i < r->n_metrics; i++) {
		if (i)
			putchar(',');
		cli_print_json_string(r->metrics[i].name);
		printf(":%lld", (long long)r->metrics[i].value);
	}
	printf("}}\n");
}

/* VACUUM's incomplete multipart uploads (S3): one line each, then a
 * summary; nothing when there were none. */
static void print_vacuum_uploads(const char *uri, const loom_op_result *r)
{
	size_t i;
	char size[32];
	if (!r->n_uploads)
		return;
	for (i = 0; i < r->n_uploads; i++) {
		const loom_upload_info *u = &r->uploads[i];
		if (u->bytes >= 0)
			loom_size_format(size, sizeof(size), u->bytes);
		printf("%s multipart upload %s (%s of parts)\n", r->dry_run ? "would abort" : "aborted",
		       u->key, u->bytes >= 0 ? size : "unknown size");
	}
	loom_size_format(size, sizeof(size),
	                 loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_UPLOADS, 0));
	printf("%s: %zu incomplete multipart upload%s (%s of parts) %s\n", uri, r->n_uploads,
	       r->n_uploads == 1 ? "" : "s", size, r->dry_run ? "would be aborted" : "aborted");
}

/* VACUUM: the files, then the summary. */
static void print_vacuum(const char *uri, const loom_op_result *r)
{
	size_t i;
	for (i = 0; i < r->n_files_deleted; i++)
		printf("%s %s\n", r->dry_run ? "would delete" : "deleted", r->files_deleted[i]);
	cli_print_vacuum_summary(uri, r);
}

void cli_print_vacuum_summary(const char *uri, const loom_op_result *r)
{
	char size[32];
	loom_size_format(size, sizeof(size),
	                 loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0));
	print_vacuum_uploads(uri, r);
	if (r->dry_run)
		printf("%s: %zu files (%s) would be deleted; run with --no-dry-run to delete them\n", uri,
		       r->n_files_deleted, size);
	else
		printf("%s: deleted %zu files (%s), %lld empty directories\n", uri, r->n_files_deleted, size,
		       (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_VACUUMED_DIRECTORIES, 0));
}

/* OPTIMIZE: compaction ("compact") and Z-order ("zorder"). */
static void print_optimize(const char *verb, const char *uri, const loom_op_result *r)
{
	char added[32], removed[32], target[32];
	int zorder = strcmp(verb, "zorder") == 0;
	long long version = (long long)loom_op_result_metric(r, LOOM_METRIC_VERSION, -1);
	long long nremoved = (long long)loom_op_result_metric(r, LOOM_METRIC_FILES_REMOVED_TOTAL_FILES, 0);
	long long parts = (long long)loom_op_result_metric(r, LOOM_METRIC_PARTITIONS_OPTIMIZED, 0);
	long long skipped = (long long)loom_op_result_metric(r, LOOM_METRIC_TOTAL_FILES_SKIPPED, 0);
	long long considered = (long long)loom_op_result_metric(r, LOOM_METRIC_TOTAL_CONSIDERED_FILES, 0);
	loom_size_format(added, sizeof(added),
	                 loom_op_result_metric(r, LOOM_METRIC_NUM_ADDED_BYTES, 0));
	loom_size_format(removed, sizeof(removed),
	                 loom_op_result_metric(r, LOOM_METRIC_FILES_REMOVED_TOTAL_SIZE, 0));
	loom_size_format(target, sizeof(target),
	                 loom_op_result_metric(r, LOOM_METRIC_TARGET_SIZE, 0));
	if (r->dry_run && zorder)
		printf("%s: would rewrite %lld files (%s) in %lld partitions; %lld files already clustered\n",
		       uri, nremoved, removed, parts, skipped);
	else if (r->dry_run)
		printf("%s: would rewrite %lld files (%s) in %lld bins of up to %s across %lld partitions; "
		       "%lld of %lld files left as they are\n",
		       uri, nremoved, removed, (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_BINS, 0), target,
		       parts, skipped, considered);
	else if (version < 0 && zorder)
		printf("%s: nothing to do: every partition is already clustered by these columns "
		       "(%lld files considered)\n", uri, considered);
	else if (version < 0)
		printf("%s: nothing to compact (%lld files considered, target %s)\n", uri, considered, target);
	else
		printf("%s: %s %lld files (%s) into %lld files (%s) in %lld partitions; version %lld\n", uri,
		       zorder ? "z-ordered" : "compacted", (long long)r->num_files_removed, removed,
		       (long long)r->num_files_added, added, parts, version);
	if (!r->dry_run && loom_op_result_metric(r, LOOM_METRIC_NUM_COMMITS, 0) > 0) {
		long long left = (long long)loom_op_result_metric(r, LOOM_METRIC_UNITS_LEFT, 0);
		printf("%s: in %lld commits%s\n", uri, (long long)loom_op_result_metric(r, LOOM_METRIC_NUM_COMMITS, 0),
		       left ? "; stopped early: run again for the rest" : "");
		if (left)
			printf("%s: %lld units of work left\n", uri, left);
	}
}

void cli_print_result_human(const char *verb, const char *uri, const loom_op_result *r)
{
	if (r->kind == LOOM_RESULT_VACUUM)
		print_vacuum(uri, r);
	else
		print_optimize(verb, uri, r);
}

void cli_report_store_stats(void)
{
	const char *where = getenv("LOOM_STORE_STATS");
	loom_store_stats st;
	FILE *out;
	int k;

	if (!where || !*where || strcmp(where, "0") == 0)
		return;
	st.version = LOOM_STORE_STATS_VERSION;
	if (loom_store_stats_total(&st) < 0)
		return;
	if (strcmp(where, "1") == 0 || strcmp(where, "stderr") == 0)
		out = stderr;
	else if (!(out = fopen(where, "a"))) {
		fprintf(stderr, "loom: LOOM_STORE_STATS: cannot open %s\n", where);
		return;
	}
	fputs("{\"store_requests\":{", out);
	for (k = 0; k < LOOM_STORE_REQ__COUNT; k++)
		fprintf(out, "%s\"%s\":%llu", k ? "," : "", loom_store_request_name(k),
		        (unsigned long long)st.requests[k]);
	fprintf(out, "},\"retries\":%llu,\"bytes_read\":%llu,\"bytes_written\":%llu}\n",
	        (unsigned long long)st.retries, (unsigned long long)st.bytes_read,
	        (unsigned long long)st.bytes_written);
	if (out != stderr)
		fclose(out);
}

void cli_print_optimize(const char *verb, const char *shown, const loom_op_result *r, int json)
{
	if (json)
		cli_print_optimize_json(shown, r);
	else
		cli_print_result_human(verb, shown, r);
}
