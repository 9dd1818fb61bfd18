/* ops/native.c - the native maintainer: loom's own engine behind the
 * loom_maintainer interface the runner drives. */
#include "loom/ops.h"
#include "util/error.h"

static int native_vacuum(loom_op_result *out, const loom_maintainer *self, const char *uri,
                         const loom_table_location *loc, const loom_vacuum_opts *opts,
                         const loom_cancel *cancel)
{
	(void)self;
	return loom_vacuum(out, uri, loc, opts, cancel);
}

static int native_compact(loom_op_result *out, const loom_maintainer *self, const char *uri,
                          const loom_table_location *loc, const loom_compact_opts *opts,
                          const loom_cancel *cancel)
{
	(void)self;
	return loom_compact(out, uri, loc, opts, cancel);
}

static int native_zorder(loom_op_result *out, const loom_maintainer *self, const char *uri,
                          const loom_table_location *loc, const loom_zorder_opts *opts,
                          const loom_cancel *cancel)
{
	(void)self;
	return loom_zorder(out, uri, loc, opts, cancel);
}

static int native_purge(loom_op_result *out, const loom_maintainer *self, const char *uri,
                        const loom_table_location *loc, const loom_purge_opts *opts,
                        const loom_cancel *cancel)
{
	(void)self;
	return loom_purge(out, uri, loc, opts, cancel);
}

static int native_analyze(loom_op_result *out, const loom_maintainer *self, const char *uri,
                          const loom_table_location *loc, const loom_analyze_opts *opts,
                          const loom_cancel *cancel)
{
	(void)self;
	return loom_analyze(out, uri, loc, opts, cancel);
}

static const loom_maintainer native_maintainer = {
	LOOM_MAINTAINER_VERSION, "native", native_vacuum, native_compact, native_zorder, NULL,
	native_purge, native_analyze
};

LOOM_EXTERN(int) loom_maintainer_native(const loom_maintainer **out)
{
	*out = &native_maintainer;
	return 0;
}
