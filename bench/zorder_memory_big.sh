#!/usr/bin/env bash
# Issue 7's memory floor: the big bench set (955 MB in one partition)
# Z-ordered with a 256 MiB budget must peak below 400 MiB RSS, keep every
# row (oracle fingerprint before and after), pass the oracle's verify and
# leave nothing in its temp dir. Too long for CI (about a minute plus two
# full-table fingerprints); run by hand:
#   bench/zorder_memory_big.sh            (BUDGET=256MiB DATA=big)
#   LARGE_RG=1 bench/zorder_memory_big.sh (the table a first Z-order
#     wrote: 8 files of ~200,000-row groups, in key order, Z-ordered again
#     with --full; the case that peaked at 650-780 MiB before)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
DATA="${DATA:-big}"
BUDGET="${BUDGET:-256MiB}"
LOOM="${LOOM_BIN:-$src/build/loom}"
WORK="${WORK:-/tmp/loom-zorder-memory-$DATA}"
in="${BENCH_DIR:-$HOME/loom-bench}/data/$DATA"
[ -d "$in" ] || { echo "no input at $in (run gen_data.cjs)" >&2; exit 2; }
oracle() { "$src/tests/tools/oracle.sh" "$@"; }
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const d=JSON.parse(s);console.log(eval(process.argv[1]))})' "$1"; }

rm -rf "$WORK"; mkdir -p "$WORK/table" "$WORK/spill"
cp "$in"/*.parquet "$WORK/table/"
"$LOOM" convert "$WORK/table" > /dev/null
full=()
if [ "${LARGE_RG:-0}" = 1 ]; then
  "$LOOM" zorder "$WORK/table" --columns customer_id,event_ts --target-size 128MiB > /dev/null
  full=(--full)
fi
fp0=$(oracle fingerprint "$WORK/table" | field 'd.hash + "/" + d.rows')
/usr/bin/time -f '%e %M' -o "$WORK/time" "$LOOM" zorder "$WORK/table" --columns customer_id,event_ts \
  --target-size 128MiB --memory "$BUDGET" --temp-dir "$WORK/spill" "${full[@]}" --json > "$WORK/run.json"
read -r wall rss_kib < "$WORK/time"
fp1=$(oracle fingerprint "$WORK/table" | field 'd.hash + "/" + d.rows')
verify=$(oracle verify "$WORK/table" | field 'd.ok')
left=$(find "$WORK/spill" -mindepth 1 | wc -l)
spilled=$(field 'd.metrics.zOrderSpillBytes' < "$WORK/run.json")
files=$(field 'd.num_files_added' < "$WORK/run.json")
echo "budget $BUDGET: wall ${wall} s, peak RSS $((rss_kib / 1024)) MiB, $files files, spilled $((spilled / 1048576)) MiB"
echo "fingerprint before $fp0"
echo "fingerprint after  $fp1"
echo "verify ok: $verify; entries left in the temp dir: $left"
fail=0
[ "$fp0" = "$fp1" ] || { echo "FAIL: rows changed" >&2; fail=1; }
[ "$verify" = true ] || { echo "FAIL: verify" >&2; fail=1; }
[ "$left" = 0 ] || { echo "FAIL: temp dir not empty" >&2; fail=1; }
[ "$rss_kib" -lt $((400 * 1024)) ] || { echo "FAIL: peak RSS over 400 MiB" >&2; fail=1; }
exit $fail
