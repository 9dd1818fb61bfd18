/* plan/planfile.c - YAML plan files: named steps of table/schema
 * declarations, for CLI users who do not write C (docs/plan-file.md).
 * Strict: every key is known, every error carries file:line:column. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loom/auto.h"
#include "plan/plan_int.h"
#include "plan/ydoc.h"
#include "plan/yopts.h"
#include "util/alloc.h"
#include "util/error.h"

struct loom_plan {
	char *source;
	loom_step **steps;
	size_t n_steps;
};

/* Re-raise a builder error at the YAML node that caused it. */
static int at(ydoc *d, yaml_node_t *n, int rc)
{
	char msg[LOOM_ERROR_MESSAGE_MAX];
	const loom_error *e;
	if (rc >= 0)
		return rc;
	e = loom_error_last();
	snprintf(msg, sizeof(msg), "%s", e ? e->message : "invalid declaration");
	return ydoc_err(d, n, "%s", msg);
}

static int add_vacuum(ydoc *d, loom_decl *decl, yaml_node_t *v)
{
	loom_vacuum_opts o;
	LOOM_TRY(yopts_vacuum(d, v, "vacuum", &o));
	return at(d, v, loom_decl_vacuum(decl, &o));
}

static int add_compact(ydoc *d, loom_decl *decl, yaml_node_t *v)
{
	loom_compact_opts o;
	LOOM_TRY(yopts_compact(d, v, "compact", &o));
	return at(d, v, loom_decl_compact(decl, &o));
}

static int add_zorder(ydoc *d, loom_decl *decl, yaml_node_t *v)
{
	zorder_yaml z;
	int rc = yopts_zorder(d, v, "z_order_by", &z);
	if (rc == 0)
		rc = at(d, v, loom_decl_zorder(decl, &z.opts));
	yopts_zorder_dispose(&z);
	return rc;
}

static int add_purge(ydoc *d, loom_decl *decl, yaml_node_t *v)
{
	purge_yaml p;
	int rc = yopts_purge(d, v, "purge", &p);
	if (rc == 0)
		rc = at(d, v, loom_decl_purge(decl, &p.opts));
	yopts_purge_dispose(&p);
	return rc;
}

static int add_analyze(ydoc *d, loom_decl *decl, yaml_node_t *v)
{
	analyze_yaml a;
	int rc = yopts_analyze(d, v, "analyze", &a);
	if (rc == 0)
		rc = at(d, v, loom_decl_analyze(decl, &a.opts));
	yopts_analyze_dispose(&a);
	return rc;
}

/* `auto:` on a declaration: one auto op, its siblings vacuum / compact /
 * z_order_by being its settings (not ops of their own: those would run
 * every time, whatever the health says). Returns 0 with *handled = 0
 * when the declaration has no auto (or `auto: false`). */
static int add_auto(ydoc *d, loom_decl *decl, yaml_node_t *e, int *handled)
{
	loom_auto_opts a = LOOM_AUTO_OPTS_INIT;
	loom_vacuum_opts v;
	loom_compact_opts c;
	zorder_yaml z;
	yaml_node_t *x, *n = ydoc_get(d, e, "auto", NULL);
	int rc, on;

	*handled = 0;
	if (!n)
		return 0;
	LOOM_TRY(yopts_auto(d, n, "auto", &on, &a.policy));
	if (!on)
		return 0;
	*handled = 1;
	memset(&z, 0, sizeof(z));
	if ((x = ydoc_get(d, e, "vacuum", NULL))) {
		LOOM_TRY(yopts_vacuum(d, x, "vacuum", &v));
		a.vacuum = &v;
	}
	if ((x = ydoc_get(d, e, "compact", NULL))) {
		LOOM_TRY(yopts_compact(d, x, "compact", &c));
		a.compact = &c;
	}
	if ((x = ydoc_get(d, e, "z_order_by", NULL))) {
		if ((rc = yopts_zorder(d, x, "z_order_by", &z)) < 0) {
			yopts_zorder_dispose(&z);
			return rc;
		}
		a.zorder = &z.opts;
	}
	rc = at(d, n, loom_decl_auto(decl, &a));
	yopts_zorder_dispose(&z);
	return rc;
}

static int read_decl(ydoc *d, yaml_node_t *e, loom_decl **out)
{
	static const char *const keys[] = { "table", "schema", "vacuum", "compact", "z_order_by",
		                                "auto", "purge", "analyze", NULL };
	yaml_node_t *table, *schema;
	yaml_node_pair_t *p;
	loom_buf b = LOOM_BUF_INIT;
	loom_decl *decl = NULL;
	int rc, automatic = 0;

	*out = NULL;
	if (!ydoc_is_map(e))
		return ydoc_err(d, e, "a declaration is a mapping with 'table' or 'schema' and ops");
	LOOM_TRY(ydoc_check_keys(d, e, "a declaration", keys));
	table = ydoc_get(d, e, "table", NULL);
	schema = ydoc_get(d, e, "schema", NULL);
	if (table && schema)
		return ydoc_err(d, e, "a declaration has 'table' or 'schema', not both");
	if (!table && !schema)
		return ydoc_err(d, e, "a declaration needs 'table' or 'schema'");
	if ((rc = ydoc_string(d, table ? table : schema, table ? "table" : "schema", &b)) < 0)
		goto done;
	rc = table ? loom_maintain_table(&decl, b.ptr) : loom_maintain_schema(&decl, b.ptr);
	if ((rc = at(d, table ? table : schema, rc)) < 0)
		goto done;
	if ((rc = add_auto(d, decl, e, &automatic)) < 0)
		goto done;
	/* ops run in the order they are written (beside auto only purge and
	 * analyze are ops: the others are auto's settings) */
	for (p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ydoc_node(d, p->key), *v = ydoc_node(d, p->value);
		const char *name = ydoc_raw(k);
		if (strcmp(name, "purge") == 0)
			rc = add_purge(d, decl, v);
		else if (strcmp(name, "analyze") == 0)
			rc = add_analyze(d, decl, v);
		else if (automatic)
			continue;
		else if (strcmp(name, "vacuum") == 0)
			rc = add_vacuum(d, decl, v);
		else if (strcmp(name, "compact") == 0)
			rc = add_compact(d, decl, v);
		else if (strcmp(name, "z_order_by") == 0)
			rc = add_zorder(d, decl, v);
		else
			continue;
		if (rc < 0)
			goto done;
	}
	if ((rc = at(d, e, loom_decl_validate(decl))) < 0)
		goto done;
	*out = decl;
	decl = NULL;
done:
	loom_decl_free(decl);
	loom_buf_dispose(&b);
	return rc;
}

