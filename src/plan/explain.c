/* plan/explain.c - the config's maintenance block as a step, and a
 * description of what a step would do (describe before executing: a
 * reviewable plan costs nothing). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "loom/auto.h"
#include "loom/health.h"
#include "plan/config_int.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

int plan_config_schedules_ops(const loom_config *cfg)
{
	return cfg->has_maintenance &&
	       (cfg->has_vacuum || cfg->has_compact || cfg->has_zorder || cfg->has_auto ||
	        cfg->has_purge || cfg->has_analyze);
}

int plan_config_block_runs(const loom_config *cfg)
{
	return plan_config_schedules_ops(cfg) || (cfg->has_maintenance && cfg->n_schemas);
}

LOOM_EXTERN(int) loom_config_maintenance_auto(loom_auto_opts *out, const loom_config *cfg)
{
	if (!cfg || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "loom_config_maintenance_auto: NULL argument");
	memset(out, 0, sizeof(*out));
	out->version = LOOM_AUTO_OPTS_VERSION;
	if (cfg->has_maintenance)
		out->policy = cfg->auto_policy;
	else
		loom_health_policy_init(&out->policy, LOOM_HEALTH_POLICY_VERSION);
	out->vacuum = cfg->has_vacuum ? &cfg->vacuum : NULL;
	out->compact = cfg->has_compact ? &cfg->compact : NULL;
	out->zorder = cfg->has_zorder ? &cfg->zorder.opts : NULL;
	return cfg->has_auto;
}

/* purge and analyze come after the rewrite (compaction already purges the
 * files whose DVs delete more than 5 % and writes stats: less left to do);
 * they are not auto's decisions, so in auto mode too they run as declared. */
static int block_purge_analyze(loom_decl *d, const loom_config *cfg)
{
	if (cfg->has_purge)
		LOOM_TRY(loom_decl_purge(d, &cfg->purge.opts));
	if (cfg->has_analyze)
		LOOM_TRY(loom_decl_analyze(d, &cfg->analyze.opts));
	return 0;
}

/* The declaration of one schema of the block (every route when it lists
 * none), with the block's ops -- or, in auto mode, the auto op with those
 * ops as its settings. Schemas without ops still list their tables, each
 * with no results, as loom-py's run_from_config does. */
static int block_decl(loom_step *step, const loom_config *cfg, size_t i, int automatic)
{
	loom_decl *d;
	LOOM_TRY(cfg->n_schemas ? loom_maintain_schema(&d, cfg->schemas[i]) : plan_maintain_all(&d));
	LOOM_TRY(loom_step_add(step, d));   /* the step owns it now (freed if adding fails) */
	if (automatic) {
		loom_auto_opts a;
		LOOM_TRY(loom_config_maintenance_auto(&a, cfg));
		LOOM_TRY(loom_decl_auto(d, &a));
		return block_purge_analyze(d, cfg);
	}
	if (!plan_config_schedules_ops(cfg))
		plan_decl_allow_no_ops(d);
	if (cfg->has_vacuum)
		LOOM_TRY(loom_decl_vacuum(d, &cfg->vacuum));
	if (cfg->has_compact)
		LOOM_TRY(loom_decl_compact(d, &cfg->compact));
	if (cfg->has_zorder)
		LOOM_TRY(loom_decl_zorder(d, &cfg->zorder.opts));
	return block_purge_analyze(d, cfg);
}

