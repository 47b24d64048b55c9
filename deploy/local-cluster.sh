#!/usr/bin/env bash
# Starts, inspects and stops an N-node rdmakv cluster on loopback.
#
#   deploy/local-cluster.sh start N [--transport tcp|ibverbs|auto] [--memory SIZE] [--base-port PORT]
#                                   [--metrics-base-port PORT] [--dir RUN_DIR] [--timeout SECONDS]
#                                   [--replicas R [--zk-port PORT] [--partitions P]]
#   deploy/local-cluster.sh status [--dir RUN_DIR]
#   deploy/local-cluster.sh stop   [--dir RUN_DIR] [--timeout SECONDS]
#   deploy/local-cluster.sh add N  [--dir RUN_DIR] [--timeout SECONDS]
#   deploy/local-cluster.sh remove ID [--dir RUN_DIR] [--timeout SECONDS]
#
# start writes, under RUN_DIR: cluster.json (the map: node i at 127.0.0.1:BASE_PORT+i), node-i.yaml (its
# config file), node-i.log, node-i.pid and, once it ended, node-i.exit; it waits until every node printed
# "kvserver: ready" and prints the --hosts string for kvctl. If a node fails to start, the others are
# stopped and start fails. stop sends SIGTERM to every node, waits for each to exit and checks that it
# exited 0. status prints one line per node.
#
# With --replicas R (1..5) the cluster is replicated and its map lives in ZooKeeper instead of cluster.json:
# start first runs a local ZooKeeper (the real server, bin/kvzk, on 127.0.0.1:ZK_PORT, default 2181, its
# data under RUN_DIR/zookeeper; zookeeper.cfg, zookeeper.log, zookeeper.pid, zookeeper.exit) and waits until
# it serves, then starts the N nodes with zookeeper, cluster-name "local" and replicas R in their config
# files (and partitions P, a power of two, when given: the count the cluster is created with; default the
# kvserver's, 4096). stop stops the nodes, then ZooKeeper last; status shows ZooKeeper too.
#
# add and remove change a running replicated cluster (started with --replicas; a static map cannot change
# while it runs). add starts N more nodes, ids and ports after the highest so far, with the settings start
# recorded in RUN_DIR/cluster.env, and waits until each is ready: they join as spares (a spare joining fences
# no session, so clients carry on without a reconnect) and take a group's place when one falls below R.
# Partitions do not move to them yet (docs/growth.md). remove stops node ID with SIGTERM (it leaves the
# cluster through ZooKeeper; a group it was in fails over or copies onto a spare) and checks it exited 0.
# ZooKeeper is locked down (needs openssl): its only client port speaks TLS and asks for a client
# certificate, and it closes any session that has not authenticated with the digest credential. start makes,
# once per RUN_DIR (kept for the next start: ZooKeeper's data, and the ACLs on it, are kept too):
# zk-auth (mode 600, "rdmakv:" and 32 random bytes in hex: the nodes' --zk-auth-file) and zk-tls/ (a CA,
# ZooKeeper's certificate for 127.0.0.1 and the nodes' client certificate; keys mode 600). Every znode of
# the cluster grants access to that credential only.
#
# Defaults: transport tcp, memory 64m, base port 7400, metrics off (with --metrics-base-port P, node i
# serves /metrics, /ready and /live on 127.0.0.1:P+i), RUN_DIR /tmp/rdmakv-local-cluster-$UID, timeout 60 s.
# The kvserver command is $RDMAKV_KVSERVER (default: bin/kvserver of this checkout).
#
# Exit codes: 0 done (status: every node running and ready), 1 a node failed (to start, to be ready, or to
# exit 0), 2 bad usage, 3 status/stop found no cluster.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kvserver=${RDMAKV_KVSERVER:-"$root/bin/kvserver"}
dir="/tmp/rdmakv-local-cluster-$(id -u)"
transport=tcp memory=64m base_port=7400 metrics_base_port=0 timeout=60 nodes= replicas= zk_port=2181 partitions=
kvzk=${RDMAKV_KVZK:-"$root/bin/kvzk"}

