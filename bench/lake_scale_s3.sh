#!/usr/bin/env bash
# bench/lake_scale_s3.sh - issue 30's lake floor: `loom health` and `loom
# maintain --jobs 8` over a lake of TABLES small tables on a private
# loopback Ceph RGW (tests/tools/rgw.sh): memory bounded by the jobs, every
# table reported once.
#
#   [TABLES=10000] [SUBSET=1000] [COMPARE=200] [SAMPLE=50] [SEED=30] [JOBS=8] bench/lake_scale_s3.sh
#
# The lake: 16 template Parquet files written by DuckDB (bench/lake_gen.cjs,
# 20-200 rows, 2-10 KB), then bench/lake_scale_gen.py writing TABLES tables
# (shapes: healthy, small, longlog, tomb; its header) straight to
# s3://lake/t/ through bench/put_objects.py. The storage YAML lists every
# table as a route (the config has no discovery: a ref resolves through a
# route or the default root, and MaintainSchema / the maintenance block
# expand over routes only) and runs the block in auto mode:
# `auto: {min_small_files: 4}`, `vacuum: {dry_run: false}`.
# Runs, each under /usr/bin/time -v (wall, cpu, peak RSS):
#  1. `loom health --config --json --jobs JOBS` over the first SUBSET tables
#     and over all TABLES (read only): peak RSS of the two;
#  2. `loom maintain --jobs 1` and `--jobs 4` on two further slices of
#     COMPARE tables each (the same shapes, other tables; COMPARE=0: none);
#  3. `loom maintain --jobs JOBS` on the first SUBSET tables, then on all
#     TABLES (its first SUBSET then have nothing left to do): peak RSS of
#     the two.
# Every run's output must name every table of its YAML exactly once (health:
# one JSON line per table; maintain: the report's `tables`), ok. Judged
# independently on SAMPLE tables drawn with SEED: `aws s3 sync`ed before
# and after, the oracle's fingerprint (rows, hash) unchanged; after, by the
# oracle's snapshot and the bucket listing: small and longlog tables in one
# live file, longlog with a checkpoint, tomb tables without the 2 removed
# files, every table's stored data files = its live files. Summary in
# $WORK/summary.md; the script fails when a check fails.
# Needs scripts/install-s3-test-deps.sh, the oracle's node modules
# (scripts/install-oracle.sh build) and a built loom (LOOM_BIN).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOOM="${LOOM_BIN:-$here/build/loom}"
: "${TABLES:=10000}" "${SUBSET:=1000}" "${COMPARE:=200}" "${SAMPLE:=50}" "${SEED:=30}" "${JOBS:=8}"
: "${WORK:=/tmp/loom-lake-scale-s3}"
export NODE_PATH="${NODE_PATH:-$here/build/oracle-deps/node_modules}"
oracle="$here/tests/tools/oracle.sh"
[ $((SUBSET + 2 * COMPARE)) -le "$TABLES" ] || { echo "SUBSET + 2 x COMPARE must fit in TABLES" >&2; exit 2; }
# shellcheck source=bench/rgw_lib.sh
source "$here/bench/rgw_lib.sh"
rm -rf "$WORK"; mkdir -p "$WORK"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$WORK/load.txt"

# ---- the lake ------------------------------------------------------------
for k in $(seq 0 15); do echo "$WORK/tpl/k$k 1 $((20 + k * 97 % 181)) $((SEED * 100 + k))"; done > "$WORK/tpl.txt"
node "$here/bench/lake_gen.cjs" batch "$WORK/tpl.txt"
node "$here/bench/lake_gen.cjs" stats "$WORK"/tpl/k*/part-00000.parquet > "$WORK/templates.jsonl"
rgw_start "$WORK/rgw" $((3 << 30))
rgw_public_bucket lake
t0=$(date +%s)
objects=$(python3 "$here/bench/lake_scale_gen.py" "$RGW_PORT" lake/t "$TABLES" "$SEED" "$WORK/templates.jsonl" "$WORK")
echo "generated $TABLES tables, $objects objects in $(( $(date +%s) - t0 )) s" | tee "$WORK/gen.log"
sleep 2   # the tomb tables' tombstones pass their 1 s retention by the objects' upload time too

