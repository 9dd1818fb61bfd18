/* parquet/reader.c - footer loading and column-chunk decoding through a
 * loom_store with ranged reads. */
#include "parquet/reader.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codec/codec.h"
#include "parquet/decode.h"
#include "util/alloc.h"
#include "util/error.h"

struct pq_reader {
	loom_store *store;
	int own_store;
	char *key;
	uint64_t size;
	uint64_t size_hint;   /* the size the caller expects (a Delta add's), */
	int has_size_hint;    /* so the footer comes from one ranged read */
	pq_file_meta *meta;
	pq_schema *schema;
	int borrowed_footer;  /* meta and schema belong to a pq_footer */
	uint8_t *chunk;       /* compressed column chunk */
	size_t chunk_cap;
	uint8_t *page;        /* decompressed page */
	size_t page_cap;
	pq_column dict;       /* the current chunk's dictionary */
	struct slice_col *sc; /* row-group slices: one per leaf read */
	size_t nsc, sc_cap, slice_rows, slice_left, slice_g;
	size_t max_levels, max_bytes;
	uint8_t *span;        /* a row group's chunks read at once (prefetch) */
	size_t span_cap, span_len;
	uint64_t span_off;    /* valid while span_len > 0, for the current file */
	char ctx[600];
};

static int corrupt(const pq_reader *r, const char *fmt, unsigned long long off, const char *what)
{
	(void)fmt;
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: %s (byte offset %llu)", r->key, what, off);
}

/* Whether the prefetched span holds bytes [off, off + len) of the file. */
static int span_holds(const pq_reader *r, uint64_t off, uint64_t len)
{
	return r->span_len && off >= r->span_off && len <= r->span_len && off - r->span_off <= r->span_len - len;
}

static int read_exact(pq_reader *r, uint64_t off, size_t len, uint8_t *dst)
{
	size_t got = 0;
	int rc;
	if (span_holds(r, off, len)) {
		memcpy(dst, r->span + (off - r->span_off), len); /* prefetched */
		return 0;
	}
	rc = r->store->read_range(r->store, r->key, off, len, dst, &got);
	if (rc < 0)
		return loom_err_wrap("%s: reading %zu bytes at offset %llu", r->key, len, (unsigned long long)off);
	if (got != len)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: file ends early: wanted %zu bytes at offset %llu, got %zu", r->key, len,
		                (unsigned long long)off, got);
	return 0;
}

static int ensure(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;
	size_t n;
	if (need <= *cap)
		return 0;
	n = need < 4096 ? 4096 : need;
	p = loom_realloc(*buf, n);
	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory for a %zu-byte buffer", need);
	*buf = p;
	*cap = n;
	return 0;
}

static int check_schema_matches(pq_reader *r)
{
	size_t g, i;
	const pq_file_meta *m = r->meta;
	for (g = 0; g < m->num_row_groups; g++) {
		const pq_row_group *rg = &m->row_groups[g];
		if (rg->num_columns != r->schema->num_leaves)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			                "%s: row group %zu has %zu column chunks, the schema %zu leaves", r->key, g,
			                rg->num_columns, r->schema->num_leaves);
		if (rg->num_rows < 0)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: row group %zu has a negative row count",
			                r->key, g);
		for (i = 0; i < rg->num_columns; i++) {
			const pq_column_chunk *cc = &rg->columns[i];
			if (cc->has_meta_data && cc->meta.type != r->schema->leaves[i].type)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
				                "%s: row group %zu column %s has physical type %d, the schema says %d",
				                r->key, g, r->schema->leaves[i].path, (int)cc->meta.type,
				                (int)r->schema->leaves[i].type);
		}
	}
	return 0;
}

/* How much of a file's end opening fetches at once: the footer of most
 * files fits, so an object store serves the open with one request. */
#define PQ_FOOTER_PREFETCH ((size_t)64 << 10)

/* The last `*len` bytes of the file (the tail with the footer) into a new
 * buffer: one read_tail on stores that have it, else the old way, which
 * costs a stat and two small reads but nothing more. Sets r->size. */
