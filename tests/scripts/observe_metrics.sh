#!/usr/bin/env bash
# Metrics a monitoring stack scrapes (issue 29): `loom maintain --metrics`
# and `loom health --format openmetrics|prometheus` over a lake with an ok,
# a partitioned, a failing and a missing table. Judged by Prometheus's own
# tools: promtool check metrics on every Prometheus-text file, then Debian's
# Prometheus on loopback scrapes them (the OpenMetrics one with its
# OpenMetrics parser) and every sample queried back through /api/v1/query
# equals the file, and the report's numbers equal the scraped series. The
# file is replaced atomically (no temp left), secrets never appear, bad
# options change nothing.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/observe/lake.sh"
bash "$LOOM_SOURCE_DIR/scripts/install-observe-deps.sh" > /dev/null

observe_lake "$TEST_TMP"
cfg=(--config "$TEST_TMP/storage.yaml")
m="$TEST_TMP/metrics/loom.prom"
mkdir -p "$TEST_TMP/metrics"
echo "stale" > "$m"

# bad options: usage errors, nothing run, the old file untouched
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --metrics "$m" --log-format xml 2> "$TEST_TMP/err" || rc=$?
expect "--log-format xml is a usage error" test $rc -eq 2
expect "the error names the value" grep -q "not 'xml'" "$TEST_TMP/err"
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --metrics 2> "$TEST_TMP/err" || rc=$?
expect "--metrics without a value is a usage error" test $rc -eq 2
expect "the old metrics file is untouched" grep -qx stale "$m"
rc=0; "$LOOM_BIN" health "${cfg[@]}" --format yaml > /dev/null 2> "$TEST_TMP/err" || rc=$?
expect "health --format yaml is a usage error" test $rc -eq 2

# the run: raw.broken fails (exit 1), the metrics are written anyway
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --json --metrics "$m" > "$TEST_TMP/report.json" || rc=$?
expect "maintain exits 1 (raw.broken fails)" test $rc -eq 1
expect "promtool accepts the run's metrics" promtool check metrics < "$m"
expect "no temp file left beside the metrics" test "$(ls "$TEST_TMP/metrics")" = loom.prom
expect "the run's metrics carry the parquet error" \
  grep -q 'loom_errors_total{table="raw.broken",operation="compact",class="parquet",code="ECORRUPT"} 1' "$m"
expect "last success only for tables that succeeded" \
  test "$(grep -c '^loom_table_last_success_timestamp_seconds' "$m")" -eq 2
expect "health gauges of the compacted table" grep -q '^loom_health_files{table="raw.events"} 1$' "$m"
expect "store requests by kind" grep -q '^loom_store_requests_total{kind="GET"} [1-9]' "$m"
# every sample line's family has a TYPE; names follow the conventions
expect "counters end _total, all names loom_" python3 - "$m" <<'PY'
import re, sys
types = dict(re.findall(r'^# TYPE (\S+) (\S+)$', open(sys.argv[1]).read(), re.M))
assert types and all(n.startswith("loom_") for n in types), types
for n, t in types.items():
    assert (t == "counter") == n.endswith("_total"), (n, t)
    assert not re.search(r'_(milli|micro)?(ms|kb|mb|minutes|hours)', n), n
PY

# raw.missing has no table: health says so and exits 1, the rest is written
"$LOOM_BIN" health "${cfg[@]}" --format openmetrics > "$TEST_TMP/health.om" 2> /dev/null || true
"$LOOM_BIN" health "${cfg[@]}" --format prometheus > "$TEST_TMP/health.prom" 2> /dev/null || true
expect "promtool accepts health --format prometheus" promtool check metrics < "$TEST_TMP/health.prom"
expect "OpenMetrics ends with # EOF" test "$(tail -1 "$TEST_TMP/health.om")" = "# EOF"
expect "OpenMetrics counters are typed without _total" \
  test "$(grep -c '^# TYPE .*_total ' "$TEST_TMP/health.om")" -eq 0

# a real Prometheus scrapes all three; values and the report agree
expect "Prometheus scrapes the files and the report's numbers come back" \
  python3 "$TOOLS/observe/prom_scrape.py" "$TEST_TMP/report.json" "$m" \
    "$TEST_TMP/health.om:openmetrics" "$TEST_TMP/health.prom"

for f in "$m" "$TEST_TMP/health.om" "$TEST_TMP/health.prom" "$TEST_TMP/report.json"; do
  expect "no secret in $(basename "$f")" test "$(grep -cF "$OBSERVE_SECRET" "$f")" -eq 0
done

# an unwritable target: the run says which file, exit 1
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --metrics "$TEST_TMP/nodir/loom.prom" > /dev/null 2> "$TEST_TMP/err" || rc=$?
expect "an unwritable metrics file fails the command" test $rc -eq 1
expect "the error names the file" grep -q "nodir/loom.prom" "$TEST_TMP/err"
finish
