/* store/s3/s3_creds.h - where an S3 store's credentials come from, in the
 * order delta-rs (object_store) looks:
 *
 *   1. storage options: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY
 *      (+ AWS_SESSION_TOKEN), keys case-insensitive;
 *   2. the environment: the same variables;
 *   3. the shared files: profile AWS_PROFILE (option or environment;
 *      "default") in AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials),
 *      then in AWS_CONFIG_FILE (~/.aws/config, "[profile NAME]"), with
 *      aws_access_key_id, aws_secret_access_key, aws_session_token.
 *
 * A pair is taken whole from one place: an access key from the options is
 * never matched with a secret from the environment. AWS_SKIP_SIGNATURE=true
 * sends unsigned requests (public buckets). The config file's `region` and
 * `endpoint_url` of the profile are reported for the store to use when
 * neither options nor the environment set them.
 *
 * When none of these has keys, s3_creds_finish asks the services of
 * store/s3/s3_remote.h (web identity, container, instance metadata). */
#ifndef LOOM_STORE_S3_CREDS_H
#define LOOM_STORE_S3_CREDS_H

#include "store/s3/s3_remote.h"
#include "store/backend.h"
#include "util/buf.h"

typedef struct s3_creds {
	char *access_key;     /* NULL: unsigned requests */
	char *secret_key;
	char *session_token;  /* may be NULL */
	const char *source;   /* "storage options", "environment", "profile", "none" */
	char *profile_region;        /* the profile's region, or NULL */
	char *profile_endpoint;      /* the profile's endpoint_url, or NULL */
	int missing;                 /* no keys found yet: s3_creds_finish looks further */
	s3_remote *remote;           /* keys from a service, refreshed; NULL: the fields above */
} s3_creds;

/* Resolve the credentials of a store being opened from options,
 * environment and profile files. Every secret found is added to
 * `secrets`. LOOM_EINVAL for half a pair or an unreadable profile. */
int s3_creds_resolve(s3_creds *out, const store_config *cfg, loom_secrets *secrets);

/* Once the region is known: when s3_creds_resolve found no keys (and
 * signatures were not turned off), ask the credential services. LOOM_EPERM
 * naming everywhere loom looked when none has keys; the service's error
 * when one configured by the environment fails. */
int s3_creds_finish(s3_creds *c, const store_config *cfg, const char *region);

/* The keys to sign one request with: 1 and the three strings (a remote
 * provider's are copied into `hold`, which the caller wipes and disposes;
 * `*token` may be "" or NULL), 0 for unsigned requests. */
int s3_creds_keys(s3_creds *c, loom_buf *hold, const char **access_key, const char **secret_key,
                  const char **token);
void s3_creds_dispose(s3_creds *c);

#endif
