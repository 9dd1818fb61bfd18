/* ops/ops_common.c - option initialisers and checks, op results, the cancel
 * token. */
#include <stdatomic.h>
#include <string.h>

#include "loom/ops.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

LOOM_EXTERN(int) loom_vacuum_opts_init(loom_vacuum_opts *o, unsigned int version)
{
	const loom_vacuum_opts d = LOOM_VACUUM_OPTS_INIT;
	if (!o || version != LOOM_VACUUM_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_vacuum_opts_init: unknown version %u", version);
	*o = d;
	return 0;
}

LOOM_EXTERN(int) loom_compact_opts_init(loom_compact_opts *o, unsigned int version)
{
	const loom_compact_opts d = LOOM_COMPACT_OPTS_INIT;
	if (!o || version != LOOM_COMPACT_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_compact_opts_init: unknown version %u", version);
	*o = d;
	return 0;
}

LOOM_EXTERN(int) loom_zorder_opts_init(loom_zorder_opts *o, unsigned int version)
{
	const loom_zorder_opts d = LOOM_ZORDER_OPTS_INIT;
	if (!o || version != LOOM_ZORDER_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_zorder_opts_init: unknown version %u", version);
	*o = d;
	return 0;
}

/* A switch of an options struct: 0 or 1. Bindings fill the structs from
 * their own values (ctypes, cffi ...); anything else is a conversion bug
 * upstream, and guessing (any non-zero = on) could delete files the
 * caller meant to keep, so it is refused. */
static int check_switch(const char *op, const char *field, int value)
{
	if (value != 0 && value != 1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: %s must be 0 or 1, got %d",
		                op, field, value);
	return 0;
}

LOOM_EXTERN(int) loom_vacuum_opts_check(const loom_vacuum_opts *o)
{
	if (!o)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "vacuum: options are NULL");
	if (o->version != LOOM_VACUUM_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "vacuum: options version %u; initialise them with "
		                "LOOM_VACUUM_OPTS_INIT", o->version);
	if (o->retention_hours < 0 && o->retention_hours != LOOM_RETENTION_TABLE_DEFAULT)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "vacuum: retention_hours %lld is negative",
		                (long long)o->retention_hours);
	LOOM_TRY(check_switch("vacuum", "dry_run", o->dry_run));
	LOOM_TRY(check_switch("vacuum", "full", o->full));
	return check_switch("vacuum", "retention_check", o->retention_check);
}

LOOM_EXTERN(int) loom_compact_opts_check(const loom_compact_opts *o)
{
	if (!o)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "compact: options are NULL");
	if (o->version < 1 || o->version > LOOM_COMPACT_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: options version %u; initialise them with "
		                "LOOM_COMPACT_OPTS_INIT", o->version);
	if (o->version >= 3 && o->commit_every < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: commit_every %lld is negative", (long long)o->commit_every);
	if (o->target_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: target_size %lld is not positive",
		                (long long)o->target_size);
	if (o->version >= 2 && o->copy_row_group_min_size < 0 &&
	    o->copy_row_group_min_size != LOOM_COPY_ROW_GROUPS_OFF)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: copy_row_group_min_size %lld is negative",
		                (long long)o->copy_row_group_min_size);
	return check_switch("compact", "dry_run", o->dry_run);
}

LOOM_EXTERN(int) loom_zorder_opts_check(const loom_zorder_opts *o)
{
	size_t i, j;
	if (!o)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "z_order: options are NULL");
	if (o->version < 1 || o->version > LOOM_ZORDER_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order: options version %u; initialise them with "
		                "LOOM_ZORDER_OPTS_INIT", o->version);
	if (o->version >= 2 && o->commit_every < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order: commit_every %lld is negative", (long long)o->commit_every);
	if (o->n_columns == 0 || !o->columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: the column list is empty");
	for (i = 0; i < o->n_columns; i++) {
		if (!o->columns[i] || !o->columns[i][0])
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
			                "z_order_by: column %zu is empty", i);
		for (j = 0; j < i; j++)
			if (strcmp(o->columns[i], o->columns[j]) == 0)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
				                "z_order_by: column '%s' is listed twice",
				                o->columns[i]);
	}
	if (o->target_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: target_size %lld is not positive",
		                (long long)o->target_size);
	if (o->spill_limit < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: spill_limit %lld is negative",
		                (long long)o->spill_limit);
	if (o->curve < LOOM_ZORDER_CURVE_AUTO || o->curve > LOOM_ZORDER_CURVE_HILBERT)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "z_order_by: unknown curve %d", o->curve);
	LOOM_TRY(check_switch("z_order_by", "full", o->full));
	LOOM_TRY(check_switch("z_order_by", "dry_run", o->dry_run));
	if (o->memory_budget < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: memory_budget %lld is negative", (long long)o->memory_budget);
	return 0;
}

