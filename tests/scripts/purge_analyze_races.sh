#!/usr/bin/env bash
# purge and analyze (issue 32) racing a blind append, a DELETE that adds a
# deletion vector to a file without one (dv) and one that deletes more rows
# of a file that has one (dv-more: a file the purge is rewriting)
# (tests/tools/race_trials.mjs; the template has 3 files with DVs so the
# purge has work): at every committed version the oracle
# finds the rows a serial history gives (no row lost or resurrected: a
# purge or analyze that lost to the DELETE aborts on the conflict rather
# than re-adding the file the DELETE replaced), appends never conflict,
# verify is clean and a loser leaves no new file. LOOM_RACE_RUNS races per
# maintainer and competitor (default 3).
source "$(dirname "$0")/../tools/lib.sh"
export LOOM_BIN
runs="${LOOM_RACE_RUNS:-3}"
args=(--maintainers purge,analyze --kinds append,dv,dv-more --template-dvs 3 --races $((runs * 6)))
[ -n "${LOOM_RACE_SEED:-}" ] && args+=(--seed "$LOOM_RACE_SEED")
if TMPDIR="$TEST_TMP" node "$TOOLS/race_trials.mjs" "${args[@]}"; then pass; else fail "races (above)"; fi
finish
