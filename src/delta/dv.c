/* delta/dv.c - deletion vector descriptors, DV files, RoaringBitmapArray. */
#include "delta/dv.h"

#include <roaring/roaring.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/percent.h"
#include "util/uuid.h"

#define DV_MAGIC_PORTABLE 1681511377u
#define DV_MAGIC_NATIVE 1681511376u

struct delta_row_filter {
	uint32_t nbuckets;
	uint32_t *keys;              /* high 32 bits of the rows, ascending */
	roaring_bitmap_t **bitmaps;
	uint64_t cardinality;
};

int delta_dv_file_key(const delta_dv_descriptor *dv, loom_store *store, loom_buf *out)
{
	const char *s = dv->path_or_inline_dv;
	size_t len = s ? strlen(s) : 0;

	if (dv->storage_type == 'u') {
		loom_buf raw = LOOM_BUF_INIT;
		char uuid[37];
		int rc;
		if (len < 20)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "deletion vector path \"%s\" is shorter than a Z85 UUID", s);
		rc = delta_z85_decode(s + len - 20, 20, &raw);
		if (rc < 0) {
			loom_buf_dispose(&raw);
			return loom_err_wrap("deletion vector \"%s\"", s);
		}
		loom_uuid_format((const uint8_t *)raw.ptr, uuid);
		loom_buf_dispose(&raw);
		if (len > 20) {
			LOOM_TRY(loom_buf_put(out, s, len - 20));
			LOOM_TRY(loom_buf_putc(out, '/'));
		}
		return loom_buf_printf(out, "deletion_vector_%s.bin", uuid);
	}
	if (dv->storage_type == 'p') {
		loom_buf p = LOOM_BUF_INIT;
		const char *q, *key = NULL;
		int rc = loom_percent_decode(&p, s, len), absolute;
		if (rc < 0) {
			loom_buf_dispose(&p);
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "deletion vector path \"%.200s\": bad escape", s);
		}
		q = p.ptr ? p.ptr : "";
		/* 'p' is an absolute path or URI; the store knows whether it lies
		 * inside its root and which key it names there */
		absolute = q[0] == '/' || strstr(q, "://") || strncmp(q, "file:", 5) == 0;
		rc = absolute && store ? loom_store_key_of(&key, store, q) : LOOM_ENOTFOUND;
		if (rc == 0)
			rc = loom_buf_puts(out, key);
		else if (rc != LOOM_ENOMEM)
			rc = loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
			              "deletion vector file \"%.300s\" is outside the table root "
			              "\"%s\"; loom reads DV files only inside the table",
			              q, store ? loom_store_root(store) : "(unknown)");
		loom_buf_dispose(&p);
		return rc;
	}
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
	                "deletion vector of storage type '%c' has no file",
	                dv->storage_type ? dv->storage_type : '?');
}

void delta_row_filter_free(delta_row_filter *f)
{
	uint32_t i;
	if (!f)
		return;
	for (i = 0; i < f->nbuckets; i++)
		if (f->bitmaps[i])
			roaring_bitmap_free(f->bitmaps[i]);
	loom_free(f->bitmaps);
	loom_free(f->keys);
	loom_free(f);
}

static uint32_t rd32(const uint8_t *p, int big)
{
	return big ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]
	           : ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

static uint64_t rd64(const uint8_t *p, int big)
{
	return big ? ((uint64_t)rd32(p, 1) << 32) | rd32(p + 4, 1)
	           : ((uint64_t)rd32(p + 4, 0) << 32) | rd32(p, 0);
}

/* Check a 32-bit Roaring bitmap in the portable format (RoaringFormatSpec)
 * before CRoaring sees it: CRoaring 0.2's "safe" deserializer checks only
 * the bounds, and a container listing rows out of order or twice (or a
 * run container whose runs overlap) misleads its lookups - a deleted row
 * would be missed - or crashes its iterator (found by fuzzing). Returns the
 * serialized size, or 0 when the bytes are not a well-formed bitmap. */
