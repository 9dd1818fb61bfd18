/* tests/test.h - a minimal test harness: each test file is one executable
 * with TEST() cases run by main() from the RUN() list; CTest runs the
 * executables and prints the closing summary.
 *
 *   TEST(buf_grows) { ... CHECK(x == 1); CHECK_OK(loom_fn(...)); }
 *   int main(void) { RUN(buf_grows); return test_summary(); }
 */
#ifndef LOOM_TEST_H
#define LOOM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom/errors.h"

static int test_failures;
static int test_case_failed;
static int test_cases_run;

#define TEST(name) static void test_##name(void)

#define RUN(name)                                                         \
	do {                                                                  \
		test_case_failed = 0;                                             \
		test_cases_run++;                                                 \
		test_##name();                                                    \
		printf("%s %s\n", test_case_failed ? "FAIL" : "ok  ", #name);     \
		fflush(stdout);                                                   \
		if (test_case_failed)                                             \
			test_failures++;                                              \
	} while (0)

#define TEST_FAIL_AT(...)                                                 \
	do {                                                                  \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                   \
		fprintf(stderr, __VA_ARGS__);                                     \
		fprintf(stderr, "\n");                                            \
		test_case_failed = 1;                                             \
	} while (0)

/* Check a condition; on failure report it and continue the case. */
#define CHECK(cond)                                                       \
	do {                                                                  \
		if (!(cond))                                                      \
			TEST_FAIL_AT("check failed: %s", #cond);                      \
	} while (0)

/* Check and stop the case on failure. */
#define REQUIRE(cond)                                                     \
	do {                                                                  \
		if (!(cond)) {                                                    \
			TEST_FAIL_AT("requirement failed: %s", #cond);                \
			return;                                                       \
		}                                                                 \
	} while (0)

/* A loom call must succeed; shows loom_error_last() if not. Stops the case. */
#define CHECK_OK(expr)                                                    \
	do {                                                                  \
		int check_ok_rc_ = (expr);                                        \
		if (check_ok_rc_ < 0) {                                           \
			const loom_error *e_ = loom_error_last();                     \
			TEST_FAIL_AT("%s returned %d (%s)", #expr, check_ok_rc_,      \
			             e_ ? e_->message : "no message");                \
			return;                                                       \
		}                                                                 \
	} while (0)

/* A loom call must fail with `code`, leaving a non-empty message. */
#define CHECK_ERR(expr, code)                                             \
	do {                                                                  \
		int check_err_rc_ = (expr);                                       \
		if (check_err_rc_ != (code)) {                                    \
			const loom_error *e_ = loom_error_last();                     \
			TEST_FAIL_AT("%s returned %d, expected %d (%s)", #expr,       \
			             check_err_rc_, (int)(code),                      \
			             e_ ? e_->message : "no message");                \
		} else if (!loom_error_last() || !loom_error_last()->message[0]) { \
			TEST_FAIL_AT("%s failed without a message", #expr);           \
		}                                                                 \
	} while (0)

#define CHECK_STR(a, b)                                                   \
	do {                                                                  \
		const char *check_a_ = (a), *check_b_ = (b);                      \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)   \
			TEST_FAIL_AT("%s == \"%s\", expected \"%s\"", #a,             \
			             check_a_ ? check_a_ : "(null)",                  \
			             check_b_ ? check_b_ : "(null)");                 \
	} while (0)

#define CHECK_INT(a, b)                                                   \
	do {                                                                  \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);   \
		if (check_a_ != check_b_)                                         \
			TEST_FAIL_AT("%s == %lld, expected %lld", #a, check_a_,       \
			             check_b_);                                       \
	} while (0)

static inline int test_summary(void)
{
	printf("%d cases, %d failed\n", test_cases_run, test_failures);
	return test_failures ? 1 : 0;
}

#endif
