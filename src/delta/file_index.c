/* delta/file_index.c - packed file records, their sort and dedup, and the
 * delta_file views handed out over them. */
#include "delta/file_index.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "delta/file_parts.h"
#include "delta/file_paths.h"
#include "store/client.h"
#include "util/alloc.h"
#include "util/bytepool.h"
#include "util/error.h"
#include "util/vec.h"

/* Records live in blocks that never move (no doubling copy at 10 M files). */
#define REC_BLOCK_BITS 12
#define REC_BLOCK (1u << REC_BLOCK_BITS)
#define NONE UINT32_MAX
#define SRC_HELD (UINT32_MAX - 1) /* stats_pos is a pointer into `held` */

enum {
	F_ADD = 1,
	F_DATA_CHANGE = 2,
	F_EXTENDED = 4,
	F_STATS_PARSED = 8,
	F_STATS_ROW = 16,      /* stats_pos is a row of a Parquet checkpoint */
};

/* One file: 72 bytes. */
typedef struct fx_rec {
	int64_t size;
	int64_t time;          /* add: modificationTime; remove: deletionTimestamp */
	int64_t num_records;
	int64_t version;
	const uint8_t *name;   /* in the path dictionary's name pool */
	uint64_t stats_pos;    /* offset in the source, or the held text */
	uint32_t dir;
	uint32_t part;         /* partition tuple id */
	uint32_t extra;        /* side-table entry or NONE */
	uint32_t stats_src;    /* source id, SRC_HELD, or NONE */
	uint32_t stats_len;
	uint32_t flags;
} fx_rec;

/* What the few files that have it carry: a DV, tags, a clustering
 * provider, row-tracking fields. Strings in the index's arena. */
typedef struct fx_extra {
	delta_dv_descriptor dv;
	delta_kv *tags;
	uint32_t num_tags;
	const char *clustering_provider;
	int64_t base_row_id;
	int64_t default_row_commit_version;
} fx_extra;

struct delta_file_index {
	fx_paths paths;
	fx_parts parts;
	fx_rec **blocks;
	size_t num_blocks, cap_blocks;
	size_t num_recs;
	fx_extra *extras;
	size_t num_extras, cap_extras;
	loom_arena arena;       /* side-table strings, source keys */
	loom_bytepool held;     /* stats text kept when there is no reference */
	char **sources;
	size_t num_sources, cap_sources;
	uint32_t *live, *tombs; /* record numbers in path order */
	size_t num_live, num_tombs;
	uint64_t total_bytes;
	int finished;
};

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory building the file index");
}

static fx_rec *rec_at(const delta_file_index *x, size_t i)
{
	return &x->blocks[i >> REC_BLOCK_BITS][i & (REC_BLOCK - 1)];
}

int delta_file_index_new(delta_file_index **out)
{
	delta_file_index *x = loom_calloc(1, sizeof(*x));
	*out = NULL;
	if (!x)
		return oom();
	fx_paths_init(&x->paths);
	fx_parts_init(&x->parts);
	loom_arena_init(&x->arena, 64 * 1024);
	loom_bytepool_init(&x->held, 0);
	*out = x;
	return 0;
}

void delta_file_index_free(delta_file_index *x)
{
	size_t i;
	if (!x)
		return;
	for (i = 0; i < x->num_blocks; i++)
		loom_free(x->blocks[i]);
	loom_free(x->blocks);
	loom_free(x->extras);
	loom_free(x->sources);
	loom_free(x->live);
	loom_free(x->tombs);
	fx_paths_dispose(&x->paths);
	fx_parts_dispose(&x->parts);
	loom_arena_dispose(&x->arena);
	loom_bytepool_dispose(&x->held);
	loom_free(x);
}

int delta_file_index_add_source(delta_file_index *x, const char *key, uint32_t *id)
{
	char *k;
	if (x->num_sources >= SRC_HELD)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA, "too many log files");
	if (loom_array_grow((void **)&x->sources, &x->cap_sources, x->num_sources + 1,
	                    sizeof(*x->sources)) < 0 ||
	    !(k = loom_arena_strdup(&x->arena, key)))
		return oom();
	x->sources[x->num_sources] = k;
	*id = (uint32_t)x->num_sources++;
	return 0;
}

