#!/usr/bin/env bash
# Every Parquet fixture read by `loom parquet cat` must match DuckDB's reading
# of it, value by value (tests/tools/parquet_compare.cjs); files DuckDB cannot
# read are checked against the fixture's documented data; encrypted files
# and every file of bad_data/ must fail cleanly (exit 1, a message naming
# the file), never crash. Every fixture file is accounted for: a new one
# that no rule covers fails the test.
set -uo pipefail
: "${LOOM_BIN:?}" "${LOOM_BUILD_DIR:?}" "${LOOM_SOURCE_DIR:?}" "${LOOM_FIXTURES_DIR:?}"
P="$LOOM_FIXTURES_DIR/parquet"
D="$P/data"
source "$LOOM_SOURCE_DIR/tests/tools/oracle_env.sh"
NM="$LOOM_ORACLE_NODE_PATH"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/covered"

# ---- 1. files compared with DuckDB ------------------------------------------
# Special cases, each with its reason:
#   hadoop_lz4_compressed   DuckDB has no Hadoop-framed LZ4; the same data as
#                           lz4_raw_compressed, so loom reads the first and
#                           DuckDB the second.
#   int96_from_spark        DuckDB wraps the year-290000 INT96 value (row 5);
#                           compared with the values int96_from_spark.md gives.
#   map_no_value            DuckDB refuses MAP_KEY_VALUE with one child;
#                           compared with the rows map_no_value.md gives.
#   large_string_map.brotli a >1 GiB page (a 2 GiB string chunk): above loom's
#                           PQ_MAX_PAGE_SIZE bound, must fail cleanly.
#   *.encrypted             Parquet modular encryption is not supported: must
#                           fail cleanly with EUNSUPPORTED.
special=" hadoop_lz4_compressed.parquet int96_from_spark.parquet map_no_value.parquet large_string_map.brotli.parquet "
files=()
for f in "$D"/*.parquet "$D"/geospatial/*.parquet; do
  case "$special" in *" $(basename "$f") "*) continue ;; esac
  files+=("$f")
done
files+=("$D/hadoop_lz4_compressed.parquet=$D/lz4_raw_compressed.parquet")
# projection and limits (--columns, --limit), nested columns reordered
files+=("$D/nested_lists.snappy.parquet#b,a#2" "$D/alltypes_tiny_pages.parquet#string_col,id,timestamp_col#1234"
        "$D/nested_structs.rust.parquet#ul_observation_date,roll_num#1" "$D/list_columns.parquet#utf8_list#0")
# ARROW-GH-43605 is valid Parquet (a bit width of 0 for dictionary indices,
# which Arrow once rejected): loom must read it exactly like DuckDB.
files+=("$P/bad_data/ARROW-GH-43605.parquet")
# newer parquet-testing files the project carries (tests/resources/parquet/
# PROVENANCE.md): an empty compressed values section in a v2 page, and old
# parquet-mr column chunk sizes that leave out the dictionary page header
# (PARQUET-816)
R="$LOOM_SOURCE_DIR/tests/resources/parquet"
files+=("$R/datapage_v2_empty_datapage.snappy.parquet" "$R/nation.dict-malformed.parquet")
if ! NODE_PATH="$NM" node "$LOOM_SOURCE_DIR/tests/tools/parquet_compare.cjs" "$LOOM_BIN" "${files[@]}" >"$tmp/cmp" 2>&1; then
  fail=1
fi
cat "$tmp/cmp"
n_ok=$(grep -c '^ok ' "$tmp/cmp")
echo "matched DuckDB: $n_ok of ${#files[@]} files"
[ "$n_ok" -eq "${#files[@]}" ] || fail=1

# ---- footers: `loom parquet meta` vs DuckDB's parquet_metadata/_schema/
# _file_metadata (every file whose footer DuckDB reads) ------------------------
mfiles=()
for f in "$D"/*.parquet "$D"/geospatial/*.parquet "$P"/shredded_variant/*.parquet; do
  [ "$(basename "$f")" = map_no_value.parquet ] && continue   # DuckDB refuses its schema
  mfiles+=("$f")
done
mfiles+=("$P/bad_data/ARROW-GH-43605.parquet" "$P/bad_data/ARROW-GH-45185.parquet" "$P/bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet")
mfiles+=("$R/datapage_v2_empty_datapage.snappy.parquet" "$R/nation.dict-malformed.parquet")
if ! NODE_PATH="$NM" node "$LOOM_SOURCE_DIR/tests/tools/parquet_compare.cjs" --meta "$LOOM_BIN" "${mfiles[@]}" >"$tmp/meta" 2>&1; then
  fail=1
fi
grep -v '^ok ' "$tmp/meta"
n_ok=$(grep -c '^ok ' "$tmp/meta")
echo "footers matching DuckDB: $n_ok of ${#mfiles[@]} files"
[ "$n_ok" -eq "${#mfiles[@]}" ] || fail=1

# ---- 2. files compared with their documented data ---------------------------
expect() {  # expect FILE  (expected JSON lines on stdin)
  cat >"$tmp/want"
  basename "$1" >>"$tmp/covered"
  if ! "$LOOM_BIN" parquet cat "$1" >"$tmp/got" 2>"$tmp/err"; then
    echo "FAIL $1: $(cat "$tmp/err")"; fail=1; return
  fi
  if diff -u "$tmp/want" "$tmp/got"; then echo "ok $1 (documented data)"; else echo "FAIL $1: differs from its documented data"; fail=1; fi
}
# int96_from_spark.md: Spark wrote, in a UTC-8 session, 2024-01-01T12:34:56.123456,
# 2024-01-01T01:00:00Z, 9999-12-31T01:00:00-02:00, 2024-12-31T01:00:00+02:00,
# null and 290000-12-31T01:00:00+02:00 (rows 0-4 agree with DuckDB).
expect "$D/int96_from_spark.parquet" <<'JSON'
{"a":"2024-01-01 20:34:56.123456000"}
{"a":"2024-01-01 01:00:00.000000000"}
{"a":"9999-12-31 03:00:00.000000000"}
{"a":"2024-12-30 23:00:00.000000000"}
{"a":null}
{"a":"290000-12-30 23:00:00.000000000"}
JSON
# map_no_value.md: maps {1->null,2->null,3->null}, ...; the map without a value
# field and the list are both [1,2,3], [4,5,6], [7,8,9].
expect "$D/map_no_value.parquet" <<'JSON'
{"my_map":[{"key":1,"value":null},{"key":2,"value":null},{"key":3,"value":null}],"my_map_no_v":[1,2,3],"my_list":[1,2,3]}
{"my_map":[{"key":4,"value":null},{"key":5,"value":null},{"key":6,"value":null}],"my_map_no_v":[4,5,6],"my_list":[4,5,6]}
{"my_map":[{"key":7,"value":null},{"key":8,"value":null},{"key":9,"value":null}],"my_map_no_v":[7,8,9],"my_list":[7,8,9]}
JSON

# ---- 3. clean failures -------------------------------------------------------
must_fail() {  # must_fail FILE PATTERN: exit 1 (not a crash), stderr names the file and matches PATTERN
  local f=$1 pat=$2 rc v
  basename "$f" >>"$tmp/covered"
  for v in meta cat; do
    [ "$v" = meta ] && [ "$pat" = "#cat-only" ] && continue
    "$LOOM_BIN" parquet $v "$f" >/dev/null 2>"$tmp/err"; rc=$?
    if [ $rc -ne 1 ]; then echo "FAIL $v $f: exit $rc, want 1: $(cat "$tmp/err")"; fail=1; continue; fi
    if ! grep -q "$(basename "$f")" "$tmp/err"; then echo "FAIL $v $f: message does not name the file: $(cat "$tmp/err")"; fail=1; continue; fi
    if [ "$pat" != "#cat-only" ] && ! grep -Eq "$pat" "$tmp/err"; then echo "FAIL $v $f: message lacks /$pat/: $(cat "$tmp/err")"; fail=1; continue; fi
    echo "ok $v $f fails cleanly: $(head -c 200 "$tmp/err")"
  done
}
for f in "$D"/*.encrypted "$D"/aes256/*.encrypted; do
  case "$(basename "$f")" in
    encrypt_columns_plaintext_footer.parquet.encrypted) must_fail "$f" "#cat-only" ;;  # footer is plaintext: meta works
    *) must_fail "$f" "EUNSUPPORTED" ;;
  esac
done
must_fail "$D/large_string_map.brotli.parquet" "#cat-only"
grep -q "1 GiB" "$tmp/err" || { echo "FAIL large_string_map: not the page-size bound: $(cat "$tmp/err")"; fail=1; }
must_fail "$P/bad_data/PARQUET-1481.parquet" "byte offset [0-9]+"
for f in ARROW-GH-41317 ARROW-RS-GH-6229-DICTHEADER ARROW-GH-45185; do
  must_fail "$P/bad_data/$f.parquet" "#cat-only"
  grep -Eq "offset [0-9]+" "$tmp/err" || { echo "FAIL $f: message names no offset"; fail=1; }
done

# ---- 4. every fixture is covered ---------------------------------------------
for f in "$D"/* "$D"/aes256/* "$D"/geospatial/* "$P"/bad_data/*; do
  case "$f" in
    *.parquet|*.encrypted) ;;
    *) continue ;;
  esac
  b=$(basename "$f")
  grep -qF "$b" "$tmp/cmp" || grep -qxF "$b" "$tmp/covered" || { echo "FAIL fixture $b is not covered by this test"; fail=1; }
done

# ---- 5. shredded variants (bonus): the physical columns read, and each
# row's metadata binary is the prefix of the case's variant file ------------
for f in "$P"/shredded_variant/case-*.parquet; do
  bin="${f%.parquet}_row-0.variant.bin"
  if ! "$LOOM_BIN" parquet cat "$f" >"$tmp/got" 2>"$tmp/err"; then echo "FAIL $f: $(cat "$tmp/err")"; fail=1; continue; fi
  meta=$(sed -n 's/.*"metadata":"\([0-9a-f]*\)".*/\1/p' "$tmp/got")
  whole=$(od -An -v -tx1 "$bin" | tr -d ' \n')
  case "$whole" in
    "$meta"*) [ -n "$meta" ] && echo "ok $f (variant metadata matches)" || { echo "FAIL $f: no metadata"; fail=1; } ;;
    *) echo "FAIL $f: metadata $meta is not a prefix of $whole"; fail=1 ;;
  esac
done
exit $fail
