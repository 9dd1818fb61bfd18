#!/usr/bin/env bash
# Log paths that are absolute URIs inside the table, on the local store
# (see tests/tools/vacuum_absolute_paths_body.sh for what is checked). The
# table is opened through a symlink, and the log names its files through
# the symlink (file:///…, file:/…, /…) and through the real directory, so
# the store must map both spellings of its root to the same keys. Then:
# files named absolutely OUTSIDE the root are never rewritten or deleted.
source "$(dirname "$0")/../tools/lib.sh"

BACKEND_LABEL=local
mkdir -p "$TEST_TMP/real" "$TEST_TMP/via"
backend_prefixes() { # through the link (three spellings) and the real directory
  local link="$TEST_TMP/via/$1" real="$TEST_TMP/real/$1"
  echo "file://$link file:$link $link file://$real"
}
backend_put() {
  rm -rf "$TEST_TMP/real/$1"
  mv "$2" "$TEST_TMP/real/$1"
  ln -sfn "$TEST_TMP/real/$1" "$TEST_TMP/via/$1"
  echo "$TEST_TMP/via/$1"
}
backend_view() { echo "$TEST_TMP/real/$1"; }
backend_has() { test -e "$TEST_TMP/real/$1/$3"; }
source "$TOOLS/vacuum_absolute_paths_body.sh"

# A live file outside the table root, named by its absolute path: Z-order
# refuses to rewrite it (naming it), compaction leaves it where it is, and
# VACUUM FULL never deletes it. The table is not changed by the refusal.
t=$(copy_table simple_table)
outside="$TEST_TMP/outside"
mkdir -p "$outside"
victim=$(jsq <(oracle snapshot "$t") 'd.files[0].path')
mv "$t/$victim" "$outside/$victim"
python3 - "$t" "$victim" "$outside/$victim" <<'PY'
import json, os, sys
table, rel, absolute = sys.argv[1:]
log = os.path.join(table, "_delta_log")
for name in sorted(os.listdir(log)):
    if not name.endswith(".json"):
        continue
    p = os.path.join(log, name)
    lines = [json.loads(l) for l in open(p) if l.strip()]
    for a in lines:
        for k in ("add", "remove"):
            if k in a and a[k]["path"] == rel:
                a[k]["path"] = "file://" + absolute
    open(p, "w").write("".join(json.dumps(a) + "\n" for a in lines))
PY
before=$(tree_digest "$t")
base=$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')
if "$LOOM_BIN" zorder "$t" --columns id > "$TEST_TMP/z.out" 2> "$TEST_TMP/z.err"; then
  fail "zorder rewrote a table with a file outside its root"
else
  expect "zorder names the file outside the root" grep -q "$outside/$victim: data files outside the table root" "$TEST_TMP/z.err"
fi
expect "the refused zorder changed nothing" test "$before" = "$(tree_digest "$t")"
expect "compact with a file outside the root" "$LOOM_BIN" compact "$t" --json > "$TEST_TMP/c.json"
expect "the outside file is still live, at its absolute path" \
  jsq --assert <(oracle snapshot "$t") "d.files.some(f => f.path === 'file://$outside/$victim')"
expect "vacuum full with a file outside the root" "$LOOM_BIN" vacuum "$t" --full --retention-hours 0 \
  --no-retention-check --no-dry-run --json > /dev/null
expect "the outside file is untouched" test -f "$outside/$victim"
expect "oracle verify" oracle verify "$t" > /dev/null
expect "rows unchanged" test "$base" = "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')"
finish
