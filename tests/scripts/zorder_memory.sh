#!/usr/bin/env bash
# Bounded memory: one ~50 MB (decoded) partition Z-ordered with an 8 MiB
# budget is range-partitioned on sampled key boundaries (several passes over
# the files, no spill files), keeps peak RSS (/usr/bin/time %M) near the
# budget and far below the unbounded run, and leaves the same rows
# (oracle fingerprint), valid stats (verify), no stray file on disk, and
# still clusters (the box scan figure is printed).
source "$(dirname "$0")/../tools/lib.sh"
export NODE_PATH="${NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"

node "$TOOLS/zorder_gen.cjs" "$TEST_TMP/base" 3 150000 0 20000
"$LOOM_BIN" convert "$TEST_TMP/base" > /dev/null
fp0=$(oracle fingerprint "$TEST_TMP/base" | jsq - 'd.hash + "/" + d.rows')
expect "450000 rows" test "${fp0#*/}" = 450000

for mode in unbounded bounded; do
  t="$TEST_TMP/$mode"
  cp -r "$TEST_TMP/base" "$t"
  extra=()
  [ $mode = bounded ] && extra=(--memory 8MiB)
  if ! /usr/bin/time -f %M -o "$TEST_TMP/rss.$mode" "$LOOM_BIN" zorder "$t" --columns u1,u2 \
       --target-size 4MiB "${extra[@]}" --json > "$TEST_TMP/run.$mode.json" 2> "$TEST_TMP/err"; then
    fail "$mode: zorder failed: $(head -c 300 "$TEST_TMP/err")"
    continue
  fi
  expect "$mode: fingerprint unchanged" test "$fp0" = "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')"
  if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$mode: verify: $(head -c 600 "$TEST_TMP/verify.json")"; fi
  # on disk: the 3 old files (still referenced by tombstones) + the new ones, nothing else
  n_new=$(jsq "$TEST_TMP/run.$mode.json" 'd.num_files_added')
  n_disk=$(find "$t" -name '*.parquet' -not -path '*/_delta_log/*' | wc -l)
  expect "$mode: no stray files ($n_disk on disk, 3 + $n_new expected)" test "$n_disk" = $((3 + n_new))
  box=$(oracle zorder-quality "$t" --columns u1,u2 | jsq - 'd.avg_file_fraction_scanned.toFixed(3)')
  echo "$mode: peak RSS $(cat "$TEST_TMP/rss.$mode") KiB, $n_new files, u1,u2 box scan $box"
done
rss_u=$(cat "$TEST_TMP/rss.unbounded"); rss_b=$(cat "$TEST_TMP/rss.bounded")
if grep -q __asan_init "$LOOM_BIN"; then
  echo "sanitizer build: RSS bounds not checked (shadow memory)"
  finish
  exit $?
fi
expect "bounded peak RSS ${rss_b} KiB <= 32 MiB (8 MiB budget)" test "$rss_b" -le 32768
expect "bounded peak RSS ${rss_b} KiB < half the unbounded ${rss_u} KiB" test $((rss_b * 2)) -lt "$rss_u"
finish