static int block_step(loom_step **out, const loom_config *cfg, const char *name, int automatic)
{
	loom_step *step;
	size_t i;
	int rc;
	*out = NULL;
	/* compact and z_order_by both on: loaded, but the block cannot run
	 * (loom-py's rule) -- unless they are auto's settings, of which auto
	 * uses one per table */
	if (cfg->exclusive_line && !automatic)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "%s:%d:%d: maintenance: compact and z_order_by are mutually "
		                "exclusive (Z-order already rewrites and bin-packs the files); "
		                "schedule one of them", cfg->source, cfg->exclusive_line,
		                cfg->exclusive_col);
	LOOM_TRY(loom_step_new(&step, name));
	if (!automatic && !plan_config_block_runs(cfg)) {
		*out = step;
		return 0;
	}
	/* no schemas: every tables[] route, as loom's Python ETL reads it */
	for (i = 0; i < (cfg->n_schemas ? cfg->n_schemas : 1); i++)
		if ((rc = block_decl(step, cfg, i, automatic)) < 0) {
			loom_err_wrap("%s: maintenance block", cfg->source);
			loom_step_free(step);
			return rc;
		}
	*out = step;
	return 0;
}

LOOM_EXTERN(int) loom_step_from_config(loom_step **out, const loom_config *cfg)
{
	if (!out || !cfg)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_step_from_config: NULL argument");
	return block_step(out, cfg, "maintenance", cfg->has_auto);
}

LOOM_EXTERN(int) loom_step_auto_from_config(loom_step **out, const loom_config *cfg)
{
	if (!out || !cfg)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_step_auto_from_config: NULL argument");
	return block_step(out, cfg, "auto", 1);
}

static json_t *op_json(const loom_op *op);

/* auto: its policy and the settings of what it may run ("vacuum": {...},
 * null when not declared, so the defaults) */
static json_t *auto_json(const loom_op *op)
{
	const loom_health_policy *p;
	const loom_vacuum_opts *v;
	const loom_compact_opts *c;
	const loom_zorder_opts *z;
	json_t *o;
	loom_op *tmp = NULL;
	if (plan_auto_settings(op, &p, &v, &c, &z) < 0)
		return NULL;
	o = json_object();
	json_object_set_new(o, "policy", plan_policy_json(p));
	/* the settings as the built-in ops would show them */
	json_object_set_new(o, "vacuum", v && loom_op_vacuum(&tmp, v) == 0 ? op_json(tmp) : json_null());
	loom_op_free(tmp);
	tmp = NULL;
	json_object_set_new(o, "compact", c && loom_op_compact(&tmp, c) == 0 ? op_json(tmp)
	                                                                    : json_null());
	loom_op_free(tmp);
	tmp = NULL;
	json_object_set_new(o, "z_order", z && loom_op_zorder(&tmp, z) == 0 ? op_json(tmp)
	                                                                   : json_null());
	loom_op_free(tmp);
	return o;
}

static json_t *op_json(const loom_op *op)
{
	json_t *o = json_object();
	const loom_vacuum_opts *v = plan_op_vacuum_opts(op);
	const loom_compact_opts *c = plan_op_compact_opts(op);
	const loom_zorder_opts *z = plan_op_zorder_opts(op);
	const loom_purge_opts *pu = plan_op_purge_opts(op);
	const loom_analyze_opts *an = plan_op_analyze_opts(op);
	json_t *a = auto_json(op);
	json_object_set_new(o, "name", plan_json_str(loom_op_name(op)));
	if (a) {
		json_object_update(o, a);
		json_decref(a);
	} else if (v) {
		json_object_set_new(o, "retention_hours", v->retention_hours >= 0
		                    ? json_integer(v->retention_hours) : json_null());
		json_object_set_new(o, "dry_run", json_boolean(v->dry_run));
		json_object_set_new(o, "full", json_boolean(v->full));
	} else if (c) {
		json_object_set_new(o, "target_size", c->target_size ? json_integer(c->target_size)
		                                                     : json_null());
	} else if (z) {
		json_t *zo = plan_zorder_json(z);
		json_object_update(o, zo);
		json_decref(zo);
	} else if (pu || an) {
		json_t *x = pu ? plan_purge_json(pu) : plan_analyze_json(an);
		json_object_update(o, x);
		json_decref(x);
	} else {
		json_object_set_new(o, "custom", json_true());
	}
	return o;
}

