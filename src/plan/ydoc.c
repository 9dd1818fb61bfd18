/* plan/ydoc.c - libyaml documents with line:column errors and ${oc.env:}
 * interpolation. */
#include "plan/ydoc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loom/config.h"
#include "util/error.h"

int ydoc_load(ydoc *d, const char *text, size_t len, const char *source)
{
	yaml_parser_t parser;
	int ok;

	memset(d, 0, sizeof(*d));
	d->source = source ? source : "<string>";
	if (!yaml_parser_initialize(&parser))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "%s: cannot start the YAML parser",
		                d->source);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	ok = yaml_parser_load(&parser, &d->doc);
	if (!ok) {
		int rc = loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                  "%s:%zu:%zu: YAML syntax error: %s%s%s", d->source,
		                  parser.problem_mark.line + 1, parser.problem_mark.column + 1,
		                  parser.problem ? parser.problem : "malformed input",
		                  parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return rc;
	}
	d->loaded = 1;
	if (!yaml_document_get_root_node(&d->doc)) {
		yaml_parser_delete(&parser);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "%s:1:1: the document is empty",
		                d->source);
	}
	{
		/* a second document would be ignored silently: refuse it */
		yaml_document_t extra;
		int more = 0, line = 0;
		if (yaml_parser_load(&parser, &extra)) {
			yaml_node_t *root = yaml_document_get_root_node(&extra);
			more = root != NULL;
			line = root ? (int)root->start_mark.line + 1 : 0;
			yaml_document_delete(&extra);
		} else {
			more = -1;
			line = (int)parser.problem_mark.line + 1;
		}
		yaml_parser_delete(&parser);
		if (more)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
			                "%s:%d:1: %s", d->source, line,
			                more > 0 ? "a second YAML document ('---') is not supported"
			                         : "YAML syntax error after the first document");
	}
	return 0;
}

void ydoc_dispose(ydoc *d)
{
	if (d->loaded)
		yaml_document_delete(&d->doc);
	d->loaded = 0;
}

yaml_node_t *ydoc_root(ydoc *d)
{
	return yaml_document_get_root_node(&d->doc);
}

yaml_node_t *ydoc_node(ydoc *d, int id)
{
	return yaml_document_get_node(&d->doc, id);
}

int ydoc_line(const yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 0;
}

int ydoc_col(const yaml_node_t *n)
{
	return n ? (int)n->start_mark.column + 1 : 0;
}

int ydoc_err(ydoc *d, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[LOOM_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "%s:%d:%d: %s", d->source,
	                ydoc_line(n), ydoc_col(n), msg);
}

int ydoc_is_map(const yaml_node_t *n)
{
	return n && n->type == YAML_MAPPING_NODE;
}

int ydoc_is_seq(const yaml_node_t *n)
{
	return n && n->type == YAML_SEQUENCE_NODE;
}

int ydoc_is_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE;
}

int ydoc_is_null(const yaml_node_t *n)
{
	const char *v;
	if (!ydoc_is_scalar(n) || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = (const char *)n->data.scalar.value;
	return !*v || strcmp(v, "~") == 0 || strcasecmp(v, "null") == 0;
}

const char *ydoc_raw(const yaml_node_t *n)
{
	return ydoc_is_scalar(n) ? (const char *)n->data.scalar.value : NULL;
}

int ydoc_check_dup_keys(ydoc *d, yaml_node_t *map)
{
	yaml_node_pair_t *a, *b;
	for (a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top; a++) {
		yaml_node_t *ka = ydoc_node(d, a->key);
		if (!ydoc_is_scalar(ka))
			return ydoc_err(d, ka, "mapping keys must be plain strings");
		for (b = map->data.mapping.pairs.start; b < a; b++) {
			yaml_node_t *kb = ydoc_node(d, b->key);
			if (strcmp(ydoc_raw(ka), ydoc_raw(kb)) == 0)
				return ydoc_err(d, ka, "duplicate key '%s' (first at line %d)",
				                ydoc_raw(ka), ydoc_line(kb));
		}
	}
	return 0;
}

int ydoc_check_keys(ydoc *d, yaml_node_t *map, const char *section,
                    const char *const *allowed)
{
	yaml_node_pair_t *p;
	LOOM_TRY(ydoc_check_dup_keys(d, map));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ydoc_node(d, p->key);
		const char *const *a;
		char list[256] = "";
		size_t used = 0;
		for (a = allowed; *a; a++)
			if (strcmp(*a, ydoc_raw(k)) == 0)
				break;
		if (*a)
			continue;
		for (a = allowed; *a && used < sizeof(list); a++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
			                         a == allowed ? "" : ", ", *a);
		return ydoc_err(d, k, "unknown key '%s' in %s (expected: %s)", ydoc_raw(k), section,
		                list);
	}
	return 0;
}

yaml_node_t *ydoc_get(ydoc *d, yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
	yaml_node_pair_t *p;
	if (!ydoc_is_map(map))
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ydoc_node(d, p->key);
		const char *ks = ydoc_raw(k);
		if (ks && strcmp(ks, key) == 0) {
			if (key_node)
				*key_node = k;
			return ydoc_node(d, p->value);
		}
	}
	return NULL;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* Returns 0, LOOM_ENOTFOUND (missing variable, name in `missing`) or
 * LOOM_EINVAL (malformed / unsupported; message in `missing`). */
