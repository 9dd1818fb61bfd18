#!/usr/bin/env bash
# Every size loom reads takes the same units (loom_size_parse; issue 34),
# one check per entry point, each judged by what the size did:
#  - environment: LOOM_MULTIPART_PART_SIZE=5MiB - the compacted file on
#    RGW was uploaded in 5 MiB parts (its ETag's part count, as awscli
#    reads it, is ceil(size / 5 MiB), not the default 8 MiB's);
#  - storage option: multipart_part_size: "5 MiB" in the YAML's
#    storage_options - the same;
#  - YAML writer setting: row_group_bytes: 256KiB - the new file's row
#    groups (DuckDB's parquet_metadata) are many, not the default's one;
#  - CLI: --target-size 5MiB (the compaction's targetSize);
# and a size that is no size ("5 parsecs", below S3's 5 MiB minimum) is
# refused naming the setting, the table unchanged. Rows unchanged (oracle).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
export NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"

bucket=$(s3_new_bucket sizes) || { fail "cannot create a bucket"; finish; exit 1; }
base="$TEST_TMP/base"
node "$TOOLS/gen_small_files.cjs" "$base" 1 24 12000
tables=(env opt)
for t in "${tables[@]}"; do
  expect "upload table $t" s3_upload "$base" "s3://$bucket/$t"
  expect "convert $t" "$LOOM_BIN" convert "s3://$bucket/$t" --partition-by p,q > /dev/null
done
s3_download "s3://$bucket/env" "$TEST_TMP/d0"
fp0=$(oracle fingerprint "$TEST_TMP/d0" | jsq - 'd.hash + "/" + d.rows')

# parts TABLE: "size parts" of the one file the compaction added (awscli)
new_file_parts() {
  local key etag size
  key=$(s3cli s3api list-objects-v2 --bucket "$bucket" --prefix "$1/p=0/" \
    --query 'Contents[?contains(Key, `c000`)].Key' --output text | tr '\t' '\n' | grep -v '^None$' | head -1)
  etag=$(s3cli s3api head-object --bucket "$bucket" --key "$key" --query ETag --output text)
  size=$(s3cli s3api head-object --bucket "$bucket" --key "$key" --query ContentLength --output text)
  etag=${etag//\"/}
  echo "$size ${etag##*-}"
}
# parts_of_5mib "SIZE PARTS": PARTS is SIZE in 5 MiB parts, and the default
# 8 MiB parts would have made another count (so the check can fail)
parts_of_5mib() {
  local size=${1% *} parts=${1#* }
  local p5=$(( (size + 5242879) / 5242880 )) p8=$(( (size + 8388607) / 8388608 ))
  echo "file of $size bytes in $parts parts (5 MiB: $p5, 8 MiB: $p8)"
  [ "$p5" != "$p8" ] && [ "$parts" = "$p5" ]
}

# ---- CLI -------------------------------------------------------------------
expect "--target-size 5MiB (a dry run)" "$LOOM_BIN" compact "s3://$bucket/env" --target-size 5MiB \
  --dry-run --json > "$TEST_TMP/cli.json"
expect "... is 5242880 bytes" jsq --assert "$TEST_TMP/cli.json" 'd.metrics.targetSize === 5242880'

# ---- environment ---------------------------------------------------------
expect "LOOM_MULTIPART_PART_SIZE=5MiB: compaction" env LOOM_MULTIPART_PART_SIZE=5MiB \
  "$LOOM_BIN" compact "s3://$bucket/env" --target-size 64MiB > /dev/null
expect "... uploaded in 5 MiB parts" parts_of_5mib "$(new_file_parts env)"
out=$(LOOM_MULTIPART_PART_SIZE="5 parsecs" "$LOOM_BIN" compact "s3://$bucket/opt" 2>&1) && fail "5 parsecs accepted" || pass
expect "... 5 parsecs refused naming the setting ($out)" grep -q 'multipart_part_size is "5 parsecs", expected a size' <<< "$out"
out=$(LOOM_MULTIPART_PART_SIZE=4MiB "$LOOM_BIN" compact "s3://$bucket/opt" 2>&1) && fail "4MiB accepted" || pass
expect "... 4MiB refused: below S3's minimum ($out)" grep -q "multipart_part_size is 4194304, below S3's minimum" <<< "$out"

# ---- storage option and writer setting in the YAML -------------------------
cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  defaults:
    table_path:
      uri: s3://$bucket
      storage_options:
        AWS_ENDPOINT_URL: $AWS_ENDPOINT_URL
        AWS_ALLOW_HTTP: "true"
        multipart_part_size: 5 MiB
      writer:
        row_group_bytes: 256KiB
  tables:
    - name: sizes.opt
      path: {uri: "s3://$bucket/opt"}
YAML
sed 's/multipart_part_size: 5 MiB/multipart_part_size: 5 parsecs/' "$TEST_TMP/storage.yaml" > "$TEST_TMP/bad.yaml"
out=$("$LOOM_BIN" compact sizes.opt --config "$TEST_TMP/bad.yaml" 2>&1) && fail "a YAML option of 5 parsecs accepted" || pass
expect "... refused naming the option ($out)" grep -q 'multipart_part_size is "5 parsecs", expected a size' <<< "$out"
expect "the YAML's sizes: compaction" "$LOOM_BIN" compact sizes.opt --config "$TEST_TMP/storage.yaml" \
  --target-size 64MiB > /dev/null
expect "... uploaded in 5 MiB parts (storage_options)" parts_of_5mib "$(new_file_parts opt)"
s3_download "s3://$bucket/opt" "$TEST_TMP/d1"
new=$(ls "$TEST_TMP"/d1/p=0/*/*c000*.parquet | head -1)
rgs=$(node -e '
  const { DuckDBInstance } = require("@duckdb/node-api");
  (async () => { const c = await (await DuckDBInstance.create(":memory:")).connect();
    const r = await c.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${JSON.stringify(process.argv[1])})`);
    console.log(String(r.getRows()[0][0])); })();' "$new")
expect "... row_group_bytes: 256KiB cut its row groups small ($rgs row groups in $(stat -c %s "$new") bytes)" \
  test "$rgs" -ge $(( $(stat -c %s "$new") / (2 * 262144) ))
for d in d0 d1; do
  [ "$d" = d0 ] && s3_download "s3://$bucket/env" "$TEST_TMP/d0"
  expect "rows unchanged ($d)" test "$(oracle fingerprint "$TEST_TMP/$d" | jsq - 'd.hash + "/" + d.rows')" = "$fp0"
done
finish
