/* tests/tmpdir.h - per-test scratch directories and fixture copies.
 *
 * Every directory made here is remembered and removed when the test exits,
 * whether it passes, fails, returns early from a case or dies on a signal,
 * so a test run leaves nothing in $TMPDIR. */
#ifndef LOOM_TEST_TMPDIR_H
#define LOOM_TEST_TMPDIR_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_MAX_TMPDIRS 256

static char *test_tmpdirs[TEST_MAX_TMPDIRS];
static int test_n_tmpdirs;
static pid_t test_tmpdir_owner;

/* Run a shell command; returns its exit status. */
static inline int test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int test_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == -1 ? -1 : (rc >> 8) & 0xff;
}

static inline void test_remove_tmpdirs(void)
{
	int i;
	if (getpid() != test_tmpdir_owner)
		return; /* a forked child must not remove its parent's dirs */
	for (i = 0; i < test_n_tmpdirs; i++)
		if (test_tmpdirs[i]) {
			test_sh("chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", test_tmpdirs[i], test_tmpdirs[i]);
			free(test_tmpdirs[i]);
			test_tmpdirs[i] = NULL;
		}
	test_n_tmpdirs = 0;
}

static inline void test_tmpdir_on_signal(int sig)
{
	test_remove_tmpdirs();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Make a fresh directory under $TMPDIR (or /tmp); returns a malloc'd path.
 * It is removed at exit if the test has not removed it. */
static inline char *test_mkdtemp(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/loom-test-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(path)) {
		perror("mkdtemp");
		exit(2);
	}
	if (test_n_tmpdirs == 0 && !test_tmpdir_owner) {
		/* not SIGSEGV and friends: the sanitizers report those */
		static const int sigs[] = { SIGABRT, SIGTERM, SIGINT, SIGHUP };
		size_t i;
		test_tmpdir_owner = getpid();
		atexit(test_remove_tmpdirs);
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], test_tmpdir_on_signal);
	}
	if (test_n_tmpdirs < TEST_MAX_TMPDIRS)
		test_tmpdirs[test_n_tmpdirs++] = strdup(path);
	return path;
}

/* Remove a scratch directory made by test_mkdtemp, or a fixture copy made
 * by test_copy_fixture together with the directory holding it. */
static inline void test_rmtree(const char *path)
{
	int i;
	size_t n;
	if (!path)
		return;
	test_sh("chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", path, path);
	for (i = 0; i < test_n_tmpdirs; i++) {
		if (!test_tmpdirs[i])
			continue;
		n = strlen(test_tmpdirs[i]);
		/* the directory itself, or the one test_copy_fixture made for it */
		if (strcmp(test_tmpdirs[i], path) == 0 ||
		    (strncmp(test_tmpdirs[i], path, n) == 0 && path[n] == '/' &&
		     strchr(path + n + 1, '/') == NULL)) {
			test_sh("rm -rf '%s'", test_tmpdirs[i]);
			free(test_tmpdirs[i]);
			test_tmpdirs[i] = NULL;
		}
	}
}

/* Copy a fixture table into a scratch dir (fixtures are read-only); the
 * copy is <scratch>/table, and test_rmtree of it removes the scratch dir. */
static inline char *test_copy_fixture(const char *rel)
{
	char *dir = test_mkdtemp("fx");
	char *dst = malloc(4096);
	snprintf(dst, 4096, "%s/table", dir);
	if (test_sh("cp -r '%s/%s' '%s' && chmod -R u+w '%s'", LOOM_FIXTURES_DIR, rel, dst, dst) != 0) {
		fprintf(stderr, "cannot copy fixture %s\n", rel);
		exit(2);
	}
	free(dir);
	return dst;
}

#endif
