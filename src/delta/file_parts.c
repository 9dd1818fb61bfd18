/* delta/file_parts.c - partition tuples kept once. */
#include "delta/file_parts.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

void fx_parts_init(fx_parts *p)
{
	memset(p, 0, sizeof(*p));
	loom_arena_init(&p->arena, 64 * 1024);
}

void fx_parts_dispose(fx_parts *p)
{
	loom_map_dispose(&p->map);
	loom_free(p->tuples);
	loom_arena_dispose(&p->arena);
	loom_buf_dispose(&p->key);
	memset(p, 0, sizeof(*p));
}

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory building the file index");
}

/* column NUL (0 null | 1 value) value NUL, per entry: unambiguous since
 * neither text holds a NUL */
static int serialize(loom_buf *b, const delta_kv *kv, uint32_t n)
{
	uint32_t i;
	loom_buf_clear(b);
	for (i = 0; i < n; i++) {
		LOOM_TRY(loom_buf_put(b, kv[i].key, strlen(kv[i].key) + 1));
		LOOM_TRY(loom_buf_putc(b, kv[i].value ? 1 : 0));
		if (kv[i].value)
			LOOM_TRY(loom_buf_put(b, kv[i].value, strlen(kv[i].value)));
		LOOM_TRY(loom_buf_putc(b, '\0'));
	}
	return 0;
}

int fx_parts_intern(fx_parts *p, const delta_kv *kv, uint32_t n, uint32_t *id)
{
	void *v;
	fx_tuple *t;
	char *key;
	uint32_t i;

	if (serialize(&p->key, kv, n) < 0)
		return oom();
	v = loom_map_get(&p->map, p->key.ptr ? p->key.ptr : "", p->key.size);
	if (v) {
		*id = (uint32_t)((uintptr_t)v - 1);
		return 0;
	}
	if (loom_array_grow((void **)&p->tuples, &p->cap, p->num + 1, sizeof(*p->tuples)) < 0)
		return oom();
	t = &p->tuples[p->num];
	t->n = n;
	t->kv = n ? loom_arena_alloc(&p->arena, n * sizeof(delta_kv)) : NULL;
	key = loom_arena_strndup(&p->arena, p->key.ptr ? p->key.ptr : "", p->key.size);
	if ((n && !t->kv) || !key)
		return oom();
	for (i = 0; i < n; i++) {
		t->kv[i].key = loom_arena_strdup(&p->arena, kv[i].key);
		t->kv[i].value = kv[i].value ? loom_arena_strdup(&p->arena, kv[i].value) : NULL;
		if (!t->kv[i].key || (kv[i].value && !t->kv[i].value))
			return oom();
	}
	if (loom_map_put(&p->map, key, p->key.size, (void *)(uintptr_t)(p->num + 1), NULL) < 0)
		return oom();
	*id = (uint32_t)p->num++;
	return 0;
}

size_t fx_parts_memory(const fx_parts *p)
{
	return p->arena.total + p->cap * sizeof(fx_tuple) + p->map.cap * sizeof(loom_map_slot) +
	       p->key.asize;
}
