/* store/fault.c - the fault-injecting store wrapper (see fault.h).
 *
 * It forwards every call of the loom_store vtable to the wrapped store and
 * counts it by kind; a rule of the process-wide plan that matches the call
 * number makes that call fail, come back short, lose its reply, or kill the
 * process. It knows nothing about the store below, so it wraps the local
 * store and object-store backends alike. */
#include "store/fault.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/error.h"

enum fault_kind { K_READ, K_WRITE, K_PIA, K_LIST, K_DELETE, K_STAT, K_COUNT };
enum fault_mode { M_EIO, M_ENOSPC, M_TRANSIENT, M_SHORT, M_AFTER, M_PARTIAL, M_CRASH, M_CRASH_AFTER,
                  M_DELAY };

static const char *const kind_names[K_COUNT] = {
	"read", "write", "put-if-absent", "list", "delete", "stat"
};
static const char *const mode_names[] = {
	"eio", "enospc", "transient", "short", "after", "partial", "crash", "crash-after", "delay"
};

#define MAX_RULES 16

typedef struct fault_rule {
	int kind;
	long n;          /* call number, 1-based */
	int and_later;   /* "N+": every call from n on */
	int mode;
	long arg;        /* delay in ms */
} fault_rule;

static fault_rule rules[MAX_RULES];
static int n_rules;
static atomic_long counts[K_COUNT];
static atomic_long fired;

typedef struct fault_store {
	loom_store base;
	loom_store *inner;
} fault_store;

typedef struct fault_writer {
	loom_store_writer base;
	loom_store_writer *inner;
	unsigned int flags;
} fault_writer;

/* ---- the plan --------------------------------------------------------- */

static int lookup(const char *const *names, int n, const char *s, size_t len)
{
	int i;
	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && strncmp(names[i], s, len) == 0)
			return i;
	return -1;
}

static int parse_rule(const char *s, size_t len, fault_rule *r)
{
	const char *end = s + len, *at = memchr(s, '@', len), *p;
	char *num_end;

	memset(r, 0, sizeof(*r));
	if (!at || (r->kind = lookup(kind_names, K_COUNT, s, (size_t)(at - s))) < 0)
		goto bad;
	r->n = strtol(at + 1, &num_end, 10);
	if (num_end == at + 1 || r->n < 1 || num_end > end)
		goto bad;
	p = num_end;
	if (p < end && *p == '+') {
		r->and_later = 1;
		p++;
	}
	r->mode = M_EIO;
	if (p < end) {
		const char *m = p + 1, *eq;
		if (*p != ':')
			goto bad;
		eq = memchr(m, '=', (size_t)(end - m));
		r->mode = lookup(mode_names, (int)(sizeof(mode_names) / sizeof(mode_names[0])), m,
		                 (size_t)((eq ? eq : end) - m));
		if (r->mode < 0 || (r->mode == M_DELAY) != (eq != NULL))
			goto bad;
		if (eq) {
			r->arg = strtol(eq + 1, &num_end, 10);
			if (num_end != end || r->arg < 0)
				goto bad;
		}
	}
	if ((r->mode == M_SHORT && r->kind != K_READ) ||
	    (r->mode == M_PARTIAL && r->kind != K_LIST && r->kind != K_DELETE))
		goto bad;
	return 0;
bad:
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
	                "fault plan: bad rule \"%.*s\" (expected KIND@N[+][:MODE[=MS]], KIND one of "
	                "read, write, put-if-absent, list, delete, stat; MODE one of eio, enospc, "
	                "transient, short (read), after, partial (list, delete), crash, crash-after, "
	                "delay=MS)",
	                (int)len, s);
}

int loom_fault_configure(const char *spec)
{
	fault_rule parsed[MAX_RULES];
	int n = 0, k;
	const char *p = spec ? spec : "";

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len) {
			if (n == MAX_RULES)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
				                "fault plan: more than %d rules", MAX_RULES);
			LOOM_TRY(parse_rule(p, len, &parsed[n]));
			n++;
		}
		p += len + (comma ? 1 : 0);
	}
	memcpy(rules, parsed, sizeof(parsed[0]) * (size_t)n);
	n_rules = n;
	for (k = 0; k < K_COUNT; k++)
		atomic_store(&counts[k], 0);
	atomic_store(&fired, 0);
	return 0;
}

