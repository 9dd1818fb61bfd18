/* codec/codec.c - snappy, gzip, brotli, zstd, lz4 (raw and Hadoop-framed). */
#include "codec/codec.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include "util/error.h"

#define CODEC_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_CODEC, __VA_ARGS__)

const char *loom_codec_name(int codec)
{
	switch (codec) {
	case LOOM_CODEC_NONE: return "uncompressed";
	case LOOM_CODEC_SNAPPY: return "snappy";
	case LOOM_CODEC_GZIP: return "gzip";
	case LOOM_CODEC_LZO: return "lzo";
	case LOOM_CODEC_BROTLI: return "brotli";
	case LOOM_CODEC_LZ4_HADOOP: return "lz4";
	case LOOM_CODEC_ZSTD: return "zstd";
	case LOOM_CODEC_LZ4_RAW: return "lz4_raw";
	default: return "unknown";
	}
}

int loom_codec_from_name(const char *name)
{
	static const struct { const char *name; int id; } names[] = {
		{ "none", LOOM_CODEC_NONE }, { "uncompressed", LOOM_CODEC_NONE },
		{ "snappy", LOOM_CODEC_SNAPPY }, { "gzip", LOOM_CODEC_GZIP },
		{ "brotli", LOOM_CODEC_BROTLI }, { "lz4", LOOM_CODEC_LZ4_HADOOP },
		{ "zstd", LOOM_CODEC_ZSTD }, { "lz4_raw", LOOM_CODEC_LZ4_RAW },
	};
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(name, names[i].name) == 0)
			return names[i].id;
	return -1;
}

const char *loom_codec_file_tag(int codec)
{
	switch (codec) {
	case LOOM_CODEC_SNAPPY: return "snappy";
	case LOOM_CODEC_GZIP: return "gz";
	case LOOM_CODEC_BROTLI: return "br";
	case LOOM_CODEC_LZ4_HADOOP:
	case LOOM_CODEC_LZ4_RAW: return "lz4";
	case LOOM_CODEC_ZSTD: return "zstd";
	default: return NULL;
	}
}

static int size_mismatch(const char *codec, size_t got, size_t want)
{
	return CODEC_ERR(LOOM_ECORRUPT, "%s data decompressed to %zu bytes, header says %zu",
	                 codec, got, want);
}

/* gzip or zlib streams, possibly several gzip members back to back. */
static int gzip_decompress(const void *src, size_t src_len, void *dst, size_t dst_len)
{
	z_stream zs;
	int zrc;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return CODEC_ERR(LOOM_ENOMEM, "cannot start gzip decoder");
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)src_len;
	zs.next_out = dst;
	zs.avail_out = (uInt)dst_len;
	for (;;) {
		zrc = inflate(&zs, Z_FINISH);
		if (zrc == Z_STREAM_END) {
			if (zs.avail_in == 0 || zs.avail_out == 0)
				break;
			/* another member follows */
			if (inflateReset(&zs) != Z_OK)
				break;
			continue;
		}
		if (zrc == Z_BUF_ERROR && zs.avail_out == 0 && zs.avail_in > 0) {
			inflateEnd(&zs);
			return CODEC_ERR(LOOM_ECORRUPT, "gzip data expands past the %zu bytes the header gives",
			                 dst_len);
		}
		inflateEnd(&zs);
		return CODEC_ERR(LOOM_ECORRUPT, "gzip data is corrupt (%s)", zs.msg ? zs.msg : "inflate failed");
	}
	inflateEnd(&zs);
	/* not zs.total_out: inflateReset clears it at every member */
	if (dst_len - zs.avail_out != dst_len)
		return size_mismatch("gzip", dst_len - zs.avail_out, dst_len);
	return 0;
}

/* Hadoop's LZ4 framing: blocks of [u32 BE raw size][u32 BE compressed size]
 * [lz4 block]. Returns -1 (no error recorded) if the input is not framed that
 * way, so the caller can fall back to a raw block. */
