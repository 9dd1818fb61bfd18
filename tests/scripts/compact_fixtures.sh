#!/usr/bin/env bash
# OPTIMIZE compaction on a copy of every fixture table, judged by the
# independent oracle: the rows a reader sees (fingerprint) never change,
# `verify` passes on every live file (sizes, numRecords, stats min/max/
# nullCount against DuckDB), every partition that had two or more small
# files ends with one, no deletion vector is left, the commit is an
# OPTIMIZE with dataChange=false, a dry run and a second run write nothing.
# Tables loom must refuse are refused with the feature named and left
# byte-for-byte unchanged. Every file the compactions wrote is then read by
# DuckDB, Polars and parquet-wasm (arrow-rs), all in one node process at the
# end: row counts equal to the add's numRecords, column checksums equal.
source "$(dirname "$0")/../tools/lib.sh"

TARGET=64MiB

part_counts() { # snapshot json -> {"<partitionValues>": files}
  jsq "$1" 'JSON.stringify(d.files.reduce((m, f) => { const k = JSON.stringify(f.partitionValues); m[k] = (m[k] || 0) + 1; return m; }, {}))'
}

for name in $(fixture_tables); do
  t=$(copy_table "$name")
  before=$(tree_digest "$t")
  reason=$(fixture_refusal "$name" compact)
  if [ -n "$reason" ]; then
    if "$LOOM_BIN" compact "$t" --target-size $TARGET > "$TEST_TMP/out" 2> "$TEST_TMP/err"; then
      fail "$name: compaction should be refused ($reason)"
    else
      expect "$name: refusal names '$reason': $(head -c 300 "$TEST_TMP/err")" grep -q "$reason" "$TEST_TMP/err"
    fi
    expect "$name: refused table unchanged" test "$before" = "$(tree_digest "$t")"
    continue
  fi

  fixture_oracle "$name" fingerprint > "$TEST_TMP/fp0.json"
  fixture_oracle "$name" snapshot > "$TEST_TMP/s0.json"
  fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
  v0=$(jsq "$TEST_TMP/s0.json" 'd.version')

  # dry run: the plan, and nothing written
  expect "$name: dry run" "$LOOM_BIN" compact "$t" --target-size $TARGET --dry-run --json > "$TEST_TMP/dry.json"
  expect "$name: dry run changes nothing" test "$before" = "$(tree_digest "$t")"

  if ! "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/run.json" 2> "$TEST_TMP/err"; then
    fail "$name: compaction failed: $(head -c 400 "$TEST_TMP/err")"
    continue
  fi
  pass
  expect "$name: the dry run planned what the run did" node -e '
    const a = JSON.parse(require("fs").readFileSync(process.argv[1])), b = JSON.parse(require("fs").readFileSync(process.argv[2]));
    process.exit(a.metrics["filesRemoved.totalFiles"] === b.num_files_removed && a.metrics.numBins === b.metrics.numBins ? 0 : 1)' \
    "$TEST_TMP/dry.json" "$TEST_TMP/run.json"

  oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
  oracle snapshot "$t" > "$TEST_TMP/s1.json"
  expect "$name: fingerprint unchanged" test "$fp0" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
  if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$name: oracle verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi
  expect "$name: no deletion vector left" jsq --assert "$TEST_TMP/s1.json" 'd.files.every(f => !f.deletionVector)'
  # every partition with >= 2 files (all far below the target) now has one
  expect "$name: partitions with several small files now have one" node -e '
    const a = JSON.parse(process.argv[1]), b = JSON.parse(process.argv[2]);
    for (const k of Object.keys(a)) { if (a[k] >= 2 && b[k] !== 1) { console.error(k, a[k], "->", b[k]); process.exit(1); } }
    for (const k of Object.keys(b)) if (!(k in a)) process.exit(1);' \
    "$(part_counts "$TEST_TMP/s0.json")" "$(part_counts "$TEST_TMP/s1.json")"
  n_removed=$(jsq "$TEST_TMP/run.json" 'd.num_files_removed')
  if [ "$n_removed" -gt 0 ]; then
    v1=$(jsq "$TEST_TMP/s1.json" 'd.version')
    expect "$name: one new version" test "$v1" = "$((v0 + 1))"
    commit="$t/_delta_log/$(printf '%020d' "$v1").json"
    expect "$name: OPTIMIZE commit with dataChange=false only" node -e '
      const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
      const ci = lines.find(l => l.commitInfo).commitInfo;
      const files = lines.filter(l => l.add || l.remove).map(l => l.add || l.remove);
      const ok = ci.operation === "OPTIMIZE" && ci.isolationLevel === "SnapshotIsolation" &&
        files.every(f => f.dataChange === false) &&
        lines.filter(l => l.remove).every(l => l.remove.extendedFileMetadata === true && l.remove.size > 0) &&
        Number(ci.operationMetrics.numFilesRemoved) === lines.filter(l => l.remove).length;
      process.exit(ok ? 0 : 1)' "$commit"
    printf '%s\t%s\t%s\n' "$name" "$t" "$commit" >> "$TEST_TMP/new_files.tsv"
  fi

  # a second run writes nothing
  mid=$(tree_digest "$t")
  expect "$name: second run" "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/again.json"
  expect "$name: second run removes nothing" jsq --assert "$TEST_TMP/again.json" 'd.num_files_removed === 0'
  expect "$name: second run writes nothing" test "$mid" = "$(tree_digest "$t")"

  # Nothing to compact (one file per partition)? Give every partition a
  # copy of its file in a new commit, so the rewrite path runs on this
  # table's types, partition values and column mapping too.
  if [ "$n_removed" -eq 0 ]; then
    node "$TOOLS/dup_files.cjs" "$t" "$TEST_TMP/s1.json" > "$TEST_TMP/ndup"
    oracle fingerprint "$t" > "$TEST_TMP/fp2.json"
    fp2=$(jsq "$TEST_TMP/fp2.json" 'd.hash + "/" + d.rows')
    if ! "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/run2.json" 2> "$TEST_TMP/err"; then
      fail "$name (duplicated files): compaction failed: $(head -c 400 "$TEST_TMP/err")"
      continue
    fi
    expect "$name (duplicated files): compacted $(cat "$TEST_TMP/ndup") pairs" \
      jsq --assert "$TEST_TMP/run2.json" "d.num_files_removed === 2 * $(cat "$TEST_TMP/ndup")"
    oracle fingerprint "$t" > "$TEST_TMP/fp3.json"
    expect "$name (duplicated files): fingerprint unchanged" test "$fp2" = "$(jsq "$TEST_TMP/fp3.json" 'd.hash + "/" + d.rows')"
    if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$name (duplicated files): oracle verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi
    oracle snapshot "$t" > "$TEST_TMP/s3.json"
    if [ "$(jsq "$TEST_TMP/run2.json" 'd.num_files_removed')" -gt 0 ]; then
      printf '%s\t%s\t%s\n' "$name (duplicated files)" "$t" "$t/_delta_log/$(printf '%020d' "$(jsq "$TEST_TMP/s3.json" 'd.version')").json" >> "$TEST_TMP/new_files.tsv"
    fi
    # every partition had two files (the original and its copy): one now
    expect "$name (duplicated files): one file per partition again" node -e '
      const a = JSON.parse(process.argv[1]), b = JSON.parse(process.argv[2]);
      process.exit(Object.keys(a).every(k => b[k] === 1) && Object.keys(b).length === Object.keys(a).length ? 0 : 1)' \
      "$(part_counts "$TEST_TMP/s1.json")" "$(part_counts "$TEST_TMP/s3.json")"
  fi
done

# Every file compaction wrote, read by three independent readers.
touch "$TEST_TMP/new_files.tsv"
read_new_files "$TEST_TMP/new_files.tsv"
finish
