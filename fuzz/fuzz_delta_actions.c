/* fuzz_delta_actions.c - commit lines (and V2 JSON checkpoint lines)
 * through both action parsers: the jansson one and the fast paths for
 * add/remove lines and for commitInfo lines (src/delta/actions_fast.c).
 * Differential: whenever a fast path accepts a line, the full parser must
 * accept it too and agree on the action and every field the fast path
 * fills. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/actions.h"
#include "loom/errors.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The two parsers disagree: name the field, then crash for the fuzzer. */
#define AGREE(cond, field)                                                    \
	do {                                                                      \
		if (!(cond)) {                                                        \
			fprintf(stderr, "fast and full parsers disagree on %s\n", field); \
			abort();                                                          \
		}                                                                     \
	} while (0)

static void check_kv(const delta_kv *a, const delta_kv *b, uint32_t n, const char *what)
{
	uint32_t i;
	for (i = 0; i < n; i++)
		AGREE(same_str(a[i].key, b[i].key) && same_str(a[i].value, b[i].value), what);
}

static void check_same_file(const delta_file *fast, const delta_file *full)
{
	AGREE(same_str(fast->path_raw, full->path_raw), "path_raw");
	AGREE(same_str(fast->path, full->path), "path");
	AGREE(fast->key_len == full->key_len && memcmp(fast->key, full->key, fast->key_len) == 0, "key");
	AGREE(fast->size == full->size, "size");
	AGREE(fast->data_change == full->data_change, "dataChange");
	AGREE(fast->num_records == full->num_records, "numRecords");
	AGREE(same_str(fast->stats, full->stats), "stats");
	AGREE(fast->dv.storage_type == full->dv.storage_type, "dv.storageType");
	AGREE(same_str(fast->dv.path_or_inline_dv, full->dv.path_or_inline_dv), "dv.pathOrInlineDv");
	AGREE(fast->dv.has_offset == full->dv.has_offset && fast->dv.offset == full->dv.offset, "dv.offset");
	AGREE(fast->dv.size_in_bytes == full->dv.size_in_bytes, "dv.sizeInBytes");
	AGREE(fast->dv.cardinality == full->dv.cardinality, "dv.cardinality");
	AGREE(fast->modification_time == full->modification_time, "modificationTime");
	AGREE(fast->deletion_timestamp == full->deletion_timestamp, "deletionTimestamp");
	AGREE(fast->base_row_id == full->base_row_id, "baseRowId");
	AGREE(fast->default_row_commit_version == full->default_row_commit_version, "defaultRowCommitVersion");
	AGREE(fast->extended_file_metadata == full->extended_file_metadata, "extendedFileMetadata");
	AGREE(same_str(fast->clustering_provider, full->clustering_provider), "clusteringProvider");
	AGREE(fast->num_partition_values == full->num_partition_values, "partitionValues count");
	check_kv(fast->partition_values, full->partition_values, fast->num_partition_values, "partitionValues");
	AGREE(fast->num_tags == full->num_tags, "tags count");
	check_kv(fast->tags, full->tags, fast->num_tags, "tags");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	delta_parse_scratch fast_scratch, full_scratch;
	const char *p = (const char *)data, *end = p + size;

	delta_parse_scratch_init(&fast_scratch);
	delta_parse_scratch_init(&full_scratch);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		delta_action fast, full;
		json_t *root = NULL;
		int frc, rc;

		delta_parse_scratch_reset(&fast_scratch);
		delta_parse_scratch_reset(&full_scratch);
		frc = delta_action_parse_fast(p, len, "fuzz line", &fast_scratch, &fast);
		rc = delta_action_parse_line(p, len, "fuzz line", &full_scratch, &root, &full);
		if (frc == 1) {
			if (rc < 0)
				fprintf(stderr, "full parser: %s\n", loom_error_last()->message);
			AGREE(rc == 0, "whether the line is valid");
			AGREE(fast.type == full.type, "the action type");
			check_same_file(&fast.u.file, &full.u.file);
		}
		if (rc == 0 && (full.type == DELTA_ACT_ADD || full.type == DELTA_ACT_REMOVE)) {
			loom_buf id = LOOM_BUF_INIT;
			(void)delta_dv_unique_id(&full.u.file.dv, &id);
			loom_buf_dispose(&id);
		}
		delta_parse_scratch_reset(&fast_scratch);
		if (delta_action_commit_info_fast(p, len, &fast_scratch) == 1) {
			if (rc < 0)
				fprintf(stderr, "full parser: %s\n", loom_error_last()->message);
			AGREE(rc == 0, "whether the commitInfo line is valid");
			AGREE(full.type == DELTA_ACT_COMMIT_INFO, "the commitInfo action type");
		}
		json_decref(root);
		(void)delta_stats_num_records(p, len);
		p += len + (nl ? 1 : 0);
	}
	delta_parse_scratch_dispose(&fast_scratch);
	delta_parse_scratch_dispose(&full_scratch);
	return 0;
}
