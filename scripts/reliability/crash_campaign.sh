#!/usr/bin/env bash
# The kill -9 campaign: RUNS trials (default 75) for each of vacuum,
# compact, compact with a deletion vector, zorder, checkpoint, cleanup-logs,
# convert and maintain (tests/tools/crash_trials.mjs; 8 x 75 = 600 trials).
# Needs a build (build/loom) and the oracle (scripts/test.sh installs both).
#   scripts/reliability/crash_campaign.sh [RUNS] [--seed S]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export LOOM_SOURCE_DIR="$here"
export LOOM_BIN="${LOOM_BIN:-$here/build/loom}"
source "$here/tests/tools/oracle_env.sh"
runs="${1:-75}"; shift || true
exec nice node "$here/tests/tools/crash_trials.mjs" --runs "$runs" "$@"
