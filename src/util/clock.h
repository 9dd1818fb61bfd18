/* util/clock.h - wall and monotonic time, injectable so tests can set "now"
 * (retention windows, commit timestamps) without sleeping. */
#ifndef LOOM_UTIL_CLOCK_H
#define LOOM_UTIL_CLOCK_H

#include <stdint.h>

typedef struct loom_clock {
	int64_t (*wall_ms)(void *ctx);   /* ms since the Unix epoch */
	int64_t (*mono_ns)(void *ctx);   /* monotonic ns, arbitrary origin */
	void *ctx;
} loom_clock;

/* The system clock. */
const loom_clock *loom_clock_system(void);
int64_t loom_clock_wall_ms(const loom_clock *c);
int64_t loom_clock_mono_ns(const loom_clock *c);

/* A fixed clock for tests: wall time is *ctx, monotonic time advances with it. */
typedef struct loom_fixed_clock {
	loom_clock clock;
	int64_t now_ms;
} loom_fixed_clock;
void loom_fixed_clock_init(loom_fixed_clock *c, int64_t now_ms);

#endif