static void op_text(int *brcp, loom_buf *b, const loom_op *op)
{
	const loom_vacuum_opts *v = plan_op_vacuum_opts(op);
	const loom_compact_opts *c = plan_op_compact_opts(op);
	const loom_zorder_opts *z = plan_op_zorder_opts(op);
	size_t i;
	const loom_health_policy *p;
	const loom_vacuum_opts *av;
	const loom_compact_opts *ac;
	const loom_zorder_opts *az;
	const loom_purge_opts *pu = plan_op_purge_opts(op);
	const loom_analyze_opts *an = plan_op_analyze_opts(op);
	plan_bprintf(brcp, b, "    %s", loom_op_name(op));
	if (plan_auto_settings(op, &p, &av, &ac, &az) == 0) {
		/* the thresholds (sizes only when set), then what auto may delete */
		plan_bprintf(brcp, b, " min_small_files=%lld dv_purge_ratio=%g max_clustering_depth=%g"
		             " checkpoint_commits=%lld min_vacuum_files=%lld min_expired_logs=%lld"
		             " min_files_without_stats=%lld",
		             (long long)p->min_small_files, p->dv_purge_ratio, p->max_clustering_depth,
		             (long long)p->checkpoint_commits, (long long)p->min_vacuum_files,
		             (long long)p->min_expired_logs, (long long)p->min_files_without_stats);
		if (p->target_size)
			plan_bprintf(brcp, b, " target_size=%lld", (long long)p->target_size);
		plan_bprintf(brcp, b, " vacuum=%s", !av || av->dry_run ? "dry-run" : "DELETE");
		if (az) {
			plan_bprintf(brcp, b, "%s", " z_order_by=");
			for (i = 0; i < az->n_columns; i++)
				plan_bprintf(brcp, b, "%s%s", i ? "," : "", az->columns[i]);
		}
	} else if (v) {
		if (v->retention_hours >= 0)
			plan_bprintf(brcp, b, " retention=%lldh", (long long)v->retention_hours);
		else
			plan_bprintf(brcp, b, "%s", " retention=table-default");
		plan_bprintf(brcp, b, " %s%s", v->dry_run ? "dry-run" : "DELETE", v->full ? " full" : " lite");
	} else if (c) {
		if (c->target_size)
			plan_bprintf(brcp, b, " target_size=%lld", (long long)c->target_size);
	} else if (z) {
		plan_bprintf(brcp, b, "%s", " by ");
		for (i = 0; i < z->n_columns; i++)
			plan_bprintf(brcp, b, "%s%s", i ? "," : "", z->columns[i]);
		if (z->target_size)
			plan_bprintf(brcp, b, " target_size=%lld", (long long)z->target_size);
		if (z->curve != LOOM_ZORDER_CURVE_AUTO)
			plan_bprintf(brcp, b, " curve=%s", loom_zorder_curve_name(z->curve));
		if (z->memory_budget)
			plan_bprintf(brcp, b, " memory=%lld", (long long)z->memory_budget);
		if (z->temp_dir)
			plan_bprintf(brcp, b, " temp_dir=%s", z->temp_dir);
		if (z->spill_limit)
			plan_bprintf(brcp, b, " spill_limit=%lld", (long long)z->spill_limit);
		plan_bprintf(brcp, b, "%s%s", z->full ? " full" : "", z->dry_run ? " dry-run" : "");
	} else if (pu) {
		for (i = 0; i < pu->n_partition_filters; i++)
			plan_bprintf(brcp, b, " partition=%s", pu->partition_filters[i]);
		if (pu->target_size)
			plan_bprintf(brcp, b, " target_size=%lld", (long long)pu->target_size);
		plan_bprintf(brcp, b, "%s", pu->dry_run ? " dry-run" : "");
	} else if (an) {
		if (an->n_columns)
			plan_bprintf(brcp, b, "%s", " columns=");
		for (i = 0; i < an->n_columns; i++)
			plan_bprintf(brcp, b, "%s%s", i ? "," : "", an->columns[i]);
		plan_bprintf(brcp, b, "%s%s", an->all ? " all" : "", an->dry_run ? " dry-run" : "");
	} else {
		plan_bprintf(brcp, b, "%s", " (custom)");
	}
	plan_bprintf(brcp, b, "%s", "\n");
}

