/* delta/snapshot_load.c - choose the files that rebuild a version, replay
 * them newest first, and assemble the snapshot. */
#include "delta/snapshot.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "delta/log_fetch.h"
#include "delta/protocol.h"
#include "store/client.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/percent.h"
#include "util/vec.h"

void delta_load_opts_init(delta_load_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->keep_stats = 1;
	o->commit_stats_budget = DELTA_COMMIT_STATS_BUDGET;
}

typedef struct replay {
	delta_snapshot *snap;
	const delta_load_opts *opts;
	loom_map seen;              /* file key -> delta_file* (index mode:
	                               only keys read from commits) */
	loom_arena keys;            /* index mode: the commits' keys */
	loom_vec files, tombs;      /* delta_file* */
	loom_map txn_map;           /* app id -> delta_txn* */
	loom_vec txns;              /* delta_txn* */
	loom_map domain_map;        /* domain -> delta_domain* */
	loom_vec domains;           /* delta_domain* */
	loom_vec sidecars;          /* char* (arena): sidecar store keys */
	loom_vec deferred;          /* char* (arena): Parquet checkpoint files
	                               whose live adds were deferred */
	int have_protocol, have_metadata;
	int in_checkpoint;
	int deferring;              /* reading a Parquet checkpoint file with
	                               defer_checkpoint_adds */
	int in_parquet;             /* index mode: reading Parquet file `src` */
	int in_json;                /* index mode: reading JSON file `src` */
	uint32_t src;
	uint64_t line_off;          /* in_json: the current line's offset */
	size_t commit_stats_held;   /* index mode: bytes of the commits' adds'
	                               stats the index keeps where it could
	                               keep a reference (opts'
	                               commit_stats_budget) */
	int in_compaction;          /* replaying a x.y.compacted.json file */
	int64_t ckpt_meta_version;  /* checkpointMetadata.version, -1 */
	int64_t cur_version;
	delta_parse_scratch sc;
} replay;

static void replay_init(replay *r, delta_snapshot *snap, const delta_load_opts *opts)
{
	memset(r, 0, sizeof(*r));
	r->snap = snap;
	r->opts = opts;
	loom_vec_init(&r->files, sizeof(delta_file *));
	loom_vec_init(&r->tombs, sizeof(delta_file *));
	loom_vec_init(&r->txns, sizeof(delta_txn *));
	loom_vec_init(&r->domains, sizeof(delta_domain *));
	loom_vec_init(&r->sidecars, sizeof(char *));
	loom_vec_init(&r->deferred, sizeof(char *));
	r->ckpt_meta_version = -1;
	loom_arena_init(&r->keys, 64 * 1024);
	delta_parse_scratch_init(&r->sc);
}

static void replay_dispose(replay *r)
{
	loom_map_dispose(&r->seen);
	loom_map_dispose(&r->txn_map);
	loom_map_dispose(&r->domain_map);
	loom_vec_dispose(&r->files);
	loom_vec_dispose(&r->tombs);
	loom_vec_dispose(&r->txns);
	loom_vec_dispose(&r->domains);
	loom_vec_dispose(&r->sidecars);
	loom_vec_dispose(&r->deferred);
	loom_arena_dispose(&r->keys);
	delta_parse_scratch_dispose(&r->sc);
}

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory during log replay");
}

/* Does the replay keep the commitInfo of the file being read? */
static int wants_commit_info(const replay *r)
{
	return !r->in_checkpoint && !r->in_compaction && r->cur_version == r->snap->version &&
	       !r->snap->commit_info;
}

/* Whether the index keeps a copy of the stats of `f`, an add read from a
 * commit, under the budget for those (delta_load_opts.commit_stats_budget);
 * counts it when it does. */
static int hold_commit_stats(replay *r, const delta_file *f)
{
	size_t n;
	if (r->in_checkpoint || !f->is_add)
		return 0;
	n = strlen(f->stats);
	if (n > r->opts->commit_stats_budget - r->commit_stats_held)
		return 0;
	r->commit_stats_held += n;
	return 1;
}

/* An add or remove into the file index (newest first: first seen wins).
 * Only the keys of commits are remembered: the checkpoint is read last and
 * holds each key at most once, so its actions are looked up, never
 * inserted (the index keeps the first of a key added twice all the same). */
