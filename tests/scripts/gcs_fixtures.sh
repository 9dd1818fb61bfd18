#!/usr/bin/env bash
# Every shared fixture table on a GCS server (firebase-tools' Storage
# emulator behind shared/'s gcs-front.cjs, tests/tools/gcs/gcs.sh),
# uploaded by Google's @google-cloud/storage (tests/tools/gcs/gcsclient.cjs):
#  1. `loom inspect gs://...` equals the oracle's snapshot of the table as
#     the SDK downloads it again (state, tombstones, rows after deletion
#     vectors, deleted rows);
#  2. on a second copy with planted orphans and hidden files: VACUUM FULL at
#     retention 0, compaction and Z-order (tables loom must refuse are
#     refused, naming why); the SDK downloads the result and the oracle
#     judges it: fingerprint unchanged, `verify` clean, no visible
#     unreferenced file left, planted orphans gone, hidden files kept.
# The checks are the Azure sweep's (tests/tools/azure/fixtures_check.py
# takes any URI prefix). The sanitizer pass (LOOM_FIXTURE_SAMPLE) takes
# every Nth table and the rare-path ones (tests/tools/lib.sh fixture_tables).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/gcs/gcs.sh"
CHECK="$TOOLS/azure/fixtures_check.py"
gcs_start
tables=$(fixture_tables)

# the pristine tables, and copies with planted files
mkdir -p "$TEST_TMP/ops" "$TEST_TMP/work" "$TEST_TMP/down" "$TEST_TMP/pristine/delta"
for name in $tables; do
  t="$TEST_TMP/ops/$name"
  cp -r "$LOOM_FIXTURES_DIR/delta/$name" "$t"
  chmod -R u+w "$t"
  mkdir -p "$t/sub"
  for f in orphan-1.parquet sub/orphan-2.parquet _hidden.parquet .hidden-file; do echo planted > "$t/$f"; done
done
gcsc upload "$TEST_TMP/ops" copies
mkdir -p "$TEST_TMP/fx"
for name in $tables; do ln -s "$LOOM_FIXTURES_DIR/delta/$name" "$TEST_TMP/fx/$name"; done
gcsc upload "$TEST_TMP/fx" pristine
# the oracle reads what the server holds, as the SDK downloads it (its
# answers are shared with the other sweeps when the bytes are the same:
# tests/tools/fixture_oracle.sh keys them by content)
gcsc download pristine "$TEST_TMP/pristine/delta"
# a missing data file of the log-only fixture: the server's 404
export LOOM_MISSING_OBJECT_WORD="HTTP 404"

cd "$TEST_TMP/work"
# shellcheck disable=SC2086
LOOM_FIXTURES_DIR="$TEST_TMP/pristine" python3 "$CHECK" inspect "$LOOM_BIN" "$TOOLS/oracle.sh" "$TEST_TMP/pristine/delta" gs://pristine $tables && pass || fail "inspect over gs:// (above)"
# shellcheck disable=SC2086
python3 "$CHECK" maintain "$LOOM_BIN" gs://copies $tables && pass || fail "maintenance over gs:// (above)"
gcsc download copies "$TEST_TMP/down"
# shellcheck disable=SC2086
python3 "$CHECK" judge "$LOOM_BIN" "$TOOLS/oracle.sh" "$LOOM_FIXTURES_DIR/delta" "$TEST_TMP/down" $tables && pass || fail "the downloaded tables (above)"
finish