static int fetch_tail(pq_reader *r, uint8_t **buf, size_t *len)
{
	loom_store_entry st;
	size_t got = 0;
	uint32_t flen;
	uint8_t tail[8];

	*buf = NULL;
	if (r->has_size_hint && r->size_hint >= 12 && r->size_hint <= (uint64_t)INT64_MAX) {
		/* one byte past the expected end too: getting exactly the
		 * expected count confirms the size (else read it the usual way) */
		size_t n = r->size_hint < PQ_FOOTER_PREFETCH ? (size_t)r->size_hint : PQ_FOOTER_PREFETCH;
		if (!(*buf = loom_malloc(n + 1)))
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", r->key);
		if (r->store->read_range(r->store, r->key, r->size_hint - n, n + 1, *buf, &got) < 0)
			return loom_err_wrap("%s: reading the footer", r->key);
		if (got == n) {
			r->size = r->size_hint;
			*len = n;
			return 0;
		}
		loom_free(*buf); /* not the size the log says: find the real one */
		*buf = NULL;
	}
	if (r->store->version >= 2 && r->store->read_tail) {
		if (!(*buf = loom_malloc(PQ_FOOTER_PREFETCH)))
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", r->key);
		if (r->store->read_tail(r->store, r->key, PQ_FOOTER_PREFETCH, *buf, &got, &r->size) < 0)
			return loom_err_wrap("%s: reading the footer", r->key);
		*len = got;
		return 0;
	}
	LOOM_TRY(r->store->stat(r->store, r->key, &st));
	r->size = st.size;
	if (r->size < 12) {
		*len = 0;
		return 0;
	}
	LOOM_TRY(read_exact(r, r->size - 8, 8, tail));
	memcpy(&flen, tail, 4);
	*len = memcmp(tail + 4, "PAR1", 4) != 0 || (uint64_t)flen > r->size - 12 ? 8 : (size_t)flen + 8;
	if (!(*buf = loom_malloc(*len)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory for a %zu-byte footer", *len);
	memcpy(*buf + *len - 8, tail, 8);
	return *len > 8 ? read_exact(r, r->size - *len, *len - 8, *buf) : 0;
}

static int load_footer(pq_reader *r)
{
	uint8_t *buf = NULL, *tail;
	size_t len = 0;
	uint32_t flen;
	int rc;

	if ((rc = fetch_tail(r, &buf, &len)) < 0)
		goto done;
	if (r->size < 12 || len < 8) {
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		              "%s: %llu bytes is too small for a Parquet file", r->key, (unsigned long long)r->size);
		goto done;
	}
	tail = buf + len - 8;
	if (memcmp(tail + 4, "PARE", 4) == 0) {
		rc = loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
		              "%s: encrypted footer (PARE): Parquet encryption is not supported", r->key);
		goto done;
	}
	if (memcmp(tail + 4, "PAR1", 4) != 0) {
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: bad magic at byte offset %llu (not Parquet)",
		              r->key, (unsigned long long)(r->size - 4));
		goto done;
	}
	memcpy(&flen, tail, 4);
	if ((uint64_t)flen > r->size - 12) {
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		              "%s: footer length %u at byte offset %llu exceeds the file size %llu", r->key, flen,
		              (unsigned long long)(r->size - 8), (unsigned long long)r->size);
		goto done;
	}
	if ((size_t)flen + 8 > len) {
		/* a footer larger than the prefetch: fetch the rest before it */
		size_t more = (size_t)flen + 8 - len;
		uint8_t *grown = loom_realloc(buf, (size_t)flen + 8);
		if (!grown) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory for a %u-byte footer", flen);
			goto done;
		}
		buf = grown;
		memmove(buf + more, buf, len);
		if ((rc = read_exact(r, r->size - 8 - flen, more, buf)) < 0)
			goto done;
		len = (size_t)flen + 8;
	}
	rc = pq_file_meta_decode(&r->meta, buf + len - 8 - flen, flen, r->size - 8 - flen, r->key);
	if (rc < 0)
		goto done;
	if ((rc = pq_schema_build(&r->schema, r->meta->schema, r->meta->num_schema, r->key)) < 0)
		goto done;
	rc = check_schema_matches(r);
done:
	loom_free(buf);
	return rc;
}

