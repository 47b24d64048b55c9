# Part of bench/ycsb.sh: reads one YCSB run's output, its run statistics (the [CLIENT] lines the YCSB
# process wrote at its last cleanup, see io.rdmakv.ycsb.RunStatsFile) and its steady state (the [STEADY]
# lines of io.rdmakv.bench.ycsb.SteadyState: throughput and latency without the warm-up, used instead of
# YCSB's whole-run figures when present), and appends rows to the file `rows` (tab-separated, the columns
# of the printf below), problems to the file `problems`. The checks use YCSB's whole-run counts.
# CPU time and round trips per operation are over the window of the run statistics (the run after its
# warm-up, as the [CLIENT] lines count it). Variables: store, label (workload), threads, expected
# (operations asked for), clk_tck (clock ticks per second, for ServerCpuTicks), rows, problems, file.
BEGIN { FS = ", " }
function inside(name) { sub(/^[^(]*\(/, "", name); sub(/\)$/, "", name); return name }
function cell(v) { return v == "" ? "-" : v }
function per(num, den, scale) { return (num == "" || den + 0 == 0) ? "-" : sprintf("%.2f", num * scale / den) }
/^\[/ {
  sec = substr($1, 2, length($1) - 2)
  if (sec == "OVERALL") { if ($2 == "RunTime(ms)") runtime = $3; if ($2 == "Throughput(ops/sec)") tput = $3; next }
  if (sec == "RDMAKV") { rdma[$2] = $3; next }
  if (sec == "STEADY") { steady[$2] = $3; next }
  if (sec ~ /^STEADY-/) { sop[substr(sec, 8), $2] = $3; next }
  if (sec == "CLIENT") {
    if ($2 ~ /^Ops\(/) { t = inside($2); if (!(t in cops)) types[++ntypes] = t; cops[t] = $3 }
    else if ($2 ~ /^RoundTrips\(/) crtt[inside($2)] = $3
    else client[$2] = $3
    next
  }
  if (sec ~ /-FAILED$/) { if ($2 == "Operations") count[substr(sec, 1, length(sec) - 7)] += $3; next }
  if ($2 == "Operations") { count[sec] += $3; seen[sec] = 1 }
  else if ($2 == "AverageLatency(us)") avg[sec] = $3
  else if ($2 == "50thPercentileLatency(us)") p50[sec] = $3
  else if ($2 == "99thPercentileLatency(us)") p99[sec] = $3
  else if ($2 == "99.9PercentileLatency(us)") p999[sec] = $3
  else if ($2 ~ /^Return=/) {
    status = substr($2, 8)
    if (status != "OK") { errors[sec] += $3; bad = bad " " sec " " status "=" $3 }
  }
}
END {
  if (tput == "" || runtime == "") { print file ": YCSB reported no results" >> problems; exit }
  if (client["CpuNanos"] == "") print file ": no run statistics (" file ".stats)" >> problems
  done = count["READ"] + count["UPDATE"] + count["INSERT"] + count["DELETE"] + count["SCAN"] - count["READ-MODIFY-WRITE"]
  if (done != expected) print file ": " done " operations reported, " expected " expected" >> problems
  if (bad != "") print file ": failed operations:" bad >> problems
  if (rdma["Errors"] + 0 > 0) print file ": the binding counted " rdma["Errors"] " errors" >> problems
  if (client["Errors"] + 0 > 0) print file ": the " store " YCSB DB counted " client["Errors"] " errors" >> problems
  total = 0
  for (s in errors) total += errors[s]
  measured = steady["Seconds"] + 0 > 0
  if (measured) tput = steady["Throughput(ops/sec)"]
  warmup = measured ? steady["WarmupSeconds"] : 0
  for (s in seen) {
    if (!measured) { rate[s] = count[s] * 1000 / runtime; continue }
    rate[s] = sop[s, "Operations"] / steady["Seconds"]; avg[s] = sop[s, "AverageLatency(us)"]
    p50[s] = sop[s, "50thPercentileLatency(us)"]; p99[s] = sop[s, "99thPercentileLatency(us)"]
    p999[s] = sop[s, "99.9PercentileLatency(us)"]
  }
  trips = ""
  for (t in crtt) trips += crtt[t]
  ops = client["Operations"]
  # store workload threads op ops/s avg p50 p99 p99.9 rtt/op client-cpu node-cpu cas/upd retry/upd errors warmup
  printf "%s\t%s\t%s\tOVERALL\t%.1f\t-\t-\t-\t-\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", store, label, threads, tput,
    per(trips, ops, 1), per(client["CpuNanos"], ops, 0.001), per(client["ServerCpuTicks"], ops, 1e6 / clk_tck),
    cell(rdma["CasRetriesPerUpdate"]), cell(rdma["UpdateRetriesPerUpdate"]), total, warmup >> rows
  n = split("READ UPDATE INSERT READ-MODIFY-WRITE DELETE SCAN", order, " ")
  for (i = 1; i <= n; i++) {
    s = order[i]
    if (!(s in seen)) continue
    printf "%s\t%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t%d\t%s\n", store, label, threads, s,
      rate[s], avg[s], cell(p50[s]), cell(p99[s]), cell(p999[s]), per(crtt[s], cops[s], 1), errors[s] + 0,
      warmup >> rows
  }
  # the client library's own operations (rdmakv: get, put, compare_and_set, delete), named client:TYPE
  for (i = 1; i <= ntypes; i++) {
    t = types[i]
    if (t in seen || cops[t] + 0 == 0) continue
    printf "%s\t%s\t%s\tclient:%s\t%s\t-\t-\t-\t-\t%s\t-\t-\t-\t-\t0\t%s\n", store, label, threads, t,
      per(cops[t], client["WallNanos"], 1e9), per(crtt[t], cops[t], 1), per(client["WarmupNanos"], 1e9, 1) >> rows
  }
}
