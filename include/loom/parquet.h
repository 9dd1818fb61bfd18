/*
 * loom/parquet.h - inspecting Parquet files: schema, footer metadata and
 * rows rendered as text for tools and tests (`loom parquet ...`).
 *
 * The library never prints: each renderer hands finished lines to a
 * callback. Rendering of row values (`loom_parquet_render_rows`), one JSON
 * object per row:
 *   - integers as JSON numbers (unsigned types as unsigned, exact digits);
 *   - FLOAT/DOUBLE/FLOAT16 as numbers (%.9g / %.17g: round-trip exact), and
 *     the strings "NaN", "Infinity", "-Infinity";
 *   - DECIMAL as a string with exactly `scale` fraction digits ("-12.50");
 *   - strings (STRING/UTF8/ENUM/JSON) as JSON strings; other BYTE_ARRAY and
 *     FIXED_LEN_BYTE_ARRAY values as a string of lowercase hex digits;
 *   - DATE as "YYYY-MM-DD"; TIME as "HH:MM:SS.fff[fff[fff]]"; TIMESTAMP and
 *     INT96 as "YYYY-MM-DD HH:MM:SS.fff[fff[fff]]" (UTC; digits by unit, 9
 *     for INT96); UUID as "8-4-4-4-12" hex;
 *   - INTERVAL as {"months":m,"days":d,"millis":ms};
 *   - structs as objects, LIST (all layouts) and unannotated repeated fields
 *     as arrays, MAP as arrays of {"key":k,"value":v}; nulls as null.
 */
#ifndef LOOM_PARQUET_H
#define LOOM_PARQUET_H

#include "common.h"
#include "store.h"

LOOM_BEGIN_DECL

typedef struct loom_parquet_file loom_parquet_file;

/* Receives one rendered line (no trailing newline; NUL-terminated, `len`
 * bytes). Return 0 to continue; a non-zero value stops rendering and is
 * returned by the renderer. */
typedef int (*loom_parquet_line_cb)(const char *line, size_t len, void *payload);

/** Open a Parquet file by path or URI ("data/x.parquet",
 *  "file:///data/x.parquet", or any scheme a store backend takes; the file
 *  name is used as written, not percent-decoded). Reads only its tail and
 *  footer: one request when the footer fits in the last 64 KiB. The store
 *  is configured from the environment. On success *out is owned by the
 *  caller: release with loom_parquet_file_free. */
LOOM_EXTERN(int) loom_parquet_open(loom_parquet_file **out, const char *path);

/** loom_parquet_open with storage options (borrowed for the call; NULL =
 *  none). */
LOOM_EXTERN(int) loom_parquet_open_opts(loom_parquet_file **out, const char *uri,
                                        const loom_store_opts *opts);

/** Release a file; NULL is accepted. */
LOOM_EXTERN(void) loom_parquet_file_free(loom_parquet_file *f);

/** The schema as an indented tree, one line per element, e.g.
 *  "  optional int64 id (INTEGER(64,true)) [def=1 rep=0]". */
LOOM_EXTERN(int) loom_parquet_render_schema(loom_parquet_file *f, loom_parquet_line_cb cb,
                                            void *payload);

/** The footer as one JSON object (a single line): version, num_rows,
 *  created_by, key_value_metadata, row_groups with their column chunks
 *  (codec, encodings, sizes, offsets, statistics rendered as values). */
LOOM_EXTERN(int) loom_parquet_render_meta(loom_parquet_file *f, loom_parquet_line_cb cb,
                                          void *payload);

#define LOOM_PARQUET_CAT_OPTS_VERSION 1
typedef struct loom_parquet_cat_opts {
	unsigned int version;   /* LOOM_PARQUET_CAT_OPTS_VERSION */
	/* Comma-separated top-level field names or dotted leaf paths, NULL
	 * for every top-level field. Unknown names are LOOM_ENOTFOUND. */
	const char *columns;
	/* Rows to render at most; negative for all (the default). */
	int64_t limit;
} loom_parquet_cat_opts;
#define LOOM_PARQUET_CAT_OPTS_INIT { LOOM_PARQUET_CAT_OPTS_VERSION, NULL, -1 }

/** Fill `o` (of `version`, 1 to LOOM_PARQUET_CAT_OPTS_VERSION) with the
 *  defaults. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_parquet_cat_opts_init(loom_parquet_cat_opts *o, unsigned int version);

/** Rows as JSON objects, one line each, in file order. Reads one row
 *  group of the selected columns at a time. `opt` NULL: every column and
 *  row. */
LOOM_EXTERN(int) loom_parquet_render_rows(loom_parquet_file *f, const loom_parquet_cat_opts *opt,
                                          loom_parquet_line_cb cb, void *payload);

LOOM_END_DECL

#endif
