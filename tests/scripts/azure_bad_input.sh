#!/usr/bin/env bash
# Bad input on Azurite: a wrong account key, an expired SAS token, a
# read-only SAS, a missing container, a key that is not base64, a bad
# container name, no credentials at all. Each command fails with one
# clear error naming the container, the blob and the HTTP status (or the
# option), the exit status is 1, and the table is left as it was (its
# listing by Microsoft's SDK is unchanged). Then the same commands succeed
# with the right credentials, given in the environment and through the
# URL's SAS; and no secret - the account key, the SAS signature (raw or
# encoded) - appears in any output, error or commit loom wrote.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/azure/azurite.sh"
KEY=$(head -c 64 /dev/urandom | base64 -w0)
export AZURITE_ACCOUNTS="loomsecret:$KEY;devstoreaccount1:Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
azurite_start
unset AZURITE_ACCOUNTS
export AZBLOB_ACCOUNT=loomsecret AZBLOB_KEY="$KEY"
export AZURE_STORAGE_ENDPOINT="$AZURITE_URL/loomsecret"
unset AZURE_STORAGE_USE_EMULATOR
export AZURE_ALLOW_HTTP=true
t=$(copy_table delta-0.8.0-partitioned)
echo planted > "$t/orphan.parquet"
azblob upload "$t" data/t
uri=az://data/t
listing() { azblob ls data/t | sha1sum; }
before=$(listing)

out="$TEST_TMP/out"
mkdir -p "$out"
n=0
# run_bad DESCRIPTION GREP_PATTERN ENV... -- COMMAND...: must fail with
# status 1 and the pattern on stderr (one error line)
run_bad() {
  local what="$1" pattern="$2" envs=() rc=0
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  n=$((n + 1))
  env "${envs[@]+"${envs[@]}"}" "$@" > "$out/$n.out" 2> "$out/$n.err" || rc=$?
  if [ $rc -ne 1 ]; then
    fail "$what: exit $rc, expected 1: $(cat "$out/$n.err")"
  elif ! grep -qE "$pattern" "$out/$n.err"; then
    fail "$what: error does not match /$pattern/: $(cat "$out/$n.err")"
  elif [ "$(wc -l < "$out/$n.err")" -ne 1 ]; then
    fail "$what: more than one error line: $(cat "$out/$n.err")"
  else
    pass
  fi
}

wrong=$(head -c 64 /dev/urandom | base64 -w0)
for cmd in "inspect $uri" "vacuum $uri --full --retention-hours 0 --no-retention-check --no-dry-run" \
    "compact $uri" "zorder $uri --columns value" "checkpoint $uri" "cleanup-logs $uri --retention-hours 0"; do
  # shellcheck disable=SC2086
  run_bad "wrong key: $cmd" 'container "data" blob "t/_delta_log/": HTTP 403 \(AuthorizationFailure' \
    AZURE_STORAGE_ACCOUNT_KEY="$wrong" -- "$LOOM_BIN" $cmd
done
sas_old=$(azblob sas data -60)
run_bad "expired SAS" 'container "data" blob "t/_delta_log/": HTTP 403' \
  AZURE_STORAGE_SAS_TOKEN="$sas_old" -- "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 --no-retention-check --no-dry-run
run_bad "expired SAS in the URL" 'container "data" blob "t/_delta_log/": HTTP 403' \
  -- "$LOOM_BIN" inspect "$AZURE_STORAGE_ENDPOINT/data/t?$sas_old"
sas_ro=$(azblob sas data 3600 rl)
run_bad "read-only SAS: the first write is refused" 'PUT container "data" blob "t/[^"]+": HTTP 403' \
  AZURE_STORAGE_SAS_TOKEN="$sas_ro" -- "$LOOM_BIN" zorder "$uri" --columns value
run_bad "missing container" 'container "nosuch" blob "t/_delta_log/": HTTP 404 \(ContainerNotFound' \
  AZURE_STORAGE_ACCOUNT_KEY="$KEY" -- "$LOOM_BIN" inspect az://nosuch/t
run_bad "missing table" 'not a Delta table' \
  AZURE_STORAGE_ACCOUNT_KEY="$KEY" -- "$LOOM_BIN" vacuum az://data/nothing-here
run_bad "missing Parquet file" 'GET container "data" blob "t/none.parquet": HTTP 404 \(BlobNotFound' \
  AZURE_STORAGE_ACCOUNT_KEY="$KEY" -- "$LOOM_BIN" parquet meta az://data/t/none.parquet
run_bad "a key that is not base64" 'option azure_storage_account_key: the account key is not base64' \
  AZURE_STORAGE_ACCOUNT_KEY="not-base64!" -- "$LOOM_BIN" inspect "$uri"
run_bad "a bad container name" '"Bad_Name" is not a valid container name' \
  AZURE_STORAGE_ACCOUNT_KEY="$KEY" -- "$LOOM_BIN" inspect az://Bad_Name/t
run_bad "no credentials" 'no Azure credentials: set AZURE_STORAGE_ACCOUNT_KEY' \
  -- "$LOOM_BIN" inspect "$uri"
run_bad "plain http without AZURE_ALLOW_HTTP" 'must be https://' \
  AZURE_STORAGE_ACCOUNT_KEY="$KEY" AZURE_ALLOW_HTTP=false -- "$LOOM_BIN" inspect "$uri"
expect "nothing changed by the failed commands" test "$before" = "$(listing)"

# the right credentials: every command works, secrets in the environment
run_ok() { n=$((n + 1)); if "$@" > "$out/$n.out" 2> "$out/$n.err"; then pass; else fail "$*: $(cat "$out/$n.err")"; fi; }
export AZURE_STORAGE_ACCOUNT_KEY="$KEY"
run_ok "$LOOM_BIN" inspect "$uri" --json
run_ok env LOOM_STORE_STATS=1 "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 --no-retention-check --no-dry-run --json
run_ok "$LOOM_BIN" zorder "$uri" --columns value --json
run_ok "$LOOM_BIN" checkpoint "$uri" --json
sas=$(azblob sas data 3600)
run_ok env -u AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_SAS_TOKEN="$sas" "$LOOM_BIN" compact "$uri" --json
run_ok env -u AZURE_STORAGE_ACCOUNT_KEY "$LOOM_BIN" inspect "$AZURE_STORAGE_ENDPOINT/data/t?$sas" --json
expect "the orphan went" test "$(azblob ls data/t | grep -c orphan.parquet)" = 0
azblob download data/t "$TEST_TMP/down"
expect "oracle verify after the runs" oracle verify "$TEST_TMP/down" > /dev/null
expect "rows unchanged" test "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')" = \
  "$(oracle fingerprint "$TEST_TMP/down" | jsq - 'd.hash + "/" + d.rows')"

# no secret anywhere: outputs, errors, the commits loom wrote
sig_enc=$(echo "$sas" | tr '&' '\n' | sed -n 's/^sig=//p')
sig_raw=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.unquote(sys.argv[1]))' "$sig_enc")
old_enc=$(echo "$sas_old" | tr '&' '\n' | sed -n 's/^sig=//p')
for s in "$KEY" "$wrong" "$sig_enc" "$sig_raw" "$old_enc"; do
  found=$(grep -rlF -- "$s" "$out" "$TEST_TMP/down" 2> /dev/null || true)
  expect "secret ${s:0:6}... printed nowhere (found in: $found)" test -z "$found"
done
expect "the SAS shows masked where the URI is named" grep -qF 'sig=***' "$out"/*.err
finish
