/* delta/file_paths.c - directories kept once, names packed (see
 * file_paths.h for the name encoding). */
#include "delta/file_paths.h"

#include <stdlib.h>
#include <string.h>

#include "delta/file_names.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"
#include "util/percent.h"

enum { TAG_SAME = 0, TAG_DIFFERS = 1, TAG_PATTERN = 2 };

void fx_paths_init(fx_paths *p)
{
	memset(p, 0, sizeof(*p));
	loom_arena_init(&p->arena, 64 * 1024);
	loom_bytepool_init(&p->names, 0);
}

void fx_paths_dispose(fx_paths *p)
{
	loom_map_dispose(&p->dir_map);
	loom_free(p->dirs);
	loom_bytepool_dispose(&p->names);
	loom_arena_dispose(&p->arena);
	loom_buf_dispose(&p->tmp);
	memset(p, 0, sizeof(*p));
}

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory building the file index");
}

static int dir_id(fx_paths *p, const char *raw, size_t raw_len, const char *dec,
                  size_t dec_len, uint32_t *id)
{
	void *v;
	fx_dir *d;
	if (p->last_dir) {
		d = &p->dirs[p->last_dir - 1];
		if (d->raw_len == raw_len && memcmp(d->raw, raw, raw_len) == 0) {
			*id = p->last_dir - 1;
			return 0;
		}
	}
	v = loom_map_get(&p->dir_map, raw, raw_len);
	if (v) {
		*id = (uint32_t)((uintptr_t)v - 1);
		p->last_dir = *id + 1;
		return 0;
	}
	if (p->num_dirs == UINT32_MAX - 1)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA, "too many directories");
	if (loom_array_grow((void **)&p->dirs, &p->cap_dirs, p->num_dirs + 1, sizeof(*p->dirs)) < 0)
		return oom();
	d = &p->dirs[p->num_dirs];
	memset(d, 0, sizeof(*d));
	d->raw = loom_arena_strndup(&p->arena, raw, raw_len);
	d->dec = raw_len == dec_len && memcmp(raw, dec, raw_len) == 0
	                 ? d->raw
	                 : loom_arena_strndup(&p->arena, dec, dec_len);
	if (!d->raw || !d->dec)
		return oom();
	d->raw_len = (uint32_t)raw_len;
	d->dec_len = (uint32_t)dec_len;
	if (loom_map_put(&p->dir_map, d->raw, raw_len, (void *)(uintptr_t)(p->num_dirs + 1), NULL) < 0)
		return oom();
	*id = (uint32_t)p->num_dirs++;
	p->last_dir = *id + 1;
	return 0;
}

/* The suffix's id, added when new; -1 when the table is full. */
static int suffix_id(fx_paths *p, const char *s, size_t n)
{
	size_t i;
	char *copy;
	for (i = 0; i < p->num_suffixes; i++)
		if (p->suffix_len[i] == n && memcmp(p->suffix[i], s, n) == 0)
			return (int)i;
	if (p->num_suffixes == FX_MAX_SUFFIXES)
		return -1;
	copy = loom_arena_strndup(&p->arena, s, n);
	if (!copy)
		return LOOM_ENOMEM;
	p->suffix[p->num_suffixes] = copy;
	p->suffix_len[p->num_suffixes] = (uint8_t)n;
	return (int)p->num_suffixes++;
}

static int pack_name(fx_paths *p, const char *raw, size_t raw_len, const char *dec,
                     size_t dec_len, const uint8_t **out)
{
	delta_name_parts parts;
	uint8_t *n;
	if (raw_len == dec_len && memcmp(raw, dec, raw_len) == 0 &&
	    delta_name_parse(raw, raw_len, &parts)) {
		int s = suffix_id(p, parts.suffix, parts.suffix_len);
		if (s == LOOM_ENOMEM)
			return oom();
		if (s >= 0) {
			n = loom_bytepool_alloc(&p->names, 1 + 3 + 16);
			if (!n)
				return oom();
			n[0] = (uint8_t)(TAG_PATTERN + s);
			n[1] = (uint8_t)(parts.part & 0xff);
			n[2] = (uint8_t)(parts.part >> 8 & 0xff);
			n[3] = (uint8_t)(parts.part >> 16);
			memcpy(n + 4, parts.uuid, 16);
			*out = n;
			return 0;
		}
	}
	if (raw_len == dec_len && memcmp(raw, dec, raw_len) == 0) {
		n = loom_bytepool_alloc(&p->names, 1 + dec_len + 1);
		if (!n)
			return oom();
		n[0] = TAG_SAME;
		memcpy(n + 1, dec, dec_len);
		n[1 + dec_len] = '\0';
	} else {
		n = loom_bytepool_alloc(&p->names, 1 + dec_len + 1 + raw_len + 1);
		if (!n)
			return oom();
		n[0] = TAG_DIFFERS;
		memcpy(n + 1, dec, dec_len);
		n[1 + dec_len] = '\0';
		memcpy(n + 2 + dec_len, raw, raw_len);
		n[2 + dec_len + raw_len] = '\0';
	}
	*out = n;
	return 0;
}

