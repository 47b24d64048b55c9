#!/usr/bin/env bash
# Scale-out under load (issue 23, docs/growth.md §14; a command, never a test): starts a replicated local
# cluster with deploy/local-cluster.sh (3 nodes, R = 2: one group of two and a spare; --partitions P, default
# 16), turns the growth switch rebalance/auto on, loads RECORDS YCSB records, runs YCSB workload A with THREADS
# threads for DURATION seconds and, ADD_AT seconds into it, runs `deploy/local-cluster.sh add N` (default 2:
# with the spare already there, two of the three spares form the new group of R = 2 and one stays a spare, as
# before the add). The coordinator then moves partitions to the new group by shares (growth.md §12 rule 5).
# Once the workload ends it waits (at most SETTLE seconds) until no batch is left and the planner would start
# none. Writes one CSV row per second of the workload (throughput, read and update p99 and max from YCSB's own
# per-second HdrHistogram intervals, the map epoch, batches and partitions moving from the map in ZooKeeper,
# bytes moved per second from the nodes' rdmakv_move_bytes_total) and a chart of it (bench/grow-chart.sh),
# prints a summary (io.rdmakv.bench.grow.GrowReport) and exits 1 when any operation failed, the cluster did
# not reach its shares, or a node did not stop cleanly. Everything it started is stopped on exit, Ctrl-C
# included. Threads are not pinned. --field-length BYTES makes each record one field of BYTES bytes (YCSB
# fieldcount=1, fieldlength=BYTES; default: workload A's 10 fields of 100 bytes), for moving gigabytes with few
# keys. --drain NODE --drain-at SECONDS also drains NODE (kvctl drain) that far into the workload, under the
# same load: its partitions move away, its group dissolves; the run then waits for it to be drained too, and the
# summary adds the drain's figures (growth.md §14, "Drain"). See docs/benchmarks.md, "Scale-out under load".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: bench/grow.sh [-r RECORDS] [-t THREADS] [-d DURATION_S] [--add-at SECONDS] [--add N] [--partitions P] [--memory SIZE] [--field-length BYTES] [--drain NODE --drain-at SECONDS] [--settle SECONDS] [--csv FILE] [--base-port PORT] [--zk-port PORT] [--metrics-base-port PORT]"
die() { echo "bench/grow.sh: $*" >&2; exit 2; }
records=20000 threads=4 duration=100 add_at=10 add=2 partitions=16 memory= field_length= settle=180 csv=
drain= drain_at=
base_port=7700 zk_port=2301 metrics_base=9700
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  case "$1" in
    -r) records=$2 ;; -t) threads=$2 ;; -d) duration=$2 ;; --add-at) add_at=$2 ;; --add) add=$2 ;;
    --partitions) partitions=$2 ;; --memory) memory=$2 ;; --field-length) field_length=$2 ;;
    --drain) drain=$2 ;; --drain-at) drain_at=$2 ;;
    --settle) settle=$2 ;; --csv) csv=$2 ;;
    --base-port) base_port=$2 ;; --zk-port) zk_port=$2 ;; --metrics-base-port) metrics_base=$2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
