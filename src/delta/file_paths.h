/* delta/file_paths.h - the path dictionary of the file index: each path
 * split at its last '/' of the log's (URI-encoded) text into a directory,
 * kept once, and a name, packed into a byte pool:
 *
 *   tag 0          decoded name, NUL          (raw text is the same)
 *   tag 1          decoded name, NUL, raw name, NUL
 *   tag 2 + s      part number (3 bytes, little-endian), 16 UUID bytes:
 *                  "part-NNNNN-<uuid>" + suffix s (delta/file_names.h)
 *
 * A path is then a directory id and a pointer to its name; paths compare
 * in strcmp order of their decoded text without rendering it in the common
 * cases (same directory; directories none of which is a prefix of another). */
#ifndef LOOM_DELTA_FILE_PATHS_H
#define LOOM_DELTA_FILE_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/bytepool.h"
#include "util/hashmap.h"

#define FX_MAX_SUFFIXES 254

typedef struct fx_dir {
	const char *raw, *dec;     /* with the trailing '/', or "" */
	uint32_t raw_len, dec_len;
	uint32_t rank;             /* order of `dec` among the directories */
	uint8_t nested;            /* a prefix of another directory, or has one */
} fx_dir;

typedef struct fx_paths {
	loom_arena arena;          /* directory and suffix strings */
	loom_map dir_map;          /* raw directory -> id + 1 */
	fx_dir *dirs;
	size_t num_dirs, cap_dirs;
	loom_bytepool names;
	const char *suffix[FX_MAX_SUFFIXES];
	uint8_t suffix_len[FX_MAX_SUFFIXES];
	size_t num_suffixes;
	uint32_t last_dir;         /* the directory added last + 1, or 0: files
	                              of one directory come together */
	loom_buf tmp;
} fx_paths;

void fx_paths_init(fx_paths *p);
void fx_paths_dispose(fx_paths *p);

/* Intern a path: `raw` as in the log, `dec` the decoded (normalized) path
 * the parser made of it. */
int fx_paths_add(fx_paths *p, const char *raw, const char *dec, uint32_t *dir,
                 const uint8_t **name);

/* Rank the directories; before any compare. */
int fx_paths_rank(fx_paths *p);

/* strcmp order of two decoded paths. */
int fx_paths_compare(const fx_paths *p, uint32_t da, const uint8_t *na, uint32_t db,
                     const uint8_t *nb);

/* strcmp order of a decoded path against `path`. */
int fx_paths_compare_text(const fx_paths *p, uint32_t dir, const uint8_t *name,
                          const char *path);

/* Append the decoded (raw = 0) or log (raw = 1) text of a path to `out`. */
int fx_paths_render(const fx_paths *p, uint32_t dir, const uint8_t *name, int raw, loom_buf *out);

/* Whether the raw text differs from the decoded one. */
int fx_paths_raw_differs(const fx_paths *p, uint32_t dir, const uint8_t *name);

size_t fx_paths_memory(const fx_paths *p);

#endif