static int open_hinted(pq_reader **out, loom_store *store, const char *key, int has_hint,
                       uint64_t hint)
{
	pq_reader *r;
	int rc;
	*out = NULL;
	r = loom_calloc(1, sizeof(*r));
	if (!r)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", key);
	r->store = store;
	r->has_size_hint = has_hint;
	r->size_hint = hint;
	r->max_levels = PQ_DEFAULT_MAX_CHUNK_LEVELS;
	r->max_bytes = PQ_DEFAULT_MAX_CHUNK_BYTES;
	r->key = loom_strdup(key);
	if (!r->key) {
		loom_free(r);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", key);
	}
	rc = load_footer(r);
	if (rc < 0) {
		pq_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pq_reader_open(pq_reader **out, loom_store *store, const char *key)
{
	return open_hinted(out, store, key, 0, 0);
}

int pq_reader_open_sized(pq_reader **out, loom_store *store, const char *key, uint64_t size)
{
	return open_hinted(out, store, key, 1, size);
}

int pq_reader_open_uri(pq_reader **out, const char *uri, const loom_store_opts *opts)
{
	const char *slash = strrchr(uri, '/');
	char *dir;
	loom_store *s;
	int rc;

	*out = NULL;
	if (slash && slash[1] == 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "%s: a directory, not a file", uri);
	if (!slash) {
		dir = loom_strdup(".");
	} else {
		/* the store is rooted at the parent: "s3://b/d/f" -> "s3://b/d";
		 * a slash that ends a root stays ("/f" -> "/", "file:///f" ->
		 * "file:///") */
		size_t n = (size_t)(slash - uri);
		if (n == 0 || uri[n - 1] == '/' || uri[n - 1] == ':')
			n++;
		dir = loom_strndup(uri, n);
	}
	if (!dir)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", uri);
	rc = loom_store_open(&s, dir, opts);
	loom_free(dir);
	LOOM_TRY(rc);
	rc = pq_reader_open(out, s, slash ? slash + 1 : uri);
	if (rc < 0) {
		loom_store_free(s);
		return rc;
	}
	(*out)->own_store = 1;
	return 0;
}

struct pq_footer {
	char *key;
	uint64_t size;
	pq_file_meta *meta;
	pq_schema *schema;
};

int pq_footer_load(pq_footer **out, loom_store *store, const char *key)
{
	return pq_footer_load_sized(out, store, key, UINT64_MAX);
}

int pq_footer_load_sized(pq_footer **out, loom_store *store, const char *key, uint64_t size)
{
	pq_reader *r = NULL;
	pq_footer *f;
	*out = NULL;
	LOOM_TRY(open_hinted(&r, store, key, size != UINT64_MAX, size));
	f = loom_calloc(1, sizeof(*f));
	if (!f) {
		pq_reader_free(r);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", key);
	}
	/* take the footer over from the reader */
	f->key = r->key;
	f->size = r->size;
	f->meta = r->meta;
	f->schema = r->schema;
	r->key = NULL;
	r->meta = NULL;
	r->schema = NULL;
	pq_reader_free(r);
	*out = f;
	return 0;
}

const pq_file_meta *pq_footer_meta(const pq_footer *f)
{
	return f->meta;
}

const pq_schema *pq_footer_schema(const pq_footer *f)
{
	return f->schema;
}

uint64_t pq_footer_file_size(const pq_footer *f)
{
	return f->size;
}

void pq_footer_free(pq_footer *f)
{
	if (!f)
		return;
	pq_file_meta_free(f->meta);
	pq_schema_free(f->schema);
	loom_free(f->key);
	loom_free(f);
}

int pq_reader_open_footer(pq_reader **out, loom_store *store, const pq_footer *f)
{
	pq_reader *r;
	*out = NULL;
	r = loom_calloc(1, sizeof(*r));
	if (!r || !(r->key = loom_strdup(f->key))) {
		loom_free(r);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", f->key);
	}
	r->store = store;
	r->max_levels = PQ_DEFAULT_MAX_CHUNK_LEVELS;
	r->max_bytes = PQ_DEFAULT_MAX_CHUNK_BYTES;
	r->size = f->size;
	r->meta = f->meta;
	r->schema = f->schema;
	r->borrowed_footer = 1;
	*out = r;
	return 0;
}

/* Drop the current file's footer and key, keeping the buffers. */
static void forget_file(pq_reader *r)
{
	if (!r->borrowed_footer) {
		pq_file_meta_free(r->meta);
		pq_schema_free(r->schema);
	}
	r->meta = NULL;
	r->schema = NULL;
	r->borrowed_footer = 0;
	loom_free(r->key);
	r->key = NULL;
	r->dict.num_values = 0;
	r->nsc = r->slice_left = 0;
	r->span_len = 0;
}

int pq_reader_reopen(pq_reader *r, const char *key)
{
	forget_file(r);
	if (!(r->key = loom_strdup(key)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", key);
	return load_footer(r);
}

int pq_reader_reopen_footer(pq_reader *r, const pq_footer *f)
{
	forget_file(r);
	if (!(r->key = loom_strdup(f->key)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", f->key);
	r->size = f->size;
	r->meta = f->meta;
	r->schema = f->schema;
	r->borrowed_footer = 1;
	return 0;
}

int pq_reader_open_path(pq_reader **out, const char *path)
{
	return pq_reader_open_uri(out, path, NULL);
}

const pq_file_meta *pq_reader_meta(const pq_reader *r)
{
	return r->meta;
}

const pq_schema *pq_reader_schema(const pq_reader *r)
{
	return r->schema;
}

void pq_reader_set_limits(pq_reader *r, size_t max_chunk_levels, size_t max_chunk_bytes)
{
	if (max_chunk_levels)
		r->max_levels = max_chunk_levels;
	if (max_chunk_bytes)
		r->max_bytes = max_chunk_bytes;
}

const char *pq_reader_key(const pq_reader *r)
{
	return r->key;
}

uint64_t pq_reader_file_size(const pq_reader *r)
{
	return r->size;
}

static void free_column(pq_column *c)
{
	loom_free(c->def_levels);
	loom_free(c->rep_levels);
	loom_free(c->values);
	loom_free(c->offsets);
	loom_free(c->data);
	memset(c, 0, sizeof(*c));
}

static void slices_free(pq_reader *r);

void pq_reader_free(pq_reader *r)
{
	if (!r)
		return;
	if (!r->borrowed_footer) {
		pq_file_meta_free(r->meta);
		pq_schema_free(r->schema);
	}
	free_column(&r->dict);
	slices_free(r);
	loom_free(r->chunk);
	loom_free(r->page);
	loom_free(r->span);
	if (r->own_store)
		loom_store_free(r->store);
	loom_free(r->key);
	loom_free(r);
}

/* Decompress `len` bytes into r->page (exactly `ulen` bytes), or borrow
 * them when uncompressed. */
static int page_bytes(pq_reader *r, int codec, const uint8_t *src, size_t len, size_t ulen,
                      const uint8_t **out, uint64_t off)
{
	if (ulen > PQ_MAX_PAGE_SIZE)
		return corrupt(r, NULL, off, "page declares more than 1 GiB uncompressed");
	if (codec == PQ_CODEC_UNCOMPRESSED) {
		*out = src;
		return 0;
	}
	LOOM_TRY(ensure(&r->page, &r->page_cap, ulen + 1));
	if (loom_codec_decompress(codec, src, len, r->page, ulen) < 0)
		return loom_err_wrap("%s: page at byte offset %llu", r->key, (unsigned long long)off);
	*out = r->page;
	return 0;
}

static int decode_values(pq_reader *r, pq_column *c, int enc, const uint8_t *p, size_t len, size_t n,
                         const pq_column *dict)
{
	switch (enc) {
	case PQ_ENC_PLAIN:
		return pq_decode_plain(c, p, len, n, r->ctx);
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		return pq_decode_dict_indices(c, dict, p, len, n, r->max_bytes, r->ctx);
	case PQ_ENC_RLE:
		if (c->type != PQ_BOOLEAN)
			break;
		return pq_decode_bool_rle(c, p, len, n, r->ctx);
	case PQ_ENC_DELTA_BINARY_PACKED:
		return pq_decode_delta_binary(c, p, len, n, r->ctx);
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		return pq_decode_delta_length(c, p, len, n, r->ctx);
	case PQ_ENC_DELTA_BYTE_ARRAY:
		return pq_decode_delta_byte_array(c, p, len, n, r->max_bytes, r->ctx);
	case PQ_ENC_BYTE_STREAM_SPLIT:
		return pq_decode_byte_stream_split(c, p, len, n, r->ctx);
	default:
		break;
	}
	return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "%s: value encoding %d not supported for type %d",
	                r->ctx, enc, (int)c->type);
}

static size_t count_defined(const pq_column *c, size_t from, size_t n)
{
	size_t i, k = 0;
	const int16_t *d = c->def_levels + from;
	const int16_t mx = c->max_def;   /* a local: d may alias the struct */
	for (i = 0; i < n; i++)
		k += d[i] == mx;
	return k;
}

/* One data page (v1 or v2). */
static int data_page(pq_reader *r, pq_column *c, const pq_page_header *h, int codec, const uint8_t *body,
                     uint64_t off, const pq_column *dict, size_t want)
{
	size_t n, nv, csize = (size_t)h->compressed_page_size, usize = (size_t)h->uncompressed_page_size;
	const uint8_t *p;
	size_t rem, used;
	int v2 = h->type == PQ_PAGE_DATA_V2;

	if (h->num_values < 0)
		return corrupt(r, NULL, off, "page with a negative value count");
	n = (size_t)h->num_values;
	if (n > want - c->num_levels)
		return corrupt(r, NULL, off, "page holds more values than its column chunk");
	LOOM_TRY(pq_col_reserve_levels(c, c->num_levels + n + 1));
	if (!v2) {
		LOOM_TRY(page_bytes(r, codec, body, csize, usize, &p, off));
		rem = codec == PQ_CODEC_UNCOMPRESSED ? csize : usize;
		if (c->max_rep > 0) {
			LOOM_TRY(pq_decode_levels(h->rep_level_encoding, 1, p, rem, c->max_rep,
			                          c->rep_levels + c->num_levels, n, &used, r->ctx));
			p += used;
			rem -= used;
		}
		if (c->max_def > 0) {
			LOOM_TRY(pq_decode_levels(h->def_level_encoding, 1, p, rem, c->max_def,
			                          c->def_levels + c->num_levels, n, &used, r->ctx));
			p += used;
			rem -= used;
		}
	} else {
		size_t rl, dl;
		if (h->rep_levels_byte_length < 0 || h->def_levels_byte_length < 0)
			return corrupt(r, NULL, off, "negative level byte length");
		rl = (size_t)h->rep_levels_byte_length;
		dl = (size_t)h->def_levels_byte_length;
		if (rl > csize || dl > csize - rl || rl + dl > usize)
			return corrupt(r, NULL, off, "level byte lengths exceed the page size");
		if (c->max_rep > 0)
			LOOM_TRY(pq_decode_levels(PQ_ENC_RLE, 0, body, rl, c->max_rep, c->rep_levels + c->num_levels, n,
			                          &used, r->ctx));
		if (c->max_def > 0)
			LOOM_TRY(pq_decode_levels(PQ_ENC_RLE, 0, body + rl, dl, c->max_def,
			                          c->def_levels + c->num_levels, n, &used, r->ctx));
		/* An empty values section is not a compressed stream: a v2 page of
		 * nulls only may compress nothing at all (arrow-rs#7388). */
		if (h->is_compressed && codec != PQ_CODEC_UNCOMPRESSED && csize > rl + dl) {
			LOOM_TRY(page_bytes(r, codec, body + rl + dl, csize - rl - dl, usize - rl - dl, &p, off));
			rem = usize - rl - dl;
		} else {
			p = body + rl + dl;
			rem = csize - rl - dl;
		}
	}
	nv = c->max_def > 0 ? count_defined(c, c->num_levels, n) : n;
	LOOM_TRY(decode_values(r, c, h->encoding, p, rem, nv, dict));
	c->num_levels += n;
	return 0;
}

static int dict_page(pq_reader *r, const pq_column *c, pq_column *dict, const pq_page_header *h,
                     int codec, const uint8_t *body, uint64_t off)
{
	const uint8_t *p;
	size_t ulen = codec == PQ_CODEC_UNCOMPRESSED ? (size_t)h->compressed_page_size
	                                             : (size_t)h->uncompressed_page_size;
	if (!h->has_dictionary_page || h->dict_num_values < 0)
		return corrupt(r, NULL, off, "dictionary page without a valid dictionary page header");
	if (h->dict_encoding != PQ_ENC_PLAIN && h->dict_encoding != PQ_ENC_PLAIN_DICTIONARY)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "%s: dictionary page encoding %d",
		                r->ctx, h->dict_encoding);
	LOOM_TRY(page_bytes(r, codec, body, (size_t)h->compressed_page_size, ulen, &p, off));
	dict->type = c->type;
	dict->type_length = c->type_length;
	dict->num_values = dict->data_size = dict->num_levels = 0;
	return pq_decode_plain(dict, p, ulen, (size_t)h->dict_num_values, r->ctx);
}

/* parquet-mr before 1.2.9 left the dictionary page header out of a column
 * chunk's total_compressed_size (PARQUET-816, IMPALA-694), so the chunk
 * runs past the size its metadata gives by at most that header. Like arrow
 * and DuckDB, read up to PQ_816_SLACK bytes more for those writers (pages
 * are still read only until the chunk's value count is reached). */
#define PQ_816_SLACK 100

static int writer_omits_dict_header(const char *created_by)
{
	static const char app[] = "parquet-mr";
	int v[3] = { 0, 0, 0 }, i;
	const char *p;
	if (!created_by || strncmp(created_by, app, sizeof(app) - 1) != 0 ||
	    (created_by[sizeof(app) - 1] != '\0' && created_by[sizeof(app) - 1] != ' '))
		return 0;
	p = created_by + sizeof(app) - 1;
	while (*p == ' ')
		p++;
	if (strncmp(p, "version ", 8) == 0)
		p += 8;
	/* "parquet-mr" alone (no version) is as old as it gets */
	for (i = 0; i < 3 && *p >= '0' && *p <= '9'; i++) {
		while (*p >= '0' && *p <= '9' && v[i] < 100000)
			v[i] = v[i] * 10 + (*p++ - '0');
		if (*p == '.')
			p++;
	}
	return v[0] < 1 || (v[0] == 1 && (v[1] < 2 || (v[1] == 2 && v[2] < 9)));
}

int pq_reader_chunk_sizes_exact(const pq_reader *r)
{
	return !writer_omits_dict_header(r->meta->created_by);
}

/* The byte range of a column chunk, checked against the file. */
static int chunk_range(pq_reader *r, size_t g, size_t leaf_idx, int64_t *start, int64_t *len)
{
	const pq_column_chunk *cc = &r->meta->row_groups[g].columns[leaf_idx];
	const pq_column_meta *m = &cc->meta;
	if (cc->encrypted)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "%s: encrypted column", r->ctx);
	if (cc->file_path)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "%s: column chunk in another file (%s)",
		                r->ctx, cc->file_path);
	if (!cc->has_meta_data)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: column chunk without metadata", r->ctx);
	*start = m->data_page_offset;
	if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 && m->dictionary_page_offset < *start)
		*start = m->dictionary_page_offset;
	*len = m->total_compressed_size;
	if (*start < 0 || *len < 0 || (uint64_t)*start > r->size || (uint64_t)*len > r->size - (uint64_t)*start)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: column chunk [%lld, +%lld) outside the %llu-byte file", r->ctx, (long long)*start,
		                (long long)*len, (unsigned long long)r->size);
	return 0;
}

