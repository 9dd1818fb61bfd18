/* codec/codec.h - one interface over the compression libraries Parquet
 * files use. Codec ids equal Parquet's CompressionCodec values. */
#ifndef LOOM_CODEC_H
#define LOOM_CODEC_H

#include <stddef.h>

#include "util/buf.h"

typedef enum loom_codec_id {
	LOOM_CODEC_NONE = 0,
	LOOM_CODEC_SNAPPY = 1,
	LOOM_CODEC_GZIP = 2,
	LOOM_CODEC_LZO = 3,      /* recognised, never supported */
	LOOM_CODEC_BROTLI = 4,
	LOOM_CODEC_LZ4_HADOOP = 5,
	LOOM_CODEC_ZSTD = 6,
	LOOM_CODEC_LZ4_RAW = 7
} loom_codec_id;

/* "snappy", "gzip", ... ; "unknown" for others. */
const char *loom_codec_name(int codec);
/* Parse a name ("snappy", "zstd", "none"/"uncompressed", ...); -1 if unknown. */
int loom_codec_from_name(const char *name);
/* The file-name infix Spark uses ("snappy", "gz", "zstd", "lz4", "br"), or NULL. */
const char *loom_codec_file_tag(int codec);

/* Decompress `src` into exactly `dst_len` bytes at `dst`. The expected size
 * comes from the page header; producing more or fewer bytes is LOOM_ECORRUPT,
 * which also bounds the memory a hostile page can make us use. */
int loom_codec_decompress(int codec, const void *src, size_t src_len,
                          void *dst, size_t dst_len);

/* Compress `len` bytes of `src`, appending to `out`. `level` 0 means the
 * codec's default. */
int loom_codec_compress(int codec, int level, const void *src, size_t len,
                        loom_buf *out);

#endif
