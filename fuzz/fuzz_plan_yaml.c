/* fuzz_plan_yaml.c - plan files: named steps of table/schema declarations
 * with vacuum / compact / z_order_by options (sizes, booleans, column
 * lists, ${oc.env:...}), each step resolved and explained against a fixed
 * storage config. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loom/config.h"
#include "loom/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char CONFIG[] =
	"storage:\n"
	"  defaults:\n"
	"    table_path: {uri: /lake, target_file_size: 64MiB}\n"
	"  tables:\n"
	"    - name: raw.events\n"
	"      path: {uri: /lake/raw/events}\n"
	"    - name: staging.orders\n"
	"      path: /lake/staging/orders\n"
	"    - name: gold.revenue\n"
	"      ref: main.gold.revenue\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static loom_config *cfg;
	loom_plan *plan = NULL;
	size_t i;

	if (!cfg) {
		setenv("LAKE", "/lake", 1);
		if (loom_config_load_string(&cfg, CONFIG, sizeof(CONFIG) - 1, "config") < 0)
			abort();
	}
	if (loom_plan_load_string(&plan, (const char *)data, size, "fuzz-plan.yaml") < 0)
		return 0;
	for (i = 0; i < loom_plan_step_count(plan); i++) {
		const loom_step *step = loom_plan_step_at(plan, i);
		loom_spec_list *specs = NULL;
		char *text = NULL;
		(void)loom_plan_step(plan, loom_step_name(step));
		if (loom_step_resolve(&specs, step, NULL, cfg) == 0)
			loom_spec_list_free(specs);
		if (loom_step_explain(&text, step, NULL, cfg, (int)(i & 1)) == 0)
			loom_string_free(text);
	}
	loom_plan_free(plan);
	return 0;
}
