# tests/tools/azure/azurite.sh - Azurite for one script test (sourced after
# tests/tools/lib.sh).
#
#   azurite_start [--https] [--oauth]
#       Starts the Azure Blob emulator on 127.0.0.1 with a port the kernel
#       picks (several tests and engineers run their own at once), data in
#       memory, and stops it when the test exits, however it exits (a
#       watchdog stops it even if the test shell is killed). Sets
#       AZURITE_URL (http(s)://127.0.0.1:PORT) and AZURITE_ENDPOINT (the
#       account URL), and exports what loom reads to reach it:
#       AZURE_STORAGE_USE_EMULATOR=true and AZURE_STORAGE_ENDPOINT. With
#       --https it serves TLS with a certificate made for the test
#       (AZURITE_CERT, trusted by loom through LOOM_CA_BUNDLE and by the
#       client through NODE_EXTRA_CA_CERTS); --oauth accepts bearer tokens.
#   azblob COMMAND ...
#       The independent client (tests/tools/azure/azblob.cjs, Microsoft's
#       SDK) against that Azurite.
#
# Azurite and the SDK come from scripts/install-azurite.sh (scripts/test.sh
# runs it and exports LOOM_AZURE_NODE_PATH; a test run by hand installs them
# into build/ the first time).

if [ -z "${LOOM_AZURE_NODE_PATH:-}" ]; then
  bash "$LOOM_SOURCE_DIR/scripts/install-azurite.sh" "$LOOM_SOURCE_DIR/build" >&2
  LOOM_AZURE_NODE_PATH="$LOOM_SOURCE_DIR/build/azure-deps/node_modules"
fi
AZ_TOOLS="$TOOLS/azure"

azblob() { NODE_PATH="$LOOM_AZURE_NODE_PATH" AZURITE_URL="$AZURITE_URL" node "$AZ_TOOLS/azblob.cjs" "$@"; }

# Stop Azurite and its watchdog; with LOOM_AZURITE_CPU_LOG set, append
# the CPU seconds Azurite used to that file first (measuring what a test
# costs: the server is not a child the shell waits for, so `time` misses it).
azurite_stop() {
  if [ -n "${LOOM_AZURITE_CPU_LOG:-}" ] && [ -r "/proc/$1/stat" ]; then
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat" >> "$LOOM_AZURITE_CPU_LOG"
  fi
  kill -9 "$1" "$2" 2> /dev/null
}

azurite_start() {
  local dir args=() scheme=http line="" i pid
  dir=$(mktemp -d "$TEST_TMP/azurite.XXXX")
  while [ $# -gt 0 ]; do
    case "$1" in
      --https)
        openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
          -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/key.pem" -out "$dir/cert.pem" 2> /dev/null
        args+=(--cert "$dir/cert.pem" --key "$dir/key.pem")
        scheme=https
        AZURITE_CERT="$dir/cert.pem"
        export LOOM_CA_BUNDLE="$AZURITE_CERT" NODE_EXTRA_CA_CERTS="$AZURITE_CERT"
        ;;
      --oauth) args+=(--oauth basic) ;;
    esac
    shift
  done
  (cd "$dir" && exec node "$LOOM_AZURE_NODE_PATH/azurite/dist/src/blob/main.js" --blobHost 127.0.0.1 \
    --blobPort 0 --inMemoryPersistence --skipApiVersionCheck --disableTelemetry --silent \
    "${args[@]+"${args[@]}"}") > "$dir/log" 2>&1 &
  pid=$!
  disown "$pid"
  # the watchdog stops Azurite if this shell dies without running its traps
  ( while kill -0 $$ 2> /dev/null && kill -0 "$pid" 2> /dev/null; do sleep 1; done
    kill -9 "$pid" 2> /dev/null ) > /dev/null 2>&1 &
  disown $!
  on_exit "azurite_stop $pid $!"
  for i in $(seq 1 300); do
    line=$(grep -o "listens on $scheme://127\.0\.0\.1:[0-9]*" "$dir/log" || true)
    [ -n "$line" ] && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  if [ -z "$line" ]; then
    echo "azurite did not start:" >&2
    cat "$dir/log" >&2
    return 1
  fi
  AZURITE_URL="${line#listens on }"
  AZURITE_ENDPOINT="$AZURITE_URL/devstoreaccount1"
  export AZURE_STORAGE_USE_EMULATOR=true AZURE_STORAGE_ENDPOINT="$AZURITE_ENDPOINT"
  echo "azurite: $AZURITE_URL (pid $pid, ${i}00 ms)" >&2
}
