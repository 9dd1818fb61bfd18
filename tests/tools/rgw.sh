#!/usr/bin/env bash
# A throwaway single-node Ceph RGW (S3) on 127.0.0.1 for tests, benches
# and anyone who needs a real S3 server here (Debian 12: ceph-mon, ceph-osd,
# radosgw; scripts/install-s3-test-deps.sh installs them).
#
#   tests/tools/rgw.sh start DIR   start a cluster in DIR (created; must not
#                                  hold a running one); prints the endpoint
#   tests/tools/rgw.sh stop DIR    stop it and remove DIR
#   tests/tools/rgw.sh user DIR UID ACCESS SECRET
#                                  add an S3 user (another identity, for
#                                  permission tests)
#   tests/tools/rgw.sh admin DIR ARGS...
#                                  radosgw-admin against the cluster
#
# Every port is chosen free at run time, so any number of clusters (other
# engineers', concurrent test jobs') run side by side: the monitor's and the
# gateway's ports are free ones the kernel hands out (retried with fresh ones
# if a daemon loses the race to bind), and the OSD binds inside a window of
# free ports picked the same way (ms_bind_port_min/max). One monitor, one
# in-memory OSD (memstore: data lives in RAM; RGW_MEMSTORE_BYTES, default
# 2 GiB, size it for your data), no auth between daemons, S3 user
# LOOMACCESSKEY / LOOMSECRETKEY123 (RGW_ACCESS_KEY / RGW_SECRET_KEY to
# change). Ready in ~10-20 s, ~120 MB RSS.
#
# DIR/env is a file to source: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ALLOW_HTTP and RGW_DIR, RGW_PORT,
# RGW_MON_PORT, RGW_OSD_PORTS. A watchdog stops the cluster after
# RGW_MAX_LIFETIME seconds (default 7200) should nobody call stop.
set -euo pipefail
self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

die() { echo "rgw.sh: $*" >&2; exit 1; }

# free_port: a port nobody listens on right now (the kernel's choice).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# free_window N: the first port of N consecutive free ports.
free_window() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 32000 - n)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket()
            s.bind(("127.0.0.1", p))
            socks.append(s)
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    sys.exit(0)
sys.exit(1)
PY
}