int pq_reader_prefetch_columns(pq_reader *r, size_t g, const size_t *leaves, size_t nleaves)
{
	const pq_row_group *rg;
	int64_t lo = INT64_MAX, hi = 0, used = 0, st = 0, ln = 0;
	size_t i;
	int rc;

	if (!(r->store->caps & LOOM_STORE_CAP_REQUEST_READS))
		return 0;
	if (g >= r->meta->num_row_groups || writer_omits_dict_header(r->meta->created_by))
		return 0; /* the per-chunk reads report (or pad) these */
	rg = &r->meta->row_groups[g];
	if (!leaves)
		nleaves = rg->num_columns < r->schema->num_leaves ? rg->num_columns : r->schema->num_leaves;
	if (nleaves < 2)
		return 0; /* one chunk is one read anyway */
	for (i = 0; i < nleaves; i++) {
		size_t li = leaves ? leaves[i] : i;
		if (li >= rg->num_columns || li >= r->schema->num_leaves)
			return 0; /* the per-chunk read reports it */
		snprintf(r->ctx, sizeof(r->ctx), "%s: row group %zu column %s", r->key, g, r->schema->leaves[li].path);
		LOOM_TRY(chunk_range(r, g, li, &st, &ln));
		lo = st < lo ? st : lo;
		hi = st + ln > hi ? st + ln : hi;
		used += ln;
	}
	/* fetched already (ahead of time, pq_reader_prefetch_columns on this
	 * file earlier): the bytes of a file never change */
	if (lo < hi && span_holds(r, (uint64_t)lo, (uint64_t)(hi - lo)))
		return 0;
	r->span_len = 0;
	/* worth it when the chunks lie together and the span is modest */
	if (lo >= hi || hi - lo > PQ_PREFETCH_MAX || used < (hi - lo) / 2)
		return 0;
	LOOM_TRY(ensure(&r->span, &r->span_cap, (size_t)(hi - lo)));
	if ((rc = read_exact(r, (uint64_t)lo, (size_t)(hi - lo), r->span)) < 0)
		return rc;
	r->span_off = (uint64_t)lo;
	r->span_len = (size_t)(hi - lo);
	return 0;
}

