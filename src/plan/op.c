/* plan/op.c - operations (the seed's OpSpec): the three built-ins that
 * dispatch to the maintainer, and custom ones with their own execute. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/error.h"

struct loom_op {
	atomic_int refs;
	char *name;
	int kind;                       /* enum plan_op_kind */
	loom_op_execute_fn execute;
	void *payload;
	void (*free_payload)(void *payload);
	/* options of the built-ins; z-order columns owned */
	loom_vacuum_opts vacuum;
	loom_compact_opts compact;
	loom_zorder_opts zorder;
	char **zcols;
	char *ztmp;                  /* zorder.temp_dir, owned */
	char **cfilters;             /* compact.partition_filters, owned */
};

static int op_alloc(loom_op **out, const char *name, int kind)
{
	loom_op *op = loom_calloc(1, sizeof(*op));
	if (!op || !(op->name = loom_strdup(name))) {
		loom_free(op);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	atomic_init(&op->refs, 1);
	op->kind = kind;
	*out = op;
	return 0;
}

LOOM_EXTERN(int) loom_op_new(loom_op **out, const char *name, loom_op_execute_fn execute,
                             void *payload, void (*free_payload)(void *payload))
{
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_new: out is NULL");
	*out = NULL;
	if (!name || !*name)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_op_new: an operation needs a non-empty name (it keys its result)");
	if (!execute)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_op_new: operation '%s' has no execute function", name);
	LOOM_TRY(op_alloc(out, name, PLAN_OP_CUSTOM));
	(*out)->execute = execute;
	(*out)->payload = payload;
	(*out)->free_payload = free_payload;
	return 0;
}

static int need(const loom_maintainer *m, const void *fn, const char *what)
{
	if (!m)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: no maintainer backend", what);
	if (m->version != LOOM_MAINTAINER_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "maintainer '%s' has version %u, expected %u",
		                m->name ? m->name : "?", m->version, LOOM_MAINTAINER_VERSION);
	if (!fn)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PLAN,
		                "maintainer '%s' does not implement %s", m->name ? m->name : "?", what);
	return 0;
}

static int exec_vacuum(loom_op_result *out, const loom_maintainer *m, const char *uri,
                       const loom_table_location *loc, const loom_cancel *cancel, void *payload)
{
	const loom_op *op = payload;
	LOOM_TRY(need(m, m ? (const void *)m->vacuum : NULL, "vacuum"));
	return m->vacuum(out, m, uri, loc, &op->vacuum, cancel);
}

static int exec_compact(loom_op_result *out, const loom_maintainer *m, const char *uri,
                        const loom_table_location *loc, const loom_cancel *cancel, void *payload)
{
	const loom_op *op = payload;
	LOOM_TRY(need(m, m ? (const void *)m->compact : NULL, "compact"));
	return m->compact(out, m, uri, loc, &op->compact, cancel);
}

static int exec_zorder(loom_op_result *out, const loom_maintainer *m, const char *uri,
                       const loom_table_location *loc, const loom_cancel *cancel, void *payload)
{
	const loom_op *op = payload;
	LOOM_TRY(need(m, m ? (const void *)m->z_order : NULL, "z_order"));
	return m->z_order(out, m, uri, loc, &op->zorder, cancel);
}

LOOM_EXTERN(int) loom_op_vacuum(loom_op **out, const loom_vacuum_opts *opts)
{
	loom_vacuum_opts d = LOOM_VACUUM_OPTS_INIT;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_vacuum: out is NULL");
	*out = NULL;
	if (opts) {
		LOOM_TRY(loom_vacuum_opts_check(opts));
		d = *opts;
	}
	LOOM_TRY(op_alloc(out, "vacuum", PLAN_OP_VACUUM));
	(*out)->vacuum = d;
	(*out)->execute = exec_vacuum;
	(*out)->payload = *out;
	return 0;
}

/* A caller's options may be of an older version, hence a shorter struct:
 * copy the fields its version has; the others keep their defaults. */
static void copy_compact_opts(loom_compact_opts *d, const loom_compact_opts *o)
{
	size_t n = o->version >= 3 ? sizeof(*o)
	           : o->version == 2 ? offsetof(loom_compact_opts, commit_every)
	                             : offsetof(loom_compact_opts, copy_row_group_min_size);
	memcpy(d, o, n);
	d->version = LOOM_COMPACT_OPTS_VERSION;
}

static void copy_zorder_opts(loom_zorder_opts *d, const loom_zorder_opts *o)
{
	memcpy(d, o, o->version >= 2 ? sizeof(*o) : offsetof(loom_zorder_opts, commit_every));
	d->version = LOOM_ZORDER_OPTS_VERSION;
}