LOOM_EXTERN(int) loom_step_explain(char **out, const loom_step *step, const void *params,
                                   const loom_config *cfg, int json)
{
	loom_spec_list *l = NULL;
	loom_buf b = LOOM_BUF_INIT;
	json_t *root = NULL, *tables = NULL;
	size_t i, j;
	int brc = 0;

	if (!out || !step || !cfg)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_step_explain: NULL argument");
	*out = NULL;
	LOOM_TRY(loom_step_resolve(&l, step, params, cfg));
	if (json) {
		root = json_object();
		tables = json_array();
		json_object_set_new(root, "schema", plan_json_str("loom.explain/1"));
		json_object_set_new(root, "step", plan_json_str(loom_step_name(step)));
	} else {
		plan_bprintf(&brc, &b, "step %s: %zu table%s\n", loom_step_name(step),
		                loom_spec_list_count(l), loom_spec_list_count(l) == 1 ? "" : "s");
	}
	for (i = 0; i < loom_spec_list_count(l); i++) {
		const loom_spec *s = loom_spec_list_at(l, i);
		loom_table_location *loc = NULL;
		char uri[4096] = "", why[LOOM_ERROR_MESSAGE_MAX] = "";
		int lrc = loom_config_locate(&loc, cfg, loom_spec_table_ref(s));
		if (lrc == LOOM_ENOMEM) {
			json_decref(root);
			json_decref(tables);
			loom_buf_dispose(&b);
			loom_spec_list_free(l);
			return lrc;
		}
		if (lrc == 0)
			loom_config_mask(uri, sizeof(uri), cfg, loc->uri);
		else
			loom_config_mask(why, sizeof(why), cfg, loom_error_last()->message);
		loom_table_location_free(loc);
		if (json) {
			json_t *t = json_object(), *ops = json_array();
			json_object_set_new(t, "ref", plan_json_str(loom_spec_table_ref(s)));
			json_object_set_new(t, "uri", uri[0] ? plan_json_str(uri) : json_null());
			json_object_set_new(t, "unresolved", why[0] ? plan_json_str(why) : json_null());
			for (j = 0; j < loom_spec_op_count(s); j++)
				json_array_append_new(ops, op_json(loom_spec_op_at(s, j)));
			json_object_set_new(t, "ops", ops);
			json_array_append_new(tables, t);
		} else {
			plan_bprintf(&brc, &b, "  %s -> %s\n", loom_spec_table_ref(s), uri[0] ? uri : why);
			for (j = 0; j < loom_spec_op_count(s); j++)
				op_text(&brc, &b, loom_spec_op_at(s, j));
		}
	}
	for (i = 0; i < plan_spec_list_warning_count(l); i++) {
		if (json) {
			json_t *w = json_object_get(root, "warnings");
			if (!w) {
				w = json_array();
				json_object_set_new(root, "warnings", w);
			}
			json_array_append_new(w, plan_json_str(plan_spec_list_warning(l, i)));
		} else {
			plan_bprintf(&brc, &b, "warning: %s\n", plan_spec_list_warning(l, i));
		}
	}
	loom_spec_list_free(l);
	if (json) {
		char *s;
		if (!json_object_get(root, "warnings"))
			json_object_set_new(root, "warnings", json_array());
		json_object_set_new(root, "tables", tables);
		s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(root);
		if (!s)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
		*out = loom_strdup(s);
		free(s);
		return *out ? 0 : loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	plan_bprintf(&brc, &b, "%s", "");
	if (brc < 0) {
		loom_buf_dispose(&b);
		return brc;
	}
	*out = loom_buf_detach(&b);
	return 0;
}
