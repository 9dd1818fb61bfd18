#!/usr/bin/env bash
# In-commit timestamps (PROTOCOL.md "In-Commit Timestamps"), on Spark's
# cdc_ict_table (ICT since creation; its commits are months old by ICT but
# their files are fresh copies) and on a table that enables ICT later
# (tests/tools/delta_edit.cjs writes the enabling commit as Spark would,
# with delta.inCommitTimestampEnablementVersion/Timestamp). Judged from the
# commit files themselves (parsed here) and the oracle:
#  1. every commit loom writes (vacuum, compact, zorder) starts with a
#     commitInfo whose inCommitTimestamp is > the previous commit's, and
#     is one ms after it when the previous one lies in the future;
#  2. compaction and Z-order run on ICT tables and keep the rows (oracle
#     fingerprint, verify);
#  3. log cleanup dates commits by ICT from the enablement version on and
#     by file time before it: old ICTs in fresh files expire; fresh ICTs in
#     old files do not, while older pre-enablement commits do;
#  4. vacuum lite dates change-data files by their commit's ICT;
#  5. loom inspect shows the ICT state.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
OLD='40 days ago'
DAY=86400000
v() { printf %020d "$1"; }
fp() { oracle fingerprint "$1" > "$TEST_TMP/fp.json" && jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows'; }
# first_ict TABLE VERSION: the inCommitTimestamp of the commit's first line
# (empty when the first line is not a commitInfo with one)
first_ict() {
  node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").split("\n")[0];
    const a=JSON.parse(l); if (a.commitInfo && Number.isInteger(a.commitInfo.inCommitTimestamp)) console.log(a.commitInfo.inCommitTimestamp)' \
    "$1/_delta_log/$(v "$2").json"
}
latest() { (cd "$1/_delta_log" && ls | grep -E '^[0-9]{20}\.json$' | tail -1 | cut -c1-20 | sed 's/^0*//; s/^$/0/'); }
# check_icts TABLE FROM TO: commits FROM..TO start with a strictly
# increasing inCommitTimestamp after commit FROM-1's
check_icts() {
  local t=$1 from=$2 to=$3 prev cur i
  prev=$(first_ict "$t" $((from - 1)))
  for i in $(seq "$from" "$to"); do
    cur=$(first_ict "$t" "$i")
    if [ -z "$cur" ] || [ -z "$prev" ] || [ "$cur" -le "$prev" ]; then
      fail "$t: commit $i: inCommitTimestamp '$cur' not after '$prev'"; return
    fi
    prev=$cur
  done
  pass
}

# ---- 1. loom's commits on Spark's ICT table ------------------------------
t=$(copy_table cdc_ict_table)
expect "1: vacuum" "$LOOM_BIN" vacuum "$t" --no-dry-run --retention-hours 0 --no-retention-check --json > "$TEST_TMP/vac.json"
expect "1: VACUUM START/END committed" test "$(latest "$t")" -eq 5
check_icts "$t" 4 5
now=$(( $(date +%s) * 1000 ))
expect "1: ICT is the commit time (now)" test $(( now - $(first_ict "$t" 5) )) -lt 600000
# a previous commit in the future: the next ICTs are one ms apart after it
future=$(( now + 10 * DAY ))
node "$TOOLS/delta_edit.cjs" "$t" --ict "$future" > /dev/null
node -e 'const fs=require("fs"),f=process.argv[1];const ls=fs.readFileSync(f,"utf8").split("\n");
  const a=JSON.parse(ls[0]); a.commitInfo.operation="TEST";fs.writeFileSync(f,[JSON.stringify(a),...ls.slice(1)].join("\n"))' "$t/_delta_log/$(v 6).json"
echo gone > "$t/stray.parquet"; touch -d "$OLD" "$t/stray.parquet"
expect "1: vacuum full after a future commit" "$LOOM_BIN" vacuum "$t" --full --no-dry-run --retention-hours 0 --no-retention-check > /dev/null
expect "1: START = future + 1" test "$(first_ict "$t" 7)" -eq $((future + 1))
expect "1: END = future + 2" test "$(first_ict "$t" 8)" -eq $((future + 2))
expect "1: commitInfo.timestamp follows the ICT" sh -c "head -1 '$t/_delta_log/$(v 8).json' | node '$TOOLS/jsq.cjs' --assert - 'd.commitInfo.timestamp === $((future + 2))'"

# ---- 2. compaction and Z-order on a table that enables ICT later ---------
t=$(copy_table simple_table); t2=$t
ena=$(( now - 2 * DAY ))
node "$TOOLS/delta_edit.cjs" "$t" --features w:inCommitTimestamp --ict "$ena" --ict-enable > /dev/null   # version 5
fp0=$(fp "$t")
expect "2: compact" "$LOOM_BIN" compact "$t" --json > "$TEST_TMP/c.json"
expect "2: compaction committed" jsq --assert "$TEST_TMP/c.json" 'd.metrics.version === 6'
expect "2: zorder" "$LOOM_BIN" zorder "$t" --columns id --json > "$TEST_TMP/z.json"
expect "2: zorder committed" jsq --assert "$TEST_TMP/z.json" 'd.metrics.version === 7'
check_icts "$t" 6 7
expect "2: rows unchanged" test "$fp0" = "$(fp "$t")"
expect "2: oracle verify" sh -c "'$TOOLS/oracle.sh' verify '$t' > /dev/null"
expect "2: OPTIMIZE commits" sh -c "head -1 '$t/_delta_log/$(v 6).json' | grep -q '\"operation\":\"OPTIMIZE\"'"
expect "2: inspect: enabled since version 5" sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - \
  'd.inCommitTimestamps.enabled && d.inCommitTimestamps.enablementVersion === 5 && d.inCommitTimestamps.enablementTimestamp === $ena && d.inCommitTimestamps.latest === $(first_ict "$t" 7)'"
expect "2: inspect text" sh -c "'$LOOM_BIN' inspect '$t' | grep -q 'in-commit timestamps: enabled since version 5'"

# ---- 3. log cleanup by ICT -----------------------------------------------
# a. cdc_ict_table: ICTs from months ago, files copied just now. By file
# time nothing has expired; by ICT versions 0-2 have.
t=$(copy_table cdc_ict_table)
expect "3a: checkpoint 3" "$LOOM_BIN" checkpoint "$t" > /dev/null
oracle snapshot "$t" > "$TEST_TMP/before.json"
expect "3a: cleanup" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run --json > "$TEST_TMP/a.json"
expected=$(for i in 0 1 2; do for f in "$(v $i).json" "$(v $i).crc" ".$(v $i).json.crc" ".$(v $i).crc.crc"; do echo "_delta_log/$f"; done; done | sort)
expect "3a: ICT-dated: commits, .crc and their side files 0-2 deleted" diff <(echo "$expected") <(jsq "$TEST_TMP/a.json" 'd.files.slice().sort().join("\n")')
expect "3a: keeps checkpoint 3, cutoff commit 3, ICT on" jsq --assert "$TEST_TMP/a.json" 'd.checkpoint_version === 3 && d.cutoff_commit === 3 && d.in_commit_timestamps'
oracle snapshot "$t" > "$TEST_TMP/after.json"
expect "3a: same state" node "$CMP" snap "$TEST_TMP/before.json" "$TEST_TMP/after.json" --same
# b. the table of 2: versions 0-4 before ICT (file time), 5-7 with fresh
# ICTs. Every file is made 40 days old: by file time everything before 7
# would go; by the protocol's times only commits 0-4 are old, so the newest
# usable checkpoint is 4 and commits 4-7 stay.
expect "3b: checkpoint 4" "$LOOM_BIN" checkpoint "$t2" --version 4 > /dev/null
expect "3b: checkpoint 7" "$LOOM_BIN" checkpoint "$t2" > /dev/null
find "$t2/_delta_log" -type f -exec touch -d "$OLD" {} +
oracle snapshot "$t2" > "$TEST_TMP/before.json"
expect "3b: cleanup" "$LOOM_BIN" cleanup-logs "$t2" --no-dry-run --json > "$TEST_TMP/b.json"
expect "3b: cutoff commit 4 (the last pre-ICT one), keeps checkpoint 4" jsq --assert "$TEST_TMP/b.json" 'd.cutoff_commit === 4 && d.checkpoint_version === 4'
expect "3b: exactly commits 0-3 deleted" diff <(for i in 0 1 2 3; do echo "_delta_log/$(v $i).json"; done) <(jsq "$TEST_TMP/b.json" 'd.files.slice().sort().join("\n")')
for i in 4 5 6 7; do expect "3b: commit $i kept" test -s "$t2/_delta_log/$(v $i).json"; done
oracle snapshot "$t2" > "$TEST_TMP/after.json"
expect "3b: same state" node "$CMP" snap "$TEST_TMP/before.json" "$TEST_TMP/after.json" --same
expect "3b: version 5 still rebuildable" sh -c "'$TOOLS/oracle.sh' snapshot '$t2' --version 5 > /dev/null"

# ---- 4. vacuum lite dates change-data files by ICT -----------------------
t=$(copy_table cdc_ict_table)
expect "4: dry lite" "$LOOM_BIN" vacuum "$t" --json > "$TEST_TMP/l.json"
expect "4: expired change-data files listed (their commits' ICT is months old)" jsq --assert "$TEST_TMP/l.json" \
  'd.files.filter(f => f.startsWith("_change_data/")).length === 4'

# ---- 5. inspect on Spark's table ------------------------------------------
expect "5: inspect json" sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - \
  'd.inCommitTimestamps.enabled && d.inCommitTimestamps.enablementVersion === null && d.inCommitTimestamps.latest === 1783874213881'"
expect "5: inspect text" sh -c "'$LOOM_BIN' inspect '$t' | grep -q 'in-commit timestamps: enabled; this version 2026-07-12T'"
finish
