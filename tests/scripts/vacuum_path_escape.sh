#!/usr/bin/env bash
# A crafted log whose removes point outside the table root ("../x",
# absolute paths, file:// URIs, a path through a symlinked directory that
# leads out) must make VACUUM delete nothing outside the root, in lite and
# full mode, dry or not.
source "$(dirname "$0")/../tools/lib.sh"

t=$(copy_table simple_table)
outside="$TEST_TMP/outside"
mkdir -p "$outside/deep"
for f in rel.parquet abs.parquet uri.parquet linked.parquet deep/x.parquet; do
  echo keep > "$outside/$f"; touch -d '30 days ago' "$outside/$f"
done
ln -s "$outside" "$t/link"
# the table sits at $TEST_TMP/simple_table.N, so ../outside/... escapes it
rel="../outside/rel.parquet"
cat > "$t/_delta_log/00000000000000000005.json" <<JSON
{"commitInfo":{"operation":"DELETE"}}
{"remove":{"path":"$rel","deletionTimestamp":1,"dataChange":true}}
{"remove":{"path":"$outside/abs.parquet","deletionTimestamp":1,"dataChange":true}}
{"remove":{"path":"file://$outside/uri.parquet","deletionTimestamp":1,"dataChange":true}}
{"remove":{"path":"link/linked.parquet","deletionTimestamp":1,"dataChange":true}}
{"remove":{"path":"a/%2E%2E/%2E%2E/outside/deep/x.parquet","deletionTimestamp":1,"dataChange":true}}
JSON
before=$(tree_digest "$outside")
for mode in "" "--full"; do
  expect "vacuum $mode dry run" "$LOOM_BIN" vacuum "$t" $mode --retention-hours 0 --no-retention-check --json > "$TEST_TMP/dry.json"
  expect "dry run lists nothing outside ($mode)" jsq --assert "$TEST_TMP/dry.json" '!d.files.some(f => f.includes("..") || f.startsWith("/") || f.startsWith("link/") || f.includes("outside"))'
  expect "vacuum $mode" "$LOOM_BIN" vacuum "$t" $mode --no-dry-run --retention-hours 0 --no-retention-check --json > "$TEST_TMP/real.json"
  expect "outside files untouched after vacuum $mode" test "$before" = "$(tree_digest "$outside")"
  expect "the symlink itself is kept ($mode)" test -L "$t/link"
done
# the table still reads the same
expect "oracle verify" oracle verify "$t" > /dev/null
finish