usage() {
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
command=$1; shift
if [ "$command" = start ] || [ "$command" = add ]; then
  [ $# -ge 1 ] || usage
  nodes=$1; shift
  [[ "$nodes" =~ ^[1-9][0-9]*$ ]] || { echo "local-cluster: N must be a positive number, not '$nodes'" >&2; exit 2; }
fi
if [ "$command" = remove ]; then
  [ $# -ge 1 ] || usage
  remove_id=$1; shift
  [[ "$remove_id" =~ ^[0-9]+$ ]] || { echo "local-cluster: ID must be a node id, not '$remove_id'" >&2; exit 2; }
fi
if [ "$command" = add ] || [ "$command" = remove ]; then
  for arg in "$@"; do
    case "$arg" in
      --transport|--memory|--base-port|--metrics-base-port|--replicas|--zk-port|--partitions)
        echo "local-cluster: $command takes $arg from the running cluster (RUN_DIR/cluster.env), not the command line" >&2
        exit 2 ;;
    esac
  done
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --transport) transport=${2:?}; shift 2 ;;
    --memory) memory=${2:?}; shift 2 ;;
    --base-port) base_port=${2:?}; shift 2 ;;
    --metrics-base-port) metrics_base_port=${2:?}; shift 2 ;;
    --dir) dir=${2:?}; shift 2 ;;
    --timeout) timeout=${2:?}; shift 2 ;;
    --replicas) replicas=${2:?}; shift 2 ;;
    --zk-port) zk_port=${2:?}; shift 2 ;;
    --partitions) partitions=${2:?}; shift 2 ;;
    *) echo "local-cluster: unknown option '$1'" >&2; usage ;;
  esac
done

if [ -n "$replicas" ] && ! [[ "$replicas" =~ ^[1-5]$ ]]; then
  echo "local-cluster: --replicas must be 1..5, not '$replicas'" >&2; exit 2
fi
if [ -n "$partitions" ] && { [ -z "$replicas" ] || ! [[ "$partitions" =~ ^[1-9][0-9]*$ ]]; }; then
  echo "local-cluster: --partitions needs --replicas and a number, not '$partitions'" >&2; exit 2
fi
if ! [[ "$zk_port" =~ ^[1-9][0-9]*$ ]] || [ "$zk_port" -gt 65535 ]; then
  echo "local-cluster: --zk-port must be a port, not '$zk_port'" >&2; exit 2
fi

