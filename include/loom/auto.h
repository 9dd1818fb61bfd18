/*
 * loom/auto.h - automatic maintenance (issue 28): each table gets only what
 * the health policy (loom/health.h) recommends.
 *
 *   loom_auto_opts a = LOOM_AUTO_OPTS_INIT;      // policy defaults
 *   loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
 *   v.dry_run = 0;
 *   a.vacuum = &v;                                // the declared vacuum rules
 *   loom_decl *d;
 *   loom_maintain_schema(&d, "raw");
 *   loom_decl_auto(d, &a);                        // MaintainSchema("raw").auto()
 *
 * Per table the "auto" op computes the health (the log only), then, in this
 * order and each only when recommended: Z-order (z_order advice: declared
 * columns, else the columns of the table's last Z-order) or compaction
 * (compact, purge_dvs or cluster advice; a clustered table is clustered by
 * compaction); vacuum with the declared options (never below the table's
 * retention: the retention check stays on; a dry run unless declared
 * otherwise, as for `vacuum`); a checkpoint; log cleanup (expired log files
 * only, as Delta's own writers clean up after a checkpoint). After an op
 * that commits, the health is read again before the next decision. The
 * report's "auto" entry lists for every operation whether it ran or was
 * skipped and the figure that decided ("decisions"), and its metrics carry
 * "<op>.ran" and each sub-operation's metrics as "<op>.<metric>".
 */
#ifndef LOOM_AUTO_H
#define LOOM_AUTO_H

#include "common.h"
#include "health.h"
#include "ops.h"
#include "plan.h"

LOOM_BEGIN_DECL

#define LOOM_AUTO_OPTS_VERSION 1
typedef struct loom_auto_opts {
	unsigned int version;            /* LOOM_AUTO_OPTS_VERSION */
	loom_health_policy policy;       /* thresholds (its zorder_columns are
	                                  * ignored: declare `zorder` instead) */
	const loom_vacuum_opts *vacuum;  /* declared vacuum; NULL = defaults (dry run) */
	const loom_compact_opts *compact;/* declared compaction; NULL = defaults with
	                                  * the policy's target size */
	const loom_zorder_opts *zorder;  /* declared Z-order (columns and options);
	                                  * NULL = the last Z-order's columns */
} loom_auto_opts;
#define LOOM_AUTO_OPTS_INIT { LOOM_AUTO_OPTS_VERSION, LOOM_HEALTH_POLICY_INIT, NULL, NULL, NULL }
/** Fill `o` (of `version`, 1 to LOOM_AUTO_OPTS_VERSION) with the defaults.
 *  LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_auto_opts_init(loom_auto_opts *o, unsigned int version);

/** The "auto" op (options checked and copied, with the strings they point
 *  to). *out starts with one reference: loom_op_free. */
LOOM_EXTERN(int) loom_op_auto(loom_op **out, const loom_auto_opts *opts);
/** MaintainTable(...).auto() / MaintainSchema(...).auto(): append the auto
 *  op to a table or schema declaration. Vacuum / compaction / Z-order
 *  settings go in `opts`: a vacuum, compact or z_order op in the same
 *  declaration (before or after) is refused (LOOM_EINVAL, sticky), since
 *  it would run every time whatever the health says. */
LOOM_EXTERN(int) loom_decl_auto(loom_decl *d, const loom_auto_opts *opts);

/** The storage YAML's auto settings: the policy of `maintenance: {auto:
 *  {...}}` (the defaults when it sets none) and the block's vacuum /
 *  compact / z_order_by as auto's settings (pointers into `cfg`, valid
 *  while it lives). Returns 1 when the block turns auto on, 0 when it does
 *  not (*out filled all the same, for `loom maintain --auto`). */
LOOM_EXTERN(int) loom_config_maintenance_auto(loom_auto_opts *out, const loom_config *cfg);
/** The maintenance block in auto mode, whatever its `auto:` says: a step
 *  named "auto" with one auto declaration per schema (every tables[]
 *  route when it lists none). loom_step_from_config does the same (step
 *  "maintenance") when the block says `auto:`. *out owned by the caller. */
LOOM_EXTERN(int) loom_step_auto_from_config(loom_step **out, const loom_config *cfg);

LOOM_END_DECL

#endif