long loom_fault_count(const char *kind)
{
	int k;
	if (!kind)
		return atomic_load(&fired);
	k = lookup(kind_names, K_COUNT, kind, strlen(kind));
	return k < 0 ? -1 : atomic_load(&counts[k]);
}

static void write_tally(void)
{
	const char *path = getenv("LOOM_FAULT_TALLY");
	FILE *f;
	int k;
	if (!path || !*path || !(f = fopen(path, "w")))
		return;
	for (k = 0; k < K_COUNT; k++)
		fprintf(f, "%s %ld\n", kind_names[k], atomic_load(&counts[k]));
	fprintf(f, "fired %ld\n", atomic_load(&fired));
	fclose(f);
}

/* ---- deciding one call ------------------------------------------------- */

/* Count a call of `kind`; the rule that applies to it, or NULL. A delay
 * rule is carried out here and applies no further. */
static const fault_rule *enter(int kind)
{
	long n = atomic_fetch_add(&counts[kind], 1) + 1;
	int i;
	for (i = 0; i < n_rules; i++) {
		const fault_rule *r = &rules[i];
		if (r->kind != kind || (r->and_later ? n < r->n : n != r->n))
			continue;
		atomic_fetch_add(&fired, 1);
		if (r->mode == M_DELAY) {
			struct timespec ts = { r->arg / 1000, (r->arg % 1000) * 1000000L };
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
			return NULL;
		}
		if (r->mode == M_CRASH)
			raise(SIGKILL);
		return r;
	}
	return NULL;
}

static int injected(const fault_rule *r, const char *call, const char *key)
{
	if (r->mode == M_ENOSPC)
		return loom_err_os(LOOM_EIO, ENOSPC, "%s %s failed (injected fault)", call, key);
	if (r->mode == M_TRANSIENT)
		return loom_err(LOOM_ETRANSIENT, LOOM_ERRCLASS_STORE,
		                "%s %s failed: injected timeout (retries spent)", call, key);
	return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "%s %s failed: injected I/O error%s", call, key,
	                r->mode == M_AFTER ? " after the store completed the call" : "");
}

/* Fail before the call (eio, enospc, transient)? */
static int fails_before(const fault_rule *r)
{
	return r && (r->mode == M_EIO || r->mode == M_ENOSPC || r->mode == M_TRANSIENT);
}

/* After a call that returned `rc`: kill, or report a lost reply. */
static int after_call(const fault_rule *r, int rc, const char *call, const char *key)
{
	if (!r)
		return rc;
	if (r->mode == M_CRASH_AFTER)
		raise(SIGKILL);
	if (r->mode == M_AFTER && rc == 0)
		return injected(r, call, key);
	return rc;
}

/* ---- the writer ------------------------------------------------------- */

static int fw_write(loom_store_writer *base, const void *data, size_t len)
{
	fault_writer *w = (fault_writer *)base;
	const fault_rule *r = enter(K_WRITE);
	if (fails_before(r))
		return injected(r, "write to", "a new object");
	return after_call(r, w->inner->write(w->inner, data, len), "write to", "a new object");
}

static int fw_commit(loom_store_writer *base)
{
	fault_writer *w = (fault_writer *)base;
	loom_store_writer *inner = w->inner;
	int pia = (w->flags & LOOM_PUT_IF_ABSENT) != 0;
	const fault_rule *r = enter(pia ? K_PIA : K_WRITE);
	const char *call = pia ? "publishing (if absent)" : "publishing";
	int rc;

	loom_free(w);
	if (fails_before(r)) {
		inner->abort(inner);
		return injected(r, call, "a new object");
	}
	rc = inner->commit(inner);
	return after_call(r, rc, call, "a new object");
}

static void fw_abort(loom_store_writer *base)
{
	fault_writer *w = (fault_writer *)base;
	w->inner->abort(w->inner);
	loom_free(w);
}

/* ---- the store -------------------------------------------------------- */

#define INNER(s) (((fault_store *)(s))->inner)

static int f_read_range(loom_store *s, const char *key, uint64_t offset, size_t len,
                        void *dst, size_t *nread)
{
	const fault_rule *r = enter(K_READ);
	int rc;
	if (fails_before(r)) {
		*nread = 0;
		return injected(r, "read of", key);
	}
	if (r && r->mode == M_SHORT)
		len /= 2;
	rc = INNER(s)->read_range(INNER(s), key, offset, len, dst, nread);
	return after_call(r, rc, "read of", key);
}

