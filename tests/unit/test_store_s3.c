/* The S3 store against a real server (Ceph RGW: the run's shared one from
 * LOOM_RGW_ENV, or one this test starts with tests/tools/rgw.sh): every
 * method, keys with Hive '=' and spaces, create-only PUT races (one
 * winner), listing pages and batch deletes past 1,000 keys (request counts
 * asserted), multipart uploads (parts, content, and no open upload left by
 * an abort, listed with a raw ListMultipartUploads), key_of spellings,
 * credentials from a profile file, and errors that name bucket, key and
 * status without the secret. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/s3/s3_int.h"
#include "test.h"
#include "tmpdir.h"
#include "util/error.h"

static char bucket[64];
static char own_rgw[4096];

/* export K=V lines into the environment */
static int load_env(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *k = line, *eq;
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(k, "export ", 7) == 0)
			k += 7;
		if ((eq = strchr(k, '=')) != NULL) {
			*eq = '\0';
			setenv(k, eq + 1, 1);
		}
	}
	fclose(f);
	return 0;
}

static int setup_server(void)
{
	const char *env = getenv("LOOM_RGW_ENV");
	char path[4200];
	if (env && load_env(env) == 0)
		return 0;
	snprintf(own_rgw, sizeof(own_rgw), "%s", test_mkdtemp("rgw"));
	if (test_sh("bash %s/tests/tools/rgw.sh start %s >&2", LOOM_SOURCE_DIR, own_rgw) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/env", own_rgw);
	return load_env(path);
}

static loom_store *open_at(const char *root, const loom_kv *opts, size_t n)
{
	loom_store_opts o = LOOM_STORE_OPTS_INIT;
	char uri[256];
	loom_store *s = NULL;
	o.options = opts;
	o.n_options = n;
	snprintf(uri, sizeof(uri), "s3://%s/%s", bucket, root);
	if (loom_store_open(&s, uri, &o) < 0) {
		const loom_error *e = loom_error_last();
		fprintf(stderr, "open %s: %s\n", uri, e ? e->message : "?");
		return NULL;
	}
	return s;
}

static uint64_t requests(loom_store *s, loom_store_request kind)
{
	loom_store_stats st = { LOOM_STORE_STATS_VERSION, { 0 }, 0, 0, 0 };
	loom_store_stats_get(&st, s);
	return st.requests[kind];
}

static int make_bucket(void)
{
	loom_store *s;
	s3_call call;
	http_response resp = HTTP_RESPONSE_INIT;
	int rc;
	snprintf(bucket, sizeof(bucket), "loom-unit-%ld-%d", (long)time(NULL), rand() % 100000);
	if (!(s = open_at("", NULL, 0)))
		return -1;
	memset(&call, 0, sizeof(call));
	call.method = "PUT";
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_OTHER;
	rc = s3_send((s3_store *)s, &call, &resp);
	if (rc == 0 && resp.status != 200)
		rc = -1;
	http_response_dispose(&resp);
	loom_store_free(s);
	return rc;
}

TEST(objects_round_trip)
{
	loom_store *s = open_at("t/rt", NULL, 0);
	const char *key = "year=2024/p a+b%/x.parquet";
	char buf[64];
	size_t n = 0;
	uint64_t size = 0;
	loom_store_entry e;
	loom_buf all = LOOM_BUF_INIT;
	REQUIRE(s != NULL);
	CHECK_OK(s->put(s, key, "0123456789abcdef", 16, 0));
	CHECK_OK(s->stat(s, key, &e));
	CHECK_INT(e.size, 16);
	CHECK(e.mtime_ms > 1700000000000LL);
	CHECK_OK(s->read_range(s, key, 4, 6, buf, &n));
	CHECK(n == 6 && memcmp(buf, "456789", 6) == 0);
	CHECK_OK(s->read_range(s, key, 12, 10, buf, &n)); /* short at the end */
	CHECK(n == 4 && memcmp(buf, "cdef", 4) == 0);
	CHECK_OK(s->read_range(s, key, 40, 4, buf, &n));  /* past the end */
	CHECK_INT(n, 0);
	CHECK_OK(s->read_tail(s, key, 5, buf, &n, &size));
	CHECK(n == 5 && size == 16 && memcmp(buf, "bcdef", 5) == 0);
	CHECK_OK(s->read_tail(s, key, 64, buf, &n, &size)); /* more than the object */
	CHECK(n == 16 && size == 16 && memcmp(buf, "0123456789abcdef", 16) == 0);
	CHECK_OK(s->put(s, "empty", "", 0, 0));
	CHECK_OK(s->read_tail(s, "empty", 64, buf, &n, &size));
	CHECK(n == 0 && size == 0);
	CHECK_OK(loom_store_read_all(s, key, &all));
	CHECK(all.size == 16);
	CHECK_OK(s->put(s, key, "new", 3, 0)); /* overwrite */
	loom_buf_clear(&all);
	CHECK_OK(loom_store_read_all(s, key, &all));
	CHECK(all.size == 3 && memcmp(all.ptr, "new", 3) == 0);
	CHECK_ERR(s->put(s, key, "x", 1, LOOM_PUT_IF_ABSENT), LOOM_EEXISTS);
	CHECK(strstr(loom_error_last()->message, "412") != NULL);
	CHECK_OK(s->remove(s, key));
	CHECK_OK(s->remove(s, key)); /* missing is fine */
	CHECK_ERR(s->stat(s, key, &e), LOOM_ENOTFOUND);
	CHECK(strstr(loom_error_last()->message, bucket) && strstr(loom_error_last()->message, "404") &&
	      strstr(loom_error_last()->message, "t/rt/year=2024/p a+b%/x.parquet"));
	CHECK_ERR(s->read_range(s, "nope", 0, 4, buf, &n), LOOM_ENOTFOUND);
	CHECK(strstr(loom_error_last()->message, "NoSuchKey") != NULL);
	CHECK_ERR(s->put(s, "../escape", "x", 1, 0), LOOM_EINVAL);
	loom_buf_dispose(&all);
	loom_store_free(s);
}

typedef struct racer {
	loom_store *s;
	int id, rc;
} racer;

static void *race(void *arg)
{
	racer *r = arg;
	char body[32];
	snprintf(body, sizeof(body), "writer %d", r->id);
	r->rc = r->s->put(r->s, "_delta_log/00000000000000000001.json", body, strlen(body),
	                  LOOM_PUT_IF_ABSENT);
	return NULL;
}

TEST(create_only_put_has_one_winner)
{
	loom_store *s = open_at("t/race", NULL, 0);
	racer r[16];
	pthread_t th[16];
	loom_buf got = LOOM_BUF_INIT;
	int i, wins = 0, exists = 0, winner = -1;
	char want[32];
	REQUIRE(s != NULL);
	for (i = 0; i < 16; i++) {
		r[i].s = s;
		r[i].id = i;
		pthread_create(&th[i], NULL, race, &r[i]);
	}
	for (i = 0; i < 16; i++) {
		pthread_join(th[i], NULL);
		if (r[i].rc == 0)
			wins++, winner = i;
		else if (r[i].rc == LOOM_EEXISTS)
			exists++;
	}
	CHECK_INT(wins, 1);
	CHECK_INT(exists, 15);
	CHECK_OK(loom_store_read_all(s, "_delta_log/00000000000000000001.json", &got));
	snprintf(want, sizeof(want), "writer %d", winner);
	CHECK(got.ptr && strcmp(got.ptr, want) == 0);
	loom_buf_dispose(&got);
	loom_store_free(s);
}

typedef struct filler {
	loom_store *s;
	int from, to, rc;
} filler;

static void *fill(void *arg)
{
	filler *f = arg;
	int i;
	for (i = f->from; i < f->to && f->rc == 0; i++) {
		char key[64];
		snprintf(key, sizeof(key), "many/%s/f%05d", i % 10 == 0 ? "sub" : "top", i);
		f->rc = f->s->put(f->s, key, "x", 1, 0);
	}
	return NULL;
}

typedef struct collected {
	int n, dirs, sorted, stop_after;
	char last[128];
	char **keys;
} collected;

static int collect(const loom_store_entry *e, void *payload)
{
	collected *c = payload;
	if (c->n && strcmp(c->last, e->key) >= 0)
		c->sorted = 0;
	snprintf(c->last, sizeof(c->last), "%s", e->key);
	if (c->keys)
		c->keys[c->n] = strdup(e->key);
	c->n++;
	c->dirs += e->is_dir;
	return c->stop_after && c->n >= c->stop_after ? 1 : 0;
}

TEST(listing_pages_and_batch_deletes)
{
	loom_store *s = open_at("t/list", NULL, 0);
	filler f[8];
	pthread_t th[8];
	collected c;
	char **keys = calloc(1100, sizeof(char *));
	int *results = calloc(1101, sizeof(int));
	uint64_t lists, deletes;
	int i;
	REQUIRE(s != NULL && keys && results);
	for (i = 0; i < 8; i++) {
		f[i].s = s;
		f[i].from = i * 132;
		f[i].to = i == 7 ? 1050 : (i + 1) * 132;
		f[i].rc = 0;
		pthread_create(&th[i], NULL, fill, &f[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(f[i].rc, 0);
	}
	/* recursive: 1,050 keys in two pages */
	memset(&c, 0, sizeof(c));
	c.sorted = 1;
	c.keys = keys;
	lists = requests(s, LOOM_STORE_REQ_LIST);
	CHECK_OK(s->list(s, "many/", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	CHECK_INT(c.n, 1050);
	CHECK(c.sorted);
	CHECK_INT(requests(s, LOOM_STORE_REQ_LIST) - lists, 2);
	/* a callback that stops: no further page */
	memset(&c, 0, sizeof(c));
	c.sorted = 1;
	c.stop_after = 10;
	lists = requests(s, LOOM_STORE_REQ_LIST);
	CHECK_INT(s->list(s, "many/", NULL, LOOM_LIST_RECURSIVE, collect, &c), 1);
	CHECK_INT(requests(s, LOOM_STORE_REQ_LIST) - lists, 1);
	/* start_after is exclusive */
	memset(&c, 0, sizeof(c));
	c.sorted = 1;
	CHECK_OK(s->list(s, "many/top/", "many/top/f01048", LOOM_LIST_RECURSIVE, collect, &c));
	CHECK(c.n == 1 && strcmp(c.last, "many/top/f01049") == 0);
	/* one level: the sub-directory once, with the top-level files, in order */
	memset(&c, 0, sizeof(c));
	c.sorted = 1;
	CHECK_OK(s->list(s, "many/", NULL, 0, collect, &c));
	CHECK(c.n == 2 && c.dirs == 2 && c.sorted);
	/* a missing prefix lists nothing */
	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "nothing/", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	CHECK_INT(c.n, 0);
	/* delete them all, and a missing key, in batches of 1,000 */
	keys[1050] = strdup("many/missing");
	deletes = requests(s, LOOM_STORE_REQ_DELETE);
	CHECK_OK(loom_store_remove_many(results, s, (const char *const *)keys, 1051));
	CHECK_INT(requests(s, LOOM_STORE_REQ_DELETE) - deletes, 2);
	for (i = 0; i < 1051; i++)
		CHECK_INT(results[i], 0);
	memset(&c, 0, sizeof(c));
	CHECK_OK(s->list(s, "many/", NULL, LOOM_LIST_RECURSIVE, collect, &c));
	CHECK_INT(c.n, 0);
	for (i = 0; i < 1051; i++)
		free(keys[i]);
	free(keys);
	free(results);
	loom_store_free(s);
}

/* Open multipart uploads in the bucket, by a raw ListMultipartUploads. */
static int open_uploads(loom_store *s)
{
	loom_kv q[1] = { { "uploads", "" } };
	http_response resp = HTTP_RESPONSE_INIT;
	s3_call call;
	const char *p;
	int n = -1;
	memset(&call, 0, sizeof(call));
	call.method = "GET";
	call.query = q;
	call.n_query = 1;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_LIST;
	if (s3_send((s3_store *)s, &call, &resp) == 0 && resp.status == 200) {
		for (n = 0, p = resp.body.ptr; p && (p = strstr(p, "<UploadId>")); p++)
			n++;
	}
	http_response_dispose(&resp);
	return n;
}

static void write_pattern(loom_store_writer *w, size_t total, int *rc)
{
	static char chunk[300007];
	size_t done = 0, i;
	for (i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 7 + 3);
	while (done < total && *rc == 0) {
		size_t n = total - done < sizeof(chunk) ? total - done : sizeof(chunk);
		*rc = w->write(w, chunk, n);
		done += n;
	}
}

TEST(multipart_uploads)
{
	loom_kv opts[] = { { "multipart_part_size", "5242880" }, { "multipart_concurrency", "2" } };
	loom_store *s = open_at("t/mp", opts, 2);
	loom_store_writer *w;
	loom_buf got = LOOM_BUF_INIT;
	size_t total = (size_t)13 << 20, i;
	uint64_t puts, others;
	int rc = 0, ok = 1;
	REQUIRE(s != NULL);
	/* a data file of 13 MiB: three parts */
	puts = requests(s, LOOM_STORE_REQ_PUT);
	others = requests(s, LOOM_STORE_REQ_OTHER);
	CHECK_OK(s->writer_open(s, "part-0.parquet", LOOM_PUT_IF_ABSENT, &w));
	write_pattern(w, total, &rc);
	CHECK_OK(rc);
	CHECK_OK(w->commit(w));
	CHECK_INT(requests(s, LOOM_STORE_REQ_PUT) - puts, 3);
	CHECK_INT(requests(s, LOOM_STORE_REQ_OTHER) - others, 2); /* create + complete */
	CHECK_OK(loom_store_read_all(s, "part-0.parquet", &got));
	CHECK_INT(got.size, total);
	for (i = 0; i < got.size && ok; i++)
		ok = got.ptr[i] == (char)((i % 300007) * 7 + 3);
	CHECK(ok);
	/* a log file is one create-only PUT whatever its size */
	puts = requests(s, LOOM_STORE_REQ_PUT);
	others = requests(s, LOOM_STORE_REQ_OTHER);
	CHECK_OK(s->writer_open(s, "_delta_log/00000000000000000009.checkpoint.parquet",
	                        LOOM_PUT_IF_ABSENT, &w));
	write_pattern(w, (size_t)11 << 20, &rc);
	CHECK_OK(w->commit(w));
	CHECK_INT(requests(s, LOOM_STORE_REQ_PUT) - puts, 1);
	CHECK_INT(requests(s, LOOM_STORE_REQ_OTHER) - others, 0);
	CHECK_OK(s->writer_open(s, "_delta_log/00000000000000000009.checkpoint.parquet",
	                        LOOM_PUT_IF_ABSENT, &w));
	write_pattern(w, 100, &rc);
	CHECK_ERR(w->commit(w), LOOM_EEXISTS);
	/* abort after two parts: no upload left open, no object */
	CHECK_OK(s->writer_open(s, "part-1.parquet", 0, &w));
	write_pattern(w, (size_t)11 << 20, &rc);
	CHECK_OK(rc);
	w->abort(w);
	CHECK_INT(open_uploads(s), 0);
	{
		loom_store_entry e;
		CHECK_ERR(s->stat(s, "part-1.parquet", &e), LOOM_ENOTFOUND);
	}
	/* small: one PUT */
	puts = requests(s, LOOM_STORE_REQ_PUT);
	CHECK_OK(s->writer_open(s, "small.parquet", 0, &w));
	write_pattern(w, 1000, &rc);
	CHECK_OK(w->commit(w));
	CHECK_INT(requests(s, LOOM_STORE_REQ_PUT) - puts, 1);
	loom_buf_dispose(&got);
	loom_store_free(s);
}

TEST(key_of_spellings)
{
	loom_store *s = open_at("lake/t", NULL, 0);
	char loc[256];
	const char *key;
	REQUIRE(s != NULL);
	CHECK_STR(loom_store_root(s), (snprintf(loc, sizeof(loc), "s3://%s/lake/t", bucket), loc));
	snprintf(loc, sizeof(loc), "s3://%s/lake/t/p=1/x.parquet", bucket);
	CHECK_OK(loom_store_key_of(&key, s, loc));
	CHECK_STR(key, "p=1/x.parquet");
	snprintf(loc, sizeof(loc), "S3A://%s/lake/t/x.parquet", bucket);
	CHECK_OK(loom_store_key_of(&key, s, loc));
	CHECK_STR(key, "x.parquet");
	snprintf(loc, sizeof(loc), "s3://%s/lake/t2/x.parquet", bucket);
	CHECK_ERR(loom_store_key_of(&key, s, loc), LOOM_ENOTFOUND);
	CHECK_ERR(loom_store_key_of(&key, s, "s3://otherbucket/lake/t/x.parquet"), LOOM_ENOTFOUND);
	snprintf(loc, sizeof(loc), "s3://%s/lake/t/../x", bucket);
	CHECK_ERR(loom_store_key_of(&key, s, loc), LOOM_ENOTFOUND);
	CHECK_OK(loom_store_key_of(&key, s, "rel/x.parquet"));
	loom_store_free(s);
}

TEST(credentials_and_errors)
{
	char *dir = test_mkdtemp("s3creds"), file[4200], uri[128];
	const char *ak = getenv("AWS_ACCESS_KEY_ID"), *sk = getenv("AWS_SECRET_ACCESS_KEY");
	const char *ep = getenv("AWS_ENDPOINT_URL");
	loom_store_opts o = LOOM_STORE_OPTS_INIT;
	loom_store *s = NULL;
	loom_store_entry e;
	FILE *f;
	REQUIRE(ak && sk && ep);
	snprintf(uri, sizeof(uri), "s3://%s/t/creds", bucket);
	/* a profile file, options only (no environment) */
	snprintf(file, sizeof(file), "%s/credentials", dir);
	f = fopen(file, "w");
	REQUIRE(f != NULL);
	fprintf(f, "[default]\naws_access_key_id = WRONG\naws_secret_access_key = WRONGWRONG\n\n"
	           "[loomtest]\naws_access_key_id = %s\naws_secret_access_key = %s\n", ak, sk);
	fclose(f);
	{
		loom_kv opts[] = { { "AWS_SHARED_CREDENTIALS_FILE", file }, { "aws_profile", "loomtest" },
			               { "aws_endpoint_url", ep }, { "AWS_ALLOW_HTTP", "true" },
			               { "AWS_CONFIG_FILE", "/nonexistent" } };
		o.options = opts;
		o.n_options = 5;
		o.ignore_env = 1;
		CHECK_OK(loom_store_open(&s, uri, &o));
		CHECK_OK(s->put(s, "x", "1", 1, 0));
		loom_store_free(s);
		s = NULL;
		opts[1].value = "default"; /* wrong keys: 403, named, nothing written */
		CHECK_OK(loom_store_open(&s, uri, &o));
		CHECK_ERR(s->put(s, "y", "1", 1, 0), LOOM_EPERM);
		CHECK(strstr(loom_error_last()->message, "403") && strstr(loom_error_last()->message, bucket) &&
		      strstr(loom_error_last()->message, "t/creds/y"));
		CHECK(strstr(loom_error_last()->message, "WRONGWRONG") == NULL);
		loom_store_free(s);
		s = NULL;
	}
	{
		/* plain http needs AWS_ALLOW_HTTP; no credentials at all is named */
		loom_kv opts[] = { { "AWS_ACCESS_KEY_ID", ak }, { "AWS_SECRET_ACCESS_KEY", sk },
			               { "AWS_ENDPOINT_URL", ep } };
		o.options = opts;
		o.n_options = 3;
		CHECK_ERR(loom_store_open(&s, uri, &o), LOOM_EINVAL);
		CHECK(strstr(loom_error_last()->message, "AWS_ALLOW_HTTP") != NULL);
		CHECK(strstr(loom_error_last()->message, sk) == NULL);
		o.n_options = 0;
		setenv("HOME", dir, 1);
		/* not this machine's metadata service (s3_remote_creds.sh tests it) */
		setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
		CHECK_ERR(loom_store_open(&s, uri, &o), LOOM_EPERM);
		CHECK(strstr(loom_error_last()->message, "no AWS credentials") != NULL);
	}
	{
		/* a missing bucket: 404 NoSuchBucket, named */
		loom_store_opts eo = LOOM_STORE_OPTS_INIT;
		CHECK_OK(loom_store_open(&s, "s3://no-such-bucket-loom/t", &eo));
		CHECK_ERR(s->stat(s, "x", &e), LOOM_ENOTFOUND);
		CHECK(strstr(loom_error_last()->message, "no-such-bucket-loom") != NULL);
		loom_store_free(s);
	}
	test_sh("rm -rf %s", dir);
	free(dir);
}

int main(void)
{
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	if (setup_server() != 0 || make_bucket() != 0) {
		fprintf(stderr, "no S3 server (Ceph RGW) to test against\n");
		return 1;
	}
	RUN(objects_round_trip);
	RUN(create_only_put_has_one_winner);
	RUN(listing_pages_and_batch_deletes);
	RUN(multipart_uploads);
	RUN(key_of_spellings);
	RUN(credentials_and_errors);
	if (own_rgw[0])
		test_sh("bash %s/tests/tools/rgw.sh stop %s", LOOM_SOURCE_DIR, own_rgw);
	return test_summary();
}
