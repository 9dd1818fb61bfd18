/* The HTTP layer of the object-store backends against a loopback server
 * that misbehaves on request (tests/tools/http_test_server.py): bounded
 * retries with backoff, transient classification, connection reuse
 * (connections counted by the server), streaming bodies both ways, TLS
 * verification, error messages that name what failed and never carry a
 * secret. Real object stores are the S3 and Azure backends' tests. */
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include "store/http/http.h"
#include "test.h"
#include "tmpdir.h"
#include "util/error.h"

static pid_t server_pid = -1, tls_pid = -1;
static int port, tls_port;

/* Start the server (with TLS when cert/key are given); its port. */
static int start_server(pid_t *pid, const char *cert, const char *key)
{
	int fds[2];
	char line[32];
	size_t used;
	ssize_t n = 0;
	if (pipe(fds) != 0)
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		char script[4096];
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive the test */
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		snprintf(script, sizeof(script), "%s/tests/tools/http_test_server.py", LOOM_SOURCE_DIR);
		if (cert)
			execlp("python3", "python3", script, "--tls", cert, key, (char *)NULL);
		else
			execlp("python3", "python3", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* the port, up to its newline (it may come in more than one write) */
	for (used = 0; used + 1 < sizeof(line) && !memchr(line, '\n', used); used += (size_t)n) {
		n = read(fds[0], line + used, sizeof(line) - 1 - used);
		if (n <= 0)
			break;
	}
	close(fds[0]);
	line[used] = '\0';
	return used ? atoi(line) : -1;
}

static void stop_servers(void)
{
	if (server_pid > 0)
		kill(server_pid, SIGTERM), waitpid(server_pid, NULL, 0);
	if (tls_pid > 0)
		kill(tls_pid, SIGTERM), waitpid(tls_pid, NULL, 0);
	server_pid = tls_pid = -1;
}

static http_client *client_with(unsigned int attempts, int64_t stall_ms, store_counters *counters,
                                const loom_secrets *secrets)
{
	http_client_opts o;
	http_client *c = NULL;
	http_client_opts_default(&o);
	o.retry.max_attempts = attempts;
	o.retry.base_delay_ms = 1;
	o.retry.max_delay_ms = 20;
	o.stall_timeout_ms = stall_ms;
	o.connect_timeout_ms = 2000;
	o.counters = counters;
	o.secrets = secrets;
	if (http_client_new(&c, &o) < 0)
		return NULL;
	return c;
}

static void url_of(char *out, size_t cap, const char *path)
{
	snprintf(out, cap, "http://127.0.0.1:%d%s", port, path);
}

static int get(http_client *c, const char *path, http_response *rs)
{
	char url[512];
	http_request rq = HTTP_REQUEST_INIT;
	url_of(url, sizeof(url), path);
	rq.url = url;
	rq.target = "b";
	rq.key = "k";
	return http_send(c, &rq, rs);
}

/* The server's counters: connections that sent a request, requests. */
static void server_stats(long *connections, long *requests)
{
	http_client *c = client_with(1, 5000, NULL, NULL);
	http_response rs = HTTP_RESPONSE_INIT;
	json_t *j = NULL;
	*connections = *requests = -1;
	if (c && get(c, "/_stats", &rs) == 0 && rs.status == 200 &&
	    (j = json_loadb(rs.body.ptr, rs.body.size, 0, NULL))) {
		*connections = (long)json_integer_value(json_object_get(j, "connections"));
		*requests = (long)json_integer_value(json_object_get(j, "requests"));
	}
	json_decref(j);
	http_response_dispose(&rs);
	http_client_free(c);
}

TEST(sequential_requests_share_one_connection)
{
	http_client *c = client_with(3, 5000, NULL, NULL);
	long c0, r0, c1, r1;
	int i;
	REQUIRE(c != NULL);
	server_stats(&c0, &r0);
	for (i = 0; i < 20; i++) {
		http_response rs = HTTP_RESPONSE_INIT;
		char path[64];
		snprintf(path, sizeof(path), "/ok/seq%d", i);
		CHECK_OK(get(c, path, &rs));
		CHECK_INT(rs.status, 200);
		CHECK(rs.body.size == 2 && memcmp(rs.body.ptr, "ok", 2) == 0);
		http_response_dispose(&rs);
	}
	server_stats(&c1, &r1);
	CHECK_INT(r1 - r0, 20);
	CHECK_INT(c1 - c0, 1);
	http_client_free(c);
}

typedef struct worker {
	http_client *c;
	int id, ok;
} worker;

static void *hammer(void *arg)
{
	worker *w = arg;
	int i;
	for (i = 0; i < 25; i++) {
		http_response rs = HTTP_RESPONSE_INIT;
		char path[64];
		snprintf(path, sizeof(path), "/ok/t%d-%d", w->id, i);
		if (get(w->c, path, &rs) == 0 && rs.status == 200)
			w->ok++;
		http_response_dispose(&rs);
	}
	return NULL;
}

/* Workers share one client: every request succeeds, and connections are
 * reused (at most one per request in flight). */
TEST(threads_share_a_client_and_its_connections)
{
	store_counters counters;
	loom_store_stats st;
	pthread_t th[4];
	worker w[4];
	long c0, r0, c1, r1;
	int i;
	http_client *c;
	store_counters_init(&counters);
	c = client_with(3, 5000, &counters, NULL);
	REQUIRE(c != NULL);
	server_stats(&c0, &r0);
	for (i = 0; i < 4; i++) {
		w[i].c = c;
		w[i].id = i;
		w[i].ok = 0;
		pthread_create(&th[i], NULL, hammer, &w[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(w[i].ok, 25);
	}
	server_stats(&c1, &r1);
	CHECK_INT(r1 - r0, 100);
	CHECK(c1 - c0 >= 1 && c1 - c0 <= 4);
	st.version = LOOM_STORE_STATS_VERSION;
	store_counters_read(&counters, &st);
	CHECK_INT(st.requests[LOOM_STORE_REQ_GET], 100);
	CHECK_INT(st.retries, 0);
	CHECK_INT(st.bytes_read, 200);
	http_client_free(c);
}

TEST(transient_statuses_are_retried_and_bounded)
{
	store_counters counters;
	loom_store_stats st;
	http_response rs = HTTP_RESPONSE_INIT;
	long c0, r0, c1, r1;
	http_client *c;
	int rc;
	store_counters_init(&counters);
	c = client_with(4, 5000, &counters, NULL);
	REQUIRE(c != NULL);
	/* recovers: two 503 SlowDown, then 200 */
	CHECK_OK(get(c, "/status/503/2/recover", &rs));
	CHECK_INT(rs.status, 200);
	CHECK_INT(rs.attempts, 3);
	http_response_dispose(&rs);
	/* never recovers: exactly max_attempts requests reach the server */
	server_stats(&c0, &r0);
	CHECK_OK(get(c, "/status/503/1000/forever", &rs));
	server_stats(&c1, &r1);
	CHECK_INT(rs.status, 503);
	CHECK_INT(rs.attempts, 4);
	CHECK_INT(r1 - r0, 4);
	{
		http_request rq = HTTP_REQUEST_INIT;
		rq.target = "b";
		rq.key = "k";
		rc = http_status_error(c, &rq, &rs, 0);
	}
	CHECK_INT(rc, LOOM_ETRANSIENT);
	CHECK(loom_error_is_transient(rc));
	CHECK_STR(loom_error_last()->message,
	          "GET bucket \"b\" key \"k\": HTTP 503 (SlowDown: Please reduce your request rate.), "
	          "after 4 attempts");
	http_response_dispose(&rs);
	st.version = LOOM_STORE_STATS_VERSION;
	store_counters_read(&counters, &st);
	CHECK_INT(st.requests[LOOM_STORE_REQ_GET], 7);
	CHECK_INT(st.retries, 5);
	/* a request that is not idempotent is sent once */
	{
		char url[512];
		http_request rq = HTTP_REQUEST_INIT;
		url_of(url, sizeof(url), "/status/503/5/post");
		rq.method = "POST";
		rq.url = url;
		rq.idempotent = 0;
		rq.kind = LOOM_STORE_REQ_OTHER;
		CHECK_OK(http_send(c, &rq, &rs));
		CHECK_INT(rs.status, 503);
		CHECK_INT(rs.attempts, 1);
		http_response_dispose(&rs);
	}
	/* a status that will not change is not retried */
	CHECK_OK(get(c, "/status/404/1000/missing", &rs));
	CHECK_INT(rs.attempts, 1);
	{
		http_request rq = HTTP_REQUEST_INIT;
		rq.target = "b";
		rq.key = "k";
		CHECK_INT(http_status_error(c, &rq, &rs, 0), LOOM_ENOTFOUND);
		rs.status = 403;
		CHECK_INT(http_status_error(c, &rq, &rs, 0), LOOM_EPERM);
		rs.status = 412;
		CHECK_INT(http_status_error(c, &rq, &rs, 0), LOOM_EEXISTS);
		rs.status = 400;
		CHECK_INT(http_status_error(c, &rq, &rs, 0), LOOM_EINVAL);
		CHECK_INT(http_status_error(c, &rq, &rs, LOOM_ECONFLICT), LOOM_ECONFLICT);
	}
	http_response_dispose(&rs);
	http_client_free(c);
}

TEST(resets_truncations_and_timeouts_are_transient)
{
	http_client *c = client_with(3, 1000, NULL, NULL);
	http_response rs = HTTP_RESPONSE_INIT;
	struct timespec t0, t1;
	int rc;
	REQUIRE(c != NULL);
	/* curl itself re-sends once on a reused connection that dies at once,
	 * so two resets may take one attempt of ours or two */
	CHECK_OK(get(c, "/reset/2/r1", &rs));
	CHECK_INT(rs.status, 200);
	CHECK(rs.attempts >= 2 && rs.attempts <= 3);
	rc = get(c, "/reset/100/r2", &rs);
	CHECK_INT(rc, LOOM_ETRANSIENT);
	CHECK(strstr(loom_error_last()->message, "GET bucket \"b\" key \"k\": ") != NULL);
	CHECK(strstr(loom_error_last()->message, "after 3 attempts") != NULL);
	CHECK_INT(rs.status, 0);

	CHECK_OK(get(c, "/truncate/1/t1", &rs));
	CHECK_INT(rs.status, 200);
	CHECK_INT(rs.body.size, 100);
	CHECK_INT(rs.attempts, 2);
	CHECK_INT(get(c, "/truncate/100/t2", &rs), LOOM_ETRANSIENT);
	CHECK(strstr(loom_error_last()->message, "cut short") != NULL);

	/* a server that stalls past the stall timeout (1 s here) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(get(c, "/delay/2500/100/d1", &rs), LOOM_ETRANSIENT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(strstr(loom_error_last()->message, "timed out") != NULL);
	CHECK_INT(rs.attempts, 3);
	CHECK(t1.tv_sec - t0.tv_sec < 9);   /* 3 x ~1-2 s, not 3 x 2.5 s + more */
	http_response_dispose(&rs);
	http_client_free(c);
}

TEST(connection_refused_is_retried_even_when_not_idempotent)
{
	http_client *c = client_with(3, 5000, NULL, NULL);
	http_response rs = HTTP_RESPONSE_INIT;
	http_request rq = HTTP_REQUEST_INIT;
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	char url[256];
	int fd = socket(AF_INET, SOCK_STREAM, 0), closed_port;
	REQUIRE(c != NULL && fd >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	REQUIRE(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	REQUIRE(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	closed_port = ntohs(a.sin_port);
	close(fd); /* nothing listens there now */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/lake/t?X-Amz-Signature=deadbeef0123",
	         closed_port);
	rq.method = "PUT";
	rq.url = url;
	rq.body = "x";
	rq.body_len = 1;
	rq.idempotent = 0;   /* never sent: safe to try again */
	rq.kind = LOOM_STORE_REQ_PUT;
	rq.target = "lake";
	rq.key = "t/_delta_log/00000000000000000001.json";
	CHECK_INT(http_send(c, &rq, &rs), LOOM_ETRANSIENT);
	CHECK_INT(rs.attempts, 3);
	CHECK(strstr(loom_error_last()->message,
	             "PUT bucket \"lake\" key \"t/_delta_log/00000000000000000001.json\": cannot "
	             "connect at http://127.0.0.1:") != NULL);
	CHECK(strstr(loom_error_last()->message, "deadbeef0123") == NULL);
	http_response_dispose(&rs);
	http_client_free(c);
}

typedef struct sink {
	uint8_t *buf;
	size_t cap;
	uint64_t max_end;
	int calls_at_zero;
} sink;

static int to_sink(void *ctx, uint64_t offset, const void *data, size_t len)
{
	sink *s = ctx;
	if (offset + len > s->cap)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_STORE, "more bytes than asked for");
	if (offset == 0)
		s->calls_at_zero++;
	memcpy(s->buf + offset, data, len);
	if (offset + len > s->max_end)
		s->max_end = offset + len;
	return 0;
}

static int64_t from_pattern(void *ctx, uint64_t offset, void *dst, size_t len)
{
	size_t i;
	(void)ctx;
	for (i = 0; i < len; i++)
		((uint8_t *)dst)[i] = (uint8_t)((offset + i) % 241);
	return (int64_t)len;
}

TEST(streaming_bodies_both_ways)
{
	http_client *c = client_with(3, 5000, NULL, NULL);
	http_response rs = HTTP_RESPONSE_INIT;
	http_request rq = HTTP_REQUEST_INIT;
	loom_kv range = { "Range", "bytes=-1000" };
	uint8_t buf[1000];
	sink s = { buf, sizeof(buf), 0, 0 };
	char url[512];
	size_t i;
	int ok = 1;
	REQUIRE(c != NULL);
	/* a suffix range lands in the caller's memory; nothing is kept */
	url_of(url, sizeof(url), "/bytes/100000/suffix");
	rq.url = url;
	rq.headers = &range;
	rq.n_headers = 1;
	rq.write_body = to_sink;
	rq.write_ctx = &s;
	CHECK_OK(http_send(c, &rq, &rs));
	CHECK_INT(rs.status, 206);
	CHECK_INT(s.max_end, 1000);
	CHECK_INT(rs.body.size, 0);
	for (i = 0; i < 1000; i++)
		ok &= buf[i] == (uint8_t)((99000 + i) % 251);
	CHECK(ok);
	{
		char cr[64];
		CHECK(http_header(&rs, "content-range", cr, sizeof(cr)));
		CHECK_STR(cr, "bytes 99000-99999/100000");
	}
	/* a sink that refuses stops the request with its own error, unretried */
	url_of(url, sizeof(url), "/bytes/5000/toolong");
	rq.n_headers = 0;
	CHECK_INT(http_send(c, &rq, &rs), LOOM_ECORRUPT);
	CHECK_INT(rs.attempts, 1);
	/* a retried download is delivered again from offset 0 */
	memset(&s, 0, sizeof(s));
	{
		uint8_t b100[100];
		s.buf = b100;
		s.cap = sizeof(b100);
		url_of(url, sizeof(url), "/truncate/1/sinkretry");
		CHECK_OK(http_send(c, &rq, &rs));
		CHECK_INT(rs.attempts, 2);
		CHECK_INT(s.calls_at_zero, 2);
		CHECK_INT(s.max_end, 100);
		CHECK(b100[0] == 'x' && b100[99] == 'x');
	}
	/* an upload streamed from a callback: 1 MiB arrives whole */
	{
		http_request up = HTTP_REQUEST_INIT;
		url_of(url, sizeof(url), "/echo/upload");
		up.method = "PUT";
		up.url = url;
		up.read_body = from_pattern;
		up.body_len = (size_t)1 << 20;
		up.kind = LOOM_STORE_REQ_PUT;
		CHECK_OK(http_send(c, &up, &rs));
		CHECK_INT(rs.status, 200);
		CHECK(rs.body.ptr && strncmp(rs.body.ptr, "PUT\n1048576\n", 12) == 0);
		/* the fixed headers: no Expect: 100-continue */
		CHECK(rs.body.ptr && !strstr(rs.body.ptr, "Expect:"));
	}
	http_response_dispose(&rs);
	http_client_free(c);
}

/* Nothing secret reaches a message: not the URL's signature, SAS or token
 * parameters, not an Authorization header, not a value of the client's
 * secret set - even when the service echoes them in its error body. */
TEST(messages_carry_no_secret)
{
	loom_secrets secrets = LOOM_SECRETS_INIT;
	http_client *c;
	http_response rs = HTTP_RESPONSE_INIT;
	http_request rq = HTTP_REQUEST_INIT;
	loom_kv auth[2] = { { "Authorization", "AWS4-HMAC-SHA256 Credential=AKIDSECRETID/20150830/"
	                                       "us-east-1/s3/aws4_request, Signature=f00dfeed" },
		                { "x-amz-security-token", "SESSIONTOKEN42" } };
	char url[512];
	const char *m;
	int rc;
	REQUIRE(loom_secrets_add(&secrets, "WJALRXUTNFEMI-KEY") == 0);
	c = client_with(2, 5000, NULL, &secrets);
	loom_secrets_dispose(&secrets); /* the client keeps its own copy */
	REQUIRE(c != NULL);
	url_of(url, sizeof(url), "/error/403/sig?X-Amz-Signature=SIGVALUE123&sig=AZSAS456"
	                         "&X-Amz-Security-Token=TOKEN789&note=WJALRXUTNFEMI-KEY&x-id=GetObject");
	rq.url = url;
	rq.headers = auth;
	rq.n_headers = 2;
	rq.target = "lake";
	rq.key = "t/x.parquet";
	CHECK_OK(http_send(c, &rq, &rs));
	CHECK_INT(rs.status, 403);
	rc = http_status_error(c, &rq, &rs, 0);
	CHECK_INT(rc, LOOM_EPERM);
	m = loom_error_last()->message;
	CHECK(strstr(m, "GET bucket \"lake\" key \"t/x.parquet\": HTTP 403 (SignatureDoesNotMatch: "
	                "The signature does not match.") == m);
	CHECK(!strstr(m, "SIGVALUE123") && !strstr(m, "AZSAS456") && !strstr(m, "TOKEN789"));
	CHECK(!strstr(m, "WJALRXUTNFEMI-KEY") && !strstr(m, "AKIDSECRETID") && !strstr(m, "f00dfeed"));
	CHECK(!strstr(m, "SESSIONTOKEN42") && !strstr(m, "StringToSign") && !strstr(m, "r-1"));
	CHECK(strstr(m, "x-id=GetObject") != NULL); /* what is not secret stays readable */
	http_response_dispose(&rs);
	/* a JSON error (an OAuth token endpoint) */
	CHECK_OK(get(c, "/json-error/401/j", &rs));
	CHECK_INT(http_status_error(c, &rq, &rs, 0), LOOM_EPERM);
	CHECK(strstr(loom_error_last()->message,
	             "HTTP 401 (invalid_client: AADSTS7000215: Invalid client secret provided.)") != NULL);
	http_response_dispose(&rs);
	http_client_free(c);
}

/* HTTPS verifies the server: a self-signed certificate is refused, once,
 * with a message saying why. */
TEST(tls_verifies_the_server)
{
	char *dir = test_mkdtemp("tls"), cert[4200], key[4200], url[256];
	http_client *c = client_with(3, 5000, NULL, NULL);
	http_response rs = HTTP_RESPONSE_INIT;
	http_request rq = HTTP_REQUEST_INIT;
	REQUIRE(c != NULL);
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	if (test_sh("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
	            "-addext subjectAltName=IP:127.0.0.1 -keyout '%s' -out '%s' 2>/dev/null",
	            key, cert) != 0) {
		TEST_FAIL_AT("openssl could not make a test certificate");
		goto out;
	}
	tls_port = start_server(&tls_pid, cert, key);
	REQUIRE(tls_port > 0);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d/ok/tls", tls_port);
	rq.url = url;
	rq.target = "b";
	CHECK_INT(http_send(c, &rq, &rs), LOOM_EIO);
	CHECK_INT(rs.attempts, 1);
	CHECK(strstr(loom_error_last()->message, "certificate") != NULL);
out:
	http_response_dispose(&rs);
	http_client_free(c);
	test_sh("rm -rf '%s'", dir);
	free(dir);
}

TEST(client_options_from_storage_options_and_env)
{
	loom_kv kv[] = { { "MAX_RETRIES", "2" }, { "retry_base_delay", "5ms" }, { "Timeout", "1.5m" },
		             { "connect_timeout", "250ms" } };
	loom_kv bad[] = { { "max_retries", "lots" } };
	loom_kv bad_secret[] = { { "timeout", "x" }, { "my_token", "sekrit-value" } };
	store_config cfg = { "s3://b/t", kv, 4, 1 };
	http_client_opts o;
	uint64_t v;
	CHECK_OK(http_client_opts_from_config(&o, &cfg));
	CHECK_INT(o.retry.max_attempts, 3);
	CHECK_INT(o.retry.base_delay_ms, 5);
	CHECK_INT(o.retry.max_delay_ms, RETRY_DEFAULT_MAX_MS);
	CHECK_INT(o.stall_timeout_ms, 90000);
	CHECK_INT(o.connect_timeout_ms, 250);
	/* unset options fall back to the environment, unless told not to */
	setenv("LOOM_MAX_RETRIES", "7", 1);
	cfg.options = NULL;
	cfg.n_options = 0;
	CHECK_OK(http_client_opts_from_config(&o, &cfg));
	CHECK_INT(o.retry.max_attempts, 8);
	cfg.use_env = 0;
	CHECK_OK(http_client_opts_from_config(&o, &cfg));
	CHECK_INT(o.retry.max_attempts, RETRY_DEFAULT_RETRIES + 1);
	unsetenv("LOOM_MAX_RETRIES");
	cfg.options = bad;
	cfg.n_options = 1;
	CHECK_ERR(http_client_opts_from_config(&o, &cfg), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "s3://b/t: option max_retries is \"lots\"") != NULL);
	/* a bad value of a secret-named option is not shown */
	cfg.options = bad_secret;
	cfg.n_options = 2;
	CHECK_ERR(store_opt_uint(&cfg, "my_token", NULL, 0, 10, &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "my_token") != NULL);
	CHECK(strstr(loom_error_last()->message, "sekrit-value") == NULL);
}

/* Sizes in options and the environment take the units of every other size
 * (loom_size_parse): "5MiB" as well as 5242880 (issue 34). */
TEST(size_options_take_units)
{
	loom_kv kv[] = { { "multipart_part_size", "5MiB" }, { "other_size", "1.5 GB" },
		             { "bad_size", "5 parsecs" }, { "big_size", "6GiB" }, { "my_secret_size", "x1" } };
	store_config cfg = { "s3://b/t", kv, 5, 1 };
	uint64_t v;
	CHECK_OK(store_opt_size(&cfg, "MULTIPART_PART_SIZE", "LOOM_MULTIPART_PART_SIZE", 1, 1ULL << 40, &v));
	CHECK(v == 5ULL << 20);
	CHECK_OK(store_opt_size(&cfg, "other_size", NULL, 1, 1ULL << 40, &v));
	CHECK(v == 1500000000ULL);
	/* unset: the environment, then the default */
	setenv("LOOM_TEST_PART_SIZE", "8MiB", 1);
	CHECK_OK(store_opt_size(&cfg, "test_part_size", "LOOM_TEST_PART_SIZE", 1, 1ULL << 40, &v));
	CHECK(v == 8ULL << 20);
	setenv("LOOM_TEST_PART_SIZE", "6291456", 1);
	CHECK_OK(store_opt_size(&cfg, "test_part_size", "LOOM_TEST_PART_SIZE", 1, 1ULL << 40, &v));
	CHECK(v == 6291456ULL);
	unsetenv("LOOM_TEST_PART_SIZE");
	CHECK_OK(store_opt_size(&cfg, "test_part_size", "LOOM_TEST_PART_SIZE", 77, 1ULL << 40, &v));
	CHECK(v == 77);
	/* bad and too large: named, with the value (not a secret's) */
	CHECK_ERR(store_opt_size(&cfg, "bad_size", NULL, 1, 1ULL << 40, &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "option bad_size is \"5 parsecs\", expected a size") != NULL);
	CHECK_ERR(store_opt_size(&cfg, "big_size", NULL, 1, 5ULL << 30, &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "big_size") != NULL);
	CHECK_ERR(store_opt_size(&cfg, "my_secret_size", NULL, 1, 10, &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "x1") == NULL);
}

TEST(backoff_has_full_jitter_under_a_cap)
{
	retry_policy p = { 10, 100, 1000 };
	int64_t lo = 1 << 30, hi = -1;
	unsigned int n;
	int i;
	for (n = 1; n <= 8; n++) {
		int64_t cap = 100LL << (n - 1);
		if (cap > 1000)
			cap = 1000;
		for (i = 0; i < 200; i++) {
			int64_t d = retry_delay_ms(&p, n);
			CHECK(d >= 0 && d <= cap);
			if (n == 5) {
				lo = d < lo ? d : lo;
				hi = d > hi ? d : hi;
			}
		}
	}
	CHECK(hi - lo > 200); /* spread over [0, 1000], not a fixed step */
	CHECK(retry_status_is_transient(503) && retry_status_is_transient(429) &&
	      !retry_status_is_transient(404) && !retry_status_is_transient(412));
}

int main(void)
{
	port = start_server(&server_pid, NULL, NULL);
	if (port <= 0) {
		fprintf(stderr, "cannot start tests/tools/http_test_server.py (python3)\n");
		stop_servers();
		return 1;
	}
	atexit(stop_servers);
	RUN(sequential_requests_share_one_connection);
	RUN(threads_share_a_client_and_its_connections);
	RUN(transient_statuses_are_retried_and_bounded);
	RUN(resets_truncations_and_timeouts_are_transient);
	RUN(connection_refused_is_retried_even_when_not_idempotent);
	RUN(streaming_bodies_both_ways);
	RUN(messages_carry_no_secret);
	RUN(tls_verifies_the_server);
	RUN(client_options_from_storage_options_and_env);
	RUN(size_options_take_units);
	RUN(backoff_has_full_jitter_under_a_cap);
	stop_servers();
	return test_summary();
}
