/* cli/cli.h - shared declarations of the loom command-line tool. The CLI
 * uses only the public headers of libloom (include/loom/). */
#ifndef LOOM_CLI_H
#define LOOM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "loom/config.h"
#include "loom/ops.h"
#include "loom/store.h"

/* Exit statuses: 0 ok; 1 an operation or table failed; 2 usage/config. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILED 1
#define CLI_EXIT_USAGE 2

typedef struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
} cli_command;

int cmd_version(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_vacuum(int argc, char **argv);
int cmd_parquet(int argc, char **argv);
int cmd_maintain(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_cleanup_logs(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_zorder(int argc, char **argv);
int cmd_execute_unit(int argc, char **argv);
int cmd_commit(int argc, char **argv);
int cmd_health(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_purge(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* --since 7d / 12h / 30m: that long before now, in ms since the epoch; -1
 * when it does not parse (cli/cmd_history.c). */
int64_t cli_parse_since(const char *s);

/* --plan-out of compact and zorder: write the plan to `path`, print a
 * summary (one JSON line with `json`). Returns an exit status. */
int cli_write_plan(const char *verb, const char *shown, const char *path, const char *plan, int json);
/* --units N: CLI_EXIT_OK or CLI_EXIT_USAGE after printing why. */
int cli_parse_units(const char *verb, const char *s, size_t *out);

/* Print the thread's last library error as "loom: <context>: <message>",
 * secrets masked. */
void cli_print_error(const char *context);

/* With LOOM_STORE_STATS set ("1"/"stderr": to stderr; else a file to append
 * to), write the process's store request counters as one JSON line:
 * {"store_requests":{"GET":n,...},"retries":n,"bytes_read":n,"bytes_written":n}. */
void cli_report_store_stats(void);

/* Fix glibc's mmap threshold so freed large buffers leave the process
 * (cli/malloc_tune.c says why). Call first thing in main. */
void cli_tune_malloc(void);

/* Write `s` as a JSON string literal to o (NULL: null). */
void cli_json_string(FILE *o, const char *s);
/* Print `s` as a JSON string literal to stdout (NULL: ""). */
void cli_print_json_string(const char *s);
/* A JSON array of the strings, on stdout. */
void cli_print_json_strings(char *const *items, size_t n);
/* A vacuum or OPTIMIZE result (verb "vacuum", "compact", "zorder") as a
 * human summary on stdout. */
void cli_print_result_human(const char *verb, const char *uri, const loom_op_result *r);
/* VACUUM's result without the line per file: the uploads and the summary. */
void cli_print_vacuum_summary(const char *uri, const loom_op_result *r);
/* An OPTIMIZE result (compact, zorder) as one JSON line on stdout. */
void cli_print_optimize_json(const char *uri, const loom_op_result *r);

/* The TABLE argument of a single-table verb: a path/URI, or a logical name
 * resolved through `config_path` (NULL: none). On success t->uri is the
 * table URI, t->shown the same with secrets masked (what output prints),
 * t->loc its location (NULL without a config: the store then takes its
 * settings from the environment) and t->store_opts its storage options;
 * release with cli_table_release. Returns 0 or an exit status after
 * printing why. */
typedef struct cli_table {
	const char *uri;
	char shown[1024];
	loom_config *cfg;
	loom_table_location *loc;
	loom_store_opts store_opts;
} cli_table;
int cli_table_resolve(cli_table *t, const char *verb, const char *arg, const char *config_path);
void cli_table_release(cli_table *t);

/* ---- what every single-table verb shares (cli/table_run.c) -------------- */

#define CLI_MAX_FILTERS 32

/* A verb's own options, tried before the shared ones on every argument:
 * CLI_ARG_TAKEN when argv[*i] is one of them (*i moved past its value),
 * the exit status after a bad value (said why), CLI_ARG_OTHER when it is
 * none of them. `ctx` is what the verb gave with it (its options). */
#define CLI_ARG_TAKEN (-1)
#define CLI_ARG_OTHER (-2)
typedef int (*cli_verb_option)(void *ctx, int argc, char **argv, int *i);

/* The library planner of a verb that plans too (--plan-out), with its
 * options. */
typedef int (*cli_table_planner)(char **plan, const cli_table *t, void *opts, size_t units);

/* The arguments every table verb takes: --help, --config FILE, --json and
 * the one TABLE; the verb's own options (`option`); and the options several
 * verbs share, taken only by a verb that turns them on (points them at its
 * own option fields, or sets the flag) before parsing. */
