/* plan/op.c - operations (the seed's OpSpec): the built-ins that dispatch
 * to the maintainer (vacuum, compact, z_order, purge, analyze), and custom
 * ones with their own execute. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "ops/opts.h"
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
	loom_purge_opts purge;
	char **pfilters;             /* purge.partition_filters, owned */
	loom_analyze_opts analyze;
	char **acols;                /* analyze.columns, owned */
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

int plan_maintainer_version_ok(const loom_maintainer *m)
{
	return m && m->version >= 1 && m->version <= LOOM_MAINTAINER_VERSION;
}

static int check_version(const loom_maintainer *m)
{
	if (!plan_maintainer_version_ok(m))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "maintainer '%s' has version %u, expected 1 to %u",
		                m->name ? m->name : "?", m->version, LOOM_MAINTAINER_VERSION);
	return 0;
}

static int need(const loom_maintainer *m, const void *fn, const char *what)
{
	if (!m)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: no maintainer backend", what);
	LOOM_TRY(check_version(m));
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
	LOOM_TRY(need(m, m ? (const void *)m->zorder : NULL, "z_order"));
	return m->zorder(out, m, uri, loc, &op->zorder, cancel);
}

/* purge and analyze came with maintainer version 2: an older maintainer
 * has no such member, and it must not be read. */
static int exec_purge(loom_op_result *out, const loom_maintainer *m, const char *uri,
                      const loom_table_location *loc, const loom_cancel *cancel, void *payload)
{
	const loom_op *op = payload;
	if (m)
		LOOM_TRY(check_version(m));
	LOOM_TRY(need(m, m && m->version >= 2 ? (const void *)m->purge : NULL, "purge"));
	return m->purge(out, m, uri, loc, &op->purge, cancel);
}

static int exec_analyze(loom_op_result *out, const loom_maintainer *m, const char *uri,
                        const loom_table_location *loc, const loom_cancel *cancel, void *payload)
{
	const loom_op *op = payload;
	if (m)
		LOOM_TRY(check_version(m));
	LOOM_TRY(need(m, m && m->version >= 2 ? (const void *)m->analyze : NULL, "analyze"));
	return m->analyze(out, m, uri, loc, &op->analyze, cancel);
}

/* A copy of a borrowed string list (NULL for none). */
static int copy_strv(char ***out, const char *const *v, size_t n)
{
	size_t i;
	*out = NULL;
	if (!n || !v)
		return 0;
	if (!(*out = loom_calloc(n, sizeof(char *))))
		return LOOM_ENOMEM;
	for (i = 0; i < n; i++)
		if (!((*out)[i] = loom_strdup(v[i])))
			return LOOM_ENOMEM;
	return 0;
}

static void free_strv(char **v, size_t n)
{
	size_t i;
	for (i = 0; v && i < n; i++)
		loom_free(v[i]);
	loom_free(v);
}

LOOM_EXTERN(int) loom_op_purge(loom_op **out, const loom_purge_opts *opts)
{
	loom_purge_opts o;
	loom_op *op = NULL;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_purge: out is NULL");
	*out = NULL;
	LOOM_TRY(ops_purge_opts_read(&o, opts));
	LOOM_TRY(op_alloc(&op, "purge", PLAN_OP_PURGE));
	op->purge = o;
	op->execute = exec_purge;
	op->payload = op;
	if (copy_strv(&op->pfilters, o.partition_filters, o.n_partition_filters) < 0)
		goto oom;
	op->purge.partition_filters = (const char *const *)op->pfilters;
	if (!op->pfilters)
		op->purge.n_partition_filters = 0;
	*out = op;
	return 0;
oom:
	loom_op_free(op);
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

LOOM_EXTERN(int) loom_op_analyze(loom_op **out, const loom_analyze_opts *opts)
{
	loom_analyze_opts o;
	loom_op *op = NULL;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_analyze: out is NULL");
	*out = NULL;
	LOOM_TRY(ops_analyze_opts_read(&o, opts));
	LOOM_TRY(op_alloc(&op, "analyze", PLAN_OP_ANALYZE));
	op->analyze = o;
	op->execute = exec_analyze;
	op->payload = op;
	if (copy_strv(&op->acols, o.columns, o.n_columns) < 0)
		goto oom;
	op->analyze.columns = (const char *const *)op->acols;
	if (!op->acols)
		op->analyze.n_columns = 0;
	*out = op;
	return 0;
oom:
	loom_op_free(op);
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

LOOM_EXTERN(int) loom_op_vacuum(loom_op **out, const loom_vacuum_opts *opts)
{
	loom_vacuum_opts d;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_vacuum: out is NULL");
	*out = NULL;
	LOOM_TRY(ops_vacuum_opts_read(&d, opts));
	LOOM_TRY(op_alloc(out, "vacuum", PLAN_OP_VACUUM));
	(*out)->vacuum = d;
	(*out)->execute = exec_vacuum;
	(*out)->payload = *out;
	return 0;
}

LOOM_EXTERN(int) loom_op_compact(loom_op **out, const loom_compact_opts *opts)
{
	loom_compact_opts d;
	loom_op *op = NULL; /* set by op_alloc; GCC 12 -O3 cannot tell */
	size_t i;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_compact: out is NULL");
	*out = NULL;
	LOOM_TRY(ops_compact_opts_read(&d, opts));
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
	loom_zorder_opts z;
	loom_op *op = NULL;
	size_t i;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_zorder: out is NULL");
	*out = NULL;
	LOOM_TRY(ops_zorder_opts_read(&z, opts));
	LOOM_TRY(op_alloc(&op, "z_order", PLAN_OP_ZORDER));
	op->zcols = loom_calloc(z.n_columns, sizeof(char *));
	if (!op->zcols)
		goto oom;
	for (i = 0; i < z.n_columns; i++)
		if (!(op->zcols[i] = loom_strdup(z.columns[i])))
			goto oom;
	op->zorder = z;
	op->zorder.columns = (const char *const *)op->zcols;
	op->zorder.temp_dir = NULL;
	if (z.temp_dir && !(op->ztmp = loom_strdup(z.temp_dir)))
		goto oom;
	op->zorder.temp_dir = op->ztmp;
	op->execute = exec_zorder;
	op->payload = op;
	*out = op;
	return 0;
oom:
	op->zorder.n_columns = z.n_columns;
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

const loom_purge_opts *plan_op_purge_opts(const loom_op *op)
{
	return op && op->kind == PLAN_OP_PURGE ? &op->purge : NULL;
}

const loom_analyze_opts *plan_op_analyze_opts(const loom_op *op)
{
	return op && op->kind == PLAN_OP_ANALYZE ? &op->analyze : NULL;
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
	free_strv(op->pfilters, op->purge.n_partition_filters);
	free_strv(op->acols, op->analyze.n_columns);
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
		LOOM_TRY(need(m, m ? (const void *)m->zorder : NULL, "z_order"));
		return m->zorder(out, m, uri, loc, &o, cancel);
	}
	return loom_op_execute(out, op, m, uri, loc, cancel);
}

LOOM_EXTERN(int) loom_op_execute(loom_op_result *out, const loom_op *op, const loom_maintainer *m,
                                 const char *uri, const loom_table_location *loc,
                                 const loom_cancel *cancel)
{
	if (!op || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_execute: NULL argument");
	LOOM_TRY(ops_result_check(out));
	LOOM_TRY(ops_location_check(loc));
	return op->execute(out, m, uri, loc, cancel, op->payload);
}