pids() { cat "$1"/run/*.pid 2>/dev/null || true; }

stop_cluster() {
  local d="$1" p
  [ -d "$d" ] || return 0
  if [ -f "$d/watchdog.pid" ]; then
    kill "$(cat "$d/watchdog.pid")" 2>/dev/null || true
  fi
  for p in $(pids "$d"); do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 50); do
    local alive=0
    for p in $(pids "$d"); do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  for p in $(pids "$d"); do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$d"
}

write_conf() {
  local d="$1" fsid="$2" mon_port="$3" rgw_port="$4" osd_base="$5"
  cat > "$d/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
ms bind msgr1 = false
ms bind port min = $osd_base
ms bind port max = $((osd_base + 15))
auth cluster required = none
auth service required = none
auth client required = none
run dir = $d/run
admin socket = $d/run/\$cluster-\$name.asok
log file = $d/log/\$name.log
pid file = $d/run/\$name.pid
keyring = $d/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = ${RGW_MEMSTORE_BYTES:-2147483648}
osd data = $d/osd\$id
mon data = $d/mon
[client.rgw]
ms mon client mode = crc
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $d/rgw
rgw enable usage log = false
rgw dns name = localhost
CONF
}

# wait_for CMD...: up to ~30 s.
wait_for() {
  local i
  for i in $(seq 1 150); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  return 1
}

start_mon() {
  local d="$1" fsid="$2" try mon_port rgw_port osd_base
  for try in 1 2 3 4 5; do
    mon_port=$(free_port); rgw_port=$(free_port); osd_base=$(free_window 16) || die "no free port window"
    write_conf "$d" "$fsid" "$mon_port" "$rgw_port" "$osd_base"
    rm -rf "$d/mon" && mkdir -p "$d/mon"
    monmaptool --create --addv a "[v2:127.0.0.1:$mon_port]" --fsid "$fsid" "$d/monmap" >/dev/null
    ceph-mon -c "$d/ceph.conf" --mkfs -i a --monmap "$d/monmap" --keyring "$d/keyring" \
      >/dev/null 2>&1 || die "ceph-mon --mkfs failed (see $d/log/mon.a.log)"
    if ceph-mon -c "$d/ceph.conf" -i a >/dev/null 2>&1 &&
       wait_for timeout 5 ceph -c "$d/ceph.conf" mon stat; then
      echo "$mon_port $rgw_port $osd_base"
      return 0
    fi
    for p in $(pids "$d"); do kill "$p" 2>/dev/null || true; done
    sleep 0.5
  done
  die "the monitor did not come up (see $d/log/mon.a.log)"
}

start_cluster() {
  local d="$1" fsid ports mon_port rgw_port osd_base id uuid try
  command -v ceph-mon >/dev/null && command -v radosgw >/dev/null ||
    die "ceph-mon / radosgw missing: run scripts/install-s3-test-deps.sh"
  [ ! -e "$d/run/mon.a.pid" ] || die "$d already holds a cluster"
  mkdir -p "$d"/{mon,osd0,rgw,run,log}
  fsid=$(cat /proc/sys/kernel/random/uuid)
  ceph-authtool --create-keyring "$d/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$d/rgw/keyring" --gen-key -n client.rgw >/dev/null
  ports=$(start_mon "$d" "$fsid") || exit 1
  read -r mon_port rgw_port osd_base <<< "$ports"
  # a watchdog, so a cluster whose owner died does not live forever
  ( trap - EXIT; sleep "${RGW_MAX_LIFETIME:-7200}"; "$self" stop "$d" ) < /dev/null > /dev/null 2>&1 &
  echo $! > "$d/watchdog.pid"
  local C=(-c "$d/ceph.conf")
  uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$(timeout 60 ceph "${C[@]}" osd new "$uuid") || die "ceph osd new failed"
  ceph-osd "${C[@]}" -i "$id" --mkfs --osd-uuid "$uuid" >/dev/null 2>&1 ||
    die "ceph-osd --mkfs failed (see $d/log/osd.$id.log)"
  ceph-osd "${C[@]}" -i "$id" >/dev/null 2>&1 || die "ceph-osd failed to start (see $d/log/osd.$id.log)"
  for try in 1 2 3 4 5; do
    radosgw "${C[@]}" -n client.rgw --client-mount-timeout=60 >/dev/null 2>&1 || true
    if wait_for curl -sf -o /dev/null "http://127.0.0.1:$rgw_port/"; then
      break
    fi
    # lost the port (or slow to start): a fresh port, a fresh gateway
    [ -f "$d/run/client.rgw.pid" ] && kill "$(cat "$d/run/client.rgw.pid")" 2>/dev/null || true
    [ "$try" = 5 ] && die "the gateway did not answer (see $d/log/client.rgw.log)"
    rgw_port=$(free_port)
    sed -i "s|^rgw frontends = .*|rgw frontends = beast endpoint=127.0.0.1:$rgw_port|" "$d/ceph.conf"
  done
  timeout 120 radosgw-admin "${C[@]}" -n client.rgw --admin-socket "" user create --uid=loom --display-name=loom \
    --access-key="${RGW_ACCESS_KEY:-LOOMACCESSKEY}" --secret-key="${RGW_SECRET_KEY:-LOOMSECRETKEY123}" \
    >/dev/null || die "radosgw-admin user create failed"
  cat > "$d/env" <<ENV
export AWS_ENDPOINT_URL=http://127.0.0.1:$rgw_port
export AWS_ACCESS_KEY_ID=${RGW_ACCESS_KEY:-LOOMACCESSKEY}
export AWS_SECRET_ACCESS_KEY=${RGW_SECRET_KEY:-LOOMSECRETKEY123}
export AWS_REGION=us-east-1
export AWS_ALLOW_HTTP=true
export RGW_DIR=$d
export RGW_PORT=$rgw_port
export RGW_MON_PORT=$mon_port
export RGW_OSD_PORTS=$osd_base-$((osd_base + 15))
ENV
  echo "rgw up on http://127.0.0.1:$rgw_port (monitor $mon_port, OSD ports $osd_base-$((osd_base + 15))); source $d/env"
}

cmd="${1:-}"
case "$cmd" in
  start)
    d="${2:?usage: rgw.sh start DIR}"
    mkdir -p "$d"; d=$(cd "$d" && pwd)
    started=0
    trap '[ "$started" = 1 ] || stop_cluster "$d"' EXIT
    start_cluster "$d"
    started=1 ;;
  stop)
    stop_cluster "${2:?usage: rgw.sh stop DIR}" ;;
  user)
    d="${2:?dir}"
    timeout 120 radosgw-admin -c "$d/ceph.conf" -n client.rgw --admin-socket "" user create --uid="${3:?uid}" \
      --display-name="$3" --access-key="${4:?access key}" --secret-key="${5:?secret key}" >/dev/null ;;
  admin)
    d="${2:?dir}"; shift 2
    timeout 120 radosgw-admin -c "$d/ceph.conf" -n client.rgw --admin-socket "" "$@" ;;
  *)
    sed -n '2,27p' "$0" >&2; exit 2 ;;
esac