int pq_reader_prefetch_row_group(pq_reader *r, size_t g)
{
	return pq_reader_prefetch_columns(r, g, NULL, 0);
}

int pq_reader_chunk_bytes(pq_reader *r, size_t g, size_t leaf_idx, const uint8_t **bytes, size_t *len,
                          int64_t *start)
{
	const pq_column_meta *m;
	const uint8_t *b;
	int64_t st, ln, values = 0;
	size_t pos = 0;
	if (g >= r->meta->num_row_groups || leaf_idx >= r->schema->num_leaves)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "%s: no row group %zu column %zu", r->key, g,
		                leaf_idx);
	m = &r->meta->row_groups[g].columns[leaf_idx].meta;
	snprintf(r->ctx, sizeof(r->ctx), "%s: row group %zu column %s", r->key, g, r->schema->leaves[leaf_idx].path);
	LOOM_TRY(chunk_range(r, g, leaf_idx, &st, &ln));
	if (span_holds(r, (uint64_t)st, (uint64_t)ln)) {
		b = r->span + ((uint64_t)st - r->span_off); /* prefetched: lent as it is, no copy */
	} else {
		LOOM_TRY(ensure(&r->chunk, &r->chunk_cap, (size_t)ln + 1));
		LOOM_TRY(read_exact(r, (uint64_t)st, (size_t)ln, r->chunk));
		b = r->chunk;
	}
	/* the pages must add up to the metadata: a chunk copied elsewhere is
	 * never decoded again here, so check its frame now */
	while (pos < (size_t)ln) {
		pq_page_header h;
		size_t hl;
		uint64_t off = (uint64_t)st + pos;
		LOOM_TRY(pq_page_header_decode(&h, b + pos, (size_t)ln - pos, &hl, off, r->ctx));
		pos += hl;
		if (h.compressed_page_size < 0 || (size_t)h.compressed_page_size > (size_t)ln - pos)
			return corrupt(r, NULL, off, "page extends beyond its column chunk");
		pos += (size_t)h.compressed_page_size;
		if (h.type == PQ_PAGE_DATA && h.has_data_page)
			values += h.num_values;
		else if (h.type == PQ_PAGE_DATA_V2 && h.has_data_page_v2)
			values += h.num_values;
		else if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DATA_V2)
			return corrupt(r, NULL, off, "data page without its header");
	}
	if (values != m->num_values)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: column chunk at byte offset %lld holds %lld values in its pages, its metadata "
		                "says %lld", r->ctx, (long long)st, (long long)values, (long long)m->num_values);
	*bytes = b;
	*len = (size_t)ln;
	*start = st;
	return 0;
}

