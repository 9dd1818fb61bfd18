#!/usr/bin/env bash
# Maintenance of every fixture table on S3 (Ceph RGW), judged on a copy
# downloaded by awscli with the independent oracle. Each table gets planted
# orphans (one in a new "directory") and hidden files ('.' and '_', one
# below a partition), is uploaded, then on S3: VACUUM FULL with retention 0,
# compaction, Z-order. Downloaded again: the rows (oracle fingerprint) are
# unchanged, `verify` is clean (every live data file and deletion vector is
# there, stats hold), the orphans are gone and the hidden files kept.
# Tables loom must refuse are refused with the reason named. The sanitizer
# pass samples the tables (LOOM_FIXTURE_SAMPLE, see fixture_tables).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

LOG_ONLY=" checkpoints-log-only "   # no data files by design
# refusals: tests/tools/fixture_refusals.tsv; the log-only fixture's data
# files are missing by design, which S3 names its own way
refusal() { # TABLE OP
  case "$LOG_ONLY" in *" $1 "*) [ "$2" = vacuum-full ] || echo "HTTP 404 (NoSuchKey)"; return ;; esac
  fixture_refusal "$1" "$2"
}
rows() { jsq "$1" 'd.hash + "/" + d.rows'; }

bucket=$(s3_new_bucket maintain) || { fail "cannot create a bucket"; finish; exit 1; }
mkdir -p "$TEST_TMP/up" "$TEST_TMP/base"
names=${S3_TABLES:-$(fixture_tables)}
for name in $names; do
  t="$TEST_TMP/up/$name"
  cp -r "$LOOM_FIXTURES_DIR/delta/$name" "$t"
  chmod -R u+w "$t"
  case "$LOG_ONLY" in *" $name "*) ;; *)
    fixture_oracle "$name" fingerprint > "$TEST_TMP/base/$name.json" || fail "$name: oracle fingerprint" ;;
  esac
  part_dir=$(cd "$t" && find . -mindepth 1 -maxdepth 1 -type d -name '*=*' | head -1)
  mkdir -p "$t/sub" "$t/_tmp"
  for f in orphan-1.parquet sub/orphan-2.parquet .hidden-file _tmp/x.parquet; do echo planted > "$t/$f"; done
  if [ -n "$part_dir" ]; then
    echo planted > "$t/$part_dir/_SUCCESS"
    echo "$part_dir/_SUCCESS" > "$TEST_TMP/base/$name.success"
  fi
done
expect "tables uploaded" s3_upload "$TEST_TMP/up" "s3://$bucket/t"

for name in $names; do
  uri="s3://$bucket/t/$name"
  reason=$(refusal "$name" vacuum-full)
  if "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 --no-retention-check --no-dry-run --json \
      > "$TEST_TMP/$name.vac" 2> "$TEST_TMP/err"; then
    [ -z "$reason" ] && pass || fail "$name: vacuum should be refused ($reason)"
  elif [ -n "$reason" ]; then
    expect "$name: vacuum refusal names '$reason'" grep -q "$reason" "$TEST_TMP/err"
  else
    fail "$name: vacuum on S3: $(head -c 400 "$TEST_TMP/err")"
  fi
  cols=$("$LOOM_BIN" inspect "$uri" --json 2> /dev/null | jsq - '(() => {
    const ok = /^(string|long|integer|short|byte|float|double|boolean|date|timestamp|timestamp_ntz|decimal\(.*\))$/;
    const parts = new Set(d.metadata.partitionColumns || []);
    return d.metadata.schema.fields.filter(f => typeof f.type === "string" && ok.test(f.type) && !parts.has(f.name))
      .slice(0, 2).map(f => f.name).join(",") || "id"; })()' 2> /dev/null || echo id)
  for op in compact zorder; do
    reason=$(refusal "$name" "$op")
    args=("$op" "$uri" --json)
    [ "$op" = zorder ] && args+=(--columns "$cols")
    if "$LOOM_BIN" "${args[@]}" > "$TEST_TMP/$name.op" 2> "$TEST_TMP/err"; then
      [ -z "$reason" ] && pass || fail "$name: $op should be refused ($reason)"
    elif [ -n "$reason" ]; then
      expect "$name: $op refusal names '$reason'" grep -qF "$reason" "$TEST_TMP/err"
    else
      fail "$name: $op on S3: $(head -c 400 "$TEST_TMP/err")"
    fi
  done
done

expect "tables downloaded" s3_download "s3://$bucket/t" "$TEST_TMP/down"
for name in $names; do
  d="$TEST_TMP/down/$name"
  if [ -z "$(refusal "$name" vacuum-full)" ]; then
    expect "$name: orphan deleted" test ! -e "$d/orphan-1.parquet"
    expect "$name: orphan in a new directory deleted" test ! -e "$d/sub/orphan-2.parquet"
  fi
  expect "$name: hidden files kept" test -e "$d/.hidden-file" -a -e "$d/_tmp/x.parquet"
  if [ -f "$TEST_TMP/base/$name.success" ]; then
    expect "$name: _SUCCESS below a partition kept" test -e "$d/$(cat "$TEST_TMP/base/$name.success")"
  fi
  case "$LOG_ONLY" in *" $name "*) continue ;; esac
  if oracle fingerprint "$d" > "$TEST_TMP/fp.json"; then
    expect "$name: rows unchanged ($(rows "$TEST_TMP/fp.json"))" \
      test "$(rows "$TEST_TMP/base/$name.json")" = "$(rows "$TEST_TMP/fp.json")"
  else
    fail "$name: oracle fingerprint of the download"
  fi
  expect "$name: oracle verify of the download" oracle verify "$d" > /dev/null
done
finish
