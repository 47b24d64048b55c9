#!/usr/bin/env bash
# YCSB 0.17.0 against a local rdmakv cluster and, with --redis, against a local redis-server in the same
# run: starts NODES kvservers (and one redis-server) on loopback, loads RECORDS records into each store,
# runs each workload at each thread count in the order given, each run against rdmakv then Redis
# (interleaved, so both see the same machine state), stops the servers with SIGTERM and prints one table
# (throughput, rdmakv/Redis ratio and latency percentiles without each run's first --warmup seconds,
# round trips per operation and per operation type, client and server CPU time per operation); writes it
# as CSV (--csv FILE, else results.csv in the work folder) with a chart of it (PNG) next to it. Exits non-zero when any operation failed (NOT_FOUND
# included), YCSB reported no results, or a server did not stop cleanly. See docs/benchmarks.md, "YCSB".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: bench/ycsb.sh [-r RECORDS] [-o OPS] [-t THREADS,...] [-w WORKLOADS,...] [-n NODES] [--transport T] [--memory SIZE] [--csv FILE] [--warmup SECONDS] [--pin NODE_CPUS:CLIENT_CPUS] [--replicas R] [--redis]"
die() { echo "bench/ycsb.sh: $*" >&2; exit 2; }
records=100000 ops=200000 threads=1,4 workloads=A,B,C,D,F nodes=1 transport=tcp memory= csv= pin= redis= warmup=5
replicas=
while [ $# -gt 0 ]; do
  case "$1" in --redis) redis=1; shift; continue ;; esac
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  case "$1" in
    -r) records=$2 ;; -o) ops=$2 ;; -t) threads=$2 ;; -w) workloads=$2 ;; -n) nodes=$2 ;;
    --transport) transport=$2 ;; --memory) memory=$2 ;; --csv) csv=$2 ;; --pin) pin=$2 ;; --warmup) warmup=$2 ;;
    --replicas) replicas=$2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, not '$2'"; }
positive -r "$records"; positive -o "$ops"; positive -n "$nodes"
if [ -n "$replicas" ]; then
  positive --replicas "$replicas"
  [ "$replicas" -le 5 ] && [ "$replicas" -le "$nodes" ] ||
    die "--replicas must be 1..5 and at most the node count (-n $nodes), not '$replicas'"
fi
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup must be a whole number of seconds (0 for none), not '$warmup'"
IFS=, read -r -a thread_list <<<"$threads"
IFS=, read -r -a workload_list <<<"$workloads"
[ ${#thread_list[@]} -gt 0 ] && [ ${#workload_list[@]} -gt 0 ] || { echo "$usage" >&2; exit 2; }
for t in "${thread_list[@]}"; do positive -t "$t"; done
for w in "${workload_list[@]}"; do
  case "$w" in [AaBbCcDdFf]) ;; [Ee]) die "workload E scans; rdmakv (a hash store) has no scan" ;;
    *) die "-w takes A, B, C, D or F, not '$w'" ;; esac
done
# Memory per node: 4 KiB per loaded record (a record's block is about 1.2 KiB; the rest is headroom for
# updates whose superseded blocks wait out the grace period before reuse), plus 128 MiB.
if [ -z "$memory" ]; then
  # replicated: each node of a group holds the whole group's share (groups of R; the rest are spares)
  holders=$nodes
  [ -z "$replicas" ] || holders=$(( nodes / replicas ))
  mib=$(( records * 4 / 1024 / holders + 128 ))
  memory="$(( mib < 256 ? 256 : mib ))m"
