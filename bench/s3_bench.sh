#!/usr/bin/env bash
# loom compaction and Z-order of the shared bench set on S3 (a loopback
# Ceph RGW) against the same on local disk, in one run, side by side
# (local compact, S3 compact, local zorder, S3 zorder, round after round):
# wall, CPU, peak RSS and, for S3, the requests each operation sent.
#
#   DATA=small|big RUNS=3 MEMORY=1GiB [LOOM_ARGS=...] bench/s3_bench.sh
#
# LOOM_ARGS: extra `loom compact` options for both sides, e.g.
# LOOM_ARGS="--copy-row-group-min off" (decode and re-encode every row
# group: the compaction does the work of a peer engine's).
#
# The input (../shared/bench/gen_data.cjs output in $HOME/loom-bench/data/
# $DATA) is copied to $WORK and made a Delta table (bench/lib.sh), then
# uploaded by awscli to a bucket of a private RGW started here
# (tests/tools/rgw.sh; its memstore OSD keeps objects in RAM, sized by
# RGW_MEMSTORE_BYTES: 6 GiB by default, enough for the 1 GB set and a
# rewrite of it; the deleted rewrites are garbage-collected between runs). Before each run, untimed, the
# previous run's commit and output files are removed (locally with rm, on
# S3 with awscli), so every run starts from the converted table. Prints one
# JSON line per run and markdown tables of the medians and of the median
# per-round ratios S3/local. Floor (issue 12): S3 compaction wall <= 1.5x
# local, at the same peak RSS. The server's CPU during each S3 run is
# recorded too (server_cpu_s): RGW runs on the same cores as loom, so
# (loom cpu + server cpu) / cores is the least wall any client could reach
# here, printed as a ratio to the local wall beside the measured one. Needs scripts/install-s3-test-deps.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh" s3
MEMORY="${MEMORY:-1GiB}"
RGW_SH="$bench_src/tests/tools/rgw.sh"
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
if [ -x /usr/bin/aws ]; then AWS_BIN=/usr/bin/aws; else AWS_BIN=aws; fi

bench_prepare
rgw="$WORK/rgw"
trap 'bash "$RGW_SH" stop "$rgw" > /dev/null 2>&1 || true' EXIT
RGW_MEMSTORE_BYTES="${RGW_MEMSTORE_BYTES:-6442450944}" bash "$RGW_SH" start "$rgw"
# shellcheck disable=SC1091
source "$rgw/env"
s3cli() { "$AWS_BIN" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }
s3cli s3api create-bucket --bucket bench > /dev/null
s3cli s3 cp --recursive --quiet --only-show-errors "$WORK/table" s3://bench/table
uri=s3://bench/table

reset_local() {
  rm -f "$WORK/table/_delta_log/00000000000000000001.json" "$WORK/table"/part-00000-*-c000.snappy.parquet
}
reset_s3() {
  s3cli s3 rm --recursive --quiet s3://bench/table --exclude '*' \
    --include '_delta_log/00000000000000000001.json' --include 'part-00000-*-c000.snappy.parquet'
  # RGW frees a deleted object's data only when its garbage collector runs
  # (hours later by default): run it now, or the rounds' rewrites fill the
  # memstore OSD and a full Ceph blocks every write
  bash "$RGW_SH" admin "$rgw" gc process --include-all > /dev/null
}

# server_cpu: CPU seconds the RGW cluster's daemons (monitor, OSD,
# gateway) have used so far (bench_store_rounds asks around each S3 run)
server_cpu() { bench_cpu_of $(cat "$rgw"/run/*.pid 2> /dev/null); }

read -r -a compact_args <<< "${LOOM_ARGS:-}"
bench_store_rounds s3 reset_local reset_s3 "$uri" "${compact_args[@]+"${compact_args[@]}"}"
bench_store_summary s3

