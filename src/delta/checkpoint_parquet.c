/* delta/checkpoint_parquet.c - Parquet checkpoints and sidecars.
 *
 * The Parquet reader (src/parquet/reader.h) is not in this tree yet, so
 * this reports LOOM_EUNSUPPORTED; the snapshot loader then falls back to
 * replaying JSON commits when they are all still present. */
#include "delta/checkpoint.h"

#include "util/error.h"

int delta_checkpoint_parquet_available(void)
{
	return 0;
}

int delta_checkpoint_parquet_read(loom_store *store, const char *key,
                                  int64_t version, delta_action_sink sink,
                                  void *ctx)
{
	(void)store;
	(void)version;
	(void)sink;
	(void)ctx;
	return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
	                "%s: parquet checkpoint reading not available", key);
}