static int f_stat(loom_store *s, const char *key, loom_store_entry *out)
{
	const fault_rule *r = enter(K_STAT);
	if (fails_before(r))
		return injected(r, "stat of", key);
	return after_call(r, INNER(s)->stat(INNER(s), key, out), "stat of", key);
}

static int f_put(loom_store *s, const char *key, const void *data, size_t len, unsigned int flags)
{
	const fault_rule *r = enter(flags & LOOM_PUT_IF_ABSENT ? K_PIA : K_WRITE);
	if (fails_before(r))
		return injected(r, "put of", key);
	return after_call(r, INNER(s)->put(INNER(s), key, data, len, flags), "put of", key);
}

static int f_writer_open(loom_store *s, const char *key, unsigned int flags,
                         loom_store_writer **out)
{
	const fault_rule *r = enter(K_WRITE);
	fault_writer *w;
	int rc;

	if (fails_before(r))
		return injected(r, "creating", key);
	w = loom_calloc(1, sizeof(*w));
	if (!w)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	if ((rc = INNER(s)->writer_open(INNER(s), key, flags, &w->inner)) < 0) {
		loom_free(w);
		return after_call(r, rc, "creating", key);
	}
	if (r && r->mode == M_AFTER) {
		/* the store opened it but the reply was lost: abandon the upload */
		w->inner->abort(w->inner);
		loom_free(w);
		return injected(r, "creating", key);
	}
	if (r && r->mode == M_CRASH_AFTER)
		raise(SIGKILL);
	w->base.write = fw_write;
	w->base.commit = fw_commit;
	w->base.abort = fw_abort;
	w->flags = flags;
	*out = &w->base;
	return 0;
}

typedef struct partial_list {
	loom_store_list_cb cb;
	void *payload;
	size_t left;     /* entries still to deliver before the failure */
} partial_list;

static int partial_cb(const loom_store_entry *e, void *payload)
{
	partial_list *pl = payload;
	if (pl->left == 0)
		return LOOM_EIO;
	pl->left--;
	return pl->cb(e, pl->payload);
}

static int count_cb(const loom_store_entry *e, void *payload)
{
	(void)e;
	(*(size_t *)payload)++;
	return 0;
}

static int f_list(loom_store *s, const char *prefix, const char *start_after, unsigned int flags,
                  loom_store_list_cb cb, void *payload)
{
	const fault_rule *r = enter(K_LIST);
	loom_store *in = INNER(s);
	int rc;

	if (fails_before(r))
		return injected(r, "listing", prefix);
	if (r && r->mode == M_PARTIAL) {
		/* a paginated listing whose second page fails */
		size_t total = 0;
		partial_list pl = { cb, payload, 0 };
		LOOM_TRY(in->list(in, prefix, start_after, flags, count_cb, &total));
		pl.left = total / 2;
		rc = in->list(in, prefix, start_after, flags, partial_cb, &pl);
		if (rc == LOOM_EIO || rc == 0)
			rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			              "listing %s failed after %zu of %zu entries (injected fault)",
			              prefix, total / 2, total);
		return rc;
	}
	return after_call(r, in->list(in, prefix, start_after, flags, cb, payload), "listing", prefix);
}

static int f_remove(loom_store *s, const char *key)
{
	const fault_rule *r = enter(K_DELETE);
	/* half of one key is none of it */
	if (fails_before(r) || (r && r->mode == M_PARTIAL))
		return injected(r, "delete of", key);
	return after_call(r, INNER(s)->remove(INNER(s), key), "delete of", key);
}

static int f_remove_empty_dir(loom_store *s, const char *prefix)
{
	const fault_rule *r = enter(K_DELETE);
	if (fails_before(r))
		return injected(r, "removing directory", prefix);
	return after_call(r, INNER(s)->remove_empty_dir(INNER(s), prefix), "removing directory",
	                  prefix);
}

/* ---- version 2 members (forwarded only when the wrapped store has them) */

static int f_read_tail(loom_store *s, const char *key, size_t len, void *dst, size_t *nread,
                       uint64_t *size)
{
	const fault_rule *r = enter(K_READ);
	int rc;
	if (fails_before(r)) {
		*nread = 0;
		return injected(r, "read of the end of", key);
	}
	if (r && r->mode == M_SHORT)
		len /= 2;   /* fewer bytes than asked of an object that has them */
	rc = INNER(s)->read_tail(INNER(s), key, len, dst, nread, size);
	return after_call(r, rc, "read of the end of", key);
}

