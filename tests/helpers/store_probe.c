/* tests/helpers/store_probe.c - drive one store through its interface, for
 * the object-store script tests: `store_probe URI STEP...` opens the store
 * for URI (options from the environment) and runs the steps in order,
 * printing one line per step; exit 1 at the first failing step (its error
 * on stderr).
 *
 *   get KEY            read the whole object; prints "get KEY <bytes> <sha-ish>"
 *   put KEY TEXT       put TEXT
 *   create KEY TEXT    put-if-absent; prints "exists" instead of failing
 *                      when the key is there
 *   write KEY FILE     stream FILE through a writer (64 KiB writes)
 *   read KEY FILE      read the whole object into FILE
 *   tail KEY N         read_tail of N bytes; prints the size
 *   list PREFIX        recursive listing, "key size" lines
 *   rm KEY...          remove_many of the keys (up to the next step word)
 *   sleep MS           wait (token refresh tests)
 *   stats              the store's request counters as JSON */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loom/errors.h"
#include "loom/store.h"
#include "store/backend.h"
#include "util/buf.h"

static const char *const STEPS[] = { "get", "put", "create", "write", "read", "tail", "list",
	                                 "rm", "sleep", "stats", NULL };

static int is_step(const char *s)
{
	size_t i;
	for (i = 0; STEPS[i]; i++)
		if (strcmp(s, STEPS[i]) == 0)
			return 1;
	return 0;
}

static int die(const char *what)
{
	const loom_error *e = loom_error_last();
	fprintf(stderr, "store_probe: %s: %s\n", what, e ? e->message : "?");
	return 1;
}

/* FNV-1a: enough to tell two contents apart in a test's output. */
static unsigned long long fnv(const char *p, size_t n)
{
	unsigned long long h = 1469598103934665603ull;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static int print_entry(const loom_store_entry *e, void *ctx)
{
	(void)ctx;
	printf("%s %llu%s\n", e->key, (unsigned long long)e->size, e->is_dir ? " dir" : "");
	return 0;
}

static int write_file(loom_store *s, const char *key, const char *path)
{
	FILE *f = fopen(path, "rb");
	loom_store_writer *w;
	char buf[65536];
	size_t n;
	int rc = 0;
	if (!f)
		return fprintf(stderr, "store_probe: cannot open %s\n", path), -1;
	if (s->writer_open(s, key, 0, &w) < 0) {
		fclose(f);
		return -1;
	}
	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		rc = w->write(w, buf, n);
	fclose(f);
	if (rc < 0) {
		w->abort(w);
		return rc;
	}
	return w->commit(w);
}

int main(int argc, char **argv)
{
	loom_store *s = NULL;
	int i = 2;

	if (argc < 2) {
		fprintf(stderr, "usage: store_probe URI STEP...\n");
		return 2;
	}
	if (loom_store_open(&s, argv[1], NULL) < 0)
		return die("open");
	while (i < argc) {
		const char *step = argv[i++];
		const char *a = i < argc ? argv[i] : NULL, *b = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(step, "get") == 0 && a) {
			loom_buf data = LOOM_BUF_INIT;
			if (loom_store_read_all(s, a, &data) < 0)
				return die(a);
			printf("get %s %zu %016llx\n", a, data.size, fnv(data.ptr ? data.ptr : "", data.size));
			loom_buf_dispose(&data);
			i++;
		} else if ((strcmp(step, "put") == 0 || strcmp(step, "create") == 0) && a && b) {
			int create = step[0] == 'c';
			int rc = s->put(s, a, b, strlen(b), create ? LOOM_PUT_IF_ABSENT : 0);
			if (rc == LOOM_EEXISTS && create)
				printf("exists %s\n", a);
			else if (rc < 0)
				return die(a);
			else
				printf("%s %s\n", step, a);
			i += 2;
		} else if (strcmp(step, "write") == 0 && a && b) {
			if (write_file(s, a, b) < 0)
				return die(a);
			printf("write %s\n", a);
			i += 2;
		} else if (strcmp(step, "read") == 0 && a && b) {
			loom_buf data = LOOM_BUF_INIT;
			FILE *f;
			if (loom_store_read_all(s, a, &data) < 0)
				return die(a);
			if (!(f = fopen(b, "wb")) || fwrite(data.ptr ? data.ptr : "", 1, data.size, f) != data.size)
				return fprintf(stderr, "store_probe: cannot write %s\n", b), 1;
			fclose(f);
			printf("read %s %zu\n", a, data.size);
			loom_buf_dispose(&data);
			i += 2;
		} else if (strcmp(step, "tail") == 0 && a && b) {
			size_t n = (size_t)strtoull(b, NULL, 10), got = 0;
			uint64_t size = 0;
			char *buf = malloc(n ? n : 1);
			if (!buf || loom_store_read_tail(&got, &size, s, a, buf, n) < 0)
				return die(a);
			printf("tail %s %zu of %llu\n", a, got, (unsigned long long)size);
			free(buf);
			i += 2;
		} else if (strcmp(step, "list") == 0 && a) {
			if (s->list(s, a, NULL, LOOM_LIST_RECURSIVE, print_entry, NULL) < 0)
				return die(a);
			i++;
		} else if (strcmp(step, "rm") == 0) {
			int start = i, n, *results, rc;
			while (i < argc && !is_step(argv[i]))
				i++;
			n = i - start;
			results = calloc((size_t)(n ? n : 1), sizeof(int));
			rc = results ? loom_store_remove_many(results, s,
			                                      (const char *const *)argv + start,
			                                      (size_t)n) : -1;
			free(results);
			if (rc < 0)
				return die("rm");
			printf("rm %d\n", n);
		} else if (strcmp(step, "sleep") == 0 && a) {
			long ms = strtol(a, NULL, 10);
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
			i++;
		} else if (strcmp(step, "stats") == 0) {
			loom_store_stats st;
			int k;
			memset(&st, 0, sizeof(st));
			st.version = LOOM_STORE_STATS_VERSION;
			loom_store_stats_get(&st, s);
			printf("{\"store_requests\":{");
			for (k = 0; k < LOOM_STORE_REQ__COUNT; k++)
				printf("%s\"%s\":%llu", k ? "," : "", loom_store_request_name(k),
				       (unsigned long long)st.requests[k]);
			printf("},\"retries\":%llu}\n", (unsigned long long)st.retries);
		} else {
			fprintf(stderr, "store_probe: bad step '%s'\n", step);
			return 2;
		}
		fflush(stdout);
	}
	loom_store_free(s);
	return 0;
}
