#!/usr/bin/env bash
# bench/lake_maintain_s3.sh [LAKE_WORK] - the RGW half of bench/lake_bench.sh
# (issue 28, "Measured": the lake comparison "locally and on RGW"). The 100
# tables of lake_bench.sh's lake are uploaded twice to a private loopback
# Ceph RGW (tests/tools/rgw.sh), as s3://lake/everything/ and s3://lake/auto/,
# and the same plan steps run against the s3:// URIs: `loom maintain
# --config storage.yaml --plan plan.yaml --step everything|auto --json`
# (storage.yaml: lake_bench.sh's, root s3://lake/STEP; endpoint and
# credentials from the RGW's env file, AWS_*), each under /usr/bin/time -v
# with LOOM_STORE_STATS. Then `loom advise` on the RGW tables (what is
# left) and, after `aws s3 sync` back to local disk, the oracle's
# fingerprint of all 100 tables against the one of the lake before.
#   bench/lake_maintain_s3.sh /tmp/loom-lake-bench   (its lake/, tables.txt,
#                                    storage.yaml, plan.yaml, fp_before.tsv)
# Without LAKE_WORK/lake the lake is made by lake_bench.sh's generator step
# only (LAKE_ONLY=1). One round. JOBS (default 4): --jobs of both runs
# (tables maintained concurrently: every request is a round trip here).
# Summary in $WORK/summary.md.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
LOOM="${LOOM_BIN:-$src/build/loom}"
LW="${1:-/tmp/loom-lake-bench}"
WORK="${WORK:-/tmp/loom-lake-maintain-s3}"
JOBS="${JOBS:-4}"
RGW_SH="$src/tests/tools/rgw.sh"
export NODE_PATH="${NODE_PATH:-$src/build/oracle-deps/node_modules}"
oracle="$src/tests/tools/oracle.sh"
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
if [ -x /usr/bin/aws ]; then AWS_BIN=/usr/bin/aws; else AWS_BIN=aws; fi

if [ ! -d "$LW/lake" ] || [ ! -f "$LW/plan.yaml" ]; then
  LAKE_ONLY=1 WORK="$LW" bash "$src/bench/lake_bench.sh"
fi
rm -rf "$WORK"; mkdir -p "$WORK"
rgw="$WORK/rgw"
trap 'bash "$RGW_SH" stop "$rgw" > /dev/null 2>&1 || true' EXIT
RGW_MEMSTORE_BYTES="${RGW_MEMSTORE_BYTES:-1610612736}" bash "$RGW_SH" start "$rgw" > /dev/null
source "$rgw/env"
s3cli() { "$AWS_BIN" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }
s3cli s3 mb s3://lake > /dev/null
t0=$(date +%s)
for step in everything auto; do
  s3cli s3 sync --only-show-errors "$LW/lake" "s3://lake/$step/"
done
echo "uploaded twice in $(( $(date +%s) - t0 )) s" | tee "$WORK/upload.log"
sleep 2   # the tombstones of tomb.* (1 s retention) pass it by the objects' upload time too

# the lake's storage YAMLs with s3://lake/STEP as the root
for step in everything auto; do
  for y in storage storage-zo; do
    sed "s|\${oc.env:LAKE_ROOT}|s3://lake/$step|" "$LW/$y.yaml" > "$WORK/$y.$step.yaml"
  done
done
advise_all() {   # advise_all STEP OUT: one loom.health/1 line per table (zo with z_order_by declared)
  { "$LOOM" advise --config "$WORK/storage.$1.yaml" --json | grep -v '"table":"[^"]*/zo/' || true
    "$LOOM" advise --config "$WORK/storage-zo.$1.yaml" --json | grep '"table":"[^"]*/zo/' || true; } > "$2"
}
fingerprints() {   # fingerprints LAKE OUT: table<TAB>rows<TAB>hash
  local t
  while read -r t; do
    "$oracle" fingerprint "$1/${t/.//}" | python3 -c '
import json, sys; d = json.load(sys.stdin); print(sys.argv[1], d["rows"], d["hash"], sep="\t")' "$t"
  done < "$LW/tables.txt" > "$2"
}
if [ -s "$LW/fp_before.tsv" ]; then cp "$LW/fp_before.tsv" "$WORK/fp_before.tsv"
else fingerprints "$LW/lake" "$WORK/fp_before.tsv"; fi
advise_all everything "$WORK/advise_before.json"

for step in everything auto; do
  r="$WORK/$step"; mkdir -p "$r"
  rc=0
  LOOM_STORE_STATS="$r/stats.jsonl" /usr/bin/time -v -o "$r/time.txt" \
    "$LOOM" maintain --config "$WORK/storage.$step.yaml" --plan "$LW/plan.yaml" --step "$step" \
    --jobs "$JOBS" --json > "$r/report.json" 2> "$r/stderr.txt" || rc=$?
  echo "$step: exit $rc" | tee -a "$WORK/rc.txt"
done
for step in everything auto; do
  r="$WORK/$step"
  advise_all "$step" "$r/advise.json"
  mkdir -p "$r/lake"
  s3cli s3 sync --only-show-errors "s3://lake/$step/" "$r/lake"
  fingerprints "$r/lake" "$r/fp_after.tsv"
done

python3 - "$WORK" "$JOBS" <<'PY' | tee "$WORK/summary.md"
import json, re, sys, collections
W, jobs = sys.argv[1], sys.argv[2]
def timev(p):
    t = open(p).read()
    g = lambda k: re.search(re.escape(k) + r":\s*(\S+)", t).group(1)
    w = g("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(w)))
    return wall, float(g("User time (seconds)")), float(g("System time (seconds)")), int(g("Maximum resident set size (kbytes)"))
def recommended(path):
    out = []
    for l in open(path):
        if not l.strip(): continue
        t = json.loads(l)
        rec = [a["op"] for a in t.get("advice", []) if a.get("recommended")]
        if rec: out.append((t.get("table"), rec))
    return out
before = {l.split("\t")[0]: l.rstrip("\n").split("\t")[1:] for l in open(f"{W}/fp_before.tsv")}
print(f"one round, --jobs {jobs}, on s3://lake/STEP of a loopback Ceph RGW\n")
print("| run | wall s | cpu s user+sys | peak RSS MiB | bytes read | bytes written | requests | operations run | tables ok/failed | advise after: tables with a recommendation | fingerprints unchanged |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
recs = {}
for step in ("everything", "auto"):
    r = f"{W}/{step}"
    wall, user, sys_, rss = timev(f"{r}/time.txt")
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
    req = ", ".join(f"{k} {v:,}" for k, v in st["store_requests"].items() if v)
    ops = ", ".join(f"{k} {v}" + (f" ({changed[k]} changed files)" if step == "everything" else "") for k, v in sorted(ran.items()))
    s = rep["summary"]; recs[step] = recommended(f"{r}/advise.json")
    print(f"| {step} | {wall:.2f} | {user + sys_:.2f} = {user:.2f}+{sys_:.2f} | {rss / 1024:.0f} | "
          f"{st['bytes_read']:,} | {st['bytes_written']:,} | {req} | {ops} | {s['ok']}/{s['failed']} | {len(recs[step])} | {same}/{len(before)} |")
for step, rec in recs.items():
    for ref, ops in rec:
        print(f"- {step}: advise still recommends {', '.join(ops)} for {ref}")
b = recommended(f"{W}/advise_before.json")
kinds = collections.Counter(op for _, rec in b for op in rec)
print(f"\nadvise before the runs (on RGW): {len(b)} tables with a recommendation: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
PY
