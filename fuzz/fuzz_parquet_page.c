/* fuzz_parquet_page.c - the page value and level decoders on arbitrary
 * bytes. The first bytes choose the decoder, physical type and count. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parquet/batch.h"
#include "parquet/decode.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void release(pq_column *c)
{
	loom_free(c->def_levels);
	loom_free(c->rep_levels);
	loom_free(c->values);
	loom_free(c->offsets);
	loom_free(c->data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_column c, dict;
	size_t n, used;
	int16_t levels[4096];
	const uint8_t *p;
	size_t len;
	static const pq_physical_type types[] = { PQ_BOOLEAN, PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT,
		                                      PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY };

	if (size < 4)
		return 0;
	n = (size_t)data[2] << 4 | (data[3] & 15);
	p = data + 4;
	len = size - 4;
	memset(&c, 0, sizeof(c));
	memset(&dict, 0, sizeof(dict));
	c.type = types[data[1] & 7];
	c.type_length = c.type == PQ_FIXED_LEN_BYTE_ARRAY ? 1 + (data[3] >> 4) : 0;
	dict.type = c.type;
	dict.type_length = c.type_length;
	/* a small dictionary from the same bytes, for the index decoder */
	if (pq_decode_plain(&dict, p, len, 3, "fuzz") < 0)
		dict.num_values = 0;
	switch (data[0] % 10) {
	case 0: (void)pq_decode_plain(&c, p, len, n, "fuzz"); break;
	case 1: (void)pq_decode_dict_indices(&c, dict.num_values ? &dict : NULL, p, len, n, 1 << 20, "fuzz"); break;
	case 2: (void)pq_decode_bool_rle(&c, p, len, n, "fuzz"); break;
	case 3: (void)pq_decode_delta_binary(&c, p, len, n, "fuzz"); break;
	case 4: (void)pq_decode_delta_length(&c, p, len, n, "fuzz"); break;
	case 5: (void)pq_decode_delta_byte_array(&c, p, len, n, 1 << 20, "fuzz"); break;
	case 6: (void)pq_decode_byte_stream_split(&c, p, len, n, "fuzz"); break;
	case 7: (void)pq_decode_levels(3, 1, p, len, (int16_t)(data[1] % 9), levels, n, &used, "fuzz"); break;
	case 8: (void)pq_decode_levels(4, 0, p, len, (int16_t)(data[1] % 9), levels, n, &used, "fuzz"); break;
	default: (void)pq_decode_levels(3, 0, p, len, (int16_t)data[1], levels, n, &used, "fuzz"); break;
	}
	release(&c);
	release(&dict);
	return 0;
}
