#!/usr/bin/env bash
# Type widening through rewrites (PROTOCOL.md "Type Widening"): compaction
# and Z-order of the `type-widening` fixture (one file written before 13
# type changes, one after: byte/int -> long, float/byte/short/int ->
# double, decimal scale/precision increases, integral -> decimal, date ->
# timestamp_ntz) and compaction of a generated table widened inside a
# struct, a map value and an array element. Judged by the oracle
# (fingerprint: every column cast to the table's type; verify), and by
# DuckDB's reading of each new file's Parquet schema: every column has the
# table's type (the newer fixture file's types, or BIGINT in the generated
# table), no rewritten file keeps an old one. A stored type no widening
# allows is refused with the column named, the table unchanged.
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH
WIDE=part-00000-61accb66-b740-416b-9f5b-f0fccaceb415-c000.snappy.parquet # written after the changes

# The physical/logical types DuckDB reads from each file the last commit
# added, as "name:type:logical" lines; `want` = those of the file WANT.
types_of_new() { # TABLE [WANT_FILE]
  node -e '
const { DuckDBInstance } = require("@duckdb/node-api");
const fs = require("fs"), path = require("path");
(async () => {
  const [t, want] = process.argv.slice(1);
  const log = path.join(t, "_delta_log");
  const last = fs.readdirSync(log).filter((n) => /^\d{20}\.json$/.test(n)).sort().pop();
  const adds = fs.readFileSync(path.join(log, last), "utf8").split("\n").filter(Boolean).map(JSON.parse).filter((a) => a.add).map((a) => a.add);
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  const schema = async (f) => (await conn.runAndReadAll(`SELECT name, type, logical_type FROM parquet_schema(${"\x27"}${f}${"\x27"})
      WHERE num_children IS NULL OR num_children = 0 ORDER BY name`)).getRows().map((r) => r.map(String).join(":")).join("\n");
  const ref = want ? await schema(path.join(t, want)) : null;
  if (!adds.length) { console.error("no file added"); process.exit(1); }
  for (const a of adds) {
    const s = await schema(path.join(t, decodeURIComponent(a.path)));
    if (ref !== null && s !== ref) { console.error(`${a.path}:\n${s}\nwant:\n${ref}`); process.exit(1); }
    if (ref === null) console.log(s);
  }
})().catch((e) => { console.error(e.message); process.exit(2); });' "$@"
}

judge() { # STEP TABLE FP0
  oracle fingerprint "$2" > "$TEST_TMP/fp1.json"
  expect "$1: rows unchanged (oracle fingerprint)" test "$(jsq "$3" 'd.hash + "/" + d.rows')" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
  if oracle verify "$2" > "$TEST_TMP/v.json"; then pass; else fail "$1: verify: $(head -c 800 "$TEST_TMP/v.json")"; fi
}

for op in compact zorder; do
  t=$(copy_table type-widening)
  oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
  if [ $op = compact ]; then
    expect "fixture compaction" "$LOOM_BIN" compact "$t" --target-size 64MiB --json > "$TEST_TMP/op.json"
  else
    expect "fixture Z-order" "$LOOM_BIN" zorder "$t" --columns byte_long,date_timestamp_ntz --target-size 64MiB --json > "$TEST_TMP/op.json"
  fi
  expect "fixture $op: both files rewritten into one" jsq --assert "$TEST_TMP/op.json" 'd.num_files_removed === 2 && d.num_files_added === 1'
  judge "fixture $op" "$t" "$TEST_TMP/fp0.json"
  expect "fixture $op: the new file has the table's types (those of the file written after the changes)" types_of_new "$t" "$WIDE"
done

# nested widenings, generated
g="$TEST_TMP/nested"
node "$TOOLS/gen_widened.cjs" "$g" nested
oracle fingerprint "$g" > "$TEST_TMP/fp0.json"
expect "nested: compaction" "$LOOM_BIN" compact "$g" --target-size 64MiB --json > "$TEST_TMP/op.json"
judge "nested compaction" "$g" "$TEST_TMP/fp0.json"
types_of_new "$g" > "$TEST_TMP/types.txt"
expect "nested: every integer leaf written as INT64 (DuckDB: $(tr '\n' ' ' < "$TEST_TMP/types.txt"))" \
  sh -c "! grep -q INT32 '$TEST_TMP/types.txt' && [ \$(grep -c ':INT64:' '$TEST_TMP/types.txt') -eq 4 ]"

# a stored type the table's cannot widen from: refused, unchanged
b="$TEST_TMP/bad"
node "$TOOLS/gen_widened.cjs" "$b" bad
before=$(tree_digest "$b")
if "$LOOM_BIN" compact "$b" --target-size 64MiB > /dev/null 2> "$TEST_TMP/err"; then
  fail "compaction of a double column the table calls long succeeded"
else
  expect "the refusal names the column and the rule: $(head -c 300 "$TEST_TMP/err")" \
    sh -c "grep -q \"'c'\" '$TEST_TMP/err' && grep -q 'Type Widening' '$TEST_TMP/err'"
fi
expect "refused table unchanged" test "$before" = "$(tree_digest "$b")"
finish
