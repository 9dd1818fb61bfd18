/* store/http/retry.c - backoff with full jitter. */
#include "store/http/retry.h"

#include <errno.h>
#include <time.h>

#include "util/error.h"

void retry_policy_default(retry_policy *p)
{
	p->max_attempts = RETRY_DEFAULT_RETRIES + 1;
	p->base_delay_ms = RETRY_DEFAULT_BASE_MS;
	p->max_delay_ms = RETRY_DEFAULT_MAX_MS;
}

int retry_policy_from_config(retry_policy *p, const store_config *c)
{
	uint64_t retries;
	retry_policy_default(p);
	LOOM_TRY(store_opt_uint(c, "max_retries", "LOOM_MAX_RETRIES", RETRY_DEFAULT_RETRIES, 100,
	                        &retries));
	LOOM_TRY(store_opt_duration_ms(c, "retry_base_delay", "LOOM_RETRY_BASE_DELAY",
	                               RETRY_DEFAULT_BASE_MS, 600000, &p->base_delay_ms));
	LOOM_TRY(store_opt_duration_ms(c, "retry_max_delay", "LOOM_RETRY_MAX_DELAY",
	                               RETRY_DEFAULT_MAX_MS, 3600000, &p->max_delay_ms));
	p->max_attempts = (unsigned int)retries + 1;
	if (p->max_delay_ms < p->base_delay_ms)
		p->max_delay_ms = p->base_delay_ms;
	return 0;
}

/* A per-thread xorshift64*: jitter needs spread, not secrecy. */
static uint64_t next_random(void)
{
	static _Thread_local uint64_t state;
	if (!state) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		state = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^
		        (uint64_t)(uintptr_t)&state;
		if (!state)
			state = 1;
	}
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545F4914F6CDD1Dull;
}

int64_t retry_delay_ms(const retry_policy *p, unsigned int n)
{
	int64_t cap = p->base_delay_ms;
	unsigned int i;
	for (i = 1; i < n && cap < p->max_delay_ms; i++)
		cap *= 2;
	if (cap > p->max_delay_ms)
		cap = p->max_delay_ms;
	if (cap <= 0)
		return 0;
	return (int64_t)(next_random() % (uint64_t)(cap + 1));
}

void retry_sleep_ms(int64_t ms)
{
	struct timespec ts;
	if (ms <= 0)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int retry_status_is_transient(long status)
{
	return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
	       status == 504;
}
