#!/usr/bin/env bash
# V2 checkpoints (PROTOCOL.md "V2 Spec", "Sidecar Files", "Metadata
# Cleanup"), judged by the oracle (it reads V2 checkpoints with sidecars),
# DuckDB and tests/tools/v2_check.cjs (the top-level file parsed in JS, the
# sidecars read by DuckDB, the _last_checkpoint checksum recomputed):
#  1. many sidecars (--part-size) on a Spark V2 table: state through loom's
#     checkpoint == the commits' replay, loom reads it, rows unchanged;
#  2. a table with no live file: a V2 checkpoint without sidecars;
#  3. a table made V2 by another writer (policy v2 set later) gets V2
#     checkpoints from loom, and Spark's classic-named V2 checkpoint with
#     sidecars is read and kept;
#  4. cleanup-logs keeps every sidecar a retained checkpoint references
#     (even old ones), deletes unreferenced expired ones (old checkpoints'
#     and crash leftovers) and keeps young ones; older versions stay
#     readable through the kept checkpoints;
#  5. a checkpoint whose sidecar is missing is never the one cleanup keeps.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
export NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
OLD='40 days ago'
v() { printf %020d "$1"; }
fp() { oracle fingerprint "$1" > "$TEST_TMP/fp.json" && jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows'; }
sidecars() { (cd "$1/_delta_log/_sidecars" 2> /dev/null && ls) | sort; }

# ---- 1. many sidecars -----------------------------------------------------
t=$(copy_table v2-checkpoints-json-with-sidecars)
rm "$t/_delta_log/$(v 6).checkpoint."*.json          # loom writes version 6's
oracle snapshot "$t" --ignore-checkpoints > "$TEST_TMP/ref.json"
fp0=$(fp "$t")
before_sc=$(sidecars "$t")
expect "1: checkpoint" "$LOOM_BIN" checkpoint "$t" --part-size 30 --json > "$TEST_TMP/ck.json"
nf=$(jsq "$TEST_TMP/ref.json" 'd.files.length')
expect "1: V2 with ceil($nf/30) sidecars" jsq --assert "$TEST_TMP/ck.json" \
  "d.created && d.kind === 'v2-json' && d.num_sidecars === Math.ceil($nf / 30) && d.num_add_files === $nf"
comm -13 <(echo "$before_sc") <(sidecars "$t") > "$TEST_TMP/new_sc"
expect "1: sidecars named <v>.checkpoint.<part>.<parts>.<uuid>.parquet" sh -c \
  "[ \$(wc -l < '$TEST_TMP/new_sc') -eq $(( (nf + 29) / 30 )) ] && ! grep -vE '^$(v 6)\.checkpoint\.[0-9]{10}\.0000000004\.[0-9a-f-]{36}\.parquet$' '$TEST_TMP/new_sc'"
oracle snapshot "$t" > "$TEST_TMP/got.json"
expect "1: oracle reads loom's V2 checkpoint" jsq --assert "$TEST_TMP/got.json" \
  "d.checkpoint.version === 6 && d.checkpoint.kind === 'v2-json' && d.warnings.length === 0"
expect "1: state through it == the commits' replay" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/got.json"
expect "1: top-level, sidecars, _last_checkpoint" node "$TOOLS/v2_check.cjs" "$t" 6 "$nf" \
  "$(jsq "$TEST_TMP/got.json" 'd.tombstones.length')"
expect "1: rows unchanged" test "$fp0" = "$(fp "$t")"
expect "1: loom reads it" sh -c "'$LOOM_BIN' inspect '$t' --json --files > '$TEST_TMP/l.json'"
expect "1: loom: same files" node "$CMP" loom "$TEST_TMP/got.json" "$TEST_TMP/l.json"
expect "1: loom: from the V2 checkpoint, 4 sidecars" jsq --assert "$TEST_TMP/l.json" \
  "d.checkpoint.kind === 'v2-json' && d.checkpoint.sidecars === 4 && d.commitsReplayed === 0"
expect "1: loom inspect names the kind" sh -c "'$LOOM_BIN' inspect '$t' | grep -q 'version 6 (v2-json, 1 file, 4 sidecars)'"
# time travel below it still goes through Spark's older V2 checkpoints
oracle snapshot "$t" --version 4 > "$TEST_TMP/o4.json"
"$LOOM_BIN" inspect "$t" --version 4 --json --files > "$TEST_TMP/l4.json"
expect "1: version 4 as the oracle sees it" node "$CMP" loom "$TEST_TMP/o4.json" "$TEST_TMP/l4.json"

# ---- 2. no live file: no sidecar ----------------------------------------
t=$(copy_table checkpoint-v2-table)
node "$TOOLS/delta_edit.cjs" "$t" --remove-all $(( $(date +%s) * 1000 - 30 * 86400000 )) > /dev/null
oracle snapshot "$t" --ignore-checkpoints > "$TEST_TMP/ref.json"
expect "2: checkpoint" "$LOOM_BIN" checkpoint "$t" --json > "$TEST_TMP/ck.json"
expect "2: V2, no sidecar, expired tombstones dropped" jsq --assert "$TEST_TMP/ck.json" \
  "d.kind === 'v2-json' && d.num_sidecars === 0 && d.num_add_files === 0 && d.num_remove_files === 0 && d.num_expired_tombstones > 0"
oracle snapshot "$t" > "$TEST_TMP/got.json"
expect "2: state through it" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/got.json"
expect "2: top-level file and _last_checkpoint" node "$TOOLS/v2_check.cjs" "$t" 10 0 0
expect "2: loom reads it" sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.numFiles === 0 && d.checkpoint.kind === \"v2-json\" && d.checkpoint.sidecars === 0'"

# ---- 3. policy set by another writer; Spark's classic-named V2 checkpoint
t=$(copy_table simple_table)
expect "3: classic before v2" sh -c "'$LOOM_BIN' checkpoint '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.kind === \"classic\"'"
node "$TOOLS/delta_edit.cjs" "$t" --features r:v2Checkpoint --set delta.checkpointPolicy=v2 > /dev/null
oracle snapshot "$t" --ignore-checkpoints > "$TEST_TMP/ref.json"
expect "3: V2 after the upgrade" sh -c "'$LOOM_BIN' checkpoint '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.kind === \"v2-json\" && d.num_sidecars === 1'"
oracle snapshot "$t" > "$TEST_TMP/got.json"
expect "3: state through it" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/got.json"
expect "3: v2 check" node "$TOOLS/v2_check.cjs" "$t" 5 "$(jsq "$TEST_TMP/got.json" 'd.files.length')" "$(jsq "$TEST_TMP/got.json" 'd.tombstones.length')"
t=$(copy_table v2-classic-checkpoint-parquet)
expect "3: Spark's classic-named V2 checkpoint with a sidecar is read" sh -c \
  "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.checkpoint.kind === \"classic\" && d.checkpoint.sidecars === 1'"

# ---- 4. cleanup keeps referenced sidecars -------------------------------
# checkpoint-v2-table: Spark's V2 checkpoints at 6 and 8 (one sidecar each);
# loom's at 9. Everything old except checkpoint 8's top-level file; plus an
# old and a young crash leftover in _sidecars/.
t=$(copy_table checkpoint-v2-table)
expect "4: checkpoint 9" "$LOOM_BIN" checkpoint "$t" > /dev/null
s6=$(cd "$t/_delta_log/_sidecars" && ls $(v 6).*); s8=$(cd "$t/_delta_log/_sidecars" && ls $(v 8).*); s9=$(cd "$t/_delta_log/_sidecars" && ls $(v 9).*)
cp "$t/_delta_log/_sidecars/$s6" "$t/_delta_log/_sidecars/$(v 7).checkpoint.0000000001.0000000001.00000000-dead-4bad-8bad-000000000001.parquet"
cp "$t/_delta_log/_sidecars/$s6" "$t/_delta_log/_sidecars/$(v 9).checkpoint.0000000001.0000000001.00000000-dead-4bad-8bad-000000000002.parquet"
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
touch "$t/_delta_log/$(v 8).checkpoint."*.json "$t/_delta_log/_sidecars/$(v 9).checkpoint.0000000001.0000000001.00000000-dead-4bad-8bad-000000000002.parquet"
oracle snapshot "$t" > "$TEST_TMP/before.json"
fp0=$(fp "$t")
expected=$( { for i in $(seq 0 8); do echo "_delta_log/$(v "$i").json"; echo "_delta_log/$(v "$i").crc"; done
  echo "_delta_log/$(cd "$t/_delta_log" && ls $(v 6).checkpoint.*.json)"
  echo "_delta_log/_sidecars/$s6"
  echo "_delta_log/_sidecars/$(v 7).checkpoint.0000000001.0000000001.00000000-dead-4bad-8bad-000000000001.parquet"; } | sort)
expect "4: dry run" "$LOOM_BIN" cleanup-logs "$t" --json > "$TEST_TMP/dry.json"
expect "4: keeps checkpoint 9" jsq --assert "$TEST_TMP/dry.json" 'd.checkpoint_version === 9 && d.num_sidecars === 2'
expect "4: exactly the expected files" diff <(echo "$expected") <(jsq "$TEST_TMP/dry.json" 'd.files.slice().sort().join("\n")')
expect "4: commits listed before checkpoints" jsq --assert "$TEST_TMP/dry.json" \
  'd.files.findIndex(f => /checkpoint/.test(f)) > d.files.findLastIndex(f => /\d{20}\.(json|crc)$/.test(f))'
expect "4: dry run would write the compatibility checkpoint" jsq --assert "$TEST_TMP/dry.json" 'd.compat_checkpoint'
expect "4: dry run wrote nothing" test ! -e "$t/_delta_log/$(v 9).checkpoint.parquet"
expect "4: real run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/real.json"
for f in $expected; do [ ! -e "$t/$f" ] || fail "4: $f still there"; done
expect "4: referenced sidecars kept (8's is old, 9's is loom's)" test -s "$t/_delta_log/_sidecars/$s8" -a -s "$t/_delta_log/_sidecars/$s9"
expect "4: young leftover kept" test -s "$t/_delta_log/_sidecars/$(v 9).checkpoint.0000000001.0000000001.00000000-dead-4bad-8bad-000000000002.parquet"
oracle snapshot "$t" > "$TEST_TMP/after.json"
expect "4: same state after cleanup" node "$CMP" snap "$TEST_TMP/before.json" "$TEST_TMP/after.json" --same
expect "4: same rows" test "$fp0" = "$(fp "$t")"
expect "4: version 8 still readable through Spark's checkpoint and its sidecar" sh -c \
  "'$TOOLS/oracle.sh' snapshot '$t' --version 8 | node '$TOOLS/jsq.cjs' --assert - 'd.checkpoint.version === 8 && d.warnings.length === 0'"
expect "4: loom reads the latest" sh -c "'$LOOM_BIN' inspect '$t' --json --files > '$TEST_TMP/l.json'"
expect "4: loom: same files" node "$CMP" loom "$TEST_TMP/after.json" "$TEST_TMP/l.json"
expect "4: second run deletes nothing" sh -c "'$LOOM_BIN' cleanup-logs '$t' --no-dry-run --json | node '$TOOLS/jsq.cjs' --assert - 'd.files.length === 0 && !d.compat_checkpoint'"
# the classic-named V2 copy of checkpoint 9, for V2-unaware readers: DuckDB
# reads it (one checkpointMetadata row, every action inline); without the
# UUID checkpoint the oracle rebuilds the same state from it
rows=$(jsq "$TEST_TMP/after.json" '3 + Object.keys(d.txns).length + Object.keys(d.domainMetadata).length + d.files.length + d.tombstones.length')
expect "4: compatibility checkpoint read by DuckDB" node "$CMP" duck "$t/_delta_log/$(v 9).checkpoint.parquet" "$rows" "$(jsq "$TEST_TMP/after.json" 'd.files.length')"
rm "$t/_delta_log/$(v 9).checkpoint."*.json
oracle snapshot "$t" > "$TEST_TMP/compat.json"
expect "4: the oracle uses it" jsq --assert "$TEST_TMP/compat.json" "d.checkpoint.kind === 'classic' && d.checkpoint.version === 9 && d.warnings.length === 0"
expect "4: same state through it" node "$CMP" snap "$TEST_TMP/before.json" "$TEST_TMP/compat.json" --same

# ---- 5. a checkpoint with a missing sidecar is not kept -----------------
t=$(copy_table checkpoint-v2-table)
expect "5: checkpoint 9" "$LOOM_BIN" checkpoint "$t" > /dev/null
rm "$t/_delta_log/_sidecars/$(v 9).checkpoint."*
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
expect "5: dry run" "$LOOM_BIN" cleanup-logs "$t" --json > "$TEST_TMP/dry5.json"
expect "5: falls back to checkpoint 8" jsq --assert "$TEST_TMP/dry5.json" \
  "d.checkpoint_version === 8 && !d.files.includes('_delta_log/$(v 8).json')"
expect "5: loom reads the table around the broken checkpoint, with a warning" sh -c \
  "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.checkpoint.version === 8 && d.warnings.some(w => /does not exist/.test(w))'"
finish
