/* The Azure backend without a server: the URI spellings (az://, azure://,
 * adl://, abfs[s]://container@account.dfs|blob.core.windows.net,
 * https://account.blob|dfs.core.windows.net, endpoint and emulator
 * path-style URLs), key_of over every spelling of a root, and the errors
 * of opening (bad names, no credentials, plain http, a URL of no known
 * service), none of which shows a secret. Requests are proven against
 * Azurite by tests/scripts/azure_*.sh. */
#include <string.h>

#include "loom/store.h"
#include "store/azure/azure_int.h"
#include "test.h"
#include "util/error.h"

static const azure_uri_hints PLAIN = { NULL, 0, 1 };

TEST(uri_spellings)
{
	azure_uri u;
	azure_uri_hints ep = { "http://127.0.0.1:10000/devstoreaccount1", 0, 1 };
	azure_uri_hints emu = { NULL, 1, 1 };

	CHECK_OK(azure_uri_parse("az://lake/raw/events/", &PLAIN, &u));
	CHECK_INT(u.form, AZURE_URI_CONTAINER);
	CHECK(u.account == NULL);
	CHECK_STR(u.container, "lake");
	CHECK_STR(u.path, "raw/events");
	azure_uri_dispose(&u);

	CHECK_OK(azure_uri_parse("abfss://lake@acct01.dfs.core.windows.net/raw/t", &PLAIN, &u));
	CHECK_INT(u.form, AZURE_URI_ACCOUNT);
	CHECK_STR(u.account, "acct01");
	CHECK_STR(u.dns_suffix, "core.windows.net");
	CHECK_STR(u.container, "lake");
	CHECK_STR(u.path, "raw/t");
	azure_uri_dispose(&u);

	/* a sovereign cloud, the blob host, percent-encoding decoded */
	CHECK_OK(azure_uri_parse("https://Acct01.BLOB.core.chinacloudapi.cn/lake/my%20t?sv=1&sig=x", &PLAIN, &u));
	CHECK_STR(u.account, "acct01");
	CHECK_STR(u.dns_suffix, "core.chinacloudapi.cn");
	CHECK_STR(u.path, "my t");
	CHECK_STR(u.query, "sv=1&sig=x");
	azure_uri_dispose(&u);

	CHECK_OK(azure_uri_parse("http://127.0.0.1:10000/devstoreaccount1/lake/t", &ep, &u));
	CHECK_INT(u.form, AZURE_URI_ENDPOINT);
	CHECK_STR(u.account_url, "http://127.0.0.1:10000/devstoreaccount1");
	CHECK_STR(u.container, "lake");
	CHECK_STR(u.path, "t");
	azure_uri_dispose(&u);

	CHECK_OK(azure_uri_parse("http://localhost:4242/acct/c01/a/b", &emu, &u));
	CHECK_STR(u.account, "acct");
	CHECK_STR(u.account_url, "http://localhost:4242/acct");
	CHECK_STR(u.container, "c01");
	CHECK_STR(u.path, "a/b");
	azure_uri_dispose(&u);

	/* not Azure's: the registry tries the next backend */
	CHECK_INT(azure_uri_parse("https://bucket.s3.amazonaws.com/t", &PLAIN, &u), AZURE_URI_NOT_AZURE);
	CHECK_INT(azure_uri_parse("http://127.0.0.1:9/x/c/t", &PLAIN, &u), AZURE_URI_NOT_AZURE);

	CHECK_ERR(azure_uri_parse("az://Bad_Name/t", &PLAIN, &u), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "\"Bad_Name\" is not a valid container name"));
	CHECK_ERR(azure_uri_parse("az://lake/a/../b", &PLAIN, &u), LOOM_EINVAL);
	CHECK_ERR(azure_uri_parse("abfss://lake@acct01.example.com/t", &PLAIN, &u), LOOM_EINVAL);
	CHECK_ERR(azure_uri_parse("az:///t", &PLAIN, &u), LOOM_EINVAL);
}

static int open_emulated(loom_store **s, const char *uri)
{
	static const loom_kv kv[] = { { "AZURE_STORAGE_USE_EMULATOR", "true" },
		                          { "azure_storage_endpoint", "http://127.0.0.1:10000/devstoreaccount1" } };
	loom_store_opts o = LOOM_STORE_OPTS_INIT;
	o.options = kv;
	o.n_options = 2;
	o.ignore_env = 1;
	return loom_store_open(s, uri, &o);
}

