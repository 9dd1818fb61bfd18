/* cli/output.c - small output helpers shared by the commands. */
#include <stdio.h>

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
