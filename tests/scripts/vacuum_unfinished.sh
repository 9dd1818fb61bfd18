#!/usr/bin/env bash
# A VACUUM killed after it committed VACUUM START and before VACUUM END
# (LOOM_FAULTS kills it at its first delete, or half-way through them):
# the table reads as before (oracle fingerprint, verify), the log's last
# commit is the unmatched VACUUM START, and the next vacuum completes
# normally - it deletes what the killed one did not and commits its own
# VACUUM START and VACUUM END (COMPLETED) after the unmatched START, which
# stays in the history (issue 34; docs/architecture.md, "VACUUM").
source "$(dirname "$0")/../tools/lib.sh"

base=$(copy_table simple_table)
oracle fingerprint "$base" > "$TEST_TMP/fp0.json"
fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
mkdir -p "$base/old"
for i in $(seq 1 40); do echo "$i" > "$base/old/orphan-$i.parquet"; done
touch -d '30 days ago' "$base"/old/*.parquet

# the operations of the log's commits, in order, as Python reads them
operations() {
  python3 - "$1/_delta_log" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for line in open(f):
        ci = json.loads(line).get("commitInfo") if line.strip() else None
        if ci:
            status = (ci.get("operationParameters") or {}).get("status", "")
            print(ci.get("operation", "?") + (" " + status if status else ""))
PY
}

for kill_at in 1 20; do
  t="$TEST_TMP/t$kill_at"
  cp -a "$base" "$t"
  before=$(operations "$t")
  rc=0
  LOOM_FAULTS="delete@$kill_at:crash" "$LOOM_BIN" vacuum "$t" --full --no-dry-run > /dev/null 2>&1 || rc=$?
  expect "kill at delete $kill_at: the vacuum was killed (exit $rc)" test "$rc" -ne 0
  after=$(operations "$t")
  expect "kill at delete $kill_at: VACUUM START committed, no VACUUM END" \
    test "$after" = "$(printf '%s\nVACUUM START' "$before")"
  left=$(ls "$t/old" | wc -l)
  expect "kill at delete $kill_at: $((40 - left)) of 40 orphans deleted before the kill" test "$left" -eq $((41 - kill_at))
  oracle fingerprint "$t" > "$TEST_TMP/fp.json"
  expect "kill at delete $kill_at: fingerprint unchanged" test "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')" = "$fp0"
  if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "verify: $(head -c 300 "$TEST_TMP/v.json")"; fi

  expect "kill at delete $kill_at: the next vacuum completes" "$LOOM_BIN" vacuum "$t" --full --no-dry-run --json \
    > "$TEST_TMP/next.json"
  expect "kill at delete $kill_at: it deleted the orphans left (and the log's removed files)" \
    jsq --assert "$TEST_TMP/next.json" "d.files.filter(f => f.startsWith('old/')).length === $left && d.version >= 0"
  expect "kill at delete $kill_at: no orphan left" test -z "$(ls "$t/old" 2> /dev/null)"
  expect "kill at delete $kill_at: history is START (unmatched), START, END COMPLETED" \
    test "$(operations "$t")" = "$(printf '%s\nVACUUM START\nVACUUM START\nVACUUM END COMPLETED' "$before")"
  oracle fingerprint "$t" > "$TEST_TMP/fp.json"
  expect "kill at delete $kill_at: fingerprint unchanged after the rerun" \
    test "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')" = "$fp0"
  if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "verify after the rerun: $(head -c 300 "$TEST_TMP/v.json")"; fi
done
finish
