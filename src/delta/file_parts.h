/* delta/file_parts.h - the partition-value tuples of the file index, each
 * distinct tuple (its columns in the action's order, null values kept)
 * stored once; a file refers to its tuple by id. A table has a few
 * thousand partitions for millions of files, so a tuple costs nothing per
 * file but its 4-byte id. */
#ifndef LOOM_DELTA_FILE_PARTS_H
#define LOOM_DELTA_FILE_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hashmap.h"

typedef struct fx_tuple {
	delta_kv *kv;       /* NULL when empty */
	uint32_t n;
} fx_tuple;

typedef struct fx_parts {
	loom_arena arena;   /* tuples, their strings and their map keys */
	loom_map map;       /* serialized tuple -> id + 1 */
	fx_tuple *tuples;
	size_t num, cap;
	loom_buf key;
} fx_parts;

void fx_parts_init(fx_parts *p);
void fx_parts_dispose(fx_parts *p);
int fx_parts_intern(fx_parts *p, const delta_kv *kv, uint32_t n, uint32_t *id);
size_t fx_parts_memory(const fx_parts *p);

#endif
