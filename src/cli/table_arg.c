/* cli/table_arg.c - the TABLE argument of the single-table verbs: a path or
 * URI, or with --config FILE a logical name (raw.events) resolved through
 * the storage YAML, whose location settings (writer, commit metadata,
 * target file size) then apply as they do under `loom maintain`. */
#include <stdio.h>

#include "cli/cli.h"
#include "loom.h"

static void fill_shown(cli_table *t)
{
	const loom_store_opts d = LOOM_STORE_OPTS_INIT;
	t->store_opts = d;
	if (t->loc) {
		t->store_opts.options = t->loc->storage_options;
		t->store_opts.n_options = t->loc->n_storage_options;
	}
	loom_secret_mask(t->shown, sizeof(t->shown), t->store_opts.options, t->store_opts.n_options,
	                 t->uri);
}

int cli_table_resolve(cli_table *t, const char *verb, const char *arg, const char *config_path)
{
	t->uri = arg;
	t->cfg = NULL;
	t->loc = NULL;
	if (!config_path) {
		fill_shown(t);
		return 0;
	}
	if (loom_config_load_file(&t->cfg, config_path) < 0) {
		cli_print_error(verb);
		return CLI_EXIT_USAGE;
	}
	if (loom_config_locate(&t->loc, t->cfg, arg) < 0) {
		cli_print_error(verb);
		cli_table_release(t);
		return CLI_EXIT_USAGE;
	}
	t->uri = t->loc->uri;
	fill_shown(t);
	return 0;
}

void cli_table_release(cli_table *t)
{
	loom_table_location_free(t->loc);
	loom_config_free(t->cfg);
	t->loc = NULL;
	t->cfg = NULL;
}
