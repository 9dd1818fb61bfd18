#!/usr/bin/env bash
# A failing store at the store calls of vacuum, compact (plain and with a
# deletion vector), zorder, checkpoint, cleanup-logs, convert and maintain
# runs (tests/tools/fault_walk.mjs, faults from src/store/fault.h): after
# every faulted run the oracle sees the same rows, `verify` is clean and no
# temp file is left; the next run without faults finishes the job.
# CI walks a seeded sample of the call numbers (LOOM_FAULT_SAMPLE per kind,
# default 6; the sanitizer pass takes 3), one fault mode per call number,
# cycling through the modes (EIO, ENOSPC, transient, short read, lost
# reply, half a listing or batch delete);
# scripts/reliability/fault_walk_all.sh walks every call with every mode.
# LOOM_FAULT_SEED repeats a run's sample.
source "$(dirname "$0")/../tools/lib.sh"
export LOOM_BIN
args=(--sample "${LOOM_FAULT_SAMPLE:-6}" --modes-per-kind "${LOOM_FAULT_MODES:-first}")
[ -n "${LOOM_FAULT_SEED:-}" ] && args+=(--seed "$LOOM_FAULT_SEED")
[ -n "${LOOM_FAULT_SCENARIOS:-}" ] && args+=(--scenarios "$LOOM_FAULT_SCENARIOS")
if TMPDIR="$TEST_TMP" node "$TOOLS/fault_walk.mjs" "${args[@]}"; then pass; else fail "fault walk (above)"; fi
finish