# yaml FROM COUNT OUT: the storage YAML of tables FROM..FROM+COUNT-1
yaml() {
  { echo "storage:"
    echo "  defaults:"
    echo "    table_path:"
    echo "      uri: s3://lake/t"
    echo "      target_file_size: 1MiB"
    echo "  tables:"
    awk -v from="$1" -v n="$2" 'NR > from && NR <= from + n {
      p = $1; sub(/\./, "/", p); print "    - name: " $1; print "      path: s3://lake/t/" p }' "$WORK/tables.tsv"
    echo "  maintenance:"
    echo "    auto: {min_small_files: 4}"
    echo "    vacuum: {dry_run: false}"; } > "$3"
}
yaml 0 "$SUBSET" "$WORK/subset.yaml"
yaml "$SUBSET" "$COMPARE" "$WORK/jobs1.yaml"
yaml $((SUBSET + COMPARE)) "$COMPARE" "$WORK/jobs4.yaml"
yaml 0 "$TABLES" "$WORK/all.yaml"

# ---- the sample, before ---------------------------------------------------
python3 - "$WORK/tables.tsv" "$SAMPLE" "$SEED" > "$WORK/sample.tsv" <<'PY'
import random, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
for r in sorted(random.Random(int(sys.argv[3])).sample(rows, int(sys.argv[2]))):
    print("\t".join(r))
PY
sync_sample() {   # sync_sample DIR: the sample's tables from the bucket
  local inc=() t
  while read -r t _; do inc+=(--include "${t/.//}/*"); done < "$WORK/sample.tsv"
  s3cli s3 sync --only-show-errors s3://lake/t "$1" --exclude '*' "${inc[@]}"
}
judge() {   # judge DIR OUT: name, rows, hash, live files, checkpoint, stored data files,
            # live files not stored, stored files neither live nor tombstones
  local t
  while read -r t _; do
    "$oracle" fingerprint "$1/${t/.//}" > "$WORK/fp.json"
    "$oracle" snapshot "$1/${t/.//}" > "$WORK/snap.json"
    python3 - "$t" "$WORK/fp.json" "$WORK/snap.json" "$1/${t/.//}" <<'PY'
import glob, json, os, sys
fp, snap = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
stored = {os.path.basename(f) for f in glob.glob(sys.argv[4] + "/*.parquet")}
live = {f["path"] for f in snap["files"]}
known = live | {f["path"] for f in snap["tombstones"]}
print(sys.argv[1], fp["rows"], fp["hash"], snap["numFiles"], 1 if snap["checkpoint"] else 0, len(stored),
      len(live - stored), len(stored - known), sep="\t")
PY
  done < "$WORK/sample.tsv" > "$2"
}
sync_sample "$WORK/before"
judge "$WORK/before" "$WORK/judge_before.tsv"

# ---- the runs -------------------------------------------------------------
results="$WORK/runs.jsonl"; : > "$results"
run() {   # run NAME YAML VERB ARGS...: timed, output to $WORK/NAME.out
  local name=$1 yaml=$2 verb=$3 rc=0; shift 3
  LOOM_STORE_STATS="$WORK/$name.stats" /usr/bin/time -v -o "$WORK/$name.time" \
    "$LOOM" "$verb" --config "$yaml" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" || rc=$?
  python3 - "$name" "$verb" "$yaml" "$WORK" "$rc" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$results" <<'PY'
import collections, json, re, sys
name, verb, yaml, W, rc, load = sys.argv[1:]
tv = open(f"{W}/{name}.time").read()
g = lambda k: re.search(re.escape(k) + r":\s*(\S+)", tv).group(1)
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(g("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"))))
want = [l.split()[-1] for l in open(yaml) if l.startswith("    - name: ")]
if verb == "health":
    seen = [json.loads(l)["table"] for l in open(f"{W}/{name}.out") if l.strip()]
    seen = [s.split("s3://lake/t/", 1)[-1].replace("/", ".") for s in seen]
    ok = len(seen)
    ops = {}
else:
    rep = json.load(open(f"{W}/{name}.out"))
    seen = [t["ref"] for t in rep["tables"]]
    ok = sum(1 for t in rep["tables"] if t["status"] == "ok")
    ops = collections.Counter()
    for t in rep["tables"]:
        for k, v in t["ops"].get("auto", {}).get("metrics", {}).items():
            if k.endswith(".ran") and v:
                ops[k[:-4]] += 1
c = collections.Counter(seen)
st = [json.loads(l) for l in open(f"{W}/{name}.stats")][-1]
print(json.dumps({"run": name, "tables": len(want), "exit": int(rc), "wall_s": wall,
                  "user_s": float(g("User time (seconds)")), "sys_s": float(g("System time (seconds)")),
                  "peak_rss_kib": int(g("Maximum resident set size (kbytes)")),
                  "reported_once": sum(1 for w in want if c[w] == 1), "reported_rows": len(seen),
                  "ok": ok, "ops": ops, "requests": {k: v for k, v in st["store_requests"].items() if v},
                  "load_after": load}))