typedef struct cli_table_args {
	const char *verb;                 /* "vacuum" */
	void (*usage)(FILE *out);
	cli_verb_option option;           /* NULL: the verb has none */
	void *option_ctx;
	/* After the arguments, with a TABLE given and before it is resolved:
	 * the verb's checks of its options together (0 or an exit status after
	 * saying why); NULL: none. */
	int (*check)(void *ctx);
	const char *table;
	const char *config;
	int json;
	const char *status;               /* shown on a terminal while the
	                                     operation runs ("planning..."), or NULL */
	int *dry_run;                     /* --dry-run sets it to 1 */
	int no_dry_run;                   /* --no-dry-run sets *dry_run to 0 (verbs
	                                     whose default is a dry run) */
	int64_t *target_size;             /* --target-size SIZE */
	int64_t *commit_every;            /* --commit-every SIZE */
	/* --partition K=V, repeatable, into filters; with any, the verb's
	 * fields get them */
	const char *const **partition_filters;
	size_t *n_partition_filters;
	const char *filters[CLI_MAX_FILTERS];
	size_t n_filters;
	cli_table_planner planner;        /* --plan-out FILE and --units N: */
	const char *plan_out;
	size_t units;
} cli_table_args;
/* The arguments of verb `name`, whose own options `option_fn` fills `ctx`
 * (NULL, NULL: none). */
#define CLI_TABLE_ARGS(name, usage_fn, option_fn, ctx) \
	{ .verb = (name), .usage = (usage_fn), .option = (option_fn), .option_ctx = (ctx) }
/* The same for a verb whose default is a dry run (--dry-run / --no-dry-run
 * set `opts`->dry_run), its own options filling `opts`. */
#define CLI_DRY_RUN_ARGS(name, usage_fn, option_fn, opts)                                  \
	{ .verb = (name), .usage = (usage_fn), .option = (option_fn), .option_ctx = (opts), \
	  .dry_run = &(opts)->dry_run, .no_dry_run = 1 }

/* The value of a size option (--target-size 128MiB): CLI_EXIT_OK with
 * *out > 0, or CLI_EXIT_USAGE after saying why. */
int cli_size_opt(const char *verb, const char *opt, const char *value, int64_t *out);
/* --partition K=V, appended to filters[*n] (at most `max`): CLI_EXIT_OK,
 * or CLI_EXIT_USAGE after saying why. */
int cli_partition_opt(const char *verb, const char *value, const char **filters, size_t *n, size_t max);

/* The library call of a verb, with its options. */
typedef int (*cli_table_op)(loom_op_result *out, const cli_table *t, void *opts, loom_cancel *cancel);
/* Defines `name`, the cli_table_op of a library operation called
 * call(out, uri, location, opts, cancel) (loom_vacuum, loom_compact...). */
#define CLI_TABLE_OP(name, call)                                                          \
	static int name(loom_op_result *out, const cli_table *t, void *opts, loom_cancel *cancel) \
	{                                                                                     \
		return call(out, t->uri, t->loc, opts, cancel);                                   \
	}
/* How a verb prints its result (`shown`: the table with secrets masked). */
typedef void (*cli_result_printer)(const char *verb, const char *shown, const loom_op_result *r, int json);
/* The printer of the OPTIMIZE verbs (compact, zorder): one JSON line with
 * `json`, else the human summary. */
void cli_print_optimize(const char *verb, const char *shown, const loom_op_result *r, int json);
/* A single-table verb from its arguments to its exit status: each
 * argument to the verb's own options, then to the shared ones; TABLE
 * resolved (cli_table_resolve); then, with --plan-out, the plan written
 * (a->planner), else `op` run under a Ctrl-C cancel token and its error
 * (exit 2 for LOOM_EINVAL, else 1) or its result (`print`) printed. */
int cli_table_main(cli_table_args *a, int argc, char **argv, cli_table_op op, void *opts,
                   cli_result_printer print);
/* Defines `name`, the cli_table_planner of a library planner called
 * call(plan, uri, location, opts, units) (loom_dist_plan_compact...). */
#define CLI_TABLE_PLANNER(name, call)                                          \
	static int name(char **plan, const cli_table *t, void *opts, size_t units) \
	{                                                                          \
		return call(plan, t->uri, t->loc, opts, units);                        \
	}

/* A cancel token that SIGINT / SIGTERM request until cli_cancel_end
 * (which restores the default handlers and frees it). NULL when it could
 * not be made: the command then runs uncancellable. */
loom_cancel *cli_cancel_begin(void);
void cli_cancel_end(loom_cancel *c);

#endif
