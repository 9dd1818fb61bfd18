/* store/http/json.h - what services' JSON answers need beyond jansson. */
#ifndef LOOM_STORE_HTTP_JSON_H
#define LOOM_STORE_HTTP_JSON_H

#include <jansson.h>
#include <stdint.h>

/* A JSON number or a string of one (Google sends int64 fields as strings,
 * token endpoints send expires_in either way); 0 for anything else. */
int64_t json_int64_of(const json_t *v);

#endif