static int replay_indexed(replay *r, const delta_action *a)
{
	const delta_file *f = &a->u.file;
	delta_stats_ref ref;
	delta_file d;
	if (loom_map_get(&r->seen, f->key, f->key_len))
		return 0;
	if (!r->in_checkpoint) {
		char *k = loom_arena_strndup(&r->keys, f->key, f->key_len);
		if (!k || loom_map_put(&r->seen, k, f->key_len, k, NULL) < 0)
			return oom();
	}
	d = *f;
	d.version = r->cur_version;
	if (!r->opts->keep_stats)
		d.stats = NULL;
	/* an add's stats from a Parquet checkpoint's add.stats column stay
	 * there (not those made of stats_parsed, nor a remove's) */
	if (d.stats && d.is_add && !d.has_stats_parsed && r->in_parquet) {
		ref.kind = DELTA_STATS_ROW;
		ref.source = r->src;
		ref.len = 0;
		ref.offset = a->row;
		return delta_file_index_add(r->snap->index, &d, &ref);
	}
	/* in a JSON file: where the fast parser found the text, unless a
	 * commit's add keeps its copy */
	if (d.stats && r->in_json && a->stats_len && !hold_commit_stats(r, &d)) {
		ref.kind = DELTA_STATS_SPAN;
		ref.source = r->src;
		ref.len = a->stats_len;
		ref.offset = r->line_off + a->stats_off;
		return delta_file_index_add(r->snap->index, &d, &ref);
	}
	return delta_file_index_add(r->snap->index, &d, NULL);
}

/* The reconciliation step for one action (newest first: first seen wins). */
static int replay_action(void *ctx, const delta_action *a)
{
	replay *r = ctx;
	delta_snapshot *s = r->snap;
	loom_arena *ar = &s->arena;

	switch (a->type) {
	case DELTA_ACT_ADD:
	case DELTA_ACT_REMOVE: {
		const delta_file *f = &a->u.file;
		delta_file *d;
		if (s->index)
			return replay_indexed(r, a);
		if (loom_map_get(&r->seen, f->key, f->key_len))
			return 0;
		if (r->deferring && f->is_add) {
			/* left in the checkpoint file: a checkpoint holds a key
			 * once, so nothing read after it needs it in `seen` */
			s->num_deferred_files++;
			s->deferred_bytes += f->size > 0 ? (uint64_t)f->size : 0;
			return 0;
		}
		d = loom_arena_alloc(ar, sizeof(*d));
		if (!d || delta_file_copy(ar, d, f, r->opts->keep_stats) < 0)
			return oom();
		d->version = r->cur_version;
		if (loom_map_put(&r->seen, d->key, d->key_len, d, NULL) < 0)
			return oom();
		if (loom_vec_push(d->is_add ? &r->files : &r->tombs, &d) < 0)
			return oom();
		return 0;
	}
	case DELTA_ACT_PROTOCOL:
		if (r->have_protocol)
			return 0;
		r->have_protocol = 1;
		return delta_protocol_copy(ar, &s->protocol, &a->u.protocol) < 0 ? oom() : 0;
	case DELTA_ACT_METADATA:
		if (r->have_metadata)
			return 0;
		r->have_metadata = 1;
		return delta_metadata_copy(ar, &s->metadata, &a->u.metadata) < 0 ? oom() : 0;
	case DELTA_ACT_TXN: {
		delta_txn *t;
		if (loom_map_gets(&r->txn_map, a->u.txn.app_id))
			return 0;
		t = loom_arena_alloc(ar, sizeof(*t));
		if (!t)
			return oom();
		*t = a->u.txn;
		t->app_id = loom_arena_strdup(ar, a->u.txn.app_id);
		if (!t->app_id || loom_map_puts(&r->txn_map, t->app_id, t) < 0 ||
		    loom_vec_push(&r->txns, &t) < 0)
			return oom();
		return 0;
	}
	case DELTA_ACT_DOMAIN: {
		delta_domain *d;
		if (loom_map_gets(&r->domain_map, a->u.domain.domain))
			return 0;
		d = loom_arena_alloc(ar, sizeof(*d));
		if (!d)
			return oom();
		*d = a->u.domain;
		d->domain = loom_arena_strdup(ar, a->u.domain.domain);
		d->configuration = loom_arena_strdup(ar, a->u.domain.configuration);
		if (!d->domain || !d->configuration ||
		    loom_map_puts(&r->domain_map, d->domain, d) < 0 ||
		    loom_vec_push(&r->domains, &d) < 0)
			return oom();
		return 0;
	}
	case DELTA_ACT_COMMIT_INFO:
		/* only the commit file of the snapshot version has it
		 * (checkpoints and compactions drop commitInfo) */
		if (wants_commit_info(r)) {
			char *text = json_dumps(a->json, JSON_COMPACT | JSON_PRESERVE_ORDER);
			json_t *ict = json_object_get(a->json, "inCommitTimestamp");
			if (!text)
				return oom();
			s->commit_info = loom_arena_strdup(ar, text);
			free(text);
			if (!s->commit_info)
				return oom();
			if (json_is_integer(ict))
				s->in_commit_timestamp = json_integer_value(ict);
		}
		return 0;
	case DELTA_ACT_SIDECAR: {
		loom_buf key = LOOM_BUF_INIT;
		char *k;
		int rc = 0;
		if (!r->in_checkpoint)
			return 0;
		if (strchr(a->u.sidecar.path, '/') || strchr(a->u.sidecar.path, ':'))
			return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
			                "sidecar path \"%.200s\" is not a plain file name in "
			                "_delta_log/_sidecars/", a->u.sidecar.path);
		if (loom_buf_puts(&key, DELTA_LOG_DIR "_sidecars/") < 0)
			rc = oom();
		else if (loom_percent_decode(&key, a->u.sidecar.path, strlen(a->u.sidecar.path)) < 0)
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "sidecar path \"%.200s\": %s",
			              a->u.sidecar.path, loom_error_last()->message);
		if (rc == 0) {
			k = loom_arena_strndup(ar, key.ptr, key.size);
			if (!k || loom_vec_push(&r->sidecars, &k) < 0)
				rc = oom();
		}
		loom_buf_dispose(&key);
		return rc;
	}
	case DELTA_ACT_CHECKPOINT_METADATA:
		if (r->in_checkpoint)
			r->ckpt_meta_version = a->u.checkpoint_version;
		return 0;
	default:
		return 0;
	}
}

