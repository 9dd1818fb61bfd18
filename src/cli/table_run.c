/* cli/table_run.c - what every single-table verb does the same way: the
 * parse of its arguments (each one offered to the verb's own options, then
 * to those all verbs take: --help, --config, --json, TABLE, and those
 * several share), and the run of the operation itself (a Ctrl-C cancel
 * token around it, the error or the result printed, the result and the
 * table released) or of its planner. A verb keeps its own options, its
 * library call and how it prints its result. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "loom.h"

/* The options some verbs share (cli_table_args says which): CLI_ARG_TAKEN,
 * an exit status after a bad value, or 0 when `arg` is none of them. */
static int shared_option(cli_table_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	int has_value = *i + 1 < argc;
	int rc = CLI_EXIT_OK;

	if (a->dry_run && strcmp(arg, "--dry-run") == 0)
		*a->dry_run = 1;
	else if (a->dry_run && a->no_dry_run && strcmp(arg, "--no-dry-run") == 0)
		*a->dry_run = 0;
	else if (a->target_size && has_value && strcmp(arg, "--target-size") == 0)
		rc = cli_size_opt(a->verb, arg, argv[++*i], a->target_size);
	else if (a->commit_every && has_value && strcmp(arg, "--commit-every") == 0)
		rc = cli_size_opt(a->verb, arg, argv[++*i], a->commit_every);
	else if (a->partition_filters && has_value && strcmp(arg, "--partition") == 0)
		rc = cli_partition_opt(a->verb, argv[++*i], a->filters, &a->n_filters, CLI_MAX_FILTERS);
	else if (a->planner && has_value && strcmp(arg, "--plan-out") == 0)
		a->plan_out = argv[++*i];
	else if (a->planner && has_value && strcmp(arg, "--units") == 0)
		rc = cli_parse_units(a->verb, argv[++*i], &a->units);
	else
		return 0;
	return rc == CLI_EXIT_OK ? CLI_ARG_TAKEN : CLI_EXIT_USAGE;
}

/* argv[*i]: CLI_ARG_TAKEN when it was the verb's own option or one of the
 * shared arguments (*i moved past its value), else the exit status to
 * return at once (--help printed: CLI_EXIT_OK; a bad value, an unknown
 * option or a second table: CLI_EXIT_USAGE, said why). */
static int table_arg(cli_table_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	int rc = a->option ? a->option(a->option_ctx, argc, argv, i) : CLI_ARG_OTHER;
	if (rc != CLI_ARG_OTHER)
		return rc;
	rc = shared_option(a, argc, argv, i);
	if (rc != 0)
		return rc;
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
		a->usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(arg, "--config") == 0 && *i + 1 < argc) {
		a->config = argv[++*i];
		return CLI_ARG_TAKEN;
	}
	if (strcmp(arg, "--json") == 0) {
		a->json = 1;
		return CLI_ARG_TAKEN;
	}
	if (arg[0] == '-') {
		fprintf(stderr, "loom %s: unknown option '%s'\n", a->verb, arg);
		a->usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (a->table) {
		fprintf(stderr, "loom %s: one table at a time (got '%s' and '%s')\n", a->verb, a->table, arg);
		return CLI_EXIT_USAGE;
	}
	a->table = arg;
	return CLI_ARG_TAKEN;
}

int cli_size_opt(const char *verb, const char *opt, const char *value, int64_t *out)
{
	if (loom_size_parse(out, value) < 0 || *out <= 0) {
		fprintf(stderr, "loom %s: %s needs a size like 128MiB, got '%s'\n", verb, opt, value);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int cli_partition_opt(const char *verb, const char *value, const char **filters, size_t *n, size_t max)
{
	if (*n == max || !strchr(value, '=')) {
		fprintf(stderr, "loom %s: --partition needs K=V (at most %zu), got '%s'\n", verb, max, value);
		return CLI_EXIT_USAGE;
	}
	filters[(*n)++] = value;
	return CLI_EXIT_OK;
}

/* All of argv after the verb: CLI_ARG_TAKEN with TABLE resolved into t,
 * else the exit status to return (said why; --help printed: CLI_EXIT_OK). */
static int parse(cli_table_args *a, int argc, char **argv, cli_table *t)
{
	int i, rc;

	for (i = 1; i < argc; i++)
		if ((rc = table_arg(a, argc, argv, &i)) != CLI_ARG_TAKEN)
			return rc;
	if (!a->table) {
		a->usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (a->check && (rc = a->check(a->option_ctx)) != 0)
		return rc;
	if (a->partition_filters && a->n_filters) {
		*a->partition_filters = a->filters;
		*a->n_partition_filters = a->n_filters;
	}
	rc = cli_table_resolve(t, a->verb, a->table, a->config);
	return rc == 0 ? CLI_ARG_TAKEN : rc;
}

/* A failed call: its error printed, what it held released. */
static int failed(const char *verb, int rc, cli_table *t)
{
	cli_print_error(verb);
	cli_table_release(t);
	return rc == LOOM_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
}

/* Run `op` under a Ctrl-C cancel token, print its error or its result;
 * release the result and `t`. */
static int run(cli_table *t, const cli_table_args *a, cli_table_op op, void *opts, cli_result_printer print)
{
	loom_op_result result = LOOM_OP_RESULT_INIT;
	loom_cancel *cancel;
	int rc;

	int tty = a->status && isatty(2);

	if (tty)
		fprintf(stderr, "loom %s: %s: %s", a->verb, t->shown, a->status);
	cancel = cli_cancel_begin();
	rc = op(&result, t, opts, cancel);
	cli_cancel_end(cancel);
	if (tty)
		fprintf(stderr, "\r\033[K");
	if (rc < 0) {
		loom_op_result_free(&result);
		return failed(a->verb, rc, t);
	}
	print(a->verb, t->shown, &result, a->json);
	loom_op_result_free(&result);
	cli_table_release(t);
	return CLI_EXIT_OK;
}

/* --plan-out: plan with a->planner, write the plan and say so; release
 * `t`. */
static int write_plan(cli_table *t, const cli_table_args *a, void *opts)
{
	char *plan = NULL;
	int rc = a->planner(&plan, t, opts, a->units);
	if (rc < 0)
		return failed(a->verb, rc, t);
	rc = cli_write_plan(a->verb, t->shown, a->plan_out, plan, a->json);
	loom_string_free(plan);
	cli_table_release(t);
	return rc;
}

int cli_table_main(cli_table_args *a, int argc, char **argv, cli_table_op op, void *opts,
                   cli_result_printer print)
{
	cli_table t;
	int rc = parse(a, argc, argv, &t);

	if (rc != CLI_ARG_TAKEN)
		return rc;
	if (a->plan_out)
		return write_plan(&t, a, opts);
	return run(&t, a, op, opts, print);
}
