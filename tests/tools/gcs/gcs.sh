# tests/tools/gcs/gcs.sh - a GCS server for one script test (sourced after
# tests/tools/lib.sh).
#
#   gcs_start
#       Starts firebase-tools' Storage emulator behind
#       ../shared/tools/object-store/gcs/gcs-front.cjs on 127.0.0.1 with a
#       free port (several tests and engineers run their own at once), data
#       in memory, and stops it when the test exits, however it exits (a
#       watchdog stops it even if the test shell is killed). Sets GCS_URL
#       (http://127.0.0.1:PORT) and exports STORAGE_EMULATOR_HOST, which
#       loom and the client read. Any bucket name works; no auth is checked.
#       The emulator alone ignores ifGenerationMatch: the 412 of a
#       create-only upload whose object exists comes from the front (ours,
#       in shared/), which checks it atomically per key - not from Google's
#       code. So does the resumable upload in several chunks.
#   gcsc COMMAND ...
#       The independent client (tests/tools/gcs/gcsclient.cjs, Google's
#       @google-cloud/storage) against that server.
#
# Both come from scripts/install-gcs.sh (scripts/test.sh runs it and
# exports LOOM_GCS_DEPS; a test run by hand installs them into build/ the
# first time).

if [ -z "${LOOM_GCS_DEPS:-}" ]; then
  bash "$LOOM_SOURCE_DIR/scripts/install-gcs.sh" "$LOOM_SOURCE_DIR/build" >&2
  LOOM_GCS_DEPS="$LOOM_SOURCE_DIR/build/gcs-deps"
fi
GCS_TOOLS="$TOOLS/gcs"

gcsc() { NODE_PATH="$LOOM_GCS_DEPS/node_modules" STORAGE_EMULATOR_HOST="$GCS_URL" node "$GCS_TOOLS/gcsclient.cjs" "$@"; }

# A port nobody listens on now (the kernel's pick, released for the server).
gcs_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Stop the server and its watchdog; with LOOM_GCS_CPU_LOG set, append the
# CPU seconds the server used to that file first (bench: the server is not
# a child the shell waits for, so `time` misses it).
gcs_stop() {
  if [ -n "${LOOM_GCS_CPU_LOG:-}" ] && [ -r "/proc/$1/stat" ]; then
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat" >> "$LOOM_GCS_CPU_LOG"
  fi
  kill -9 "$1" "$2" 2> /dev/null
}

gcs_start() {
  local dir port pid i try
  dir=$(mktemp -d "$TEST_TMP/gcs.XXXX")
  for try in 1 2 3; do
    port=$(gcs_free_port)
    (cd "$dir" && GCS_EMU_PORT=$port exec node "$LOOM_GCS_DEPS/gcs-front.cjs") > "$dir/log" 2>&1 &
    pid=$!
    disown "$pid"
    for i in $(seq 1 150); do
      curl -sf -o /dev/null "http://127.0.0.1:$port/b" && break
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.1
    done
    if curl -sf -o /dev/null "http://127.0.0.1:$port/b" && kill -0 "$pid" 2> /dev/null; then
      break
    fi
    kill -9 "$pid" 2> /dev/null
    pid=""
    echo "gcs server did not start on port $port (try $try):" >&2
    cat "$dir/log" >&2
  done
  [ -n "$pid" ] || return 1
  # the watchdog stops the server if this shell dies without running its traps
  ( while kill -0 $$ 2> /dev/null && kill -0 "$pid" 2> /dev/null; do sleep 1; done
    kill -9 "$pid" 2> /dev/null ) > /dev/null 2>&1 &
  disown $!
  on_exit "gcs_stop $pid $!"
  GCS_URL="http://127.0.0.1:$port"
  GCS_PID=$pid
  export STORAGE_EMULATOR_HOST="$GCS_URL"
  echo "gcs: $GCS_URL (pid $pid, ${i}00 ms)" >&2
}
