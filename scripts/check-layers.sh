#!/usr/bin/env bash
# Enforce the layer rules of src/README.md: a file in src/<layer>/ may
# include headers of its own layer and of the layers below it only; the CLI
# includes only public headers (loom.h, loom/...) and its own.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

order=(util store codec parquet delta ops plan)
rank() {
  local i
  for i in "${!order[@]}"; do
    [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }
  done
  echo -1
}

status=0
while IFS= read -r file; do
  layer="${file#src/}"; layer="${layer%%/*}"
  while IFS= read -r inc; do
    target="${inc%%/*}"
    [ "$target" = "$inc" ] && continue            # same-directory or system header
    case "$target" in loom) continue ;; esac      # public headers are fine everywhere
    if [ "$layer" = cli ]; then
      [ "$target" = cli ] && continue
      echo "layer violation: $file includes \"$inc\" (the CLI may use only public headers)"
      status=1; continue
    fi
    r_from=$(rank "$layer"); r_to=$(rank "$target")
    if [ "$r_to" -lt 0 ]; then
      echo "layer violation: $file includes \"$inc\" from unknown layer '$target'"
      status=1
    elif [ "$r_to" -gt "$r_from" ]; then
      echo "layer violation: $file ($layer) includes \"$inc\" ($target is above $layer)"
      status=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find src -name '*.[ch]' | sort)

if [ $status -eq 0 ]; then
  echo "check-layers: ok"
fi
exit $status
