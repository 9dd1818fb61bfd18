/* store/s3/s3_remote.h - AWS credentials that come from a service instead of
 * a file or variable, and expire: what a job running on EC2, ECS or EKS
 * has. Tried when options, environment and profile files give none, in
 * the AWS SDKs' order:
 *
 *   1. web identity (EKS IRSA): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN;
 *      the token is read from the file at every fetch (it rotates) and
 *      exchanged at STS AssumeRoleWithWebIdentity (AWS_ENDPOINT_URL_STS,
 *      default https://sts.<region>.amazonaws.com; AWS_ROLE_SESSION_NAME,
 *      default "loom");
 *   2. container (ECS task role, EKS pod identity):
 *      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on http://169.254.170.2, or
 *      AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or http to a loopback or
 *      the EKS agent's 169.254.170.23), with AWS_CONTAINER_AUTHORIZATION_TOKEN
 *      or the contents of AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE as the
 *      Authorization header;
 *   3. instance (EC2): IMDSv2 at AWS_EC2_METADATA_SERVICE_ENDPOINT (default
 *      http://169.254.169.254): a session token by PUT, then the role's
 *      credentials; skipped when AWS_EC2_METADATA_DISABLED=true. IMDSv1
 *      (no session token) only with AWS_EC2_METADATA_V1_FALLBACK=true.
 *      One-second connect timeout and one retry, so a machine without a
 *      metadata service fails fast.
 *
 * The first credentials are fetched when the store opens (an error there
 * says which service was asked and what it answered). They are refreshed
 * when less than min(5 minutes, half their lifetime) is left, one fetch at
 * a time; a failed refresh keeps the old credentials while they are still
 * valid. Workers share the store: every request takes a copy. */
#ifndef LOOM_STORE_S3_REMOTE_H
#define LOOM_STORE_S3_REMOTE_H

#include "store/backend.h"
#include "util/buf.h"

typedef struct s3_remote s3_remote;

/* The provider the configuration selects, with its first credentials.
 * 0 with *out NULL when none applies (use_env off and no option names
 * one, or the metadata service disabled). `source` gets a static name:
 * "web identity", "container", "instance metadata". */
int s3_remote_open(s3_remote **out, const store_config *cfg, const char *region,
                   const char **source);

/* Copy the current credentials (refreshed first when due) into `out` as
 * three NUL-terminated strings: access key, secret key, session token
 * ("" when none). The caller wipes and disposes `out`. */
int s3_remote_current(s3_remote *r, loom_buf *out);

void s3_remote_free(s3_remote *r);

#endif
