#!/usr/bin/env bash
# Temp files killed writers leave in _delta_log (".<log file>.<uuid>.tmp",
# src/delta/log_temps.h): the next checkpoint, compaction, vacuum or
# convert, and cleanup-logs, remove the ones untouched for an hour; a
# younger one (a live writer may still publish it) and other hidden files
# stay; a run with nothing to do (convert: on an existing table) sweeps too. The first one is real: a checkpoint killed (SIGKILL from the fault
# store, src/store/fault.h) just before publishing its fully written file.
# Temp files of data files in data directories are taken by a full vacuum
# after the retention. The oracle's fingerprint never changes.
source "$(dirname "$0")/../tools/lib.sh"
OLD='2 hours ago'
uuid() { cat /proc/sys/kernel/random/uuid; }
temps() { (cd "$1/_delta_log" && ls -A | grep -E '^\..*\.[0-9a-f-]{36}\.tmp$' | sort) || true; }
plant() {   # plant TABLE: an old commit temp, an old checkpoint temp, a young one, an old non-temp hidden file
  old1=".00000000000000000099.json.$(uuid).tmp"; old2="._last_checkpoint.$(uuid).tmp"
  young=".00000000000000000100.json.$(uuid).tmp"
  echo '{"add":{}}' > "$1/_delta_log/$old1"; echo '{}' > "$1/_delta_log/$old2"; echo x > "$1/_delta_log/$young"
  echo x > "$1/_delta_log/.keep-me.tmp"
  touch -d "$OLD" "$1/_delta_log/$old1" "$1/_delta_log/$old2" "$1/_delta_log/.keep-me.tmp"
}

t=$(copy_table simple_table)
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
same_rows() { oracle fingerprint "$1" > "$TEST_TMP/fp.json" && [ "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')" = "$fp0" ]; }

# ---- a checkpoint killed before publishing leaves its temp file ----------
LOOM_FAULTS=put-if-absent@1:crash "$LOOM_BIN" checkpoint "$t" > /dev/null 2>&1 && fail "the checkpoint was not killed"
left=$(temps "$t")
expect "the killed checkpoint left one temp file" test "$(echo "$left" | grep -c checkpoint.parquet)" -eq 1
expect "rows unchanged after the kill" same_rows "$t"
"$LOOM_BIN" checkpoint "$t" > /dev/null
expect "a fresh temp file is not taken (a live writer may publish it)" test "$(temps "$t")" = "$left"
touch -d "$OLD" "$t/_delta_log/$left"
expect "the next checkpoint run" "$LOOM_BIN" checkpoint "$t" > /dev/null
expect "... removes it once it is an hour old" test -z "$(temps "$t")"
expect "rows unchanged" same_rows "$t"

# ---- each committing operation sweeps -----------------------------------
for op in "vacuum --no-dry-run" "compact" "checkpoint"; do
  t=$(copy_table simple_table)
  plant "$t"
  # shellcheck disable=SC2086
  expect "$op runs" "$LOOM_BIN" $op "$t" > /dev/null
  expect "$op: the old temp files are gone, the young one stays" test "$(temps "$t")" = "$young"
  expect "$op: other hidden files stay" test -e "$t/_delta_log/.keep-me.tmp"
  expect "$op: rows unchanged" same_rows "$t"
done
d="$TEST_TMP/conv"; mkdir -p "$d/_delta_log"
cp "$LOOM_FIXTURES_DIR"/delta/simple_table/part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet "$d/"
plant "$d"
expect "convert runs" "$LOOM_BIN" convert "$d" > /dev/null
expect "convert: the old temp files are gone, the young one stays" test "$(temps "$d")" = "$young"

# ---- with nothing left to do (a killed run may have committed its work
# and died before removing its temp file), the run still sweeps; a dry run
# never does --------------------------------------------------------------
t=$(copy_table simple_table)
"$LOOM_BIN" zorder "$t" --columns id > /dev/null
"$LOOM_BIN" vacuum "$t" --no-dry-run > /dev/null
for op in "compact --dry-run" "compact" "zorder --columns id" "vacuum --no-dry-run"; do
  plant "$t"
  read -r cmd opts <<< "$op"
  # shellcheck disable=SC2086
  "$LOOM_BIN" "$cmd" "$t" $opts --json > "$TEST_TMP/nothing.json"
  expect "$op: nothing to do" jsq --assert "$TEST_TMP/nothing.json" '(d.metrics && "version" in d.metrics ? d.metrics.version : d.version) === -1'
  if [ "$op" = "compact --dry-run" ]; then
    expect "a dry run leaves them all" test "$(temps "$t" | wc -l)" -eq 3
  else
    expect "$op with nothing to do: the old temp files are gone" test "$(temps "$t")" = "$young"
  fi
  rm -f "$t/_delta_log/$young"
done
expect "rows unchanged" same_rows "$t"
rm -f "$d"/_delta_log/.00000000000000000100.json.*.tmp
plant "$d"
out=$("$LOOM_BIN" convert "$d" 2>&1) && fail "convert of a Delta table succeeded"
expect "convert refuses an existing table" grep -q "already a Delta table" <<< "$out"
expect "... and still takes the temp files a killed convert left" test "$(temps "$d")" = "$young"

# ---- data-file temp files of a killed compaction: a full vacuum takes
# them once older than the retention, like any unreferenced file ----------
t=$(copy_table simple_table)
old_data=".part-00000-x-c000.snappy.parquet.$(uuid).tmp"; young_data=".part-00001-y.parquet.$(uuid).tmp"
mkdir -p "$t/_hidden"
echo x > "$t/$old_data"; echo x > "$t/$young_data"; echo x > "$t/_hidden/$old_data"
touch -d '30 days ago' "$t/$old_data" "$t/_hidden/$old_data"
expect "vacuum --full" "$LOOM_BIN" vacuum "$t" --full --no-dry-run > /dev/null
expect "vacuum --full: the old data temp file is gone" test ! -e "$t/$old_data"
expect "vacuum --full: a young one stays" test -e "$t/$young_data"
expect "vacuum --full: one in a hidden directory stays" test -e "$t/_hidden/$old_data"
expect "vacuum --full: rows unchanged" same_rows "$t"

# ---- cleanup-logs: listed in a dry run, deleted for real ----------------
t=$(copy_table simple_table)
plant "$t"
"$LOOM_BIN" cleanup-logs "$t" --json > "$TEST_TMP/dry.json"
expect "dry run lists the two stale temp files" jsq --assert "$TEST_TMP/dry.json" \
  "d.stale_temp_files === 2 && d.files.filter(k => k.endsWith('.tmp')).length === 2"
expect "dry run deletes nothing" test "$(temps "$t" | wc -l)" -eq 3
expect "cleanup-logs --no-dry-run" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run > /dev/null
expect "cleanup-logs: the old temp files are gone, the young one stays" test "$(temps "$t")" = "$young"
expect "cleanup-logs: other hidden files stay" test -e "$t/_delta_log/.keep-me.tmp"
expect "cleanup-logs: rows unchanged" same_rows "$t"
finish
