/* util/percent.h - percent-encoding of Delta paths and Hive partition
 * directory names.
 *
 * Delta stores add/remove paths as relative URIs: a data file at key
 * "date=2024-01-01/part 1.parquet" is written in the log as
 * "date=2024-01-01/part%201.parquet". Partition values in directory names
 * are escaped Hive-style first ("a:b" -> "a%3Ab"), and the URI encoding then
 * escapes that '%' again ("a%253Ab") - both layers must round-trip. */
#ifndef LOOM_UTIL_PERCENT_H
#define LOOM_UTIL_PERCENT_H

#include <stddef.h>

#include "util/buf.h"

/* The value of one hex digit, or -1. */
int loom_hex_digit(int c);

/* Decode %XX escapes of `s` into `out` (appended). A '%' not followed by two
 * hex digits is an LOOM_EINVAL error naming the offset. '+' stays '+'. */
int loom_percent_decode(loom_buf *out, const char *s, size_t len);

/* Encode a path for a Delta log entry: every byte outside the URI path
 * characters (unreserved, sub-delims, ':', '@', '/') becomes %XX. */
int loom_percent_encode_path(loom_buf *out, const char *s, size_t len);

/* Escape a partition value for a Hive directory name the way Spark does
 * (control characters, '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\',
 * '{', '[', ']', '^', DEL -> %XX). */
int loom_hive_escape(loom_buf *out, const char *s, size_t len);

#endif