int fx_paths_add(fx_paths *p, const char *raw, const char *dec, uint32_t *dir,
                 const uint8_t **name)
{
	const char *slash = strrchr(raw, '/');
	size_t raw_len = strlen(raw), dec_len = strlen(dec);
	size_t raw_dir = slash ? (size_t)(slash - raw) + 1 : 0;
	const char *raw_name = raw + raw_dir, *dec_name = raw_name;
	size_t raw_name_len = raw_len - raw_dir, dec_name_len = raw_name_len;

	if (memchr(raw_name, '%', raw_name_len)) {
		loom_buf_clear(&p->tmp);
		if (loom_percent_decode(&p->tmp, raw_name, raw_name_len) < 0 ||
		    loom_buf_putc(&p->tmp, '\0') < 0)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "path \"%.200s\": %s", raw,
			                loom_error_last()->message);
		dec_name = p->tmp.ptr;
		dec_name_len = p->tmp.size - 1;
	}
	/* the decoded directory is what precedes the decoded name in `dec`;
	 * when `dec` does not end with it (not expected of the parser), the
	 * whole path is one name under the empty directory */
	if (dec_name_len > dec_len || memcmp(dec + dec_len - dec_name_len, dec_name, dec_name_len) != 0) {
		raw_dir = 0;
		raw_name = raw;
		raw_name_len = raw_len;
		dec_name = dec;
		dec_name_len = dec_len;
	}
	LOOM_TRY(dir_id(p, raw, raw_dir, dec, dec_len - dec_name_len, dir));
	return pack_name(p, raw_name, raw_name_len, dec_name, dec_name_len, name);
}

static int cmp_dir_text(const void *a, const void *b, void *ctx)
{
	const fx_paths *p = ctx;
	return strcmp(p->dirs[*(const uint32_t *)a].dec, p->dirs[*(const uint32_t *)b].dec);
}

static int is_prefix(const fx_dir *a, const fx_dir *b)
{
	return a->dec_len <= b->dec_len && memcmp(a->dec, b->dec, a->dec_len) == 0;
}

int fx_paths_rank(fx_paths *p)
{
	uint32_t *ids, *stack;
	size_t i, depth = 0;
	uint32_t rank = 0;

	if (!p->num_dirs)
		return 0;
	ids = loom_malloc(p->num_dirs * sizeof(*ids));
	stack = loom_malloc(p->num_dirs * sizeof(*stack));
	if (!ids || !stack) {
		loom_free(ids);
		loom_free(stack);
		return oom();
	}
	for (i = 0; i < p->num_dirs; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, p->num_dirs, sizeof(*ids), cmp_dir_text, p);
	for (i = 0; i < p->num_dirs; i++) {
		fx_dir *d = &p->dirs[ids[i]];
		const fx_dir *prev = i ? &p->dirs[ids[i - 1]] : NULL;
		if (prev && strcmp(prev->dec, d->dec) == 0) {
			d->rank = prev->rank; /* raw spellings of one directory */
			d->nested = prev->nested;
			continue;
		}
		d->rank = rank++;
		/* the stack holds the directories that are prefixes of this one
		 * (they sort just before it): mark both ends of any such pair */
		while (depth && !is_prefix(&p->dirs[stack[depth - 1]], d))
			depth--;
		if (depth) {
			d->nested = 1;
			p->dirs[stack[depth - 1]].nested = 1;
		}
		stack[depth++] = ids[i];
	}
	/* a spelling ranked before its twin was marked later: copy the mark */
	for (i = p->num_dirs; i > 1; i--) {
		fx_dir *a = &p->dirs[ids[i - 2]], *b = &p->dirs[ids[i - 1]];
		if (a->rank == b->rank)
			a->nested = b->nested = (uint8_t)(a->nested | b->nested);
	}
	loom_free(ids);
	loom_free(stack);
	return 0;
}

