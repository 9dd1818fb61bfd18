/* plan/decl.c - specs (table + ordered ops), declarations (MaintainTable,
 * MaintainSchema, custom resolve) and their rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan/config_int.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/error.h"

/* ---- specs ------------------------------------------------------------- */

struct loom_spec {
	char *ref;
	loom_op **ops;
	size_t n_ops;
};

struct loom_spec_list {
	loom_spec **items;
	size_t n;
	char **warnings;
	size_t n_warnings;
};

LOOM_EXTERN(int) loom_spec_new(loom_spec **out, const char *table_ref)
{
	loom_spec *s;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_spec_new: out is NULL");
	*out = NULL;
	if (!table_ref || !*table_ref)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "a spec needs a non-empty table ref");
	s = loom_calloc(1, sizeof(*s));
	if (!s || !(s->ref = loom_strdup(table_ref))) {
		loom_free(s);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	*out = s;
	return 0;
}

static int is_rewrite_or_vacuum(int kind)
{
	return kind == PLAN_OP_VACUUM || kind == PLAN_OP_COMPACT || kind == PLAN_OP_ZORDER;
}

/* Compact and Z-order never together (Z-order already bin-packs). Auto
 * decides itself whether vacuum, compaction or Z-order runs; one declared
 * beside it would run every time, whatever the health says, so it is
 * refused: its settings belong in auto's options (the YAML and Python
 * layers pass sibling settings there for the user). */
const char *plan_ops_conflict(const loom_op *a, const loom_op *b)
{
	int x = plan_op_kind(a), y = plan_op_kind(b);
	if ((x == PLAN_OP_COMPACT && y == PLAN_OP_ZORDER) ||
	    (x == PLAN_OP_ZORDER && y == PLAN_OP_COMPACT))
		return "compact and z_order_by are mutually exclusive";
	if ((x == PLAN_OP_AUTO && is_rewrite_or_vacuum(y)) ||
	    (y == PLAN_OP_AUTO && is_rewrite_or_vacuum(x)))
		return "auto decides when vacuum, compact and z_order_by run; declared beside "
		       "it they would run every time. Give their settings to auto instead "
		       "(loom_auto_opts.vacuum / compact / zorder)";
	return NULL;
}

/* Rules shared by specs and declarations: op names unique (they key the
 * results), no conflicting ops (plan_ops_conflict). */
static int check_add(loom_op *const *ops, size_t n, const loom_op *op, const char *where)
{
	size_t i;
	for (i = 0; i < n; i++) {
		const char *why = plan_ops_conflict(ops[i], op);
		if (why)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: %s", where, why);
		if (strcmp(loom_op_name(ops[i]), loom_op_name(op)) == 0)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
			                "%s: operation '%s' is scheduled twice (results are keyed by "
			                "operation name)", where, loom_op_name(op));
	}
	return 0;
}

/* Append `op`, taking over the caller's reference; on failure it is
 * dropped (the add rule of loom/plan.h). */
static int ops_push(loom_op ***ops, size_t *n, loom_op *op)
{
	loom_op **grown = loom_reallocarray(*ops, *n + 1, sizeof(*grown));
	if (!grown) {
		loom_op_free(op);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	*ops = grown;
	grown[(*n)++] = op;
	return 0;
}

/* A failed add drops the op it was given (and returns rc). */
static int add_failed(loom_op *op, int rc)
{
	loom_op_free(op);
	return rc;
}

LOOM_EXTERN(int) loom_spec_add_op(loom_spec *s, loom_op *op)
{
	char where[300];
	int rc;
	if (!s || !op)
		return add_failed(op, loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                               "loom_spec_add_op: NULL argument"));
	snprintf(where, sizeof(where), "table '%s'", s->ref);
	if ((rc = check_add(s->ops, s->n_ops, op, where)) < 0)
		return add_failed(op, rc);
	return ops_push(&s->ops, &s->n_ops, op);
}

LOOM_EXTERN(const char *) loom_spec_table_ref(const loom_spec *s)
{
	return s ? s->ref : NULL;
}

