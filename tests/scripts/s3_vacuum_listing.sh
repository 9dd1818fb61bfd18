#!/usr/bin/env bash
# VACUUM FULL's listing on S3 (Ceph RGW) fanned out over the table's
# directories (src/store/list_all.c, issue 30):
#  - a table of 300 partition directories (3,000 objects): the dry run
#    lists every object exactly once - the orphans it names are exactly
#    the objects awscli lists minus the log's files and _delta_log/;
#  - through tests/tools/fault_proxy.py delaying every LIST by 100 ms,
#    the trace shows at least 16 LISTs in flight at once, each directory
#    listed once (one page each);
#  - a table partitioned two levels deep (2 x 40 directories): the
#    listing opens the first level to find enough directories, finds the
#    same objects, and still keeps 16 in flight;
#  - the plain listing (one directory only, nothing to fan out) finds the
#    same objects as before;
#  - deleting for real (retention 0) leaves exactly the log's files
#    (awscli) and the rows unchanged (oracle on a download).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
bucket=$(s3_new_bucket listing) || { fail "cannot create a bucket"; finish; exit 1; }

# make_table DIR DIRS...: a Delta table whose log names one file per
# directory (copied from simple_table's first data file) and 9 orphans
# beside each
make_table() {
  local dir=$1; shift
  local src d i
  src=$(copy_table simple_table)
  mkdir -p "$dir/_delta_log"
  local files=("$src"/*.parquet) data
  data=${files[0]}
  python3 - "$src/_delta_log/00000000000000000000.json" "$dir/_delta_log/00000000000000000000.json" \
    "$(stat -c %s "$data")" "$@" <<'PY'
import json, sys
src, dst, size, dirs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
meta = None
for line in open(src):
    a = json.loads(line)
    if "metaData" in a:
        meta = a["metaData"]
cols = sorted({kv.split("=")[0] for d in dirs for kv in d.split("/")})
schema = json.loads(meta["schemaString"])
schema["fields"] += [{"name": c, "type": "string", "nullable": True, "metadata": {}} for c in cols]
meta["schemaString"] = json.dumps(schema)
meta["partitionColumns"] = cols
with open(dst, "w") as f:
    f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
    f.write(json.dumps({"metaData": meta}) + "\n")
    for d in dirs:
        pv = dict(kv.split("=") for kv in d.split("/"))
        f.write(json.dumps({"add": {"path": d + "/live.parquet", "partitionValues": pv, "size": size,
                                    "modificationTime": 0, "dataChange": True}}) + "\n")
PY
  for d in "$@"; do
    mkdir -p "$dir/$d"
    cp "$data" "$dir/$d/live.parquet"
    for i in 1 2 3 4 5 6 7 8 9; do cp "$data" "$dir/$d/orphan-$i.parquet"; done
  done
}

# listed_orphans JSON: the keys a dry run would delete, sorted
listed_orphans() { jsq "$1" 'd.files.join("\n")' | sort; }
# expected_orphans s3://bucket/path: every object but the log and live files
expected_orphans() {
  s3cli s3 ls --recursive "$1/" > "$TEST_TMP/ls.out"
  awk '{print $4}' "$TEST_TMP/ls.out" | sed "s|^${1#s3://$bucket/}/||" |
    { grep -v -e '^_delta_log/' -e '/live\.parquet$' || true; } | sort
}

# traced_vacuum URI TRACE OUT: a dry run of VACUUM FULL through a proxy
# that delays every LIST by 100 ms
traced_vacuum() {
  local port_file="$TEST_TMP/proxy.port.$RANDOM"
  python3 "$TOOLS/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 --port-file "$port_file" \
    --delay-rate 1 --delay-ms 100 --match '^GET .*list-type=2' --trace "$2" > /dev/null 2>> "$TEST_TMP/proxy.err" &
  local pid=$!
  for _ in $(seq 1 100); do [ -s "$port_file" ] && break; sleep 0.05; done
  AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$port_file")" \
    "$LOOM_BIN" vacuum "$1" --full --retention-hours 0 --no-retention-check --dry-run --json > "$3"
  local rc=$?
  kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null || true
  return $rc
}

# list_overlap TRACE REGEX: "LISTs distinct-prefixes most-in-flight" over
# the LISTs whose prefix matches REGEX (the table's data directories)
list_overlap() {
  python3 - "$1" "$2" <<'PY'
import json, re, sys
want = re.compile(sys.argv[2])
lists = []
for r in map(json.loads, open(sys.argv[1])):
    if r["method"] == "GET" and r.get("prefix") is not None and want.search(r["prefix"]):
        lists.append(r)
lists.sort(key=lambda r: r["start"])
most, ends = 0, []
for r in lists:
    ends = [e for e in ends if e > r["start"]] + [r["end"]]
    most = max(most, len(ends))
print(len(lists), len({r["prefix"] for r in lists}), most)
PY
}

# one level: 300 directories
dirs=$(seq -f "p=%03g" 0 299)
# shellcheck disable=SC2086
make_table "$TEST_TMP/one" $dirs
expect "upload a table of 300 directories" s3_upload "$TEST_TMP/one" "s3://$bucket/one"
expect "dry run through 100 ms per LIST" traced_vacuum "s3://$bucket/one" "$TEST_TMP/one.trace" "$TEST_TMP/one.json"
expected_orphans "s3://$bucket/one" > "$TEST_TMP/one.expected"
listed_orphans "$TEST_TMP/one.json" > "$TEST_TMP/one.listed"
expect "2,700 orphans expected (awscli): $(wc -l < "$TEST_TMP/one.expected")" test "$(wc -l < "$TEST_TMP/one.expected")" = 2700
expect "the dry run names exactly the orphans awscli lists" cmp -s "$TEST_TMP/one.expected" "$TEST_TMP/one.listed"
read -r n_lists n_prefixes most < <(list_overlap "$TEST_TMP/one.trace" '/p=[0-9]+/$')
expect "every directory listed once, in one page: $n_lists LISTs of $n_prefixes directories, 300 expected" \
  test "$n_lists" = 300 -a "$n_prefixes" = 300
expect "directories listed side by side: $most LISTs in flight at once, 16 expected" test "$most" -ge 16

# two levels: 2 x 40 directories
dirs=""
for a in 0 1; do for b in $(seq -f "%02g" 0 39); do dirs="$dirs a=$a/b=$b"; done; done
# shellcheck disable=SC2086
make_table "$TEST_TMP/two" $dirs
expect "upload a table two levels deep" s3_upload "$TEST_TMP/two" "s3://$bucket/two"
expect "dry run, two levels" traced_vacuum "s3://$bucket/two" "$TEST_TMP/two.trace" "$TEST_TMP/two.json"
expected_orphans "s3://$bucket/two" > "$TEST_TMP/two.expected"
listed_orphans "$TEST_TMP/two.json" > "$TEST_TMP/two.listed"
expect "720 orphans expected (awscli): $(wc -l < "$TEST_TMP/two.expected")" test "$(wc -l < "$TEST_TMP/two.expected")" = 720
expect "two levels: the dry run names exactly the orphans awscli lists" \
  cmp -s "$TEST_TMP/two.expected" "$TEST_TMP/two.listed"
read -r n_lists n_prefixes most < <(list_overlap "$TEST_TMP/two.trace" '/a=[0-9]+/b=[0-9]+/$')
expect "two levels: each of the 80 directories listed once: $n_lists LISTs of $n_prefixes" \
  test "$n_lists" = 80 -a "$n_prefixes" = 80
expect "two levels: $most LISTs in flight at once, 16 expected" test "$most" -ge 16

# nothing to fan out: one directory
make_table "$TEST_TMP/flat" "p=0"
expect "upload a table of one directory" s3_upload "$TEST_TMP/flat" "s3://$bucket/flat"
"$LOOM_BIN" vacuum "s3://$bucket/flat" --full --retention-hours 0 --no-retention-check --dry-run --json > "$TEST_TMP/flat.json"
expected_orphans "s3://$bucket/flat" > "$TEST_TMP/flat.expected"
listed_orphans "$TEST_TMP/flat.json" > "$TEST_TMP/flat.listed"
expect "one directory: the 9 orphans awscli lists" \
  sh -c "test \"\$(wc -l < '$TEST_TMP/flat.expected')\" = 9 && cmp -s '$TEST_TMP/flat.expected' '$TEST_TMP/flat.listed'"

# for real
fp0=$(oracle fingerprint "$TEST_TMP/one" | jsq - 'd.hash + "/" + d.rows')
expect "vacuum full, retention 0" "$LOOM_BIN" vacuum "s3://$bucket/one" --full --retention-hours 0 \
  --no-retention-check --no-dry-run > /dev/null
expect "no orphan left (awscli)" test -z "$(expected_orphans "s3://$bucket/one")"
expect "every live file kept (awscli): 300" \
  test "$(s3cli s3 ls --recursive "s3://$bucket/one/" | grep -c '/live\.parquet$')" = 300
expect "download the vacuumed table" s3_download "s3://$bucket/one" "$TEST_TMP/one-down"
expect "rows unchanged (oracle)" \
  test "$fp0" = "$(oracle fingerprint "$TEST_TMP/one-down" | jsq - 'd.hash + "/" + d.rows')"
finish
