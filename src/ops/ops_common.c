/* ops/ops_common.c - op results and the cancel token. */
#include <stdatomic.h>
#include <string.h>

#include "loom/ops.h"
#include "ops/opts.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

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
	unsigned int version;
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
	version = r->version;
	memset(r, 0, sizeof(*r));   /* every field of version 1: all have them */
	r->version = version;
}

LOOM_EXTERN(int) loom_op_result_copy(loom_op_result *dst, const loom_op_result *src)
{
	size_t i;
	LOOM_TRY(ops_result_check(dst));
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