/* Where decoding stands in one column chunk held in memory. */
typedef struct chunk_cursor {
	const uint8_t *bytes;
	size_t len, pos;
	int64_t start;                /* the chunk's offset in the file */
	int codec;
	pq_column *dict;              /* where its dictionary page goes */
	int have_dict;
	size_t g, leaf;
} chunk_cursor;

/* Decode the chunk's next page into c; `want`: the most levels c may hold
 * once the chunk is decoded (a page past it is corrupt). */
static int chunk_next_page(pq_reader *r, chunk_cursor *cur, pq_column *c, size_t want)
{
	const pq_leaf *leaf = &r->schema->leaves[cur->leaf];
	pq_page_header h;
	size_t hl;
	uint64_t off = (uint64_t)cur->start + cur->pos;
	const uint8_t *body;
	LOOM_TRY(pq_page_header_decode(&h, cur->bytes + cur->pos, cur->len - cur->pos, &hl, off, r->ctx));
	cur->pos += hl;
	if (h.compressed_page_size < 0 || (size_t)h.compressed_page_size > cur->len - cur->pos)
		return corrupt(r, NULL, off, "page extends beyond its column chunk");
	body = cur->bytes + cur->pos;
	cur->pos += (size_t)h.compressed_page_size;
	snprintf(r->ctx, sizeof(r->ctx), "%s: row group %zu column %s page at byte offset %llu", r->key, cur->g,
	         leaf->path, (unsigned long long)off);
	switch (h.type) {
	case PQ_PAGE_DICTIONARY:
		LOOM_TRY(dict_page(r, c, cur->dict, &h, cur->codec, body, off));
		cur->have_dict = 1;
		break;
	case PQ_PAGE_DATA:
		if (!h.has_data_page)
			return corrupt(r, NULL, off, "data page without a data page header");
		LOOM_TRY(data_page(r, c, &h, cur->codec, body, off, cur->have_dict ? cur->dict : NULL, want));
		break;
	case PQ_PAGE_DATA_V2:
		if (!h.has_data_page_v2)
			return corrupt(r, NULL, off, "data page v2 without its header");
		LOOM_TRY(data_page(r, c, &h, cur->codec, body, off, cur->have_dict ? cur->dict : NULL, want));
		break;
	default:
		break;   /* index pages and unknown page types carry no values */
	}
	return 0;
}

static int read_chunk(pq_reader *r, size_t g, size_t leaf_idx, pq_column *c)
{
	const pq_leaf *leaf = &r->schema->leaves[leaf_idx];
	const pq_row_group *rg = &r->meta->row_groups[g];
	const pq_column_chunk *cc = &rg->columns[leaf_idx];
	const pq_column_meta *m = &cc->meta;
	int64_t start, len;
	size_t want;

	snprintf(r->ctx, sizeof(r->ctx), "%s: row group %zu column %s", r->key, g, leaf->path);
	LOOM_TRY(chunk_range(r, g, leaf_idx, &start, &len));
	if (writer_omits_dict_header(r->meta->created_by))
		len += (int64_t)(r->size - (uint64_t)(start + len) < PQ_816_SLACK
		                     ? r->size - (uint64_t)(start + len) : PQ_816_SLACK);
	if (m->num_values < 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: negative num_values", r->ctx);
	want = (size_t)m->num_values;
	if (want > r->max_levels)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET,
		                "%s: column chunk of %zu values is above the reader's limit of %zu", r->ctx, want,
		                r->max_levels);
	/* without repetition there is one level slot per row */
	if (c->max_rep == 0 && want != (size_t)rg->num_rows)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: column chunk at byte offset %lld has %zu values for %lld rows", r->ctx,
		                (long long)start, want, (long long)rg->num_rows);
	LOOM_TRY(ensure(&r->chunk, &r->chunk_cap, (size_t)len + 1));
	LOOM_TRY(read_exact(r, (uint64_t)start, (size_t)len, r->chunk));
	r->dict.num_values = 0;
	{
		chunk_cursor cur = { r->chunk, (size_t)len, 0, start, m->codec, &r->dict, 0, g, leaf_idx };
		while (cur.pos < cur.len && c->num_levels < want)
			LOOM_TRY(chunk_next_page(r, &cur, c, want));
	}
	if (c->num_levels != want)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: row group %zu column %s: column chunk at byte offset %lld holds %zu values, its "
		                "metadata says %zu", r->key, g, leaf->path, (long long)start, c->num_levels, want);
	/* byte-array columns always have offsets[0] == 0, even with no values */
	if (c->type == PQ_BYTE_ARRAY) {
		LOOM_TRY(pq_col_reserve_values(c, c->num_values));
		if (c->num_values == 0)
			c->offsets[0] = 0;
	}
	/* A chunk starts a row: consumers find rows at repetition level 0. */
	if (c->max_rep > 0 && c->num_levels > 0 && c->rep_levels[0] != 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: row group %zu column %s: column chunk at byte offset %lld starts with "
		                "repetition level %d, not at a row", r->key, g, leaf->path, (long long)start,
		                c->rep_levels[0]);
	return 0;
}

