/* delta/log_listing.c - list _delta_log/, find complete checkpoints, build
 * the segment (checkpoint + contiguous commits) for a version. */
#include "delta/log_listing.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/last_checkpoint.h"
#include "delta/log_list_split.h"
#include "store/client.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

const char *delta_checkpoint_kind_name(delta_checkpoint_kind k)
{
	switch (k) {
	case DELTA_CKPT_CLASSIC: return "classic";
	case DELTA_CKPT_MULTIPART: return "multi-part";
	case DELTA_CKPT_V2_JSON: return "v2-json";
	case DELTA_CKPT_V2_PARQUET: return "v2-parquet";
	default: return "none";
	}
}

static int kind_rank(delta_checkpoint_kind k)
{
	return k == DELTA_CKPT_V2_JSON || k == DELTA_CKPT_V2_PARQUET ? 3
	     : k == DELTA_CKPT_MULTIPART ? 2 : 1;
}

static int cmp_ckpt(const void *a, const void *b)
{
	const delta_checkpoint_ref *x = a, *y = b;
	if (x->version != y->version)
		return x->version > y->version ? -1 : 1;
	if (kind_rank(x->kind) != kind_rank(y->kind))
		return kind_rank(x->kind) > kind_rank(y->kind) ? -1 : 1;
	if (x->count != y->count) /* more parts first */
		return x->count > y->count ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Multi-part checkpoints: within one version, names sort by part number then
 * total, so the parts of one set are not adjacent when two sets with
 * different totals exist; check each total separately. */
static int add_multipart(delta_log_listing *l, size_t begin, size_t end)
{
	size_t i, j;
	for (i = begin; i < end; i++) {
		const delta_log_file *f = loom_vec_at(&l->files, i);
		int32_t parts = f->name.parts, want = 1;
		size_t first = (size_t)-1;
		int seen_earlier = 0;
		if (f->name.kind != DELTA_LOG_CHECKPOINT_PART || f->name.part != 1)
			continue;
		for (j = begin; j < i; j++) {
			const delta_log_file *g = loom_vec_at(&l->files, j);
			if (g->name.kind == DELTA_LOG_CHECKPOINT_PART && g->name.parts == parts)
				seen_earlier = 1;
		}
		if (seen_earlier)
			continue;
		/* the parts of this total must be contiguous in key order: same
		 * version, 10-digit part numbers sort numerically, and a part with
		 * another total sorts between only if it has the same part number */
		for (j = begin; j < end && want <= parts; j++) {
			const delta_log_file *g = loom_vec_at(&l->files, j);
			if (g->name.kind != DELTA_LOG_CHECKPOINT_PART || g->name.parts != parts)
				continue;
			if (g->name.part != want || g->size == 0)
				break;
			if (want == 1)
				first = j;
			want++;
		}
		if (want == parts + 1) {
			delta_checkpoint_ref r = { f->name.version, DELTA_CKPT_MULTIPART, first,
			                           (size_t)parts };
			/* parts must be adjacent for the [first, first+count) range */
			size_t k;
			int adjacent = 1;
			for (k = 0; k < (size_t)parts; k++) {
				const delta_log_file *g = loom_vec_at(&l->files, first + k);
				if (g->name.kind != DELTA_LOG_CHECKPOINT_PART ||
				    g->name.parts != parts || g->name.part != (int32_t)k + 1)
					adjacent = 0;
			}
			if (adjacent)
				LOOM_TRY(loom_vec_push(&l->checkpoints, &r));
		}
	}
	return 0;
}

int64_t delta_log_read_hint(loom_store *store)
{
	loom_buf b = LOOM_BUF_INIT;
	json_t *root, *v;
	json_error_t jerr;
	int64_t hint = -1;

	if (loom_store_read_all(store, DELTA_LOG_DIR "_last_checkpoint", &b) < 0) {
		loom_error_clear();
		loom_buf_dispose(&b);
		return -1;
	}
	root = json_loadb(b.ptr ? b.ptr : "", b.size, 0, &jerr);
	loom_buf_dispose(&b);
	if (!root)
		return -1;
	/* a checksum that does not match means a torn or edited file:
	 * PROTOCOL.md asks readers to validate it; the hint is then ignored */
	if (!delta_json_checksum_ok(root)) {
		json_decref(root);
		return -1;
	}
	v = json_object_get(root, "version");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		hint = json_integer_value(v);
	json_decref(root);
	return hint;
}

int delta_log_list(loom_store *store, delta_log_listing *out)
{
	return delta_log_list_from(store, 0, out);
}

/* Are the commits after the newest complete checkpoint (or all of them,
 * without one) contiguous up to the latest? */
static int commits_contiguous(const delta_log_listing *l)
{
	int64_t base = -1, prev = -1;
	size_t i;
	if (l->checkpoints.len)
		base = ((const delta_checkpoint_ref *)loom_vec_at(&l->checkpoints, 0))->version;
	for (i = 0; i < l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&l->files, i);
		if (f->name.kind != DELTA_LOG_COMMIT || f->name.version <= base)
			continue;
		if (prev >= 0 && f->name.version != prev + 1)
			return 0;
		prev = f->name.version;
	}
	return 1;
}

