/* util/size.h - byte sizes as people write them: 134217728, "128MiB",
 * "1.5 GB". The one size parser of loom: options, environment variables,
 * the YAML and the CLI all read sizes through it. The functions are the
 * public loom_size_parse / loom_size_format of loom/config.h. */
#ifndef LOOM_UTIL_SIZE_H
#define LOOM_UTIL_SIZE_H

#include "loom/config.h"

#endif
