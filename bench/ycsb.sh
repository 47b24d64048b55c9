#!/usr/bin/env bash
# YCSB 0.17.0 against a local rdmakv cluster: starts NODES kvservers on loopback, loads RECORDS records,
# runs each workload at each thread count in the order given, stops the cluster with SIGTERM and prints
# one table (and, with --csv, one CSV row per workload, threads and operation). Exits non-zero when any
# operation failed (NOT_FOUND included), YCSB reported no results, or a node did not stop cleanly.
# Usage: bench/ycsb.sh [-r RECORDS] [-o OPS] [-t THREADS,...] [-w WORKLOADS,...] [-n NODES]
#                      [--transport T] [--memory SIZE] [--csv FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: bench/ycsb.sh [-r RECORDS] [-o OPS] [-t THREADS,...] [-w WORKLOADS,...] [-n NODES] [--transport T] [--memory SIZE] [--csv FILE]"
records=100000 ops=100000 threads=1,4 workloads=A,B,C,D,F nodes=1 transport=tcp memory= csv=
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  case "$1" in
    -r) records=$2 ;; -o) ops=$2 ;; -t) threads=$2 ;; -w) workloads=$2 ;; -n) nodes=$2 ;;
    --transport) transport=$2 ;; --memory) memory=$2 ;; --csv) csv=$2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "bench/ycsb.sh: $1 must be a positive integer, not '$2'" >&2; exit 2; }; }
positive -r "$records"; positive -o "$ops"; positive -n "$nodes"
IFS=, read -r -a thread_list <<<"$threads"
IFS=, read -r -a workload_list <<<"$workloads"
[ ${#thread_list[@]} -gt 0 ] && [ ${#workload_list[@]} -gt 0 ] || { echo "$usage" >&2; exit 2; }
for t in "${thread_list[@]}"; do positive -t "$t"; done
for w in "${workload_list[@]}"; do
  case "$w" in [AaBbCcDdFf]) ;; [Ee]) echo "bench/ycsb.sh: workload E scans; rdmakv (a hash store) has no scan" >&2; exit 2 ;;
    *) echo "bench/ycsb.sh: -w takes A, B, C, D or F, not '$w'" >&2; exit 2 ;; esac
done
# Memory per node: 4 KiB per loaded record (a record's block is about 1.2 KiB; the rest is headroom for
# updates whose superseded blocks wait out the grace period before reuse), plus 128 MiB.
if [ -z "$memory" ]; then
  mib=$(( records * 4 / 1024 / nodes + 128 ))
  memory="$(( mib < 256 ? 256 : mib ))m"
fi

. "$root/scripts/java25.sh"
echo "== building (ycsb-binding, server)" >&2
"$root/scripts/mvn" -B -q -pl ycsb-binding,server -am package -DskipTests >&2
cp="$root/ycsb-binding/target/classes:$(cat "$root/ycsb-binding/target/classpath.txt")"
work=$(mktemp -d /tmp/rdmakv-ycsb.XXXXXX)
echo "== logs and YCSB output in $work" >&2

# ---- the cluster ---------------------------------------------------------------------------------
ports=$(python3 -c 'import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$nodes")
read -r -a port_list <<<"$ports"
node_args=() target=()
if [ "$nodes" -eq 1 ]; then
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
pids=()
stop_all() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; }
trap stop_all EXIT
for i in "${!port_list[@]}"; do
  # one YCSB thread loads a whole node's share through one session: let a session hold the whole node
  # (the default quota, a quarter of the data area, is for shared nodes)
  "$root/bin/kvserver" --transport "$transport" --memory "$memory" --session-quota "$memory" \
    --listen "127.0.0.1:${port_list[$i]}" --node-id "$i" "${node_args[@]}" >"$work/node$i.log" 2>&1 &
  pids+=($!)
done
echo "== starting $nodes node(s) on ports $ports (transport $transport, memory $memory each)" >&2
for i in "${!pids[@]}"; do
  for _ in $(seq 1 300); do
    grep -q "listening on" "$work/node$i.log" && break
    kill -0 "${pids[$i]}" 2>/dev/null || break
    sleep 0.1
  done
  grep -q "listening on" "$work/node$i.log" || { echo "kvserver node $i did not start:" >&2; cat "$work/node$i.log" >&2; exit 1; }
done

