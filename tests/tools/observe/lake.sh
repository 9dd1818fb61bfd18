# tests/tools/observe/lake.sh - the lake the observability tests maintain
# (sourced after tests/tools/lib.sh). observe_lake DIR writes DIR/lake and
# DIR/storage.yaml: raw.events (simple_table: old tombstones to vacuum,
# five small files to compact), raw.parts (partitioned), raw.broken (a
# copy whose live data file is cut short: its compaction fails with a
# parquet error), raw.missing (no table: skipped). Every route carries a
# secret storage option, $OBSERVE_SECRET, that no output may show.
OBSERVE_SECRET="obs-secret-$$-Zq7"
observe_lake() {
  local dir="$1"
  mkdir -p "$dir/lake/raw"
  cp -r "$LOOM_FIXTURES_DIR/delta/simple_table" "$dir/lake/raw/events"
  cp -r "$LOOM_FIXTURES_DIR/delta/delta-0.8.0-partitioned" "$dir/lake/raw/parts"
  cp -r "$LOOM_FIXTURES_DIR/delta/simple_table" "$dir/lake/raw/broken"
  chmod -R u+w "$dir/lake"
  # the newest file of the live set, cut to 100 bytes
  local live
  live=$(ls "$dir/lake/raw/broken"/part-00000-2befed33*.parquet 2>/dev/null | head -1)
  [ -n "$live" ] || live=$(ls -t "$dir/lake/raw/broken"/*.parquet | head -1)
  truncate -s 100 "$live"
  cat > "$dir/storage.yaml" <<YAML
storage:
  defaults:
    table_path:
      uri: $dir/lake
      storage_options: {AWS_SECRET_ACCESS_KEY: "$OBSERVE_SECRET"}
  tables:
    - name: raw.events
      path: {uri: "$dir/lake/raw/events", storage_options: {AWS_SECRET_ACCESS_KEY: "$OBSERVE_SECRET"}}
    - name: raw.parts
      path: {uri: "$dir/lake/raw/parts", storage_options: {AWS_SECRET_ACCESS_KEY: "$OBSERVE_SECRET"}}
    - name: raw.broken
      path: {uri: "$dir/lake/raw/broken", storage_options: {AWS_SECRET_ACCESS_KEY: "$OBSERVE_SECRET"}}
    - name: raw.missing
      path: {uri: "$dir/lake/raw/missing"}
  maintenance:
    schemas: [raw]
    vacuum: {retention_hours: 168, dry_run: false}
    compact: {target_size: 64MiB}
YAML
}
