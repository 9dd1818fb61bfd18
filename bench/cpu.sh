# bench/cpu.sh - CPU of other processes during a run (sourced by lib.sh and
# vacuum_listing_s3.sh: the object-store server shares the machine's cores).

# bench_cpu_of PID...: CPU seconds (user + system) the processes have used
# so far, from /proc/PID/stat (gone ones count 0).
bench_cpu_of() {
  local p ticks=0
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] || continue
    ticks=$((ticks + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat")))
  done
  awk -v t="$ticks" -v h="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / h }'
}