pid_of() { cat "$dir/node-$1.pid" 2>/dev/null; }
zk_alive() { local pid; pid=$(cat "$dir/zookeeper.pid" 2>/dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }
zk_address() { cat "$dir/zookeeper.address" 2>/dev/null; }
# Whether ZooKeeper on $zk_port serves requests: its 'srvr' command, sent over TLS (the port has no
# plaintext) with the nodes' client certificate, names its mode only then.
zk_serving() {
  local reply tls="$dir/zk-tls"
  reply=$(printf srvr | timeout 5 openssl s_client -quiet -connect "127.0.0.1:$zk_port" -CAfile "$tls/ca.pem" \
    -cert "$tls/node.pem" -key "$tls/node.key" -verify_return_error 2>/dev/null)
  [[ "$reply" == *"Mode: standalone"* ]]
}

# Makes, unless there from an earlier start, the digest credential (zk-auth) and the TLS files (zk-tls/): a CA,
# ZooKeeper's key store (key and certificate for 127.0.0.1 in one PEM file, as ZooKeeper reads it) and the
# nodes' client certificate and key. Keys and the credential are readable by this user only.
make_zk_secrets() {
  local tls="$dir/zk-tls" ext
  if ! command -v openssl > /dev/null 2>&1; then
    echo "local-cluster: --replicas needs openssl (to make ZooKeeper's TLS certificates and credential); install it" >&2
    exit 1
  fi
  if [ ! -s "$dir/zk-auth" ]; then
    (umask 077 && printf 'rdmakv:%s\n' "$(openssl rand -hex 32)" > "$dir/zk-auth") || exit 1
  fi
  [ -s "$tls/ca.pem" ] && [ -s "$tls/zookeeper-keystore.pem" ] && [ -s "$tls/node.pem" ] && [ -s "$tls/node.key" ] &&
    return 0
  (
    umask 077 && mkdir -p "$tls" && cd "$tls" || exit 1
    ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 3650 -subj "/CN=rdmakv local ZooKeeper CA" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign &&
    for ext in "zookeeper:subjectAltName=IP:127.0.0.1,DNS:localhost" "node:extendedKeyUsage=clientAuth"; do
      openssl req "${ec[@]}" -keyout "${ext%%:*}.key" -out "${ext%%:*}.csr" -subj "/CN=rdmakv local ${ext%%:*}" &&
      printf '%s\n' "${ext#*:}" > "${ext%%:*}.ext" &&
      openssl x509 -req -in "${ext%%:*}.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 \
        -extfile "${ext%%:*}.ext" -out "${ext%%:*}.pem" || exit 1
    done
    cat zookeeper.key zookeeper.pem > zookeeper-keystore.pem && chmod 644 ca.pem node.pem zookeeper.pem
  ) > "$dir/zk-tls.log" 2>&1 || { echo "local-cluster: openssl could not make ZooKeeper's certificates:" >&2;
    tail -n 5 "$dir/zk-tls.log" >&2; exit 1; }
}

# Starts ZooKeeper on 127.0.0.1:$zk_port and waits until it accepts connections; fails start if it cannot.
start_zookeeper() {
  mkdir -p "$dir/zookeeper" || exit 1
  make_zk_secrets
  rm -f "$dir"/zookeeper.pid "$dir"/zookeeper.exit "$dir"/zookeeper.log
  # No clientPort: the only client port speaks TLS. Client certificates are checked against the CA, not their
  # names (the credential, not the certificate, decides what a session may touch).
  cat > "$dir/zookeeper.cfg" <<CFG
tickTime=500
initLimit=10
syncLimit=5
dataDir=$dir/zookeeper
secureClientPortAddress=127.0.0.1
secureClientPort=$zk_port
serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory
ssl.keyStore.location=$dir/zk-tls/zookeeper-keystore.pem
ssl.keyStore.type=PEM
ssl.trustStore.location=$dir/zk-tls/ca.pem
ssl.trustStore.type=PEM
ssl.clientAuth=need
ssl.clientHostnameVerification=false
enforce.auth.enabled=true
enforce.auth.schemes=digest
maxSessionTimeout=60000
admin.enableServer=false
4lw.commands.whitelist=srvr,ruok
CFG
  echo "127.0.0.1:$zk_port" > "$dir/zookeeper.address"
  (
    "$kvzk" "$dir/zookeeper.cfg" < /dev/null > "$dir/zookeeper.log" 2>&1 &
    echo $! > "$dir/zookeeper.pid"
    wait $!
    echo $? > "$dir/zookeeper.exit"
  ) < /dev/null > /dev/null 2>&1 &
  local deadline=$((SECONDS + timeout))
  while ! zk_serving; do
    if [ -s "$dir/zookeeper.exit" ] || [ $SECONDS -ge $deadline ]; then
      echo "zookeeper: not serving (TLS) on 127.0.0.1:$zk_port$([ -s "$dir/zookeeper.exit" ] &&
        echo " (exited with $(cat "$dir/zookeeper.exit"))"):" >&2
      tail -n 5 "$dir/zookeeper.log" >&2
      stop_zookeeper > /dev/null 2>&1
      exit 1
    fi
    sleep 0.2
  done
}