static int lz4_hadoop(const unsigned char *src, size_t src_len, unsigned char *dst, size_t dst_len)
{
	size_t in = 0, out = 0;
	while (in < src_len) {
		uint32_t raw, comp;
		int n;
		if (src_len - in < 8)
			return -1;
		raw = (uint32_t)src[in] << 24 | (uint32_t)src[in + 1] << 16 | (uint32_t)src[in + 2] << 8 | src[in + 3];
		comp = (uint32_t)src[in + 4] << 24 | (uint32_t)src[in + 5] << 16 | (uint32_t)src[in + 6] << 8 | src[in + 7];
		in += 8;
		if (comp > src_len - in || raw > dst_len - out)
			return -1;
		n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)comp, (int)raw);
		if (n < 0 || (uint32_t)n != raw)
			return -1;
		in += comp;
		out += raw;
	}
	return out == dst_len ? 0 : -1;
}

int loom_codec_decompress(int codec, const void *src, size_t src_len, void *dst, size_t dst_len)
{
	switch (codec) {
	case LOOM_CODEC_NONE:
		if (src_len != dst_len)
			return size_mismatch("uncompressed", src_len, dst_len);
		memcpy(dst, src, dst_len);
		return 0;
	case LOOM_CODEC_SNAPPY: {
		size_t n = 0;
		if (snappy_uncompressed_length(src, src_len, &n) != SNAPPY_OK)
			return CODEC_ERR(LOOM_ECORRUPT, "snappy data is corrupt (bad length header)");
		if (n != dst_len)
			return size_mismatch("snappy", n, dst_len);
		if (snappy_uncompress(src, src_len, dst, &n) != SNAPPY_OK)
			return CODEC_ERR(LOOM_ECORRUPT, "snappy data is corrupt");
		return n == dst_len ? 0 : size_mismatch("snappy", n, dst_len);
	}
	case LOOM_CODEC_GZIP:
		return gzip_decompress(src, src_len, dst, dst_len);
	case LOOM_CODEC_BROTLI: {
		size_t n = dst_len;
		if (BrotliDecoderDecompress(src_len, src, &n, dst) != BROTLI_DECODER_RESULT_SUCCESS)
			return CODEC_ERR(LOOM_ECORRUPT, "brotli data is corrupt or larger than %zu bytes", dst_len);
		return n == dst_len ? 0 : size_mismatch("brotli", n, dst_len);
	}
	case LOOM_CODEC_ZSTD: {
		size_t n = ZSTD_decompress(dst, dst_len, src, src_len);
		if (ZSTD_isError(n))
			return CODEC_ERR(LOOM_ECORRUPT, "zstd data is corrupt (%s)", ZSTD_getErrorName(n));
		return n == dst_len ? 0 : size_mismatch("zstd", n, dst_len);
	}
	case LOOM_CODEC_LZ4_HADOOP:
		if (lz4_hadoop(src, src_len, dst, dst_len) == 0)
			return 0;
		/* Some writers (old parquet-cpp) put a raw LZ4 block under this id. */
		/* fallthrough */
	case LOOM_CODEC_LZ4_RAW: {
		int n;
		if (src_len > INT32_MAX || dst_len > INT32_MAX)
			return CODEC_ERR(LOOM_EUNSUPPORTED, "lz4 page over 2 GiB");
		n = LZ4_decompress_safe(src, dst, (int)src_len, (int)dst_len);
		if (n < 0)
			return CODEC_ERR(LOOM_ECORRUPT, "lz4 data is corrupt");
		return (size_t)n == dst_len ? 0 : size_mismatch("lz4", (size_t)n, dst_len);
	}
	case LOOM_CODEC_LZO:
		return CODEC_ERR(LOOM_EUNSUPPORTED, "LZO compression is not supported");
	default:
		return CODEC_ERR(LOOM_EUNSUPPORTED, "unknown compression codec %d", codec);
	}
}

