/* loom's SigV4 signer for S3 against the worked examples of the S3
 * documentation ("Signature Calculations for the Authorization Header:
 * Transferring Payload in a Single Chunk"): GET Object with a Range, PUT
 * Object with a '$' in the key, GET Bucket Lifecycle (a value-less query
 * parameter) and List Objects (query parameters to sort), all with the
 * example keys on 2013-05-24. Plus the canonical form of a Hive partition
 * key ('=' encoded) and of a session token. */
#include <string.h>

#include "store/s3/s3_sign.h"
#include "test.h"
#include "util/buf.h"

#define EXAMPLE_TIME 1369353600000LL /* 2013-05-24T00:00:00Z */
static const s3_signing_keys example_keys = { "AKIAIOSFODNN7EXAMPLE",
	                                          "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", NULL };

static void sign(const s3_sign_request *rq, const s3_signing_keys *keys, loom_buf *auth,
                 loom_buf *canon, char date[17])
{
	loom_buf_clear(auth);
	loom_buf_clear(canon);
	if (s3_sign(rq, keys, date, auth, canon) != 0)
		TEST_FAIL_AT("s3_sign failed");
}

static int ends_with(const loom_buf *b, const char *sig)
{
	size_t n = strlen(sig);
	return b->ptr && b->size >= n && strcmp(b->ptr + b->size - n, sig) == 0;
}

TEST(get_object_with_range)
{
	loom_kv h[] = { { "Range", "bytes=0-9" } };
	s3_sign_request rq = { "GET", "examplebucket.s3.amazonaws.com", "/test.txt", NULL, 0, h, 1,
		                   S3_EMPTY_SHA256, "us-east-1", "s3", EXAMPLE_TIME };
	loom_buf auth = LOOM_BUF_INIT, canon = LOOM_BUF_INIT;
	char date[17];
	sign(&rq, &example_keys, &auth, &canon, date);
	CHECK(strcmp(date, "20130524T000000Z") == 0);
	CHECK(strstr(canon.ptr, "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
	                        "x-amz-content-sha256:" S3_EMPTY_SHA256 "\nx-amz-date:20130524T000000Z\n\n"
	                        "host;range;x-amz-content-sha256;x-amz-date\n" S3_EMPTY_SHA256) == canon.ptr);
	CHECK(strncmp(auth.ptr, "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
	                        "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
	                        "Signature=", 130) == 0);
	CHECK(ends_with(&auth, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
	loom_buf_dispose(&auth);
	loom_buf_dispose(&canon);
}

TEST(put_object_with_dollar_in_key)
{
	loom_kv h[] = { { "Date", "Fri, 24 May 2013 00:00:00 GMT" },
		            { "x-amz-storage-class", "REDUCED_REDUNDANCY" } };
	s3_sign_request rq = { "PUT", "examplebucket.s3.amazonaws.com", "/test%24file.text", NULL, 0,
		                   h, 2, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
		                   "us-east-1", "s3", EXAMPLE_TIME };
	loom_buf auth = LOOM_BUF_INIT, canon = LOOM_BUF_INIT;
	char date[17];
	sign(&rq, &example_keys, &auth, &canon, date);
	CHECK(ends_with(&auth, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"));
	CHECK(strstr(auth.ptr, "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"));
	loom_buf_dispose(&auth);
	loom_buf_dispose(&canon);
}

TEST(get_bucket_lifecycle_valueless_parameter)
{
	loom_kv q[] = { { "lifecycle", NULL } };
	s3_sign_request rq = { "GET", "examplebucket.s3.amazonaws.com", "/", q, 1, NULL, 0,
		                   S3_EMPTY_SHA256, "us-east-1", "s3", EXAMPLE_TIME };
	loom_buf auth = LOOM_BUF_INIT, canon = LOOM_BUF_INIT;
	char date[17];
	sign(&rq, &example_keys, &auth, &canon, date);
	CHECK(strncmp(canon.ptr, "GET\n/\nlifecycle=\n", 17) == 0);
	CHECK(ends_with(&auth, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"));
	loom_buf_dispose(&auth);
	loom_buf_dispose(&canon);
}

TEST(list_objects_sorted_query)
{
	loom_kv q[] = { { "prefix", "J" }, { "max-keys", "2" } };
	s3_sign_request rq = { "GET", "examplebucket.s3.amazonaws.com", "/", q, 2, NULL, 0,
		                   S3_EMPTY_SHA256, "us-east-1", "s3", EXAMPLE_TIME };
	loom_buf auth = LOOM_BUF_INIT, canon = LOOM_BUF_INIT;
	char date[17];
	sign(&rq, &example_keys, &auth, &canon, date);
	CHECK(strncmp(canon.ptr, "GET\n/\nmax-keys=2&prefix=J\n", 26) == 0);
	CHECK(ends_with(&auth, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
	loom_buf_dispose(&auth);
	loom_buf_dispose(&canon);
}

TEST(query_encoding_and_session_token)
{
	loom_kv q[] = { { "start-after", "t/_delta_log/00000000000000000001.json" },
		            { "prefix", "t/p=a b/" }, { "list-type", "2" } };
	s3_signing_keys k = { "AK", "SECRET", "TOKEN/with+chars" };
	s3_sign_request rq = { "GET", "127.0.0.1:7480", "/bucket", q, 3, NULL, 0, S3_EMPTY_SHA256,
		                   "us-east-1", "s3", EXAMPLE_TIME };
	loom_buf auth = LOOM_BUF_INIT, canon = LOOM_BUF_INIT, query = LOOM_BUF_INIT;
	char date[17];
	sign(&rq, &k, &auth, &canon, date);
	CHECK(s3_canonical_query(q, 3, &query) == 0);
	CHECK(strcmp(query.ptr, "list-type=2&prefix=t%2Fp%3Da%20b%2F&start-after=t%2F_delta_log%2F"
	                        "00000000000000000001.json") == 0);
	CHECK(strstr(canon.ptr, query.ptr) != NULL);
	CHECK(strstr(canon.ptr, "\nx-amz-security-token:TOKEN/with+chars\n") != NULL);
	CHECK(strstr(auth.ptr, "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"));
	CHECK(strstr(auth.ptr, "SECRET") == NULL);
	loom_buf_dispose(&auth);
	loom_buf_dispose(&canon);
	loom_buf_dispose(&query);
}

int main(void)
{
	RUN(get_object_with_range);
	RUN(put_object_with_dollar_in_key);
	RUN(get_bucket_lifecycle_valueless_parameter);
	RUN(list_objects_sorted_query);
	RUN(query_encoding_and_session_token);
	return test_summary();
}
