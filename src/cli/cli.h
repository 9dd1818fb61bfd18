/* cli/cli.h - shared declarations of the loom command-line tool. The CLI
 * uses only the public headers of libloom (include/loom/). */
#ifndef LOOM_CLI_H
#define LOOM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "loom/config.h"
#include "loom/ops.h"

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

/* Print the thread's last library error as "loom: <context>: <message>". */
void cli_print_error(const char *context);

/* Print `s` as a JSON string literal to stdout. */
void cli_print_json_string(const char *s);
/* An OPTIMIZE result (compact, zorder) as one JSON line on stdout. */
void cli_print_optimize_json(const char *uri, const loom_op_result *r);

/* The TABLE argument of a single-table verb: a path/URI, or a logical name
 * resolved through `config_path` (NULL: none). On success t->uri is the
 * table URI and t->loc its location (NULL without a config); release with
 * cli_table_release. Returns 0 or an exit status after printing why. */
typedef struct cli_table {
	const char *uri;
	loom_config *cfg;
	loom_table_location *loc;
} cli_table;
int cli_table_resolve(cli_table *t, const char *verb, const char *arg, const char *config_path);
void cli_table_release(cli_table *t);

/* A cancel token that SIGINT / SIGTERM request until cli_cancel_end
 * (which restores the default handlers and frees it). NULL when it could
 * not be made: the command then runs uncancellable. */
loom_cancel *cli_cancel_begin(void);
void cli_cancel_end(loom_cancel *c);

#endif