/* Line boundaries of a JSON-lines buffer. */
typedef struct line_span {
	size_t off, len;
} line_span;

static int split_lines(const char *p, size_t n, loom_vec *spans)
{
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(p + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - p) : n;
		line_span sp;
		sp.off = i;
		sp.len = e - i;
		if (sp.len && p[i + sp.len - 1] == '\r')
			sp.len--;
		LOOM_TRY(loom_vec_push(spans, &sp));
		i = e + 1;
	}
	return 0;
}

static int blank(const char *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return 0;
	return 1;
}

/* Replay a JSON-lines file (commit or JSON checkpoint); reverse = newest
 * line first. Its contents come from `fetch` (file `fetch_index`) when
 * the segment is fetched ahead, else from the store. */
static int replay_json_file(replay *r, const char *key, int reverse,
                            delta_log_fetch *fetch, size_t fetch_index)
{
	loom_buf b = LOOM_BUF_INIT;
	loom_vec spans = LOOM_VEC_INIT(line_span);
	size_t i, n, nonblank = 0;
	int rc;

	if (fetch)
		rc = delta_log_fetch_take(fetch, fetch_index, &b);
	else
		rc = loom_store_read_all(r->snap->store, key, &b);
	if (rc < 0) {
		loom_buf_dispose(&b);
		return loom_err_wrap("reading %s", key);
	}
	rc = split_lines(b.ptr ? b.ptr : "", b.size, &spans);
	if (rc == 0 && r->snap->index)
		rc = delta_file_index_add_source(r->snap->index, key, &r->src);
	r->in_json = rc == 0 && r->snap->index != NULL;
	n = spans.len;
	for (i = 0; rc == 0 && i < n; i++) {
		size_t li = reverse ? n - 1 - i : i;
		line_span *sp = loom_vec_at(&spans, li);
		char where[600];
		delta_action act;
		json_t *root = NULL;
		if (blank(b.ptr + sp->off, sp->len))
			continue;
		nonblank++;
		/* commitInfo counts only in the snapshot version's commit: in
		 * every other it is checked as JSON, and skipped */
		if (!wants_commit_info(r) &&
		    (rc = delta_action_commit_info_fast(b.ptr + sp->off, sp->len, &r->sc)) != 0) {
			if (rc == 1)
				rc = 0;
			delta_parse_scratch_reset(&r->sc);
			continue;
		}
		snprintf(where, sizeof(where), "%s line %zu", key, li + 1);
		rc = delta_action_parse_fast(b.ptr + sp->off, sp->len, where, &r->sc, &act);
		if (rc == 0)
			rc = delta_action_parse_line(b.ptr + sp->off, sp->len, where, &r->sc, &root,
			                             &act);
		else if (rc == 1)
			rc = 0;
		r->line_off = sp->off;
		if (rc == 0)
			rc = replay_action(r, &act);
		json_decref(root);
		delta_parse_scratch_reset(&r->sc);
	}
	r->in_json = 0;
	if (rc == 0 && nonblank == 0)
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: no actions (empty file)", key);
	loom_vec_dispose(&spans);
	loom_buf_dispose(&b);
	return rc;
}

