/* The store seam: opening by scheme with options, the secret rule and its
 * masking (one mechanism for config, stores and commits), absolute
 * locations mapped to keys, the version 2 helpers with their fallbacks for
 * version 1 stores, and request counting (one GET to open a Parquet file
 * whose footer fits, two when it does not). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loom/config.h"
#include "loom/store.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "store/backend.h"
#include "test.h"
#include "tmpdir.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/secret.h"

static char *dir;     /* the real root */
static char link_path[4200]; /* a symlink to it */

static loom_store_stats stats_of(loom_store *s)
{
	loom_store_stats st;
	memset(&st, 0, sizeof(st));
	st.version = LOOM_STORE_STATS_VERSION;
	loom_store_stats_get(&st, s);
	return st;
}

TEST(open_by_scheme)
{
	loom_store *s = NULL;
	loom_store_opts o = LOOM_STORE_OPTS_INIT;
	loom_kv kv[] = { { "AWS_REGION", "us-east-1" } };
	char uri[4300];
	/* file first, then the backends of this build (s3, s3a, ...) */
	CHECK(strncmp(loom_store_schemes(), "file", 4) == 0);
	CHECK(strstr(loom_store_schemes(), ", s3, s3a") != NULL);
	CHECK(strstr(loom_store_schemes(), "az") != NULL && strstr(loom_store_schemes(), "abfss") != NULL);
	snprintf(uri, sizeof(uri), "FILE://%s", dir); /* schemes are case-insensitive */
	CHECK_OK(loom_store_open(&s, uri, NULL));
	CHECK(strncmp(loom_store_root(s), "file:///", 8) == 0);
	loom_store_free(s);
	snprintf(uri, sizeof(uri), "file://localhost%s", dir);
	o.options = kv;
	o.n_options = 1;
	CHECK_OK(loom_store_open(&s, uri, &o)); /* options the backend does not read are ignored */
	loom_store_free(s);
	snprintf(uri, sizeof(uri), "file:%s", dir);
	CHECK_OK(loom_store_open(&s, uri, NULL));
	loom_store_free(s);
	CHECK_ERR(loom_store_open(&s, "file://otherhost/x", NULL), LOOM_EINVAL);
	CHECK_ERR(loom_store_open(&s, "hdfs://bucket/t?sig=SASVALUE99", NULL), LOOM_EUNSUPPORTED);
	CHECK(strstr(loom_error_last()->message, "no object store for URI scheme 'hdfs' (supported: file") != NULL);
	CHECK(strstr(loom_error_last()->message, "SASVALUE99") == NULL);
	CHECK(s == NULL);
	o.version = 99;
	CHECK_ERR(loom_store_open(&s, dir, &o), LOOM_EINVAL);
}

