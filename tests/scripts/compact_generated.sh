#!/usr/bin/env bash
# 2,000 small Parquet files in 20 Hive partitions, written by DuckDB, made a
# Delta table by `loom convert`, then compacted. Judged by the oracle:
#  - convert: the table's rows equal the raw files' rows (fingerprint vs
#    fingerprint-parquet), verify passes (stats vs DuckDB), partition values
#    unescaped and typed;
#  - a partition filter compacts only that partition;
#  - compaction: fingerprint unchanged, verify passes, file count within
#    10 % of the ideal sum over partitions of ceil(bytes / target);
#  - a second run writes nothing; convert refuses an existing table and a
#    file outside the partition layout;
#  - every file the two compactions wrote is read by DuckDB, Polars and
#    parquet-wasm (rows = the add's numRecords, column checksums equal).
source "$(dirname "$0")/../tools/lib.sh"

t="$TEST_TMP/gen"
node "$TOOLS/gen_small_files.cjs" "$t" 20 2000 100
DATA_COLS=id,v,s,ts,d,dec,l,st

expect "convert" "$LOOM_BIN" convert "$t" --partition-by p,q --json > "$TEST_TMP/conv.json"
expect "convert adopted 2000 files" jsq --assert "$TEST_TMP/conv.json" 'd.num_files === 2000 && d.num_records === 200000 && d.version === 0'
oracle fingerprint "$t" --columns $DATA_COLS > "$TEST_TMP/fpt.json"
oracle fingerprint-parquet "$t" --schema-from "$t" --columns $DATA_COLS > "$TEST_TMP/fpp.json"
expect "converted table rows = the files' rows" test "$(jsq "$TEST_TMP/fpt.json" 'd.hash + "/" + d.rows')" = "$(jsq "$TEST_TMP/fpp.json" 'd.hash + "/" + d.rows')"
if oracle verify "$t" > "$TEST_TMP/v0.json"; then pass; else fail "verify after convert: $(head -c 800 "$TEST_TMP/v0.json")"; fi
oracle snapshot "$t" > "$TEST_TMP/s0.json"
expect "partition values unescaped" jsq --assert "$TEST_TMP/s0.json" \
  'd.files.some(f => f.partitionValues.q === "a:b") && d.files.some(f => f.partitionValues.q === "x y") && d.files.length === 2000'
expect "partition p typed long, q string" jsq --assert "$TEST_TMP/s0.json" \
  'd.metadata.schema.fields.find(f => f.name === "p").type === "long" && d.metadata.schema.fields.find(f => f.name === "q").type === "string"'
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')

# convert refuses an existing table, and a file outside the layout
before=$(tree_digest "$t")
if "$LOOM_BIN" convert "$t" --partition-by p,q 2> "$TEST_TMP/err"; then fail "second convert should be refused"; else
  expect "second convert names the existing log" grep -q "already a Delta table" "$TEST_TMP/err"; fi
expect "refused convert changed nothing" test "$before" = "$(tree_digest "$t")"
bad="$TEST_TMP/bad"; mkdir -p "$bad/p=1"
cp "$t/p=0/q=x y/part-00000.parquet" "$bad/p=1/"; cp "$t/p=0/q=x y/part-00000.parquet" "$bad/stray.parquet"
if "$LOOM_BIN" convert "$bad" --partition-by p 2> "$TEST_TMP/err"; then fail "convert with a stray file should be refused"; else
  expect "refusal names the stray file" grep -q "stray.parquet" "$TEST_TMP/err"; fi
expect "refused convert wrote no log" test ! -e "$bad/_delta_log/00000000000000000000.json"

# a partition filter touches one partition only
expect "filtered compaction" "$LOOM_BIN" compact "$t" --target-size 128KiB --partition p=3 --partition 'q=x y' --json > "$TEST_TMP/f.json"
oracle snapshot "$t" > "$TEST_TMP/sf.json"
expect "filter: only p=3/q='x y' rewritten" node -e '
  const a = JSON.parse(require("fs").readFileSync(process.argv[1])), b = JSON.parse(require("fs").readFileSync(process.argv[2]));
  const key = f => f.partitionValues.p + "/" + f.partitionValues.q;
  const count = s => s.files.reduce((m, f) => (m[key(f)] = (m[key(f)] || 0) + 1, m), {});
  const ca = count(a), cb = count(b);
  for (const k of Object.keys(ca)) { if (k === "3/x y" ? !(cb[k] < ca[k]) : cb[k] !== ca[k]) { console.error(k, ca[k], cb[k]); process.exit(1); } }' \
  "$TEST_TMP/s0.json" "$TEST_TMP/sf.json"

# full compaction
TARGET=131072
expect "compaction" "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/c.json"
oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
expect "fingerprint unchanged" test "$fp0" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
if oracle verify "$t" > "$TEST_TMP/v1.json"; then pass; else fail "verify after compaction: $(head -c 800 "$TEST_TMP/v1.json")"; fi
oracle snapshot "$t" > "$TEST_TMP/s1.json"
expect "file count within 10% of ideal" node -e '
  const a = JSON.parse(require("fs").readFileSync(process.argv[1])), b = JSON.parse(require("fs").readFileSync(process.argv[2]));
  const T = +process.argv[3];
  const key = f => f.partitionValues.p + "/" + f.partitionValues.q;
  const bytes = {}; for (const f of a.files) bytes[key(f)] = (bytes[key(f)] || 0) + f.size;
  const ideal = Object.values(bytes).reduce((s, v) => s + Math.ceil(v / T), 0);
  const got = b.files.length;
  console.log(`files: ${a.files.length} -> ${got}, ideal ${ideal}`);
  process.exit(got >= ideal * 0.9 && got <= ideal * 1.1 ? 0 : 1)' "$TEST_TMP/s0.json" "$TEST_TMP/s1.json" $TARGET
expect "new files under their Hive directories" jsq --assert "$TEST_TMP/s1.json" \
  'd.files.every(f => f.path.startsWith("p=" + f.partitionValues.p + "/q=" + (f.partitionValues.q === "a:b" ? "a%3Ab" : "x y") + "/part-00000-"))'

# every file both compactions wrote, read by three independent readers
log() { echo "$t/_delta_log/$(printf '%020d' "$(jsq "$1" 'd.version')").json"; }
printf 'filtered\t%s\t%s\nfull\t%s\t%s\n' "$t" "$(log "$TEST_TMP/sf.json")" "$t" "$(log "$TEST_TMP/s1.json")" > "$TEST_TMP/new_files.tsv"
read_new_files "$TEST_TMP/new_files.tsv"

mid=$(tree_digest "$t")
expect "second run" "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/again.json"
expect "second run removes nothing" jsq --assert "$TEST_TMP/again.json" 'd.num_files_removed === 0'
expect "second run writes nothing" test "$mid" = "$(tree_digest "$t")"
finish