static int f_remove_many(loom_store *s, const char *const *keys, size_t n, int *results)
{
	const fault_rule *r = enter(K_DELETE);
	loom_store *in = INNER(s);
	size_t i, done;
	int rc;

	if (fails_before(r)) {
		rc = injected(r, "batch delete starting with", n ? keys[0] : "nothing");
		for (i = 0; i < n; i++)
			results[i] = rc;
		return rc;
	}
	if (r && r->mode == M_PARTIAL) {
		/* a batch of which the service deleted only the first half */
		done = n / 2;
		rc = done ? in->remove_many(in, keys, done, results) : 0;
		for (i = done; i < n; i++)
			results[i] = LOOM_EIO;
		if (rc == 0 && done < n)
			rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			              "batch delete: %zu of %zu keys deleted, then %s failed (injected fault)",
			              done, n, keys[done]);
		return rc;
	}
	rc = in->remove_many(in, keys, n, results);
	return after_call(r, rc, "batch delete starting with", n ? keys[0] : "nothing");
}

static int f_key_of(loom_store *s, const char *location, const char **key)
{
	return INNER(s)->key_of(INNER(s), location, key);
}

static int f_stats(loom_store *s, loom_store_stats *out)
{
	return INNER(s)->stats(INNER(s), out);
}

/* ---- version 3 members: listing counts as a list, aborting as a delete */

static int f_list_uploads(loom_store *s, const char *prefix, loom_store_upload_cb cb,
                          void *payload)
{
	const fault_rule *r = enter(K_LIST);
	if (fails_before(r))
		return injected(r, "listing of uploads under", prefix);
	return after_call(r, INNER(s)->list_uploads(INNER(s), prefix, cb, payload),
	                  "listing of uploads under", prefix);
}

static int f_abort_upload(loom_store *s, const char *key, const char *upload_id)
{
	const fault_rule *r = enter(K_DELETE);
	if (fails_before(r))
		return injected(r, "abort of the upload of", key);
	return after_call(r, INNER(s)->abort_upload(INNER(s), key, upload_id),
	                  "abort of the upload of", key);
}

static void f_free(loom_store *s)
{
	write_tally();
	loom_store_free(INNER(s));
	loom_free(s);
}

int loom_fault_store_wrap(loom_store **out, loom_store *inner)
{
	fault_store *fs = loom_calloc(1, sizeof(*fs));
	if (!fs) {
		loom_store_free(inner);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	}
	fs->inner = inner;
	fs->base = (loom_store){
		.version = inner->version,
		.name = "fault",
		.caps = inner->caps,
		.read_range = f_read_range,
		.stat = f_stat,
		.put = f_put,
		.writer_open = f_writer_open,
		.list = f_list,
		.remove = f_remove,
		.remove_empty_dir = inner->remove_empty_dir ? f_remove_empty_dir : NULL,
		.free = f_free,
	};
	if (inner->version >= 2) {
		/* a member the wrapped store lacks stays NULL: loom's helpers then
		 * fall back to the version 1 calls, which are counted above */
		fs->base.root = inner->root;
		fs->base.read_tail = inner->read_tail ? f_read_tail : NULL;
		fs->base.remove_many = inner->remove_many ? f_remove_many : NULL;
		fs->base.key_of = inner->key_of ? f_key_of : NULL;
		fs->base.stats = inner->stats ? f_stats : NULL;
	}
	if (inner->version >= 3) {
		fs->base.list_uploads = inner->list_uploads ? f_list_uploads : NULL;
		fs->base.abort_upload = inner->abort_upload ? f_abort_upload : NULL;
	}
	*out = &fs->base;
	return 0;
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_rc;
static loom_error env_err;

static void read_env_plan(void)
{
	env_rc = loom_fault_configure(getenv("LOOM_FAULTS"));
	if (env_rc < 0)
		loom_err_copy(&env_err);
}

int loom_fault_store_wrap_from_env(loom_store **s)
{
	const char *spec = getenv("LOOM_FAULTS");
	if (!spec)
		return 0;
	pthread_once(&env_once, read_env_plan);
	if (env_rc < 0) {
		loom_store_free(*s);
		*s = NULL;
		return loom_err(env_err.code, env_err.klass, "LOOM_FAULTS: %s", env_err.message);
	}
	return loom_fault_store_wrap(s, *s);
}

const loom_store *loom_fault_store_inner(const loom_store *s)
{
	while (s && s->free == f_free)
		s = ((const fault_store *)s)->inner;
	return s;
}
