#!/usr/bin/env bash
# kill -9 in the middle of zorder, cleanup-logs, convert and maintain runs
# (vacuum, compact and checkpoint have their own crash tests), half at a
# random moment and half at a random store call (tests/tools/crash_trials.mjs):
# the oracle reads the same rows after every kill, and the next run finishes
# the job with no temp file left in _delta_log. LOOM_CRASH_RUNS trials per
# operation (scripts/test.sh: 10, 3 under the sanitizers); the reported
# campaign is scripts/reliability/crash_campaign.sh.
source "$(dirname "$0")/../tools/lib.sh"
export LOOM_BIN
args=(--runs "${LOOM_CRASH_RUNS:-10}" --scenarios "${LOOM_CRASH_SCENARIOS:-zorder,cleanup-logs,convert,maintain}")
[ -n "${LOOM_CRASH_SEED:-}" ] && args+=(--seed "$LOOM_CRASH_SEED")
if TMPDIR="$TEST_TMP" node "$TOOLS/crash_trials.mjs" "${args[@]}"; then pass; else fail "crash trials (above)"; fi
finish
