#!/usr/bin/env bash
# The race campaign: RACES races (default 1200) of compaction and Z-order
# against appends, file and deletion-vector deletes, vacuum, checkpoint and
# a second compaction (tests/tools/race_trials.mjs). Needs a build
# (build/loom, build/tests/race_writer) and the oracle.
#   scripts/reliability/race_campaign.sh [RACES] [--seed S]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export LOOM_SOURCE_DIR="$here"
export LOOM_BIN="${LOOM_BIN:-$here/build/loom}"
export LOOM_BUILD_DIR="${LOOM_BUILD_DIR:-$here/build}"
source "$here/tests/tools/oracle_env.sh"
races="${1:-1200}"; shift || true
exec nice node "$here/tests/tools/race_trials.mjs" --races "$races" "$@"