LOOM_EXTERN(size_t) loom_spec_op_count(const loom_spec *s)
{
	return s ? s->n_ops : 0;
}

LOOM_EXTERN(loom_op *) loom_spec_op_at(const loom_spec *s, size_t i)
{
	return s && i < s->n_ops ? s->ops[i] : NULL;
}

LOOM_EXTERN(void) loom_spec_free(loom_spec *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n_ops; i++)
		loom_op_free(s->ops[i]);
	loom_free(s->ops);
	loom_free(s->ref);
	loom_free(s);
}

LOOM_EXTERN(int) loom_spec_list_new(loom_spec_list **out)
{
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_spec_list_new: out is NULL");
	*out = loom_calloc(1, sizeof(**out));
	return *out ? 0 : loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

LOOM_EXTERN(int) loom_spec_list_add(loom_spec_list *l, loom_spec *s)
{
	loom_spec **grown;
	if (!l || !s) {
		loom_spec_free(s);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_spec_list_add: NULL argument");
	}
	grown = loom_reallocarray(l->items, l->n + 1, sizeof(*grown));
	if (!grown) {
		loom_spec_free(s);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	l->items = grown;
	grown[l->n++] = s;
	return 0;
}

LOOM_EXTERN(size_t) loom_spec_list_count(const loom_spec_list *l)
{
	return l ? l->n : 0;
}

LOOM_EXTERN(loom_spec *) loom_spec_list_at(const loom_spec_list *l, size_t i)
{
	return l && i < l->n ? l->items[i] : NULL;
}

LOOM_EXTERN(void) loom_spec_list_free(loom_spec_list *l)
{
	size_t i;
	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		loom_spec_free(l->items[i]);
	for (i = 0; i < l->n_warnings; i++)
		loom_free(l->warnings[i]);
	loom_free(l->warnings);
	loom_free(l->items);
	loom_free(l);
}

int plan_spec_list_warn(loom_spec_list *l, const char *fmt, ...)
{
	char msg[512];
	char **grown;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	grown = loom_reallocarray(l->warnings, l->n_warnings + 1, sizeof(*grown));
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	l->warnings = grown;
	if (!(grown[l->n_warnings] = loom_strdup(msg)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	l->n_warnings++;
	return 0;
}

size_t plan_spec_list_warning_count(const loom_spec_list *l)
{
	return l ? l->n_warnings : 0;
}

const char *plan_spec_list_warning(const loom_spec_list *l, size_t i)
{
	return l && i < l->n_warnings ? l->warnings[i] : NULL;
}

/* ---- declarations ------------------------------------------------------ */

enum { DECL_TABLE, DECL_SCHEMA, DECL_ALL, DECL_CUSTOM };

struct loom_decl {
	int type;
	int no_ops_ok;         /* plan_decl_allow_no_ops */
	char *target;          /* ref or schema prefix */
	loom_op **ops;
	size_t n_ops;
	/* the first builder error, re-raised by validate/resolve */
	int err_code;
	char err_msg[LOOM_ERROR_MESSAGE_MAX];
	loom_decl_resolve_fn resolve;
	void *payload;
	void (*free_payload)(void *payload);
};

static int decl_new(loom_decl **out, int type, const char *target, const char *what)
{
	loom_decl *d;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: out is NULL", what);
	*out = NULL;
	if (!target || !*target)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: the %s is empty", what,
		                type == DECL_TABLE ? "table ref" : "schema prefix");
	if (target[0] == '.' || target[strlen(target) - 1] == '.' || strstr(target, ".."))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: '%s' has an empty part",
		                what, target);
	d = loom_calloc(1, sizeof(*d));
	if (!d || !(d->target = loom_strdup(target))) {
		loom_free(d);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	d->type = type;
	*out = d;
	return 0;
}

LOOM_EXTERN(int) loom_maintain_table(loom_decl **out, const char *table_ref)
{
	return decl_new(out, DECL_TABLE, table_ref, "MaintainTable");
}

LOOM_EXTERN(int) loom_maintain_schema(loom_decl **out, const char *schema_prefix)
{
	return decl_new(out, DECL_SCHEMA, schema_prefix, "MaintainSchema");
}

int plan_maintain_all(loom_decl **out)
{
	int rc = decl_new(out, DECL_SCHEMA, "*", "maintenance block");
	if (rc == 0)
		(*out)->type = DECL_ALL;
	return rc;
}

void plan_decl_allow_no_ops(loom_decl *d)
{
	d->no_ops_ok = 1;
}

LOOM_EXTERN(int) loom_decl_new(loom_decl **out, loom_decl_resolve_fn resolve, void *payload,
                               void (*free_payload)(void *payload))
{
	loom_decl *d;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_decl_new: out is NULL");
	*out = NULL;
	if (!resolve)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_decl_new: resolve is NULL");
	d = loom_calloc(1, sizeof(*d));
	if (!d)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	d->type = DECL_CUSTOM;
	d->resolve = resolve;
	d->payload = payload;
	d->free_payload = free_payload;
	*out = d;
	return 0;
}

static void describe(const loom_decl *d, char *buf, size_t cap)
{
	if (d->type == DECL_CUSTOM)
		snprintf(buf, cap, "custom declaration");
	else if (d->type == DECL_ALL)
		snprintf(buf, cap, "every tables[] route");
	else
		snprintf(buf, cap, "%s('%s')", d->type == DECL_TABLE ? "MaintainTable" : "MaintainSchema",
		         d->target);
}

/* Record a builder error on the declaration too, so it cannot be lost. */
static int sticky(loom_decl *d, int rc)
{
	const loom_error *e = loom_error_last();
	if (rc < 0 && d && !d->err_code) {
		d->err_code = rc;
		snprintf(d->err_msg, sizeof(d->err_msg), "%s", e ? e->message : "builder error");
	}
	return rc;
}

LOOM_EXTERN(int) loom_decl_add_op(loom_decl *d, loom_op *op)
{
	char where[300];
	int rc;
	if (!d)
		return add_failed(op, loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                               "loom_decl_add_op: declaration is NULL"));
	describe(d, where, sizeof(where));
	if (!op)
		return sticky(d, loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: op is NULL", where));
	if (d->type == DECL_CUSTOM)
		return add_failed(op, sticky(d, loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                                         "%s: ops are added by its resolve function, "
		                                         "not builders", where)));
	if ((rc = sticky(d, check_add(d->ops, d->n_ops, op, where))) < 0)
		return add_failed(op, rc);
	return sticky(d, ops_push(&d->ops, &d->n_ops, op));
}

static int add_new_op(loom_decl *d, int rc, loom_op *op)
{
	if (rc < 0) {
		char where[300];
		const loom_error *e = loom_error_last();
		char msg[LOOM_ERROR_MESSAGE_MAX];
		snprintf(msg, sizeof(msg), "%s", e ? e->message : "invalid options");
		describe(d, where, sizeof(where));
		return sticky(d, loom_err(rc, LOOM_ERRCLASS_PLAN, "%s: %s", where, msg));
	}
	return loom_decl_add_op(d, op);
}

LOOM_EXTERN(int) loom_decl_vacuum(loom_decl *d, const loom_vacuum_opts *opts)
{
	loom_op *op = NULL;
	int rc;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "vacuum: declaration is NULL");
	rc = loom_op_vacuum(&op, opts);
	return add_new_op(d, rc, op);
}

LOOM_EXTERN(int) loom_decl_compact(loom_decl *d, const loom_compact_opts *opts)
{
	loom_op *op = NULL;
	int rc;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "compact: declaration is NULL");
	rc = loom_op_compact(&op, opts);
	return add_new_op(d, rc, op);
}