static int needs_extra(const delta_file *f)
{
	return f->dv.storage_type || f->num_tags || f->clustering_provider || f->base_row_id >= 0 ||
	       f->default_row_commit_version >= 0;
}

static int add_extra(delta_file_index *x, const delta_file *f, uint32_t *id)
{
	fx_extra *e;
	uint32_t i;
	int failed = 0;
	if (loom_array_grow((void **)&x->extras, &x->cap_extras, x->num_extras + 1,
	                    sizeof(*x->extras)) < 0)
		return oom();
	e = &x->extras[x->num_extras];
	memset(e, 0, sizeof(*e));
	e->dv = f->dv;
	e->dv.path_or_inline_dv = loom_arena_strdup_opt(&x->arena, f->dv.path_or_inline_dv, &failed);
	e->clustering_provider = loom_arena_strdup_opt(&x->arena, f->clustering_provider, &failed);
	e->base_row_id = f->base_row_id;
	e->default_row_commit_version = f->default_row_commit_version;
	if (f->num_tags) {
		e->tags = loom_arena_alloc(&x->arena, f->num_tags * sizeof(delta_kv));
		if (!e->tags)
			return oom();
		for (i = 0; i < f->num_tags; i++) {
			e->tags[i].key = loom_arena_strdup_opt(&x->arena, f->tags[i].key, &failed);
			e->tags[i].value = loom_arena_strdup_opt(&x->arena, f->tags[i].value, &failed);
		}
		e->num_tags = f->num_tags;
	}
	if (failed)
		return oom();
	*id = (uint32_t)x->num_extras++;
	return 0;
}

static fx_rec *new_rec(delta_file_index *x)
{
	if (x->num_recs == (size_t)UINT32_MAX) {
		loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA, "more than 4 billion files");
		return NULL;
	}
	if ((x->num_recs & (REC_BLOCK - 1)) == 0 && x->num_recs >> REC_BLOCK_BITS == x->num_blocks) {
		fx_rec *b;
		if (loom_array_grow((void **)&x->blocks, &x->cap_blocks, x->num_blocks + 1,
		                    sizeof(*x->blocks)) < 0 ||
		    !(b = loom_malloc(REC_BLOCK * sizeof(fx_rec)))) {
			oom();
			return NULL;
		}
		x->blocks[x->num_blocks++] = b;
	}
	return rec_at(x, x->num_recs++);
}

int delta_file_index_add(delta_file_index *x, const delta_file *f, const delta_stats_ref *ref)
{
	fx_rec r;
	fx_rec *slot;

	if (x->finished)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "file index already finished");
	memset(&r, 0, sizeof(r));
	LOOM_TRY(fx_paths_add(&x->paths, f->path_raw, f->path, &r.dir, &r.name));
	LOOM_TRY(fx_parts_intern(&x->parts, f->partition_values, f->num_partition_values, &r.part));
	r.size = f->size;
	r.time = f->is_add ? f->modification_time : f->deletion_timestamp;
	r.num_records = f->num_records;
	r.version = f->version;
	r.extra = NONE;
	if (needs_extra(f))
		LOOM_TRY(add_extra(x, f, &r.extra));
	r.flags = (f->is_add ? F_ADD : 0) | (f->data_change ? F_DATA_CHANGE : 0) |
	          (f->extended_file_metadata ? F_EXTENDED : 0) |
	          (f->has_stats_parsed ? F_STATS_PARSED : 0);
	r.stats_src = NONE;
	if (ref) {
		if (ref->source >= x->num_sources)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "stats source %u unknown",
			                ref->source);
		if (ref->kind == DELTA_STATS_ROW)
			r.flags |= F_STATS_ROW;
		r.stats_src = ref->source;
		r.stats_len = ref->len;
		r.stats_pos = ref->offset;
	} else if (f->stats) {
		size_t n = strlen(f->stats);
		char *t = loom_bytepool_strndup(&x->held, f->stats, n);
		if (!t || n > UINT32_MAX)
			return oom();
		r.stats_src = SRC_HELD;
		r.stats_len = (uint32_t)n;
		r.stats_pos = (uint64_t)(uintptr_t)t;
	}
	slot = new_rec(x);
	if (!slot)
		return LOOM_ENOMEM;
	*slot = r;
	return 0;
}