int ydoc_interpolate(ydoc *d, const char *text, loom_buf *out, char *missing,
                     size_t missing_cap)
{
	const char *p = text;
	loom_buf_clear(out);
	LOOM_TRY(loom_buf_puts(out, ""));
	while (*p) {
		const char *open, *close, *body, *comma, *ve, *val;
		char name[256];
		size_t nlen;

		if (p[0] == '\\' && p[1] == '$' && p[2] == '{') {
			LOOM_TRY(loom_buf_put(out, "${", 2));
			p += 3;
			continue;
		}
		if (!(p[0] == '$' && p[1] == '{')) {
			LOOM_TRY(loom_buf_putc(out, *p++));
			continue;
		}
		open = p;
		close = strchr(open + 2, '}');
		if (!close) {
			snprintf(missing, missing_cap, "unterminated interpolation '%s'", open);
			return LOOM_EINVAL;
		}
		body = open + 2;
		if (memchr(body, '$', (size_t)(close - body))) {
			snprintf(missing, missing_cap, "nested interpolation is not supported: '%.*s'",
			         (int)(close - open + 1), open);
			return LOOM_EINVAL;
		}
		while (body < close && isspace((unsigned char)*body))
			body++;
		if (strncmp(body, "oc.env:", 7) != 0) {
			snprintf(missing, missing_cap,
			         "unsupported interpolation '%.*s' (loom reads only ${oc.env:VAR} "
			         "and ${oc.env:VAR,default})", (int)(close - open + 1), open);
			return LOOM_EINVAL;
		}
		body += 7;
		comma = memchr(body, ',', (size_t)(close - body));
		ve = comma ? comma : close;
		trim(&body, &ve);
		nlen = (size_t)(ve - body);
		if (nlen == 0 || nlen >= sizeof(name)) {
			snprintf(missing, missing_cap, "bad variable name in '%.*s'",
			         (int)(close - open + 1), open);
			return LOOM_EINVAL;
		}
		memcpy(name, body, nlen);
		name[nlen] = '\0';
		val = getenv(name);
		if (val) {
			/* a secret from the environment stays secret whatever key it
			 * is written under (found by fuzzing) */
			if (*val && d && d->note_secret && loom_secret_name(name))
				LOOM_TRY(d->note_secret(d->note_secret_ctx, val));
			LOOM_TRY(loom_buf_puts(out, val));
		} else if (comma) {
			const char *ds = comma + 1, *de = close;
			trim(&ds, &de);
			if (de - ds >= 2 && (*ds == '\'' || *ds == '"') && de[-1] == *ds) {
				ds++;
				de--;
			}
			LOOM_TRY(loom_buf_put(out, ds, (size_t)(de - ds)));
		} else {
			snprintf(missing, missing_cap, "%s", name);
			return LOOM_ENOTFOUND;
		}
		p = close + 1;
	}
	return 0;
}

int ydoc_string(ydoc *d, yaml_node_t *n, const char *what, loom_buf *out)
{
	char detail[512];
	int rc;
	if (!ydoc_is_scalar(n))
		return ydoc_err(d, n, "%s: expected a single value, not a %s", what,
		                ydoc_is_map(n) ? "mapping" : "list");
	rc = ydoc_interpolate(d, ydoc_raw(n), out, detail, sizeof(detail));
	if (rc == LOOM_ENOTFOUND)
		return ydoc_err(d, n, "%s: environment variable %s is not set and "
		                "${oc.env:%s} has no default", what, detail, detail);
	if (rc == LOOM_EINVAL)
		return ydoc_err(d, n, "%s: %s", what, detail);
	return rc;
}

int ydoc_bool(ydoc *d, yaml_node_t *n, const char *what, int *out)
{
	static const char *yes[] = { "true", "yes", "on" };
	static const char *no[] = { "false", "no", "off" };
	loom_buf b = LOOM_BUF_INIT;
	size_t i;
	int rc = ydoc_string(d, n, what, &b), quoted;
	if (rc < 0)
		goto done;
	/* A quoted 'false' is a string, in YAML and in the JSON a parsed
	 * mapping arrives as ({"dry_run": "false"}): these switches decide
	 * what gets deleted, so a string is refused rather than read. */
	quoted = n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	for (i = 0; i < 3 && !quoted; i++) {
		if (strcasecmp(b.ptr, yes[i]) == 0) {
			*out = 1;
			goto done;
		}
		if (strcasecmp(b.ptr, no[i]) == 0) {
			*out = 0;
			goto done;
		}
	}
	rc = ydoc_err(d, n, "%s: expected true or false, got %s'%s'", what,
	              quoted ? "the string " : "", b.ptr);
done:
	loom_buf_dispose(&b);
	return rc;
}

int ydoc_int(ydoc *d, yaml_node_t *n, const char *what, int64_t *out)
{
	loom_buf b = LOOM_BUF_INIT;
	char *end;
	long long v;
	int rc = ydoc_string(d, n, what, &b);
	if (rc < 0)
		goto done;
	errno = 0;
	v = strtoll(b.ptr, &end, 10);
	if (!b.ptr[0] || *end || errno)
		rc = ydoc_err(d, n, "%s: expected an integer, got '%s'", what, b.ptr);
	else
		*out = v;
done:
	loom_buf_dispose(&b);
	return rc;
}

int ydoc_size(ydoc *d, yaml_node_t *n, const char *what, int64_t *out)
{
	loom_buf b = LOOM_BUF_INIT;
	int64_t v = 0;
	int rc = ydoc_string(d, n, what, &b);
	if (rc < 0)
		goto done;
	if (b.ptr[0] == '-' || strtod(b.ptr, NULL) < 0)
		rc = ydoc_err(d, n, "%s: must be a positive size, got '%s'", what, b.ptr);
	else if (loom_size_parse(&v, b.ptr) < 0)
		rc = ydoc_err(d, n, "%s: %s", what, loom_error_last()->message);
	else if (v <= 0)
		rc = ydoc_err(d, n, "%s: must be a positive size, got '%s'", what, b.ptr);
	else
		*out = v;
done:
	loom_buf_dispose(&b);
	return rc;
}
