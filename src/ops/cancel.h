/* ops/cancel.h - the cancel token behind loom_cancel (include/loom/ops.h):
 * the runner owns one and sets it; operations poll loom_cancel_requested
 * between files. */
#ifndef LOOM_OPS_CANCEL_H
#define LOOM_OPS_CANCEL_H

#include "loom/ops.h"

int ops_cancel_new(loom_cancel **out);
void ops_cancel_set(loom_cancel *c, int v);
void ops_cancel_free(loom_cancel *c);

#endif
