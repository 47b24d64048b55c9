#!/usr/bin/env bash
# Round trips and throughput per replication factor, side by side in one run (a command, never a test):
# for each R in the list, starts deploy/local-cluster.sh start 3 --replicas R (a local ZooKeeper; R = 1:
# three groups of one, R = 2: a group of two and a spare, R = 3: one group of three), waits until every
# group is in sync, runs bench/store.sh against it and keeps its key=value lines (round trips per
# operation type from the client's counters, throughput, latency percentiles), then stops it. Prints one
# table. Threads are not pinned.
# Usage: bench/replicas.sh [--replicas 1,2,3] [--records N] [--ops N] [--threads N] [--value-size B]
#                         [--read-percent P]  (store.sh's default mix without it; 100: GETs only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl server,kvctl,bench -am package -DskipTests >&2
list=1,2,3 records=20000 ops=200000 threads=1 value=100 base=7700 zk=2192 mix=()
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) list=${2:?} ;; --records) records=${2:?} ;; --ops) ops=${2:?} ;; --threads) threads=${2:?} ;;
    --value-size) value=${2:?} ;; --read-percent) mix=(--read-percent "${2:?}") ;;
    *) echo "usage: bench/replicas.sh [--replicas 1,2,3] [--records N] [--ops N] [--threads N] [--value-size B] [--read-percent P]" >&2
       exit 2 ;;
  esac
  shift 2
done
work=$(mktemp -d /tmp/rdmakv-replicas.XXXXXX)
hosts="127.0.0.1:$base,127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"
dir=
cleanup() { [ -z "$dir" ] || "$root/deploy/local-cluster.sh" stop --dir "$dir" >/dev/null 2>&1 || true; }
trap cleanup EXIT
IFS=, read -r -a rs <<<"$list"
for r in "${rs[@]}"; do
  dir="$work/r$r"
  "$root/deploy/local-cluster.sh" start 3 --replicas "$r" --memory 256m --base-port "$base" --zk-port "$zk" \
    --dir "$dir" >&2
  for _ in $(seq 1 600); do
    state=$("$root/bin/kvctl" --hosts "$hosts" --transport tcp cluster 2>/dev/null) || true
    if grep -q '^group ' <<<"$state" && ! grep '^group ' <<<"$state" | grep -qv ' in sync: '; then break; fi
    sleep 0.2
  done
  echo "== R=$r" >&2; echo "$state" >&2
  "$root/bench/store.sh" --hosts "$hosts" --transport tcp --records "$records" --ops "$ops" --threads "$threads" \
    --value-size "$value" "${mix[@]}" >"$work/r$r.out"
  "$root/deploy/local-cluster.sh" stop --dir "$dir" >&2
  dir=
done
keys=$(grep -h '^rtt_per\|^ops_per_sec\|^load_ops_per_sec\|^get_p50\|^get_p99\|^put_p50\|^put_p99\|^caller_cpu\|^alloc_bytes' "$work"/r*.out | cut -d= -f1 | awk '!seen[$0]++')
printf '%-28s' metric; for r in "${rs[@]}"; do printf '%12s' "R=$r"; done; echo
for k in $keys; do
  printf '%-28s' "$k"
  for r in "${rs[@]}"; do printf '%12s' "$(grep "^$k=" "$work/r$r.out" | head -1 | cut -d= -f2)"; done
  echo
done
echo "(raw output in $work; threads not pinned)"
