/* plan/auto.c - the "auto" op: health -> advice -> only the recommended
 * operations, each decision noted in the report (loom/auto.h has the
 * rules). */
#include <stdio.h>
#include <string.h>

#include "loom/auto.h"
#include "loom/checkpoint.h"
#include "ops/opts.h"
#include "plan/plan_int.h"
#include "plan/report_int.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/versioned.h"

typedef struct auto_payload {
	loom_health_policy policy;
	int has_vacuum, has_compact, has_zorder;
	loom_vacuum_opts vacuum;
	loom_compact_opts compact;
	loom_zorder_opts zorder;
	char **zcols;
	char *ztmp;
} auto_payload;

static void payload_free(void *p)
{
	auto_payload *a = p;
	size_t i;
	if (!a)
		return;
	for (i = 0; a->zcols && i < a->zorder.n_columns; i++)
		loom_free(a->zcols[i]);
	loom_free(a->zcols);
	loom_free(a->ztmp);
	loom_free(a);
}

/* Run one sub-operation's result into the auto result: "<op>.ran" and its
 * metrics as "<op>.<metric>". */
static int fold(loom_op_result *out, const char *op, const loom_op_result *r)
{
	char key[256];
	size_t i;
	snprintf(key, sizeof(key), "%s.ran", op);
	LOOM_TRY(loom_op_result_set_metric(out, key, 1));
	for (i = 0; r && i < r->n_metrics; i++) {
		snprintf(key, sizeof(key), "%s.%s", op, r->metrics[i].name);
		LOOM_TRY(loom_op_result_set_metric(out, key, r->metrics[i].value));
	}
	if (r && r->kind == LOOM_RESULT_VACUUM) {
		snprintf(key, sizeof(key), "%s.files", op);
		LOOM_TRY(loom_op_result_set_metric(out, key, (int64_t)r->n_files_deleted));
	}
	return 0;
}

static int skipped(loom_op_result *out, const char *op, const char *why)
{
	char key[256];
	snprintf(key, sizeof(key), "%s.ran", op);
	LOOM_TRY(loom_op_result_set_metric(out, key, 0));
	return plan_note("%s: skipped: %s", op, why);
}

static int health(loom_health **h, const auto_payload *a, const char *uri,
                  const loom_table_location *loc)
{
	loom_health_policy p = a->policy;
	loom_health_free(*h);
	*h = NULL;
	if (a->has_zorder) {
		p.zorder_columns = a->zorder.columns;
		p.n_zorder_columns = a->zorder.n_columns;
	}
	return loom_health_load(h, uri, loc, &p);
}

static int rec(const loom_health *h, const char *op)
{
	const loom_advice *ad = loom_health_advice_for(h, op);
	return ad && ad->recommended;
}

static const char *why(const loom_health *h, const char *op)
{
	const loom_advice *ad = loom_health_advice_for(h, op);
	return ad && ad->reason ? ad->reason : "not considered";
}

/* Z-order or compaction: 1 when something was committed. */
static int rewrite(loom_op_result *out, const auto_payload *a, const loom_health *h,
                   const loom_maintainer *m, const char *uri, const loom_table_location *loc,
                   const loom_cancel *cancel, int *committed)
{
	loom_op_result r = LOOM_OP_RESULT_INIT;
	int rc;
	const loom_health_table *t = loom_health_summary(h);
	int z = rec(h, "z_order");
	int c = rec(h, "compact") || rec(h, "purge_dvs") || rec(h, "cluster");
	*committed = 0;
	if (z) {
		loom_zorder_opts zo = LOOM_ZORDER_OPTS_INIT;
		const char *cols[64];
		size_t i;
		if (a->has_zorder) {
			zo = a->zorder;
		} else {
			for (i = 0; i < t->n_columns && i < 64; i++)
				cols[i] = t->columns[i].column;
			zo.columns = cols;
			zo.n_columns = i;
		}
		if (!zo.target_size)
			zo.target_size = t->target_size;
		LOOM_TRY(plan_note("z_order: ran: %s", why(h, "z_order")));
		if (c)
			LOOM_TRY(skipped(out, "compact", "the Z-order rewrites and bin-packs the same files"));
		else
			LOOM_TRY(skipped(out, "compact", why(h, "compact")));
		rc = m->zorder(&r, m, uri, loc, &zo, cancel);
		if (rc == 0)
			rc = fold(out, "z_order", &r);
	} else if (c) {
		loom_compact_opts co = LOOM_COMPACT_OPTS_INIT;
		if (a->has_compact)
			co = a->compact;
		if (!co.target_size)
			co.target_size = t->target_size;
		LOOM_TRY(plan_note("compact: ran: %s", rec(h, "compact") ? why(h, "compact")
		                   : rec(h, "purge_dvs") ? why(h, "purge_dvs") : why(h, "cluster")));
		LOOM_TRY(skipped(out, "z_order", why(h, loom_health_advice_for(h, "cluster")
		                                       ? "cluster" : "z_order")));
		rc = m->compact(&r, m, uri, loc, &co, cancel);
		if (rc == 0)
			rc = fold(out, "compact", &r);
	} else {
		LOOM_TRY(skipped(out, "compact", rec(h, "purge_dvs") ? why(h, "purge_dvs")
		                                                     : why(h, "compact")));
		return skipped(out, "z_order", why(h, loom_health_advice_for(h, "cluster") ? "cluster"
		                                                                         : "z_order"));
	}
	*committed = rc == 0 && loom_op_result_metric(&r, "version", -1) >= 0;
	loom_op_result_free(&r);
	return rc;
}

