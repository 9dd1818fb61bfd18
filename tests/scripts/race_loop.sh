#!/usr/bin/env bash
# Compaction and Z-order racing a blind append, a DELETE of a file, a
# DELETE through a deletion vector, a full vacuum, a checkpoint and a second
# run of themselves (tests/tools/race_trials.mjs): at every version the race
# committed the oracle finds the rows a serial history gives, every loser
# aborts on the conflict (leaving no file) or retries past the winner, and
# verify is clean. LOOM_RACE_RUNS races per competitor (scripts/test.sh:
# 10, 3 under the sanitizers); the reported campaign is
# scripts/reliability/race_campaign.sh.
source "$(dirname "$0")/../tools/lib.sh"
export LOOM_BIN
runs="${LOOM_RACE_RUNS:-${LOOM_CRASH_RUNS:-10}}"
args=(--races $((runs * 6)))
[ -n "${LOOM_RACE_SEED:-}" ] && args+=(--seed "$LOOM_RACE_SEED")
if TMPDIR="$TEST_TMP" node "$TOOLS/race_trials.mjs" "${args[@]}"; then pass; else fail "races (above)"; fi
finish