/* One rule names the secrets for the config, the stores and the CLI. */
TEST(secret_rule_and_masking)
{
	static const char *const secret[] = { "AWS_SECRET_ACCESS_KEY", "aws_session_token",
		"AZURE_STORAGE_ACCOUNT_KEY", "azure_storage_sas_token", "AZURE_CLIENT_SECRET",
		"AWS_ACCESS_KEY_ID", "google_service_account_key", "db_password", "X-Amz-Signature",
		"X-Amz-Credential", "sig", "Authorization" };
	static const char *const plain[] = { "AWS_REGION", "AWS_ENDPOINT_URL", "AZURE_STORAGE_ACCOUNT_NAME",
		"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AWS_ALLOW_HTTP", "max_retries", "signed", "x-id" };
	loom_secrets set = LOOM_SECRETS_INIT;
	loom_kv opts[] = { { "aws_secret_access_key", "abcdSECRETxyz" }, { "AWS_REGION", "eu-west-1" },
		               { "AZURE_STORAGE_SAS_TOKEN", "sv=2021&sig=ZZZ" }, { "short_token", "ab" } };
	char out[512];
	size_t i;
	for (i = 0; i < sizeof(secret) / sizeof(secret[0]); i++)
		CHECK(loom_secret_name(secret[i]));
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		CHECK(!loom_secret_name(plain[i]));
	CHECK_INT(loom_secret_name("AZURE_CLIENT_SECRET"), 1); /* the config asks the same rule */
	CHECK_OK(loom_secrets_add_options(&set, opts, 4));
	CHECK_INT(set.n, 2); /* "ab" is too short to search for */
	loom_secrets_mask(&set, "key abcdSECRETxyz in eu-west-1, token sv=2021&sig=ZZZ", out, sizeof(out));
	CHECK_STR(out, "key *** in eu-west-1, token ***");
	/* no set needed for URI passwords and secret parameters */
	loom_secrets_mask(NULL, "s3://user:pw@host/b?x=1&X-Amz-Signature=abc&X-Amz-Date=2 "
	                        "https://acct.blob.core.windows.net/c/t?sv=1&sig=QQQ; Credential=AKID/x, "
	                        "Signature=fff", out, sizeof(out));
	CHECK_STR(out, "s3://user:***@host/b?x=1&X-Amz-Signature=***&X-Amz-Date=2 "
	               "https://acct.blob.core.windows.net/c/t?sv=1&sig=***; Credential=***, Signature=***");
	/* masking twice changes nothing more */
	loom_secrets_mask(NULL, "u?sig=***: next", out, sizeof(out));
	CHECK_STR(out, "u?sig=***: next");
	/* in place, with masks longer than what they replace */
	snprintf(out, sizeof(out), "a://u:p@h b://u:q@h");
	loom_secrets_mask(NULL, out, out, sizeof(out));
	CHECK_STR(out, "a://u:***@h b://u:***@h");
	/* abfss://container@account has no password */
	loom_secrets_mask(NULL, "abfss://data@acct.dfs.core.windows.net/t", out, sizeof(out));
	CHECK_STR(out, "abfss://data@acct.dfs.core.windows.net/t");
	/* the environment's credentials */
	setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET123", 1);
	setenv("AZURE_STORAGE_ACCOUNT_NAME", "myaccount", 1);
	loom_secret_mask(out, sizeof(out), opts, 4, "ENVSECRET123 myaccount abcdSECRETxyz");
	CHECK_STR(out, "*** myaccount ***");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AZURE_STORAGE_ACCOUNT_NAME");
	/* the thread's error, in place */
	loom_err(LOOM_EPERM, LOOM_ERRCLASS_STORE, "denied for abcdSECRETxyz");
	loom_secrets_mask_error(&set);
	CHECK_STR(loom_error_last()->message, "denied for ***");
	CHECK_INT(loom_error_last()->code, LOOM_EPERM);
	loom_secrets_dispose(&set);
}

TEST(error_classes)
{
	CHECK(loom_error_is_transient(LOOM_ETRANSIENT));
	CHECK(!loom_error_is_transient(LOOM_EIO) && !loom_error_is_transient(LOOM_ENOTFOUND) &&
	      !loom_error_is_transient(LOOM_EPERM) && !loom_error_is_transient(LOOM_EEXISTS));
	CHECK_STR(loom_error_code_name(LOOM_ETRANSIENT), "ETRANSIENT");
	CHECK_STR(loom_error_code_name(LOOM_EPERM), "EPERM");
	CHECK_INT(loom_err_from_errno(EACCES), LOOM_EPERM);
}

/* A table opened through a symlink: log paths may name its files through
 * the link or through the real directory, as file:///, file:/ or plain
 * absolute paths; all are the same keys. Anything else is outside. */
TEST(absolute_locations_map_to_keys)
{
	loom_store *s = NULL;
	char loc[4400];
	const char *key;
	CHECK_OK(loom_store_open(&s, link_path, NULL));
	snprintf(loc, sizeof(loc), "file://%s/a/x.parquet", link_path);
	CHECK_OK(loom_store_key_of(&key, s, loc));
	CHECK_STR(key, "a/x.parquet");
	snprintf(loc, sizeof(loc), "file:%s/x.parquet", link_path);
	CHECK_OK(loom_store_key_of(&key, s, loc));
	CHECK_STR(key, "x.parquet");
	snprintf(loc, sizeof(loc), "%s/x.parquet", link_path);
	CHECK_OK(loom_store_key_of(&key, s, loc));
	CHECK_STR(key, "x.parquet");
	snprintf(loc, sizeof(loc), "file://%s/d=1/x.parquet", dir);
	CHECK_OK(loom_store_key_of(&key, s, loc));
	CHECK_STR(key, "d=1/x.parquet");
	CHECK_OK(loom_store_key_of(&key, s, "rel/x.parquet"));
	CHECK_STR(key, "rel/x.parquet");
	/* outside: a sibling sharing the root's name as a prefix, a way out
	 * through "..", the root itself, another scheme */
	snprintf(loc, sizeof(loc), "%s2/x.parquet", dir);
	CHECK_ERR(loom_store_key_of(&key, s, loc), LOOM_ENOTFOUND);
	CHECK(strstr(loom_error_last()->message, "is outside the table root file://") != NULL);
	snprintf(loc, sizeof(loc), "%s/../x.parquet", dir);
	CHECK_ERR(loom_store_key_of(&key, s, loc), LOOM_ENOTFOUND);
	CHECK_ERR(loom_store_key_of(&key, s, dir), LOOM_ENOTFOUND);
	CHECK_ERR(loom_store_key_of(&key, s, "s3://bucket/t/x.parquet"), LOOM_ENOTFOUND);
	CHECK_ERR(loom_store_key_of(&key, s, "../x.parquet"), LOOM_EINVAL);
	CHECK(key == NULL);
	loom_store_free(s);
}

