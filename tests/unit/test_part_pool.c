/* store/http/part_pool.c: upload part buffers are reused (the same memory comes
 * back), at most max_spare are kept, none outlive the last open writer,
 * and running out of memory is an error, not a crash. */
#include <string.h>

#include "store/http/part_pool.h"
#include "test.h"
#include "util/alloc.h"
#include "util/error.h"

TEST(reused_within_and_across_writers)
{
	part_pool p;
	void *a, *b, *c;
	CHECK_OK(part_pool_init(&p, 1 << 20, 2));
	part_pool_writer_open(&p);
	REQUIRE((a = part_pool_take(&p)) != NULL);
	memset(a, 7, 1 << 20); /* the whole buffer is usable */
	part_pool_give(&p, a);
	CHECK(p.n_spare == 1);
	b = part_pool_take(&p);
	CHECK(b == a); /* the given buffer, not a new one */
	CHECK(p.n_spare == 0);
	part_pool_writer_open(&p); /* a second writer takes what the first gives */
	c = part_pool_take(&p);
	REQUIRE(c != NULL && c != b);
	part_pool_give(&p, b);
	part_pool_writer_close(&p);
	CHECK(part_pool_take(&p) == b);
	part_pool_give(&p, b);
	part_pool_give(&p, c);
	CHECK(p.n_spare == 2);
	part_pool_writer_close(&p); /* the last writer: nothing kept */
	CHECK(p.n_spare == 0);
	part_pool_dispose(&p);
}

TEST(keeps_at_most_max_spare)
{
	part_pool p;
	void *bufs[5];
	int i;
	CHECK_OK(part_pool_init(&p, 4096, 3));
	part_pool_writer_open(&p);
	for (i = 0; i < 5; i++)
		REQUIRE((bufs[i] = part_pool_take(&p)) != NULL);
	for (i = 0; i < 5; i++)
		part_pool_give(&p, bufs[i]); /* the last two are freed */
	CHECK(p.n_spare == 3);
	part_pool_give(&p, NULL);
	CHECK(p.n_spare == 3);
	part_pool_writer_close(&p);
	CHECK(p.n_spare == 0);
	/* with no writer open a buffer given back is freed at once */
	REQUIRE((bufs[0] = part_pool_take(&p)) != NULL);
	part_pool_give(&p, bufs[0]);
	CHECK(p.n_spare == 0);
	part_pool_dispose(&p);
	part_pool_dispose(&p); /* twice is harmless */
}

TEST(out_of_memory_is_an_error)
{
	part_pool p;
	CHECK_OK(part_pool_init(&p, 4096, 1));
	part_pool_writer_open(&p);
	loom_alloc_fail_after(1); /* the next allocation fails */
	CHECK(part_pool_take(&p) == NULL);
	loom_alloc_fail_after(0);
	REQUIRE(loom_error_last() != NULL);
	CHECK(strstr(loom_error_last()->message, "4096-byte upload part") != NULL);
	part_pool_writer_close(&p);
	part_pool_dispose(&p);
}

int main(void)
{
	RUN(reused_within_and_across_writers);
	RUN(keeps_at_most_max_spare);
	RUN(out_of_memory_is_an_error);
	return test_summary();
}
