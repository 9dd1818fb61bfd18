#!/usr/bin/env bash
# bench/lake_budget.sh - a time budget on one bigger table (issue 28,
# "Measured"): `loom maintain --budget-time` at about half the unbudgeted
# compaction time commits what it finished; the next run (no budget)
# finishes it, and no file the first run wrote is rewritten by the second.
#   bench/lake_budget.sh   (PARTS=8 FILES=75 ROWS=30000: ~1 GB in 8 Hive
#                           partitions p=0..7 of 75 files of ~1.7 MiB, one
#                           row group each, so compaction re-encodes;
#                           WORK=/tmp/loom-lake-budget)
# Partitioned because compaction's units are one per partition (split in
# `workers` units when fewer partitions than workers): an unpartitioned
# table is 2 units here, both finishing at the end, so a half-time budget
# commits nothing on it (PARTS=0 shows that).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
LOOM="${LOOM_BIN:-$src/build/loom}"
WORK="${WORK:-/tmp/loom-lake-budget}"
PARTS="${PARTS:-8}"; FILES="${FILES:-75}"; ROWS="${ROWS:-30000}"
export NODE_PATH="${NODE_PATH:-$src/build/oracle-deps/node_modules}"
oracle="$src/tests/tools/oracle.sh"
rm -rf "$WORK"; mkdir -p "$WORK"
if [ "$PARTS" = 0 ]; then
  node "$src/bench/lake_gen.cjs" big "$WORK/big" "$FILES" "$ROWS" 7
  "$LOOM" convert "$WORK/big" > /dev/null
else
  for p in $(seq 0 $((PARTS - 1))); do echo "$WORK/big/p=$p $FILES $ROWS $((7 + p))"; done > "$WORK/gen.txt"
  node "$src/bench/lake_gen.cjs" batch "$WORK/gen.txt"
  "$LOOM" convert "$WORK/big" --partition-by p > /dev/null
fi
echo "table: $(du -sb "$WORK/big" | cut -f1) bytes, $(find "$WORK/big" -name '*.parquet' | wc -l) files in $PARTS partitions" | tee "$WORK/summary.txt"
cat > "$WORK/storage.yaml" <<'EOF'
storage:
  defaults:
    table_path:
      uri: ${oc.env:LAKE_ROOT}
  tables:
    - name: big.t
      path: ${oc.env:LAKE_ROOT}
  maintenance:
    compact: {target_size: 128MiB}
EOF
live() { "$oracle" snapshot "$1" | python3 -c '
import json, sys; d = json.load(sys.stdin)
fs = d.get("files") or d.get("activeFiles") or d.get("add") or []
for f in fs: print(f["path"] if isinstance(f, dict) else f)' | sort; }
fp() { "$oracle" fingerprint "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["hash"])'; }
live "$WORK/big" > "$WORK/live0.txt"; fp "$WORK/big" > "$WORK/fp0.txt"
run() {   # run NAME DIR [options]: maintain under /usr/bin/time, JSON report
  local n=$1 d=$2; shift 2
  LAKE_ROOT=$d /usr/bin/time -f '%e %U %S' -o "$WORK/$n.time" \
    "$LOOM" maintain --config "$WORK/storage.yaml" --json "$@" > "$WORK/$n.json" || true
  python3 - "$WORK/$n.json" "$WORK/$n.time" "$n" <<'PY' | tee -a "$WORK/summary.txt"
import json, sys
r = json.load(open(sys.argv[1])); w, u, s = map(float, open(sys.argv[2]).read().split())
t = r["tables"][0]; ops = t["ops"]; c = ops.get("compact", {}); m = c.get("metrics", {})
keep = {k: v for k, v in m.items() if k in ("numCommits", "unitsLeft", "numFilesAdded", "numFilesRemoved", "numAddedBytes", "numRemovedBytes", "stoppedByBudget")}
why = f", {t['skip_reason']}" if t.get("skip_reason") else ""
print(f"{sys.argv[3]}: wall {w:.2f} s, cpu {u + s:.2f} s ({u:.2f}+{s:.2f}), status {t['status']}, files +{c.get('num_files_added')} -{c.get('num_files_removed')}, {json.dumps(keep)}{why}")
PY
}
cp -a "$WORK/big" "$WORK/full"; find "$WORK/full" -type f -exec cat {} + > /dev/null
run unbudgeted "$WORK/full"
half=$(awk '{ h = int($1 / 2 + 0.5); print (h < 1 ? 1 : h) }' "$WORK/unbudgeted.time")
cp -a "$WORK/big" "$WORK/budget"; find "$WORK/budget" -type f -exec cat {} + > /dev/null
run "budget-${half}s" "$WORK/budget" --budget-time "${half}s" --commit-every 64MiB
live "$WORK/budget" > "$WORK/live1.txt"
run next "$WORK/budget"
live "$WORK/budget" > "$WORK/live2.txt"; fp "$WORK/budget" > "$WORK/fp2.txt"
new1=$(comm -13 "$WORK/live0.txt" "$WORK/live1.txt" | wc -l)
kept=$(comm -12 <(comm -13 "$WORK/live0.txt" "$WORK/live1.txt") "$WORK/live2.txt" | wc -l)
left=$(comm -12 "$WORK/live0.txt" "$WORK/live2.txt" | wc -l)
{
  echo "files written by the budgeted run: $new1, still live after the next run (not rewritten): $kept"
  echo "original files still live after the next run: $left"
  echo "live files: before $(wc -l < "$WORK/live0.txt"), after budget $(wc -l < "$WORK/live1.txt"), after next $(wc -l < "$WORK/live2.txt")"
  cmp -s "$WORK/fp0.txt" "$WORK/fp2.txt" && echo "fingerprint unchanged ($(cat "$WORK/fp2.txt"))" || echo "FINGERPRINT CHANGED"
} | tee -a "$WORK/summary.txt"
