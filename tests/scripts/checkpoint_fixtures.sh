#!/usr/bin/env bash
# loom checkpoint on a copy of every fixture table, judged by the oracle:
# the oracle's snapshot read through loom's checkpoint equals its snapshot
# from the JSON commits alone (same version, protocol, metadata, txns,
# domains, live files with sizes, partition values, stats and DVs; the
# tombstones minus the expired ones), the fingerprint of the rows is
# unchanged, DuckDB reads the checkpoint Parquet file directly (one action
# per row, the expected counts), and loom's own snapshot lists the same
# files. A second run reports the existing checkpoint and writes nothing.
# Tables that already have a checkpoint at the latest version: loom leaves
# it; then it is deleted from the copy and loom writes its own.
# Tables with v2Checkpoint and delta.checkpointPolicy=v2 get a UUID-named
# V2 checkpoint: tests/tools/v2_check.cjs then checks the top-level file,
# the sidecars (DuckDB) and _last_checkpoint (checksum recomputed there);
# the others a classic one, read by DuckDB directly.
# Refused tables are refused with the feature named and left unchanged.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
# every file of a table but _delta_log/_last_checkpoint
digest_but_hint() { (cd "$1" && find . -type f ! -path ./_delta_log/_last_checkpoint -print0 | sort -z | xargs -0 sha1sum) | sha1sum; }

LOG_ONLY=" checkpoints-log-only "
# No fixture table is refused any more (v2Checkpoint, rowTracking, liquid
# clustering and type widening tables are all checkpointed).
declare -A REFUSED=()

check_table() { # NAME DIR: checkpoint DIR with loom and judge it
  local name=$1 t=$2 fp0="" ref="$TEST_TMP/ref.json" nr_only=""
  if ! fixture_oracle "$name" snapshot --ignore-checkpoints > "$ref" 2> /dev/null; then
    # early commits gone: the reference is the untouched fixture's state
    fixture_oracle "$name" snapshot > "$ref"; nr_only=--numrecords-only
  fi
  if [ "${LOG_ONLY/ $name /}" = "$LOG_ONLY" ]; then
    # the rows as shipped, unless the fixture's own checkpoint was deleted
    # (a checkpoint may differ from its commits: parquet_row_group_skipping)
    if [ "$own_checkpoint_deleted" = 0 ]; then fixture_oracle "$name" fingerprint > "$TEST_TMP/fp0.json"
    else oracle fingerprint "$t" > "$TEST_TMP/fp0.json"; fi
    fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
  fi
  if ! "$LOOM_BIN" checkpoint "$t" --json > "$TEST_TMP/ck.json" 2> "$TEST_TMP/err"; then
    fail "$name: loom checkpoint failed: $(cat "$TEST_TMP/err")"; return
  fi
  local v kind; v=$(jsq "$TEST_TMP/ck.json" 'd.version')
  kind=classic
  if jsq --assert "$ref" "(d.protocol.readerFeatures || []).includes('v2Checkpoint') && d.metadata.configuration['delta.checkpointPolicy'] === 'v2'" 2> /dev/null; then
    kind=v2-json
  fi
  expect "$name: checkpoint created ($kind)" jsq --assert "$TEST_TMP/ck.json" "d.created === true && d.kind === '$kind'"
  expect "$name: _last_checkpoint names it" jsq --assert "$t/_delta_log/_last_checkpoint" "d.version === $v && d.size > 0"
  oracle snapshot "$t" > "$TEST_TMP/got.json"
  expect "$name: oracle starts from loom's checkpoint" jsq --assert "$TEST_TMP/got.json" \
    "d.checkpoint && d.checkpoint.version === $v && d.checkpoint.kind === '$kind' && d.warnings.length === 0"
  expect "$name: oracle state through the checkpoint == from the commits" node "$CMP" snap "$ref" "$TEST_TMP/got.json" $nr_only
  local rows; rows=$(jsq "$TEST_TMP/got.json" '2 + Object.keys(d.txns).length + Object.keys(d.domainMetadata).length + d.files.length + d.tombstones.length')
  if [ "$kind" = classic ]; then
    expect "$name: file exists" test -s "$t/_delta_log/$(printf %020d "$v").checkpoint.parquet"
    expect "$name: duckdb reads the checkpoint" node "$CMP" duck "$t/_delta_log/$(printf %020d "$v").checkpoint.parquet" "$rows" "$(jsq "$TEST_TMP/got.json" 'd.files.length')"
  else
    expect "$name: V2 top-level, sidecars and _last_checkpoint" node "$TOOLS/v2_check.cjs" "$t" "$v" \
      "$(jsq "$TEST_TMP/got.json" 'd.files.length')" "$(jsq "$TEST_TMP/got.json" 'd.tombstones.length')"
  fi
  if [ -n "$fp0" ]; then
    oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
    expect "$name: fingerprint unchanged" test "$fp0" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
  fi
  if "$LOOM_BIN" inspect "$t" --json --files > "$TEST_TMP/loom.json"; then
    expect "$name: loom lists the same files" node "$CMP" loom "$TEST_TMP/got.json" "$TEST_TMP/loom.json"
    expect "$name: loom loads from its checkpoint" jsq --assert "$TEST_TMP/loom.json" "d.checkpoint && d.checkpoint.version === $v"
  else
    fail "$name: loom inspect after checkpoint"
  fi
  local before; before=$(tree_digest "$t")
  expect "$name: second run reports the existing checkpoint" sh -c "'$LOOM_BIN' checkpoint '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.created === false && d.version === $v'"
  expect "$name: second run writes nothing" test "$before" = "$(tree_digest "$t")"
}