for v in "-r $records" "-t $threads" "-d $duration" "--add-at $add_at" "--add $add" "--partitions $partitions" \
  "--settle $settle" "--base-port $base_port" "--zk-port $zk_port" "--metrics-base-port $metrics_base"; do
  [[ ${v#* } =~ ^[1-9][0-9]*$ ]] || die "${v% *} must be a positive integer, not '${v#* }'"
done
[ -z "$field_length" ] || [[ $field_length =~ ^[1-9][0-9]*$ ]] ||
  die "--field-length must be a positive integer, not '$field_length'"
[ -z "$field_length" ] || [ "$field_length" -le 261000 ] ||
  die "--field-length $field_length does not fit one value (at most 261,032 bytes with YCSB's field name)"
if [ -n "$drain" ] || [ -n "$drain_at" ]; then
  [ -n "$drain" ] && [ -n "$drain_at" ] || die "--drain NODE and --drain-at SECONDS come together"
  [[ $drain =~ ^[0-9]+$ ]] || die "--drain must be a node id, not '$drain'"
  [[ $drain_at =~ ^[1-9][0-9]*$ ]] || die "--drain-at must be a positive integer, not '$drain_at'"
  [ "$drain_at" -gt "$add_at" ] && [ "$drain_at" -lt "$duration" ] ||
    die "--drain-at ($drain_at) must be after --add-at ($add_at) and inside the workload (-d $duration)"
fi
[ "$add_at" -lt "$duration" ] || die "--add-at ($add_at) must be inside the workload (-d $duration)"
# Memory per node as bench/ycsb.sh sizes it for one group holding every record: 4 KiB a record (a block is
# about 1.2 KiB; the rest is room for updates waiting out the grace period) plus 128 MiB; with --field-length,
# twice a record's field (the rest is room for updates) plus 128 MiB.
if [ -z "$memory" ] && [ -n "$field_length" ]; then memory="$(( records * 2 * (field_length + 256) / 1048576 + 128 ))m"; fi
[ -n "$memory" ] || memory="$(( records * 4 / 1024 + 128 ))m"
record_props=()
[ -z "$field_length" ] || record_props=(-p fieldcount=1 -p fieldlength="$field_length")

. "$root/scripts/java25.sh"
echo "== building (ycsb-binding, server, kvctl, bench)" >&2
"$root/scripts/mvn" -B -q -pl ycsb-binding,server,kvctl,bench -am package -DskipTests >&2
cp_ycsb="$root/ycsb-binding/target/classes:$(cat "$root/ycsb-binding/target/classpath.txt")"
cp_bench="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
work=$(mktemp -d /tmp/rdmakv-grow.XXXXXX)
dir="$work/cluster"
csv=${csv:-$work/grow.csv}
mkdir -p "$(dirname "$csv")" || die "--csv: cannot create the folder of '$csv'"
echo "== logs, YCSB output and samples in $work" >&2

ycsb_pid= sampler_pid= started=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -z "$ycsb_pid" ] || kill -TERM "$ycsb_pid" 2>/dev/null || true
  [ -z "$sampler_pid" ] || kill -TERM "$sampler_pid" 2>/dev/null || true
  [ -z "$started" ] || "$root/deploy/local-cluster.sh" stop --dir "$dir" >"$work/stop.log" 2>&1 ||
    echo "bench/grow.sh: stopping the cluster: see $work/stop.log" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
now_ms() { date +%s%3N; }
hosts() { local h="" i; for ((i = 0; i < $1; i++)); do h="$h${h:+,}127.0.0.1:$((base_port + i))"; done; echo "$h"; }
kvctl() { "$root/bin/kvctl" --hosts "$(hosts 3)" --transport tcp "$@"; }

# ---- the cluster ----------------------------------------------------------------------------------------
started=1
"$root/deploy/local-cluster.sh" start 3 --replicas 2 --partitions "$partitions" --memory "$memory" \
  --base-port "$base_port" --zk-port "$zk_port" --metrics-base-port "$metrics_base" --dir "$dir" >&2
for _ in $(seq 1 300); do
  state=$(kvctl cluster 2>/dev/null) || true
  grep -q '^group 0 .* in sync' <<<"$state" && break
  sleep 0.2
done
grep -q '^group 0 .* in sync' <<<"$state" || { echo "the replicated cluster did not form:" >&2; echo "$state" >&2; exit 1; }
echo "$state" >&2
zk=(--zookeeper "127.0.0.1:$zk_port" --cluster-name local --zk-auth-file "$dir/zk-auth"
  --zk-tls-ca "$dir/zk-tls/ca.pem" --zk-tls-cert "$dir/zk-tls/node.pem" --zk-tls-key "$dir/zk-tls/node.key")
# "exec": a run in the background is then the JVM itself, whose pid the cleanup can signal
sampler() { exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cp_bench" \
  io.rdmakv.bench.grow.GrowSampler "${zk[@]}" --metrics-base-port "$metrics_base" "$@"; }

# ---- YCSB -----------------------------------------------------------------------------------------------
ycsb() { # PHASE OUT [-p ...]: exec, as sampler
  local phase=$1 out=$2
  shift 2
  exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${RDMAKV_YCSB_JAVA_OPTS:-} -cp "$cp_ycsb" \
    site.ycsb.Client "$phase" -db io.rdmakv.ycsb.RdmaKvClient -P "$root/ycsb-binding/workloads/workloada" \
    -p rdmakv.transport=tcp -p rdmakv.hosts="$(hosts 3)" -p recordcount="$records" "${record_props[@]}" -threads "$threads" "$@" \
    >"$out" 2>"$out.err"
}
echo "== loading $records records ($threads threads)" >&2
# in the background, waited for: a signal's trap runs at once, not when the load ends
ycsb -load "$work/load.out" &
ycsb_pid=$!
rc=0; wait "$ycsb_pid" || rc=$?
ycsb_pid=
[ "$rc" -eq 0 ] || { echo "the load failed (exit $rc): see $work/load.out.err" >&2; exit 1; }
if grep '^\[INSERT\], Return=' "$work/load.out" | grep -v 'Return=OK' >&2; then
  echo "the load had failed inserts: see $work/load.out" >&2; exit 1
fi
kvctl stats >&2 || true

(sampler --auto on 2>"$work/auto.log") || { echo "cannot set rebalance/auto:" >&2; cat "$work/auto.log" >&2; exit 1; }
echo "== rebalance/auto is on" >&2
sampler --out "$work/samples.tsv" --stop-file "$work/stop-sampler" 2>"$work/sampler.log" &
sampler_pid=$!

echo "== workload A, $threads threads, ${duration}s; add $add node(s) at ${add_at}s" >&2
ycsb -t "$work/run.out" -p operationcount=1000000000 -p maxexecutiontime="$duration" -p measurementtype=hdrhistogram \
  -p hdrhistogram.percentiles=50,99,99.9 -p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$work/run." \
  -p status.interval=1 -s &
ycsb_pid=$!
# the workload's start as the report counts it (its first interval): YCSB opens an operation type's interval
# log at its first operation and heads it with "#[StartTime: SECONDS.MILLIS"; the add goes ADD_AT seconds later
begun=
for _ in $(seq 1 600); do
  start=$(sed -n -E 's/^#\[StartTime: ([0-9]+)\.([0-9]{3}).*/\1\2/p' "$work"/run.READ.hdr "$work"/run.UPDATE.hdr \
    2>/dev/null | sort -n | head -n 1) || true
  if [ -n "$start" ]; then begun=$start; break; fi
  kill -0 "$ycsb_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$begun" ] || { echo "YCSB did not start its workload: see $work/run.out.err" >&2; exit 1; }
wait_ms=$(( begun + add_at * 1000 - $(now_ms) ))
[ "$wait_ms" -le 0 ] || sleep "$(awk -v ms="$wait_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
add_ms=$(now_ms)
echo "== adding $add node(s)" >&2
"$root/deploy/local-cluster.sh" add "$add" --dir "$dir" >&2
added_ms=$(now_ms)
printf 'add_ms=%s\nadded_ms=%s\n' "$add_ms" "$added_ms" >"$work/add.times"  # for GrowReport run again by hand
drain_ms= drained_ms=
drained() { kvctl drain "$drain" --dry-run 2>/dev/null | grep -q 'drained, safe to stop'; }
if [ -n "$drain" ]; then
  wait_ms=$(( begun + drain_at * 1000 - $(now_ms) ))
  [ "$wait_ms" -le 0 ] || sleep "$(awk -v ms="$wait_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
  drain_ms=$(now_ms)
  echo "== draining node $drain" >&2
  kvctl drain "$drain" >&2 || { echo "kvctl drain $drain failed" >&2; exit 1; }
  # when it is drained, checked once a second while the workload runs (and after it, below)
  while kill -0 "$ycsb_pid" 2>/dev/null; do
    if drained; then drained_ms=$(now_ms); echo "== node $drain drained" >&2; break; fi
    sleep 1
  done
fi
rc=0; wait "$ycsb_pid" || rc=$?
ycsb_pid=
[ "$rc" -eq 0 ] || { echo "YCSB exited with $rc: see $work/run.out.err" >&2; exit 1; }

echo "== workload done; waiting (at most ${settle}s) until no batch is left and the shares are met" >&2
balanced=
for _ in $(seq 1 $((settle * 2))); do
  # columns: unix_ms epoch groups batches ... groups_copying(7) ... planned_batches(9)
  if [ -n "$drain" ] && [ -z "$drained_ms" ]; then
    if drained; then drained_ms=$(now_ms); else sleep 0.5; continue; fi
  fi
  if awk -F'\t' -v after="${drained_ms:-$add_ms}" 'NR > 1 && $1 > after && $3 >= 2 && $4 == 0 && $7 == 0 && $9 == 0 { ok = 1 }
      END { exit !ok }' "$work/samples.tsv"; then balanced=1; break; fi
  kill -0 "$sampler_pid" 2>/dev/null || { echo "the sampler stopped: see $work/sampler.log" >&2; exit 1; }
  sleep 0.5
done
touch "$work/stop-sampler"
wait "$sampler_pid" || { echo "the sampler failed: see $work/sampler.log" >&2; exit 1; }
sampler_pid=
kvctl cluster >"$work/cluster-after.txt" 2>&1 || true

# ---- stop, report ---------------------------------------------------------------------------------------
started=
stop_rc=0
"$root/deploy/local-cluster.sh" stop --dir "$dir" >"$work/stop.log" 2>&1 || stop_rc=$?
echo "rdmakv scale-out under load, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "setup: YCSB 0.17.0 workload A, $records records${field_length:+ of one field of $field_length bytes}, $threads threads, ${duration}s; local cluster of 3 (R = 2," \
  "$partitions partitions, memory $memory each, transport tcp on loopback), add $add at ${add_at}s;" \
  "$(nproc) cores, threads not pinned"
report_rc=0
"$JAVA_HOME/bin/java" -cp "$cp_bench" io.rdmakv.bench.grow.GrowReport --samples "$work/samples.tsv" \
  --add-ms "$add_ms" --added-ms "$added_ms" --ycsb-out "$work/run.out" --csv "$csv" "$work"/run.*.hdr || report_rc=$?
if [ -n "$drain" ]; then
  # the drain's window in the CSV: from its second on (t_s from the first interval, the workload's start)
  from_s=$(( (drain_ms - begun) / 1000 ))
  echo "drain_at_s=$from_s (kvctl drain $drain)"
  if [ -n "$drained_ms" ]; then
    echo "drained_after_s=$(awk -v a="$drain_ms" -v b="$drained_ms" 'BEGIN { printf "%.1f", (b - a) / 1000 }')" \
      "(node $drain a spare: kvctl drain --dry-run says drained, safe to stop; polled every second)"
  else
    echo "drained_after_s=- (not drained)"
  fi
  awk -F, -v from="$from_s" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["t_s"] + 0 >= from { n++; ops += $col["ops_per_sec"]; if ($col["read_max_us"] + 0 > rmax) rmax = $col["read_max_us"] + 0
      if ($col["update_max_us"] + 0 > umax) umax = $col["update_max_us"] + 0; if ($col["batches"] + 0 > 0) moving++ }
    END { printf "drain_window: %d intervals from the drain, %d with batches in the map, mean %.0f ops/s, " \
      "longest read %d us, longest update %d us\n", n, moving, n ? ops / n : 0, rmax, umax }' "$csv"
fi
echo "map after:"; sed 's/^/  /' "$work/cluster-after.txt"
echo "CSV: $csv" >&2
png="${csv%.csv}.png"
"$root/bench/grow-chart.sh" "$csv" "$png" >"$work/chart.log" 2>&1 && echo "chart: $png" >&2 ||
  { echo "the chart failed: see $work/chart.log" >&2; report_rc=1; }
failed=
[ "$report_rc" -eq 0 ] || failed="$failed; failed operations, or no report (see above)"
[ -n "$balanced" ] || failed="$failed; not balanced within ${settle}s of the workload's end"
[ -z "$drain" ] || [ -n "$drained_ms" ] || failed="$failed; node $drain not drained"
[ "$stop_rc" -eq 0 ] || failed="$failed; a node did not stop cleanly: $(tr '\n' ' ' <"$work/stop.log")"
if [ -n "$failed" ]; then echo "FAILED${failed}" >&2; exit 1; fi
