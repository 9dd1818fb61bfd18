/* delta/actions_fast.c - a fast path for the common log line: one add or
 * remove action. It parses the line without building a JSON tree (no
 * allocation per value; strings are unescaped in a scratch copy and point
 * into it). Anything it does not fully understand - another action, an
 * unexpected type, odd syntax - returns 0 and the caller parses the line
 * with jansson, which also produces the precise error message. */
#include <string.h>

#include "delta/actions.h"
#include "util/error.h"
#include "util/percent.h"

typedef struct fp {
	char *p, *end;
	char *base;                /* the copy's first byte (the line's) */
	loom_arena *arena;
	uint32_t stats_off, stats_len;
} fp;

static void ws(fp *f)
{
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
		f->p++;
}

static int lit(fp *f, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(f->end - f->p) < n || memcmp(f->p, s, n) != 0)
		return 0;
	f->p += n;
	return 1;
}

static int hex4(const char *s, unsigned *out)
{
	int i, v;
	*out = 0;
	for (i = 0; i < 4; i++) {
		if ((v = loom_hex_digit((unsigned char)s[i])) < 0)
			return 0;
		*out = *out * 16 + (unsigned)v;
	}
	return 1;
}

/* Parse a string at f->p (opening quote); unescape in place and terminate
 * it with NUL. Returns the string or NULL on anything unusual. */
static char *str(fp *f)
{
	char *out, *w;
	if (f->p >= f->end || *f->p != '"')
		return NULL;
	out = w = ++f->p;
	while (f->p < f->end) {
		unsigned char c = (unsigned char)*f->p;
		if (c == '"') {
			f->p++;
			*w = '\0';
			return out;
		}
		if (c < 0x20)
			return NULL;
		if (c >= 0x80)
			return NULL; /* let jansson validate UTF-8 */
		if (c != '\\') {
			*w++ = (char)c;
			f->p++;
			continue;
		}
		if (f->end - f->p < 2)
			return NULL;
		switch (f->p[1]) {
		case '"': *w++ = '"'; break;
		case '\\': *w++ = '\\'; break;
		case '/': *w++ = '/'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'u': {
			unsigned u;
			if (f->end - f->p < 6 || !hex4(f->p + 2, &u) || u == 0 ||
			    (u >= 0xD800 && u <= 0xDFFF))
				return NULL; /* surrogates and NUL: the slow path */
			if (u < 0x80) {
				*w++ = (char)u;
			} else if (u < 0x800) {
				*w++ = (char)(0xC0 | (u >> 6));
				*w++ = (char)(0x80 | (u & 0x3F));
			} else {
				*w++ = (char)(0xE0 | (u >> 12));
				*w++ = (char)(0x80 | ((u >> 6) & 0x3F));
				*w++ = (char)(0x80 | (u & 0x3F));
			}
			f->p += 4;
			break;
		}
		default:
			return NULL;
		}
		f->p += 2;
	}
	return NULL;
}

/* Integer (strict JSON, fits int64). */
static int num(fp *f, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0;
	char *start;
	if (f->p < f->end && *f->p == '-') {
		neg = 1;
		f->p++;
	}
	start = f->p;
	while (f->p < f->end && *f->p >= '0' && *f->p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*f->p - '0');
		f->p++;
	}
	if (f->p == start || (f->p - start > 1 && *start == '0'))
		return 0;
	if (f->p < f->end && (*f->p == '.' || *f->p == 'e' || *f->p == 'E'))
		return 0;
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return 0;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 1;
}

static size_t digit_run(fp *f)
{
	char *s = f->p;
	while (f->p < f->end && *f->p >= '0' && *f->p <= '9')
		f->p++;
	return (size_t)(f->p - s);
}

/* Skip a number written exactly as JSON has it (no leading zero, digits on
 * both sides of '.') and small enough for jansson: at most 18 integer
 * digits and a two-digit exponent. Anything else is left to jansson, so
 * the fast path never accepts a line jansson rejects (found by fuzzing:
 * "0001274703756" passed here, and so did integers and reals too big for
 * jansson). */
