# Sourced by a backend's driver (tests/scripts/vacuum_absolute_paths.sh for
# the local store; the S3 and Azure tests source it with their own hooks).
#
# A live file named in the log by an absolute URI inside the table
# ("file:///…/t/x.parquet", "s3://bucket/t/x.parquet") is the same file as
# its relative form: VACUUM must protect it (and its deletion vector), and
# compaction may rewrite it. For each table: every add/remove path is made
# absolute (mixing the spellings the backend accepts for the root, and
# deletion vectors become absolute 'p' ones), orphans and hidden files are
# planted, then VACUUM FULL with retention 0 runs, then a compaction. The
# oracle judges the result: the rows (fingerprint) never change, `verify`
# finds every live file and deletion vector, the orphans are gone and the
# hidden files kept.
#
# Hooks the driver defines (NAME is the fixture; LOCAL a local copy):
#   backend_prefixes NAME        the absolute prefixes naming the table's
#                                root, space-separated (several spellings)
#   backend_put NAME LOCAL       make LOCAL the table; print its URI for loom
#   backend_view NAME URI        print a local directory the oracle can read
#                                (a download whose paths point at itself)
#   backend_has NAME URI KEY     succeed when the object KEY exists
# and may set BACKEND_LABEL (for messages).

# removes and several files per partition; partitions; deletion vectors.
# The sanitizer pass (LOOM_FIXTURE_SAMPLE > 1) keeps the first and last.
if [ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ]; then
  ABS_TABLES=${ABS_TABLES:-"simple_table table-with-dv-small"}
else
  ABS_TABLES=${ABS_TABLES:-"simple_table delta-0.8.0-partitioned table-with-dv-small"}
fi
label="${BACKEND_LABEL:-backend}"
absent() { ! backend_has "$@"; }
rows() { oracle fingerprint "$1" | jsq - 'd.hash + "/" + d.rows'; }

for name in $ABS_TABLES; do
  src=$(copy_table "$name")
  base=$(rows "$src") || { fail "$name: oracle fingerprint"; continue; }
  # planted: two orphans (one in a new directory) and two hidden files, all old
  mkdir -p "$src/sub"
  for f in orphan-1.parquet sub/orphan-2.parquet _hidden.parquet .hidden-file; do
    echo planted > "$src/$f"
    touch -d '30 days ago' "$src/$f"
  done
  # shellcheck disable=SC2046
  python3 "$TOOLS/log_paths.py" absolutize "$src" $(backend_prefixes "$name") > "$TEST_TMP/abs.json" ||
    { fail "$name: cannot make the log's paths absolute"; continue; }
  expect "$name: some paths made absolute" jsq --assert "$TEST_TMP/abs.json" 'd.paths > 0'
  uri=$(backend_put "$name" "$src") || { fail "$name: cannot put the table on $label"; continue; }
  view=$(backend_view "$name" "$uri")
  oracle snapshot "$view" > "$TEST_TMP/live.json" || { fail "$name: oracle snapshot"; continue; }
  expect "$name: the live files are named absolutely" \
    jsq --assert "$TEST_TMP/live.json" 'd.files.length > 0 && d.files.every(f => f.path.includes("/"))'

  # dry run first: no live file (and no live DV) may be listed
  expect "$name: vacuum full dry run on $label" "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 \
    --no-retention-check --json > "$TEST_TMP/dry.json"
  expect "$name: dry run lists the orphans" jsq --assert "$TEST_TMP/dry.json" \
    'd.files.includes("orphan-1.parquet") && d.files.includes("sub/orphan-2.parquet")'
  expect "$name: dry run lists no hidden file" jsq --assert "$TEST_TMP/dry.json" \
    '!d.files.some(f => f.startsWith("_") || f.startsWith("."))'
  node -e '
    const fs = require("fs");
    const live = JSON.parse(fs.readFileSync(process.argv[1])), dry = JSON.parse(fs.readFileSync(process.argv[2]));
    // a live path p (absolute) names key k when p ends with "/" + k
    const bad = live.files.filter(f => dry.files.some(k => f.path.endsWith("/" + k) || f.path === k));
    if (bad.length) { console.error("live files listed for deletion:", bad.map(f => f.path)); process.exit(1); }
  ' "$TEST_TMP/live.json" "$TEST_TMP/dry.json" && pass || fail "$name: the dry run would delete a live file"

  expect "$name: vacuum full on $label" "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 \
    --no-retention-check --no-dry-run --json > "$TEST_TMP/real.json"
  view=$(backend_view "$name" "$uri")
  expect "$name: oracle verify after vacuum" oracle verify "$view" > /dev/null
  expect "$name: rows unchanged after vacuum" test "$base" = "$(rows "$view")"
  expect "$name: orphan deleted" absent "$name" "$uri" orphan-1.parquet
  expect "$name: orphan in a new directory deleted" absent "$name" "$uri" sub/orphan-2.parquet
  expect "$name: hidden files kept" backend_has "$name" "$uri" _hidden.parquet
  expect "$name: dot files kept" backend_has "$name" "$uri" .hidden-file

  # compaction rewrites files named absolutely inside the root
  expect "$name: compact on $label" "$LOOM_BIN" compact "$uri" --json > "$TEST_TMP/compact.json"
  view=$(backend_view "$name" "$uri")
  expect "$name: oracle verify after compact" oracle verify "$view" > /dev/null
  expect "$name: rows unchanged after compact" test "$base" = "$(rows "$view")"
  # a partition with two files or more has something to compact
  packable=$(jsq "$TEST_TMP/live.json" '(() => { const g = {};
    for (const f of d.files) { const k = JSON.stringify(f.partitionValues); g[k] = (g[k] || 0) + 1; }
    return Object.values(g).some(n => n > 1); })()')
  if [ "$packable" = true ]; then
    expect "$name: compaction took the absolutely named files" \
      jsq --assert "$TEST_TMP/compact.json" 'd.num_files_removed >= 2'
  fi
done