/* ---- sort and dedup ---- */

/* DV unique id of a record ("" without a DV) into buf. */
static const char *dv_id(const delta_file_index *x, const fx_rec *r, loom_buf *buf)
{
	loom_buf_clear(buf);
	if (r->extra == NONE || !x->extras[r->extra].dv.storage_type)
		return "";
	if (delta_dv_unique_id(&x->extras[r->extra].dv, buf) < 0 || !buf->ptr)
		return "";
	return buf->ptr;
}

typedef struct sort_ctx {
	const delta_file_index *x;
	loom_buf a, b;
} sort_ctx;

/* path, then DV id, then the order added (first added first) */
static int cmp_key(const void *pa, const void *pb, void *c)
{
	sort_ctx *ctx = c;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const fx_rec *a = rec_at(ctx->x, ia), *b = rec_at(ctx->x, ib);
	int d = fx_paths_compare(&ctx->x->paths, a->dir, a->name, b->dir, b->name);
	if (d)
		return d;
	if (a->extra != NONE || b->extra != NONE) {
		d = strcmp(dv_id(ctx->x, a, &ctx->a), dv_id(ctx->x, b, &ctx->b));
		if (d)
			return d;
	}
	return ia < ib ? -1 : ia > ib;
}

static int same_key(sort_ctx *ctx, uint32_t ia, uint32_t ib)
{
	const fx_rec *a = rec_at(ctx->x, ia), *b = rec_at(ctx->x, ib);
	if (fx_paths_compare(&ctx->x->paths, a->dir, a->name, b->dir, b->name))
		return 0;
	if (a->extra == NONE && b->extra == NONE)
		return 1;
	return strcmp(dv_id(ctx->x, a, &ctx->a), dv_id(ctx->x, b, &ctx->b)) == 0;
}

int delta_file_index_finish(delta_file_index *x)
{
	uint32_t *order;
	sort_ctx ctx;
	size_t i, n = x->num_recs, live = 0, tombs = 0;

	if (x->finished)
		return 0;
	LOOM_TRY(fx_paths_rank(&x->paths));
	order = loom_malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		return oom();
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	memset(&ctx, 0, sizeof(ctx));
	ctx.x = x;
	qsort_r(order, n, sizeof(*order), cmp_key, &ctx);
	/* first of each key wins; count the survivors of each kind */
	for (i = 0; i < n; i++) {
		if (i && same_key(&ctx, order[i - 1], order[i])) {
			order[i] = order[i - 1]; /* the winner, for the next test */
			continue;
		}
		if (rec_at(x, order[i])->flags & F_ADD)
			live++;
		else
			tombs++;
	}
	loom_buf_dispose(&ctx.a);
	loom_buf_dispose(&ctx.b);
	x->live = loom_malloc((live ? live : 1) * sizeof(uint32_t));
	x->tombs = loom_malloc((tombs ? tombs : 1) * sizeof(uint32_t));
	if (!x->live || !x->tombs) {
		loom_free(order);
		return oom();
	}
	for (i = 0; i < n; i++) {
		const fx_rec *r;
		if (i && order[i] == order[i - 1])
			continue;
		r = rec_at(x, order[i]);
		if (r->flags & F_ADD) {
			x->live[x->num_live++] = order[i];
			x->total_bytes += (uint64_t)(r->size > 0 ? r->size : 0);
		} else {
			x->tombs[x->num_tombs++] = order[i];
		}
	}
	loom_free(order);
	x->finished = 1;
	return 0;
}

size_t delta_file_index_num_live(const delta_file_index *x)
{
	return x->num_live;
}

size_t delta_file_index_num_tombstones(const delta_file_index *x)
{
	return x->num_tombs;
}

uint64_t delta_file_index_total_bytes(const delta_file_index *x)
{
	return x->total_bytes;
}

size_t delta_file_index_memory(const delta_file_index *x)
{
	return sizeof(*x) + x->num_blocks * REC_BLOCK * sizeof(fx_rec) +
	       x->cap_blocks * sizeof(fx_rec *) + x->cap_extras * sizeof(fx_extra) +
	       x->arena.total + x->held.total + x->cap_sources * sizeof(char *) +
	       (x->num_live + x->num_tombs) * sizeof(uint32_t) + fx_paths_memory(&x->paths) +
	       fx_parts_memory(&x->parts);
}

