#!/usr/bin/env bash
# Log compaction files (PROTOCOL.md "Log Compaction Files"): loom's
# snapshot loader reads x.y.compacted.json in place of commits x..y. The
# fixture compacted-log-files-table (Databricks) has 0.5, 6.10 and 6.15.
# The oracle ignores compaction files and replays the commits, so at every
# version loom's state (files with sizes, partition values, record counts
# and DVs; tombstones; protocol, configuration, domains, txns) must equal
# the oracle's. loom must report using the compaction files, and must not
# need the commits they cover: with those commits' contents destroyed in a
# copy, the latest version still loads the same. The versions compared are
# the ones around each compaction's bounds (before any is usable, the first
# version each one covers, the versions just after, the latest); under
# LOOM_FIXTURE_SAMPLE (the sanitizer pass) every Nth of them.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
src="$LOOM_FIXTURES_DIR/delta/compacted-log-files-table"
step="${LOOM_FIXTURE_SAMPLE:-1}"

same_state() { # ORACLE.json LOOM.json: the rest of the state beyond the files
  node -e '
const fs = require("fs");
const o = JSON.parse(fs.readFileSync(process.argv[1], "utf8")), l = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const key = (t) => t.path + "|" + (t.deletionVector ? t.deletionVector.storageType + t.deletionVector.pathOrInlineDv : "");
const ot = o.tombstones.map(key).sort(), lt = l.tombstoneFiles.map(key).sort();
const errs = [];
if (JSON.stringify(ot) !== JSON.stringify(lt)) errs.push(`tombstones ${ot.length} != ${lt.length}`);
if (JSON.stringify(o.metadata.configuration) !== JSON.stringify(l.metadata.configuration)) errs.push("configuration");
if (o.protocol.minReaderVersion !== l.protocol.minReaderVersion || o.protocol.minWriterVersion !== l.protocol.minWriterVersion ||
    JSON.stringify(o.protocol.writerFeatures || null) !== JSON.stringify(l.protocol.writerFeatures)) errs.push("protocol");
if (JSON.stringify(o.domainMetadata) !== JSON.stringify(l.domainMetadata)) errs.push("domains");
if (JSON.stringify(o.txns) !== JSON.stringify(l.txns)) errs.push("txns");
if (errs.length) { console.error(errs.join(", ")); process.exit(1); }
console.log(l.compactionsReplayed);' "$1" "$2"
}

used=0; i=0
for ver in 0 4 5 6 9 10 11 14 15 16 25; do
  i=$((i + 1))
  [ $((i % step)) -eq 0 ] || [ "$ver" -eq 25 ] || continue
  oracle snapshot "$src" --version "$ver" > "$TEST_TMP/o.json"
  if ! "$LOOM_BIN" inspect "$src" --version "$ver" --json --files > "$TEST_TMP/l.json" 2> "$TEST_TMP/err"; then
    fail "version $ver: loom: $(cat "$TEST_TMP/err")"; continue
  fi
  expect "version $ver: same files" node "$CMP" loom "$TEST_TMP/o.json" "$TEST_TMP/l.json" > /dev/null
  if n=$(same_state "$TEST_TMP/o.json" "$TEST_TMP/l.json"); then pass; used=$((used + n)); else
    fail "version $ver: same tombstones, protocol, configuration, domains, txns"; fi
done
expect "compaction files were used" test "$used" -gt 0
expect "latest: 0.5 and 6.15 in place of 16 commits" sh -c \
  "'$LOOM_BIN' inspect '$src' --json | node '$TOOLS/jsq.cjs' --assert - 'd.compactionsReplayed === 2 && d.commitsReplayed === 10'"
expect "version 10: 0.5 and 6.10" sh -c \
  "'$LOOM_BIN' inspect '$src' --version 10 --json | node '$TOOLS/jsq.cjs' --assert - 'd.compactionsReplayed === 2 && d.commitsReplayed === 0'"
expect "text output names them" sh -c "'$LOOM_BIN' inspect '$src' | grep -q '10 commits replayed, 2 log compaction files'"

# the commits a compaction covers are not read: destroy 1-5 and 7-15
t=$(copy_table compacted-log-files-table)
for i in 1 2 3 4 5 7 8 9 10 11 12 13 14 15; do echo 'not json' > "$t/_delta_log/$(printf %020d $i).json"; done
oracle snapshot "$src" > "$TEST_TMP/o.json"
expect "covered commits unread: latest loads" sh -c "'$LOOM_BIN' inspect '$t' --json --files > '$TEST_TMP/l.json'"
expect "covered commits unread: same files" node "$CMP" loom "$TEST_TMP/o.json" "$TEST_TMP/l.json"
if same_state "$TEST_TMP/o.json" "$TEST_TMP/l.json" > /dev/null; then pass; else fail "covered commits unread: same state"; fi
# a version inside a compaction range needs the commits: the damage shows
if "$LOOM_BIN" inspect "$t" --version 3 > /dev/null 2> "$TEST_TMP/err"; then fail "version 3 should need commit 3"; else
  expect "version 3: the damaged commit is named" grep -q "00000000000000000003.json" "$TEST_TMP/err"; fi
# vacuum and checkpoint work on such a table (they load the same snapshot)
expect "checkpoint through compactions" sh -c "'$LOOM_BIN' checkpoint '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.created && d.version === 25'"
oracle snapshot "$t" > "$TEST_TMP/g.json"
expect "the checkpoint holds the oracle's state" node "$CMP" snap "$TEST_TMP/o.json" "$TEST_TMP/g.json"
finish