/* One Parquet checkpoint file or sidecar: with defer_checkpoint_adds its
 * live adds are counted and the file named for the caller to stream; with
 * an index, named as the source its adds' stats stay in. */
static int replay_parquet(replay *r, const char *key, int64_t version)
{
	int rc;
	if (r->opts->defer_checkpoint_adds) {
		char *k = loom_arena_strdup(&r->snap->arena, key);
		if (!k || loom_vec_push(&r->deferred, &k) < 0)
			return oom();
		r->deferring = 1;
	}
	if (r->snap->index)
		LOOM_TRY(delta_file_index_add_source(r->snap->index, key, &r->src));
	r->in_parquet = r->snap->index != NULL;
	rc = delta_checkpoint_parquet_read(r->snap->store, key, version, replay_action, r);
	r->deferring = 0;
	r->in_parquet = 0;
	return rc;
}

static int replay_checkpoint(replay *r, const delta_log_listing *l,
                             const delta_checkpoint_ref *c)
{
	size_t i;
	r->in_checkpoint = 1;
	r->cur_version = c->version;
	for (i = 0; i < c->count; i++) {
		const delta_log_file *f = loom_vec_at(&l->files, c->first + i);
		if (c->kind == DELTA_CKPT_V2_JSON)
			LOOM_TRY(replay_json_file(r, f->key, 0, NULL, 0));
		else
			LOOM_TRY(replay_parquet(r, f->key, c->version));
	}
	if ((c->kind == DELTA_CKPT_V2_JSON || c->kind == DELTA_CKPT_V2_PARQUET) &&
	    r->ckpt_meta_version < 0) {
		const delta_log_file *f = loom_vec_at(&l->files, c->first);
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: V2 checkpoint without a checkpointMetadata action", f->key);
	}
	if (r->ckpt_meta_version >= 0 && r->ckpt_meta_version != c->version) {
		const delta_log_file *f = loom_vec_at(&l->files, c->first);
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: checkpointMetadata.version is %lld, the file name says %lld",
		                f->key, (long long)r->ckpt_meta_version, (long long)c->version);
	}
	/* sidecars: all must exist before any is read */
	for (i = 0; i < r->sidecars.len; i++) {
		const char *key = *(char **)loom_vec_at(&r->sidecars, i);
		loom_store_entry e;
		int rc = r->snap->store->stat(r->snap->store, key, &e);
		if (rc == LOOM_ENOTFOUND) {
			/* an incomplete checkpoint, like a multi-part one missing a
			 * part: the loader tries an older one (or the commits) */
			const delta_log_file *f = loom_vec_at(&l->files, c->first);
			return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_DELTA,
			                "%s references sidecar %s, which does not exist", f->key, key);
		}
		if (rc < 0)
			return loom_err_wrap("sidecar %s", key);
	}
	for (i = 0; i < r->sidecars.len; i++) {
		const char *key = *(char **)loom_vec_at(&r->sidecars, i);
		LOOM_TRY(replay_parquet(r, key, c->version));
	}
	r->snap->num_sidecars = r->sidecars.len;
	r->in_checkpoint = 0;
	return 0;
}

