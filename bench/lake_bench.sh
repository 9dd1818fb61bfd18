#!/usr/bin/env bash
# bench/lake_bench.sh - `loom maintain` in auto mode against the
# do-everything plan on a synthetic lake of 100 Delta tables (issue 28,
# "Measured"). Deterministic: the data comes from bench/lake_gen.cjs and
# tests/tools/gen_appends.cjs with fixed seeds, the DV tables are copies of
# ../shared/fixtures.
#   bench/lake_bench.sh            (WORK=/tmp/loom-lake-bench, LOOM_BIN=build/loom)
# The lake (target file size 1 MiB for every table, set in the storage YAML):
#   healthy.h00-19  3 files of 14,000 rows (~0.8 MiB), checkpointed
#   small.s00-19    60 files of 300 rows (~17 KiB)
#   dv.d00-14       copies of table-with-dv-small, with-short-dv,
#                   cdf-table-with-cdc-and-dvs (5 each): DVs over 5% of a
#                   file's rows; the last also 26 commits without checkpoint
#                   and 29 tombstones past the 7-day retention
#   longlog.l00-14  gen_appends.cjs: converted 4-file seed + 40 appends,
#                   no checkpoint
#   zo.z00-14       12 files of 4,000 rows, u1/u2 random in every file,
#                   z_order_by [u1, u2] declared for the schema
#   tomb.t00-14     8 files of 3,000 rows compacted to 2 (8 tombstones),
#                   delta.deletedFileRetentionDuration = interval 1 seconds
# Two runs, each on its own copy of the lake: `loom maintain --plan P
# --step everything` (vacuum {dry_run: false} + compact, or z_order_by for
# zo, on every table) and `--step auto` (the same declarations with auto:).
# Each under /usr/bin/time -v with LOOM_STORE_STATS; then `loom advise
# --config` on every table and the oracle's fingerprint of every table
# against the one taken before. Summary in $WORK/summary.md.
# LAKE_ONLY=1: make the lake, storage YAMLs and plan, and stop there.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
LOOM="${LOOM_BIN:-$src/build/loom}"
WORK="${WORK:-/tmp/loom-lake-bench}"
FIX="${FIX:-$src/../shared/fixtures/delta}"
export NODE_PATH="${NODE_PATH:-$src/build/oracle-deps/node_modules}"
oracle="$src/tests/tools/oracle.sh"

rm -rf "$WORK"; mkdir -p "$WORK"
lake="$WORK/lake"
t0=$(date +%s)

# ---- the lake ---------------------------------------------------------
names() { local p=$1 s=$2 n=$3 i; for i in $(seq 0 $((n - 1))); do printf '%s.%s%02d\n' "$s" "$p" "$i"; done; }
{ names h healthy 20; names s small 20; names d dv 15; names l longlog 15; names z zo 15; names t tomb 15; } > "$WORK/tables.txt"

