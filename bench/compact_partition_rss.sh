#!/usr/bin/env bash
# A real compaction of one partition of bench/snapshot_floor.sh's table
# (FILES live files in a checkpoint whose data files do not exist, plus
# COMMITS one-add commits): the commits' partition
# (date=2027-01-01/region=us-east) is made real - COMMITS small Parquet
# files written by DuckDB, their commits rewritten with the files' sizes
# and stats - and `loom compact --partition` rewrites it. Peak RSS, wall,
# user and system time of each loom given, each on a fresh copy of the
# table (hard links: a run only adds files):
#   LOOM_BINS="main/build/loom build/loom" bench/compact_partition_rss.sh [FILES] [COMMITS] [KIND]
# (default 1000000 1000 classic; the floor table is made first if missing.)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LOOM_BUILD_DIR:-$here/build}"
bins="${LOOM_BINS:-$build/loom}"
files="${1:-1000000}"; commits="${2:-1000}"; kind="${3:-classic}"
bench="${BENCH_DIR:-$HOME/loom-bench}"
floor="$bench/floor-$files-$commits-$kind/table"
work="$bench/compact-part-$files-$commits-$kind"
export NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$build/oracle-deps/node_modules}"

[ -f "$floor/../.complete" ] || bash "$here/bench/snapshot_floor.sh" "$files" "$commits" "$kind"
if [ ! -f "$work/.complete" ]; then
  rm -rf "$work"; mkdir -p "$work/table/_delta_log"
  cp -r "$floor/_delta_log/"*.checkpoint* "$floor/_delta_log/_last_checkpoint" "$work/table/_delta_log/"
  [ -d "$floor/_delta_log/_sidecars" ] && cp -r "$floor/_delta_log/_sidecars" "$work/table/_delta_log/"
  cat > "$work/gen.cjs" <<'JS'
    const { DuckDBInstance } = require("@duckdb/node-api");
    const fs = require("fs");
    const [t, n] = [process.argv[2], +process.argv[3]];
    const dir = "date=2027-01-01/region=us-east";
    (async () => {
      const con = await (await DuckDBInstance.create(":memory:")).connect();
      fs.mkdirSync(`${t}/${dir}`, { recursive: true });
      for (let v = 1; v <= n; v++) {
        const name = `part-00000-${v.toString(16).padStart(8, "0")}-0000-4000-8000-${v.toString(16).padStart(12, "0")}-c000.snappy.parquet`;
        const rows = 1000, lo = v * rows;
        await con.run(`COPY (SELECT (${lo} + r)::BIGINT AS id, 'n' || r AS name, r * 1.5 AS amount,
            TIMESTAMPTZ '2027-01-01 00:00:00+00' + to_seconds(r) AS ts FROM range(${rows}) t(r))
          TO '${t}/${dir}/${name}' (FORMAT parquet, COMPRESSION snappy)`);
        const stats = JSON.stringify({ numRecords: rows, minValues: { id: lo }, maxValues: { id: lo + rows - 1 },
          nullCount: { id: 0, name: 0, amount: 0, ts: 0 } });
        const add = { path: `${dir}/${name}`, partitionValues: { date: "2027-01-01", region: "us-east" },
          size: fs.statSync(`${t}/${dir}/${name}`).size, modificationTime: 1770000000000 + v, dataChange: true, stats };
        fs.writeFileSync(`${t}/_delta_log/${String(v).padStart(20, "0")}.json`,
          JSON.stringify({ commitInfo: { operation: "WRITE" } }) + "\n" + JSON.stringify({ add }) + "\n");
      }
    })().catch(e => { console.error(e); process.exit(1); });
JS
  node "$work/gen.cjs" "$work/table" "$commits"
  touch "$work/.complete"
fi

echo "table: $files files in the checkpoint ($kind), $commits real files in date=2027-01-01/region=us-east"
echo "peak RSS KiB, wall s, user s, sys s | removed, added"
for bin in $bins; do
  rm -rf "$work/run"; cp -al "$work/table" "$work/run"
  /usr/bin/time -o "$work/time" -f '%M %e %U %S' "$bin" compact "$work/run" \
    --partition date=2027-01-01 --partition region=us-east --json > "$work/out.json"
  echo "$bin: $(cat "$work/time") | $(node -e 'const d = require(process.argv[1]);
    console.log(d.num_files_removed + ", " + d.num_files_added)' "$work/out.json")"
done
rm -rf "$work/run"
