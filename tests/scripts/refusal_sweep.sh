#!/usr/bin/env bash
# Every operation on every shared fixture table (a copy), and the list of
# refusals must be exactly those of tests/tools/fixture_refusals.tsv: only
# refusals the protocol itself requires, each citing its rule (plus a
# fixture that has no data files by design, which is not a refusal). No
# fixture is refused "for now" any more: rewrites keep row tracking and
# type widening and cluster liquid-clustered tables (features no fixture
# has, such as variantType, are still "not yet" in the gate). A refused
# operation leaves the table byte-for-byte unchanged and its message says
# the refusal is for good ("does not allow"). After all operations the
# oracle's fingerprint of the rows is the one before, `verify` passes
# (when data files were rewritten), and loom still reads the table (as
# many live files as the oracle); on row tracking tables every row keeps
# its row id and row commit version (oracle rowids).
# Operations, in order: inspect, vacuum (lite, then full; real runs with
# zero retention), compact, zorder (first two orderable columns), checkpoint,
# cleanup-logs (real run, with every log file made 40 days old). A
# catalog-managed copy of simple_table is added to show the protocol's
# refusal of every operation. Under LOOM_FIXTURE_SAMPLE (the sanitizer
# pass) every Nth table is taken (tests/tools/lib.sh fixture_tables).
source "$(dirname "$0")/../tools/lib.sh"

# "table op" -> "word the message contains | reason", from
# tests/tools/fixture_refusals.tsv (the one list every fixture test reads)
declare -A EXPECTED=()
while IFS=$'\t' read -r r_table r_op r_word r_reason; do
  case $r_table in ''|'#'*) continue ;; esac
  EXPECTED["$r_table $r_op"]="$r_word|$r_reason"
done < "$TOOLS/fixture_refusals.tsv"
LOG_ONLY=" checkpoints-log-only catalog-managed "

pick_columns() { # loom inspect json -> "a,b" (orderable, non-partition, top-level)
  jsq "$1" '(() => {
    const ok = /^(string|long|integer|short|byte|float|double|date|timestamp|timestamp_ntz|decimal\(.*\))$/;
    const parts = new Set(d.metadata.partitionColumns);
    return d.metadata.schema.fields.filter(f => typeof f.type === "string" && ok.test(f.type) && !parts.has(f.name))
      .slice(0, 2).map(f => f.name).join(",");
  })()'
}

# The checks after a table's operations, in one node process (one per table
# keeps the sweep cheap): the oracle's fingerprint of the rows as before,
# row ids and commit versions as before (row tracking tables), and loom
# reading as many live files as the oracle.
judge() { # NAME
  local st what
  while read -r st what; do
    if [ "$st" = ok ]; then pass; else fail "$1: $what"; fi
  done < <(node -e '
const fs = require("fs"), dir = process.argv[1];
const get = (f) => fs.existsSync(`${dir}/${f}`) ? JSON.parse(fs.readFileSync(`${dir}/${f}`, "utf8")) : null;
const fp0 = get("fp0.json"), fp1 = get("fp1.json"), r0 = get("rid0.json"), r1 = get("rid1.json"), l = get("l.json");
const say = (ok, what, why) => console.log((ok ? "ok " : "fail ") + what + (ok ? "" : ": " + why));
say(fp0.hash === fp1.hash && fp0.rows === fp1.rows, "rows unchanged after every operation",
  `fingerprint ${fp0.hash}/${fp0.rows} -> ${fp1.hash}/${fp1.rows}`);
if (r0) {
  const k = (r) => `${r.idHash}/${r.versionHash}/${r.rowsWithoutId}`;
  say(r1 && k(r0) === k(r1), "row ids and row commit versions unchanged", `${k(r0)} -> ${r1 && k(r1)}`);
}
if (l) say(l.numFiles === fp1.files, "loom reads as many live files as the oracle afterwards", `${l.numFiles} != ${fp1.files}`);
' "$TEST_TMP" 2>&1 || echo "fail judging: node failed")
}

run_op() { # NAME TABLE OP: run one operation, record a refusal
  local name=$1 t=$2 op=$3 before cols rc=0
  before=$(tree_digest "$t")
  case $op in
    inspect) "$LOOM_BIN" inspect "$t" --json > "$TEST_TMP/inspect.json" 2> "$TEST_TMP/err" || rc=$? ;;
    vacuum-lite) "$LOOM_BIN" vacuum "$t" --no-dry-run --retention-hours 0 --no-retention-check > /dev/null 2> "$TEST_TMP/err" || rc=$? ;;
    vacuum-full) "$LOOM_BIN" vacuum "$t" --full --no-dry-run --retention-hours 0 --no-retention-check > /dev/null 2> "$TEST_TMP/err" || rc=$? ;;
    compact) "$LOOM_BIN" compact "$t" --target-size 64MiB --json > "$TEST_TMP/op.json" 2> "$TEST_TMP/err" || rc=$? ;;
    zorder)
      cols=id
      [ -s "$TEST_TMP/inspect.json" ] && cols=$(pick_columns "$TEST_TMP/inspect.json")
      if [ -z "$cols" ]; then echo "$name: zorder skipped (no orderable column)"; return; fi
      "$LOOM_BIN" zorder "$t" --columns "$cols" --target-size 64MiB --json > "$TEST_TMP/op.json" 2> "$TEST_TMP/err" || rc=$? ;;
    checkpoint) "$LOOM_BIN" checkpoint "$t" > /dev/null 2> "$TEST_TMP/err" || rc=$? ;;
    cleanup-logs)
      find "$t/_delta_log" -type f -exec touch -d '40 days ago' {} +
      before=$(tree_digest "$t")
      "$LOOM_BIN" cleanup-logs "$t" --no-dry-run > /dev/null 2> "$TEST_TMP/err" || rc=$? ;;
  esac
  if [ "$rc" -eq 0 ]; then
    case $op in compact|zorder) rewritten=1 ;; esac
    return
  fi
  refused["$name $op"]=$(head -c 2000 "$TEST_TMP/err")
  expect "$name $op: refused table unchanged" test "$before" = "$(tree_digest "$t")"
}

