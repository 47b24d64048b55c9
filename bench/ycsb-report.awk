# Part of bench/ycsb.sh: prints the rows bench/ycsb-summarize.awk collected as one table and writes them
# to the CSV file `csv`, with rdmakv's throughput over Redis's (same workload, threads and operation) when
# Redis ran too. Reads the rows file twice (first pass: Redis's throughputs). Variables: csv, node_cpus,
# client_cpus (where the processes were allowed to run, as the CSV's last two columns, commas as spaces).
BEGIN {
  FS = "\t"
  gsub(/,/, " ", node_cpus); gsub(/,/, " ", client_cpus)  # a taskset list may hold commas
  fmt = "%-6s %-8s %7s %-22s %10s %7s %9s %8s %8s %9s %6s %8s %8s %7s %9s %6s %6s\n"
  printf fmt, "store", "workload", "threads", "op", "ops/s", "/redis", "avg_us", "p50_us", "p99_us", "p99.9_us",
    "rtt/op", "cli_us", "node_us", "cas/upd", "retry/upd", "errors", "warm_s"
  print "store,workload,threads,op,ops_per_sec,rdmakv_over_redis,avg_us,p50_us,p99_us,p999_us,rtt_per_op," \
    "client_cpu_us_per_op,node_cpu_us_per_op,cas_retries_per_update,update_retries_per_update,errors," \
    "warmup_s,node_cpus,client_cpus" > csv
}
function blank(v) { return v == "-" ? "" : v }
FNR == NR { if ($1 == "redis") redis[$2 SUBSEP $3 SUBSEP $4] = $5; next }
{
  key = $2 SUBSEP $3 SUBSEP $4
  ratio = ($1 == "rdmakv" && (key in redis) && redis[key] > 0) ? sprintf("%.2f", $5 / redis[key]) : "-"
  printf fmt, $1, $2, $3, $4, $5, blank(ratio), blank($6), blank($7), blank($8), blank($9), blank($10),
    blank($11), blank($12), blank($13), blank($14), $15, $16
  line = $1 "," $2 "," $3 "," $4 "," $5 "," blank(ratio)
  for (i = 6; i <= 16; i++) line = line "," blank($i)
  print line "," node_cpus "," client_cpus > csv
}