LOOM_EXTERN(int) loom_zorder_curve_from_name(int *curve, const char *name)
{
	static const struct { const char *name; int curve; } names[] = {
		{ "z", LOOM_ZORDER_CURVE_Z }, { "zorder", LOOM_ZORDER_CURVE_Z },
		{ "morton", LOOM_ZORDER_CURVE_Z }, { "hilbert", LOOM_ZORDER_CURVE_HILBERT },
		{ "auto", LOOM_ZORDER_CURVE_AUTO },
	};
	size_t i;
	for (i = 0; name && curve && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0) {
			*curve = names[i].curve;
			return 0;
		}
	return LOOM_EINVAL;
}

LOOM_EXTERN(const char *) loom_zorder_curve_name(int curve)
{
	switch (curve) {
	case LOOM_ZORDER_CURVE_AUTO: return "auto";
	case LOOM_ZORDER_CURVE_Z: return "z";
	case LOOM_ZORDER_CURVE_HILBERT: return "hilbert";
	default: return NULL;
	}
}

/* ---- results ---------------------------------------------------------- */

LOOM_EXTERN(int) loom_op_result_add_deleted(loom_op_result *r, const char *path)
{
	char **grown;
	char *copy;
	if (!r || !path)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "add_deleted: NULL argument");
	copy = loom_strdup(path);
	if (!copy)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	grown = loom_reallocarray(r->files_deleted, r->n_files_deleted + 1, sizeof(*grown));
	if (!grown) {
		loom_free(copy);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	grown[r->n_files_deleted++] = copy;
	r->files_deleted = grown;
	r->kind = LOOM_RESULT_VACUUM;
	return 0;
}

LOOM_EXTERN(int) loom_op_result_set_metric(loom_op_result *r, const char *name, int64_t value)
{
	loom_metric *grown;
	size_t i;
	char *copy;
	if (!r || !name)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "set_metric: NULL argument");
	for (i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0) {
			r->metrics[i].value = value;
			return 0;
		}
	copy = loom_strdup(name);
	if (!copy)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	grown = loom_reallocarray(r->metrics, r->n_metrics + 1, sizeof(*grown));
	if (!grown) {
		loom_free(copy);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	grown[r->n_metrics].name = copy;
	grown[r->n_metrics].value = value;
	r->n_metrics++;
	r->metrics = grown;
	return 0;
}

LOOM_EXTERN(int) loom_op_result_add_upload(loom_op_result *r, const char *key,
                                           int64_t initiated_ms, int64_t bytes)
{
	loom_upload_info *grown;
	char *copy;
	if (!r || !key)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "add_upload: NULL argument");
	copy = loom_strdup(key);
	if (!copy)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	grown = loom_reallocarray(r->uploads, r->n_uploads + 1, sizeof(*grown));
	if (!grown) {
		loom_free(copy);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	grown[r->n_uploads].key = copy;
	grown[r->n_uploads].initiated_ms = initiated_ms;
	grown[r->n_uploads].bytes = bytes;
	r->n_uploads++;
	r->uploads = grown;
	return 0;
}

LOOM_EXTERN(int64_t) loom_op_result_metric(const loom_op_result *r, const char *name,
                                          int64_t dflt)
{
	size_t i;
	if (!r || !name)
		return dflt;
	for (i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0)
			return r->metrics[i].value;
	return dflt;
}

LOOM_EXTERN(void) loom_op_result_free(loom_op_result *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->n_files_deleted; i++)
		loom_free(r->files_deleted[i]);
	loom_free(r->files_deleted);
	for (i = 0; i < r->n_metrics; i++)
		loom_free(r->metrics[i].name);
	loom_free(r->metrics);
	for (i = 0; i < r->n_uploads; i++)
		loom_free(r->uploads[i].key);
	loom_free(r->uploads);
	memset(r, 0, sizeof(*r));
}

