#!/usr/bin/env bash
# Parquet round trip (issue 3): DuckDB, Polars and arrow-rs (parquet-wasm)
# write randomized files from a fixed seed (every physical type, the common
# logical types, nulls, nested list/struct/map/list-of-struct/list-of-list,
# every codec each offers, several row groups, dictionary and plain pages,
# data page v1 and v2: tests/tools/pq_roundtrip_gen.cjs); loom reads each
# and writes it again (tests/helpers/pq_rewrite.c, cycling loom's codec and
# page/row-group/dictionary options); DuckDB, Polars and parquet-wasm read
# loom's file and must find the original's values, and loom's statistics
# must equal what DuckDB computes over each column chunk
# (tests/tools/pq_roundtrip_verify.cjs). What an engine cannot read is
# listed there with the reason and printed as a NOTE. Also, `loom parquet
# cat` of every original must equal DuckDB's reading of it
# (tests/tools/parquet_compare.cjs).
set -euo pipefail
: "${LOOM_BIN:?}" "${LOOM_BUILD_DIR:?}" "${LOOM_SOURCE_DIR:?}"
tools="$LOOM_SOURCE_DIR/tests/tools"
rewrite="$LOOM_BUILD_DIR/tests/pq_rewrite"
[ -x "$rewrite" ] || { echo "missing $rewrite (build the tests)" >&2; exit 1; }
NODE_PATH=$(bash "$tools/pqwrite_deps.sh" "$LOOM_BUILD_DIR")
export NODE_PATH
if [ -e "$LOOM_BUILD_DIR/pqwrite-deps/INSTALL_FAILED" ]; then
  echo "nodejs-polars / parquet-wasm could not be installed (see $LOOM_BUILD_DIR/pqwrite-deps/INSTALL_FAILED)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-pqrt-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

SECONDS=0
node "$tools/pq_roundtrip_gen.cjs" "$tmp" "${LOOM_PQRT_SEED:-20261202}"
gen_s=$SECONDS
mkdir -p "$tmp/loom"
fail=0
while IFS=$'\t' read -r name opts; do
  # shellcheck disable=SC2086  # opts is a word list
  if ! "$rewrite" "$tmp/orig/$name" "$tmp/loom/$name" $opts; then
    echo "FAIL loom could not rewrite $name (options: $opts)"
    fail=1
  fi
done <"$tmp/cases.tsv"
rw_s=$((SECONDS - gen_s))
node "$tools/pq_roundtrip_verify.cjs" "$tmp" || fail=1
verify_s=$((SECONDS - gen_s - rw_s))
# `loom parquet cat` vs DuckDB on the originals; arrowrs_lz4_V1 is left out:
# DuckDB does not read Hadoop-framed LZ4 (loom's reading of it is judged
# above, through arrow-rs's copy).
# With LOOM_FIXTURE_SAMPLE=N (the sanitizer pass) every Nth original only:
# loom's rewrite of every file above already runs under the sanitizers.
originals=()
i=0
for f in "$tmp"/orig/*.parquet; do
  case "$(basename "$f")" in arrowrs_lz4_V1.parquet) continue ;; esac
  if [ $((i % ${LOOM_FIXTURE_SAMPLE:-1})) -eq 0 ]; then originals+=("$f"); fi
  i=$((i + 1))
done
if ! node "$tools/parquet_compare.cjs" "$LOOM_BIN" "${originals[@]}" >"$tmp/cat.log" 2>&1; then
  grep -v '^ok ' "$tmp/cat.log" | head -40
  fail=1
fi
echo "loom parquet cat equals DuckDB on $(grep -c '^ok ' "$tmp/cat.log") of ${#originals[@]} originals"
echo "time: generate ${gen_s}s, loom rewrite ${rw_s}s, verify ${verify_s}s, cat $((SECONDS - gen_s - rw_s - verify_s))s"
exit $fail
