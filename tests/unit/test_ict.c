/* In-commit timestamp helpers (delta/ict.c): which versions an ICT covers,
 * reading a commit's ICT from its first line however long that line is,
 * and the commit time used for retention. */
#include <stdio.h>
#include <string.h>

#include "delta/ict.h"
#include "loom/store.h"
#include "test.h"
#include "tmpdir.h"

static delta_metadata meta(delta_kv *conf, uint32_t n)
{
	delta_metadata m;
	memset(&m, 0, sizeof(m));
	m.configuration = conf;
	m.num_configuration = n;
	return m;
}

TEST(enablement)
{
	const char *wf[] = { "inCommitTimestamp" };
	delta_protocol p = { 1, 7, NULL, 0, wf, 1 };
	delta_protocol legacy = { 1, 2, NULL, 0, NULL, 0 };
	delta_kv on[] = { { "delta.enableInCommitTimestamps", "true" },
	                  { "delta.inCommitTimestampEnablementVersion", "5" },
	                  { "delta.inCommitTimestampEnablementTimestamp", "1700000000000" } };
	delta_kv bad[] = { { "delta.enableInCommitTimestamps", "true" },
	                   { "delta.inCommitTimestampEnablementVersion", "five" } };
	delta_metadata m = meta(on, 3);
	delta_ict ict;
	CHECK_OK(delta_ict_from(&p, &m, &ict));
	CHECK(ict.enabled);
	CHECK_INT(ict.enablement_version, 5);
	CHECK_INT(ict.enablement_timestamp, 1700000000000LL);
	CHECK(!delta_ict_covers(&ict, 4));
	CHECK(delta_ict_covers(&ict, 5));
	/* enabled since creation: every version */
	m = meta(on, 1);
	CHECK_OK(delta_ict_from(&p, &m, &ict));
	CHECK(delta_ict_covers(&ict, 0));
	/* the property without the feature is not enough */
	CHECK_OK(delta_ict_from(&legacy, &m, &ict));
	CHECK(!ict.enabled);
	CHECK(!delta_ict_covers(&ict, 7));
	m = meta(bad, 2);
	CHECK_ERR(delta_ict_from(&p, &m, &ict), LOOM_EINVAL);
}

TEST(read_first_line)
{
	char *dir = test_mkdtemp("ict");
	loom_store *s = NULL;
	char line[20000];
	int64_t ts;
	size_t n;
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	/* a commitInfo line longer than the first read */
	n = (size_t)snprintf(line, sizeof(line), "{\"commitInfo\":{\"pad\":\"");
	memset(line + n, 'x', 12000);
	n += 12000;
	n += (size_t)snprintf(line + n, sizeof(line) - n,
	                      "\",\"inCommitTimestamp\":1783874213881}}\n{\"add\":{}}\n");
	CHECK_OK(s->put(s, "_delta_log/00000000000000000001.json", line, n, 0));
	CHECK_OK(delta_ict_read(s, "_delta_log/00000000000000000001.json", &ts));
	CHECK_INT(ts, 1783874213881LL);
	/* not first, or absent: none */
	{
		const char *later = "{\"add\":{}}\n{\"commitInfo\":{\"inCommitTimestamp\":5}}\n";
		CHECK_OK(s->put(s, "_delta_log/00000000000000000002.json", later, strlen(later), 0));
	}
	CHECK_OK(delta_ict_read(s, "_delta_log/00000000000000000002.json", &ts));
	CHECK_INT(ts, -1);
	CHECK_INT(delta_ict_of_commit_text("{\"commitInfo\":{\"timestamp\":3}}", 31), -1);
	CHECK(delta_ict_read(s, "_delta_log/00000000000000000009.json", &ts) < 0);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(enablement);
	RUN(read_first_line);
	return test_summary();
}
