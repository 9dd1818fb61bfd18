/* fuzz_delta_schema.c - metaData.schemaString: the Delta schema JSON
 * (nested structs, arrays, maps, decimal precisions, column mapping
 * metadata) into the typed tree, then every top-level field looked up. */
#include <stddef.h>
#include <stdint.h>

#include "delta/schema.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	loom_arena a;
	delta_schema s;
	size_t i;

	loom_arena_init(&a, 4096);
	if (delta_schema_parse(&a, (const char *)data, size, &s) == 0)
		for (i = 0; i < s.root.num_fields; i++) {
			const delta_field *f = &s.root.fields[i];
			(void)delta_schema_find(&s, f->name);
			(void)delta_field_physical_name(f, 1);
			(void)delta_field_physical_name(f, 0);
		}
	loom_arena_dispose(&a);
	return 0;
}