LOOM_EXTERN(int) loom_decl_zorder(loom_decl *d, const loom_zorder_opts *opts)
{
	loom_op *op = NULL;
	int rc;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "z_order_by: declaration is NULL");
	rc = loom_op_zorder(&op, opts);
	return add_new_op(d, rc, op);
}

LOOM_EXTERN(int) loom_decl_purge(loom_decl *d, const loom_purge_opts *opts)
{
	loom_op *op = NULL;
	int rc;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "purge: declaration is NULL");
	rc = loom_op_purge(&op, opts);
	return add_new_op(d, rc, op);
}

LOOM_EXTERN(int) loom_decl_analyze(loom_decl *d, const loom_analyze_opts *opts)
{
	loom_op *op = NULL;
	int rc;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "analyze: declaration is NULL");
	rc = loom_op_analyze(&op, opts);
	return add_new_op(d, rc, op);
}

LOOM_EXTERN(int) loom_decl_zorder_by(loom_decl *d, const char *const *columns,
                                      size_t n_columns, int64_t target_size)
{
	loom_zorder_opts o = LOOM_ZORDER_OPTS_INIT;
	o.columns = columns;
	o.n_columns = n_columns;
	o.target_size = target_size;
	return loom_decl_zorder(d, &o);
}

LOOM_EXTERN(int) loom_decl_validate(const loom_decl *d)
{
	char where[300];
	size_t i, j;
	if (!d)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "declaration is NULL");
	if (d->err_code)
		return loom_err(d->err_code, LOOM_ERRCLASS_PLAN, "%s", d->err_msg);
	if (d->type == DECL_CUSTOM)
		return 0;
	describe(d, where, sizeof(where));
	if (d->n_ops == 0 && !d->no_ops_ok)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s declares no operations", where);
	for (i = 0; i < d->n_ops; i++)
		for (j = 0; j < i; j++) {
			const char *why = plan_ops_conflict(d->ops[j], d->ops[i]);
			if (why)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: %s", where, why);
			if (strcmp(loom_op_name(d->ops[i]), loom_op_name(d->ops[j])) == 0)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
				                "%s: operation '%s' is scheduled twice", where,
				                loom_op_name(d->ops[i]));
		}
	return 0;
}

