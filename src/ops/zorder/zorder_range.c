/* ops/zorder/zorder_range.c - one key range of a Z-order partition: the sample
 * to and from JSON, and the stage that keeps the range's rows and sorts
 * them (see ops/zorder/zorder_range.h). */
#include "ops/zorder/zorder_range.h"

#include <stdio.h>
#include <string.h>

#include "ops/zorder/zorder_gather.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/percent.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* ---- the sample as JSON --------------------------------------------------- */

static json_t *hex_string(const uint8_t *p, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *s = loom_malloc(len * 2 + 1);
	json_t *j;
	size_t i;
	if (!s)
		return NULL;
	for (i = 0; i < len; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * len] = 0;
	j = json_string(s);
	loom_free(s);
	return j;
}

json_t *zkeys_sample_to_json(const zkeys *k)
{
	json_t *root = json_object(), *cols = json_array(), *keys = json_array();
	uint64_t *sk = NULL;
	size_t c, i, m = 0, q;
	if (!root || !cols || !keys)
		goto oom;
	json_object_set_new(root, "rows", json_integer((json_int_t)k->total_rows));
	json_object_set_new(root, "columns", cols);
	json_object_set_new(root, "keys", keys);
	for (c = 0; c < k->n; c++) {
		const zsample *zs = &k->cols[c];
		json_t *vals;
		if (zs->leaf < 0) {
			json_array_append_new(cols, json_null());
			continue;
		}
		if (!(vals = json_array()) || json_array_append_new(cols, vals) < 0)
			goto oom;
		for (i = 0; i < zs->nb; i++) {
			json_t *v = zs->fixed ? json_integer((json_int_t)zs->bcode[i]) /* the bits, as int64 */
			                      : hex_string(zs->bbytes[i], zs->bblen[i]);
			if (!v || json_array_append_new(vals, v) < 0)
				goto oom;
		}
	}
	/* quantiles of the sample's keys: enough to cut key ranges from */
	if (zkeys_sorted_keys(k, &sk, &m) < 0)
		goto oom;
	q = m < ZRANGE_PLAN_KEYS ? m : ZRANGE_PLAN_KEYS;
	for (i = 0; i < q; i++) {
		char hex[17];
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)sk[i * m / q]);
		if (json_array_append_new(keys, json_string(hex)) < 0)
			goto oom;
	}
	loom_free(sk);
	return root;
oom:
	loom_free(sk);
	json_decref(root);
	return NULL;
}

static int bad_sample(size_t c, const char *why)
{
	return OPS_ERR(LOOM_ECORRUPT, "the plan's Z-order boundaries, column %zu: %s", c, why);
}

size_t zkeys_json_bounds_max(const json_t *sample)
{
	const json_t *cols = json_object_get(sample, "columns");
	size_t c, most = 1;
	for (c = 0; c < json_array_size(cols); c++)
		if (json_array_size(json_array_get(cols, c)) > most)
			most = json_array_size(json_array_get(cols, c));
	return most;
}

static int load_column(zkeys *k, size_t c, const json_t *vals)
{
	zsample *zs = &k->cols[c];
	size_t i, n = json_array_size(vals);
	if (!json_is_array(vals) || n > k->sample_cap)
		return bad_sample(c, "not an array of boundaries");
	if (zs->fixed) {
		zs->bcode = loom_malloc((n + 1) * sizeof(uint64_t));
		if (!zs->bcode)
			return OPS_ERR(LOOM_ENOMEM, "out of memory loading Z-order boundaries");
	} else {
		zs->bbytes = loom_malloc((n + 1) * sizeof(*zs->bbytes));
		zs->bblen = loom_malloc((n + 1) * sizeof(*zs->bblen));
		if (!zs->bbytes || !zs->bblen)
			return OPS_ERR(LOOM_ENOMEM, "out of memory loading Z-order boundaries");
	}
	for (i = 0; i < n; i++) {
		const json_t *v = json_array_get(vals, i);
		if (zs->fixed) {
			if (!json_is_integer(v))
				return bad_sample(c, "a boundary is not an integer code");
			zs->bcode[i] = (uint64_t)json_integer_value(v);
		} else {
			const char *hex = json_string_value(v);
			size_t len = hex ? strlen(hex) : 1, j;
			uint8_t *copy;
			if (len % 2)
				return bad_sample(c, "a boundary is not a hex string");
			if (!(copy = loom_malloc(len / 2 + 1)))
				return OPS_ERR(LOOM_ENOMEM, "out of memory loading Z-order boundaries");
			for (j = 0; j < len / 2; j++) {
				int hi = loom_hex_digit(hex[2 * j]), lo = loom_hex_digit(hex[2 * j + 1]);
				if (hi < 0 || lo < 0) {
					loom_free(copy);
					return bad_sample(c, "a boundary is not a hex string");
				}
				copy[j] = (uint8_t)(hi * 16 + lo);
			}
			/* owned by the (otherwise unused) sample slots */
			zs->bytes[i] = copy;
			zs->blen[i] = (uint32_t)(len / 2);
			zs->bbytes[i] = copy;
			zs->bblen[i] = (uint32_t)(len / 2);
		}
		zs->nb = i + 1;
	}
	return 0;
}

