/* delta/domains.h - the system domains loom reads (PROTOCOL.md "Domain
 * Metadata"): the clustering columns of a clustered table and the row
 * tracking high-water mark. Filled into the snapshot when it is loaded. */
#ifndef LOOM_DELTA_DOMAINS_H
#define LOOM_DELTA_DOMAINS_H

#include <stddef.h>
#include <stdint.h>

#include "delta/schema.h"
#include "util/arena.h"

typedef struct delta_domain delta_domain;

typedef struct delta_table_domains {
	/* Clustering columns, each a path of physical names joined by '.',
	 * from domain delta.clustering (or the Databricks preview's
	 * delta.liquid); NULL-terminated, NULL when the table has neither. */
	const char **clustering_columns;
	size_t num_clustering_columns;
	const char *clustering_domain;     /* which domain they came from */
	/* The same columns as logical paths (schema names joined by '.'),
	 * entry NULL for a column the schema does not have; NULL with the
	 * columns. Filled by delta_domains_resolve_logical. */
	const char **clustering_logical;
	/* delta.rowTracking's rowIdHighWaterMark, -1 without the domain. */
	int64_t row_id_high_water_mark;
} delta_table_domains;

/* Parse from the live domains into `arena`. A domain loom cannot parse is
 * not an error (reading never needs it): *warning (arena string, or NULL)
 * says which and why. LOOM_ENOMEM only. */
int delta_domains_parse(loom_arena *arena, const delta_domain *domains, size_t n,
                        delta_table_domains *out, const char **warning);

/* Resolve the clustering columns' physical paths against `schema` (field
 * by field, by physical name under column mapping `column_mapping` != 0,
 * else by name) into out->clustering_logical. LOOM_ENOMEM only. */
int delta_domains_resolve_logical(loom_arena *arena, delta_table_domains *out,
                                  const delta_schema *schema, int column_mapping);

#endif
