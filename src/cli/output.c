/* cli/output.c - small output helpers shared by the commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

void cli_print_json_string(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	putchar('"');
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		default:
			if (*p < 0x20)
				printf("\\u00%c%c", hex[*p >> 4], hex[*p & 15]);
			else
				putchar(*p);
		}
	}
	putchar('"');
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