# ---- YCSB ----------------------------------------------------------------------------------------
problems="$work/problems" rows="$work/rows.tsv"
: >"$problems"; : >"$rows"
ycsb() { # PHASE(-load|-t) WORKLOAD THREADS OUT
  local rc=0
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${RDMAKV_YCSB_JAVA_OPTS:-} -cp "$cp" site.ycsb.Client \
    "$1" -db io.rdmakv.ycsb.RdmaKvClient -P "$root/ycsb-binding/workloads/workload$2" \
    -p recordcount="$records" -p operationcount="$ops" -p measurementtype=hdrhistogram \
    -p hdrhistogram.percentiles=50,99 -p rdmakv.transport="$transport" "${target[@]}" \
    -threads "$3" -s >"$4" 2>"$4.err" || rc=$?
  [ "$rc" -eq 0 ] || echo "$4: YCSB exited with $rc (see $4.err)" >>"$problems"
}
# Appends one row per operation (and an OVERALL row) of a YCSB output to rows.tsv; problems to problems.
summarize() { # LABEL THREADS OUT EXPECTED_OPS
  awk -F', ' -v label="$1" -v threads="$2" -v file="$3" -v expected="$4" -v rows="$rows" -v problems="$problems" '
    /^\[/ {
      sec = substr($1, 2, length($1) - 2)
      if (sec == "OVERALL") { if ($2 == "RunTime(ms)") runtime = $3; if ($2 == "Throughput(ops/sec)") tput = $3; next }
      if (sec == "RDMAKV") { rdma[$2] = $3; next }
      if (sec ~ /-FAILED$/) { if ($2 == "Operations") count[substr(sec, 1, length(sec) - 7)] += $3; next }
      if ($2 == "Operations") { count[sec] += $3; seen[sec] = 1 }
      else if ($2 == "AverageLatency(us)") avg[sec] = $3
      else if ($2 == "50thPercentileLatency(us)") p50[sec] = $3
      else if ($2 == "99thPercentileLatency(us)") p99[sec] = $3
      else if ($2 ~ /^Return=/) {
        status = substr($2, 8)
        if (status != "OK") { errors[sec] += $3; bad = bad " " sec " " status "=" $3 }
      }
    }
    function cell(v) { return v == "" ? "-" : v }
    END {
      if (tput == "" || runtime == "") { print file ": YCSB reported no results" >> problems; exit }
      done = count["READ"] + count["UPDATE"] + count["INSERT"] + count["DELETE"] + count["SCAN"] - count["READ-MODIFY-WRITE"]
      if (done != expected) print file ": " done " operations reported, " expected " expected" >> problems
      if (bad != "") print file ": failed operations:" bad >> problems
      if (rdma["Errors"] + 0 > 0) print file ": the binding counted " rdma["Errors"] " errors" >> problems
      total = 0
      for (s in errors) total += errors[s]
      rtt = cell(rdma["RoundTripsPerOp"])
      printf "%s\t%s\tOVERALL\t%.1f\t-\t-\t-\t%s\t%s\t%s\t%d\n", label, threads, tput, rtt,
        cell(rdma["CasRetriesPerUpdate"]), cell(rdma["UpdateRetriesPerUpdate"]), total >> rows
      n = split("READ UPDATE INSERT READ-MODIFY-WRITE DELETE SCAN", order, " ")
      for (i = 1; i <= n; i++) {
        s = order[i]
        if (!(s in seen)) continue
        printf "%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t-\t-\t%d\n", label, threads, s, count[s] * 1000 / runtime,
          avg[s], cell(p50[s]), cell(p99[s]), rtt, errors[s] + 0 >> rows
      }
    }' "$3"
}

load_threads=$(printf '%s\n' "${thread_list[@]}" | sort -n | tail -n 1)
echo "== load: $records records, $load_threads threads" >&2
ycsb -load a "$load_threads" "$work/load.out"
summarize load "$load_threads" "$work/load.out" "$records"
for w in "${workload_list[@]}"; do
  w=$(tr '[:upper:]' '[:lower:]' <<<"$w")
  for t in "${thread_list[@]}"; do
    echo "== workload ${w^^}, $t threads, $ops operations" >&2
    ycsb -t "$w" "$t" "$work/$w-$t.out"
    summarize "${w^^}" "$t" "$work/$w-$t.out" "$ops"
  done
done

# ---- stop, report --------------------------------------------------------------------------------
trap - EXIT
for i in "${!pids[@]}"; do kill -TERM "${pids[$i]}"; done
for i in "${!pids[@]}"; do
  rc=0; wait "${pids[$i]}" || rc=$?
  [ "$rc" -eq 0 ] || echo "kvserver node $i exited with $rc (see $work/node$i.log)" >>"$problems"
done

echo "rdmakv YCSB 0.17.0: $nodes node(s), transport $transport, $records records, $ops operations per run, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
awk -F'\t' 'BEGIN { printf "%-8s %7s %-17s %10s %9s %8s %8s %7s %8s %9s %6s\n", "workload", "threads", "op", "ops/s",
    "avg_us", "p50_us", "p99_us", "rtt/op", "cas/upd", "retry/upd", "errors" }
  { printf "%-8s %7s %-17s %10s %9s %8s %8s %7s %8s %9s %6s\n", $1, $2, $3, $4, $5, $6, $7, ($3 == "OVERALL" ? $8 : ""),
    $9 == "-" ? "" : $9, $10 == "-" ? "" : $10, $11 }' "$rows"
if [ -n "$csv" ]; then
  { echo "workload,threads,op,ops_per_sec,avg_us,p50_us,p99_us,rtt_per_op,errors"
    awk -F'\t' -v OFS=, '{ for (i = 5; i <= 8; i++) if ($i == "-") $i = ""; print $1, $2, $3, $4, $5, $6, $7, $8, $11 }' "$rows"
  } >"$csv"
  echo "CSV: $csv" >&2
fi
if [ -s "$problems" ]; then
  echo "FAILED:" >&2
  cat "$problems" >&2
  exit 1
fi
