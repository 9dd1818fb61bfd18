/* fuzz_delta_checkpoint.c - Parquet checkpoint files and sidecars through
 * the checkpoint reader (src/delta/checkpoint_parquet.c): projection of the
 * action columns, stats_parsed, partitionValues_parsed, deletion vector
 * structs. Every action it yields must make a reconciliation key. */
#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "delta/checkpoint.h"
#include "util/buf.h"
#include "mem_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int take(void *ctx, const delta_action *a)
{
	loom_buf *ids = ctx;
	if (a->type == DELTA_ACT_ADD || a->type == DELTA_ACT_REMOVE) {
		(void)loom_buf_put(ids, a->u.file.key, a->u.file.key_len);
		(void)delta_dv_unique_id(&a->u.file.dv, ids);
		if (a->u.file.stats)
			(void)delta_stats_num_records(a->u.file.stats, strlen(a->u.file.stats));
	}
	ids->size = 0;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mem_store m;
	loom_buf ids = LOOM_BUF_INIT;

	mem_store_init(&m, data, size);
	(void)delta_checkpoint_parquet_read(&m.base, "_delta_log/00000000000000000010.checkpoint.parquet",
	                                    10, take, &ids);
	loom_buf_dispose(&ids);
	return 0;
}
