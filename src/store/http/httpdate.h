/* store/http/httpdate.h - the date formats of object-store requests and
 * responses: RFC 1123 ("Sun, 06 Nov 1994 08:49:37 GMT": HTTP Date and
 * Last-Modified, Azure x-ms-date), ISO 8601 basic ("20130524T000000Z":
 * SigV4's x-amz-date, and "20130524" its date stamp) and ISO 8601 extended
 * ("2009-10-12T17:50:30.000Z": S3 listings, token expiry times). All UTC. */
#ifndef LOOM_STORE_HTTPDATE_H
#define LOOM_STORE_HTTPDATE_H

#include <stddef.h>
#include <stdint.h>

#define HTTPDATE_RFC1123_LEN 30    /* bytes including the NUL */
#define HTTPDATE_ISO_BASIC_LEN 17  /* "YYYYMMDDTHHMMSSZ" + NUL */

/* Format `ms` since the Unix epoch (seconds are truncated). */
void httpdate_rfc1123(int64_t ms, char out[HTTPDATE_RFC1123_LEN]);
void httpdate_iso_basic(int64_t ms, char out[HTTPDATE_ISO_BASIC_LEN]);

/* Parse to ms since the epoch; LOOM_EINVAL (message naming the text) for
 * anything else. ISO 8601 accepts "YYYY-MM-DDTHH:MM:SS[.fff...]Z" and
 * "+00:00"; RFC 1123 the exact form above. */
int httpdate_parse_rfc1123(const char *s, int64_t *ms);
int httpdate_parse_iso8601(const char *s, int64_t *ms);

#endif
