/* util/hashmap.h - a hash map from byte-string keys to pointers.
 *
 * Keys are borrowed: the caller keeps each key's bytes alive and unchanged
 * while it is in the map (typically the key lives inside the value). Open
 * addressing with linear probing and backward-shift deletion, so there are
 * no tombstones and lookups stay short after many removals. */
#ifndef LOOM_UTIL_HASHMAP_H
#define LOOM_UTIL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct loom_map_slot {
	const char *key;   /* NULL: empty slot */
	size_t key_len;
	uint64_t hash;
	void *value;
} loom_map_slot;

typedef struct loom_map {
	loom_map_slot *slots;
	size_t cap;    /* power of two, or 0 */
	size_t count;
} loom_map;

#define LOOM_MAP_INIT { NULL, 0, 0 }

uint64_t loom_hash_bytes(const void *data, size_t len);

/* Insert or replace. If `old_value` is not NULL it receives the replaced
 * value (NULL when the key was new). */
int loom_map_put(loom_map *m, const char *key, size_t key_len, void *value,
                 void **old_value);
/* The value for a key, or NULL. */
void *loom_map_get(const loom_map *m, const char *key, size_t key_len);
/* Remove a key; returns its value or NULL if absent. */
void *loom_map_remove(loom_map *m, const char *key, size_t key_len);
/* Iterate: start with *pos = 0; returns 0 at the end. */
int loom_map_next(const loom_map *m, size_t *pos, const char **key,
                  size_t *key_len, void **value);
int loom_map_reserve(loom_map *m, size_t count);
void loom_map_dispose(loom_map *m);

/* C-string conveniences. */
int loom_map_puts(loom_map *m, const char *key, void *value);
void *loom_map_gets(const loom_map *m, const char *key);

#endif
