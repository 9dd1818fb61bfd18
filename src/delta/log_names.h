/* delta/log_names.h - strict parsing of the file names in _delta_log/.
 *
 * Versions are exactly 20 decimal digits (zero padded); multi-part numbers
 * exactly 10. Anything that does not match one of the patterns below is not
 * a log file and must be ignored (Hadoop ".x.crc" side files, temp files,
 * sub-directories such as _sidecars/ or _staged_commits/). */
#ifndef LOOM_DELTA_LOG_NAMES_H
#define LOOM_DELTA_LOG_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef enum delta_log_kind {
	DELTA_LOG_COMMIT = 1,        /* N.json */
	DELTA_LOG_CHECKPOINT,        /* N.checkpoint.parquet (classic) */
	DELTA_LOG_CHECKPOINT_PART,   /* N.checkpoint.P.T.parquet (multi-part) */
	DELTA_LOG_CHECKPOINT_V2,     /* N.checkpoint.<uuid>.json|parquet */
	DELTA_LOG_COMPACTION,        /* X.Y.compacted.json */
	DELTA_LOG_CRC,               /* N.crc */
	DELTA_LOG_LAST_CHECKPOINT    /* _last_checkpoint */
} delta_log_kind;

typedef struct delta_log_name {
	delta_log_kind kind;
	int64_t version;       /* N; X for compactions; -1 for _last_checkpoint */
	int64_t end_version;   /* Y for compactions, else == version */
	int32_t part, parts;   /* multi-part: 1-based part and total; else 1, 1 */
	int is_json;           /* V2 checkpoint stored as JSON (else Parquet) */
	char uuid[37];         /* V2 checkpoint UUID, "" otherwise */
} delta_log_name;

/* Classify the base name `name` (no directory) of `len` bytes.
 * Returns 1 and fills *out when it is a Delta log file, 0 when it must be
 * ignored. Never fails. */
int delta_log_name_parse(const char *name, size_t len, delta_log_name *out);

/* The version a log name `name` (NUL-terminated) starts with: exactly 20
 * digits not followed by a 21st; -1 otherwise. */
int64_t delta_log_leading_version(const char *name);

/* Format "%020lld" into `out` (at least 21 bytes). */
void delta_log_format_version(int64_t version, char out[21]);

#endif