LOOM_EXTERN(int) loom_op_result_copy(loom_op_result *dst, const loom_op_result *src)
{
	size_t i;
	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n_files_deleted; i++)
		if (loom_op_result_add_deleted(dst, src->files_deleted[i]) < 0)
			goto fail;
	for (i = 0; i < src->n_metrics; i++)
		if (loom_op_result_set_metric(dst, src->metrics[i].name, src->metrics[i].value) < 0)
			goto fail;
	for (i = 0; i < src->n_uploads; i++)
		if (loom_op_result_add_upload(dst, src->uploads[i].key, src->uploads[i].initiated_ms,
		                              src->uploads[i].bytes) < 0)
			goto fail;
	dst->kind = src->kind;
	dst->dry_run = src->dry_run;
	dst->num_files_added = src->num_files_added;
	dst->num_files_removed = src->num_files_removed;
	return 0;
fail:
	loom_op_result_free(dst);
	return LOOM_ENOMEM;
}

/* ---- cancel token ----------------------------------------------------- */

struct loom_cancel {
	atomic_int flag;
	atomic_llong deadline_ns;   /* monotonic clock; 0: none */
};

LOOM_EXTERN(int) loom_cancel_new(loom_cancel **out)
{
	loom_cancel *c;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "loom_cancel_new: out is NULL");
	*out = NULL;
	if (!(c = loom_malloc(sizeof(*c))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory");
	atomic_init(&c->flag, 0);
	atomic_init(&c->deadline_ns, 0);
	*out = c;
	return 0;
}

LOOM_EXTERN(void) loom_cancel_request(loom_cancel *c)
{
	if (c)
		atomic_store(&c->flag, 1);
}

LOOM_EXTERN(void) loom_cancel_reset(loom_cancel *c)
{
	if (c) {
		atomic_store(&c->flag, 0);
		atomic_store(&c->deadline_ns, 0);
	}
}

LOOM_EXTERN(void) loom_cancel_free(loom_cancel *c)
{
	loom_free(c);
}

LOOM_EXTERN(void) loom_cancel_set_deadline(loom_cancel *c, double seconds)
{
	if (c)
		atomic_store(&c->deadline_ns, seconds > 0 ? loom_clock_mono_ns(loom_clock_system()) +
		                                            (long long)(seconds * 1e9) : 0);
}

LOOM_EXTERN(int) loom_cancel_past_deadline(const loom_cancel *c)
{
	long long d = c ? atomic_load(&((loom_cancel *)c)->deadline_ns) : 0;
	return d > 0 && loom_clock_mono_ns(loom_clock_system()) >= d;
}

LOOM_EXTERN(int) loom_cancel_requested(const loom_cancel *c)
{
	/* atomic_load needs a non-const object in C11. */
	return c ? atomic_load(&((loom_cancel *)c)->flag) != 0 || loom_cancel_past_deadline(c) : 0;
}

LOOM_EXTERN(int) loom_purge_opts_init(loom_purge_opts *o, unsigned int version)
{
	const loom_purge_opts d = LOOM_PURGE_OPTS_INIT;
	if (!o || version != LOOM_PURGE_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_purge_opts_init: unknown version %u", version);
	*o = d;
	return 0;
}

LOOM_EXTERN(int) loom_analyze_opts_init(loom_analyze_opts *o, unsigned int version)
{
	const loom_analyze_opts d = LOOM_ANALYZE_OPTS_INIT;
	if (!o || version != LOOM_ANALYZE_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_analyze_opts_init: unknown version %u", version);
	*o = d;
	return 0;
}

LOOM_EXTERN(int) loom_purge_opts_check(const loom_purge_opts *o)
{
	if (!o)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "purge: options are NULL");
	if (o->version != LOOM_PURGE_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "purge: options version %u; initialise them with LOOM_PURGE_OPTS_INIT", o->version);
	if (o->target_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "purge: target_size %lld is not positive",
		                (long long)o->target_size);
	return check_switch("purge", "dry_run", o->dry_run);
}

LOOM_EXTERN(int) loom_analyze_opts_check(const loom_analyze_opts *o)
{
	size_t i, j;
	if (!o)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "analyze: options are NULL");
	if (o->version != LOOM_ANALYZE_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "analyze: options version %u; initialise them with LOOM_ANALYZE_OPTS_INIT",
		                o->version);
	if (o->n_columns && !o->columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "analyze: %zu columns but no list", o->n_columns);
	for (i = 0; i < o->n_columns; i++) {
		if (!o->columns[i] || !o->columns[i][0])
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "analyze: column %zu is empty", i);
		for (j = 0; j < i; j++)
			if (strcmp(o->columns[i], o->columns[j]) == 0)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "analyze: column '%s' is listed twice",
				                o->columns[i]);
	}
	LOOM_TRY(check_switch("analyze", "all", o->all));
	return check_switch("analyze", "dry_run", o->dry_run);
}
