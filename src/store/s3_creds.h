/* store/s3_creds.h - where an S3 store's credentials come from, in the
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
 * neither options nor the environment set them. */
#ifndef LOOM_STORE_S3_CREDS_H
#define LOOM_STORE_S3_CREDS_H

#include "store/store_int.h"
#include "util/buf.h"

typedef struct s3_creds {
	char *access_key;     /* NULL: unsigned requests */
	char *secret_key;
	char *session_token;  /* may be NULL */
	const char *source;   /* "storage options", "environment", "profile", "none" */
	char *profile_region;        /* the profile's region, or NULL */
	char *profile_endpoint;      /* the profile's endpoint_url, or NULL */
} s3_creds;

/* Resolve the credentials of a store being opened. Every secret found is
 * added to `secrets`. LOOM_EPERM naming where loom looked when there are
 * none (and signatures were not turned off); LOOM_EINVAL for half a pair
 * or an unreadable profile. */
int s3_creds_resolve(s3_creds *out, const store_config *cfg, loom_secrets *secrets);
void s3_creds_dispose(s3_creds *c);

#endif