static int push_spec(const loom_decl *d, const char *ref, loom_spec_list *out)
{
	loom_spec *s;
	size_t i;
	int rc;
	LOOM_TRY(loom_spec_new(&s, ref));
	for (i = 0; i < d->n_ops; i++)
		if ((rc = loom_spec_add_op(s, loom_op_ref(d->ops[i]))) < 0) {
			loom_spec_free(s);
			return rc;
		}
	return loom_spec_list_add(out, s);
}

/* "raw" matches "raw.events" and "raw.a.b"; not "raw" nor "raw_backup.x". */
static int in_schema(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(name, prefix, n) == 0 && name[n] == '.' && name[n + 1] != '\0';
}

LOOM_EXTERN(int) loom_decl_resolve(loom_spec_list *out, const loom_decl *d, const loom_config *cfg)
{
	size_t i, before, matched = 0;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_decl_resolve: out is NULL");
	LOOM_TRY(loom_decl_validate(d));
	before = loom_spec_list_count(out);
	switch (d->type) {
	case DECL_TABLE:
		return push_spec(d, d->target, out);
	case DECL_SCHEMA:
		for (i = 0; cfg && i < cfg->n_tables; i++)
			if (in_schema(cfg->tables[i].name, d->target)) {
				LOOM_TRY(push_spec(d, cfg->tables[i].name, out));
				matched++;
			}
		if (!matched)
			return plan_spec_list_warn(out, "MaintainSchema('%s') matched no tables[] "
			                           "route named '%s.*'", d->target, d->target);
		return 0;
	case DECL_ALL:
		for (i = 0; cfg && i < cfg->n_tables; i++)
			LOOM_TRY(push_spec(d, cfg->tables[i].name, out));
		if (!cfg || !cfg->n_tables)
			return plan_spec_list_warn(out, "the maintenance block applies to every tables[] "
			                           "route, and there are none");
		return 0;
	default: {
		int rc = d->resolve(out, cfg, d->payload);
		if (rc < 0)
			return rc;
		if (loom_spec_list_count(out) < before)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
			                "a custom declaration removed specs it did not add");
		return 0;
	}
	}
}