static void unpack(const fx_paths *p, const uint8_t *n, delta_name_parts *out)
{
	size_t s = (size_t)n[0] - TAG_PATTERN;
	out->part = (uint32_t)n[1] | (uint32_t)n[2] << 8 | (uint32_t)n[3] << 16;
	memcpy(out->uuid, n + 4, 16);
	out->suffix = p->suffix[s];
	out->suffix_len = p->suffix_len[s];
}

/* The decoded text of a name: in the pool, or formatted into buf. */
static const char *name_text(const fx_paths *p, const uint8_t *n, char *buf)
{
	delta_name_parts parts;
	if (n[0] < TAG_PATTERN)
		return (const char *)n + 1;
	unpack(p, n, &parts);
	delta_name_format(&parts, buf);
	return buf;
}

static const char *raw_name_text(const fx_paths *p, const uint8_t *n, char *buf)
{
	if (n[0] == TAG_DIFFERS)
		return (const char *)n + 1 + strlen((const char *)n + 1) + 1;
	return name_text(p, n, buf);
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

/* strcmp of a1[0..la) + a2 against b1[0..lb) + b2 (a2, b2 NUL-terminated). */
static int concat_cmp(const char *a1, size_t la, const char *a2, const char *b1, size_t lb,
                      const char *b2)
{
	size_t i = 0, j = 0;
	for (;;) {
		unsigned char ca = (unsigned char)(i < la ? a1[i] : a2[i - la]);
		unsigned char cb = (unsigned char)(j < lb ? b1[j] : b2[j - lb]);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!ca)
			return 0;
		i++;
		j++;
	}
}

int fx_paths_compare(const fx_paths *p, uint32_t da, const uint8_t *na, uint32_t db,
                     const uint8_t *nb)
{
	const fx_dir *a = &p->dirs[da], *b = &p->dirs[db];
	char ba[DELTA_NAME_FORMAT_MAX], bb[DELTA_NAME_FORMAT_MAX];

	if (a->rank != b->rank && !a->nested && !b->nested)
		return a->rank < b->rank ? -1 : 1;
	if (a->rank == b->rank && na[0] >= TAG_PATTERN && nb[0] >= TAG_PATTERN) {
		delta_name_parts pa, pb;
		unpack(p, na, &pa);
		unpack(p, nb, &pb);
		return sign(delta_name_compare(&pa, &pb));
	}
	if (a->rank == b->rank)
		return sign(strcmp(name_text(p, na, ba), name_text(p, nb, bb)));
	return concat_cmp(a->dec, a->dec_len, name_text(p, na, ba), b->dec, b->dec_len,
	                  name_text(p, nb, bb));
}

int fx_paths_compare_text(const fx_paths *p, uint32_t dir, const uint8_t *name, const char *path)
{
	const fx_dir *d = &p->dirs[dir];
	char buf[DELTA_NAME_FORMAT_MAX];
	return concat_cmp(d->dec, d->dec_len, name_text(p, name, buf), path, 0, path);
}

int fx_paths_render(const fx_paths *p, uint32_t dir, const uint8_t *name, int raw, loom_buf *out)
{
	const fx_dir *d = &p->dirs[dir];
	char buf[DELTA_NAME_FORMAT_MAX];
	const char *n = raw ? raw_name_text(p, name, buf) : name_text(p, name, buf);
	LOOM_TRY(loom_buf_put(out, raw ? d->raw : d->dec, raw ? d->raw_len : d->dec_len));
	return loom_buf_puts(out, n);
}

int fx_paths_raw_differs(const fx_paths *p, uint32_t dir, const uint8_t *name)
{
	return p->dirs[dir].raw != p->dirs[dir].dec || name[0] == TAG_DIFFERS;
}

size_t fx_paths_memory(const fx_paths *p)
{
	return p->arena.total + p->names.total + p->cap_dirs * sizeof(fx_dir) +
	       p->dir_map.cap * sizeof(loom_map_slot) + p->tmp.asize;
}