for name in $(fixture_tables); do
  t=$(copy_table "$name")
  if [ -n "${REFUSED[$name]:-}" ]; then
    before=$(tree_digest "$t")
    if "$LOOM_BIN" checkpoint "$t" > /dev/null 2> "$TEST_TMP/err"; then
      fail "$name: checkpoint should be refused (${REFUSED[$name]})"
    else
      expect "$name: refusal names ${REFUSED[$name]}" grep -q "${REFUSED[$name]}" "$TEST_TMP/err"
    fi
    expect "$name: refused table unchanged" test "$before" = "$(tree_digest "$t")"
    continue
  fi
  fixture_oracle "$name" snapshot > "$TEST_TMP/s0.json"
  own_checkpoint_deleted=0
  if jsq --assert "$TEST_TMP/s0.json" 'd.checkpoint && d.checkpoint.version === d.version' 2> /dev/null; then
    # a checkpoint of the latest version exists: left alone, except that a
    # _last_checkpoint left behind (a writer that died after publishing the
    # checkpoint) is brought up to it
    before=$(digest_but_hint "$t")
    expect "$name: existing checkpoint reported" sh -c "'$LOOM_BIN' checkpoint '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.created === false'"
    expect "$name: existing checkpoint left alone" test "$before" = "$(digest_but_hint "$t")"
    oracle snapshot "$t" > "$TEST_TMP/s1.json"
    expect "$name: _last_checkpoint points at it" jsq --assert "$TEST_TMP/s1.json" 'd.lastCheckpoint === d.version'
    for f in $(jsq "$TEST_TMP/s0.json" 'd.checkpoint.files.join(" ")'); do rm -f "$t/_delta_log/$f"; done
    own_checkpoint_deleted=1
  fi
  check_table "$name" "$t"
done

# --version N, and _last_checkpoint never moves back.
t=$(copy_table simple_table)
expect "version 2" "$LOOM_BIN" checkpoint "$t" --version 2 --json > "$TEST_TMP/v2.json"
expect "version 2 written" jsq --assert "$TEST_TMP/v2.json" 'd.version === 2 && d.created'
oracle snapshot "$t" --version 2 > "$TEST_TMP/g2.json"
oracle snapshot "$t" --version 2 --ignore-checkpoints > "$TEST_TMP/r2.json"
expect "version 2: oracle uses it" jsq --assert "$TEST_TMP/g2.json" 'd.checkpoint && d.checkpoint.version === 2'
expect "version 2: same state" node "$CMP" snap "$TEST_TMP/r2.json" "$TEST_TMP/g2.json"
expect "latest" "$LOOM_BIN" checkpoint "$t" > /dev/null
expect "version 3" "$LOOM_BIN" checkpoint "$t" --version 3 > /dev/null
expect "_last_checkpoint stays at 4" jsq --assert "$t/_delta_log/_last_checkpoint" 'd.version === 4'
if "$LOOM_BIN" checkpoint "$t" --version 99 2> "$TEST_TMP/err"; then fail "version 99 should fail"; else pass; fi
rc=0; "$LOOM_BIN" checkpoint "$t" --version x 2> /dev/null || rc=$?; expect "bad --version is a usage error" test $rc -eq 2
rc=0; "$LOOM_BIN" checkpoint 2> /dev/null || rc=$?; expect "missing URI is a usage error" test $rc -eq 2
expect "--help" sh -c "'$LOOM_BIN' checkpoint --help | grep -q -- --version"

finish
