/* util/vec.c - growable array. */
#include "util/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

void loom_vec_init(loom_vec *v, size_t elem_size)
{
	v->data = NULL;
	v->len = v->cap = 0;
	v->elem_size = elem_size;
}

int loom_vec_reserve(loom_vec *v, size_t cap)
{
	void *p;
	if (cap <= v->cap)
		return 0;
	p = loom_reallocarray(v->data, cap, v->elem_size);
	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS,
		                "out of memory growing an array to %zu elements", cap);
	v->data = p;
	v->cap = cap;
	return 0;
}

static int grow_for_one(loom_vec *v)
{
	if (v->len < v->cap)
		return 0;
	return loom_vec_reserve(v, v->cap ? v->cap * 2 : 8);
}

int loom_vec_push(loom_vec *v, const void *elem)
{
	LOOM_TRY(grow_for_one(v));
	memcpy((char *)v->data + v->len * v->elem_size, elem, v->elem_size);
	v->len++;
	return 0;
}

int loom_vec_push_zero(loom_vec *v, void **out)
{
	void *slot;
	LOOM_TRY(grow_for_one(v));
	slot = (char *)v->data + v->len * v->elem_size;
	memset(slot, 0, v->elem_size);
	v->len++;
	*out = slot;
	return 0;
}

void *loom_vec_at(const loom_vec *v, size_t i)
{
	return i < v->len ? (char *)v->data + i * v->elem_size : NULL;
}

void loom_vec_sort(loom_vec *v, int (*cmp)(const void *, const void *))
{
	if (v->len > 1)
		qsort(v->data, v->len, v->elem_size, cmp);
}

void loom_vec_clear(loom_vec *v)
{
	v->len = 0;
}

void loom_vec_dispose(loom_vec *v)
{
	loom_free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}

int loom_array_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;
	if (need == 0)
		need = 1;
	if (need <= *cap && *arr)
		return 0;
	n = *cap ? *cap : 64;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "array of %zu items is too large", need);
		n *= 2;
	}
	p = loom_reallocarray(*arr, n, elem);
	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS,
		                "out of memory growing an array to %zu items of %zu bytes", n, elem);
	*arr = p;
	*cap = n;
	return 0;
}
