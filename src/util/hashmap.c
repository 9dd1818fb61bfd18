/* util/hashmap.c - open-addressing hash map. */
#include "util/hashmap.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t loom_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0x100000001b3ULL);
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ mix(w)) * 0x100000001b3ULL;
		p += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ mix(w ^ len)) * 0x100000001b3ULL;
	return mix(h);
}

static size_t find_slot(const loom_map *m, const char *key, size_t key_len,
                        uint64_t hash)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)hash & mask;
	for (;;) {
		loom_map_slot *s = &m->slots[i];
		if (!s->key)
			return i;
		if (s->hash == hash && s->key_len == key_len &&
		    memcmp(s->key, key, key_len) == 0)
			return i;
		i = (i + 1) & mask;
	}
}

static int resize(loom_map *m, size_t new_cap)
{
	loom_map_slot *old = m->slots;
	size_t old_cap = m->cap, i;
	loom_map_slot *fresh = loom_calloc(new_cap, sizeof(*fresh));

	if (!fresh)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS,
		                "out of memory growing a hash map to %zu slots", new_cap);
	m->slots = fresh;
	m->cap = new_cap;
	for (i = 0; i < old_cap; i++) {
		if (old[i].key) {
			size_t j = find_slot(m, old[i].key, old[i].key_len, old[i].hash);
			m->slots[j] = old[i];
		}
	}
	loom_free(old);
	return 0;
}

int loom_map_reserve(loom_map *m, size_t count)
{
	size_t cap = m->cap ? m->cap : 16;
	/* keep the load factor at or below 0.7 */
	while (cap * 7 / 10 < count)
		cap *= 2;
	return cap > m->cap ? resize(m, cap) : 0;
}

int loom_map_put(loom_map *m, const char *key, size_t key_len, void *value,
                 void **old_value)
{
	uint64_t hash = loom_hash_bytes(key, key_len);
	size_t i;

	LOOM_TRY(loom_map_reserve(m, m->count + 1));
	i = find_slot(m, key, key_len, hash);
	if (old_value)
		*old_value = m->slots[i].key ? m->slots[i].value : NULL;
	if (!m->slots[i].key)
		m->count++;
	m->slots[i].key = key;
	m->slots[i].key_len = key_len;
	m->slots[i].hash = hash;
	m->slots[i].value = value;
	return 0;
}

void *loom_map_get(const loom_map *m, const char *key, size_t key_len)
{
	size_t i;
	if (!m->cap)
		return NULL;
	i = find_slot(m, key, key_len, loom_hash_bytes(key, key_len));
	return m->slots[i].key ? m->slots[i].value : NULL;
}

void *loom_map_remove(loom_map *m, const char *key, size_t key_len)
{
	size_t mask, i, j;
	void *value;

	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	i = find_slot(m, key, key_len, loom_hash_bytes(key, key_len));
	if (!m->slots[i].key)
		return NULL;
	value = m->slots[i].value;
	m->slots[i].key = NULL;
	m->count--;
	/* Backward-shift: move later members of the probe run into the hole
	 * when their home slot does not lie in (hole, their position]. */
	j = i;
	for (;;) {
		size_t home;
		j = (j + 1) & mask;
		if (!m->slots[j].key)
			break;
		home = (size_t)m->slots[j].hash & mask;
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			m->slots[i] = m->slots[j];
			m->slots[j].key = NULL;
			i = j;
		}
	}
	return value;
}

int loom_map_next(const loom_map *m, size_t *pos, const char **key,
                  size_t *key_len, void **value)
{
	while (*pos < m->cap) {
		loom_map_slot *s = &m->slots[(*pos)++];
		if (s->key) {
			if (key)
				*key = s->key;
			if (key_len)
				*key_len = s->key_len;
			if (value)
				*value = s->value;
			return 1;
		}
	}
	return 0;
}

void loom_map_dispose(loom_map *m)
{
	loom_free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

int loom_map_puts(loom_map *m, const char *key, void *value)
{
	return loom_map_put(m, key, strlen(key), value, NULL);
}

void *loom_map_gets(const loom_map *m, const char *key)
{
	return loom_map_get(m, key, strlen(key));
}