LOOM_EXTERN(int) loom_op_compact(loom_op **out, const loom_compact_opts *opts)
{
	loom_compact_opts d = LOOM_COMPACT_OPTS_INIT;
	loom_op *op = NULL; /* set by op_alloc; GCC 12 -O3 cannot tell */
	size_t i;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_compact: out is NULL");
	*out = NULL;
	if (opts) {
		LOOM_TRY(loom_compact_opts_check(opts));
		copy_compact_opts(&d, opts);
	}
	LOOM_TRY(op_alloc(&op, "compact", PLAN_OP_COMPACT));
	/* the filters are borrowed by the caller only for this call: copy them */
	if (d.n_partition_filters && d.partition_filters) {
		if (!(op->cfilters = loom_calloc(d.n_partition_filters, sizeof(char *))))
			goto oom;
		for (i = 0; i < d.n_partition_filters; i++)
			if (!(op->cfilters[i] = loom_strdup(d.partition_filters[i])))
				goto oom;
		d.partition_filters = (const char *const *)op->cfilters;
	} else {
		d.partition_filters = NULL;
		d.n_partition_filters = 0;
	}
	op->compact = d;
	op->execute = exec_compact;
	op->payload = op;
	*out = op;
	return 0;
oom:
	op->compact.n_partition_filters = d.n_partition_filters;
	loom_op_free(op);
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

LOOM_EXTERN(int) loom_op_zorder(loom_op **out, const loom_zorder_opts *opts)
{
	loom_op *op = NULL;
	size_t i;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_zorder: out is NULL");
	*out = NULL;
	LOOM_TRY(loom_zorder_opts_check(opts));
	LOOM_TRY(op_alloc(&op, "z_order", PLAN_OP_ZORDER));
	op->zcols = loom_calloc(opts->n_columns, sizeof(char *));
	if (!op->zcols)
		goto oom;
	for (i = 0; i < opts->n_columns; i++)
		if (!(op->zcols[i] = loom_strdup(opts->columns[i])))
			goto oom;
	op->zorder = (loom_zorder_opts)LOOM_ZORDER_OPTS_INIT;
	copy_zorder_opts(&op->zorder, opts);
	op->zorder.columns = (const char *const *)op->zcols;
	op->zorder.temp_dir = NULL;
	if (opts->temp_dir && !(op->ztmp = loom_strdup(opts->temp_dir)))
		goto oom;
	op->zorder.temp_dir = op->ztmp;
	op->execute = exec_zorder;
	op->payload = op;
	*out = op;
	return 0;
oom:
	op->zorder.n_columns = opts->n_columns;
	loom_op_free(op);
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

LOOM_EXTERN(const char *) loom_op_name(const loom_op *op)
{
	return op ? op->name : NULL;
}

int plan_op_kind(const loom_op *op)
{
	return op ? op->kind : PLAN_OP_CUSTOM;
}

void plan_op_mark_auto(loom_op *op)
{
	op->kind = PLAN_OP_AUTO;
}

const void *plan_op_auto_payload(const loom_op *op)
{
	return op && op->kind == PLAN_OP_AUTO ? op->payload : NULL;
}

const loom_vacuum_opts *plan_op_vacuum_opts(const loom_op *op)
{
	return op && op->kind == PLAN_OP_VACUUM ? &op->vacuum : NULL;
}

const loom_compact_opts *plan_op_compact_opts(const loom_op *op)
{
	return op && op->kind == PLAN_OP_COMPACT ? &op->compact : NULL;
}

const loom_zorder_opts *plan_op_zorder_opts(const loom_op *op)
{
	return op && op->kind == PLAN_OP_ZORDER ? &op->zorder : NULL;
}

LOOM_EXTERN(loom_op *) loom_op_ref(loom_op *op)
{
	if (op)
		atomic_fetch_add(&op->refs, 1);
	return op;
}

LOOM_EXTERN(void) loom_op_free(loom_op *op)
{
	size_t i;
	if (!op || atomic_fetch_sub(&op->refs, 1) != 1)
		return;
	if ((op->kind == PLAN_OP_CUSTOM || op->kind == PLAN_OP_AUTO) && op->free_payload)
		op->free_payload(op->payload);
	loom_free(op->ztmp);
	if (op->cfilters) {
		for (i = 0; i < op->compact.n_partition_filters; i++)
			loom_free(op->cfilters[i]);
		loom_free(op->cfilters);
	}
	if (op->zcols) {
		for (i = 0; i < op->zorder.n_columns; i++)
			loom_free(op->zcols[i]);
		loom_free(op->zcols);
	}
	loom_free(op->name);
	loom_free(op);
}

int plan_op_execute_with(const loom_op *op, loom_op_result *out, const loom_maintainer *m,
                         const char *uri, const loom_table_location *loc, const loom_cancel *cancel,
                         int64_t commit_every)
{
	if (op && out && commit_every > 0 && op->kind == PLAN_OP_COMPACT && op->compact.commit_every == 0) {
		loom_compact_opts o = op->compact;
		o.commit_every = commit_every;
		LOOM_TRY(need(m, m ? (const void *)m->compact : NULL, "compact"));
		return m->compact(out, m, uri, loc, &o, cancel);
	}
	if (op && out && commit_every > 0 && op->kind == PLAN_OP_ZORDER && op->zorder.commit_every == 0) {
		loom_zorder_opts o = op->zorder;
		o.commit_every = commit_every;
		LOOM_TRY(need(m, m ? (const void *)m->z_order : NULL, "z_order"));
		return m->z_order(out, m, uri, loc, &o, cancel);
	}
	return loom_op_execute(op, out, m, uri, loc, cancel);
}

LOOM_EXTERN(int) loom_op_execute(const loom_op *op, loom_op_result *out,
                                 const loom_maintainer *m, const char *uri,
                                 const loom_table_location *loc, const loom_cancel *cancel)
{
	if (!op || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_execute: NULL argument");
	return op->execute(out, m, uri, loc, cancel, op->payload);
}