: > "$WORK/gen.txt"
for i in $(seq 0 19); do echo "$lake/healthy/h$(printf %02d "$i") 3 14000 $((100 + i))"; done >> "$WORK/gen.txt"
for i in $(seq 0 19); do echo "$lake/small/s$(printf %02d "$i") 60 300 $((200 + i))"; done >> "$WORK/gen.txt"
for i in $(seq 0 14); do echo "$lake/zo/z$(printf %02d "$i") 12 4000 $((300 + i))"; done >> "$WORK/gen.txt"
for i in $(seq 0 14); do echo "$lake/tomb/t$(printf %02d "$i") 8 3000 $((400 + i))"; done >> "$WORK/gen.txt"
node "$src/bench/lake_gen.cjs" batch "$WORK/gen.txt"
for d in "$lake"/healthy/* "$lake"/small/* "$lake"/zo/* "$lake"/tomb/*; do "$LOOM" convert "$d" > /dev/null; done
for d in "$lake"/healthy/*; do "$LOOM" checkpoint "$d" > /dev/null; done
for d in "$lake"/tomb/*; do
  node "$src/tests/tools/delta_edit.cjs" "$d" --set 'delta.deletedFileRetentionDuration=interval 1 seconds' > /dev/null
  "$LOOM" compact "$d" --target-size 1MiB > /dev/null
done
dvsrc=(table-with-dv-small with-short-dv cdf-table-with-cdc-and-dvs)
mkdir -p "$lake/dv"
for i in $(seq 0 14); do cp -r "$FIX/${dvsrc[$((i % 3))]}" "$lake/dv/d$(printf %02d "$i")"; done
for i in $(seq 0 14); do
  d="$lake/longlog/l$(printf %02d "$i")"
  node "$src/tests/tools/gen_appends.cjs" "$d" 0 $((500 + i))
  "$LOOM" convert "$d" --partition-by p > /dev/null
  node "$src/tests/tools/gen_appends.cjs" "$d" 40 $((500 + i))
done
sleep 2   # the tombstones of tomb.* pass their 1 s retention
t1=$(date +%s)
echo "lake generated in $((t1 - t0)) s: $(du -sb "$lake" | cut -f1) bytes, $(find "$lake" -name '*.parquet' -not -path '*_delta_log*' | wc -l) data files" | tee "$WORK/gen.log"

# ---- storage YAML and plan --------------------------------------------
{
  echo "storage:"
  echo "  defaults:"
  echo "    table_path:"
  echo "      uri: \${oc.env:LAKE_ROOT}"
  echo "      target_file_size: 1MiB"
  echo "  tables:"
  while read -r t; do echo "    - name: $t"; echo "      path: \${oc.env:LAKE_ROOT}/${t/.//}"; done < "$WORK/tables.txt"
  echo "  maintenance:"
  echo "    auto: true"
  echo "    vacuum: {dry_run: false}"
} > "$WORK/storage.yaml"
{
  echo "version: 1"
  echo "steps:"
  for step in everything auto; do
    echo "  $step:"
    for s in healthy small dv longlog tomb; do
      echo "    - schema: $s"
      echo "      vacuum: {dry_run: false}"
      echo "      compact:"
      [ "$step" = auto ] && echo "      auto: true"
    done
    echo "    - schema: zo"
    echo "      vacuum: {dry_run: false}"
    echo "      z_order_by: [u1, u2]"
    [ "$step" = auto ] && echo "      auto: true"
  done
} > "$WORK/plan.yaml"
# advise: the zo tables judged with z_order_by [u1, u2] declared (a second
# YAML whose block covers schema zo only), the others by storage.yaml
sed 's/^    auto: true$/    schemas: [zo]\n    auto: true\n    z_order_by: [u1, u2]/' "$WORK/storage.yaml" > "$WORK/storage-zo.yaml"
advise_all() {   # advise_all LAKE OUT: one loom.health/1 line per table
  { LAKE_ROOT=$1 "$LOOM" advise --config "$WORK/storage.yaml" --json | grep -v '"table":"[^"]*/zo/' || true
    LAKE_ROOT=$1 "$LOOM" advise --config "$WORK/storage-zo.yaml" --json | grep '"table":"[^"]*/zo/' || true; } > "$2"
}

fingerprints() {   # fingerprints LAKE OUT: table<TAB>rows<TAB>hash
  local t
  while read -r t; do
    LAKE_ROOT=$1 "$oracle" fingerprint "$1/${t/.//}" | python3 -c '
import json, sys; d = json.load(sys.stdin); print(sys.argv[1], d["rows"], d["hash"], sep="\t")' "$t"
  done < "$WORK/tables.txt" > "$2"
}
[ "${LAKE_ONLY:-0}" = 1 ] && exit 0   # the lake, storage YAMLs and plan only (bench/lake_maintain_s3.sh)
fingerprints "$lake" "$WORK/fp_before.tsv"
advise_all "$lake" "$WORK/advise_before.json"

# ---- the runs -----------------------------------------------------------
RUNS="${RUNS:-3}"
for round in $(seq 1 "$RUNS"); do
  for step in everything auto; do
    r="$WORK/$step"; [ "$round" = 1 ] || r="$WORK/$step.$round"
    mkdir -p "$r"
    cp -a "$lake" "$r/lake"
    sync; find "$r/lake" -type f -exec cat {} + > /dev/null   # warm page cache for both runs alike
    rc=0
    LAKE_ROOT="$r/lake" LOOM_STORE_STATS="$r/stats.jsonl" /usr/bin/time -v -o "$r/time.txt" \
      "$LOOM" maintain --config "$WORK/storage.yaml" --plan "$WORK/plan.yaml" --step "$step" --json \
      > "$r/report.json" 2> "$r/stderr.txt" || rc=$?
    echo "round $round $step: exit $rc" | tee -a "$WORK/rc.txt"
    if [ "$round" = 1 ]; then   # the checks: on the first round's copies
      advise_all "$r/lake" "$r/advise.json"
      fingerprints "$r/lake" "$r/fp_after.tsv"
    else
      rm -rf "$r/lake"
    fi
  done
