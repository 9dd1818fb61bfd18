/* delta/file_names.h - data file names in binary.
 *
 * Spark, delta-rs and loom name data files "part-NNNNN-<uuid><suffix>":
 * a 5-digit task number, a lowercase 8-4-4-4-12 hex UUID and a short suffix
 * ("-c000.snappy.parquet", ".c000.snappy.parquet", "-c000.zstd.parquet").
 * Such a name is 36 bytes of text and more; as a part number, 16 UUID bytes
 * and a suffix (kept once per distinct suffix by the caller) it is 19. Any
 * other name is kept as text. The mapping is exact both ways: a name parses
 * only if formatting its parts gives back the same bytes. */
#ifndef LOOM_DELTA_FILE_NAMES_H
#define LOOM_DELTA_FILE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define DELTA_NAME_SUFFIX_MAX 32 /* longer suffixes: the name stays text */
/* "part-" + 5 digits + "-" + 36 + suffix + NUL */
#define DELTA_NAME_FORMAT_MAX (5 + 5 + 1 + 36 + DELTA_NAME_SUFFIX_MAX + 1)

typedef struct delta_name_parts {
	uint32_t part;          /* 0..99999 */
	uint8_t uuid[16];
	const char *suffix;     /* borrowed; not NUL-terminated */
	size_t suffix_len;      /* 1..DELTA_NAME_SUFFIX_MAX */
} delta_name_parts;

/* 1 and *out filled when `name` (len bytes, no '/') has the pattern, else
 * 0. out->suffix points into `name`. */
int delta_name_parse(const char *name, size_t len, delta_name_parts *out);

/* The name's text into `out` (DELTA_NAME_FORMAT_MAX bytes), NUL-terminated;
 * returns its length. */
size_t delta_name_format(const delta_name_parts *p, char *out);

/* Order of two pattern names as their texts would sort (strcmp): the
 * part numbers have the same width and lowercase hex sorts as its bytes. */
int delta_name_compare(const delta_name_parts *a, const delta_name_parts *b);

#endif
