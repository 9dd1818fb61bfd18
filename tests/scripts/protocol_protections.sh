#!/usr/bin/env bash
# checkpointProtection (protocol RFC checkpoint-protection.md, implemented
# by Spark and the Java kernel) and vacuumProtocolCheck (PROTOCOL.md
# "VACUUM Protocol Check") on fixture copies that another writer
# (tests/tools/delta_edit.cjs) gave those features:
#  1. log cleanup removes checkpoints before
#     delta.requireCheckpointProtectionBeforeVersion only together with all
#     of the history before it: blocked when the kept checkpoint is below
#     it or when part of that history is still young (the same layout
#     without the feature is cleaned partly), everything at once otherwise,
#     commits before checkpoints; the oracle's state never changes;
#  2. a checkpoint is written for a version only when loom supports the
#     protocol of that version (a feature dropped later does not help);
#  3. vacuum checks the whole write protocol: an unknown writer feature
#     refuses it, dry run included, while reading works; with known
#     features vacuum runs and keeps the rows.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
OLD='40 days ago'
v() { printf %020d "$1"; }
fp() { oracle fingerprint "$1" > "$TEST_TMP/fp.json" && jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows'; }

# simple_table (versions 0-4) + version 5 (checkpointProtection, P = 3) +
# loom's checkpoints at 2, 4 and 5.
protected_table() {
  local t; t=$(copy_table simple_table)
  node "$TOOLS/delta_edit.cjs" "$t" --features w:checkpointProtection \
    --set delta.requireCheckpointProtectionBeforeVersion=3 > /dev/null
  for ver in 2 4 5; do "$LOOM_BIN" checkpoint "$t" --version $ver > /dev/null || fail "checkpoint $ver"; done
  echo "$t"
}
gone_after() { # TABLE JSON: every listed file is gone
  local f
  for f in $(jsq "$2" 'd.files.join(" ")'); do [ ! -e "$1/$f" ] || { echo "$f still there"; return 1; }; done
}

# ---- 1a. the checkpoint to keep is below P: nothing goes ----------------
t=$(protected_table)
find "$t/_delta_log" -type f -exec touch {} +
touch -d "$OLD" "$t/_delta_log/$(v 0).json" "$t/_delta_log/$(v 1).json" "$t/_delta_log/$(v 2).json" \
  "$t/_delta_log/$(v 2).checkpoint.parquet"
before=$(tree_digest "$t")
expect "1a: run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/a.json"
expect "1a: blocked, nothing deleted" jsq --assert "$TEST_TMP/a.json" \
  'd.checkpoint_version === 2 && d.checkpoint_protection.before_version === 3 && d.checkpoint_protection.blocked && d.files.length === 0'
expect "1a: table unchanged" test "$before" = "$(tree_digest "$t")"
expect "1a: the text says why" sh -c "'$LOOM_BIN' cleanup-logs '$t' | grep -q 'checkpointProtection keeps every commit and checkpoint'"

# ---- 1b. part of the history before P is young: nothing goes ------------
t=$(protected_table)
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
touch "$t/_delta_log/$(v 1).json"
before=$(tree_digest "$t")
expect "1b: run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/b.json"
expect "1b: blocked, nothing deleted" jsq --assert "$TEST_TMP/b.json" \
  'd.checkpoint_version === 5 && d.checkpoint_protection.blocked && d.files.length === 0'
expect "1b: table unchanged" test "$before" = "$(tree_digest "$t")"
# the same layout without the feature is cleaned partly (commit 1 stays)
t=$(copy_table simple_table)
node "$TOOLS/delta_edit.cjs" "$t" --set delta.requireCheckpointProtectionBeforeVersion=3 > /dev/null
for ver in 2 4 5; do "$LOOM_BIN" checkpoint "$t" --version $ver > /dev/null; done
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
touch "$t/_delta_log/$(v 1).json"
expect "1b: unprotected run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/b2.json"
expect "1b: unprotected: checkpoints 2 and 4 go, young commit 1 stays" jsq --assert "$TEST_TMP/b2.json" \
  "!d.checkpoint_protection && d.files.includes('_delta_log/$(v 2).checkpoint.parquet') && !d.files.includes('_delta_log/$(v 1).json')"

# ---- 1c. all of it expired: everything before the kept checkpoint goes --
t=$(protected_table)
oracle snapshot "$t" > "$TEST_TMP/before.json"
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
expect "1c: run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/c.json"
expected=$( { for i in 0 1 2 3 4; do echo "_delta_log/$(v $i).json"; done
  echo "_delta_log/$(v 2).checkpoint.parquet"; echo "_delta_log/$(v 4).checkpoint.parquet"; } | sort)
expect "1c: not blocked; commits 0-4 and checkpoints 2, 4 deleted" diff <(echo "$expected") \
  <(jsq "$TEST_TMP/c.json" 'd.files.slice().sort().join("\n")')
expect "1c: commits first, then checkpoints" jsq --assert "$TEST_TMP/c.json" \
  '!d.checkpoint_protection.blocked && d.files.slice(0, 5).every(f => /\d{20}\.json$/.test(f)) && d.files.slice(5).every(f => /checkpoint/.test(f))'
expect "1c: files gone" gone_after "$t" "$TEST_TMP/c.json"
oracle snapshot "$t" > "$TEST_TMP/after.json"
expect "1c: same state" node "$CMP" snap "$TEST_TMP/before.json" "$TEST_TMP/after.json" --same

# ---- 2. checkpoints only for versions whose protocol loom supports -------
t=$(copy_table simple_table)
node "$TOOLS/delta_edit.cjs" "$t" --features w:futureWriterThing > /dev/null                      # 5
node "$TOOLS/delta_edit.cjs" "$t" --drop-features futureWriterThing --features w:checkpointProtection \
  --set delta.requireCheckpointProtectionBeforeVersion=6 > /dev/null                                # 6
before=$(tree_digest "$t")
if "$LOOM_BIN" checkpoint "$t" --version 5 2> "$TEST_TMP/err"; then fail "2: checkpoint of version 5 should be refused"; else
  expect "2: refusal names the feature of version 5" grep -q futureWriterThing "$TEST_TMP/err"; fi
expect "2: refused: unchanged" test "$before" = "$(tree_digest "$t")"
expect "2: version 4 allowed" sh -c "'$LOOM_BIN' checkpoint '$t' --version 4 --json | node '$TOOLS/jsq.cjs' --assert - 'd.created'"
expect "2: latest (6) allowed" sh -c "'$LOOM_BIN' checkpoint '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.created && d.version === 6'"
expect "2: version 5 still readable" "$LOOM_BIN" inspect "$t" --version 5 > /dev/null

# ---- 3. vacuumProtocolCheck ----------------------------------------------
t=$(copy_table simple_table)
node "$TOOLS/delta_edit.cjs" "$t" --features r:vacuumProtocolCheck,w:futureWriterThing > /dev/null
before=$(tree_digest "$t")
if "$LOOM_BIN" vacuum "$t" 2> "$TEST_TMP/err"; then fail "3: vacuum (dry run) should be refused"; else
  expect "3: refusal names the unknown writer feature" grep -q futureWriterThing "$TEST_TMP/err"; fi
if "$LOOM_BIN" vacuum "$t" --full --no-dry-run --retention-hours 0 --no-retention-check 2> /dev/null; then
  fail "3: vacuum should be refused"; else pass; fi
expect "3: refused: unchanged" test "$before" = "$(tree_digest "$t")"
expect "3: reading is fine" sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.operations.read === \"allowed\" && /futureWriterThing/.test(d.operations.vacuum)'"
t=$(copy_table simple_table)
node "$TOOLS/delta_edit.cjs" "$t" --features r:vacuumProtocolCheck > /dev/null
fp0=$(fp "$t")
expect "3: with known features vacuum runs" sh -c "'$LOOM_BIN' vacuum '$t' --no-dry-run --retention-hours 0 --no-retention-check --json | node '$TOOLS/jsq.cjs' --assert - 'd.files.length > 0'"
expect "3: rows unchanged" test "$fp0" = "$(fp "$t")"
expect "3: verify" sh -c "'$TOOLS/oracle.sh' verify '$t' > /dev/null"
finish