static int list_once(loom_store *store, int64_t from_version, delta_log_listing *out);

/* A directory read while other writers commit can miss a commit file
 * created during the read yet see a later one (readdir order is not
 * version order). Commits are only ever added after their predecessor
 * exists, so a gap after the newest checkpoint means a racy read: list
 * again. A gap that persists is real and reported by the segment builder. */
int delta_log_list_from(loom_store *store, int64_t from_version,
                        delta_log_listing *out)
{
	int attempt;
	for (attempt = 0;; attempt++) {
		LOOM_TRY(list_once(store, from_version, out));
		if (attempt == 4 || commits_contiguous(out))
			return 0;
		delta_log_listing_dispose(out);
	}
}

static int list_once(loom_store *store, int64_t from_version, delta_log_listing *out)
{
	size_t i, n, vstart;
	char start_after[64];
	int rc;

	memset(out, 0, sizeof(*out));
	loom_vec_init(&out->files, sizeof(delta_log_file));
	loom_vec_init(&out->checkpoints, sizeof(delta_checkpoint_ref));
	out->latest_commit = out->earliest_commit = -1;
	out->last_checkpoint_hint = -1;

	if (from_version > 0) {
		/* every name of version v-1 starts with "<v-1 padded>." and '.' sorts
		 * before '~', so this skips exactly the versions below v */
		char vv[21];
		delta_log_format_version(from_version - 1, vv);
		snprintf(start_after, sizeof(start_after), DELTA_LOG_DIR "%s.~", vv);
	}
	rc = delta_log_list_files(store, from_version > 0 ? start_after : NULL, &out->files);
	if (rc < 0) {
		delta_log_listing_dispose(out);
		return loom_err_wrap("listing " DELTA_LOG_DIR);
	}
	n = out->files.len;
	for (i = 0; i < n; i++) {
		const delta_log_file *f = loom_vec_at(&out->files, i);
		if (f->name.kind == DELTA_LOG_COMMIT) {
			if (out->earliest_commit < 0)
				out->earliest_commit = f->name.version;
			out->latest_commit = f->name.version;
		}
	}
	/* checkpoints, version by version (keys sort by version first) */
	for (vstart = 0; vstart < n;) {
		const delta_log_file *f0 = loom_vec_at(&out->files, vstart);
		size_t vend = vstart + 1;
		while (vend < n) {
			const delta_log_file *g = loom_vec_at(&out->files, vend);
			if (g->name.version != f0->name.version ||
			    g->name.kind == DELTA_LOG_LAST_CHECKPOINT)
				break;
			vend++;
		}
		for (i = vstart; i < vend; i++) {
			const delta_log_file *f = loom_vec_at(&out->files, i);
			delta_checkpoint_ref r = { f->name.version, DELTA_CKPT_NONE, i, 1 };
			if (f->size == 0) /* a 0-byte checkpoint is a failed write */
				continue;
			if (f->name.kind == DELTA_LOG_CHECKPOINT)
				r.kind = DELTA_CKPT_CLASSIC;
			else if (f->name.kind == DELTA_LOG_CHECKPOINT_V2)
				r.kind = f->name.is_json ? DELTA_CKPT_V2_JSON : DELTA_CKPT_V2_PARQUET;
			else
				continue;
			if (loom_vec_push(&out->checkpoints, &r) < 0) {
				delta_log_listing_dispose(out);
				return LOOM_ENOMEM;
			}
		}
		if (add_multipart(out, vstart, vend) < 0) {
			delta_log_listing_dispose(out);
			return LOOM_ENOMEM;
		}
		vstart = vend;
	}
	loom_vec_sort(&out->checkpoints, cmp_ckpt);
	if (out->latest_commit < 0 && out->checkpoints.len == 0) {
		delta_log_listing_dispose(out);
		return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_DELTA,
		                "not a Delta table: no commit or checkpoint in " DELTA_LOG_DIR);
	}
	/* _last_checkpoint sorts after every versioned name, so the listing
	 * shows whether there is one: no request for a hint that is not there */
	if (n && ((const delta_log_file *)loom_vec_at(&out->files, n - 1))->name.kind ==
	             DELTA_LOG_LAST_CHECKPOINT)
		out->last_checkpoint_hint = delta_log_read_hint(store);
	return 0;
}