fi
# Where threads run: --pin NODE_CPUS:CLIENT_CPUS (taskset CPU lists) pins the servers (kvservers and
# redis-server) and the YCSB client; without it the scheduler places them on any CPU this shell may use.
allowed() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status"; }
node_pin=() client_pin=() node_cpus=$(allowed self) client_cpus=$(allowed self)
if [ -n "$pin" ]; then
  [[ $pin =~ ^([0-9][0-9,-]*):([0-9][0-9,-]*)$ ]] ||
    die "--pin takes NODE_CPUS:CLIENT_CPUS, two taskset CPU lists (e.g. 1:0), not '$pin'"
  node_cpus=${BASH_REMATCH[1]} client_cpus=${BASH_REMATCH[2]}
  for l in "$node_cpus" "$client_cpus"; do
    taskset -c "$l" true 2>/dev/null || die "--pin: cannot run on CPUs '$l' (this shell may use CPUs $(allowed self))"
  done
  node_pin=(taskset -c "$node_cpus") client_pin=(taskset -c "$client_cpus")
fi
if [ -n "$redis" ] && ! command -v redis-server >/dev/null; then
  die "--redis needs redis-server on the PATH: scripts/setup.sh installs it (Debian: apt-get install redis-server)"
fi

. "$root/scripts/java25.sh"
echo "== building (ycsb-binding, server, kvctl, bench)" >&2
"$root/scripts/mvn" -B -q -pl ycsb-binding,server,kvctl,bench -am package -DskipTests >&2
cp_rdmakv="$root/ycsb-binding/target/classes:$(cat "$root/ycsb-binding/target/classpath.txt")"
cp_bench="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
work=$(mktemp -d /tmp/rdmakv-ycsb.XXXXXX)
echo "== logs and YCSB output in $work" >&2
csv=${csv:-$work/results.csv}
mkdir -p "$(dirname "$csv")" || die "--csv: cannot create the folder of '$csv'"
png="${csv%.csv}.png"

