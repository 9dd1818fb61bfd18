/* delta/actions_json.h - actions of a snapshot as JSON objects, the way a
 * commit or a JSON checkpoint spells them (absent optional fields are
 * left out; feature lists only where the protocol versions call for them).
 * Each function returns a new reference to the action's inner object
 * (wrap it as {"protocol": ...}), or NULL when out of memory. */
#ifndef LOOM_DELTA_ACTIONS_JSON_H
#define LOOM_DELTA_ACTIONS_JSON_H

#include <jansson.h>

#include "delta/actions.h"

json_t *delta_protocol_json(const delta_protocol *p);
json_t *delta_metadata_json(const delta_metadata *m);
json_t *delta_txn_json(const delta_txn *t);
json_t *delta_domain_json(const delta_domain *d);

/* {"<name>": inner}, stealing `inner`; NULL if inner is NULL or on OOM. */
json_t *delta_action_wrap(const char *name, json_t *inner);

#endif
