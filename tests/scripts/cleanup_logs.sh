#!/usr/bin/env bash
# loom cleanup-logs on copies whose log file mtimes the test sets with
# touch -d. Cutoff = now - 30 days (delta.logRetentionDuration default),
# truncated to midnight UTC. Files "old" are 40 days old, "new" ones now.
# Expected deletions are spelled out by hand for each case; the oracle
# snapshot and fingerprint must not change; everything else stays
# byte-for-byte.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
OLD='40 days ago'
v() { printf %020d "$1"; }
log_list() { (cd "$1/_delta_log" && find . -type f | sed 's|^\./||' | sort); }
log_digest() { (cd "$1/_delta_log" && find . -type f -print0 | sort -z | xargs -0 sha1sum); }

# ---- 1. many commits, two checkpoints, compactions, .crc files ----------
t=$(copy_table compacted-log-files-table)
expect "checkpoint v10" "$LOOM_BIN" checkpoint "$t" --version 10 > /dev/null
expect "checkpoint v20" "$LOOM_BIN" checkpoint "$t" --version 20 > /dev/null
for i in $(seq 0 12); do
  echo '{}' > "$t/_delta_log/$(v "$i").crc"               # version checksum files
  echo x > "$t/_delta_log/.$(v "$i").json.crc"            # Hadoop side files
done
# old: commits 0..15, crc 0..12, checkpoint 10, compactions 0.5 and 6.10;
# new: commits 16..25, checkpoint 20, compaction 6.15 (kept by its mtime)
for i in $(seq 0 15); do touch -d "$OLD" "$t/_delta_log/$(v "$i").json"; done
for i in $(seq 0 12); do touch -d "$OLD" "$t/_delta_log/$(v "$i").crc" "$t/_delta_log/.$(v "$i").json.crc"; done
touch -d "$OLD" "$t/_delta_log/$(v 10).checkpoint.parquet" \
  "$t/_delta_log/$(v 0).$(v 5).compacted.json" "$t/_delta_log/$(v 6).$(v 10).compacted.json"
expected=$( { for i in $(seq 0 9); do echo "$(v "$i").json"; echo "$(v "$i").crc"; echo ".$(v "$i").json.crc"; done
  echo "$(v 0).$(v 5).compacted.json"; echo "$(v 6).$(v 10).compacted.json"; } | sort)
oracle snapshot "$t" > "$TEST_TMP/before.json"
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
log_list "$t" > "$TEST_TMP/all_before"
log_digest "$t" > "$TEST_TMP/digest_before"

expect "dry run" "$LOOM_BIN" cleanup-logs "$t" --json > "$TEST_TMP/dry.json"
expect "dry run keeps checkpoint 10" jsq --assert "$TEST_TMP/dry.json" 'd.dry_run && d.checkpoint_version === 10'
jsq "$TEST_TMP/dry.json" 'd.files.map(f => f.replace(/^_delta_log\//, "")).sort().join("\n")' > "$TEST_TMP/dry_list"
expect "dry run lists exactly the expected files" diff <(echo "$expected") "$TEST_TMP/dry_list"
expect "dry run deletes nothing" diff "$TEST_TMP/digest_before" <(log_digest "$t")
expect "cutoff is midnight UTC 30 days back" jsq --assert "$TEST_TMP/dry.json" \
  "d.cutoff_ms % 86400000 === 0 && Math.abs(d.cutoff_ms - (Math.floor((Date.now() - 30*86400000) / 86400000) * 86400000)) <= 86400000"

expect "real run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/real.json"
expect "real run reports the same files" diff "$TEST_TMP/dry_list" \
  <(jsq "$TEST_TMP/real.json" 'd.files.map(f => f.replace(/^_delta_log\//, "")).sort().join("\n")')
comm -23 "$TEST_TMP/all_before" <(log_list "$t") > "$TEST_TMP/gone"
expect "exactly the expected files are gone" diff <(echo "$expected") "$TEST_TMP/gone"
expect "every other log file is byte-for-byte unchanged" diff \
  <(grep -v -F -f <(echo "$expected" | sed 's|^|./|; s|$||') "$TEST_TMP/digest_before") <(log_digest "$t")
expect "checkpoint 10 kept" test -s "$t/_delta_log/$(v 10).checkpoint.parquet"
expect "commit 10 kept" test -s "$t/_delta_log/$(v 10).json"
oracle snapshot "$t" > "$TEST_TMP/after.json"
expect "oracle: same snapshot after cleanup" node "$CMP" snap "$TEST_TMP/before.json" "$TEST_TMP/after.json" --same
oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
expect "oracle: same fingerprint" test "$(jsq "$TEST_TMP/fp0.json" 'd.hash+"/"+d.rows')" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash+"/"+d.rows')"
# loom itself after the cleanup: it must rebuild the table from checkpoint
# 20 (or 10) now.
if "$LOOM_BIN" inspect "$t" --json --files > "$TEST_TMP/loom_after.json" 2> "$TEST_TMP/err"; then
  expect "loom: same files after cleanup" node "$CMP" loom "$TEST_TMP/after.json" "$TEST_TMP/loom_after.json"
else
  fail "loom inspect after cleanup: $(head -c 400 "$TEST_TMP/err")"
