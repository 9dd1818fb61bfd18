/* plan/native.c - placeholder for the native maintainer.
 *
 * The native vacuum/compact/z-order engine lives in src/ops and is not built
 * yet. When src/ops gains its loom_maintainer_native(), delete this file:
 * the runner already treats a NULL maintainer as "the native engine". */
#include "loom/ops.h"
#include "util/error.h"

LOOM_EXTERN(int) loom_maintainer_native(const loom_maintainer **out)
{
	if (out)
		*out = NULL;
	return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_OPS,
	                "the native maintenance engine (vacuum, compact, z-order) "
	                "is not part of this build of loom yet");
}