# ---- the servers ---------------------------------------------------------------------------------
ports=$(python3 -c 'import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$((nodes + 2))")
read -r -a port_list <<<"$ports"
redis_port=${port_list[$nodes]}
zk_port=${port_list[$((nodes + 1))]}
unset "port_list[$nodes]" "port_list[$((nodes + 1))]"
node_args=() target=() zk_pid=()
if [ -n "$replicas" ]; then
  # the map lives in a local ZooKeeper (the real server, bin/kvzk); the nodes join it and form groups of R
  mkdir -p "$work/zookeeper"
  printf 'tickTime=500\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPortAddress=127.0.0.1\nclientPort=%d\nadmin.enableServer=false\n4lw.commands.whitelist=srvr,ruok\n' \
    "$work/zookeeper" "$zk_port" >"$work/zookeeper.cfg"
  "$root/bin/kvzk" "$work/zookeeper.cfg" >"$work/zookeeper.log" 2>&1 &
  zk_pid=($!)
  for _ in $(seq 1 300); do
    reply=$( (exec 3<>"/dev/tcp/127.0.0.1/$zk_port" && printf srvr >&3 && timeout 2 cat <&3) 2>/dev/null) || true
    [[ $reply == *Mode:* ]] && break
    kill -0 "${zk_pid[0]}" 2>/dev/null || { echo "ZooKeeper did not start:" >&2; cat "$work/zookeeper.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "== ZooKeeper on 127.0.0.1:$zk_port; $nodes nodes join it with $replicas replicas per group" >&2
  node_args=(--zookeeper "127.0.0.1:$zk_port" --cluster-name ycsb --replicas "$replicas")
  hosts=$(for p in "${port_list[@]}"; do printf '127.0.0.1:%s,' "$p"; done)
  target=(-p "rdmakv.hosts=${hosts%,}")
elif [ "$nodes" -eq 1 ]; then
  target=(-p "rdmakv.hosts=127.0.0.1:${port_list[0]}")
else
  map="$work/cluster.json"
  { printf '{"epoch": 1, "nodes": ['
    for i in "${!port_list[@]}"; do
      [ "$i" -gt 0 ] && printf ', '
      printf '{"id": %d, "host": "127.0.0.1", "port": %d}' "$i" "${port_list[$i]}"
    done
    printf ']}\n'; } >"$map"
  node_args=(--cluster "$map")
  target=(-p "rdmakv.cluster=$map")
fi
pids=() redis_pid=()
stop_all() { for p in "${pids[@]}" "${redis_pid[@]}" "${zk_pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; }
trap stop_all EXIT
await() { # PID LOG PATTERN NAME
  for _ in $(seq 1 300); do
    grep -q "$3" "$2" && return 0
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  echo "$4 did not start:" >&2; cat "$2" >&2; exit 1
}
for i in "${!port_list[@]}"; do
  # one YCSB thread loads a whole node's share through one session: let a session hold the whole node
  # (the default quota, a quarter of the data area, is for shared nodes)
  "${node_pin[@]}" "$root/bin/kvserver" --transport "$transport" --memory "$memory" --session-quota "$memory" \
    --listen "127.0.0.1:${port_list[$i]}" --node-id "$i" "${node_args[@]}" >"$work/node$i.log" 2>&1 &
  pids+=($!)
done
echo "== starting $nodes node(s) on ports ${port_list[*]} (transport $transport, memory $memory each)" >&2
for i in "${!pids[@]}"; do await "${pids[$i]}" "$work/node$i.log" "listening on" "kvserver node $i"; done
if [ -n "$replicas" ]; then
  # every group in sync (no copying, none missing) before anything is loaded
  for _ in $(seq 1 600); do
    state=$("$root/bin/kvctl" --hosts "${target[1]#rdmakv.hosts=}" --transport "$transport" cluster 2>/dev/null) || true
    if grep -q '^group ' <<<"$state" && ! grep '^group ' <<<"$state" | grep -qv ' in sync: '; then break; fi
    sleep 0.2
  done
  grep -q '^group ' <<<"$state" || { echo "the replicated cluster did not form:" >&2; echo "$state" >&2; exit 1; }
  echo "== cluster map:" >&2; echo "$state" >&2
fi
[ -z "$pin" ] || node_cpus=$(allowed "${pids[0]}")  # as the kernel reports it
stores=(rdmakv)
if [ -n "$redis" ]; then
  # persistence off, loopback only: a cache-like Redis, as rdmakv keeps nothing on disk either
  "${node_pin[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$work" --logfile '' >"$work/redis.log" 2>&1 &
  redis_pid=($!)
  echo "== starting redis-server on port $redis_port (--save '' --appendonly no)" >&2
  await "${redis_pid[0]}" "$work/redis.log" "Ready to accept connections" "redis-server"
  stores+=(redis)
fi

# ---- YCSB ----------------------------------------------------------------------------------------
problems="$work/problems" rows="$work/rows.tsv" clk_tck=$(getconf CLK_TCK)
: >"$problems"; : >"$rows"
run() { # STORE PHASE(-load|-t) WORKLOAD THREADS LABEL EXPECTED_OPS OUT
  local db cp servers rc=0
  if [ "$1" = rdmakv ]; then
    db=io.rdmakv.ycsb.RdmaKvClient cp=$cp_rdmakv servers=("${pids[@]}")
    set -- "$@" -p rdmakv.transport="$transport" "${target[@]}"
  else
    db=io.rdmakv.bench.ycsb.RedisYcsbClient cp=$cp_bench servers=("${redis_pid[@]}")
    set -- "$@" -p redis.port="$redis_port"
  fi
  local store=$1 phase=$2 workload=$3 threads=$4 label=$5 expected=$6 out=$7
  shift 7
  echo "== $store: $label, $threads threads, $expected operations" >&2
  "${client_pin[@]}" "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${RDMAKV_YCSB_JAVA_OPTS:-} \
    -Drdmakv.bench.statsfile="$out.stats" -Drdmakv.bench.warmup.ms=$(( warmup * 1000 )) \
    -Drdmakv.bench.serverpids="$(IFS=,; echo "${servers[*]}")" -cp "$cp" site.ycsb.Client "$phase" -db "$db" \
    -P "$root/ycsb-binding/workloads/workload$workload" -p recordcount="$records" -p operationcount="$ops" \
    -p measurementtype=hdrhistogram -p hdrhistogram.percentiles=50,99,99.9 \
    -p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$out." -p status.interval=1 "$@" \
    -threads "$threads" -s >"$out" 2>"$out.err" || rc=$?
  [ "$rc" -eq 0 ] || echo "$out: YCSB exited with $rc (see $out.err)" >>"$problems"
  [ -f "$out.stats" ] || : >"$out.stats"
  # throughput and latency without the first $warmup seconds, from YCSB's per-second interval histograms
  "$JAVA_HOME/bin/java" -cp "$cp_bench" io.rdmakv.bench.ycsb.SteadyState "$warmup" "$out".*.hdr \
    >"$out.steady" 2>>"$out.err" || echo "$out: no steady state (see $out.err)" >>"$problems"
  awk -f "$root/bench/ycsb-summarize.awk" -v store="$store" -v label="$label" -v threads="$threads" \
    -v expected="$expected" -v clk_tck="$clk_tck" \
    -v rows="$rows" -v problems="$problems" -v file="$out" "$out" "$out.stats" "$out.steady"
}

load_threads=$(printf '%s\n' "${thread_list[@]}" | sort -n | tail -n 1)
for s in "${stores[@]}"; do run "$s" -load a "$load_threads" load "$records" "$work/$s-load.out"; done
for w in "${workload_list[@]}"; do
  w=$(tr '[:upper:]' '[:lower:]' <<<"$w")
  for t in "${thread_list[@]}"; do
    for s in "${stores[@]}"; do run "$s" -t "$w" "$t" "${w^^}" "$ops" "$work/$s-$w-$t.out"; done
  done
done

# ---- stop, report --------------------------------------------------------------------------------
trap - EXIT
for p in "${pids[@]}" "${redis_pid[@]}"; do kill -TERM "$p"; done
for i in "${!pids[@]}"; do
  rc=0; wait "${pids[$i]}" || rc=$?
  [ "$rc" -eq 0 ] || echo "kvserver node $i exited with $rc (see $work/node$i.log)" >>"$problems"
done
# ZooKeeper last, once every node left the cluster
for p in "${zk_pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
if [ -n "$redis" ]; then
  rc=0; wait "${redis_pid[0]}" || rc=$?
  [ "$rc" -eq 0 ] || echo "redis-server exited with $rc (see $work/redis.log)" >>"$problems"
fi

placement="not pinned: servers and YCSB client on any of CPUs $node_cpus"
[ -z "$pin" ] || placement="pinned with taskset: server(s) on CPU $node_cpus, YCSB client on CPU $client_cpus"
title="YCSB 0.17.0, $records records, $ops ops per run, $nodes node(s), transport $transport, $(nproc) cores"
echo "rdmakv $title, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "threads: $placement"
echo "steady state: ops/s and latencies leave out each run's first $warmup s (warm_s: what was left out; 0 for" \
  "a run shorter than twice that); YCSB's whole-run figures are in its output files"
if [ -n "$redis" ]; then
  redis_line="redis: $(redis-server --version | sed 's/ sha=.*//') on 127.0.0.1, persistence off (--save ''"
  redis_line+=" --appendonly no), one Jedis connection per YCSB thread"
  echo "$redis_line"
  placement+="; $redis_line"
fi
echo "cli_us, node_us: CPU time (user + system) per operation of the YCSB process (YCSB's own work included)" \
  "and of the server process(es); rtt/op: round trips per operation (client:TYPE rows: per operation of the" \
  "client library); all three from the end of the warm-up after connecting to the last cleanup"
awk -f "$root/bench/ycsb-report.awk" -v csv="$csv" -v node_cpus="$node_cpus" -v client_cpus="$client_cpus" \
  "$rows" "$rows"
echo "CSV: $csv" >&2
if "$JAVA_HOME/bin/java" -Djava.awt.headless=true -cp "$cp_bench" io.rdmakv.bench.chart.ResultsChart \
    "$csv" "$png" "$title; $placement" >"$work/chart.log" 2>&1; then
  echo "chart: $png" >&2
else
  echo "the chart failed (see $work/chart.log)" >>"$problems"
fi
if [ -s "$problems" ]; then
  echo "FAILED:" >&2
  cat "$problems" >&2
  exit 1
fi