declare -A refused=()
tables=$(fixture_tables)
tables="$tables catalog-managed"
for name in $tables; do
  if [ "$name" = catalog-managed ]; then
    t=$(copy_table simple_table)
    node "$TOOLS/delta_edit.cjs" "$t" --features r:catalogManaged,w:inCommitTimestamp > /dev/null
  else
    t=$(copy_table "$name")
  fi
  logonly=0; case "$LOG_ONLY" in *" $name "*) logonly=1 ;; esac
  rm -f "$TEST_TMP"/fp[01].json "$TEST_TMP"/rid[01].json "$TEST_TMP/l.json"
  if [ $logonly -eq 0 ] && [ "$name" = catalog-managed ]; then
    oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
  elif [ $logonly -eq 0 ]; then
    fixture_oracle "$name" fingerprint > "$TEST_TMP/fp0.json"
  fi
  rm -f "$TEST_TMP/inspect.json"
  rewritten=0
  # row tracking: loom's commits (vacuum, checkpoint, cleanup) must keep
  # every row's id and commit version (the oracle computes them from the
  # protocol's rules)
  rowtrack=0
  if [ $logonly -eq 0 ] && grep -q '"rowTracking"' "$t/_delta_log/"*.json 2> /dev/null; then
    rowtrack=1; oracle rowids "$t" > "$TEST_TMP/rid0.json"
  fi
  for op in inspect vacuum-lite vacuum-full compact zorder checkpoint cleanup-logs; do
    run_op "$name" "$t" "$op"
  done
  [ $logonly -eq 0 ] || continue
  oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
  [ $rowtrack -eq 0 ] || oracle rowids "$t" > "$TEST_TMP/rid1.json"
  if [ $rewritten -eq 1 ]; then
    expect "$name: verify after rewrites" sh -c "'$TOOLS/oracle.sh' verify '$t' > /dev/null"
  fi
  if ! "$LOOM_BIN" inspect "$t" --json > "$TEST_TMP/l.json" 2> "$TEST_TMP/err"; then
    fail "$name: loom cannot read the table afterwards: $(cat "$TEST_TMP/err")"; rm -f "$TEST_TMP/l.json"
  fi
  judge "$name"
done

# The refusals seen must be exactly the expected ones (for the tables run).
for key in "${!refused[@]}"; do
  want="${EXPECTED[$key]:-}"
  if [ -z "$want" ]; then fail "unexpected refusal: $key: ${refused[$key]}"; continue; fi
  word=${want%%|*}; reason=${want#*|}
  expect "$key: refusal names '$word' ($reason)" grep -q -- "$word" <<< "${refused[$key]}"
  case $reason in
    protocol*) expect "$key: a refusal for good" grep -qE "does not allow|is unknown" <<< "${refused[$key]}" ;;
  esac
done
for key in "${!EXPECTED[@]}"; do
  name=${key% *}
  case " $tables " in *" $name "*) ;; *) continue ;; esac
  [ -n "${refused[$key]:-}" ] || fail "expected refusal did not happen: $key (${EXPECTED[$key]#*|})"
done
echo "refusals: ${#refused[@]} (all expected for these tables: the protocol's, and a fixture without data files)"
finish
