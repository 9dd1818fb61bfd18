/* ops/zorder_range.c - one key range of a Z-order partition: the sample
 * to and from JSON, and the stage that keeps the range's rows and sorts
 * them (see ops/zorder_range.h). */
#include "ops/zorder_range.h"

#include <string.h>

#include "ops/zorder_gather.h"
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
	json_t *root = json_object(), *cols = json_array();
	size_t c, s;
	if (!root || !cols)
		goto oom;
	json_object_set_new(root, "rows", json_integer((json_int_t)k->total_rows));
	json_object_set_new(root, "n", json_integer((json_int_t)k->sample_n));
	json_object_set_new(root, "columns", cols);
	for (c = 0; c < k->n; c++) {
		const zsample *zs = &k->cols[c];
		json_t *vals;
		if (zs->leaf < 0) {
			json_array_append_new(cols, json_null());
			continue;
		}
		if (!(vals = json_array()) || json_array_append_new(cols, vals) < 0)
			goto oom;
		for (s = 0; s < k->sample_n; s++) {
			json_t *v;
			if (zs->isnull[s])
				v = json_null();
			else if (zs->fixed)
				v = json_integer((json_int_t)zs->code[s]); /* the bits, as int64 */
			else
				v = hex_string(zs->bytes[s], zs->blen[s]);
			if (!v || json_array_append_new(vals, v) < 0)
				goto oom;
		}
	}
	return root;
oom:
	json_decref(root);
	return NULL;
}

static int bad_sample(size_t c, const char *why)
{
	return OPS_ERR(LOOM_ECORRUPT, "the plan's Z-order sample, column %zu: %s", c, why);
}

static int load_column(zkeys *k, size_t c, const json_t *vals, size_t n)
{
	zsample *zs = &k->cols[c];
	size_t s;
	if (!json_is_array(vals) || json_array_size(vals) != n)
		return bad_sample(c, "not an array of the sample's size");
	for (s = 0; s < n; s++) {
		const json_t *v = json_array_get(vals, s);
		zs->isnull[s] = json_is_null(v);
		if (zs->isnull[s])
			continue;
		if (zs->fixed) {
			if (!json_is_integer(v))
				return bad_sample(c, "a value is not an integer code");
			zs->code[s] = (uint64_t)json_integer_value(v);
		} else {
			const char *hex = json_string_value(v);
			size_t len = hex ? strlen(hex) : 1, i;
			uint8_t *copy;
			if (len % 2)
				return bad_sample(c, "a value is not a hex string");
			if (!(copy = loom_malloc(len / 2 + 1)))
				return OPS_ERR(LOOM_ENOMEM, "out of memory loading a Z-order sample");
			for (i = 0; i < len / 2; i++) {
				int hi = loom_hex_digit(hex[2 * i]), lo = loom_hex_digit(hex[2 * i + 1]);
				if (hi < 0 || lo < 0) {
					loom_free(copy);
					return bad_sample(c, "a value is not a hex string");
				}
				copy[i] = (uint8_t)(hi * 16 + lo);
			}
			loom_free(zs->bytes[s]);
			zs->bytes[s] = copy;
			zs->blen[s] = (uint32_t)(len / 2);
		}
	}
	return 0;
}

int zkeys_sample_from_json(zkeys *k, const json_t *sample)
{
	const json_t *cols = json_object_get(sample, "columns");
	json_int_t n = json_integer_value(json_object_get(sample, "n"));
	json_int_t rows = json_integer_value(json_object_get(sample, "rows"));
	size_t c;
	if (!json_is_array(cols) || json_array_size(cols) != k->n || n < 0 || (size_t)n > k->sample_cap)
		return OPS_ERR(LOOM_ECORRUPT, "the plan's Z-order sample does not fit its %zu columns", k->n);
	for (c = 0; c < k->n; c++) {
		const json_t *vals = json_array_get(cols, c);
		if (k->cols[c].leaf < 0) {
			if (!json_is_null(vals))
				return bad_sample(c, "values for a column in no file");
			continue;
		}
		if (json_is_null(vals))
			return bad_sample(c, "no values for a column the files hold");
		LOOM_TRY(load_column(k, c, vals, (size_t)n));
	}
	k->sample_n = (size_t)n;
	k->seen = (uint64_t)n;
	k->total_rows = rows > 0 ? (uint64_t)rows : 0;
	return zkeys_build_bounds(k);
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
	json_int_t n = json_integer_value(json_object_get(r->sample, "n"));
	double share = 1.0;
	LOOM_TRY(zkeys_init(&r->keys, r->cols->n, r->cols->curve, r->cols->bits, n > 0 ? (size_t)n : 1, 0));
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
