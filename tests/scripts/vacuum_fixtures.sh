#!/usr/bin/env bash
# VACUUM on a copy of every fixture table, judged by the independent oracle:
# lite and full, dry and real, default retention and 0 (check disabled).
# The rows a reader sees (oracle fingerprint) never change, every live file
# stays (oracle verify), planted orphans go only once older than the
# retention, hidden files and live deletion-vector files survive, and once
# vacuumed with retention 0 no unreferenced visible file is left (oracle
# orphans). Tables loom must refuse are refused and left byte-for-byte alone.
source "$(dirname "$0")/../tools/lib.sh"

# Data files absent by design: the oracle cannot fingerprint them.
LOG_ONLY=" checkpoints-log-only "
# Tables whose protocol loom must refuse to vacuum, with the reason.

visible_orphans() { # orphans the oracle sees that are not hidden per path component
  oracle orphans "$1" > "$TEST_TMP/orph.json"
  jsq "$TEST_TMP/orph.json" 'd.files.filter(f => !f.path.split("/").some(c => /^[_.]/.test(c) && !/^_change_data|^_delta_index/.test(c))).length'
}

for name in $(fixture_tables); do
  t=$(copy_table "$name")
  reason=$(fixture_refusal "$name" vacuum-full)
  if [ -n "$reason" ]; then
    before=$(tree_digest "$t")
    if "$LOOM_BIN" vacuum "$t" --full --no-dry-run --retention-hours 0 --no-retention-check 2> "$TEST_TMP/err"; then
      fail "$name: vacuum should be refused ($reason)"
    else
      expect "$name: refusal names the feature" grep -q "$reason" "$TEST_TMP/err"
    fi
    expect "$name: refused table unchanged" test "$before" = "$(tree_digest "$t")"
    continue
  fi
  logonly=0; case "$LOG_ONLY" in *" $name "*) logonly=1 ;; esac
  if [ $logonly -eq 0 ]; then
    fixture_oracle "$name" fingerprint > "$TEST_TMP/fp0.json"
    fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
  fi

  # Plant: an old orphan, a fresh orphan, hidden files (also below a
  # partition directory), all old.
  part_dir=$(cd "$t" && find . -mindepth 1 -maxdepth 1 -type d -name '*=*' | head -1)
  echo old > "$t/orphan-old.parquet"; touch -d '30 days ago' "$t/orphan-old.parquet"
  echo new > "$t/orphan-new.parquet"
  echo hidden > "$t/.hidden-old"; touch -d '30 days ago' "$t/.hidden-old"
  mkdir -p "$t/_tmp_dir"; echo x > "$t/_tmp_dir/f.parquet"; touch -d '30 days ago' "$t/_tmp_dir/f.parquet"
  if [ -n "$part_dir" ]; then
    echo s > "$t/$part_dir/_SUCCESS"; touch -d '30 days ago' "$t/$part_dir/_SUCCESS"
  fi
  log_before=$(tree_digest "$t/_delta_log")
  (cd "$t/_delta_log" && find . -type f) > "$TEST_TMP/log_files"

  # 1. dry runs change nothing
  before=$(tree_digest "$t")
  expect "$name: dry lite" "$LOOM_BIN" vacuum "$t" --json > "$TEST_TMP/dry.json"
  expect "$name: dry full" "$LOOM_BIN" vacuum "$t" --full --json > "$TEST_TMP/dryfull.json"
  # --summary counts the same files without printing them
  expect "$name: dry full summary" "$LOOM_BIN" vacuum "$t" --full --summary --json > "$TEST_TMP/summary.json"
  expect "$name: summary counts what the dry run lists, without the list" jsq --assert "$TEST_TMP/summary.json" \
    "d.num_files === $(jsq "$TEST_TMP/dryfull.json" 'd.files.length') && !('files' in d)"
  "$LOOM_BIN" vacuum "$t" --full --summary > "$TEST_TMP/summary.txt"
  expect "$name: human summary is one line" test "$(wc -l < "$TEST_TMP/summary.txt")" = 1
  expect "$name: dry runs change nothing" test "$before" = "$(tree_digest "$t")"
  expect "$name: dry full lists the old orphan" jsq --assert "$TEST_TMP/dryfull.json" 'd.files.includes("orphan-old.parquet")'
  # (_change_data files are not hidden: expired ones go, e.g. cdc_ict_table's,
  # whose commits' in-commit timestamps are months old)
  expect "$name: dry full spares the fresh orphan and hidden files" jsq --assert "$TEST_TMP/dryfull.json" \
    '!d.files.some(f => f === "orphan-new.parquet" || f.split("/").some(c => /^[_.]/.test(c) && !/^_change_data/.test(c)))'

  # 2. retention below the table's is refused unless the check is off
  if "$LOOM_BIN" vacuum "$t" --retention-hours 0 --no-dry-run > /dev/null 2> "$TEST_TMP/err"; then
    fail "$name: retention 0 with the check on should be refused"
  else
    expect "$name: refusal explains the retention" grep -q "deletedFileRetentionDuration" "$TEST_TMP/err"
  fi
  expect "$name: refused run changed nothing" test "$before" = "$(tree_digest "$t")"

  # 3. real full vacuum, default retention
  expect "$name: full vacuum" "$LOOM_BIN" vacuum "$t" --full --no-dry-run --json > "$TEST_TMP/full.json"
  expect "$name: old orphan deleted" test ! -e "$t/orphan-old.parquet"
  expect "$name: fresh orphan kept" test -e "$t/orphan-new.parquet"
  expect "$name: hidden files kept" test -e "$t/.hidden-old" -a -e "$t/_tmp_dir/f.parquet"
  [ -n "$part_dir" ] && expect "$name: _SUCCESS below a partition kept" test -e "$t/$part_dir/_SUCCESS"

  # 4. real full vacuum, retention 0: nothing unreferenced is left
  expect "$name: vacuum retention 0" "$LOOM_BIN" vacuum "$t" --full --no-dry-run --retention-hours 0 --no-retention-check --json > "$TEST_TMP/zero.json"
  expect "$name: fresh orphan deleted at retention 0" test ! -e "$t/orphan-new.parquet"
  expect "$name: hidden files still kept" test -e "$t/.hidden-old" -a -e "$t/_tmp_dir/f.parquet"
  expect "$name: every log file kept" bash -c "cd '$t/_delta_log' && while read -r f; do test -e \"\$f\" || exit 1; done < '$TEST_TMP/log_files'"
  if [ $logonly -eq 0 ]; then
    n=$(visible_orphans "$t")
    expect "$name: no visible orphan left (oracle orphans: $n)" test "$n" = 0
    oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
    expect "$name: fingerprint unchanged" test "$fp0" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
    if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$name: oracle verify after vacuum: $(cat "$TEST_TMP/verify.json" | head -c 600)"; fi
  fi

  # 5. a second run deletes nothing and writes no commit
  log_mid=$(tree_digest "$t/_delta_log")
  expect "$name: second vacuum" "$LOOM_BIN" vacuum "$t" --full --no-dry-run --retention-hours 0 --no-retention-check --json > "$TEST_TMP/again.json"
  expect "$name: second run deletes nothing" jsq --assert "$TEST_TMP/again.json" 'd.num_files === 0'
  expect "$name: second run writes no commit" test "$log_mid" = "$(tree_digest "$t/_delta_log")"
  [ "$log_before" != "$log_mid" ] || jsq --assert "$TEST_TMP/zero.json" 'd.num_files === 0' || fail "$name: deletions without VACUUM START/END commits"
done
finish
