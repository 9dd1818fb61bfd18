/* Every codec round-trips, and corrupt or lying input is an error. */
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"
#include "test.h"

static const int codecs[] = { LOOM_CODEC_NONE, LOOM_CODEC_SNAPPY, LOOM_CODEC_GZIP,
                              LOOM_CODEC_BROTLI, LOOM_CODEC_ZSTD, LOOM_CODEC_LZ4_RAW,
                              LOOM_CODEC_LZ4_HADOOP };

TEST(every_codec_round_trips)
{
	size_t n = 100000, i, k;
	char *src = malloc(n), *dst = malloc(n);
	for (i = 0; i < n; i++)
		src[i] = (char)((i * 7) % 13 + (i / 1000));
	for (k = 0; k < sizeof(codecs) / sizeof(codecs[0]); k++) {
		loom_buf out = LOOM_BUF_INIT;
		CHECK_OK(loom_codec_compress(codecs[k], 0, src, n, &out));
		memset(dst, 0, n);
		CHECK_OK(loom_codec_decompress(codecs[k], out.ptr, out.size, dst, n));
		CHECK(memcmp(src, dst, n) == 0);
		/* a wrong expected size is caught, never overrun */
		if (codecs[k] != LOOM_CODEC_NONE)
			CHECK_ERR(loom_codec_decompress(codecs[k], out.ptr, out.size, dst, n / 2), LOOM_ECORRUPT);
		loom_buf_dispose(&out);
	}
	free(src);
	free(dst);
}

TEST(garbage_is_corrupt_not_a_crash)
{
	unsigned char junk[256], dst[1024];
	size_t k, i;
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 31 + 7);
	for (k = 1; k < sizeof(codecs) / sizeof(codecs[0]); k++)
		CHECK(loom_codec_decompress(codecs[k], junk, sizeof(junk), dst, sizeof(dst)) < 0);
	CHECK_ERR(loom_codec_decompress(LOOM_CODEC_LZO, junk, 4, dst, 4), LOOM_EUNSUPPORTED);
	CHECK_ERR(loom_codec_decompress(99, junk, 4, dst, 4), LOOM_EUNSUPPORTED);
}

TEST(names)
{
	CHECK_INT(loom_codec_from_name("ZSTD"), LOOM_CODEC_ZSTD);
	CHECK_INT(loom_codec_from_name("uncompressed"), LOOM_CODEC_NONE);
	CHECK_INT(loom_codec_from_name("nope"), -1);
	CHECK_STR(loom_codec_file_tag(LOOM_CODEC_SNAPPY), "snappy");
	CHECK_STR(loom_codec_name(LOOM_CODEC_LZ4_RAW), "lz4_raw");
}

int main(void)
{
	RUN(every_codec_round_trips);
	RUN(garbage_is_corrupt_not_a_crash);
	RUN(names);
	return test_summary();
}
