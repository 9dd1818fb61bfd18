/* delta/log_temps.c - finding and removing stale log temp files (see
 * log_temps.h). */
#include "delta/log_temps.h"

#include <string.h>

#include "delta/log_names.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

#define LOG_DIR "_delta_log/"

static int is_uuid(const char *s)
{
	static const int dash[] = { 8, 13, 18, 23 };
	int i, d = 0;
	for (i = 0; i < 36; i++) {
		if (d < 4 && i == dash[d]) {
			if (s[i] != '-')
				return 0;
			d++;
		} else if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
			return 0;
		}
	}
	return 1;
}

int delta_temp_name(const char *name, size_t len)
{
	/* "." + name (at least one byte) + "." + uuid + ".tmp" */
	return len >= 1 + 1 + 1 + 36 + 4 && name[0] == '.' && memcmp(name + len - 4, ".tmp", 4) == 0 &&
	       name[len - 4 - 36 - 1] == '.' && is_uuid(name + len - 4 - 36);
}

int delta_log_temp_name(const char *name, size_t len)
{
	delta_log_name parsed;
	return delta_temp_name(name, len) &&
	       delta_log_name_parse(name + 1, len - 1 - 1 - 36 - 4, &parsed) == 1;
}

typedef struct sweep_ctx {
	int64_t cutoff_ms;
	delta_temp_cb cb;
	void *ctx;
} sweep_ctx;

static int on_entry(const loom_store_entry *e, void *payload)
{
	sweep_ctx *s = payload;
	const char *base = strrchr(e->key, '/');
	base = base ? base + 1 : e->key;
	if (e->is_dir || e->is_symlink || e->mtime_ms > s->cutoff_ms ||
	    !delta_log_temp_name(base, strlen(base)))
		return 0;
	return s->cb(e->key, e->size, s->ctx);
}

int delta_log_stale_temps(loom_store *store, const loom_clock *clock, delta_temp_cb cb,
                          void *ctx)
{
	sweep_ctx s;
	s.cutoff_ms = loom_clock_wall_ms(clock ? clock : loom_clock_system()) - DELTA_TEMP_SAFE_AGE_MS;
	s.cb = cb;
	s.ctx = ctx;
	return store->list(store, LOG_DIR, NULL, 0, on_entry, &s);
}

static int collect(const char *key, uint64_t size, void *ctx)
{
	char *copy = loom_strdup(key);
	(void)size;
	if (!copy || loom_vec_push(ctx, &copy) < 0) {
		loom_free(copy);
		return LOOM_ENOMEM;
	}
	return 0;
}

int delta_log_sweep_temps(loom_store *store, const loom_clock *clock)
{
	loom_vec keys = LOOM_VEC_INIT(char *);
	loom_error saved;
	size_t i;
	int removed = 0;

	/* whatever happens here, the caller's error record stays as it was */
	loom_err_copy(&saved);
	/* collect first: deleting while the store lists is not portable */
	(void)delta_log_stale_temps(store, clock, collect, &keys);
	for (i = 0; i < keys.len; i++) {
		char *key = LOOM_VEC_AT(&keys, char *, i);
		if (store->remove(store, key) == 0)
			removed++;
		loom_free(key);
	}
	loom_vec_dispose(&keys);
	if (saved.code)
		loom_err(saved.code, saved.klass, "%s", saved.message);
	else
		loom_error_clear();
	return removed;
}
