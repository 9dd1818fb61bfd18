/* util/alloc.h - every allocation of the library goes through here, so a
 * test can fail the Nth allocation and check the library reports ENOMEM. */
#ifndef LOOM_UTIL_ALLOC_H
#define LOOM_UTIL_ALLOC_H

#include <stddef.h>

void *loom_malloc(size_t size);
void *loom_calloc(size_t n, size_t size);
void *loom_realloc(void *p, size_t size);
/* realloc of n * size with overflow check. */
void *loom_reallocarray(void *p, size_t n, size_t size);
void loom_free(void *p);
char *loom_strdup(const char *s);
char *loom_strndup(const char *s, size_t n);

/* Test hook: make the allocation `n` calls from now fail (0 turns it off). */
void loom_alloc_fail_after(long n);

#endif