static int count_entry(const loom_store_entry *e, void *payload)
{
	(void)e;
	(*(int *)payload)++;
	return 0;
}

TEST(request_counts_and_helpers)
{
	loom_store *s = NULL;
	loom_store_stats a, b, t0, t1;
	loom_buf buf = LOOM_BUF_INIT;
	char *big = malloc(100000);
	char tail[10];
	size_t n, i;
	uint64_t size;
	int results[3];
	const char *keys[3] = { "r/one", "../bad", "r/missing" };
	REQUIRE(big != NULL);
	for (i = 0; i < 100000; i++)
		big[i] = (char)('a' + i % 26);
	t0.version = LOOM_STORE_STATS_VERSION;
	CHECK_OK(loom_store_stats_total(&t0));
	CHECK_OK(loom_store_open(&s, dir, NULL));
	CHECK_OK(s->put(s, "r/small", "hello", 5, 0));
	CHECK_OK(s->put(s, "r/big", big, 100000, 0));
	CHECK_OK(s->put(s, "r/one", "1", 1, 0));
	a = stats_of(s);
	CHECK_INT(a.requests[LOOM_STORE_REQ_PUT], 3);
	CHECK_INT(a.bytes_written, 100006);
	/* a small object whole in one request, no stat */
	CHECK_OK(loom_store_read_all(s, "r/small", &buf));
	CHECK_STR(buf.ptr, "hello");
	b = stats_of(s);
	CHECK_INT(b.requests[LOOM_STORE_REQ_GET] - a.requests[LOOM_STORE_REQ_GET], 1);
	CHECK_INT(b.requests[LOOM_STORE_REQ_HEAD] - a.requests[LOOM_STORE_REQ_HEAD], 0);
	/* a large one takes a second read */
	loom_buf_clear(&buf);
	CHECK_OK(loom_store_read_all(s, "r/big", &buf));
	CHECK_INT(buf.size, 100000);
	CHECK(memcmp(buf.ptr, big, 100000) == 0);
	a = stats_of(s);
	CHECK_INT(a.requests[LOOM_STORE_REQ_GET] - b.requests[LOOM_STORE_REQ_GET], 2);
	/* read_tail: the last bytes and the size, in one request */
	CHECK_OK(loom_store_read_tail(&n, &size, s, "r/big", tail, 10));
	CHECK_INT(n, 10);
	CHECK_INT(size, 100000);
	CHECK(memcmp(tail, big + 99990, 10) == 0);
	CHECK_OK(loom_store_read_tail(&n, &size, s, "r/small", tail, 10));
	CHECK_INT(n, 5);
	CHECK_INT(size, 5);
	CHECK_ERR(loom_store_read_tail(&n, &size, s, "r/nothing", tail, 10), LOOM_ENOTFOUND);
	/* remove_many: per-key results, the first failure reported */
	CHECK_ERR(loom_store_remove_many(results, s, keys, 3), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "../bad") != NULL);
	CHECK_INT(results[0], 0);
	CHECK_INT(results[1], LOOM_EINVAL);
	CHECK_INT(results[2], 0); /* missing is not an error */
	{
		loom_store_entry e;
		CHECK_ERR(s->stat(s, "r/one", &e), LOOM_ENOTFOUND);
	}
	/* one listing call is one LIST here (an object store counts pages) */
	a = stats_of(s);
	{
		int count = 0;
		CHECK_OK(s->list(s, "r/", NULL, 0, count_entry, &count));
		CHECK_INT(count, 2);
	}
	b = stats_of(s);
	CHECK_INT(b.requests[LOOM_STORE_REQ_LIST] - a.requests[LOOM_STORE_REQ_LIST], 1);
	/* the process totals saw all of it */
	t1.version = LOOM_STORE_STATS_VERSION;
	CHECK_OK(loom_store_stats_total(&t1));
	CHECK(t1.requests[LOOM_STORE_REQ_PUT] - t0.requests[LOOM_STORE_REQ_PUT] >= 3);
	CHECK(t1.bytes_read - t0.bytes_read >= 100005);
	CHECK_STR(loom_store_request_name(LOOM_STORE_REQ_LIST), "LIST");
	CHECK(loom_store_request_name(LOOM_STORE_REQ__COUNT) == NULL);
	t1.version = 0;
	CHECK_ERR(loom_store_stats_total(&t1), LOOM_EINVAL);
	loom_buf_dispose(&buf);
	loom_store_free(s);
	free(big);
}

