/* cli/malloc_tune.c - keep the loom process's RSS near its memory budget.
 *
 * glibc serves an allocation of 128 KiB or more with mmap, but raises that
 * threshold (up to 32 MiB) each time such a block is freed. Once raised,
 * the rewrite pipeline's page and row-group buffers (hundreds of KiB to
 * tens of MiB, allocated and freed on several threads) come from per-thread
 * heaps that free() cannot give back, and peak RSS came to depend on thread
 * timing: the same Z-order with --memory 64MiB peaked anywhere from 54 to
 * 81 MiB on a busy 2-core machine. A fixed threshold of 1 MiB (which also
 * stops the adjustment) keeps every large buffer an mmap that free()
 * returns: the same run peaks at 51 MiB, every time.
 *
 * Only the tool does this: libloom never changes the allocator of the
 * process that loads it. A user's own GLIBC_TUNABLES setting wins. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define CLI_MMAP_THRESHOLD (1024 * 1024)

void cli_tune_malloc(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	const char *tunables = getenv("GLIBC_TUNABLES");
	if (tunables && strstr(tunables, "malloc.mmap_threshold"))
		return;
	(void)mallopt(M_MMAP_THRESHOLD, CLI_MMAP_THRESHOLD);
#endif
}