void delta_log_listing_dispose(delta_log_listing *l)
{
	if (!l)
		return;
	delta_log_files_dispose(&l->files);
	loom_vec_dispose(&l->checkpoints);
}

static int cmp_file_version(const void *key, const void *elem)
{
	int64_t v = *(const int64_t *)key;
	const delta_log_file *f = elem;
	return v < f->name.version ? -1 : v > f->name.version;
}

/* The files of `version`: [*begin, *end) in l->files (empty when none). */
static void version_range(const delta_log_listing *l, int64_t version, size_t *begin,
                          size_t *end)
{
	/* keys sort by version, so binary search for any file of the version,
	 * then widen to its neighbours */
	const delta_log_file *files = l->files.data, *hit;
	size_t lo, hi, n = l->files.len;
	*begin = *end = 0;
	/* _last_checkpoint (version -1) sorts last: leave it out */
	if (n && files[n - 1].name.kind == DELTA_LOG_LAST_CHECKPOINT)
		n--;
	if (!n)
		return;
	hit = bsearch(&version, files, n, sizeof(*files), cmp_file_version);
	if (!hit)
		return;
	lo = hi = (size_t)(hit - files);
	while (lo > 0 && files[lo - 1].name.version == version)
		lo--;
	while (hi < n && files[hi].name.version == version)
		hi++;
	*begin = lo;
	*end = hi;
}

const delta_log_file *delta_log_find_commit(const delta_log_listing *l,
                                            int64_t version)
{
	const delta_log_file *files = l->files.data;
	size_t i, end;
	version_range(l, version, &i, &end);
	for (; i < end; i++)
		if (files[i].name.kind == DELTA_LOG_COMMIT)
			return &files[i];
	return NULL;
}

const delta_log_file *delta_log_find_compaction(const delta_log_listing *l, int64_t from,
                                                int64_t max_end)
{
	const delta_log_file *files = l->files.data, *best = NULL;
	size_t i, end;
	version_range(l, from, &i, &end);
	for (; i < end; i++)
		if (files[i].name.kind == DELTA_LOG_COMPACTION && files[i].name.end_version <= max_end &&
		    (!best || files[i].name.end_version > best->name.end_version))
			best = &files[i];
	return best;
}

int delta_log_segment_build(const delta_log_listing *l, int64_t version,
                            const delta_checkpoint_ref *ckpt, int use_compactions,
                            delta_log_segment *out)
{
	int64_t from = ckpt ? ckpt->version + 1 : 0, v;
	size_t n = version >= from ? (size_t)(version - from + 1) : 0, i = 0;

	memset(out, 0, sizeof(*out));
	out->version = version;
	if (ckpt)
		out->checkpoint = *ckpt;
	if (n) {
		out->commits = loom_calloc(n, sizeof(*out->commits));
		out->units = loom_calloc(n, sizeof(*out->units));
		if (!out->commits || !out->units) {
			delta_log_segment_dispose(out);
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory");
		}
	}
	for (v = from; v <= version; v++) {
		const delta_log_file *f = delta_log_find_commit(l, v);
		if (!f) {
			char name[21], from_txt[64] = "";
			delta_log_format_version(v, name);
			if (ckpt)
				snprintf(from_txt, sizeof(from_txt),
				         " from the checkpoint at version %lld",
				         (long long)ckpt->version);
			delta_log_segment_dispose(out);
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "log gap: commit " DELTA_LOG_DIR "%s.json (version %lld) "
			                "is missing but needed to rebuild version %lld%s",
			                name, (long long)v, (long long)version, from_txt);
		}
		out->commits[i++] = f;
	}
	out->num_commits = i;
	for (v = from; v <= version;) {
		const delta_log_file *c = use_compactions ? delta_log_find_compaction(l, v, version) : NULL;
		if (c) {
			out->units[out->num_units++] = c;
			out->num_compactions++;
			v = c->name.end_version + 1;
		} else {
			out->units[out->num_units++] = out->commits[v - from];
			v++;
		}
	}
	return 0;
}

void delta_log_segment_dispose(delta_log_segment *seg)
{
	if (!seg)
		return;
	loom_free(seg->commits);
	loom_free(seg->units);
	seg->commits = NULL;
	seg->units = NULL;
	seg->num_commits = 0;
	seg->num_units = 0;
}