static int cmp_file_path(const void *a, const void *b)
{
	const delta_file *x = *(delta_file *const *)a, *y = *(delta_file *const *)b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	/* same path (tombstones with different DVs): order by DV id */
	return strcmp(x->key + strlen(x->key) + 1, y->key + strlen(y->key) + 1);
}

/* Move the replay's collections into the snapshot's arena arrays. */
static int finish(replay *r)
{
	delta_snapshot *s = r->snap;
	size_t i, n;

	if (s->index) {
		LOOM_TRY(delta_file_index_finish(s->index));
		s->num_files = delta_file_index_num_live(s->index);
		s->num_tombstones = delta_file_index_num_tombstones(s->index);
		s->total_bytes = delta_file_index_total_bytes(s->index);
	}
	loom_vec_sort(&r->files, cmp_file_path);
	loom_vec_sort(&r->tombs, cmp_file_path);
	if (!s->index) {
		s->num_files = r->files.len;
		s->files = loom_arena_alloc(&s->arena, (s->num_files + 1) * sizeof(delta_file *));
		s->num_tombstones = r->tombs.len;
		s->tombstones = loom_arena_alloc(&s->arena,
		                                 (s->num_tombstones + 1) * sizeof(delta_file *));
		if (!s->files || !s->tombstones)
			return oom();
		if (s->num_files)
			memcpy(s->files, r->files.data, s->num_files * sizeof(delta_file *));
		if (s->num_tombstones)
			memcpy(s->tombstones, r->tombs.data, s->num_tombstones * sizeof(delta_file *));
		s->total_bytes = 0;
		for (i = 0; i < s->num_files; i++)
			s->total_bytes += (uint64_t)s->files[i]->size;
	}
	s->num_deferred_keys = r->deferred.len;
	s->deferred_keys = loom_arena_alloc(&s->arena, (r->deferred.len + 1) * sizeof(char *));
	if (!s->deferred_keys)
		return oom();
	if (r->deferred.len)
		memcpy(s->deferred_keys, r->deferred.data, r->deferred.len * sizeof(char *));
	s->txns = loom_arena_alloc(&s->arena, (r->txns.len + 1) * sizeof(delta_txn));
	s->domains = loom_arena_alloc(&s->arena, (r->domains.len + 1) * sizeof(delta_domain));
	if (!s->txns || !s->domains)
		return oom();
	for (i = 0; i < r->txns.len; i++)
		s->txns[i] = **(delta_txn **)loom_vec_at(&r->txns, i);
	s->num_txns = r->txns.len;
	for (i = 0, n = 0; i < r->domains.len; i++) {
		delta_domain *d = *(delta_domain **)loom_vec_at(&r->domains, i);
		if (!d->removed)
			s->domains[n++] = *d;
	}
	s->num_domains = n;
	return 0;
}

static int add_warning(delta_snapshot *s, const char *text)
{
	char **w = loom_arena_alloc(&s->arena, (s->num_warnings + 1) * sizeof(char *));
	char *t = loom_arena_strdup(&s->arena, text);
	if (!w || !t)
		return oom();
	if (s->num_warnings)
		memcpy(w, s->warnings, s->num_warnings * sizeof(char *));
	w[s->num_warnings++] = t;
	s->warnings = w;
	return 0;
}

/* commitInfo of the snapshot version when it was not replayed (the
 * snapshot version is the checkpoint version). */