static size_t portable_bitmap_check(const uint8_t *p, size_t avail)
{
	const uint8_t *runs = NULL;
	uint32_t cookie, n, i, prev_key = 0;
	size_t pos, hdr;

#define U16(at) ((uint32_t)p[(at)] | (uint32_t)p[(at) + 1] << 8)
	if (avail < 4)
		return 0;
	cookie = rd32(p, 0);
	if (cookie == 12346) {                       /* no run containers */
		if (avail < 8)
			return 0;
		n = rd32(p + 4, 0);
		pos = 8;
	} else if ((cookie & 0xffff) == 12347) {     /* with run containers */
		n = (cookie >> 16) + 1;
		runs = p + 4;
		pos = 4 + (n + 7) / 8;
	} else {
		return 0;
	}
	if (n > 65536 || pos > avail || (avail - pos) / 4 < n)
		return 0;
	hdr = pos;
	pos += (size_t)n * 4;                        /* keys and cardinalities */
	if (!runs || n >= 4)
		pos += (size_t)n * 4;                    /* offsets, not needed here */
	if (pos > avail)
		return 0;
	for (i = 0; i < n; i++) {
		uint32_t key = U16(hdr + 4 * i), card = U16(hdr + 4 * i + 2) + 1, k, got = 0, prev = 0;
		if (i && key <= prev_key)
			return 0;
		prev_key = key;
		if (runs && (runs[i / 8] >> (i % 8)) & 1) {
			uint32_t nruns;
			if (avail - pos < 2)
				return 0;
			nruns = U16(pos);
			pos += 2;
			if ((avail - pos) / 4 < nruns)
				return 0;
			for (k = 0; k < nruns; k++) {
				uint32_t start = U16(pos + 4 * k), len = U16(pos + 4 * k + 2) + 1;
				if ((k && start <= prev) || start + len - 1 > 65535)
					return 0;
				prev = start + len - 1;
				got += len;
			}
			pos += (size_t)nruns * 4;
		} else if (card <= 4096) {               /* array: ascending values */
			if ((avail - pos) / 2 < card)
				return 0;
			for (k = 0; k < card; k++) {
				uint32_t v = U16(pos + 2 * k);
				if (k && v <= prev)
					return 0;
				prev = v;
			}
			got = card;
			pos += (size_t)card * 2;
		} else {                                 /* bitmap of 65536 bits */
			if (avail - pos < 8192)
				return 0;
			for (k = 0; k < 8192; k++)
				got += (uint32_t)__builtin_popcount(p[pos + k]);
			pos += 8192;
		}
		if (got != card)
			return 0;
	}
#undef U16
	return pos;
}

/* One 32-bit portable Roaring bitmap at data[*pos]; advances *pos. A size
 * limit of 0 means "up to the end". */
static int read_bitmap(const uint8_t *data, size_t len, size_t *pos, size_t limit,
                       const char *what, roaring_bitmap_t **out)
{
	size_t avail = len - *pos, sz;
	if (limit && limit < avail)
		avail = limit;
	sz = portable_bitmap_check(data + *pos, avail);
	if (sz == 0 || roaring_bitmap_portable_deserialize_size((const char *)data + *pos, avail) != sz)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: invalid Roaring bitmap at byte %zu", what, *pos);
	*out = roaring_bitmap_portable_deserialize_safe((const char *)data + *pos, sz);
	if (!*out)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: invalid Roaring bitmap at byte %zu", what, *pos);
	*pos += sz;
	return 0;
}

