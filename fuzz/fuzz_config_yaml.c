/* fuzz_config_yaml.c - the storage YAML: libyaml documents through the
 * loader (validation with line:column, ${oc.env:VAR} and
 * ${oc.env:VAR,default} interpolation, sizes, nested writer/delta_config
 * flattening), then every route located, the maintenance block read, the
 * config rendered with secrets masked, and its maintenance step explained.
 * A secret value must never appear in the masked JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loom/config.h"
#include "loom/ops.h"
#include "loom/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SECRET "fuzz-secret-value"

static void environment(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	/* variables the inputs (and the dictionary) refer to */
	setenv("LAKE", "/lake", 1);
	setenv("EMPTY", "", 1);
	setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
	setenv("NESTED", "${oc.env:LAKE}", 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	loom_config *cfg = NULL;
	size_t i;

	environment();
	if (loom_config_load_string(&cfg, (const char *)data, size, "fuzz.yaml") < 0)
		return 0;
	for (i = 0; i < loom_config_table_count(cfg); i++) {
		const char *name = loom_config_table_name_at(cfg, i);
		loom_table_location *loc = NULL;
		(void)loom_config_table_has_path_at(cfg, i);
		if (name && loom_config_locate(&loc, cfg, name) == 0)
			loom_table_location_free(loc);
	}
	(void)loom_config_knows(cfg, "raw.events");
	{
		loom_table_location *loc = NULL;
		if (loom_config_locate(&loc, cfg, "raw.events") == 0)
			loom_table_location_free(loc);
	}
	for (i = 0; i < loom_config_maintenance_schema_count(cfg); i++)
		(void)loom_config_maintenance_schema_at(cfg, i);
	{
		loom_vacuum_opts v;
		loom_compact_opts c;
		loom_zorder_opts z;
		(void)loom_config_maintenance_vacuum(&v, cfg);
		(void)loom_config_maintenance_compact(&c, cfg);
		(void)loom_config_maintenance_zorder(&z, cfg);
	}
	{
		char *json = NULL;
		if (loom_config_to_json(&json, cfg) == 0) {
			/* the secret from the environment is never shown (unless the
			 * input itself spells it out somewhere else) */
			if (strstr(json, SECRET) && !memmem(data, size, SECRET, strlen(SECRET)))
				abort();
			loom_string_free(json);
		}
	}
	{
		loom_step *step = NULL;
		char *text = NULL;
		if (loom_step_from_config(&step, cfg) == 0) {
			if (loom_step_explain(&text, step, NULL, cfg, (int)(size & 1)) == 0) {
				if (strstr(text, SECRET) && !memmem(data, size, SECRET, strlen(SECRET)))
					abort();
				loom_string_free(text);
			}
			loom_step_free(step);
		}
	}
	loom_config_free(cfg);
	return 0;
}
