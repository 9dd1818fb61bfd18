#!/usr/bin/env bash
# The Azure Blob backend against Azurite, the Azure emulator, judged by
# Microsoft's own client (@azure/storage-blob) and the oracle:
#  - every spelling of a table root reaches the same table: az://,
#    abfss://container@account.dfs.core.windows.net, https://account.blob
#    .core.windows.net/container and the endpoint's path-style URL;
#  - the log may name files by any of those absolute URIs: VACUUM protects
#    them, compaction rewrites them (tests/tools/vacuum_absolute_paths_body.sh);
#  - request counts: a commit or small Parquet file is one GET (no HEAD),
#    a log of N commits one LIST and N(+1) GETs, 301 deletes 2 Blob
#    Batch requests, a 1 MiB stream with 64 KiB blocks 16 Put Block + 1 Put Block
#    List, read back byte for byte by the SDK;
#  - SAS tokens (a container SAS from the SDK) and OAuth2 client
#    credentials (an HTTPS Azurite that checks bearer tokens, and a
#    stand-in token endpoint): the token is fetched once, refreshed before
#    it expires (and Azurite does refuse an expired one), a wrong secret
#    is one clear error naming the tenant, secret masked.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/azure/azurite.sh"
PROBE="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/store_probe"
azurite_start
A="$AZURITE_ENDPOINT"

# ---- URI spellings -------------------------------------------------------
azblob upload "$LOOM_FIXTURES_DIR/delta/simple_table" lake/simple
"$LOOM_BIN" inspect "$LOOM_FIXTURES_DIR/delta/simple_table" --json --files > "$TEST_TMP/local.json"
for uri in az://lake/simple azure://lake/simple/ abfss://lake@devstoreaccount1.dfs.core.windows.net/simple \
    abfs://lake@devstoreaccount1.blob.core.windows.net/simple https://devstoreaccount1.blob.core.windows.net/lake/simple \
    "$A/lake/simple"; do
  if "$LOOM_BIN" inspect "$uri" --json --files > "$TEST_TMP/uri.json" 2> "$TEST_TMP/err"; then
    expect "$uri: the state of the local copy" test "$(jsq "$TEST_TMP/uri.json" 'JSON.stringify([d.version, d.files])')" = \
      "$(jsq "$TEST_TMP/local.json" 'JSON.stringify([d.version, d.files])')"
  else
    fail "inspect $uri: $(cat "$TEST_TMP/err")"
  fi
done
oracle snapshot "$LOOM_FIXTURES_DIR/delta/simple_table" > "$TEST_TMP/oracle.json"
expect "az:// inspect equals the oracle's live files" test \
  "$(jsq "$TEST_TMP/uri.json" 'JSON.stringify(d.files.map(f => [f.path, f.size]))')" = \
  "$(jsq "$TEST_TMP/oracle.json" 'JSON.stringify(d.files.map(f => [f.path, f.size]))')"

# ---- request counts --------------------------------------------------------
commits=$(ls "$LOOM_FIXTURES_DIR/delta/simple_table/_delta_log/"*.json | wc -l)
LOOM_STORE_STATS="$TEST_TMP/inspect.stats" "$LOOM_BIN" inspect az://lake/simple > /dev/null
# (+1: the newest commit is read again for its commitInfo, as on local disk)
expect "reading a log of $commits commits: one LIST, one GET each, no HEAD" \
  jsq --assert "$TEST_TMP/inspect.stats" "d.store_requests.LIST === 1 && d.store_requests.GET === $commits + 1 && d.store_requests.HEAD === 0"
