/* ops/dist/dist_common.c - reading and checking plan files (ops/dist/dist.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/dist/dist.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/percent.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

void dist_key_format(uint64_t v, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

int dist_key_parse(const char *s, uint64_t *v)
{
	size_t i;
	uint64_t x = 0;
	if (!s || strlen(s) != 16)
		return -1;
	for (i = 0; i < 16; i++) {
		int d = loom_hex_digit(s[i]);
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

int dist_dump(json_t *doc, char **out)
{
	char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!s)
		return OPS_ERR(LOOM_ENOMEM, "out of memory writing JSON");
	*out = loom_strdup(s);
	free(s);
	return *out ? 0 : OPS_ERR(LOOM_ENOMEM, "out of memory");
}

void dist_plan_dispose(dist_plan *p)
{
	json_decref(p->root);
	memset(p, 0, sizeof(*p));
}

static int bad(const char *field, const char *why)
{
	return OPS_ERR(LOOM_ECORRUPT, "plan: '%s' %s", field, why);
}

int dist_plan_parse(dist_plan *p, const char *text)
{
	json_error_t jerr;
	const char *op;
	size_t i;
	memset(p, 0, sizeof(*p));
	if (!text)
		return OPS_ERR(LOOM_EINVAL, "no plan given");
	p->root = json_loads(text, 0, &jerr);
	if (!p->root)
		return OPS_ERR(LOOM_EINVAL, "not a loom plan: JSON error at line %d column %d: %s", jerr.line,
		               jerr.column, jerr.text);
	if (!json_is_object(p->root) || json_integer_value(json_object_get(p->root, "loom_plan")) != 1) {
		dist_plan_dispose(p);
		return OPS_ERR(LOOM_EINVAL, "not a loom plan (no \"loom_plan\": 1)");
	}
	p->id = json_string_value(json_object_get(p->root, "id"));
	p->table = json_string_value(json_object_get(p->root, "table"));
	op = json_string_value(json_object_get(p->root, "operation"));
	p->read_version = json_integer_value(json_object_get(p->root, "read_version"));
	p->target = json_integer_value(json_object_get(p->root, "target_size"));
	p->units = json_object_get(p->root, "units");
	p->zorder_conf = json_object_get(p->root, "zorder");
	if (!p->id || !*p->id)
		return dist_plan_dispose(p), bad("id", "is missing");
	if (!p->table || !*p->table)
		return dist_plan_dispose(p), bad("table", "is missing");
	if (!op || (strcmp(op, "compact") != 0 && strcmp(op, "zorder") != 0))
		return dist_plan_dispose(p), bad("operation", "is not \"compact\" or \"zorder\"");
	if (!json_is_integer(json_object_get(p->root, "read_version")) || p->read_version < 0)
		return dist_plan_dispose(p), bad("read_version", "is not a version");
	if (p->target <= 0)
		return dist_plan_dispose(p), bad("target_size", "is not a positive size");
	if (!json_is_array(p->units))
		return dist_plan_dispose(p), bad("units", "is not an array");
	p->zorder = strcmp(op, "zorder") == 0;
	if (p->zorder && (!json_is_object(p->zorder_conf) ||
	                  !json_is_array(json_object_get(p->zorder_conf, "columns")) ||
	                  !json_is_array(json_object_get(p->zorder_conf, "samples"))))
		return dist_plan_dispose(p), bad("zorder", "lacks columns or samples");
	p->nunits = json_array_size(p->units);
	for (i = 0; i < p->nunits; i++) {
		json_t *u = json_array_get(p->units, i);
		json_t *g = json_object_get(u, "group");
		uint64_t k;
		if (!json_is_array(json_object_get(u, "files")) || !json_is_integer(g) || json_integer_value(g) < 0) {
			dist_plan_dispose(p);
			return OPS_ERR(LOOM_ECORRUPT, "plan: unit %zu lacks its files or group", i);
		}
		if (p->zorder &&
		    ((size_t)json_integer_value(g) >= json_array_size(json_object_get(p->zorder_conf, "samples")) ||
		     dist_key_parse(json_string_value(json_object_get(u, "key_lo")), &k) < 0 ||
		     (!json_is_null(json_object_get(u, "key_hi")) &&
		      dist_key_parse(json_string_value(json_object_get(u, "key_hi")), &k) < 0))) {
			dist_plan_dispose(p);
			return OPS_ERR(LOOM_ECORRUPT, "plan: Z-order unit %zu has no sample or key range", i);
		}
	}
	return 0;
}

json_t *dist_unit(const dist_plan *p, size_t i)
{
	return json_array_get(p->units, i);
}

size_t dist_unit_group(const dist_plan *p, size_t i)
{
	return (size_t)json_integer_value(json_object_get(dist_unit(p, i), "group"));
}

int dist_unit_files(const dist_plan *p, size_t i, const delta_snapshot *snap,
                    const delta_file ***files, size_t *n)
{
	json_t *arr = json_object_get(dist_unit(p, i), "files");
	size_t k, m = json_array_size(arr);
	const delta_file **out = loom_calloc(m + 1, sizeof(*out));
	if (!out)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (k = 0; k < m; k++) {
		const char *key = json_string_value(json_array_get(arr, k));
		if (!key || !(out[k] = delta_snapshot_find_file(snap, key))) {
			loom_free(out);
			return OPS_ERR(LOOM_ECORRUPT, "plan unit %zu: file '%s' is not live in version %lld of the table",
			               i, key ? key : "?", (long long)snap->version);
		}
	}
	*files = out;
	*n = m;
	return 0;
}
