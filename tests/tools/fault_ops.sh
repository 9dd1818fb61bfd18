# tests/tools/fault_ops.sh - what the object-store fault tests share
# (s3_faults.sh, azure_faults.sh, gcs_faults.sh; sourced after lib.sh,
# with PROXY_UPSTREAM=HOST:PORT of the server and PROXY_FLAVOR=s3|azure|gcs
# set, and the test's via_proxy and CLEAR defined before run_op is called).
#
#   start_proxy ARGS...   a fresh tests/tools/fault_proxy.py in front of the
#                         server, ARGS its fault options; sets proxy_port
#   stop_proxy            stop it (the test also does on exit)
#   run_op WHAT ARGS...   `loom ARGS` through via_proxy: it completes, or
#                         fails (exit 1) with an error matching $CLEAR
#                         (never a crash); counts n, ok and failed
#   fault_table URI UP DOWN [ENV=V...]
#                         the table the faults work on: 48 files of 7,000
#                         rows in two partition levels (gen_small_files.cjs)
#                         put on the server by the test's own client
#                         (`UP LOCAL_DIR`), made a Delta table by `loom
#                         convert` (ENV set for it) with no faults yet, fetched
#                         back (`DOWN LOCAL_DIR` into $TEST_TMP/d0) and
#                         fingerprinted by the oracle: sets fp0
proxy_pid=""

fault_table() {
  local uri=$1 up=$2 down=$3
  shift 3
  local base="$TEST_TMP/base"
  NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
    node "$TOOLS/gen_small_files.cjs" "$base" 2 48 7000
  expect "upload the Parquet files" "$up" "$base"
  expect "convert ${uri%%://*}://" env "$@" "$LOOM_BIN" convert "$uri" --partition-by p,q > /dev/null
  "$down" "$TEST_TMP/d0"
  oracle fingerprint "$TEST_TMP/d0" > "$TEST_TMP/fp0.json"
  fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
  expect "the converted table has its rows" jsq --assert "$TEST_TMP/fp0.json" 'd.rows === 48 * 7000'
}
start_proxy() {
  stop_proxy
  rm -f "$TEST_TMP/proxy.port"
  python3 "$TOOLS/fault_proxy.py" --upstream "$PROXY_UPSTREAM" --flavor "$PROXY_FLAVOR" \
    --port-file "$TEST_TMP/proxy.port" "$@" > /dev/null 2>> "$TEST_TMP/proxy.err" &
  proxy_pid=$!
  for _ in $(seq 1 100); do [ -s "$TEST_TMP/proxy.port" ] && break; sleep 0.05; done
  proxy_port=$(cat "$TEST_TMP/proxy.port")
}
stop_proxy() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2> /dev/null && wait "$proxy_pid" 2> /dev/null; proxy_pid=""; }

ok=0 failed=0 n=0
run_op() {
  local what="$1" rc=0; shift
  n=$((n + 1))
  via_proxy "$LOOM_BIN" "$@" > "$TEST_TMP/op.$n.out" 2> "$TEST_TMP/op.$n.err" || rc=$?
  if [ "$rc" = 0 ]; then
    ok=$((ok + 1)); pass
  elif [ "$rc" = 1 ] && grep -qE "$CLEAR" "$TEST_TMP/op.$n.err"; then
    failed=$((failed + 1)); pass
    echo "  $what failed cleanly: $(tail -1 "$TEST_TMP/op.$n.err" | head -c 300)"
  else
    fail "$what: exit $rc without a clear error: $(head -c 600 "$TEST_TMP/op.$n.err")"
  fi
}

# fault_rounds SEED0 PROXY_ARGS...: $ROUNDS rounds on $uri, each through a
# fresh proxy (seed SEED0 + round, the fault rates of PROXY_ARGS, faults
# logged to $TEST_TMP/faults.jsonl): inspect, compaction (first round),
# Z-order by id,v and v,id in turn, checkpoint, VACUUM FULL at retention 0,
# log cleanup.
fault_rounds() {
  local seed0="$1" round cols=(id,v v,id)
  shift
  for round in $(seq 1 "$ROUNDS"); do
    start_proxy --seed "$((seed0 + round))" "$@" --log "$TEST_TMP/faults.jsonl"
    run_op "inspect" inspect "$uri"
    [ "$round" = 1 ] && run_op "compact" compact "$uri" --target-size 64MiB
    run_op "zorder" zorder "$uri" --columns "${cols[$((round % 2))]}" --target-size 64MiB
    run_op "checkpoint" checkpoint "$uri"
    run_op "vacuum" vacuum "$uri" --full --retention-hours 0 --no-retention-check --no-dry-run
    run_op "cleanup-logs" cleanup-logs "$uri" --retention-hours 0
    stop_proxy
  done
}

# fault_rounds_checks WHAT UPLOADED KIND...: the rounds' summary line, and
# checks: every KIND of fault was injected, at least half the commands
# completed, uploads in parts (WHAT) ran through the faults (UPLOADED: a
# JavaScript test of a run's LOOM_STORE_STATS line `s`), retries happened.
fault_rounds_checks() {
  local what="$1" uploaded="$2" faults
  shift 2
  faults=$(wc -l < "$TEST_TMP/faults.jsonl")
  echo "$n commands through the proxy: $ok completed, $failed failed cleanly; $faults faults injected:" \
    "$(grep -o '"fault": "[a-z]*"' "$TEST_TMP/faults.jsonl" | cut -d'"' -f4 | sort | uniq -c | tr -s ' \n' ' ')"
  node -e 'const fs = require("fs"); const kinds = new Set(fs.readFileSync(process.argv[1], "utf8")
      .split("\n").filter(Boolean).map(l => JSON.parse(l).fault));
    for (const k of process.argv.slice(2))
      if (!kinds.has(k)) { console.error("no " + k + " fault was injected"); process.exit(1); }' \
    "$TEST_TMP/faults.jsonl" "$@" && pass || fail "every kind of fault was injected"
  expect "some commands completed despite the faults ($ok)" test "$ok" -ge $((n / 2))
  expect "$what ran through the faults" node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8")
      .split("\n").filter(Boolean).map(JSON.parse); process.exit(l.some(s => '"$uploaded"') ? 0 : 1)' \
    "$TEST_TMP/stats.jsonl"
  expect "retries happened" node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8")
      .split("\n").filter(Boolean).map(JSON.parse); process.exit(l.some(s => s.retries > 0) ? 0 : 1)' \
    "$TEST_TMP/stats.jsonl"
}