LOOM_EXTERN(void) loom_decl_free(loom_decl *d)
{
	size_t i;
	if (!d)
		return;
	for (i = 0; i < d->n_ops; i++)
		loom_op_free(d->ops[i]);
	loom_free(d->ops);
	if (d->free_payload)
		d->free_payload(d->payload);
	loom_free(d->target);
	loom_free(d);
}

/* ---- steps ------------------------------------------------------------- */

struct loom_step {
	char *name;
	loom_decl **decls;
	size_t n_decls;
	loom_step_build_fn build;
	void *payload;
	void (*free_payload)(void *payload);
};

static int step_alloc(loom_step **out, const char *name)
{
	loom_step *s;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_step_new: out is NULL");
	*out = NULL;
	s = loom_calloc(1, sizeof(*s));
	if (!s || !(s->name = loom_strdup(name && *name ? name : "step"))) {
		loom_free(s);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	*out = s;
	return 0;
}

LOOM_EXTERN(int) loom_step_new(loom_step **out, const char *name)
{
	return step_alloc(out, name);
}

LOOM_EXTERN(int) loom_step_new_dynamic(loom_step **out, const char *name,
                                       loom_step_build_fn build, void *payload,
                                       void (*free_payload)(void *payload))
{
	if (!build)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_step_new_dynamic: build function is NULL");
	LOOM_TRY(step_alloc(out, name));
	(*out)->build = build;
	(*out)->payload = payload;
	(*out)->free_payload = free_payload;
	return 0;
}

LOOM_EXTERN(int) loom_step_add(loom_step *step, loom_decl *d)
{
	loom_decl **grown;
	if (!step || !d) {
		loom_decl_free(d);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_step_add: NULL argument");
	}
	grown = loom_reallocarray(step->decls, step->n_decls + 1, sizeof(*grown));
	if (!grown) {
		loom_decl_free(d);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	step->decls = grown;
	grown[step->n_decls++] = d;
	return 0;
}

LOOM_EXTERN(const char *) loom_step_name(const loom_step *step)
{
	return step ? step->name : NULL;
}

LOOM_EXTERN(size_t) loom_step_decl_count(const loom_step *step)
{
	return step ? step->n_decls : 0;
}

static int resolve_decls(const loom_step *step, const loom_config *cfg, loom_spec_list *l)
{
	size_t i;
	for (i = 0; i < step->n_decls; i++) {
		int rc = loom_decl_resolve(l, step->decls[i], cfg);
		if (rc < 0)
			return loom_err_wrap("step '%s', declaration %zu", step->name, i + 1);
	}
	return 0;
}

LOOM_EXTERN(int) loom_step_resolve(loom_spec_list **out, const loom_step *step,
                                   const void *params, const loom_config *cfg)
{
	loom_spec_list *l;
	int rc;
	if (!out || !step)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_step_resolve: NULL argument");
	*out = NULL;
	LOOM_TRY(loom_spec_list_new(&l));
	if (step->build) {
		loom_step *tmp;
		if ((rc = step_alloc(&tmp, step->name)) == 0) {
			loom_error_clear();
			rc = step->build(tmp, params, step->payload);
			if (rc < 0 && !loom_error_last())
				rc = loom_err(rc, LOOM_ERRCLASS_PLAN, "step '%s': operations_for failed",
				              step->name);
			else if (rc < 0)
				loom_err_wrap("step '%s': operations_for", step->name);
			if (rc == 0)
				rc = resolve_decls(tmp, cfg, l);
			loom_step_free(tmp);
		}
	} else {
		rc = resolve_decls(step, cfg, l);
	}
	if (rc < 0) {
		loom_spec_list_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

LOOM_EXTERN(void) loom_step_free(loom_step *step)
{
	size_t i;
	if (!step)
		return;
	for (i = 0; i < step->n_decls; i++)
		loom_decl_free(step->decls[i]);
	loom_free(step->decls);
	if (step->free_payload)
		step->free_payload(step->payload);
	loom_free(step->name);
	loom_free(step);
}
