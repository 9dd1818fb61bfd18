#!/usr/bin/env bash
# Enforce the layer rules of src/README.md.
#
#   scripts/check-layers.sh               the #include rules (before a build)
#   scripts/check-layers.sh --symbols DIR the same rules on the symbol tables
#                                         of the objects built in DIR
#
# Layers: a file in src/<layer>/ may use its own layer and the layers below
# it only; the CLI includes only public headers (loom.h, loom/...) and its
# own. Folders inside a layer (src/ops/zorder/, src/store/s3/, ...) have
# rules of their own, listed in `folder_deps` below: a folder may use the
# folders it names and the files at its layer's top (the layer's entry
# points and shared headers); those top files may use every folder.
#
# The include rules alone do not see a call through a public header (a
# function of plan/ declared in loom/config.h and called from ops/), so the
# second mode reads `nm` of every object: each undefined symbol is looked up
# among the symbols the other objects define, and the definer's place must
# be allowed by the same rules.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

order=(util store codec parquet delta ops plan)
declare -A folder_deps=(
	[ops/pipeline]=""
	[ops/optimize]="pipeline"
	[ops/zorder]="pipeline optimize"
	[ops/compact]="pipeline optimize zorder"
	[ops/dist]="pipeline optimize zorder compact"
	[ops/log]=""
	[ops/vacuum]=""
	[ops/health]="optimize compact log"
	[ops/analyze]="pipeline"
	[store/http]=""
	[store/s3]="http"
	[store/azure]="http"
	[store/gcs]="http"
)

rank() {
	local i
	for i in "${!order[@]}"; do
		[ "${order[$i]}" = "$1" ] && { echo "$i"; return; }
	done
	echo -1
}

# place_of src/ops/zorder/zorder.c -> "ops zorder"; src/ops/native.c -> "ops ."
place_of() {
	local rel="${1#src/}" layer folder
	layer="${rel%%/*}"
	rel="${rel#*/}"
	if [ "${rel%%/*}" = "$rel" ]; then folder=.; else folder="${rel%%/*}"; fi
	echo "$layer $folder"
}

# allowed FROM_PLACE TO_PLACE: prints nothing when allowed, else the reason
allowed() {
	local from_layer="$1" from_folder="$2" to_layer="$3" to_folder="$4"
	if [ "$from_layer" = cli ]; then
		[ "$to_layer" = cli ] || echo "the CLI may use only public headers"
		return
	fi
	local r_from r_to
	r_from=$(rank "$from_layer"); r_to=$(rank "$to_layer")
	if [ "$r_to" -lt 0 ]; then echo "unknown layer '$to_layer'"; return; fi
	if [ "$r_to" -gt "$r_from" ]; then echo "$to_layer is above $from_layer"; return; fi
	[ "$r_to" -lt "$r_from" ] && return
	# same layer: the folder rules
	[ "$from_folder" = . ] && return
	[ "$to_folder" = . ] && return
	[ "$to_folder" = "$from_folder" ] && return
	local key="$from_layer/$from_folder"
	if [ -z "${folder_deps[$key]+set}" ]; then
		echo "folder $key has no rule in scripts/check-layers.sh"; return
	fi
	local d
	for d in ${folder_deps[$key]}; do
		[ "$d" = "$to_folder" ] && return
	done
	echo "$key may use only: ${folder_deps[$key]:-its own files} (and $from_layer/'s top files)"
}

check_includes() {
	local status=0 file inc from to why
	while IFS= read -r file; do
		from=$(place_of "$file")
		while IFS= read -r inc; do
			[ "${inc%%/*}" = "$inc" ] && continue        # same-directory or system header
			case "$inc" in loom/*) continue ;; esac       # public headers are fine everywhere
			[ -e "src/$inc" ] || { echo "layer violation: $file includes \"$inc\", which does not exist"; status=1; continue; }
			to=$(place_of "src/$inc")
			# shellcheck disable=SC2086
			why=$(allowed $from $to)
			if [ -n "$why" ]; then
				echo "layer violation: $file includes \"$inc\" ($why)"
				status=1
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
	done < <(find src -name '*.[ch]' | sort)
	return $status
}

check_symbols() {
	local dir="$1" objdir status=0
	objdir="$dir/CMakeFiles/loom_obj.dir/src"
	[ -d "$objdir" ] || { echo "check-layers: no objects under $objdir (build first)"; return 1; }
	local defs uses
	defs=$(mktemp); uses=$(mktemp)
	local obj src
	while IFS= read -r obj; do
		src="src/${obj#"$objdir"/}"; src="${src%.o}"
		nm --defined-only "$obj" | awk -v s="$src" '$2 ~ /^[TDBR]$/ {print $3, s}' >>"$defs"
		nm --undefined-only "$obj" | awk -v s="$src" '{print $2, s}' >>"$uses"
	done < <(find "$objdir" -name '*.o' | sort)
	# the CLI's objects may call only exported functions: checked by the
	# linker already (everything else is hidden in libloom.so)
	local sym user definer from to why
	while read -r sym user definer; do
		[ "$user" = "$definer" ] && continue
		from=$(place_of "$user"); to=$(place_of "$definer")
		# shellcheck disable=SC2086
		why=$(allowed $from $to)
		if [ -n "$why" ]; then
			echo "layer violation: $user calls $sym of $definer ($why)"
			status=1
		fi
	done < <(join <(sort -k1,1 "$uses") <(sort -k1,1 "$defs") | awk '{print $1, $2, $3}')
	rm -f "$defs" "$uses"
	return $status
}

if [ "${1:-}" = "--symbols" ]; then
	check_symbols "${2:?usage: check-layers.sh --symbols BUILD_DIR}"
	echo "check-layers (symbols): ok"
else
	check_includes
	echo "check-layers: ok"
fi