done

python3 - "$WORK" <<'PY' | tee "$WORK/summary.md"
import json, re, sys, collections
W = sys.argv[1]
def timev(p):
    t = open(p).read()
    g = lambda k: re.search(re.escape(k) + r":\s*(\S+)", t).group(1)
    w = g("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(w)))
    return wall, float(g("User time (seconds)")), float(g("System time (seconds)")), int(g("Maximum resident set size (kbytes)"))
def recommended(path):   # advise --config --json: one loom.health/1 object per table
    out = []
    for l in open(path):
        if not l.strip(): continue
        t = json.loads(l)
        rec = [a["op"] for a in t.get("advice", []) if a.get("recommended")]
        if rec: out.append((t.get("table"), rec))
    return out
before = {l.split("\t")[0]: l.rstrip("\n").split("\t")[1:] for l in open(f"{W}/fp_before.tsv")}
rows = {}
for step in ("everything", "auto"):
    r = f"{W}/{step}"
    import glob, statistics
    ts = [timev(p) for p in sorted(glob.glob(f"{W}/{step}*/time.txt"))]
    wall = statistics.median(t[0] for t in ts); user = statistics.median(t[1] for t in ts)
    sys_ = statistics.median(t[2] for t in ts); rss = max(t[3] for t in ts)
    walls = " / ".join(f"{t[0]:.2f}" for t in ts); cpus = " / ".join(f"{t[1] + t[2]:.2f}" for t in ts)
    st = [json.loads(l) for l in open(f"{r}/stats.jsonl")][-1]
    rep = json.load(open(f"{r}/report.json"))
    ran = collections.Counter(); changed = collections.Counter()
    for t in rep["tables"]:
        for name, op in t["ops"].items():
            if name == "auto":
                for k, v in op.get("metrics", {}).items():
                    if k.endswith(".ran") and v: ran[k[:-4]] += 1
                continue
            ran[name] += 1
            if op.get("num_files_added", 0) or op.get("num_files_removed", 0) or op.get("num_files_deleted", 0):
                changed[name] += 1
    after = {l.split("\t")[0]: l.rstrip("\n").split("\t")[1:] for l in open(f"{r}/fp_after.tsv")}
    same = sum(1 for k in before if after.get(k) == before[k])
    rows[step] = dict(walls=walls, cpus=cpus, wall=wall, user=user, sys=sys_, rss=rss, st=st, ran=ran, changed=changed,
                      summary=rep["summary"], same=same, rec=recommended(f"{r}/advise.json"))
print(f"advise after: {sum(1 for _ in open(f'{W}/auto/advise.json'))} tables judged; bytes, requests and operations of round 1\n")
print("| run | wall s, median (rounds) | cpu s user+sys, median (rounds) | peak RSS MiB | bytes read | bytes written | requests | operations run | tables ok/failed | advise after: tables with a recommendation | fingerprints unchanged |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for step, x in rows.items():
    req = ", ".join(f"{k} {v}" for k, v in x["st"]["store_requests"].items() if v)
    ops = ", ".join(f"{k} {v}" + (f" ({x['changed'][k]} changed files)" if step == "everything" else "") for k, v in sorted(x["ran"].items()))
    s = x["summary"]
    print(f"| {step} | {x['wall']:.2f} ({x['walls']}) | {x['user'] + x['sys']:.2f} = {x['user']:.2f}+{x['sys']:.2f} ({x['cpus']}) | {x['rss'] / 1024:.0f} | "
          f"{x['st']['bytes_read']:,} | {x['st']['bytes_written']:,} | {req} | {ops} | {s['ok']}/{s['failed']} | {len(x['rec'])} | {x['same']}/{len(before)} |")
for step, x in rows.items():
    for ref, rec in x["rec"]:
        print(f"- {step}: advise still recommends {', '.join(rec)} for {ref}")
b = recommended(f"{W}/advise_before.json")
kinds = collections.Counter(op for _, rec in b for op in rec)
print(f"\nadvise before the runs: {len(b)} tables with a recommendation: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
PY
echo "total $(( $(date +%s) - t0 )) s"