int delta_row_filter_parse(const uint8_t *data, size_t len, const char *what,
                           delta_row_filter **out)
{
	delta_row_filter *f;
	uint32_t magic;
	uint64_t n, i;
	size_t pos;
	int big = 0, rc = 0;

	*out = NULL;
	if (len < 4)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: deletion vector bitmap of %zu bytes is truncated", what, len);
	magic = rd32(data, 0);
	if (magic != DV_MAGIC_PORTABLE && magic != DV_MAGIC_NATIVE) {
		magic = rd32(data, 1);
		big = 1;
	}
	if (magic != DV_MAGIC_PORTABLE && magic != DV_MAGIC_NATIVE)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: unknown deletion vector bitmap magic number %u", what,
		                rd32(data, 0));
	if (magic == DV_MAGIC_PORTABLE) {
		if (len < 12)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "%s: truncated bitmap header", what);
		n = rd64(data + 4, big);
		pos = 12;
	} else {
		if (len < 8)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "%s: truncated bitmap header", what);
		n = rd32(data + 4, big);
		pos = 8;
	}
	/* every bucket takes at least 4 + 8 bytes */
	if (n > (len - pos) / 8)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: %llu bitmap buckets cannot fit in %zu bytes", what,
		                (unsigned long long)n, len);
	f = loom_calloc(1, sizeof(*f));
	if (!f)
		return LOOM_ENOMEM;
	if (n) {
		f->keys = loom_calloc((size_t)n, sizeof(uint32_t));
		f->bitmaps = loom_calloc((size_t)n, sizeof(roaring_bitmap_t *));
		if (!f->keys || !f->bitmaps) {
			delta_row_filter_free(f);
			return LOOM_ENOMEM;
		}
	}
	for (i = 0; i < n && rc == 0; i++) {
		uint32_t key;
		size_t limit = 0;
		if (len - pos < 4) {
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			              "%s: truncated bitmap bucket %llu", what, (unsigned long long)i);
			break;
		}
		if (magic == DV_MAGIC_PORTABLE) {
			key = rd32(data + pos, big);
			if (key & 0x80000000u || (i > 0 && key <= f->keys[i - 1])) {
				rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
				              "%s: bitmap bucket key %u out of order or too large",
				              what, key);
				break;
			}
		} else {
			key = (uint32_t)i;
			limit = rd32(data + pos, big);
			if (limit > len - pos - 4) {
				rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
				              "%s: bitmap %llu of %zu bytes overruns the data", what,
				              (unsigned long long)i, limit);
				break;
			}
		}
		pos += 4;
		f->keys[i] = key;
		f->nbuckets = (uint32_t)(i + 1);
		rc = read_bitmap(data, len, &pos, limit, what, &f->bitmaps[i]);
		if (rc == 0)
			f->cardinality += roaring_bitmap_get_cardinality(f->bitmaps[i]);
	}
	if (rc < 0) {
		delta_row_filter_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* A DV file is: a version byte (1), then at `offset` a 4-byte big-endian
 * size, the bitmap, and a 4-byte big-endian CRC-32 of the bitmap. A DV
 * near the start (the usual case: offset 1) is fetched with the version
 * byte in one ranged read; one further away takes two. */
#define DV_ONE_READ_MAX_OFFSET 65536u
/* Above this size a DV's file is checked to hold it before the buffer is
 * allocated. */
#define DV_CHECK_SIZE_ABOVE ((size_t)16 << 20)

static int dv_read(loom_store *store, const char *key, uint64_t off, size_t len, uint8_t *dst,
                   const char *what)
{
	size_t got = 0;
	int rc = store->read_range(store, key, off, len, dst, &got);
	if (rc < 0)
		return loom_err_wrap("%s", what);
	if (got != len)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: truncated: %zu bytes at offset %llu, wanted %zu", what, got,
		                (unsigned long long)off, len);
	return 0;
}