static int read_commit_info(delta_snapshot *s, const delta_log_listing *l)
{
	const delta_log_file *f = delta_log_find_commit(l, s->version);
	loom_buf b = LOOM_BUF_INIT;
	loom_vec spans = LOOM_VEC_INIT(line_span);
	size_t i;
	int rc = 0;

	if (!f)
		return 0;
	s->commit_file_mtime = f->mtime_ms;
	if (loom_store_read_all(s->store, f->key, &b) < 0 ||
	    split_lines(b.ptr ? b.ptr : "", b.size, &spans) < 0) {
		/* commitInfo is informational here: a read failure only warns */
		char msg[1200];
		snprintf(msg, sizeof(msg), "commitInfo of version %lld not read: %s",
		         (long long)s->version, loom_error_last()->message);
		rc = add_warning(s, msg);
		goto done;
	}
	for (i = 0; i < spans.len; i++) {
		line_span *sp = loom_vec_at(&spans, i);
		json_t *doc, *ci;
		if (sp->len < 14 || memcmp(b.ptr + sp->off, "{\"commitInfo\"", 13) != 0)
			continue;
		doc = json_loadb(b.ptr + sp->off, sp->len, 0, NULL);
		ci = doc ? json_object_get(doc, "commitInfo") : NULL;
		if (json_is_object(ci)) {
			char *text = json_dumps(ci, JSON_COMPACT | JSON_PRESERVE_ORDER);
			json_t *ict = json_object_get(ci, "inCommitTimestamp");
			if (text) {
				s->commit_info = loom_arena_strdup(&s->arena, text);
				free(text);
			}
			if (json_is_integer(ict))
				s->in_commit_timestamp = json_integer_value(ict);
		}
		json_decref(doc);
		break;
	}
done:
	loom_vec_dispose(&spans);
	loom_buf_dispose(&b);
	return rc;
}

static delta_snapshot *snapshot_new(loom_store *store, int64_t version, int file_index)
{
	delta_snapshot *s = loom_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (file_index && delta_file_index_new(&s->index) < 0) {
		loom_free(s);
		return NULL;
	}
	loom_arena_init(&s->arena, 256 * 1024);
	s->store = store;
	s->version = version;
	s->in_commit_timestamp = -1;
	s->commit_file_mtime = -1;
	s->checkpoint_version = -1;
	s->last_checkpoint_hint = -1;
	return s;
}

/* One attempt: rebuild `version` from checkpoint `c` (NULL: from 0). */
static int attempt(delta_snapshot *s, const delta_log_listing *l,
                   const delta_checkpoint_ref *c, const delta_load_opts *opts)
{
	delta_log_segment seg;
	const delta_log_file **newest_first = NULL;
	delta_log_fetch *fetch = NULL;
	replay r;
	size_t i;
	int rc;

	LOOM_TRY(delta_log_segment_build(l, s->version, c, !opts->ignore_compactions, &seg));
	replay_init(&r, s, opts);
	rc = 0;
	/* the units in replay order, fetched ahead where reads are requests */
	if (seg.num_units > 1 && (s->store->caps & LOOM_STORE_CAP_REQUEST_READS)) {
		newest_first = loom_calloc(seg.num_units, sizeof(*newest_first));
		if (!newest_first)
			rc = oom();
		for (i = 0; rc == 0 && i < seg.num_units; i++)
			newest_first[i] = seg.units[seg.num_units - 1 - i];
		if (rc == 0)
			rc = delta_log_fetch_new(&fetch, s->store, newest_first, seg.num_units);
	}
	for (i = seg.num_units; rc == 0 && i > 0; i--) {
		const delta_log_file *f = seg.units[i - 1];
		/* A compaction's actions count as of version y, the newest they
		 * can come from. It is read first line first: PROTOCOL.md wants
		 * it reconciled (no key twice, so order does not matter), and
		 * Databricks writes the commits' actions newest commit first,
		 * which first-seen-wins in file order reconciles (as
		 * delta-kernel-rs reads it). A commit is read last line first. */
		r.in_compaction = f->name.kind == DELTA_LOG_COMPACTION;
		r.cur_version = f->name.end_version;
		if (!r.in_compaction && f->name.version == s->version)
			s->commit_file_mtime = f->mtime_ms;
		rc = replay_json_file(&r, f->key, !r.in_compaction, fetch, seg.num_units - i);
	}
	delta_log_fetch_free(fetch);
	loom_free(newest_first);
	r.in_compaction = 0;
	if (rc == 0 && c) {
		rc = replay_checkpoint(&r, l, c);
		if (rc == 0) {
			s->checkpoint_kind = c->kind;
			s->checkpoint_version = c->version;
			s->checkpoint_parts = c->count;
		}
	}
	s->num_commits_replayed = seg.num_units - seg.num_compactions;
	s->num_compactions_replayed = seg.num_compactions;
	if (rc == 0 && !r.have_protocol)
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		              "no protocol action found rebuilding version %lld",
		              (long long)s->version);
	if (rc == 0 && !r.have_metadata)
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		              "no metaData action found rebuilding version %lld",
		              (long long)s->version);
	if (rc == 0)
		rc = finish(&r);
	replay_dispose(&r);
	delta_log_segment_dispose(&seg);
	return rc;
}