/* ---- views ---- */

void delta_file_scratch_init(delta_file_scratch *s)
{
	loom_arena_init(&s->arena, 16 * 1024);
	memset(&s->tmp, 0, sizeof(s->tmp));
}

void delta_file_scratch_reset(delta_file_scratch *s)
{
	size_t block = s->arena.block_size;
	loom_arena_dispose(&s->arena);
	loom_arena_init(&s->arena, block);
}

void delta_file_scratch_dispose(delta_file_scratch *s)
{
	loom_arena_dispose(&s->arena);
	loom_buf_dispose(&s->tmp);
}

static const fx_rec *rec_of(const delta_file_index *x, delta_file_list list, size_t i)
{
	if (list == DELTA_FILES_LIVE)
		return i < x->num_live ? rec_at(x, x->live[i]) : NULL;
	return i < x->num_tombs ? rec_at(x, x->tombs[i]) : NULL;
}

static int out_of_range(size_t i)
{
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "file index position %zu out of range", i);
}

int delta_file_index_path(const delta_file_index *x, delta_file_list list, size_t i, loom_buf *out)
{
	const fx_rec *r = rec_of(x, list, i);
	if (!r)
		return out_of_range(i);
	loom_buf_clear(out);
	return fx_paths_render(&x->paths, r->dir, r->name, 0, out) < 0 ? oom() : 0;
}

int delta_file_index_brief(const delta_file_index *x, delta_file_list list, size_t i,
                           delta_file_brief *out)
{
	const fx_rec *r = rec_of(x, list, i);
	if (!r)
		return out_of_range(i);
	out->size = r->size;
	out->time = r->time;
	out->version = r->version;
	return 0;
}

int delta_file_index_has_stats(const delta_file_index *x, delta_file_list list, size_t i)
{
	const fx_rec *r = rec_of(x, list, i);
	if (!r)
		return out_of_range(i);
	return r->stats_src != NONE;
}

int delta_file_index_get(const delta_file_index *x, delta_file_list list, size_t i,
                         delta_file_scratch *sc, delta_file *out)
{
	const fx_rec *r = rec_of(x, list, i);
	const fx_tuple *t;
	loom_buf *b = &sc->tmp;
	char *key;

	if (!r)
		return out_of_range(i);
	memset(out, 0, sizeof(*out));
	/* key = decoded path, NUL, DV id; path points at its start */
	loom_buf_clear(b);
	if (fx_paths_render(&x->paths, r->dir, r->name, 0, b) < 0 || loom_buf_putc(b, '\0') < 0)
		return oom();
	if (r->extra != NONE) {
		const fx_extra *e = &x->extras[r->extra];
		out->dv = e->dv;
		out->tags = e->tags;
		out->num_tags = e->num_tags;
		out->clustering_provider = e->clustering_provider;
		out->base_row_id = e->base_row_id;
		out->default_row_commit_version = e->default_row_commit_version;
		if (delta_dv_unique_id(&e->dv, b) < 0)
			return oom();
	} else {
		out->base_row_id = -1;
		out->default_row_commit_version = -1;
	}
	key = loom_arena_strndup(&sc->arena, b->ptr, b->size);
	if (!key)
		return oom();
	out->key = key;
	out->key_len = (uint32_t)b->size;
	out->path = key;
	out->path_raw = key;
	if (fx_paths_raw_differs(&x->paths, r->dir, r->name)) {
		loom_buf_clear(b);
		if (fx_paths_render(&x->paths, r->dir, r->name, 1, b) < 0 ||
		    !(out->path_raw = loom_arena_strndup(&sc->arena, b->ptr, b->size)))
			return oom();
	}
	t = &x->parts.tuples[r->part];
	out->partition_values = t->kv;
	out->num_partition_values = t->n;
	out->size = r->size;
	out->is_add = (uint8_t)(r->flags & F_ADD ? 1 : 0);
	out->modification_time = out->is_add ? r->time : -1;
	out->deletion_timestamp = out->is_add ? -1 : r->time;
	out->num_records = r->num_records;
	out->version = r->version;
	out->data_change = (uint8_t)(r->flags & F_DATA_CHANGE ? 1 : 0);
	out->extended_file_metadata = (uint8_t)(r->flags & F_EXTENDED ? 1 : 0);
	out->has_stats_parsed = (uint8_t)(r->flags & F_STATS_PARSED ? 1 : 0);
	if (r->stats_src == SRC_HELD)
		out->stats = (const char *)(uintptr_t)r->stats_pos;
	return 0;
}

