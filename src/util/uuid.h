/* util/uuid.h - random (version 4) UUIDs for output file names. */
#ifndef LOOM_UTIL_UUID_H
#define LOOM_UTIL_UUID_H

#include <stdint.h>

/* 16 random bytes with the version-4 and variant bits set. */
int loom_uuid_v4(uint8_t out[16]);
/* Format as 36 lowercase characters plus NUL. */
void loom_uuid_format(const uint8_t uuid[16], char out[37]);
/* Both in one step. */
int loom_uuid_v4_string(char out[37]);
/* A fresh one as 32 lowercase hex digits (no dashes) plus NUL: a random
 * id (an upload's). */
int loom_uuid_v4_hex(char out[33]);

#endif