/* Load from a listing of versions >= from (0: the whole log). */
static int load_listed(delta_snapshot **out, loom_store *store, int64_t version,
                       const delta_load_opts *opts_in, int64_t from)
{
	delta_load_opts opts;
	delta_log_listing l;
	loom_vec cands = LOOM_VEC_INIT(const delta_checkpoint_ref *);
	loom_vec warns = LOOM_VEC_INIT(char *);
	loom_error first_err;
	int64_t latest = -1;
	size_t i;
	int rc, have_err = 0;
	delta_snapshot *s = NULL;

	*out = NULL;
	if (opts_in)
		opts = *opts_in;
	else
		delta_load_opts_init(&opts);
	if (version < -1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "invalid version %lld",
		                (long long)version);
	LOOM_TRY(delta_log_list_from(store, from, &l));
	latest = l.latest_commit;
	if (l.checkpoints.len) {
		const delta_checkpoint_ref *c0 = loom_vec_at(&l.checkpoints, 0);
		if (c0->version > latest)
			latest = c0->version;
	}
	if (version == -1)
		version = latest;
	if (version > latest) {
		delta_log_listing_dispose(&l);
		return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_DELTA,
		                "version %lld does not exist: the latest version is %lld",
		                (long long)version, (long long)latest);
	}
	/* candidates: complete checkpoints <= version, newest first, then none */
	for (i = 0; i < l.checkpoints.len && !opts.ignore_checkpoints; i++) {
		const delta_checkpoint_ref *c = loom_vec_at(&l.checkpoints, i);
		if (c->version <= version && loom_vec_push(&cands, &c) < 0) {
			rc = oom();
			goto out;
		}
	}
	if (l.earliest_commit == 0) {
		const delta_checkpoint_ref *none = NULL;
		if (loom_vec_push(&cands, &none) < 0) {
			rc = oom();
			goto out;
		}
	}
	if (!cands.len) {
		rc = loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_DELTA,
		              "version %lld cannot be rebuilt: no checkpoint at or before it "
		              "and the commits before version %lld were removed",
		              (long long)version, (long long)l.earliest_commit);
		goto out;
	}
	rc = LOOM_ERROR;
	for (i = 0; i < cands.len; i++) {
		const delta_checkpoint_ref *c = *(const delta_checkpoint_ref **)loom_vec_at(&cands, i);
		char msg[1400];
		char *w;
		s = snapshot_new(store, version, opts.file_index);
		if (!s) {
			rc = oom();
			goto out;
		}
		s->latest_version = latest;
		s->last_checkpoint_hint = l.last_checkpoint_hint;
		rc = attempt(s, &l, c, &opts);
		if (rc == 0)
			break;
		delta_snapshot_free(s);
		s = NULL;
		if (!have_err) {
			loom_err_copy(&first_err);
			have_err = 1;
		}
		/* only an unreadable or incomplete checkpoint is worth another try */
		if ((rc != LOOM_EUNSUPPORTED && rc != LOOM_ENOTFOUND) || !c)
			break;
		snprintf(msg, sizeof(msg), "%s checkpoint at version %lld not used (%s); "
		         "rebuilt from an older checkpoint or the JSON commits instead",
		         delta_checkpoint_kind_name(c->kind), (long long)c->version,
		         loom_error_last()->message);
		w = loom_strdup(msg);
		if (!w || loom_vec_push(&warns, &w) < 0) {
			loom_free(w);
			rc = oom();
			goto out;
		}
	}
	if (rc < 0) {
		/* the first candidate's error, when it recorded one (a code
		 * returned without a message would turn into 0: success) */
		if (have_err && first_err.code < 0)
			rc = loom_err(first_err.code, first_err.klass, "%s", first_err.message);
		goto out;
	}
	for (i = 0; i < warns.len && rc == 0; i++)
		rc = add_warning(s, *(char **)loom_vec_at(&warns, i));
	/* the snapshot version's commit was not replayed (it is the checkpoint
	 * version, or inside a compaction file): read its commitInfo */
	if (rc == 0 && !s->commit_info && s->commit_file_mtime < 0)
		rc = read_commit_info(s, &l);
	if (rc == 0)
		rc = delta_schema_parse(&s->arena, s->metadata.schema_string,
		                        strlen(s->metadata.schema_string), &s->schema);
	if (rc == 0) {
		const char *w = NULL;
		rc = delta_domains_parse(&s->arena, s->domains, s->num_domains, &s->sysdom, &w);
		if (rc == 0)
			rc = delta_domains_resolve_logical(&s->arena, &s->sysdom, &s->schema,
			                                   delta_snapshot_column_mapping(s) != 0);
		if (rc == 0 && w)
			rc = add_warning(s, w);
	}
	if (rc == 0 && delta_ict_from(&s->protocol, &s->metadata, &s->ict) < 0) {
		/* a malformed enablement property only matters to writers */
		char msg[1200];
		snprintf(msg, sizeof(msg), "%s", loom_error_last()->message);
		loom_error_clear();
		memset(&s->ict, 0, sizeof(s->ict));
		rc = add_warning(s, msg);
	}
	if (rc == 0 && !opts.skip_protocol_check)
		rc = delta_protocol_check(&s->protocol, DELTA_OP_READ);