static int skip_number(fp *f)
{
	size_t n;
	if (f->p < f->end && *f->p == '-')
		f->p++;
	if (f->p < f->end && *f->p == '0') {
		f->p++;
		n = 1;
	} else if ((n = digit_run(f)) == 0 || n > 18) {
		return 0;
	}
	if (f->p < f->end && *f->p == '.') {
		f->p++;
		if (!digit_run(f))
			return 0;
	}
	if (f->p < f->end && (*f->p == 'e' || *f->p == 'E')) {
		f->p++;
		if (f->p < f->end && (*f->p == '+' || *f->p == '-'))
			f->p++;
		if ((n = digit_run(f)) == 0 || n > 2)
			return 0;
	}
	return 1;
}

/* Skip any JSON value (used for unknown fields). */
static int skip(fp *f, int depth)
{
	ws(f);
	if (f->p >= f->end || depth > 64)
		return 0;
	if (*f->p == '"')
		return str(f) != NULL;
	if (*f->p == '{' || *f->p == '[') {
		char close = *f->p == '{' ? '}' : ']';
		int first = 1;
		f->p++;
		for (;;) {
			ws(f);
			if (f->p < f->end && *f->p == close) {
				f->p++;
				return 1;
			}
			if (!first) {
				if (f->p >= f->end || *f->p != ',')
					return 0;
				f->p++;
				ws(f);
			}
			first = 0;
			if (close == '}') {
				if (!str(f))
					return 0;
				ws(f);
				if (f->p >= f->end || *f->p != ':')
					return 0;
				f->p++;
			}
			if (!skip(f, depth + 1))
				return 0;
		}
	}
	if (lit(f, "null") || lit(f, "true") || lit(f, "false"))
		return 1;
	return skip_number(f);
}

/* Iterate an object's members: call with *first = 1; returns 1 with the
 * key (value next), 0 at the closing brace, -1 on bad syntax. */
static int member(fp *f, int *first, char **key)
{
	ws(f);
	if (f->p < f->end && *f->p == '}') {
		f->p++;
		return 0;
	}
	if (!*first) {
		if (f->p >= f->end || *f->p != ',')
			return -1;
		f->p++;
		ws(f);
	}
	*first = 0;
	if (!(*key = str(f)))
		return -1;
	ws(f);
	if (f->p >= f->end || *f->p != ':')
		return -1;
	f->p++;
	ws(f);
	return 1;
}

static int open_obj(fp *f)
{
	ws(f);
	if (f->p >= f->end || *f->p != '{')
		return 0;
	f->p++;
	return 1;
}

/* string or null */
static int opt_s(fp *f, const char **out)
{
	if (lit(f, "null")) {
		*out = NULL;
		return 1;
	}
	return (*out = str(f)) != NULL;
}

static int opt_i(fp *f, int64_t *out, int64_t dflt)
{
	if (lit(f, "null")) {
		*out = dflt;
		return 1;
	}
	return num(f, out);
}

static int opt_b(fp *f, uint8_t *out, int dflt)
{
	if (lit(f, "true"))
		*out = 1;
	else if (lit(f, "false"))
		*out = 0;
	else if (lit(f, "null"))
		*out = (uint8_t)dflt;
	else
		return 0;
	return 1;
}

/* {"k": "v" | null, ...} or null -> kv array in the arena */
static int kvmap(fp *f, delta_kv **out, uint32_t *n, int *present)
{
	delta_kv *items = NULL;
	uint32_t count = 0, cap = 0;
	int first = 1, r;
	char *k;
	*present = 0;
	*out = NULL;
	*n = 0;
	if (lit(f, "null"))
		return 1;
	if (!open_obj(f))
		return 0;
	*present = 1;
	while ((r = member(f, &first, &k)) == 1) {
		const char *v;
		uint32_t i;
		if (!opt_s(f, &v))
			return 0;
		/* a repeated key: JSON parsers keep the last value, so leave
		 * the line to jansson rather than keep both (found by fuzzing) */
		for (i = 0; i < count; i++)
			if (strcmp(items[i].key, k) == 0)
				return 0;
		if (count == cap) {
			uint32_t ncap = cap ? cap * 2 : 8;
			delta_kv *ni = loom_arena_alloc(f->arena, ncap * sizeof(delta_kv));
			if (!ni)
				return 0;
			if (count)
				memcpy(ni, items, count * sizeof(delta_kv));
			items = ni;
			cap = ncap;
		}
		items[count].key = k;
		items[count].value = v;
		count++;
	}
	if (r < 0)
		return 0;
	*out = items;
	*n = count;
	return 1;
}

