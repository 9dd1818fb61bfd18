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
	if (e) {
		/* the library masks what it knows; this also catches credentials
		 * of the environment and signed URLs, whatever raised them */
		char msg[LOOM_ERROR_MESSAGE_MAX + 64], ctx[512];
		loom_secret_mask(msg, sizeof(msg), NULL, 0, e->message);
		loom_secret_mask(ctx, sizeof(ctx), NULL, 0, context);
		fprintf(stderr, "loom: %s: %s (%s)\n", ctx, msg, loom_error_code_name(e->code));
	}
	else
		fprintf(stderr, "loom: %s: failed\n", context);
}