static int gzip_compress(int level, const void *src, size_t len, loom_buf *out)
{
	z_stream zs;
	uLong bound;
	int zrc;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	                 Z_DEFAULT_STRATEGY) != Z_OK)
		return CODEC_ERR(LOOM_ENOMEM, "cannot start gzip encoder");
	bound = deflateBound(&zs, (uLong)len);
	if ((zrc = loom_buf_grow(out, bound)) < 0) {
		deflateEnd(&zs);
		return zrc;
	}
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out->ptr + out->size;
	zs.avail_out = (uInt)bound;
	zrc = deflate(&zs, Z_FINISH);
	if (zrc != Z_STREAM_END) {
		deflateEnd(&zs);
		return CODEC_ERR(LOOM_ERROR, "gzip compression failed");
	}
	out->size += zs.total_out;
	deflateEnd(&zs);
	return 0;
}

int loom_codec_compress(int codec, int level, const void *src, size_t len, loom_buf *out)
{
	switch (codec) {
	case LOOM_CODEC_NONE:
		return loom_buf_put(out, src, len);
	case LOOM_CODEC_SNAPPY: {
		size_t n = snappy_max_compressed_length(len);
		LOOM_TRY(loom_buf_grow(out, n));
		if (snappy_compress(src, len, out->ptr + out->size, &n) != SNAPPY_OK)
			return CODEC_ERR(LOOM_ERROR, "snappy compression failed");
		out->size += n;
		return 0;
	}
	case LOOM_CODEC_GZIP:
		return gzip_compress(level, src, len, out);
	case LOOM_CODEC_BROTLI: {
		size_t n = BrotliEncoderMaxCompressedSize(len);
		if (!n)
			n = len + 1024;
		LOOM_TRY(loom_buf_grow(out, n));
		if (!BrotliEncoderCompress(level ? level : 6, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
		                           len, src, &n, (uint8_t *)out->ptr + out->size))
			return CODEC_ERR(LOOM_ERROR, "brotli compression failed");
		out->size += n;
		return 0;
	}
	case LOOM_CODEC_ZSTD: {
		size_t n = ZSTD_compressBound(len);
		LOOM_TRY(loom_buf_grow(out, n));
		n = ZSTD_compress(out->ptr + out->size, n, src, len, level ? level : 3);
		if (ZSTD_isError(n))
			return CODEC_ERR(LOOM_ERROR, "zstd compression failed (%s)", ZSTD_getErrorName(n));
		out->size += n;
		return 0;
	}
	case LOOM_CODEC_LZ4_RAW:
	case LOOM_CODEC_LZ4_HADOOP: {
		int bound, n;
		size_t hdr = codec == LOOM_CODEC_LZ4_HADOOP ? 8 : 0;
		if (len > (size_t)LZ4_MAX_INPUT_SIZE)
			return CODEC_ERR(LOOM_EUNSUPPORTED, "lz4 page over %d bytes", LZ4_MAX_INPUT_SIZE);
		bound = LZ4_compressBound((int)len);
		LOOM_TRY(loom_buf_grow(out, (size_t)bound + hdr));
		n = LZ4_compress_default(src, out->ptr + out->size + hdr, (int)len, bound);
		if (n <= 0)
			return CODEC_ERR(LOOM_ERROR, "lz4 compression failed");
		if (hdr) {
			unsigned char *h = (unsigned char *)out->ptr + out->size;
			uint32_t raw = (uint32_t)len, comp = (uint32_t)n;
			h[0] = (unsigned char)(raw >> 24); h[1] = (unsigned char)(raw >> 16);
			h[2] = (unsigned char)(raw >> 8); h[3] = (unsigned char)raw;
			h[4] = (unsigned char)(comp >> 24); h[5] = (unsigned char)(comp >> 16);
			h[6] = (unsigned char)(comp >> 8); h[7] = (unsigned char)comp;
		}
		out->size += hdr + (size_t)n;
		return 0;
	}
	default:
		return CODEC_ERR(LOOM_EUNSUPPORTED, "cannot compress with codec %s", loom_codec_name(codec));
	}
}