static size_t count_rows(const pq_column *c)
{
	size_t i, rows = 0;
	if (c->max_rep == 0)
		return c->num_levels;
	for (i = 0; i < c->num_levels; i++)
		rows += c->rep_levels[i] == 0;
	return rows;
}

/* Give column slot c the leaf's layout; a slot that held another leaf
 * starts its arrays afresh. */
static void take_layout(pq_column *c, const pq_leaf *leaf)
{
	int32_t tl = leaf->type == PQ_FIXED_LEN_BYTE_ARRAY ? leaf->type_length : 0;
	if (c->type != leaf->type || c->max_def != leaf->max_def || c->max_rep != leaf->max_rep ||
	    c->type_length != tl) {
		free_column(c);
		c->type = leaf->type;
		c->type_length = tl;
		c->max_def = leaf->max_def;
		c->max_rep = leaf->max_rep;
	}
}

static int check_out_batch(pq_reader *r, pq_batch *out, size_t nleaves)
{
	if (out->columns && (out->num_columns != nleaves || out->borrowed))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "%s: batch to reuse has %zu columns, %zu requested", r->key, out->num_columns, nleaves);
	if (!out->columns)
		LOOM_TRY(pq_batch_init(out, nleaves));
	pq_batch_clear(out);
	return 0;
}

int pq_reader_read_row_group(pq_reader *r, size_t row_group, const size_t *leaves, size_t nleaves,
                             pq_batch *out)
{
	const pq_schema *s = r->schema;
	size_t i, rows;

	if (row_group >= r->meta->num_row_groups)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "%s: row group %zu of %zu", r->key, row_group,
		                r->meta->num_row_groups);
	if (!leaves)
		nleaves = s->num_leaves;
	LOOM_TRY(check_out_batch(r, out, nleaves));
	LOOM_TRY(pq_reader_prefetch_columns(r, row_group, leaves, nleaves));
	rows = (size_t)r->meta->row_groups[row_group].num_rows;
	for (i = 0; i < nleaves; i++) {
		size_t li = leaves ? leaves[i] : i;
		pq_column *c = &out->columns[i];
		const pq_leaf *leaf;
		if (li >= s->num_leaves)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "%s: leaf %zu of %zu", r->key, li,
			                s->num_leaves);
		leaf = &s->leaves[li];
		take_layout(c, leaf);
		LOOM_TRY(read_chunk(r, row_group, li, c));
		if (count_rows(c) != rows)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			                "%s: row group %zu column %s has %zu rows, the row group %zu", r->key, row_group,
			                leaf->path, count_rows(c), rows);
	}
	out->num_rows = rows;
	return 0;
}

/* ---- a row group in slices of rows ---------------------------------------- */

/* One column chunk being read slice by slice: its stored bytes, and its
 * last decoded page(s) with how far slices have taken from them. */
typedef struct slice_col {
	size_t leaf;
	uint8_t *bytes;
	size_t cap;
	chunk_cursor cur;
	pq_column dict;
	size_t want, decoded;         /* levels in the chunk, decoded so far */
	pq_column page;               /* decoded, not yet all handed out */
	size_t lpos, vpos;            /* first level slot and value not handed out */
} slice_col;

static void slices_free(pq_reader *r)
{
	size_t i;
	for (i = 0; i < r->sc_cap; i++) {
		loom_free(r->sc[i].bytes);
		free_column(&r->sc[i].dict);
		free_column(&r->sc[i].page);
	}
	loom_free(r->sc);
	r->sc = NULL;
	r->nsc = r->sc_cap = r->slice_left = 0;
}