/* A JSON string body (escaped, no quotes) into its text. */
static int unescape(const char *body, size_t len, const char *where, loom_buf *out)
{
	loom_buf q = LOOM_BUF_INIT;
	json_t *s;
	json_error_t err;
	int rc = 0;
	if (loom_buf_putc(&q, '"') < 0 || loom_buf_put(&q, body, len) < 0 ||
	    loom_buf_putc(&q, '"') < 0) {
		loom_buf_dispose(&q);
		return oom();
	}
	s = json_loadb(q.ptr, q.size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
	if (!json_is_string(s))
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "stats in %s: not a JSON string (%s)",
		              where, err.text);
	else if (loom_buf_put(out, json_string_value(s), json_string_length(s)) < 0)
		rc = oom();
	json_decref(s);
	loom_buf_dispose(&q);
	return rc;
}

void delta_stats_reader_init(delta_stats_reader *r, loom_store *store)
{
	r->store = store;
	r->ckpt = NULL;
}

void delta_stats_reader_dispose(delta_stats_reader *r)
{
	delta_ckpt_stats_reader_free(r->ckpt);
	r->ckpt = NULL;
}

int delta_file_index_stats(const delta_file_index *x, delta_stats_reader *rd,
                           delta_file_list list, size_t i, loom_buf *out, int *found)
{
	loom_store *store = rd->store;
	const fx_rec *r = rec_of(x, list, i);
	loom_buf raw = LOOM_BUF_INIT;
	const char *key;
	size_t got = 0;
	int rc;

	*found = 0;
	if (!r)
		return out_of_range(i);
	loom_buf_clear(out);
	if (r->stats_src == NONE)
		return 0;
	*found = 1;
	if (r->stats_src == SRC_HELD)
		return loom_buf_put(out, (const char *)(uintptr_t)r->stats_pos, r->stats_len) < 0 ? oom()
		                                                                               : 0;
	key = x->sources[r->stats_src];
	if (r->flags & F_STATS_ROW) {
		if (!rd->ckpt)
			LOOM_TRY(delta_ckpt_stats_reader_new(&rd->ckpt, store));
		return delta_ckpt_stats_read(rd->ckpt, key, r->stats_pos, out, found);
	}
	if (loom_buf_grow(&raw, r->stats_len) < 0)
		return oom();
	rc = store->read_range(store, key, r->stats_pos, r->stats_len, raw.ptr, &got);
	if (rc == 0 && got != r->stats_len)
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		              "%s: stats at byte %llu: the file ends before %u bytes", key,
		              (unsigned long long)r->stats_pos, r->stats_len);
	else if (rc < 0)
		rc = loom_err_wrap("reading stats from %s", key);
	if (rc == 0)
		rc = unescape(raw.ptr, got, key, out);
	loom_buf_dispose(&raw);
	return rc;
}

int delta_file_index_stats_ref(const delta_file_index *x, delta_file_list list, size_t i,
                               delta_stats_ref *out)
{
	const fx_rec *r = rec_of(x, list, i);
	if (!r)
		return out_of_range(i);
	if (r->stats_src == NONE || r->stats_src == SRC_HELD)
		return 0;
	out->kind = r->flags & F_STATS_ROW ? DELTA_STATS_ROW : DELTA_STATS_SPAN;
	out->source = r->stats_src;
	out->len = r->stats_len;
	out->offset = r->stats_pos;
	return 1;
}

long long delta_file_index_find(const delta_file_index *x, const char *path)
{
	size_t lo = 0, hi = x->num_live;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const fx_rec *r = rec_at(x, x->live[mid]);
		int c = fx_paths_compare_text(&x->paths, r->dir, r->name, path);
		if (c == 0)
			return (long long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