fi
expect "oracle: version 10 still rebuildable" sh -c "'$TOOLS/oracle.sh' snapshot '$t' --version 10 > /dev/null"
expect "oracle: version 12 still rebuildable" sh -c "'$TOOLS/oracle.sh' snapshot '$t' --version 12 > /dev/null"

# ---- 2. no checkpoint at all: nothing goes ------------------------------
t=$(copy_table simple_table)
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
before=$(tree_digest "$t")
expect "no checkpoint: run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/n.json"
expect "no checkpoint: nothing deleted" jsq --assert "$TEST_TMP/n.json" 'd.checkpoint_version === -1 && d.files.length === 0'
expect "no checkpoint: table unchanged" test "$before" = "$(tree_digest "$t")"

# ---- 3. the only checkpoint is newer than every old commit: nothing goes -
t=$(copy_table simple_table)
expect "checkpoint v4" "$LOOM_BIN" checkpoint "$t" > /dev/null
for i in 0 1 2; do touch -d "$OLD" "$t/_delta_log/$(v "$i").json"; done
before=$(tree_digest "$t")
expect "young checkpoint: run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/y.json"
expect "young checkpoint: nothing deleted" jsq --assert "$TEST_TMP/y.json" 'd.checkpoint_version === -1 && d.files.length === 0'
expect "young checkpoint: table unchanged" test "$before" = "$(tree_digest "$t")"

# ---- 4. everything old, checkpoint at the latest version ----------------
t=$(copy_table simple_table)
expect "checkpoint v4" "$LOOM_BIN" checkpoint "$t" > /dev/null
oracle snapshot "$t" > "$TEST_TMP/b4.json"
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
expect "all old: run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/o.json"
expect "all old: commits 0-3 deleted" jsq --assert "$TEST_TMP/o.json" \
  "d.checkpoint_version === 4 && d.files.length === 4 && d.files.every((f, i) => f === '_delta_log/' + String(i).padStart(20, '0') + '.json')"
expect "all old: checkpoint, last commit, _last_checkpoint kept" test -s "$t/_delta_log/$(v 4).checkpoint.parquet" -a -s "$t/_delta_log/$(v 4).json" -a -s "$t/_delta_log/_last_checkpoint"
oracle snapshot "$t" > "$TEST_TMP/a4.json"
expect "all old: same oracle snapshot" node "$CMP" snap "$TEST_TMP/b4.json" "$TEST_TMP/a4.json" --same

# ---- 5. delta.enableExpiredLogCleanup=false: refused unless --force -----
t=$(copy_table simple_table)
expect "checkpoint v4" "$LOOM_BIN" checkpoint "$t" > /dev/null
# commit 5: the same metaData with the property set (written by the test)
node -e '
const fs = require("fs"), dir = process.argv[1] + "/_delta_log/";
let md = null, proto = null;
for (const f of fs.readdirSync(dir).filter(f => /^\d{20}\.json$/.test(f)).sort())
  for (const l of fs.readFileSync(dir + f, "utf8").split("\n")) {
    if (!l.trim()) continue; const a = JSON.parse(l);
    if (a.metaData) md = a.metaData; if (a.protocol) proto = a.protocol;
  }
md.configuration = Object.assign({}, md.configuration, { "delta.enableExpiredLogCleanup": "false" });
fs.writeFileSync(dir + "00000000000000000005.json", JSON.stringify({ metaData: md }) + "\n");
' "$t"
expect "checkpoint v5" "$LOOM_BIN" checkpoint "$t" > /dev/null
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
before=$(tree_digest "$t")
if "$LOOM_BIN" cleanup-logs "$t" --no-dry-run 2> "$TEST_TMP/err"; then
  fail "enableExpiredLogCleanup=false should be refused"
else
  expect "refusal names the property" grep -q "delta.enableExpiredLogCleanup" "$TEST_TMP/err"
fi
expect "refused: unchanged" test "$before" = "$(tree_digest "$t")"
expect "--force runs" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --force --json > "$TEST_TMP/f.json"
expect "--force keeps checkpoint 5" jsq --assert "$TEST_TMP/f.json" 'd.checkpoint_version === 5 && d.files.length > 0'

# ---- 6. refused protocol, usage ----------------------------------------
# a catalog-managed table: only its catalog may clean up its log
t=$(copy_table simple_table)
printf '%s\n' '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["catalogManaged"],"writerFeatures":["catalogManaged","inCommitTimestamp"]}}' \
  > "$t/_delta_log/$(v 5).json"
find "$t/_delta_log" -type f -exec touch -d "$OLD" {} +
before=$(tree_digest "$t")
if "$LOOM_BIN" cleanup-logs "$t" --no-dry-run 2> "$TEST_TMP/err"; then fail "catalogManaged table should be refused"; else
  expect "catalogManaged refusal names the feature" grep -q catalogManaged "$TEST_TMP/err"; fi
expect "catalogManaged: unchanged" test "$before" = "$(tree_digest "$t")"
rc=0; "$LOOM_BIN" cleanup-logs 2> /dev/null || rc=$?; expect "missing URI is a usage error" test $rc -eq 2
rc=0; "$LOOM_BIN" cleanup-logs "$t" --bogus 2> /dev/null || rc=$?; expect "unknown option is a usage error" test $rc -eq 2
expect "--help" sh -c "'$LOOM_BIN' cleanup-logs --help | grep -q -- --no-dry-run"
finish
