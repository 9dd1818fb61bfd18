#!/usr/bin/env bash
# `loom maintain` over a storage YAML whose tables live on Azurite, with the
# credentials only in `storage_options`, interpolated from the environment
# with ${oc.env:...} (no AZURE_* variable is set): the default route an
# abfss:// root with an account key, a route with an https:// blob URL and
# a SAS token of its own, a route whose key is wrong. The maintenance block
# vacuums (full, retention 0) and compacts schema raw: the good tables are
# maintained - judged on the SDK's downloads by the oracle (fingerprint,
# verify, orphans gone) - the bad one fails alone with its container, blob
# and HTTP status in the report, and no secret reaches any output or commit.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/azure/azurite.sh"
KEY=$(head -c 64 /dev/urandom | base64 -w0)
export AZURITE_ACCOUNTS="loomlake:$KEY"
azurite_start
unset AZURITE_ACCOUNTS AZURE_STORAGE_USE_EMULATOR AZURE_STORAGE_ENDPOINT
export AZBLOB_ACCOUNT=loomlake AZBLOB_KEY="$KEY"

declare -A SRC=([events]=simple_table [parts]=table-with-dv-small [sasd]=simple_table [bad]=simple_table)
for t in "${!SRC[@]}"; do
  d=$(copy_table "${SRC[$t]}")
  echo planted > "$d/orphan.parquet"
  azblob upload "$d" "lake/raw/$t"
  oracle fingerprint "$d" | jsq - 'd.hash + "/" + d.rows' > "$TEST_TMP/fp.$t"
done
sas=$(azblob sas lake 3600)
export LOOM_TEST_AZ_KEY="$KEY" LOOM_TEST_AZ_SAS="$sas" LOOM_TEST_AZ_ENDPOINT="$AZURITE_URL/loomlake"
cat > "$TEST_TMP/storage.yaml" <<'YAML'
engine: {backend: polars}
storage:
  defaults:
    table_path:
      uri: abfss://lake@loomlake.dfs.core.windows.net
      storage_options:
        AZURE_STORAGE_ACCOUNT_KEY: ${oc.env:LOOM_TEST_AZ_KEY}
        azure_storage_endpoint: ${oc.env:LOOM_TEST_AZ_ENDPOINT}
        AZURE_ALLOW_HTTP: "true"
      commit: {custom_metadata: {pipeline: nightly}}
  tables:
    - name: raw.events
      path: {uri: "abfss://lake@loomlake.dfs.core.windows.net/raw/events"}
    - name: raw.parts
      path: {uri: "az://lake/raw/parts"}
    - name: raw.sasd
      path:
        uri: https://loomlake.blob.core.windows.net/lake/raw/sasd
        storage_options:
          azure_storage_sas_token: ${oc.env:LOOM_TEST_AZ_SAS}
          AZURE_STORAGE_ENDPOINT: ${oc.env:LOOM_TEST_AZ_ENDPOINT}
          azure_allow_http: "true"
    - name: raw.bad
      path:
        uri: az://lake/raw/bad
        storage_options:
          AZURE_STORAGE_ACCOUNT_NAME: loomlake
          AZURE_STORAGE_ACCOUNT_KEY: d3JvbmcgYWNjb3VudCBrZXkgZm9yIHRoZSB0ZXN0
          AZURE_STORAGE_ENDPOINT: ${oc.env:LOOM_TEST_AZ_ENDPOINT}
          AZURE_ALLOW_HTTP: "true"
  maintenance:
    schemas: [raw]
    vacuum: {dry_run: false, full: true}
    compact: {target_size: 64MiB}
YAML
# the storage options alone reach the stores: no AZURE_* variable is set
expect "no AZURE_ variable in the environment" test -z "$(env | grep '^AZURE_' || true)"
"$LOOM_BIN" maintain --config "$TEST_TMP/storage.yaml" --explain > "$TEST_TMP/explain.out" 2>&1
expect "explain names the abfss route" grep -q 'raw.events -> abfss://lake@loomlake.dfs.core.windows.net/raw/events' "$TEST_TMP/explain.out"
rc=0
"$LOOM_BIN" maintain --config "$TEST_TMP/storage.yaml" --json > "$TEST_TMP/report.json" 2> "$TEST_TMP/err" || rc=$?
expect "maintain exits 1: one table failed" test "$rc" = 1
for t in events parts sasd; do
  expect "raw.$t maintained" jsq --assert "$TEST_TMP/report.json" \
    "d.tables.some(x => x.ref === 'raw.$t' && x.status === 'ok')"
done
expect "raw.events: vacuum deleted the 31 removed files" jsq --assert "$TEST_TMP/report.json" \
  "d.tables.some(x => x.ref === 'raw.events' && x.ops.vacuum.num_files_deleted === 31)"
expect "raw.bad failed with its container, blob and status" jsq --assert "$TEST_TMP/report.json" \
  "d.tables.some(x => x.ref === 'raw.bad' && x.status === 'failed' && x.error.message.startsWith('GET container \"lake\" blob \"raw/bad/_delta_log/\": HTTP 403'))"
for t in events parts sasd; do
  d="$TEST_TMP/down.$t"
  azblob download "lake/raw/$t" "$d"
  # written minutes ago (Last-Modified), inside the 7-day retention
  expect "raw.$t: the fresh orphan kept" test -e "$d/orphan.parquet"
  expect "raw.$t: oracle verify" oracle verify "$d" > /dev/null
  expect "raw.$t: rows unchanged" test "$(cat "$TEST_TMP/fp.$t")" = "$(oracle fingerprint "$d" | jsq - 'd.hash + "/" + d.rows')"
  expect "raw.$t: compacted" jsq --assert "$TEST_TMP/report.json" \
    "d.tables.some(x => x.ref === 'raw.$t' && x.ops.compact.num_files_removed > 0)"
  expect "raw.$t: commits carry the config's metadata" grep -qh '"pipeline":"nightly"' "$d"/_delta_log/*.json
done
expect "raw.bad untouched" azblob exists lake/raw/bad/orphan.parquet
sig=$(echo "$sas" | tr '&' '\n' | sed -n 's/^sig=//p')
for s in "$KEY" "$sig" d3JvbmcgYWNjb3VudCBrZXkgZm9yIHRoZSB0ZXN0; do
  found=$(grep -rlF -- "$s" "$TEST_TMP"/*.out "$TEST_TMP"/*.json "$TEST_TMP/err" "$TEST_TMP"/down.* 2> /dev/null || true)
  expect "secret ${s:0:6}... printed nowhere (found in: $found)" test -z "$found"
done
finish