static int dv(fp *f, delta_dv_descriptor *d)
{
	int first = 1, r;
	char *k;
	const char *st = NULL;
	int64_t v;
	int have_size = 0, have_card = 0;
	memset(d, 0, sizeof(*d));
	if (lit(f, "null"))
		return 1;
	if (!open_obj(f))
		return 0;
	while ((r = member(f, &first, &k)) == 1) {
		if (strcmp(k, "storageType") == 0) {
			if (!(st = str(f)))
				return 0;
		} else if (strcmp(k, "pathOrInlineDv") == 0) {
			if (!(d->path_or_inline_dv = str(f)))
				return 0;
		} else if (strcmp(k, "offset") == 0) {
			if (lit(f, "null"))
				continue;
			if (!num(f, &v) || v < 0 || v > INT32_MAX)
				return 0;
			d->offset = (int32_t)v;
			d->has_offset = 1;
		} else if (strcmp(k, "sizeInBytes") == 0) {
			if (!num(f, &v) || v < 0 || v > INT32_MAX)
				return 0;
			d->size_in_bytes = (int32_t)v;
			have_size = 1;
		} else if (strcmp(k, "cardinality") == 0) {
			if (!num(f, &d->cardinality) || d->cardinality < 0)
				return 0;
			have_card = 1;
		} else if (!skip(f, 1)) {
			return 0;
		}
	}
	if (r < 0 || !st || strlen(st) != 1 || !strchr("uip", st[0]) ||
	    !d->path_or_inline_dv || !have_size || !have_card)
		return 0;
	d->storage_type = st[0];
	return 1;
}

static int file_obj(fp *f, int is_add, delta_file *out)
{
	int first = 1, r, pv_present = 0, have_size = 0, tags_present;
	char *k;
	memset(out, 0, sizeof(*out));
	out->is_add = (uint8_t)is_add;
	out->version = -1;
	out->size = -1;
	out->modification_time = -1;
	out->deletion_timestamp = -1;
	out->base_row_id = -1;
	out->default_row_commit_version = -1;
	out->data_change = 1;
	if (!open_obj(f))
		return 0;
	while ((r = member(f, &first, &k)) == 1) {
		int ok;
		switch (k[0]) {
		case 'p':
			if (strcmp(k, "path") == 0)
				ok = (out->path_raw = str(f)) != NULL;
			else if (strcmp(k, "partitionValues") == 0)
				ok = kvmap(f, &out->partition_values, &out->num_partition_values,
				           &pv_present);
			else
				ok = skip(f, 1);
			break;
		case 's':
			if (strcmp(k, "size") == 0) {
				ok = opt_i(f, &out->size, -1);
				have_size = ok && out->size >= 0;
			} else if (strcmp(k, "stats") == 0) {
				char *at = f->p;
				ok = opt_s(f, &out->stats);
				/* where its text lies in the line, for readers that
				 * leave it there (f->p is past the closing quote) */
				if (ok && out->stats && f->p - at >= 2 && f->p - f->base <= (long)UINT32_MAX) {
					f->stats_off = (uint32_t)(at + 1 - f->base);
					f->stats_len = (uint32_t)(f->p - at - 2);
				}
			} else {
				ok = skip(f, 1);
			}
			break;
		default:
			if (strcmp(k, "modificationTime") == 0)
				ok = opt_i(f, &out->modification_time, -1);
			else if (strcmp(k, "dataChange") == 0)
				ok = opt_b(f, &out->data_change, 1);
			else if (strcmp(k, "tags") == 0)
				ok = kvmap(f, &out->tags, &out->num_tags, &tags_present);
			else if (strcmp(k, "deletionVector") == 0)
				ok = dv(f, &out->dv);
			else if (strcmp(k, "deletionTimestamp") == 0)
				ok = opt_i(f, &out->deletion_timestamp, -1);
			else if (strcmp(k, "extendedFileMetadata") == 0)
				ok = opt_b(f, &out->extended_file_metadata, 0);
			else if (strcmp(k, "baseRowId") == 0)
				ok = opt_i(f, &out->base_row_id, -1);
			else if (strcmp(k, "defaultRowCommitVersion") == 0)
				ok = opt_i(f, &out->default_row_commit_version, -1);
			else if (strcmp(k, "clusteringProvider") == 0)
				ok = opt_s(f, &out->clustering_provider);
			else
				ok = skip(f, 1);
		}
		if (!ok)
			return 0;
	}
	if (r < 0 || !out->path_raw)
		return 0;
	if (is_add) {
		/* the slow path reports the missing required fields */
		if (!pv_present || !have_size)
			return 0;
		out->deletion_timestamp = -1;
		out->extended_file_metadata = 0;
	} else {
		out->modification_time = -1;
		out->clustering_provider = NULL;
	}
	out->num_records = out->stats ? delta_stats_num_records(out->stats, strlen(out->stats)) : -1;
	return 1;
}

