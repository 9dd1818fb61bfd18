/* delta/partition.h - typed partition values (PROTOCOL.md "Partition Value
 * Serialization"). Every value is a string in the log; "" and null are
 * null for every type. */
#ifndef LOOM_DELTA_PARTITION_H
#define LOOM_DELTA_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "delta/schema.h"
#include "delta/snapshot.h"

__extension__ typedef __int128 delta_int128;

typedef struct delta_pvalue {
	delta_type_kind kind;
	int is_null;
	int64_t i;            /* byte/short/integer/long; boolean 0/1; date: days
	                         since 1970-01-01; timestamp, timestamp_ntz:
	                         microseconds since 1970-01-01T00:00:00 (UTC for
	                         timestamp) */
	double d;             /* float, double */
	delta_int128 dec;     /* decimal: unscaled value at the type's scale */
	const char *s;        /* string, binary: the bytes (borrowed) */
	size_t len;
} delta_pvalue;

/* Parse `text` (NULL = null) as a value of primitive type `t`.
 * Timestamps: "YYYY-MM-DD HH:MM:SS[.ffffff]" (a zone-less timestamp is
 * read as UTC, the protocol says "writer's time zone", which is unknown)
 * or ISO 8601 with 'T' and 'Z' or "+HH:MM". LOOM_EINVAL naming the type
 * and the text for a malformed or out-of-range value; LOOM_EUNSUPPORTED
 * for non-primitive or unknown types. */
int delta_partition_value_parse(const delta_type *t, const char *text,
                                delta_pvalue *out);

/* The raw partition value of logical column `column` in file `f` (looked
 * up by physical name under column mapping). *found = 0 when the file has
 * no entry for it. */
const char *delta_partition_raw(const delta_snapshot *s, const delta_file *f,
                                const char *column, int *found);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t delta_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
