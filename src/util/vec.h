/* util/vec.h - a growable array of fixed-size elements. */
#ifndef LOOM_UTIL_VEC_H
#define LOOM_UTIL_VEC_H

#include <stddef.h>

typedef struct loom_vec {
	void *data;
	size_t len;       /* elements in use */
	size_t cap;       /* elements allocated */
	size_t elem_size;
} loom_vec;

#define LOOM_VEC_INIT(type) { NULL, 0, 0, sizeof(type) }

void loom_vec_init(loom_vec *v, size_t elem_size);
int loom_vec_reserve(loom_vec *v, size_t cap);
/* Append one element copied from `elem`. */
int loom_vec_push(loom_vec *v, const void *elem);
/* Append one zeroed element and return it through *out. */
int loom_vec_push_zero(loom_vec *v, void **out);
void *loom_vec_at(const loom_vec *v, size_t i);
void loom_vec_sort(loom_vec *v, int (*cmp)(const void *, const void *));
void loom_vec_clear(loom_vec *v);
void loom_vec_dispose(loom_vec *v);

/* Grow a plain array `*arr` of `elem`-byte items (capacity *cap items) to
 * hold at least `need` items, doubling from 64. Never leaves *arr NULL,
 * even for need 0, so pointer arithmetic on it is defined. LOOM_ENOMEM with
 * a message naming the item count. */
int loom_array_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* Typed access: LOOM_VEC_AT(v, T, i) */
#define LOOM_VEC_AT(v, T, i) (((T *)(v)->data)[i])

#endif
