/* util/clock.c - system and fixed clocks. */
#include "util/clock.h"

#include <time.h>

static int64_t system_wall_ms(void *ctx)
{
	struct timespec ts;
	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t system_mono_ns(void *ctx)
{
	struct timespec ts;
	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const loom_clock system_clock = { system_wall_ms, system_mono_ns, NULL };

const loom_clock *loom_clock_system(void)
{
	return &system_clock;
}

int64_t loom_clock_wall_ms(const loom_clock *c)
{
	return (c ? c : &system_clock)->wall_ms(c ? c->ctx : NULL);
}

int64_t loom_clock_mono_ns(const loom_clock *c)
{
	return (c ? c : &system_clock)->mono_ns(c ? c->ctx : NULL);
}

static int64_t fixed_wall_ms(void *ctx)
{
	return ((loom_fixed_clock *)ctx)->now_ms;
}

static int64_t fixed_mono_ns(void *ctx)
{
	return ((loom_fixed_clock *)ctx)->now_ms * 1000000;
}

void loom_fixed_clock_init(loom_fixed_clock *c, int64_t now_ms)
{
	c->clock.wall_ms = fixed_wall_ms;
	c->clock.mono_ns = fixed_mono_ns;
	c->clock.ctx = c;
	c->now_ms = now_ms;
}