out:
	for (i = 0; i < warns.len; i++)
		loom_free(*(char **)loom_vec_at(&warns, i));
	loom_vec_dispose(&warns);
	loom_vec_dispose(&cands);
	delta_log_listing_dispose(&l);
	if (rc < 0) {
		delta_snapshot_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int delta_snapshot_load(delta_snapshot **out, loom_store *store, int64_t version,
                        const delta_load_opts *opts)
{
	/* The latest version with a _last_checkpoint hint: list only from the
	 * hinted checkpoint on. If that does not give a snapshot built from a
	 * checkpoint (stale or wrong hint, unreadable checkpoint), list the
	 * whole log: the listing decides, the hint only saves work. */
	if (version == -1 && !(opts && opts->ignore_checkpoints)) {
		int64_t hint = delta_log_read_hint(store);
		if (hint > 0) {
			delta_snapshot *s = NULL;
			if (load_listed(&s, store, -1, opts, hint) == 0 && s->checkpoint_version >= hint &&
			    s->num_warnings == 0) {
				*out = s;
				return 0;
			}
			delta_snapshot_free(s);
			loom_error_clear();
		}
	}
	return load_listed(out, store, version, opts, 0);
}

void delta_snapshot_free(delta_snapshot *s)
{
	if (!s)
		return;
	delta_file_index_free(s->index);
	loom_arena_dispose(&s->arena);
	loom_free(s);
}

const delta_file *delta_snapshot_find_file(const delta_snapshot *s, const char *path)
{
	long long i = s->files ? delta_snapshot_live_find(s, path) : -1;
	return i >= 0 ? s->files[i] : NULL;
}

const char *delta_snapshot_property(const delta_snapshot *s, const char *key)
{
	return delta_kv_get(s->metadata.configuration, s->metadata.num_configuration, key, NULL);
}

int delta_snapshot_column_mapping(const delta_snapshot *s)
{
	const char *m = delta_snapshot_property(s, "delta.columnMapping.mode");
	if (!m)
		return 0;
	if (strcmp(m, "id") == 0)
		return 1;
	if (strcmp(m, "name") == 0)
		return 2;
	return 0;
}

int delta_tombstone_expired(const delta_file *f, int64_t now_ms, int64_t retention_ms)
{
	int64_t ts = f->deletion_timestamp < 0 ? 0 : f->deletion_timestamp;
	if (f->is_add)
		return 0;
	if (retention_ms > INT64_MAX - ts)
		return 0;
	return ts + retention_ms < now_ms;
}
