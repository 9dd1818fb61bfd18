/* cli/cancel.c - Ctrl-C (SIGINT) and SIGTERM stop a single-table command
 * at the operation's next safe point through a cancel token, so the table
 * is left as it was instead of the process dying mid-write. */
#include <signal.h>

#include "cli/cli.h"

static loom_cancel *volatile active;

static void on_signal(int sig)
{
	(void)sig;
	loom_cancel_request(active);   /* an atomic store: async-signal-safe */
}

loom_cancel *cli_cancel_begin(void)
{
	loom_cancel *c = NULL;
	if (loom_cancel_new(&c) < 0)
		return NULL;   /* not cancellable, still correct */
	active = c;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return c;
}

void cli_cancel_end(loom_cancel *c)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	active = NULL;
	loom_cancel_free(c);
}
