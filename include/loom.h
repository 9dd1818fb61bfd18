/*
 * loom.h - the umbrella header of libloom.
 */
#ifndef LOOM_H
#define LOOM_H

#include "loom/common.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "loom/table.h"

#endif