static int read_plan(loom_plan *plan, ydoc *d)
{
	static const char *const top[] = { "version", "steps", NULL };
	yaml_node_t *root = ydoc_root(d), *steps, *v;
	yaml_node_pair_t *p;

	if (!ydoc_is_map(root))
		return ydoc_err(d, root, "a plan file is a mapping with 'steps:'");
	LOOM_TRY(ydoc_check_keys(d, root, "the plan file", top));
	if ((v = ydoc_get(d, root, "version", NULL))) {
		int64_t ver;
		LOOM_TRY(ydoc_int(d, v, "version", &ver));
		if (ver != 1)
			return ydoc_err(d, v, "plan file version %lld: this loom reads version 1",
			                (long long)ver);
	}
	steps = ydoc_get(d, root, "steps", NULL);
	if (!steps || !ydoc_is_map(steps) ||
	    steps->data.mapping.pairs.top == steps->data.mapping.pairs.start)
		return ydoc_err(d, steps ? steps : root, "the plan needs 'steps:', a mapping of "
		                "step names to lists of declarations");
	LOOM_TRY(ydoc_check_dup_keys(d, steps));
	plan->steps = loom_calloc((size_t)(steps->data.mapping.pairs.top -
	                                   steps->data.mapping.pairs.start), sizeof(loom_step *));
	if (!plan->steps)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	for (p = steps->data.mapping.pairs.start; p < steps->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ydoc_node(d, p->key), *list = ydoc_node(d, p->value);
		loom_step *step;
		yaml_node_item_t *it;
		if (!ydoc_raw(k)[0])
			return ydoc_err(d, k, "a step needs a name");
		if (!ydoc_is_seq(list) ||
		    list->data.sequence.items.top == list->data.sequence.items.start)
			return ydoc_err(d, list, "step '%s': expected a non-empty list of declarations",
			                ydoc_raw(k));
		LOOM_TRY(loom_step_new(&step, ydoc_raw(k)));
		plan->steps[plan->n_steps++] = step;
		for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
			loom_decl *decl;
			LOOM_TRY(read_decl(d, ydoc_node(d, *it), &decl));
			LOOM_TRY(loom_step_add(step, decl));
		}
	}
	return 0;
}

LOOM_EXTERN(void) loom_plan_free(loom_plan *p)
{
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->n_steps; i++)
		loom_step_free(p->steps[i]);
	loom_free(p->steps);
	loom_free(p->source);
	loom_free(p);
}

LOOM_EXTERN(int) loom_plan_load_string(loom_plan **out, const char *yaml, size_t len,
                                       const char *name)
{
	loom_plan *plan;
	ydoc d;
	int rc;
	if (!out || !yaml)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "plan: NULL argument");
	*out = NULL;
	plan = loom_calloc(1, sizeof(*plan));
	if (!plan || !(plan->source = loom_strdup(name ? name : "<plan>"))) {
		loom_free(plan);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	}
	rc = ydoc_load(&d, yaml, len, plan->source);
	if (rc == 0)
		rc = read_plan(plan, &d);
	ydoc_dispose(&d);
	if (rc < 0) {
		loom_plan_free(plan);
		return rc;
	}
	*out = plan;
	return 0;
}

LOOM_EXTERN(int) loom_plan_load_file(loom_plan **out, const char *path)
{
	FILE *f;
	char *data;
	long size;
	size_t got;
	int rc;
	if (!out || !path)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "plan: NULL argument");
	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return loom_err_os(loom_err_from_errno(errno), errno, "%s: cannot open plan file", path);
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || size > (16L << 20) ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "%s: cannot size the plan file (or it is over 16 MiB)", path);
	}
	data = loom_malloc((size_t)size + 1);
	if (!data) {
		fclose(f);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	}
	got = fread(data, 1, (size_t)size, f);
	fclose(f);
	rc = loom_plan_load_string(out, data, got, path);
	loom_free(data);
	return rc;
}

LOOM_EXTERN(size_t) loom_plan_step_count(const loom_plan *p)
{
	return p ? p->n_steps : 0;
}

LOOM_EXTERN(const loom_step *) loom_plan_step_at(const loom_plan *p, size_t i)
{
	return p && i < p->n_steps ? p->steps[i] : NULL;
}

LOOM_EXTERN(const loom_step *) loom_plan_step(const loom_plan *p, const char *name)
{
	size_t i;
	for (i = 0; p && name && i < p->n_steps; i++)
		if (strcmp(loom_step_name(p->steps[i]), name) == 0)
			return p->steps[i];
	loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_CONFIG, "%s: no step named '%s'",
	         p ? p->source : "plan", name ? name : "(null)");
	return NULL;
}
