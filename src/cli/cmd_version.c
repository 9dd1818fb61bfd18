/* cli/cmd_version.c - `loom version` / `loom --version`. */
#include <stdio.h>

#include "cli/cli.h"
#include "loom.h"

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("loom %s\n", loom_version());
	return CLI_EXIT_OK;
}

void cli_print_error(const char *context)
{
	const loom_error *e = loom_error_last();
	if (e)
		fprintf(stderr, "loom: %s: %s (%s)\n", context, e->message,
		        loom_error_code_name(e->code));
	else
		fprintf(stderr, "loom: %s: failed\n", context);
}
