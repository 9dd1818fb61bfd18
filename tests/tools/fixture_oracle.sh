#!/usr/bin/env bash
# fixture_oracle.sh NAME COMMAND [ARGS...]: the oracle's answer (stdout and
# exit status of `oracle.sh COMMAND DIR ARGS...`) for fixture table NAME as
# shipped, ../shared/fixtures/delta/NAME. The fixture sweeps each ask for
# the same fingerprint and snapshot of every table before they change
# their copy, so an answer is computed once per run and shared, in
# build/oracle-cache. It is keyed by the fixture's content, the oracle's
# source and lock file and the command, so an edited fixture or oracle is
# never answered from the cache; failures are not kept.
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
fixtures="${LOOM_FIXTURES_DIR:-$src/../shared/fixtures}"
oracle_dir="$src/../shared/tools/delta-oracle"
name=$1 cmd=$2; shift 2
dir="$fixtures/delta/$name"
[ -d "$dir" ] || { echo "fixture_oracle.sh: no fixture table $name" >&2; exit 2; }
key=$( { (cd "$dir" && find . -type f -print0 | sort -z | xargs -0 sha1sum)
         cat "$oracle_dir/oracle.mjs" "$oracle_dir/package-lock.json"
         printf '%s\0' "$cmd" "$@"; } | sha1sum | cut -c1-20)
cache="$src/build/oracle-cache"
answer="$cache/$name.$cmd.$key.json"
if [ ! -s "$answer" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp "$cache/.answer.XXXXXX")
  rc=0; bash "$src/tests/tools/oracle.sh" "$cmd" "$dir" "$@" > "$tmp" || rc=$?
  if [ "$rc" -ne 0 ]; then cat "$tmp"; rm -f "$tmp"; exit "$rc"; fi
  mv -f "$tmp" "$answer"
fi
cat "$answer"