TEST(key_of_every_spelling)
{
	static const char *const inside[] = {
		"az://lake/raw/t/p=1/x.parquet",
		"azure://lake/raw/t/p=1/x.parquet",
		"abfss://lake@devstoreaccount1.dfs.core.windows.net/raw/t/p=1/x.parquet",
		"abfs://lake@devstoreaccount1.blob.core.windows.net/raw/t/p=1/x.parquet",
		"https://devstoreaccount1.blob.core.windows.net/lake/raw/t/p=1/x.parquet",
		"HTTP://127.0.0.1:10000/devstoreaccount1/lake/raw/t/p=1/x.parquet",
	};
	static const char *const outside[] = {
		"az://lake/raw/t2/x.parquet",             /* a sibling sharing the prefix */
		"az://other/raw/t/x.parquet",             /* another container */
		"abfss://lake@otheracct.dfs.core.windows.net/raw/t/x.parquet",  /* another account */
		"http://127.0.0.1:10001/devstoreaccount1/lake/raw/t/x.parquet", /* another endpoint */
		"az://lake/raw/t",                        /* the root itself */
		"s3://lake/raw/t/x.parquet",
	};
	loom_store *s = NULL;
	const char *key;
	size_t i;

	CHECK_OK(open_emulated(&s, "abfss://lake@devstoreaccount1.dfs.core.windows.net/raw/t/"));
	CHECK_STR(s->name, "azure");
	CHECK_STR(loom_store_root(s), "abfss://lake@devstoreaccount1.dfs.core.windows.net/raw/t");
	CHECK(s->caps & LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT);
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		key = NULL;
		if (loom_store_key_of(&key, s, inside[i]) < 0 || !key || strcmp(key, "p=1/x.parquet") != 0)
			TEST_FAIL_AT("%s: key %s (%s)", inside[i], key ? key : "(none)",
			             loom_error_last() ? loom_error_last()->message : "");
	}
	for (i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		CHECK_ERR(loom_store_key_of(&key, s, outside[i]), LOOM_ENOTFOUND);
	CHECK_OK(loom_store_key_of(&key, s, "p=1/x.parquet")); /* relative: its own key */
	CHECK_STR(key, "p=1/x.parquet");
	loom_store_free(s);
}

TEST(opening_errors)
{
	loom_store *s = NULL;
	loom_store_opts o = LOOM_STORE_OPTS_INIT;
	loom_kv kv[3];
	o.options = kv;
	o.ignore_env = 1;

	/* no account, no credentials, plain http, a bad key */
	o.n_options = 0;
	CHECK_ERR(loom_store_open(&s, "az://lake/t", &o), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "no storage account"));
	kv[0].key = "account_name";
	kv[0].value = "acct01";
	o.n_options = 1;
	CHECK_ERR(loom_store_open(&s, "az://lake/t", &o), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "no Azure credentials"));
	kv[1].key = "AZURE_STORAGE_ACCOUNT_KEY";
	kv[1].value = "c2VjcmV0IGtleSB2YWx1ZQ==";
	kv[2].key = "azure_storage_endpoint";
	kv[2].value = "http://127.0.0.1:1/acct01";
	o.n_options = 3;
	CHECK_ERR(loom_store_open(&s, "az://lake/t", &o), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "must be https://"));
	o.n_options = 2;
	CHECK_OK(loom_store_open(&s, "az://lake/t", &o)); /* opening sends nothing */
	loom_store_free(s);
	kv[1].value = "not*base64";
	CHECK_ERR(loom_store_open(&s, "az://lake/t", &o), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "not base64"));
	CHECK(!strstr(loom_error_last()->message, "not*base64"));
	kv[1].key = "AZURE_STORAGE_SAS_TOKEN";
	kv[1].value = "sv=2021-08-06&se=2030-01-01";
	CHECK_ERR(loom_store_open(&s, "az://lake/t", &o), LOOM_EINVAL);
	if (!strstr(loom_error_last()->message, "it has no signature"))
		TEST_FAIL_AT("%s", loom_error_last()->message);
	/* an https URL of no known service: named, with the query masked */
	CHECK_ERR(loom_store_open(&s, "https://example.com/c/t?sig=SECRETSIG", &o), LOOM_EUNSUPPORTED);
	CHECK(strstr(loom_error_last()->message, "no object store recognizes this https URL"));
	CHECK(!strstr(loom_error_last()->message, "SECRETSIG"));
	CHECK(strstr(loom_store_schemes(), "az, azure, adl, abfs, abfss, https, http"));
}

int main(void)
{
	RUN(uri_spellings);
	RUN(key_of_every_spelling);
	RUN(opening_errors);
	return test_summary();
}