static int slices_begin(pq_reader *r, size_t g, const size_t *leaves, size_t nleaves,
                        size_t max_rows, int repeated_too)
{
	const pq_schema *s = r->schema;
	const pq_row_group *rg;
	size_t i;
	r->nsc = r->slice_left = 0;
	if (g >= r->meta->num_row_groups)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "%s: row group %zu of %zu", r->key, g,
		                r->meta->num_row_groups);
	rg = &r->meta->row_groups[g];
	if (!leaves)
		nleaves = s->num_leaves;
	if (nleaves > r->sc_cap) {
		slice_col *grown = loom_reallocarray(r->sc, nleaves, sizeof(slice_col));
		if (!grown)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory");
		memset(grown + r->sc_cap, 0, (nleaves - r->sc_cap) * sizeof(slice_col));
		r->sc = grown;
		r->sc_cap = nleaves;
	}
	LOOM_TRY(pq_reader_prefetch_columns(r, g, leaves, nleaves));
	for (i = 0; i < nleaves; i++) {
		slice_col *sc = &r->sc[i];
		size_t li = leaves ? leaves[i] : i;
		const pq_column_meta *m;
		int64_t start, len;
		if (li >= s->num_leaves)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "%s: leaf %zu of %zu", r->key, li,
			                s->num_leaves);
		if (s->leaves[li].max_rep > 0 && !repeated_too)
			return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
			                "%s: column %s is repeated: read its row group whole", r->key, s->leaves[li].path);
		m = &rg->columns[li].meta;
		snprintf(r->ctx, sizeof(r->ctx), "%s: row group %zu column %s", r->key, g, s->leaves[li].path);
		LOOM_TRY(chunk_range(r, g, li, &start, &len));
		/* a flat column has a value slot a row, a repeated one at least */
		if ((s->leaves[li].max_rep == 0 ? m->num_values != rg->num_rows
		                                : m->num_values < rg->num_rows) ||
		    (size_t)m->num_values > r->max_levels)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			                "%s: column chunk at byte offset %lld has %lld values for %lld rows", r->ctx,
			                (long long)start, (long long)m->num_values, (long long)rg->num_rows);
		LOOM_TRY(ensure(&sc->bytes, &sc->cap, (size_t)len + 1));
		LOOM_TRY(read_exact(r, (uint64_t)start, (size_t)len, sc->bytes));
		sc->leaf = li;
		sc->want = (size_t)m->num_values;
		sc->decoded = sc->lpos = sc->vpos = 0;
		sc->dict.num_values = 0;
		take_layout(&sc->page, &s->leaves[li]);
		sc->page.num_levels = sc->page.num_values = sc->page.data_size = 0;
		sc->cur = (chunk_cursor){ sc->bytes, (size_t)len, 0, start, m->codec, &sc->dict, 0, g, li };
	}
	r->nsc = nleaves;
	r->slice_g = g;
	r->slice_rows = max_rows ? max_rows : 1;
	r->slice_left = (size_t)(rg->num_rows > 0 ? rg->num_rows : 0);
	return 0;
}

int pq_reader_slices_begin(pq_reader *r, size_t g, const size_t *leaves, size_t nleaves, size_t max_rows)
{
	return slices_begin(r, g, leaves, nleaves, max_rows, 0);
}

int pq_reader_slices_begin_nested(pq_reader *r, size_t g, const size_t *leaves, size_t nleaves,
                                  size_t max_rows)
{
	return slices_begin(r, g, leaves, nleaves, max_rows, 1);
}

/* Hand out the next n rows of one column to c, decoding the chunk's pages
 * as they are needed. A flat column has one level slot a row; in a
 * repeated one a row starts at each slot of repetition level 0 and may go
 * on in the next page, so a slice ends before the slot that would start
 * row n + 1 (or at the chunk's end). */
static int slice_column(pq_reader *r, slice_col *sc, pq_column *c, size_t n)
{
	const pq_leaf *leaf = &r->schema->leaves[sc->leaf];
	pq_column *p = &sc->page;
	size_t rows = 0;
	for (;;) {
		size_t k, nv, i;
		if (sc->lpos == p->num_levels) {
			/* the page is handed out: decode the next one in its place */
			if (rows == n && (leaf->max_rep == 0 || sc->decoded >= sc->want))
				break;
			if (sc->cur.pos >= sc->cur.len || sc->decoded >= sc->want)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
				                "%s: row group %zu column %s: column chunk holds %zu values, its metadata "
				                "says %zu", r->key, r->slice_g, leaf->path, sc->decoded, sc->want);
			p->num_levels = p->num_values = p->data_size = 0;
			sc->lpos = sc->vpos = 0;
			LOOM_TRY(chunk_next_page(r, &sc->cur, p, sc->want - sc->decoded));
			sc->decoded += p->num_levels;
			continue;
		}
		if (leaf->max_rep == 0) {
			k = n - rows;
			if (k > p->num_levels - sc->lpos)
				k = p->num_levels - sc->lpos;
			rows += k;
		} else {
			for (k = 0; sc->lpos + k < p->num_levels; k++) {
				if (p->rep_levels[sc->lpos + k] == 0) {
					if (rows == n)
						break;
					rows++;
				}
			}
		}
		nv = k;
		if (p->max_def > 0)
			for (i = nv = 0; i < k; i++)
				nv += p->def_levels[sc->lpos + i] == p->max_def;
		else
			nv = k;
		if (k)
			LOOM_TRY(pq_column_append_span(c, p, sc->lpos, sc->lpos + k, sc->vpos, sc->vpos + nv));
		sc->lpos += k;
		sc->vpos += nv;
		if (sc->lpos < p->num_levels)
			break; /* the next slot starts a row of the next slice */
	}
	if (c->type == PQ_BYTE_ARRAY) {
		LOOM_TRY(pq_col_reserve_values(c, c->num_values));
		if (c->num_values == 0)
			c->offsets[0] = 0;
	}
	return 0;
}

int pq_reader_slices_next(pq_reader *r, pq_batch *out)
{
	size_t i, n = r->slice_left < r->slice_rows ? r->slice_left : r->slice_rows;
	LOOM_TRY(check_out_batch(r, out, r->nsc));
	if (n == 0)
		return 0;
	for (i = 0; i < r->nsc; i++) {
		slice_col *sc = &r->sc[i];
		take_layout(&out->columns[i], &r->schema->leaves[sc->leaf]);
		LOOM_TRY(slice_column(r, sc, &out->columns[i], n));
		if (n == r->slice_left && (sc->lpos != sc->page.num_levels || sc->decoded != sc->want))
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			                "%s: row group %zu column %s: column chunk holds more values than its metadata "
			                "says (%zu)", r->key, r->slice_g, r->schema->leaves[sc->leaf].path, sc->want);
	}
	out->num_rows = n;
	r->slice_left -= n;
	return 0;
}
