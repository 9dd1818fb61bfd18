/* The signing primitives of the object-store backends against published
 * vectors: SHA-256 (FIPS 180-2 examples), HMAC-SHA256 (RFC 4231), MD5
 * (RFC 1321), base64 (RFC 4648 section 10), the AWS SigV4 documentation's
 * signing-key derivation and IAM ListUsers signature; plus percent-encoding,
 * the date formats and the XML walk. */
#include <string.h>

#include "store/http/crypto.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "store/http/xml.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"

static void sha256_hex(const void *data, size_t len, char out[65])
{
	uint8_t d[CRYPTO_SHA256_LEN];
	memset(out, 0, 65);
	if (crypto_sha256(data, len, d) == 0)
		enc_hex(d, sizeof(d), out);
}

static void hmac_hex(const void *key, size_t klen, const void *data, size_t len, char out[65])
{
	uint8_t d[CRYPTO_SHA256_LEN];
	memset(out, 0, 65);
	if (crypto_hmac_sha256(key, klen, data, len, d) == 0)
		enc_hex(d, sizeof(d), out);
}

TEST(sha256_fips_examples)
{
	char hex[65];
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);
	crypto_sha256_ctx *c;
	uint8_t d[CRYPTO_SHA256_LEN];
	size_t i;

	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex(two_blocks, strlen(two_blocks), hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* one million 'a', fed in uneven pieces through the streaming context */
	REQUIRE(million != NULL);
	memset(million, 'a', 1000000);
	CHECK_OK(crypto_sha256_begin(&c));
	for (i = 0; i < 1000000; i += 7919)
		CHECK_OK(crypto_sha256_update(c, million + i, i + 7919 <= 1000000 ? 7919 : 1000000 - i));
	CHECK_OK(crypto_sha256_end(c, d));
	enc_hex(d, sizeof(d), hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
	crypto_sha256_free(NULL);
}

TEST(hmac_sha256_rfc4231)
{
	uint8_t k20[20], kaa[131], k25[25], d50[50];
	char hex[65];
	size_t i;
	memset(k20, 0x0b, sizeof(k20));
	hmac_hex(k20, 20, "Hi There", 8, hex);
	CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_hex("Jefe", 4, "what do ya want for nothing?", 28, hex);
	CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(kaa, 0xaa, sizeof(kaa));
	memset(d50, 0xdd, sizeof(d50));
	hmac_hex(kaa, 20, d50, 50, hex);
	CHECK_STR(hex, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (i = 0; i < 25; i++)
		k25[i] = (uint8_t)(i + 1);
	memset(d50, 0xcd, sizeof(d50));
	hmac_hex(k25, 25, d50, 50, hex);
	CHECK_STR(hex, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	/* keys longer than the block size are hashed first */
	hmac_hex(kaa, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54, hex);
	CHECK_STR(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	{
		static const char t7[] = "This is a test using a larger than block-size key and a larger "
		                         "than block-size data. The key needs to be hashed before being "
		                         "used by the HMAC algorithm.";
		hmac_hex(kaa, 131, t7, strlen(t7), hex);
		CHECK_STR(hex, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
	}
}

TEST(md5_rfc1321)
{
	uint8_t d[CRYPTO_MD5_LEN];
	char hex[33];
	CHECK_OK(crypto_md5("", 0, d));
	enc_hex(d, sizeof(d), hex);
	CHECK_STR(hex, "d41d8cd98f00b204e9800998ecf8427e");
	CHECK_OK(crypto_md5("message digest", 14, d));
	enc_hex(d, sizeof(d), hex);
	CHECK_STR(hex, "f96b697d7cb7938d525a2f31aaf161d0");
}

/* AWS's "derive a signing key" example (secret wJalrXUtnFEMI/K7MDENG+bPx
 * RfiCYEXAMPLEKEY, 20120215, us-east-1, iam) and the full signature of
 * its IAM ListUsers walk-through (20150830T123600Z): the primitives
 * compose into SigV4 exactly. */
static void derive(const char *secret, const char *date, const char *region, const char *service,
                   uint8_t out[CRYPTO_SHA256_LEN])
{
	char k[128];
	uint8_t a[CRYPTO_SHA256_LEN], b[CRYPTO_SHA256_LEN];
	snprintf(k, sizeof(k), "AWS4%s", secret);
	crypto_hmac_sha256(k, strlen(k), date, strlen(date), a);
	crypto_hmac_sha256(a, sizeof(a), region, strlen(region), b);
	crypto_hmac_sha256(b, sizeof(b), service, strlen(service), a);
	crypto_hmac_sha256(a, sizeof(a), "aws4_request", 12, out);
}

TEST(sigv4_documented_examples)
{
	static const char secret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
	static const char canonical[] =
		"GET\n/\nAction=ListUsers&Version=2010-05-08\n"
		"content-type:application/x-www-form-urlencoded; charset=utf-8\n"
		"host:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
		"content-type;host;x-amz-date\n"
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
	uint8_t key[CRYPTO_SHA256_LEN];
	char hex[65], sts[256];

	derive(secret, "20120215", "us-east-1", "iam", key);
	enc_hex(key, sizeof(key), hex);
	CHECK_STR(hex, "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");

	sha256_hex(canonical, strlen(canonical), hex);
	CHECK_STR(hex, "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
	snprintf(sts, sizeof(sts), "AWS4-HMAC-SHA256\n20150830T123600Z\n"
	                           "20150830/us-east-1/iam/aws4_request\n%s", hex);
	derive(secret, "20150830", "us-east-1", "iam", key);
	hmac_hex(key, sizeof(key), sts, strlen(sts), hex);
	CHECK_STR(hex, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

TEST(base64_rfc4648)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
		                                 "Zm9vYmFy" };
	static const char *const bad[] = { "Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zm9", "Zm=v" };
	loom_buf b = LOOM_BUF_INIT;
	size_t i;
	uint8_t all[256];
	for (i = 0; i < 7; i++) {
		loom_buf_clear(&b);
		CHECK_OK(enc_base64(&b, plain[i], strlen(plain[i])));
		CHECK_STR(b.ptr, coded[i]);
		loom_buf_clear(&b);
		CHECK_OK(enc_base64_decode(&b, coded[i], strlen(coded[i]), "vector"));
		CHECK_INT(b.size, strlen(plain[i]));
		CHECK(memcmp(b.ptr, plain[i], b.size) == 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_ERR(enc_base64_decode(&b, bad[i], strlen(bad[i]), "a key"), LOOM_EINVAL);
	/* every byte value round-trips (Azure account keys are random bytes) */
	for (i = 0; i < 256; i++)
		all[i] = (uint8_t)(255 - i);
	loom_buf_clear(&b);
	CHECK_OK(enc_base64(&b, all, sizeof(all)));
	{
		loom_buf back = LOOM_BUF_INIT;
		CHECK_OK(enc_base64_decode(&back, b.ptr, b.size, "round trip"));
		CHECK_INT(back.size, 256);
		CHECK(memcmp(back.ptr, all, 256) == 0);
		loom_buf_dispose(&back);
	}
	loom_buf_dispose(&b);
}

TEST(uri_encoding)
{
	loom_buf b = LOOM_BUF_INIT;
	static const char key[] = "date=2024-01-01/part 1~x.parquet";
	CHECK_OK(enc_uri(&b, key, strlen(key), ENC_KEEP_SLASH));
	CHECK_STR(b.ptr, "date%3D2024-01-01/part%201~x.parquet");
	loom_buf_clear(&b);
	CHECK_OK(enc_uri(&b, key, strlen(key), 0));
	CHECK_STR(b.ptr, "date%3D2024-01-01%2Fpart%201~x.parquet");
	loom_buf_clear(&b);
	/* UTF-8 bytes, '+', '*' and the other reserved characters: upper-case escapes */
	CHECK_OK(enc_uri(&b, "\xe2\x82\xac+*!'()&?#%", 13, 0));
	CHECK_STR(b.ptr, "%E2%82%AC%2B%2A%21%27%28%29%26%3F%23%25");
	loom_buf_clear(&b);
	CHECK_OK(enc_uri(&b, "", 0, 0));
	CHECK_STR(b.ptr, "");
	loom_buf_dispose(&b);
}

TEST(dates)
{
	char rfc[HTTPDATE_RFC1123_LEN], iso[HTTPDATE_ISO_BASIC_LEN];
	int64_t ms;
	httpdate_rfc1123(784111777000LL, rfc);
	CHECK_STR(rfc, "Sun, 06 Nov 1994 08:49:37 GMT");
	httpdate_iso_basic(1369353600000LL, iso);
	CHECK_STR(iso, "20130524T000000Z");
	httpdate_iso_basic(1440938160999LL, iso);
	CHECK_STR(iso, "20150830T123600Z");
	CHECK_OK(httpdate_parse_rfc1123("Sun, 06 Nov 1994 08:49:37 GMT", &ms));
	CHECK_INT(ms, 784111777000LL);
	CHECK_OK(httpdate_parse_iso8601("2009-10-12T17:50:30.000Z", &ms));
	CHECK_INT(ms, 1255369830000LL);
	CHECK_OK(httpdate_parse_iso8601("2009-10-12T17:50:30.25Z", &ms));
	CHECK_INT(ms, 1255369830250LL);
	CHECK_OK(httpdate_parse_iso8601("2009-10-12T17:50:30+00:00", &ms));
	CHECK_INT(ms, 1255369830000LL);
	CHECK_ERR(httpdate_parse_iso8601("2009-10-12T17:50:30+02:00", &ms), LOOM_EINVAL);
	CHECK_ERR(httpdate_parse_iso8601("2009-13-12T17:50:30Z", &ms), LOOM_EINVAL);
	CHECK_ERR(httpdate_parse_rfc1123("Sun, 06 Nov 1994 08:49:37 UTC", &ms), LOOM_EINVAL);
	CHECK_ERR(httpdate_parse_rfc1123("Sun, 06 Foo 1994 08:49:37 GMT", &ms), LOOM_EINVAL);
}

/* ---- XML ---------------------------------------------------------------- */

typedef struct listing {
	char keys[8][64];
	long long sizes[8];
	int n;
	char token[64];
	int starts;
} listing;

static int on_list(void *ctx, const char *path, const char *text, size_t len)
{
	listing *l = ctx;
	if (!text) {
		if (strcmp(path, "ListBucketResult/Contents") == 0)
			l->starts++;
		return 0;
	}
	if (strcmp(path, "ListBucketResult/Contents/Key") == 0 && l->n < 8)
		snprintf(l->keys[l->n], 64, "%.*s", (int)len, text);
	else if (strcmp(path, "ListBucketResult/Contents/Size") == 0 && l->n < 8)
		l->sizes[l->n] = atoll(text);
	else if (strcmp(path, "ListBucketResult/Contents") == 0)
		l->n++;
	else if (strcmp(path, "ListBucketResult/NextContinuationToken") == 0)
		snprintf(l->token, 64, "%.*s", (int)len, text);
	return 0;
}

TEST(xml_listing_and_errors)
{
	static const char page[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
		"<Name>lake</Name><KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>"
		"<Contents><Key>t/_delta_log/00000000000000000000.json</Key>"
		"<LastModified>2009-10-12T17:50:30.000Z</LastModified><Size>1234</Size></Contents>"
		"<Contents><Key>t/a&amp;b &lt;c&gt;.parquet</Key><Size>5</Size></Contents>"
		"<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
		"</ListBucketResult>";
	static const char err[] = "<Error><Code>NoSuchBucket</Code><Message>The specified bucket "
	                          "does not exist</Message><BucketName>x</BucketName></Error>";
	listing l;
	loom_buf b = LOOM_BUF_INIT;
	memset(&l, 0, sizeof(l));
	CHECK_OK(xml_walk(page, strlen(page), "page", on_list, &l));
	CHECK_INT(l.n, 2);
	CHECK_INT(l.starts, 2);
	CHECK_STR(l.keys[0], "t/_delta_log/00000000000000000000.json");
	CHECK_STR(l.keys[1], "t/a&b <c>.parquet");
	CHECK_INT(l.sizes[0], 1234);
	CHECK_STR(l.token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
	CHECK_INT(xml_find_text(err, strlen(err), "Error/Code", &b), 1);
	CHECK_STR(b.ptr, "NoSuchBucket");
	loom_buf_clear(&b);
	CHECK_INT(xml_find_text(err, strlen(err), "Error/Nothing", &b), 0);
	CHECK_INT(xml_find_text("<Error><Code>x", 14, "Error/Code", &b), 0); /* cut short */
	/* malformed and hostile documents fail cleanly */
	CHECK_ERR(xml_walk("<a><b></a>", 10, "bad", on_list, &l), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "bad: malformed XML at line 1") != NULL);
	{
		static const char bomb[] = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
		                           "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]><lolz>&lol2;</lolz>";
		CHECK_ERR(xml_walk(bomb, strlen(bomb), "bomb", on_list, &l), LOOM_ECORRUPT);
		CHECK(strstr(loom_error_last()->message, "DOCTYPE") != NULL);
	}
	{
		char deep[40 * 3 + 1];
		size_t i;
		for (i = 0; i < 40; i++)
			memcpy(deep + 3 * i, "<a>", 3);
		deep[120] = '\0';
		CHECK_ERR(xml_walk(deep, 120, "deep", on_list, &l), LOOM_ECORRUPT);
	}
	loom_buf_dispose(&b);
}

int main(void)
{
	RUN(sha256_fips_examples);
	RUN(hmac_sha256_rfc4231);
	RUN(md5_rfc1321);
	RUN(sigv4_documented_examples);
	RUN(base64_rfc4648);
	RUN(uri_encoding);
	RUN(dates);
	RUN(xml_listing_and_errors);
	return test_summary();
}
