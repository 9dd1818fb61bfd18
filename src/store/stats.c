/* store/stats.c - request counters: per store and for the whole process,
 * so tests can assert "opening a Parquet file takes one GET". */
#include <string.h>

#include "store/backend.h"
#include "util/error.h"
#include "util/versioned.h"

static store_counters process_totals;

void store_counters_init(store_counters *c)
{
	size_t i;
	for (i = 0; i < LOOM_STORE_REQ__COUNT; i++)
		atomic_init(&c->requests[i], 0);
	atomic_init(&c->retries, 0);
	atomic_init(&c->bytes_read, 0);
	atomic_init(&c->bytes_written, 0);
}

void store_count_request(store_counters *c, loom_store_request kind)
{
	if ((unsigned)kind >= LOOM_STORE_REQ__COUNT)
		kind = LOOM_STORE_REQ_OTHER;
	if (c)
		atomic_fetch_add_explicit(&c->requests[kind], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&process_totals.requests[kind], 1, memory_order_relaxed);
}

void store_count_retry(store_counters *c)
{
	if (c)
		atomic_fetch_add_explicit(&c->retries, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&process_totals.retries, 1, memory_order_relaxed);
}

void store_count_bytes(store_counters *c, uint64_t read, uint64_t written)
{
	if (c) {
		atomic_fetch_add_explicit(&c->bytes_read, read, memory_order_relaxed);
		atomic_fetch_add_explicit(&c->bytes_written, written, memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&process_totals.bytes_read, read, memory_order_relaxed);
	atomic_fetch_add_explicit(&process_totals.bytes_written, written, memory_order_relaxed);
}

void store_counters_read(store_counters *c, loom_store_stats *out)
{
	size_t i;
	memset(out->requests, 0, sizeof(out->requests));
	for (i = 0; i < LOOM_STORE_REQ__COUNT; i++)
		out->requests[i] = atomic_load_explicit(&c->requests[i], memory_order_relaxed);
	out->retries = atomic_load_explicit(&c->retries, memory_order_relaxed);
	out->bytes_read = atomic_load_explicit(&c->bytes_read, memory_order_relaxed);
	out->bytes_written = atomic_load_explicit(&c->bytes_written, memory_order_relaxed);
}

/* The counters' versions (util/versioned.h): a caller's struct gets the
 * fields its version has. */
LOOM_VERSIONS(stats_versions, loom_store_stats, LOOM_STORE_STATS_VERSION, LOOM_STORE_STATS_INIT,
              sizeof(loom_store_stats));

LOOM_VERSIONED_INIT_FN(store_stats, stats_versions)

/* Hand the current-version counters `c` to the caller's struct. */
static int stats_out(loom_store_stats *out, const loom_store_stats *c)
{
	return loom_versioned_write(&stats_versions, out, out ? out->version : 0, c);
}

LOOM_EXTERN(int) loom_store_stats_get(loom_store_stats *out, loom_store *s)
{
	loom_store_stats c = LOOM_STORE_STATS_INIT;
	LOOM_TRY(stats_out(out, &c));   /* refuses a bad version before any work */
	if (s && s->version >= 2 && s->stats)
		LOOM_TRY(s->stats(s, &c));
	return stats_out(out, &c);
}

LOOM_EXTERN(int) loom_store_stats_total(loom_store_stats *out)
{
	loom_store_stats c = LOOM_STORE_STATS_INIT;
	store_counters_read(&process_totals, &c);
	return stats_out(out, &c);
}

LOOM_EXTERN(const char *) loom_store_request_name(loom_store_request kind)
{
	static const char *const names[LOOM_STORE_REQ__COUNT] = { "GET", "HEAD", "PUT", "LIST",
		                                                      "DELETE", "OTHER" };
	return kind >= 0 && kind < LOOM_STORE_REQ__COUNT ? names[kind] : NULL;
}
