#!/usr/bin/env bash
# The fuzzing campaign: each libFuzzer target (fuzz/README.md) runs for
# RUNS executions (default 10 million) from its committed corpus plus fresh
# seeds from the fixtures (fuzz/make_seeds.mjs), at nice 10, JOBS targets at
# a time (default 1), built in DIR (default build-fuzz). Findings go to
# DIR/findings/; each target's totals (executions, seconds, corpus size,
# findings, restarts after a finding) are appended to DIR/fuzz-campaign.log.
# With --merge the grown corpus is minimized back into fuzz/corpus/<target> (libFuzzer -merge=1) for committing.
#   scripts/reliability/fuzz_campaign.sh [--runs N] [--jobs J] [--merge] [--build DIR] [target ...]
# Targets are named as in fuzz/ (fuzz_delta_actions ...); default: all.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
runs=10000000 jobs=1 merge=0 build=build-fuzz targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --merge) merge=1; shift ;;
    --build) build="$2"; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(fuzz_delta_actions fuzz_delta_checkpoint fuzz_delta_dv fuzz_delta_schema fuzz_values
     fuzz_config_yaml fuzz_plan_yaml fuzz_parquet_footer fuzz_parquet_page fuzz_parquet_file)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

CC=clang cmake -S . -B "$build" -G Ninja -DLOOM_BUILD_FUZZERS=ON -DLOOM_BUILD_TESTS=OFF > /dev/null
nice cmake --build "$build" --target "${targets[@]}" > /dev/null
work="$build/campaign"
mkdir -p "$work" "$build/findings"
node fuzz/make_seeds.mjs "$work/seeds" > /dev/null
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

max_len() {
  case "$1" in
    fuzz_values) echo 512 ;;
    fuzz_delta_actions) echo 4096 ;;
    fuzz_delta_checkpoint|fuzz_parquet_file) echo 65536 ;;
    *) echo 16384 ;;
  esac
}
corpus_name() { local n="${1#fuzz_}"; echo "${n#parquet_}"; }

# crashes, leaks, timeouts, out-of-memory (not slow units: this machine is shared)
findings() { ls "$build/findings" | grep -cE "^$1-(crash|leak|timeout|oom)-" || true; }

run_one() {
  local t="$1" c w log start secs execs=0 n found before tries=0
  c=$(corpus_name "$t")
  w="$work/$c"
  # a target without fixture seeds (fuzz_parquet_file) starts from its corpus
  mkdir -p "$w" "fuzz/corpus/$c" "$work/seeds/$t"
  log="$work/$t.log"
  : > "$log"
  start=$(date +%s)
  before=$(findings "$c")
  # -runs counts executions; a finding stops libFuzzer, so go on from the
  # grown corpus until RUNS executions are done (at most 20 restarts)
  while [ "$execs" -lt "$runs" ] && [ "$tries" -lt 20 ]; do
    tries=$((tries + 1))
    nice -n 10 "$build/fuzz/$t" -runs="$((runs - execs))" -max_len="$(max_len "$t")" -rss_limit_mb=2560 \
      -timeout=30 -print_final_stats=1 -artifact_prefix="$build/findings/$c-" \
      "$w" "fuzz/corpus/$c" "$work/seeds/$t" > "$log.run" 2>&1 || true
    n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log.run" | awk '{print $2}' | tail -1)
    [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$log.run" | tail -1 | tr -d '#') # died without its stats
    cat "$log.run" >> "$log" && rm -f "$log.run"
    execs=$((execs + ${n:-0}))
  done
  secs=$(( $(date +%s) - start ))
  found=$(( $(findings "$c") - before ))
  printf '%s %s executions=%s seconds=%s corpus=%s findings=%s restarts=%s\n' "$(date -u +%FT%TZ)" "$t" \
    "$execs" "$secs" "$(ls "$w" | wc -l)" "$found" "$((tries - 1))" | tee -a "$build/fuzz-campaign.log"
  if [ "$merge" = 1 ]; then
    rm -rf "$work/$c.merged" && mkdir -p "$work/$c.merged"
    "$build/fuzz/$t" -merge=1 -max_len="$(max_len "$t")" "$work/$c.merged" "fuzz/corpus/$c" "$w" > /dev/null 2>&1
    # keep the regression inputs (crash-*, oom-*) and the minimized set
    find "fuzz/corpus/$c" -type f ! -name 'crash-*' ! -name 'oom-*' ! -name 'leak-*' -delete
    cp "$work/$c.merged"/* "fuzz/corpus/$c/"
  fi
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 5; done
  run_one "$t" &
done
wait