static int exec_auto(loom_op_result *out, const loom_maintainer *m, const char *uri,
                     const loom_table_location *loc, const loom_cancel *cancel, void *payload)
{
	const auto_payload *a = payload;
	loom_health *h = NULL;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	int rc, committed = 0;

	plan_notes_clear();
	if (!m || !m->compact || !m->zorder || !m->vacuum)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "auto: the maintainer must implement vacuum, compact and z_order");
	if ((rc = health(&h, a, uri, loc)) < 0)
		goto fail;
	if ((rc = rewrite(out, a, h, m, uri, loc, cancel, &committed)) < 0)
		goto fail;
	if (committed && (rc = health(&h, a, uri, loc)) < 0)
		goto fail;

	if (rec(h, "vacuum")) {
		loom_vacuum_opts vo = LOOM_VACUUM_OPTS_INIT;
		if (a->has_vacuum)
			vo = a->vacuum;
		vo.retention_check = 1;   /* never below the table's retention */
		if ((rc = plan_note("vacuum: ran%s: %s", vo.dry_run ? " (dry run, as declared)" : "",
		                    why(h, "vacuum"))) < 0 ||
		    (rc = m->vacuum(&r, m, uri, loc, &vo, cancel)) < 0 ||
		    (rc = fold(out, "vacuum", &r)) < 0)
			goto fail;
		committed = !vo.dry_run;
		loom_op_result_free(&r);
		if (committed && (rc = health(&h, a, uri, loc)) < 0)
			goto fail;
	} else if ((rc = skipped(out, "vacuum", why(h, "vacuum"))) < 0) {
		goto fail;
	}

	if (rec(h, "analyze")) {
		loom_analyze_opts ao = LOOM_ANALYZE_OPTS_INIT;
		if ((rc = plan_note("analyze: ran: %s", why(h, "analyze"))) < 0 ||
		    (rc = loom_analyze(&r, uri, loc, &ao, cancel)) < 0 ||
		    (rc = fold(out, "analyze", &r)) < 0)
			goto fail;
		loom_op_result_free(&r);
		if ((rc = health(&h, a, uri, loc)) < 0)
			goto fail;
	} else if ((rc = skipped(out, "analyze", why(h, "analyze"))) < 0) {
		goto fail;
	}

	if (rec(h, "checkpoint")) {
		loom_checkpoint_opts co = LOOM_CHECKPOINT_OPTS_INIT;
		if ((rc = plan_note("checkpoint: ran: %s", why(h, "checkpoint"))) < 0 ||
		    (rc = loom_checkpoint(&r, uri, loc, &co, cancel)) < 0 ||
		    (rc = fold(out, "checkpoint", &r)) < 0)
			goto fail;
		loom_op_result_free(&r);
		if ((rc = health(&h, a, uri, loc)) < 0)
			goto fail;
	} else if ((rc = skipped(out, "checkpoint", why(h, "checkpoint"))) < 0) {
		goto fail;
	}

	if (rec(h, "cleanup_logs")) {
		loom_cleanup_logs_opts lo = LOOM_CLEANUP_LOGS_OPTS_INIT;
		lo.dry_run = 0;   /* expired files only, as Delta cleans after checkpoints */
		if ((rc = plan_note("cleanup_logs: ran: %s", why(h, "cleanup_logs"))) < 0 ||
		    (rc = loom_cleanup_logs(&r, uri, loc, &lo, cancel)) < 0 ||
		    (rc = fold(out, "cleanup_logs", &r)) < 0)
			goto fail;
		loom_op_result_free(&r);
	} else if ((rc = skipped(out, "cleanup_logs", why(h, "cleanup_logs"))) < 0) {
		goto fail;
	}
	loom_health_free(h);
	return 0;
