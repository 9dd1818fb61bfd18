#!/usr/bin/env bash
# Every Delta fixture table uploaded to S3 (Ceph RGW, by awscli): `loom
# inspect s3://...` (state, protocol, metadata, live files with sizes,
# partition values, stats and deletion vectors, tombstones, decoded deleted
# rows) equals the independent oracle's snapshot of the local copy - the
# comparison of tests/scripts/delta_snapshot_compare.py, with loom reading
# from the bucket. The sanitizer pass samples the tables (LOOM_FIXTURE_SAMPLE).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

bucket=$(s3_new_bucket inspect) || { fail "cannot create a bucket"; finish; exit 1; }
expect "fixtures uploaded" s3cli s3 sync --quiet --only-show-errors "$LOOM_FIXTURES_DIR/delta" "s3://$bucket/delta"
export LOOM_INSPECT_BASE="s3://$bucket/delta"
if python3 "$LOOM_SOURCE_DIR/tests/scripts/delta_snapshot_compare.py" latest "$LOOM_BIN" \
  "$TOOLS/oracle.sh" "$LOOM_FIXTURES_DIR/delta" "$LOOM_FIXTURES_DIR/MANIFEST.tsv" > "$TEST_TMP/latest.out" 2>&1; then
  pass
else
  fail "loom inspect on S3 differs from the oracle (above)"
fi
grep -E "FAIL|tables," "$TEST_TMP/latest.out" || cat "$TEST_TMP/latest.out"
finish
