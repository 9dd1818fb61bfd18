/* plan/observe_int.h - the run record ("loom.run/1") the renderers of
 * loom/observe.h share: metrics, logs, history, HTML. */
#ifndef LOOM_PLAN_OBSERVE_INT_H
#define LOOM_PLAN_OBSERVE_INT_H

#include <jansson.h>
#include <stdint.h>

#include "loom/observe.h"

struct loom_run_record {
	json_t *root;   /* {schema, id, started_ms, ended_ms, report, tables, store} */
};

/* An integer or real at a dotted path ("health.table.files") of `o`;
 * `dflt` when absent or not a number. */
double obs_num(const json_t *o, const char *path, double dflt);
/* A string at a dotted path, or NULL. */
const char *obs_str(const json_t *o, const char *path);
/* The health of entry `t` of the record's tables: "after" if present,
 * else "before" (NULL: none). */
const json_t *obs_health_latest(const json_t *t);
/* The table entry of the record named `ref`, or NULL. */
const json_t *obs_table_entry(const loom_run_record *r, const char *ref);
/* Files/bytes an op result read, wrote and removed, and rows it removed,
 * from its report JSON (the same rules for metrics, history and HTML). */
typedef struct obs_op_io {
	int64_t files_read, files_written, files_removed;
	int64_t bytes_read, bytes_written, bytes_removed, rows_removed;
} obs_op_io;
void obs_op_io_of(const json_t *op, obs_op_io *io);

#endif