int zkeys_sample_from_json(zkeys *k, const json_t *sample)
{
	const json_t *cols = json_object_get(sample, "columns"), *keys = json_object_get(sample, "keys");
	json_int_t rows = json_integer_value(json_object_get(sample, "rows"));
	size_t c, i;
	if (!json_is_array(cols) || json_array_size(cols) != k->n || !json_is_array(keys))
		return OPS_ERR(LOOM_ECORRUPT, "the plan's Z-order boundaries do not fit its %zu columns", k->n);
	for (c = 0; c < k->n; c++) {
		const json_t *vals = json_array_get(cols, c);
		if (k->cols[c].leaf < 0) {
			if (!json_is_null(vals))
				return bad_sample(c, "boundaries for a column in no file");
			continue;
		}
		if (json_is_null(vals))
			return bad_sample(c, "no boundaries for a column the files hold");
		LOOM_TRY(load_column(k, c, vals));
	}
	k->nq = json_array_size(keys);
	if (!(k->qkeys = loom_malloc((k->nq + 1) * sizeof(uint64_t))))
		return OPS_ERR(LOOM_ENOMEM, "out of memory loading Z-order keys");
	for (i = 0; i < k->nq; i++) {
		const char *hex = json_string_value(json_array_get(keys, i));
		uint64_t v = 0;
		size_t j;
		for (j = 0; hex && j < 16 && loom_hex_digit(hex[j]) >= 0; j++)
			v = v << 4 | (uint64_t)loom_hex_digit(hex[j]);
		if (!hex || j != 16 || hex[16] || (i && v < k->qkeys[i - 1]))
			return OPS_ERR(LOOM_ECORRUPT, "the plan's Z-order key %zu is not 16 hex digits in order", i);
		k->qkeys[i] = v;
	}
	k->total_rows = rows > 0 ? (uint64_t)rows : 0;
	return zkeys_finish_bounds(k);
}

/* ---- the stage ------------------------------------------------------------ */

void zrange_dispose(zrange *r)
{
	size_t i;
	zsorter_dispose(&r->sorter);
	zkeys_dispose(&r->keys);
	for (i = 0; i < r->nw; i++) {
		zscratch_dispose(&r->w[i]);
		pq_batch_free(&r->kept[i]);
	}
	loom_free(r->w);
	loom_free(r->kept);
	r->w = NULL;
	r->kept = NULL;
	r->nw = 0;
}

static int range_begin(void *st, pipe_env *env, uint8_t *read)
{
	zrange *r = st;
	double share = 1.0;
	LOOM_TRY(zkeys_init(&r->keys, r->cols->n, r->cols->curve, r->cols->bits,
	                    zkeys_json_bounds_max(r->sample), 0));
	LOOM_TRY(zkeys_bind(&r->keys, env->schema, r->cols->phys, r->cols->names, NULL));
	LOOM_TRY(zkeys_sample_from_json(&r->keys, r->sample));
	r->nw = env->workers;
	r->w = loom_calloc(r->nw, sizeof(*r->w));
	r->kept = loom_calloc(r->nw, sizeof(*r->kept));
	if (!r->w || !r->kept)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	/* the unit writes about its share of the partition: the sorter sizes
	 * its lanes from the input file bytes */
	LOOM_TRY(zkeys_share(&r->keys, r->lo, r->hi, r->has_hi, &share));
	env->input_file_bytes = (uint64_t)((double)env->input_file_bytes * share);
	r->sorter.keys = &r->keys;
	r->sorter.spill = r->spill;
	r->sorter.target = r->target;
	return zsorter_ops.begin(&r->sorter, env, read);
}

static size_t range_readers(void *st)
{
	zrange *r = st;
	size_t n = zsorter_ops.readers(&r->sorter);
	return n < r->nw ? n : r->nw;
}

/* Keep the rows whose key is in the range; pass them on. */
static int range_push(void *st, size_t worker, const pq_batch *b)
{
	zrange *r = st;
	zscratch *w = &r->w[worker];
	pq_batch *kept = &r->kept[worker];
	size_t rows = b->num_rows, i, n = 0;
	zg_index ix;
	int rc;
	if (rows == 0)
		return 0;
	LOOM_TRY(zscratch_reserve(w, r->keys.n, rows)); /* before taking bkeys */
	LOOM_TRY(zkeys_of_batch(&r->keys, w, b, w->bkeys));
	for (i = 0; i < rows; i++)
		if (w->bkeys[i] >= r->lo && (!r->has_hi || w->bkeys[i] < r->hi))
			w->sel[n++] = (uint32_t)i;
	if (n == rows)
		return zsorter_ops.push(&r->sorter, worker, b);
	if (n == 0)
		return 0;
	if (!kept->columns)
		LOOM_TRY(pq_batch_init(kept, b->num_columns));
	pq_batch_clear(kept);
	LOOM_TRY(zg_index_build(&ix, b));
	rc = zg_gather(kept, b, &ix, w->sel, n);
	zg_index_dispose(&ix);
	return rc < 0 ? rc : zsorter_ops.push(&r->sorter, worker, kept);
}

static int range_end(void *st, size_t *lanes)
{
	zrange *r = st;
	size_t i;
	for (i = 0; i < r->nw; i++) {
		zscratch_dispose(&r->w[i]);
		pq_batch_free(&r->kept[i]);
	}
	return zsorter_ops.end(&r->sorter, lanes);
}

static int range_pull(void *st, size_t lane, const pq_batch **out)
{
	zrange *r = st;
	return zsorter_ops.pull(&r->sorter, lane, out);
}

const pipe_stage_ops zrange_ops = {
	"z-order key range", range_begin, range_readers, NULL, range_push, range_end, range_pull,
};