/* A version 1 store (built before read_tail, key_of, stats existed): the
 * helpers fall back to its version 1 methods and never touch the rest. */
typedef struct v1_store {
	loom_store base;      /* only the version 1 members are meaningful */
	loom_store *inner;
	int stats_calls;
} v1_store;

static int v1_read(loom_store *s, const char *key, uint64_t off, size_t len, void *dst, size_t *n)
{
	loom_store *in = ((v1_store *)s)->inner;
	return in->read_range(in, key, off, len, dst, n);
}

static int v1_stat(loom_store *s, const char *key, loom_store_entry *e)
{
	loom_store *in = ((v1_store *)s)->inner;
	return in->stat(in, key, e);
}

static int v1_remove(loom_store *s, const char *key)
{
	loom_store *in = ((v1_store *)s)->inner;
	return in->remove(in, key);
}

static int poisoned(loom_store *s, loom_store_stats *out)
{
	(void)out;
	((v1_store *)s)->stats_calls++;
	return LOOM_ERROR;
}

static int never_called(const loom_store_upload *u, void *payload)
{
	(void)u;
	(void)payload;
	return LOOM_ERROR;
}

TEST(version_1_stores_fall_back)
{
	v1_store v;
	loom_buf buf = LOOM_BUF_INIT;
	loom_store_stats st;
	const char *key;
	char tail[4];
	size_t n;
	uint64_t size;
	int res[1];
	const char *keys[1] = { "v1/gone" };
	/* the members a version 1 store does not have hold garbage, and a
	 * stats method that must not be called: never used */
	memset(&v, 0xA5, sizeof(v));
	v.stats_calls = 0;
	REQUIRE(loom_store_open(&v.inner, dir, NULL) == 0);
	v.base.version = 1;
	v.base.name = "v1";
	v.base.read_range = v1_read;
	v.base.stat = v1_stat;
	v.base.remove = v1_remove;
	v.base.stats = poisoned;
	CHECK_OK(v.inner->put(v.inner, "v1/f", "abcdef", 6, 0));
	CHECK_OK(v.inner->put(v.inner, "v1/gone", "x", 1, 0));
	CHECK_OK(loom_store_read_all(&v.base, "v1/f", &buf));
	CHECK_STR(buf.ptr, "abcdef");
	CHECK_OK(loom_store_read_tail(&n, &size, &v.base, "v1/f", tail, 4));
	CHECK(n == 4 && size == 6 && memcmp(tail, "cdef", 4) == 0);
	CHECK_ERR(loom_store_key_of(&key, &v.base, "/x/y"), LOOM_ENOTFOUND);
	CHECK_OK(loom_store_key_of(&key, &v.base, "y"));
	CHECK_STR(loom_store_root(&v.base), "(unknown root)");
	CHECK_OK(loom_store_remove_many(res, &v.base, keys, 1));
	CHECK_INT(res[0], 0);
	st.version = LOOM_STORE_STATS_VERSION;
	CHECK_OK(loom_store_stats_get(&st, &v.base));
	CHECK_INT(st.requests[LOOM_STORE_REQ_GET], 0);
	CHECK_INT(v.stats_calls, 0);
	/* no multipart uploads on a store without the version 3 members (they
	 * hold garbage here): none listed, aborting one is unsupported */
	CHECK_OK(loom_store_list_uploads(&v.base, "", never_called, NULL));
	CHECK_ERR(loom_store_abort_upload(&v.base, "v1/f", "id"), LOOM_EUNSUPPORTED);
	/* the local store is version 3 and keeps none either */
	CHECK_OK(loom_store_list_uploads(v.inner, "", never_called, NULL));
	CHECK_ERR(loom_store_abort_upload(v.inner, "v1/f", "id"), LOOM_EUNSUPPORTED);
	loom_buf_dispose(&buf);
	loom_store_free(v.inner);
}

/* Opening a Parquet file is one GET when its footer fits the first read
 * (what an object store needs: no HEAD, no second round trip), two when it
 * does not. */
