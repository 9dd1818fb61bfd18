/* store/stats.c - request counters: per store and for the whole process,
 * so tests can assert "opening a Parquet file takes one GET". */
#include <string.h>

#include "store/backend.h"
#include "util/error.h"

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

static int check_version(const loom_store_stats *out)
{
	if (!out || out->version != LOOM_STORE_STATS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
		                "store stats: version %u not set or unknown (use LOOM_STORE_STATS_VERSION)",
		                out ? out->version : 0);
	return 0;
}

LOOM_EXTERN(int) loom_store_stats_get(loom_store_stats *out, loom_store *s)
{
	LOOM_TRY(check_version(out));
	memset(out->requests, 0, sizeof(out->requests));
	out->retries = out->bytes_read = out->bytes_written = 0;
	if (s && s->version >= 2 && s->stats)
		return s->stats(s, out);
	return 0;
}

LOOM_EXTERN(int) loom_store_stats_total(loom_store_stats *out)
{
	LOOM_TRY(check_version(out));
	store_counters_read(&process_totals, out);
	return 0;
}

LOOM_EXTERN(const char *) loom_store_request_name(int kind)
{
	static const char *const names[LOOM_STORE_REQ__COUNT] = { "GET", "HEAD", "PUT", "LIST",
		                                                      "DELETE", "OTHER" };
	return kind >= 0 && kind < LOOM_STORE_REQ__COUNT ? names[kind] : NULL;
}
