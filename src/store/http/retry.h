/* store/http/retry.h - the bounded retry policy of object-store requests:
 * exponential backoff with full jitter (sleep a uniform random time in
 * [0, min(max_delay, base_delay * 2^(n-1))] before retry n), so racing
 * clients spread out instead of retrying in step.
 *
 * Options (storage_options keys, case-insensitive, else the environment):
 *   max_retries       LOOM_MAX_RETRIES        retries after the first try (default 5, at most 100)
 *   retry_base_delay  LOOM_RETRY_BASE_DELAY   first backoff cap (default 100ms)
 *   retry_max_delay   LOOM_RETRY_MAX_DELAY    largest backoff cap (default 10s) */
#ifndef LOOM_STORE_RETRY_H
#define LOOM_STORE_RETRY_H

#include <stdint.h>

#include "store/backend.h"

typedef struct retry_policy {
	unsigned int max_attempts;   /* tries in all, >= 1 */
	int64_t base_delay_ms;
	int64_t max_delay_ms;
} retry_policy;

#define RETRY_DEFAULT_RETRIES 5
#define RETRY_DEFAULT_BASE_MS 100
#define RETRY_DEFAULT_MAX_MS 10000

void retry_policy_default(retry_policy *p);
/* The policy from a store's options; LOOM_EINVAL naming a bad option. */
int retry_policy_from_config(retry_policy *p, const store_config *c);

/* The backoff before retry `n` (1 = the first retry), in ms. */
int64_t retry_delay_ms(const retry_policy *p, unsigned int n);
/* Sleep that long (EINTR-safe). */
void retry_sleep_ms(int64_t ms);

/* 1 for the HTTP statuses worth another try: 408, 429, 500, 502, 503, 504. */
int retry_status_is_transient(long status);

#endif