static int write_wide_file(loom_store *s, const char *key, size_t ncols)
{
	pq_schema_node *nodes = loom_calloc(ncols + 1, sizeof(*nodes));
	char **names = loom_calloc(ncols, sizeof(char *));
	loom_store_writer *sink = NULL;
	pq_writer_opts o;
	pq_writer *w = NULL;
	pq_write_result res;
	pq_batch b;
	size_t i;
	int rc = -1;
	memset(&b, 0, sizeof(b));
	memset(&res, 0, sizeof(res));
	if (!nodes || !names || pq_batch_init(&b, ncols) < 0)
		goto out;
	nodes[0].name = "schema";
	nodes[0].is_group = 1;
	nodes[0].num_children = (int32_t)ncols;
	nodes[0].converted_type = PQ_CT_NONE;
	b.num_rows = 1;
	for (i = 0; i < ncols; i++) {
		pq_column *c = &b.columns[i];
		int64_t v = (int64_t)i;
		names[i] = loom_malloc(48);
		if (!names[i])
			goto out;
		snprintf(names[i], 48, "a_rather_long_column_name_%05zu", i % 100000);
		nodes[i + 1].name = names[i];
		nodes[i + 1].has_repetition = 1;
		nodes[i + 1].repetition = PQ_REQUIRED;
		nodes[i + 1].type = PQ_INT64;
		nodes[i + 1].converted_type = PQ_CT_NONE;
		c->type = PQ_INT64;
		c->num_levels = 1;
		c->num_values = 1;
		if (!(c->values = loom_malloc(8)))
			goto out;
		memcpy(c->values, &v, 8);
		c->values_cap = 1;
	}
	pq_writer_opts_default(&o);
	if ((rc = s->writer_open(s, key, 0, &sink)) < 0 ||
	    (rc = pq_writer_open(&w, sink, nodes, ncols + 1, &o)) < 0 ||
	    (rc = pq_writer_write(w, &b)) < 0)
		goto out;
	rc = pq_writer_close(w, &res);
	w = NULL;
	if (rc == 0) {
		rc = sink->commit(sink);
		sink = NULL;
	}
out:
	pq_writer_free(w);
	if (sink)
		sink->abort(sink);
	pq_write_result_free(&res);
	pq_batch_free(&b);
	for (i = 0; names && i < ncols; i++)
		loom_free(names[i]);
	loom_free(names);
	loom_free(nodes);
	return rc;
}

TEST(opening_parquet_takes_one_get)
{
	loom_store *s = NULL, *fx = NULL;
	loom_store_stats a, b;
	pq_reader *r = NULL;
	CHECK_OK(loom_store_open(&fx, LOOM_FIXTURES_DIR "/parquet/data", NULL));
	a = stats_of(fx);
	CHECK_OK(pq_reader_open(&r, fx, "alltypes_tiny_pages.parquet"));
	b = stats_of(fx);
	CHECK_INT(b.requests[LOOM_STORE_REQ_GET] - a.requests[LOOM_STORE_REQ_GET], 1);
	CHECK_INT(b.requests[LOOM_STORE_REQ_HEAD] - a.requests[LOOM_STORE_REQ_HEAD], 0);
	CHECK_INT(pq_reader_file_size(r), 454233);
	pq_reader_free(r);
	r = NULL;
	/* a footer larger than the first read: one more GET, same metadata */
	CHECK_OK(loom_store_open(&s, dir, NULL));
	CHECK_OK(write_wide_file(s, "wide.parquet", 2000));
	a = stats_of(s);
	CHECK_OK(pq_reader_open(&r, s, "wide.parquet"));
	b = stats_of(s);
	CHECK_INT(b.requests[LOOM_STORE_REQ_GET] - a.requests[LOOM_STORE_REQ_GET], 2);
	CHECK_INT(b.requests[LOOM_STORE_REQ_HEAD] - a.requests[LOOM_STORE_REQ_HEAD], 0);
	CHECK(pq_reader_file_size(r) > (64 << 10));
	CHECK_INT(pq_reader_schema(r)->num_leaves, 2000);
	CHECK_INT(pq_reader_meta(r)->num_rows, 1);
	pq_reader_free(r);
	loom_store_free(s);
	loom_store_free(fx);
}

int main(void)
{
	dir = test_mkdtemp("seam");
	snprintf(link_path, sizeof(link_path), "%s.link", dir);
	if (symlink(dir, link_path) != 0) {
		perror("symlink");
		return 2;
	}
	RUN(open_by_scheme);
	RUN(secret_rule_and_masking);
	RUN(error_classes);
	RUN(absolute_locations_map_to_keys);
	RUN(request_counts_and_helpers);
	RUN(version_1_stores_fall_back);
	RUN(opening_parquet_takes_one_get);
	unlink(link_path);
	test_rmtree(dir);
	free(dir);
	return test_summary();
}