int delta_dv_load(loom_store *store, const delta_dv_descriptor *dv, delta_row_filter **out)
{
	loom_buf key = LOOM_BUF_INIT, raw = LOOM_BUF_INIT;
	char what[400];
	int rc;

	*out = NULL;
	if (dv->storage_type == 'i') {
		snprintf(what, sizeof(what), "inline deletion vector");
		rc = delta_z85_decode(dv->path_or_inline_dv, strlen(dv->path_or_inline_dv), &raw);
		if (rc == 0 && raw.size < (size_t)dv->size_in_bytes)
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			              "inline deletion vector holds %zu bytes, sizeInBytes is %d",
			              raw.size, (int)dv->size_in_bytes);
		if (rc == 0)
			rc = delta_row_filter_parse((const uint8_t *)raw.ptr,
			                            (size_t)dv->size_in_bytes, what, out);
		goto done;
	}
	rc = delta_dv_file_key(dv, store, &key);
	if (rc < 0)
		goto done;
	snprintf(what, sizeof(what), "deletion vector file %s", key.ptr);
	{
		/* Spark always writes the offset; the first DV of a file sits right
		 * after the version byte. */
		uint64_t off = dv->has_offset ? (uint64_t)dv->offset : 1;
		size_t size = dv->size_in_bytes > 0 ? (size_t)dv->size_in_bytes : 0;
		size_t block = 4 + size + 4;
		const uint8_t *b;
		uint8_t ver;
		uint32_t crc;
		if (off < 1) {
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: offset %llu is inside the "
			              "version byte", what, (unsigned long long)off);
			goto done;
		}
		/* sizeInBytes may claim up to 2 GiB: before allocating that much,
		 * check the file holds it (found by fuzzing; small DVs keep their
		 * single request) */
		if (size > DV_CHECK_SIZE_ABOVE) {
			loom_store_entry st;
			if ((rc = store->stat(store, key.ptr, &st)) < 0) {
				rc = loom_err_wrap("%s", what);
				goto done;
			}
			if (st.size < off || st.size - off < block) {
				rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
				              "%s: the descriptor's %zu-byte bitmap at offset %llu runs past "
				              "the file's %llu bytes", what, size, (unsigned long long)off,
				              (unsigned long long)st.size);
				goto done;
			}
		}
		if (off <= DV_ONE_READ_MAX_OFFSET) {
			if ((rc = loom_buf_grow(&raw, (size_t)off + block)) < 0 ||
			    (rc = dv_read(store, key.ptr, 0, (size_t)off + block, (uint8_t *)raw.ptr,
			                  what)) < 0)
				goto done;
			ver = (uint8_t)raw.ptr[0];
			b = (const uint8_t *)raw.ptr + off;
		} else {
			if ((rc = dv_read(store, key.ptr, 0, 1, &ver, what)) < 0 ||
			    (rc = loom_buf_grow(&raw, block)) < 0 ||
			    (rc = dv_read(store, key.ptr, off, block, (uint8_t *)raw.ptr, what)) < 0)
				goto done;
			b = (const uint8_t *)raw.ptr;
		}
		if (ver != 1) {
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			              "%s: unsupported format version %u", what, ver);
			goto done;
		}
		if (rd32(b, 1) != (uint32_t)dv->size_in_bytes) {
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			              "%s: bitmap size at offset %llu is %u, the descriptor says %d",
			              what, (unsigned long long)off, rd32(b, 1), (int)dv->size_in_bytes);
			goto done;
		}
		crc = rd32(b + 4 + size, 1);
		if ((uint32_t)crc32(0L, (const Bytef *)b + 4, (uInt)size) != crc) {
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			              "%s: CRC-32 mismatch for the bitmap at offset %llu",
			              what, (unsigned long long)off);
			goto done;
		}
		rc = delta_row_filter_parse(b + 4, size, what, out);
	}
done:
	if (rc == 0 && (*out)->cardinality != (uint64_t)dv->cardinality) {
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		              "%s: holds %llu rows, the descriptor says cardinality %lld", what,
		              (unsigned long long)(*out)->cardinality, (long long)dv->cardinality);
		delta_row_filter_free(*out);
		*out = NULL;
	}
	loom_buf_dispose(&key);
	loom_buf_dispose(&raw);
	return rc;
}

int delta_row_filter_contains(const delta_row_filter *f, uint64_t row)
{
	uint32_t hi = (uint32_t)(row >> 32), lo = 0, top = f->nbuckets;
	while (lo < top) {
		uint32_t mid = lo + (top - lo) / 2;
		if (f->keys[mid] == hi)
			return roaring_bitmap_contains(f->bitmaps[mid], (uint32_t)row);
		if (f->keys[mid] < hi)
			lo = mid + 1;
		else
			top = mid;
	}
	return 0;
}

uint64_t delta_row_filter_cardinality(const delta_row_filter *f)
{
	return f ? f->cardinality : 0;
}

int delta_row_filter_foreach(const delta_row_filter *f,
                             int (*cb)(uint64_t row, void *ctx), void *ctx)
{
	uint32_t b;
	for (b = 0; b < f->nbuckets; b++) {
		roaring_uint32_iterator_t it;
		roaring_init_iterator(f->bitmaps[b], &it);
		while (it.has_value) {
			int rc = cb(((uint64_t)f->keys[b] << 32) | it.current_value, ctx);
			if (rc)
				return rc;
			roaring_advance_uint32_iterator(&it);
		}
	}
	return 0;
}

typedef struct arr_ctx {
	uint64_t *rows;
	size_t n;
} arr_ctx;

static int push_row(uint64_t row, void *ctx)
{
	arr_ctx *a = ctx;
	a->rows[a->n++] = row;
	return 0;
}

int delta_row_filter_to_array(const delta_row_filter *f, uint64_t **rows, size_t *n)
{
	arr_ctx a = { NULL, 0 };
	*rows = NULL;
	*n = 0;
	if (!f->cardinality)
		return 0;
	a.rows = loom_malloc((size_t)f->cardinality * sizeof(uint64_t));
	if (!a.rows)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory for %llu rows",
		                (unsigned long long)f->cardinality);
	delta_row_filter_foreach(f, push_row, &a);
	*rows = a.rows;
	*n = a.n;
	return 0;
}
