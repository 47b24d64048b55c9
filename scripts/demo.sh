#!/usr/bin/env bash
# The main job: starts a local kvserver on the tcp transport, drives it end to end with kvctl
# (put, get, delete, stats) and a short closed-loop benchmark, then stops it with SIGTERM; then the same
# against a node on a device without remote atomics (the node-assisted write path).
# Usage: scripts/demo.sh [--memory SIZE] [--ops N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
memory=256m ops=50000
while [ $# -gt 0 ]; do
  case "$1" in
    --memory) memory=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    *) echo "usage: scripts/demo.sh [--memory SIZE] [--ops N]" >&2; exit 2 ;;
  esac
done
. "$root/scripts/java25.sh"
echo "== building"
"$root/scripts/mvn" -B -q package -DskipTests
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 7400)
log=$(mktemp /tmp/rdmakv-demo.XXXXXX.log)
echo "== starting kvserver on 127.0.0.1:$port (transport tcp, memory $memory); log: $log"
"$root/bin/kvserver" --transport tcp --memory "$memory" --listen "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "listening on" "$log" && break; kill -0 $server 2>/dev/null || break; sleep 0.1; done
grep "listening on" "$log" || { echo "kvserver did not start:"; cat "$log"; exit 1; }
kvctl() { echo "\$ kvctl $*"; "$root/bin/kvctl" --hosts "127.0.0.1:$port" --transport tcp "$@"; }
echo "== kvctl"
kvctl put greeting "hello, one-sided world"
kvctl get greeting
kvctl delete greeting
if kvctl get greeting; then echo "expected 'not found'"; exit 1; else echo "(exit $? = not found, as expected)"; fi
kvctl stats
echo "== closed-loop benchmark: 1 KiB values, 50% GET / 50% PUT"
"$root/bench/store.sh" --hosts "127.0.0.1:$port" --transport tcp --records 10000 --ops "$ops" --threads 1
kvctl stats
echo "== stopping kvserver (SIGTERM)"
trap - EXIT
kill -TERM $server
wait $server; rc=$?
tail -n 2 "$log"
echo "kvserver exited with $rc"
[ $rc -eq 0 ]
# The same benchmark against a node whose device has no remote atomics (the tcp provider playing one): clients
# WRITE blocks and READ one-sided, and send each index CAS to the node (the node-assisted write path).
port2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 7401)
log2=$(mktemp /tmp/rdmakv-demo-na.XXXXXX.log)
echo "== starting kvserver on 127.0.0.1:$port2 on a device without remote atomics (-Drdmakv.tcp.atomics=NONE); log: $log2"
RDMAKV_JAVA_OPTS="${RDMAKV_JAVA_OPTS:-} -Drdmakv.tcp.atomics=NONE" \
  "$root/bin/kvserver" --transport tcp --memory "$memory" --listen "127.0.0.1:$port2" >"$log2" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "listening on" "$log2" && break; kill -0 $server 2>/dev/null || break; sleep 0.1; done
grep "listening on" "$log2" || { echo "kvserver did not start:"; cat "$log2"; exit 1; }
# the self-check's lines follow "listening on": wait for the write path's
for _ in $(seq 1 100); do grep -q "write path" "$log2" && break; sleep 0.1; done
grep "write path" "$log2"
port=$port2
kvctl put greeting "hello, node-assisted world"
kvctl get greeting
kvctl stats
echo "== closed-loop benchmark, node-assisted write path: 1 KiB values, 50% GET / 50% PUT"
"$root/bench/store.sh" --hosts "127.0.0.1:$port2" --transport tcp --records 10000 --ops "$ops" --threads 1
echo "== stopping kvserver (SIGTERM)"
trap - EXIT
kill -TERM $server
wait $server; rc=$?
tail -n 2 "$log2"
echo "kvserver exited with $rc"
[ $rc -eq 0 ]
