# Sourced by tests/scripts/zorder_fixtures_{1,2}.sh with ZORDER_SHARD=1|2
# (each takes every other fixture, to keep each test under a minute).
# Z-order on a copy of every fixture table, on its first two orderable
# non-partition columns (one when it has only one), judged by the oracle:
# the rows never change (fingerprint), `verify` passes on every live file,
# the commit is an OPTIMIZE with dataChange=false and zOrderBy, every add
# carries the loom.zorder tag, a second run writes nothing. Tables loom must
# refuse are refused with the reason named and left byte-for-byte unchanged.

TARGET=64MiB

pick_columns() { # snapshot json -> "a,b" (orderable, non-partition, top-level)
  jsq "$1" '(() => {
    const ok = /^(string|long|integer|short|byte|float|double|boolean|binary|date|timestamp|timestamp_ntz|decimal\(.*\))$/;
    const parts = new Set(d.metadata.partitionColumns);
    return d.metadata.schema.fields.filter(f => typeof f.type === "string" && ok.test(f.type) && !parts.has(f.name))
      .slice(0, 2).map(f => f.name).join(",");
  })()'
}

# every fixture table (the sanitizer pass samples them: fixture_tables)
idx=0
for name in $(fixture_tables); do
  idx=$((idx + 1))
  [ $((idx % 2 + 1)) = "$ZORDER_SHARD" ] || continue
  t=$(copy_table "$name")
  before=$(tree_digest "$t")
  reason=$(fixture_refusal "$name" zorder)
  if ! fixture_oracle "$name" snapshot > "$TEST_TMP/s0.json" 2> /dev/null; then
    [ -n "$reason" ] || { fail "$name: oracle cannot read the table"; continue; }
    cols=id
  else
    cols=$(pick_columns "$TEST_TMP/s0.json")
  fi
  if [ -z "$cols" ]; then
    echo "$name: no orderable non-partition column: skipped" >&2
    continue
  fi
  if [ -n "$reason" ]; then
    if "$LOOM_BIN" zorder "$t" --columns "$cols" --target-size $TARGET > "$TEST_TMP/out" 2> "$TEST_TMP/err"; then
      fail "$name: z-order should be refused ($reason)"
    else
      expect "$name: refusal names '$reason': $(head -c 300 "$TEST_TMP/err")" grep -q "$reason" "$TEST_TMP/err"
    fi
    expect "$name: refused table unchanged" test "$before" = "$(tree_digest "$t")"
    continue
  fi
  fixture_oracle "$name" fingerprint > "$TEST_TMP/fp0.json"
  fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
  v0=$(jsq "$TEST_TMP/s0.json" 'd.version')
  expect "$name: dry run" "$LOOM_BIN" zorder "$t" --columns "$cols" --target-size $TARGET --dry-run --json > "$TEST_TMP/dry.json"
  expect "$name: dry run changes nothing" test "$before" = "$(tree_digest "$t")"
  if ! "$LOOM_BIN" zorder "$t" --columns "$cols" --target-size $TARGET --json > "$TEST_TMP/run.json" 2> "$TEST_TMP/err"; then
    fail "$name: z-order by $cols failed: $(head -c 400 "$TEST_TMP/err")"
    continue
  fi
  pass
  expect "$name ($cols): fingerprint unchanged" test "$fp0" = "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')"
  if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$name: oracle verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi
  n_removed=$(jsq "$TEST_TMP/run.json" 'd.num_files_removed')
  expect "$name: dry run planned what the run did" test "$(jsq "$TEST_TMP/dry.json" 'd.metrics["filesRemoved.totalFiles"]')" = "$n_removed"
  if [ "$n_removed" -gt 0 ]; then
    v1=$(oracle snapshot "$t" | jsq - 'd.version')
    expect "$name: one new version" test "$v1" = "$((v0 + 1))"
    expect "$name: OPTIMIZE zOrderBy commit, dataChange=false, tagged adds" node -e '
      const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
      const ci = lines.find(l => l.commitInfo).commitInfo;
      const files = lines.filter(l => l.add || l.remove).map(l => l.add || l.remove);
      const want = "hilbert:" + process.argv[2];
      const ok = ci.operation === "OPTIMIZE" && JSON.parse(ci.operationParameters.zOrderBy).join(",") === process.argv[2] &&
        files.every(f => f.dataChange === false) &&
        lines.filter(l => l.add).every(l => l.add.tags && l.add.tags["loom.zorder"] === want);
      process.exit(ok ? 0 : 1)' "$t/_delta_log/$(printf '%020d' "$v1").json" "$cols"
  fi
  mid=$(tree_digest "$t")
  expect "$name: second run" "$LOOM_BIN" zorder "$t" --columns "$cols" --target-size $TARGET --json > "$TEST_TMP/again.json"
  expect "$name: second run writes nothing" test "$mid" = "$(tree_digest "$t")"
done
finish