/* Point `f` at a NUL-terminated copy of the line in scratch memory (str()
 * unescapes in place), from byte `from` on. */
static int fp_on_copy(fp *f, const char *line, size_t len, size_t from, delta_parse_scratch *sc)
{
	char *copy = loom_arena_alloc(&sc->arena, len + 1);
	if (!copy)
		return LOOM_ENOMEM;
	memcpy(copy, line, len);
	copy[len] = '\0';
	f->p = copy + from;
	f->end = copy + len;
	f->base = copy;
	f->arena = &sc->arena;
	f->stats_off = f->stats_len = 0;
	return 0;
}

/* The line's object closes here, and nothing but blanks follows. */
static int line_closes(fp *f)
{
	ws(f);
	if (f->p >= f->end || *f->p != '}')
		return 0;
	f->p++;
	ws(f);
	return f->p == f->end;
}

int delta_action_parse_fast(const char *line, size_t len, const char *where,
                            delta_parse_scratch *sc, delta_action *out)
{
	fp f;
	char *k;
	int is_add, first = 1;

	/* cheap rejection: only lines starting with {"add" / {"remove" */
	if (len < 10 || line[0] != '{' ||
	    (memcmp(line, "{\"add\":", 7) != 0 && memcmp(line, "{\"remove\":", 10) != 0))
		return 0;
	if (fp_on_copy(&f, line, len, 1, sc) < 0)
		return LOOM_ENOMEM;
	if (member(&f, &first, &k) != 1)
		return 0;
	is_add = strcmp(k, "add") == 0;
	memset(out, 0, sizeof(*out));
	if (!file_obj(&f, is_add, &out->u.file) || !line_closes(&f))
		return 0;
	out->type = is_add ? DELTA_ACT_ADD : DELTA_ACT_REMOVE;
	out->stats_off = f.stats_off;
	out->stats_len = f.stats_len;
	LOOM_TRY(delta_file_make_key(&out->u.file, sc, where));
	return 1;
}

int delta_action_commit_info_fast(const char *line, size_t len, delta_parse_scratch *sc)
{
	static const char head[] = "{\"commitInfo\":";
	fp f;

	if (len < sizeof(head) || memcmp(line, head, sizeof(head) - 1) != 0)
		return 0;
	if (fp_on_copy(&f, line, len, sizeof(head) - 1, sc) < 0)
		return LOOM_ENOMEM;
	ws(&f);
	return f.p < f.end && *f.p == '{' && skip(&f, 1) && line_closes(&f);
}
