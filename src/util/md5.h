/* util/md5.h - MD5 (RFC 1321), for the checksum PROTOCOL.md puts in
 * _delta_log/_last_checkpoint. Not for anything security-related. */
#ifndef LOOM_UTIL_MD5_H
#define LOOM_UTIL_MD5_H

#include <stddef.h>
#include <stdint.h>

/* The digest of `len` bytes at `data` as 32 lowercase hex digits + NUL. */
void loom_md5_hex(const void *data, size_t len, char out[33]);

#endif