fail:
	loom_op_result_free(&r);
	loom_health_free(h);
	plan_notes_clear();   /* a failed op adds no entry: its notes must not
	                       * attach to the next op on this thread */
	return rc;
}

static int copy_opts(auto_payload *p, const loom_auto_opts *o)
{
	size_t i;
	p->policy = o->policy;
	p->policy.zorder_columns = NULL;
	p->policy.n_zorder_columns = 0;
	if (o->vacuum) {
		LOOM_TRY(ops_vacuum_opts_read(&p->vacuum, o->vacuum));
		p->has_vacuum = 1;
	}
	if (o->compact) {
		LOOM_TRY(ops_compact_opts_read(&p->compact, o->compact));
		p->compact.partition_filters = NULL;   /* auto decides where */
		p->compact.n_partition_filters = 0;
		p->has_compact = 1;
	}
	if (o->zorder) {
		loom_zorder_opts z;
		LOOM_TRY(ops_zorder_opts_read(&z, o->zorder));
		p->zorder = z;
		p->zorder.n_columns = 0;
		p->zorder.temp_dir = NULL;
		if (!(p->zcols = loom_calloc(z.n_columns, sizeof(char *))))
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
		for (i = 0; i < z.n_columns; i++) {
			if (!(p->zcols[i] = loom_strdup(z.columns[i])))
				return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
			p->zorder.n_columns++;
		}
		p->zorder.columns = (const char *const *)p->zcols;
		if (z.temp_dir && !(p->ztmp = loom_strdup(z.temp_dir)))
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
		p->zorder.temp_dir = p->ztmp;
		p->has_zorder = 1;
	}
	return 0;
}

int plan_auto_settings(const loom_op *op, const loom_health_policy **policy,
                       const loom_vacuum_opts **vacuum, const loom_compact_opts **compact,
                       const loom_zorder_opts **zorder)
{
	const auto_payload *a = plan_op_auto_payload(op);
	if (!a)
		return -1;
	*policy = &a->policy;
	*vacuum = a->has_vacuum ? &a->vacuum : NULL;
	*compact = a->has_compact ? &a->compact : NULL;
	*zorder = a->has_zorder ? &a->zorder : NULL;
	return 0;
}

/* The auto options' versions (util/versioned.h). */
LOOM_VERSIONS(auto_versions, loom_auto_opts, LOOM_AUTO_OPTS_VERSION, LOOM_AUTO_OPTS_INIT,
              sizeof(loom_auto_opts));

LOOM_VERSIONED_INIT_FN(auto_opts, auto_versions)

LOOM_EXTERN(int) loom_op_auto(loom_op **out, const loom_auto_opts *opts)
{
	loom_auto_opts o;
	auto_payload *p;
	int rc;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_op_auto: out is NULL");
	*out = NULL;
	LOOM_TRY(loom_versioned_read(&auto_versions, &o, opts));
	LOOM_TRY(loom_health_policy_check(&o.policy));
	if (!(p = loom_calloc(1, sizeof(*p))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	if ((rc = copy_opts(p, &o)) < 0 ||
	    (rc = loom_op_new(out, "auto", exec_auto, p, payload_free)) < 0) {
		payload_free(p);
		return rc;
	}
	plan_op_mark_auto(*out);   /* declaration rules: nothing it decides beside it */
	return 0;
}

LOOM_EXTERN(int) loom_decl_auto(loom_decl *d, const loom_auto_opts *opts)
{
	loom_op *op = NULL;
	int rc;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "auto: declaration is NULL");
	if ((rc = loom_op_auto(&op, opts)) < 0)
		return rc;
	return loom_decl_add_op(d, op);
}
