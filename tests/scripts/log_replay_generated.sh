#!/usr/bin/env bash
# Log replay of a generated table of 3,000 commits without a checkpoint
# (bench/log_replay_gen.cjs, seeded: Spark-shaped appends, DELETEs and
# OPTIMIZEs removing earlier files, streaming txns; issue 30's log-replay
# floor at CI size): `loom inspect --json --files` equals the independent
# oracle's snapshot (version, live paths, their bytes and numRecords,
# tombstones, txns) and DuckDB's own reconciliation of the same log
# (bench/log_replay_duckdb.cjs state), and the generator writes the same
# bytes for the same seed. tests/scripts/s3_log_replay.sh loads the same
# table from S3.
source "$(dirname "$0")/../tools/lib.sh"
gen="$LOOM_SOURCE_DIR/bench/log_replay_gen.cjs"
t="$TEST_TMP/t"
expect "generate 3,000 commits" node "$gen" "$t" 3000 30 > "$TEST_TMP/gen.json"
expect "3,000 commit files" test "$(find "$t/_delta_log" -name '*.json' | wc -l)" = 3000
node "$gen" "$TEST_TMP/again" 3000 30 > /dev/null
expect "the same seed writes the same log" \
  test "$(tree_digest "$t/_delta_log")" = "$(tree_digest "$TEST_TMP/again/_delta_log")"
expect "the log removes files it added earlier: $(cat "$TEST_TMP/gen.json")" \
  jsq --assert "$TEST_TMP/gen.json" 'd.removes > 1000 && d.live > 1000'

"$LOOM_BIN" inspect "$t" --json --files > "$TEST_TMP/loom.json"
oracle snapshot "$t" > "$TEST_TMP/oracle.json"
node "$LOOM_SOURCE_DIR/bench/log_replay_duckdb.cjs" state "$t" > "$TEST_TMP/duckdb.json"
expect "loom's snapshot equals the oracle's and DuckDB's (below)" \
  python3 "$TOOLS/replay_check.py" "$TEST_TMP/loom.json" "$TEST_TMP/oracle.json" "$TEST_TMP/duckdb.json"
expect "every commit replayed" jsq --assert "$TEST_TMP/loom.json" 'd.commitsReplayed === 3000 && d.checkpoint === null'
finish
