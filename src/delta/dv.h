/* delta/dv.h - deletion vectors: Z85, DV descriptors to store keys, the DV
 * file format and RoaringBitmapArray into a row filter.
 *
 * A row filter answers "is physical row i of the data file deleted?".
 * Row indexes are 64-bit: bucket (high 32 bits) -> 32-bit Roaring bitmap. */
#ifndef LOOM_DELTA_DV_H
#define LOOM_DELTA_DV_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "loom/store.h"
#include "util/buf.h"

/* Z85 (ZeroMQ RFC 32): 5 characters <-> 4 bytes, big-endian groups.
 * Decode needs len % 5 == 0 (LOOM_ECORRUPT otherwise or on a character
 * outside the alphabet); appends len/5*4 bytes. Encode needs len % 4 == 0. */
int delta_z85_decode(const char *s, size_t len, loom_buf *out);
int delta_z85_encode(const uint8_t *data, size_t len, loom_buf *out);

/* The store key of the DV file of a 'u' or 'p' descriptor.
 * 'u': "<prefix>/deletion_vector_<uuid>.bin" from the 20-char Z85 UUID
 * (the characters before it are the prefix directory).
 * 'p': the absolute path or URI must lie inside the root of `store` (the
 * store maps it: loom_store_key_of) - else LOOM_EUNSUPPORTED naming it and
 * the root. `store` may be NULL for 'u' (then every 'p' is outside).
 * LOOM_EINVAL for 'i' (inline) descriptors. Appended to `out`. */
int delta_dv_file_key(const delta_dv_descriptor *dv, loom_store *store, loom_buf *out);

typedef struct delta_row_filter delta_row_filter;

/* Parse a serialized RoaringBitmapArray (portable 64-bit format, magic
 * 1681511377, or the older native format, magic 1681511376). `what` names
 * the source for errors. LOOM_ECORRUPT on any inconsistency. */
int delta_row_filter_parse(const uint8_t *data, size_t len, const char *what,
                           delta_row_filter **out);

/* Load the DV of a file: inline data or the DV file (version byte 1, at
 * `offset`: 4-byte BE size, bitmap, 4-byte BE CRC-32 which is checked),
 * and check the cardinality against the descriptor. */
int delta_dv_load(loom_store *store, const delta_dv_descriptor *dv, delta_row_filter **out);

int delta_row_filter_contains(const delta_row_filter *f, uint64_t row);
uint64_t delta_row_filter_cardinality(const delta_row_filter *f);
/* All deleted rows, ascending, into a new array (loom_free). */
int delta_row_filter_to_array(const delta_row_filter *f, uint64_t **rows, size_t *n);
/* Call cb for each deleted row ascending; a non-zero return stops and is
 * returned. */
int delta_row_filter_foreach(const delta_row_filter *f,
                             int (*cb)(uint64_t row, void *ctx), void *ctx);
void delta_row_filter_free(delta_row_filter *f);

#endif