# Stops ZooKeeper (SIGTERM, then SIGKILL after the timeout); nothing to do without one.
stop_zookeeper() {
  [ -e "$dir/zookeeper.pid" ] || return 0
  if zk_alive; then kill -TERM "$(cat "$dir/zookeeper.pid")" 2>/dev/null; fi
  local deadline=$((SECONDS + timeout))
  while zk_alive && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  if zk_alive; then
    echo "zookeeper: did not exit within ${timeout}s of SIGTERM; killing it" >&2
    kill -KILL "$(cat "$dir/zookeeper.pid")" 2>/dev/null
  else
    echo "zookeeper: stopped"
  fi
  rm -f "$dir/zookeeper.pid"
}
alive() { local pid; pid=$(pid_of "$1") && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }
node_ids() {
  local f
  for f in "$dir"/node-*.pid; do [ -e "$f" ] || continue; f=${f##*/node-}; echo "${f%.pid}"; done | sort -n
}

# Waits until node $1's launcher shell recorded its exit code (or $2 seconds pass); prints the code.
wait_exit() {
  local id=$1 deadline=$((SECONDS + $2))
  while [ ! -s "$dir/node-$id.exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  cat "$dir/node-$id.exit" 2>/dev/null || echo timeout
}

stop_nodes() {
  local id failed=0 code ids
  ids=$(node_ids)
  if [ -z "$ids" ]; then
    if [ -e "$dir/zookeeper.pid" ]; then stop_zookeeper; return 0; fi
    echo "local-cluster: no cluster in $dir" >&2; return 3
  fi
  for id in $ids; do
    if alive "$id"; then kill -TERM "$(pid_of "$id")" 2>/dev/null; fi
  done
  for id in $ids; do
    code=$(wait_exit "$id" "$timeout")
    if [ "$code" = timeout ]; then
      echo "node $id: did not exit within ${timeout}s of SIGTERM; killing it" >&2
      kill -KILL "$(pid_of "$id")" 2>/dev/null
      failed=1
    elif [ "$code" != 0 ]; then
      echo "node $id: exited with $code (log: $dir/node-$id.log)" >&2
      failed=1
    else
      echo "node $id: stopped (exit 0)"
    fi
    rm -f "$dir/node-$id.pid"
  done
  stop_zookeeper # last: the nodes leave the cluster through it as they stop
  return $failed
}

# Writes node $1's config file and starts it in the background (RUN_DIR/node-$1.{yaml,log,pid,exit}).
launch_node() {
  local id=$1 port=$((base_port + $1))
  rm -f "$dir/node-$id.pid" "$dir/node-$id.exit" "$dir/node-$id.log"
  {
    echo "listen: 127.0.0.1:$port"
    echo "node-id: $id"
    if [ -n "$replicas" ]; then
      echo "zookeeper: 127.0.0.1:$zk_port"
      echo "cluster-name: local"
      echo "replicas: $replicas"
      if [ -n "$partitions" ]; then echo "partitions: $partitions"; fi
      echo "zk-auth-file: $dir/zk-auth"
      echo "zk-tls-ca: $dir/zk-tls/ca.pem"
      echo "zk-tls-cert: $dir/zk-tls/node.pem"
      echo "zk-tls-key: $dir/zk-tls/node.key"
    else
      echo "cluster: $dir/cluster.json"
    fi
    echo "memory: $memory"
    echo "transport: $transport"
    if [ "$metrics_base_port" -gt 0 ]; then
      echo "metrics-host: 127.0.0.1"
      echo "metrics-port: $((metrics_base_port + id))"
    fi
  } > "$dir/node-$id.yaml"
  # The subshell waits for the node and records how it ended; the pid file holds the node's own pid.
  (
    "$kvserver" --config "$dir/node-$id.yaml" < /dev/null > "$dir/node-$id.log" 2>&1 &
    echo $! > "$dir/node-$id.pid"
    wait $!
    echo $? > "$dir/node-$id.exit"
  ) < /dev/null > /dev/null 2>&1 &
}

# What add needs to start more nodes like the first ones.
record_settings() {
  printf 'transport=%s\nmemory=%s\nbase_port=%s\nmetrics_base_port=%s\nreplicas=%s\nzk_port=%s\npartitions=%s\n' \
    "$transport" "$memory" "$base_port" "$metrics_base_port" "$replicas" "$zk_port" "$partitions" > "$dir/cluster.env"
}

# Reads cluster.env (written by start) for add and remove; refuses a run dir without a replicated cluster.
load_settings() {
  local line key value
  if [ ! -s "$dir/cluster.env" ] || [ -z "$(node_ids)" ]; then
    echo "local-cluster: no cluster in $dir (start one first)" >&2; exit 3
  fi
  while IFS= read -r line; do
    key=${line%%=*} value=${line#*=}
    case "$key" in
      transport|memory|base_port|metrics_base_port|replicas|zk_port|partitions) printf -v "$key" '%s' "$value" ;;
    esac
  done < "$dir/cluster.env"
  if [ -z "$replicas" ]; then
    echo "local-cluster: $command needs a replicated cluster (start --replicas R): the static map of" \
      "$dir/cluster.json cannot change while the nodes run" >&2
    exit 2
  fi
  if ! zk_alive; then echo "local-cluster: the cluster's ZooKeeper in $dir is not running" >&2; exit 1; fi
}

# Waits until every node in "$@" printed "kvserver: ready"; on failure runs "$on_fail" and exits 1.
await_ready() {
  local deadline=$((SECONDS + timeout)) pending id
  while :; do
    pending=0
    for id in "$@"; do
      if grep -q '^kvserver: ready' "$dir/node-$id.log" 2>/dev/null; then continue; fi
      if [ -s "$dir/node-$id.exit" ]; then
        echo "node $id: exited with $(cat "$dir/node-$id.exit") before it was ready:" >&2
        tail -n 5 "$dir/node-$id.log" >&2
        $on_fail > /dev/null 2>&1
        exit 1
      fi
      pending=1
    done
    [ $pending -eq 0 ] && return 0
    if [ $SECONDS -ge $deadline ]; then
      echo "local-cluster: not every node was ready within ${timeout}s; stopping" >&2
      $on_fail >&2
      exit 1
    fi
    sleep 0.2
  done
}

start_nodes() {
  local id port
  if [ -n "$(node_ids)" ]; then
    for id in $(node_ids); do
      if alive "$id"; then echo "local-cluster: a cluster is already running in $dir (stop it first)" >&2; exit 1; fi
    done
  fi
  if zk_alive; then echo "local-cluster: a ZooKeeper is already running in $dir (stop it first)" >&2; exit 1; fi
  mkdir -p "$dir" || exit 1
  rm -f "$dir"/node-*.pid "$dir"/node-*.exit "$dir"/node-*.log "$dir"/node-*.yaml "$dir"/zookeeper.address \
    "$dir/cluster.env"
  if [ -n "$replicas" ]; then start_zookeeper; rm -f "$dir/cluster.json"; else
  {
    echo '{'
    echo '  "epoch": 1,'
    echo '  "nodes": ['
    for ((id = 0; id < nodes; id++)); do
      printf '    {"id": %d, "host": "127.0.0.1", "port": %d}%s\n' $id $((base_port + id)) \
        "$([ $id -lt $((nodes - 1)) ] && echo ,)"
    done
    echo '  ]'
    echo '}'
  } > "$dir/cluster.json"
  fi
  for ((id = 0; id < nodes; id++)); do launch_node "$id"; done
  record_settings
  on_fail=stop_nodes await_ready $(seq 0 $((nodes - 1)))
  local hosts=""
  for ((id = 0; id < nodes; id++)); do hosts="$hosts${hosts:+,}127.0.0.1:$((base_port + id))"; done
  echo "started $nodes node(s), transport $transport, memory $memory each; run dir $dir"
  if [ -n "$replicas" ]; then
    echo "zookeeper: 127.0.0.1:$zk_port, cluster 'local', $replicas replica(s) (nodes serve once the map places them)"
    echo "zookeeper: TLS only (CA $dir/zk-tls/ca.pem), digest credential in $dir/zk-auth; znodes open to it only"
  fi
  echo "hosts: $hosts"
  echo "try:   bin/kvctl --hosts $hosts --transport $transport cluster"
}

status_nodes() {
  local id state ids running=0 total=0
  ids=$(node_ids)
  if [ -z "$ids" ]; then echo "local-cluster: no cluster in $dir"; return 3; fi
  if [ -e "$dir/zookeeper.pid" ] || [ -s "$dir/zookeeper.address" ]; then
    total=$((total + 1))
    if zk_alive; then
      running=$((running + 1))
      echo "zookeeper: running, pid $(cat "$dir/zookeeper.pid"), $(zk_address)"
    else
      echo "zookeeper: not running$([ -s "$dir/zookeeper.exit" ] && echo " (exit $(cat "$dir/zookeeper.exit"))")"
    fi
  fi
  for id in $ids; do
    total=$((total + 1))
    if alive "$id"; then
      if grep -q '^kvserver: ready' "$dir/node-$id.log" 2>/dev/null; then state=ready; running=$((running + 1));
      else state=starting; fi
      echo "node $id: $state, pid $(pid_of "$id"), $(grep -o 'listening on [^,]*' "$dir/node-$id.log" | head -n 1)"
    else
      echo "node $id: not running$([ -s "$dir/node-$id.exit" ] && echo " (exit $(cat "$dir/node-$id.exit"))")"
    fi
  done
  [ $running -eq $total ]
}

# add: N more nodes after the highest id so far, each ready before add returns.
add_nodes() {
  load_settings
  local last first id added=()
  last=$(node_ids | tail -n 1)
  first=$((last + 1))
  for ((id = first; id < first + nodes; id++)); do
    if [ $((base_port + id)) -gt 65535 ]; then echo "local-cluster: no port left for node $id" >&2; exit 2; fi
    launch_node "$id"
    added+=("$id")
  done
  # a node that fails to start is stopped with the others added, not the cluster
  on_fail="stop_added" await_ready "${added[@]}"
  local hosts=""
  for id in $(node_ids); do alive "$id" && hosts="$hosts${hosts:+,}127.0.0.1:$((base_port + id))"; done
  echo "added node(s) ${added[*]}: spares; with rebalance/auto on (kvctl rebalance --auto on) R of them form a" \
    "group and partitions move to it, else they wait until a group needs a replica; run dir $dir"
  echo "hosts: $hosts"
}

stop_added() {
  local id
  for id in "${added[@]}"; do
    if alive "$id"; then kill -TERM "$(pid_of "$id")" 2>/dev/null; wait_exit "$id" "$timeout" > /dev/null; fi
    rm -f "$dir/node-$id.pid"
  done
}

# remove: SIGTERM node ID, wait for it, check exit 0; its log and exit code stay.
remove_node() {
  load_settings
  if [ ! -e "$dir/node-$remove_id.pid" ]; then
    echo "local-cluster: no node $remove_id in $dir (nodes: $(node_ids | tr '\n' ' '))" >&2; exit 2
  fi
  if ! alive "$remove_id"; then
    echo "node $remove_id: was not running$([ -s "$dir/node-$remove_id.exit" ] && echo " (exit $(cat "$dir/node-$remove_id.exit"))")"
    rm -f "$dir/node-$remove_id.pid"
    return 0
  fi
  local code pid
  pid=$(pid_of "$remove_id")
  kill -TERM "$pid" 2>/dev/null
  code=$(wait_exit "$remove_id" "$timeout")
  rm -f "$dir/node-$remove_id.pid"
  if [ "$code" = timeout ]; then
    echo "node $remove_id: did not exit within ${timeout}s of SIGTERM; killed" >&2
    kill -KILL "$pid" 2>/dev/null
    return 1
  elif [ "$code" != 0 ]; then
    echo "node $remove_id: exited with $code (log: $dir/node-$remove_id.log)" >&2
    return 1
  fi
  echo "node $remove_id: removed (exit 0); a group it was in fails over or copies onto a spare"
}

case "$command" in
  start) start_nodes ;;
  add) add_nodes ;;
  remove) remove_node ;;
  stop) stop_nodes ;;
  status) status_nodes ;;
  *) usage ;;
esac
