#!/usr/bin/env bash
# Z-order requests loom must refuse, each with a message naming the column
# or feature and the table left byte-for-byte unchanged: no columns, a
# missing column, a partition column, list and struct columns (no order), a
# liquid-clustered table Z-ordered by other columns; and what must work: a
# struct field by dotted path (rows unchanged, verify ok), the CLI's
# --help and usage errors.
source "$(dirname "$0")/../tools/lib.sh"

node "$TOOLS/gen_small_files.cjs" "$TEST_TMP/base" 2 4 500
"$LOOM_BIN" convert "$TEST_TMP/base" --partition-by p,q > /dev/null
t="$TEST_TMP/base"
d0=$(tree_digest "$t")

refuse() { # WHAT PATTERN ARGS...
  local what=$1 pat=$2; shift 2
  if "$LOOM_BIN" zorder "$t" "$@" > "$TEST_TMP/out" 2> "$TEST_TMP/err"; then
    fail "$what: accepted"
  else
    expect "$what: message names '$pat': $(head -c 200 "$TEST_TMP/err")" grep -q -- "$pat" "$TEST_TMP/err"
  fi
  expect "$what: table unchanged" test "$d0" = "$(tree_digest "$t")"
}
refuse "no columns" "columns is required"
refuse "missing column" "'nope' does not exist" --columns id,nope
refuse "partition column" "'p' is a partition column" --columns p,id
refuse "list column" "'l' has type array" --columns l
refuse "struct column" "'st' has type struct" --columns st
refuse "field of a non-struct" "'s' is not a struct" --columns s.x
refuse "bad curve" "--curve is z or hilbert" --columns id --curve peano
refuse "duplicate column" "listed twice" --columns id,id

expect "--help" sh -c "'$LOOM_BIN' zorder --help | grep -q -- --columns"

# a struct field by its dotted path
fp0=$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')
expect "z-order by st.a,ts" "$LOOM_BIN" zorder "$t" --columns st.a,ts --target-size 1MiB > /dev/null
expect "st.a,ts: rows unchanged" test "$fp0" = "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')"
if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "st.a,ts: verify: $(head -c 400 "$TEST_TMP/v.json")"; fi

# liquid clustering on `id`: Z-order by other columns is refused, naming it
c="$TEST_TMP/clustered"
cp -r "$TEST_TMP/base" "$c"
v=$(oracle snapshot "$c" | jsq - 'd.version')
printf '%s\n' \
  '{"commitInfo":{"timestamp":1700000000000,"operation":"CLUSTER BY","operationParameters":{}}}' \
  '{"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":["domainMetadata","clustering"]}}' \
  '{"domainMetadata":{"domain":"delta.clustering","configuration":"{\"clusteringColumns\":[[\"id\"]],\"domainName\":\"delta.clustering\"}","removed":false}}' \
  > "$c/_delta_log/$(printf '%020d' $((v + 1))).json"
t="$c"
d0=$(tree_digest "$t")
refuse "clustered table by other columns" "liquid clustering (table feature 'clustering') on \[id\]" --columns v,s
# by its clustering column: the protocol gate refuses for good (Delta
# forbids ZORDER BY on a clustered table) and says to run loom compact
refuse "clustered table by its clustering column (gate)" "loom compact" --columns id
finish