PY
  tail -n 1 "$results"
}
run health-subset "$WORK/subset.yaml" health --json --jobs "$JOBS"
run health-all "$WORK/all.yaml" health --json --jobs "$JOBS"
if [ "$COMPARE" -gt 0 ]; then
  run maintain-jobs1 "$WORK/jobs1.yaml" maintain --json --jobs 1
  run maintain-jobs4 "$WORK/jobs4.yaml" maintain --json --jobs 4
fi
run maintain-subset "$WORK/subset.yaml" maintain --json --jobs "$JOBS"
run maintain-all "$WORK/all.yaml" maintain --json --jobs "$JOBS"

# ---- the sample, after ----------------------------------------------------
sync_sample "$WORK/after"
judge "$WORK/after" "$WORK/judge_after.tsv"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$WORK/load.txt"

python3 - "$WORK" "$TABLES" "$SUBSET" "$JOBS" <<'PY' | tee "$WORK/summary.md"
import json, sys
W, tables, subset, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
runs = [json.loads(l) for l in open(f"{W}/runs.jsonl")]
sample = {l.split("\t")[0]: l.rstrip("\n").split("\t") for l in open(f"{W}/sample.tsv")}
rd = lambda f: {l.split("\t")[0]: l.rstrip("\n").split("\t")[1:] for l in open(f)}
before, after = rd(f"{W}/judge_before.tsv"), rd(f"{W}/judge_after.tsv")
fails = []
print(open(f"{W}/gen.log").read().strip() + "; " + " / ".join(l.strip() for l in open(f"{W}/load.txt")) + "\n")
print("| run | tables | wall s | cpu s user+sys | peak RSS MiB | reported once | ok | auto ran | requests | load after |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in runs:
    ops = ", ".join(f"{k} {v}" for k, v in sorted(r["ops"].items())) or "-"
    req = ", ".join(f"{k} {v:,}" for k, v in r["requests"].items())
    print(f"| {r['run']} | {r['tables']:,} | {r['wall_s']:.1f} | {r['user_s'] + r['sys_s']:.1f} = {r['user_s']:.1f}+{r['sys_s']:.1f} "
          f"| {r['peak_rss_kib'] / 1024:.0f} | {r['reported_once']:,} of {r['reported_rows']:,} rows | {r['ok']:,} | {ops} | {req} | {r['load_after']} |")
    if r["exit"] or r["reported_once"] != r["tables"] or r["reported_rows"] != r["tables"] or r["ok"] != r["tables"]:
        fails.append(f"{r['run']}: exit {r['exit']}, {r['reported_once']} of {r['tables']} tables reported once "
                     f"({r['reported_rows']} rows), {r['ok']} ok")
by = {r["run"]: r for r in runs}
for verb in ("health", "maintain"):
    a, b = by[f"{verb}-subset"], by[f"{verb}-all"]
    print(f"\n{verb}: peak RSS {a['peak_rss_kib'] / 1024:.0f} MiB at {subset:,} tables, {b['peak_rss_kib'] / 1024:.0f} MiB at "
          f"{tables:,}: {(b['peak_rss_kib'] - a['peak_rss_kib']) * 1024 / (tables - subset):.0f} bytes per further table")
same = 0
for t, (_, shape, live, stored, commits) in sample.items():
    rows0, hash0, files0, cp0, stored0, lost0, stray0 = before[t]
    rows1, hash1, files1, cp1, stored1, lost1, stray1 = after[t]
    want = {"healthy": int(live), "small": 1, "longlog": 1, "tomb": 2}[shape]
    why = []
    if (rows0, hash0) != (rows1, hash1): why.append(f"rows/hash {rows0}/{hash0} -> {rows1}/{hash1}")
    if int(files1) != want: why.append(f"{files1} live files, expected {want}")
    if shape == "longlog" and cp1 != "1": why.append("no checkpoint")
    if lost1 != "0" or stray1 != "0": why.append(f"{lost1} live files not stored, {stray1} stored files unknown to the log")
    # compaction's removes stay within the 7-day retention; the tomb tables' expired ones go
    if shape == "tomb" and int(stored1) != int(files1): why.append(f"{stored1} data files stored for {files1} live")
    if int(files0) != int(live) or int(stored0) != int(stored): why.append("the lake before is not the generator's")
    if why: fails.append(f"sample {t} ({shape}): " + "; ".join(why))
    else: same += 1
print(f"\nsample of {len(sample)} tables (oracle fingerprint and snapshot, bucket listing): {same} as expected "
      f"(rows and hash unchanged; live files: 1 after compaction, 2 in tomb tables; every live file stored, "
      f"no stored file unknown to the log, the expired tombstones' files deleted; longlog checkpointed)")
for f in fails: print(f"- FAILED: {f}")
sys.exit(1 if fails else 0)
PY