pq=$(cd "$LOOM_FIXTURES_DIR/delta/simple_table" && ls ./*.parquet | head -1)
pq=${pq#./}
"$LOOM_BIN" parquet meta "$LOOM_FIXTURES_DIR/delta/simple_table/$pq" > "$TEST_TMP/meta.local"
LOOM_STORE_STATS="$TEST_TMP/pq.stats" "$LOOM_BIN" parquet meta "az://lake/simple/$pq" > "$TEST_TMP/meta.az"
expect "parquet meta over az:// equals the local file's" cmp -s "$TEST_TMP/meta.local" "$TEST_TMP/meta.az"
expect "opening a small Parquet file: one GET, no HEAD" \
  jsq --assert "$TEST_TMP/pq.stats" 'd.store_requests.GET === 1 && d.store_requests.HEAD === 0'

# 300 deletes and a missing key: two Blob Batch requests (256 + 45)
mkdir -p "$TEST_TMP/many"
for i in $(seq 1 300); do echo "$i" > "$TEST_TMP/many/f$i"; done
azblob upload "$TEST_TMP/many" lake/many
keys=$(for i in $(seq 1 300); do echo "f$i"; done)
# shellcheck disable=SC2086
"$PROBE" az://lake/many rm $keys nosuch-key stats > "$TEST_TMP/rm.out"
expect "301 keys deleted in 2 requests" jsq --assert <(tail -1 "$TEST_TMP/rm.out") 'd.store_requests.DELETE === 2'
expect "the client sees none of them left" test -z "$(azblob ls lake/many)"

# a stream in 64 KiB blocks, several in flight, read back by the SDK
head -c 1048576 /dev/urandom > "$TEST_TMP/big.bin"
LOOM_MULTIPART_PART_SIZE=65536 "$PROBE" az://lake/up write big.bin "$TEST_TMP/big.bin" stats > "$TEST_TMP/up.out"
expect "16 Put Block + 1 Put Block List" jsq --assert <(tail -1 "$TEST_TMP/up.out") \
  'd.store_requests.PUT === 16 && d.store_requests.OTHER === 1'
azblob cat lake/up/big.bin > "$TEST_TMP/big.back"
expect "the SDK reads back the same bytes" cmp -s "$TEST_TMP/big.bin" "$TEST_TMP/big.back"
"$PROBE" az://lake/up tail big.bin 1000 get big.bin stats > "$TEST_TMP/tail.out"
expect "read_tail of a large blob names its size" grep -q '^tail big.bin 1000 of 1048576$' "$TEST_TMP/tail.out"
expect "create-only put of an existing blob: exists" \
  test "$("$PROBE" az://lake/up create big.bin x)" = "exists big.bin"

# ---- absolute URIs in the log --------------------------------------------
BACKEND_LABEL=Azurite
backend_prefixes() {
  echo "az://abs/$1 abfss://abs@devstoreaccount1.dfs.core.windows.net/$1 https://devstoreaccount1.blob.core.windows.net/abs/$1 $A/abs/$1"
}
backend_put() { azblob upload "$2" "abs/$1" && echo "az://abs/$1"; }
backend_view() {
  local dir p
  dir=$(mktemp -d "$TEST_TMP/view.XXXX")
  azblob download "abs/$1" "$dir"
  for p in $(backend_prefixes "$1"); do python3 "$TOOLS/log_paths.py" relocate "$dir" "$p" "$dir" > /dev/null; done
  echo "$dir"
}
backend_has() { azblob exists "abs/$1/$3"; }
source "$TOOLS/vacuum_absolute_paths_body.sh"

# ---- SAS --------------------------------------------------------------------
sas=$(azblob sas lake 3600)
if AZURE_STORAGE_SAS_TOKEN="$sas" "$LOOM_BIN" inspect az://lake/simple --json > "$TEST_TMP/sas.json" 2> "$TEST_TMP/err"; then
  expect "a container SAS reads the table" jsq --assert "$TEST_TMP/sas.json" 'd.version === 4'
else
  fail "inspect with a SAS: $(cat "$TEST_TMP/err")"
fi
expect "a SAS in the URL's query works too" "$LOOM_BIN" inspect "$A/lake/simple?$sas" > /dev/null
sas_t=$(azblob sas lake 3600 rl)
expect "a read-only SAS cannot commit" test "$(AZURE_STORAGE_SAS_TOKEN="$sas_t" "$PROBE" az://lake/simple create x y 2>&1 | grep -c 'HTTP 403')" = 1

# ---- OAuth2 client credentials ---------------------------------------------
# an HTTPS Azurite that checks bearer tokens (it replaces the first one's
# settings), and the stand-in token endpoint
azurite_start --https --oauth
secret="CLIENT-SECRET-5e1f0a"
python3 "$TOOLS/azure/token_server.py" "$AZURITE_CERT" "${AZURITE_CERT%cert.pem}key.pem" \
  loom-client "$secret" 4 > "$TEST_TMP/token.port" 2> "$TEST_TMP/token.err" &
on_exit "kill $! 2> /dev/null"
for _ in $(seq 1 100); do [ -s "$TEST_TMP/token.port" ] && break; sleep 0.1; done
tport=$(cat "$TEST_TMP/token.port")
azblob mkcontainer sec
export AZURE_CLIENT_ID=loom-client AZURE_CLIENT_SECRET="$secret" AZURE_TENANT_ID=tenant-7 \
  AZURE_AUTHORITY_HOST="https://127.0.0.1:$tport"
# token lifetime 4 s: fetched at the first request, refreshed from 2 s on
if "$PROBE" az://sec/t put a hello get a sleep 2500 get a sleep 4500 get a stats > "$TEST_TMP/oauth.out" \
    2> "$TEST_TMP/oauth.err"; then
  pass
else
  fail "requests with a service principal's token: $(cat "$TEST_TMP/oauth.err")"
fi
expect "three reads of what was put" test "$(grep -c '^get a 5 ' "$TEST_TMP/oauth.out")" = 3
expect "three tokens: the first and two refreshes" jsq --assert <(tail -1 "$TEST_TMP/oauth.out") 'd.store_requests.OTHER === 3'
expect "the endpoint issued three" jsq --assert <(curl -s --cacert "$AZURITE_CERT" "https://127.0.0.1:$tport/_stats") 'd.tokens === 3'
expect "the SDK reads what loom put with a token" test "$(azblob cat sec/t/a)" = hello
# Azurite refuses an expired token (so the refreshes above were needed)
if AZURE_CLIENT_ID=expired-client "$PROBE" az://sec/t get a > /dev/null 2> "$TEST_TMP/expired.err"; then
  fail "an expired token was accepted"
else
  expect "an expired token is refused: 403 naming the blob" grep -q 'GET container "sec" blob "t/a": HTTP 403' "$TEST_TMP/expired.err"
fi
if AZURE_CLIENT_SECRET=WRONG-SECRET-77 "$PROBE" az://sec/t get a > /dev/null 2> "$TEST_TMP/wrong.err"; then
  fail "a wrong client secret was accepted"
else
  expect "a wrong secret: one error naming the tenant and the status" \
    grep -q 'POST tenant "tenant-7": HTTP 401 (invalid_client: AADSTS7000215' "$TEST_TMP/wrong.err"
  expect "the secret is not printed" test "$(grep -c 'WRONG-SECRET-77' "$TEST_TMP/wrong.err")" = 0
fi
finish
