/* fuzz_delta_dv.c - deletion vectors: descriptors (storage type, Z85 path
 * or inline bitmap, offset, size, cardinality) resolved to store keys, and
 * DV files (version byte, big-endian size, RoaringBitmapArray in the
 * portable or the older native format, CRC-32) loaded into row filters.
 *
 * Input: byte 0 picks the storage type ('u', 'p' or 'i'), bytes 1-4 the
 * offset, 5-8 the size in bytes, 9-12 the cardinality; then a descriptor
 * string up to the first NUL; the rest is the DV file. Z85 is also checked
 * to round-trip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "delta/dv.h"
#include "util/buf.h"
#include "mem_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int count_row(uint64_t row, void *ctx)
{
	(void)row;
	(*(uint64_t *)ctx)++;
	return 0;
}

static void use_filter(delta_row_filter *f)
{
	uint64_t *rows = NULL, seen = 0;
	size_t n = 0;
	if (delta_row_filter_to_array(f, &rows, &n) == 0) {
		if (n != delta_row_filter_cardinality(f) || (n && !delta_row_filter_contains(f, rows[0])))
			abort();
		free(rows);
	}
	(void)delta_row_filter_foreach(f, count_row, &seen);
	delta_row_filter_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char types[] = "upi";
	delta_dv_descriptor dv;
	const uint8_t *text, *nul, *file;
	size_t text_len, file_len;
	char *desc;
	loom_buf key = LOOM_BUF_INIT, dec = LOOM_BUF_INIT, enc = LOOM_BUF_INIT;
	delta_row_filter *f = NULL;
	mem_store m;

	if (size < 13)
		return 0;
	memset(&dv, 0, sizeof(dv));
	dv.storage_type = types[data[0] % 3];
	dv.offset = (int32_t)(be32(data + 1) & 0x7fffffff);
	dv.has_offset = (data[0] & 0x80) != 0;
	dv.size_in_bytes = (int32_t)(be32(data + 5) & 0x7fffffff);
	dv.cardinality = be32(data + 9);
	text = data + 13;
	nul = memchr(text, 0, size - 13);
	text_len = nul ? (size_t)(nul - text) : size - 13;
	file = nul ? nul + 1 : data + size;
	file_len = (size_t)(data + size - file);
	desc = malloc(text_len + 1);
	memcpy(desc, text, text_len);
	desc[text_len] = '\0';
	dv.path_or_inline_dv = desc;

	/* Z85: whatever decodes re-encodes to the same text */
	if (delta_z85_decode(desc, text_len, &dec) == 0) {
		if (delta_z85_encode((const uint8_t *)dec.ptr, dec.size, &enc) < 0 || enc.size != text_len ||
		    (text_len && memcmp(enc.ptr, desc, text_len) != 0))
			abort();
	}
	mem_store_init(&m, file, file_len);
	(void)delta_dv_file_key(&dv, &m.base, &key);
	if (delta_dv_load(&m.base, &dv, &f) == 0)
		use_filter(f);
	/* the file's bytes as a bare bitmap too */
	if (delta_row_filter_parse(file, file_len, "fuzz", &f) == 0)
		use_filter(f);
	loom_buf_dispose(&key);
	loom_buf_dispose(&dec);
	loom_buf_dispose(&enc);
	free(desc);
	return 0;
}
