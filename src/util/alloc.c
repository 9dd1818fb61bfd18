/* util/alloc.c - allocation wrappers with a failure-injection hook. */
#include "util/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_long fail_countdown;

static int should_fail(void)
{
	long n = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
	if (n <= 0)
		return 0;
	return atomic_fetch_sub(&fail_countdown, 1) == 1;
}

void loom_alloc_fail_after(long n)
{
	atomic_store(&fail_countdown, n);
}

void *loom_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *loom_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *loom_realloc(void *p, size_t size)
{
	if (should_fail())
		return NULL;
	return realloc(p, size ? size : 1);
}

void *loom_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return loom_realloc(p, n * size);
}

void loom_free(void *p)
{
	free(p);
}

char *loom_strndup(const char *s, size_t n)
{
	char *d = loom_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *loom_strdup(const char *s)
{
	return loom_strndup(s, strlen(s));
}
