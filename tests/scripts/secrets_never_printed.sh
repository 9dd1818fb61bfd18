#!/usr/bin/env bash
# No secret reaches any output: storage-option values whose names say
# secret (from the YAML, interpolated from the environment, or only in the
# environment), SAS signatures and passwords in URIs. Every command that
# takes a table from the storage YAML runs - maintain (text, JSON,
# --explain both ways), inspect, vacuum, checkpoint, cleanup-logs, compact,
# zorder, convert - on good tables and failing ones, and every byte of
# stdout, stderr and every commit loom wrote is searched for the secrets.
# The commits must still carry the (masked) commit metadata, so the search
# cannot pass by writing nothing.
source "$(dirname "$0")/../tools/lib.sh"

yaml_secret="YAMLSECRET-7f3a9c"      # a storage option in the YAML
env_secret="ENVSECRET-41b2de"        # interpolated with ${oc.env:...}
only_env="ONLYENV-SECRET-93ce"       # never in the YAML: a store reads it from the environment
sas_sig="SASSIG-0d77e1"              # the signature of a SAS token in a URI
password="PASSWD-6a21"               # a URI's password
export LOOM_TEST_ENV_SECRET="$env_secret" AZURE_CLIENT_SECRET="$only_env"

lake="$TEST_TMP/lake"
mkdir -p "$lake/raw" "$lake/conv"
cp -r "$LOOM_FIXTURES_DIR/delta/simple_table" "$lake/raw/events"
cp -r "$LOOM_FIXTURES_DIR/delta/delta-0.8.0-partitioned" "$lake/raw/parts"
cp "$LOOM_FIXTURES_DIR/delta/simple_table/"*.parquet "$lake/conv/"
chmod -R u+w "$lake"
cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  defaults:
    table_path:
      uri: $lake
      storage_options:
        AWS_SECRET_ACCESS_KEY: $yaml_secret
        aws_session_token: \${oc.env:LOOM_TEST_ENV_SECRET}
        AWS_REGION: eu-west-1
      commit:
        custom_metadata:
          note: "created with $yaml_secret and \${oc.env:LOOM_TEST_ENV_SECRET} and $only_env"
          api_token: plain-looking-value
          team: data
  tables:
    - name: raw.events
      path: {uri: "$lake/raw/events"}
    - name: raw.parts
      path: {uri: "$lake/raw/parts"}
    - name: raw.sas
      path:
        uri: "loomtest://acct.blob.core.windows.net/c/t?sv=2021-08-06&sig=$sas_sig"
    - name: raw.pw
      path: "loomtest://loom:$password@host/t"
    - name: raw.missing
      path: {uri: "$lake/raw/nothing-here"}
  maintenance:
    schemas: [raw]
    vacuum: {retention_hours: 0, dry_run: false}
YAML
cat > "$TEST_TMP/plan.yaml" <<'YAML'
steps:
  s:
    - schema: raw
      vacuum: {retention_hours: 1000, dry_run: false}
      compact:
YAML

out="$TEST_TMP/out"
mkdir -p "$out"
n=0
run() { # run EXPECTED_STATUS CMD...: keep stdout and stderr
  local want="$1"; shift
  n=$((n + 1))
  local got=0
  "$@" > "$out/$n.out" 2> "$out/$n.err" || got=$?
  if [ "$got" = "$want" ]; then pass; else fail "exit $got, expected $want: $*"; cat "$out/$n.err" >&2; fi
}
cfg=(--config "$TEST_TMP/storage.yaml")
run 0 "$LOOM_BIN" maintain "${cfg[@]}" --explain
run 0 "$LOOM_BIN" maintain "${cfg[@]}" --explain --json
run 1 "$LOOM_BIN" maintain "${cfg[@]}" --plan "$TEST_TMP/plan.yaml" --policy error
run 1 "$LOOM_BIN" maintain "${cfg[@]}" --plan "$TEST_TMP/plan.yaml" --json
run 0 "$LOOM_BIN" inspect raw.events "${cfg[@]}" --json
run 0 "$LOOM_BIN" vacuum raw.events "${cfg[@]}" --retention-hours 0 --no-retention-check --no-dry-run
run 0 "$LOOM_BIN" checkpoint raw.events "${cfg[@]}" --json
run 0 "$LOOM_BIN" cleanup-logs raw.events "${cfg[@]}" --retention-hours 0
run 0 "$LOOM_BIN" zorder raw.parts "${cfg[@]}" --columns value
run 0 "$LOOM_BIN" convert conv "${cfg[@]}" --json
for verb in inspect vacuum checkpoint compact; do
  run 1 "$LOOM_BIN" "$verb" raw.sas "${cfg[@]}"
  run 1 "$LOOM_BIN" "$verb" raw.pw "${cfg[@]}"
done
run 1 "$LOOM_BIN" zorder raw.sas "${cfg[@]}" --columns id
run 1 "$LOOM_BIN" inspect "loomtest://acct.blob.core.windows.net/c/t?sig=$sas_sig"
run 1 "$LOOM_BIN" parquet meta "loomtest://acct.blob.core.windows.net/c/x.parquet?sig=$sas_sig"

# the failing tables said why, with the secrets masked (the scheme is one
# no backend will ever register, so this stays a local test)
expect "an unknown scheme is named" grep -q "no object store for URI scheme 'loomtest'" "$out/11.err"
expect "the SAS signature shows as ***" grep -qF "sig=***" "$out/11.err"
expect "the password shows as ***" grep -qF "loomtest://loom:***@host/t" "$out/12.err"
expect "the report names the failed tables" grep -q '"ref": "raw.sas"' "$out/4.out"
expect "maintain vacuumed raw.events" grep -qE '^raw\.events +ok .*vacuum: deleted 31 files' "$out/3.out"
# the commits loom wrote carry the metadata, masked
commits=$(grep -l '"team":"data"' "$lake"/*/*/_delta_log/*.json "$lake"/conv/_delta_log/*.json 2>/dev/null | wc -l)
expect "commits with the config's metadata were written ($commits)" test "$commits" -ge 4
expect "a secret-named metadata key is masked in commits" \
  grep -q '"api_token":"\*\*\*"' "$lake/raw/events/_delta_log/00000000000000000005.json"
expect "secret values inside metadata are masked in commits" \
  grep -qF '"note":"created with *** and *** and ***"' "$lake/raw/events/_delta_log/00000000000000000005.json"
for s in "$yaml_secret" "$env_secret" "$only_env" "$sas_sig" "$password"; do
  found=$(grep -rlF -- "$s" "$out" "$lake" 2>/dev/null | grep -v '/storage.yaml$' || true)
  expect "secret $s printed nowhere (found in: $found)" test -z "$found"
done
finish
