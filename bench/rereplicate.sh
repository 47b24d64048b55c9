#!/usr/bin/env bash
# Failover and re-replication times of a local replicated cluster (a command, never a test): starts
# deploy/local-cluster.sh start 3 --replicas 2 (one group of two and a spare, a local ZooKeeper), loads
# RECORDS records of VALUE bytes with bench/store.sh, then SIGKILLs the group's primary and prints, as
# key=value lines: how long until the map promoted the backup (failure detection + failover: about the
# ZooKeeper session timeout), and how long until the spare had copied the new primary and was in sync
# (re-replication of the data area in use), with the data moved. Threads are not pinned.
# Usage: bench/rereplicate.sh [--records N] [--value-size B] [--memory SIZE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl server,kvctl,bench -am package -DskipTests >&2
records=100000 value=1000 memory=512m base=7600 zk=2191
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records=${2:?}; shift 2 ;; --value-size) value=${2:?}; shift 2 ;; --memory) memory=${2:?}; shift 2 ;;
    *) echo "usage: bench/rereplicate.sh [--records N] [--value-size B] [--memory SIZE]" >&2; exit 2 ;;
  esac
done
dir=$(mktemp -d /tmp/rdmakv-rereplicate.XXXXXX)
hosts="127.0.0.1:$base,127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"
kvctl() { "$root/bin/kvctl" --hosts "$hosts" --transport tcp "$@"; }
cleanup() { "$root/deploy/local-cluster.sh" stop --dir "$dir" >/dev/null 2>&1 || true; }
trap cleanup EXIT
now_ms() { date +%s%3N; }
"$root/deploy/local-cluster.sh" start 3 --replicas 2 --memory "$memory" --base-port "$base" --zk-port "$zk" \
  --dir "$dir" >&2
until kvctl cluster 2>/dev/null | grep -q '^group 0 .* in sync'; do sleep 0.2; done
kvctl cluster >&2
"$root/bench/store.sh" --hosts "$hosts" --transport tcp --records "$records" --ops 1 --value-size "$value" \
  --threads 1 >"$dir/load.out"
primary=$(kvctl cluster | awk '/primary of group 0/ { print $2 }')
used_before=$(kvctl stats 2>/dev/null | grep "^node $primary " | sed 's/^node [0-9]* [^:]*: //')
echo "records=$records"
echo "value_size=$value"
echo "primary_killed=node $primary ($used_before)"
pid=$(cat "$dir/node-$primary.pid")
t0=$(now_ms)
kill -KILL "$pid"
until kvctl cluster 2>/dev/null | grep -q "^node [0-9]* .* primary of group 0" &&
  ! kvctl cluster 2>/dev/null | grep -q "^node $primary "; do sleep 0.05; done
t1=$(now_ms)
echo "failover_ms=$((t1 - t0))"
until kvctl cluster 2>/dev/null | grep -q '^group 0 .* in sync'; do sleep 0.1; done
t2=$(now_ms)
echo "rereplicated_ms=$((t2 - t1))"
kvctl cluster
grep -hi 'copy\|pass\|sealed\|final' "$dir"/node-*.log | tail -8 || true
