#!/usr/bin/env bash
# Hosts that talk over a wire: runs store end-to-end tests and a kill -9 replicated failover test with the client
# and the nodes at different addresses, each on a Soft-RoCE device of its own, their RDMA traffic crossing a link
# (veth pairs joined by a bridge, scripts/softroce-wire-topology.sh) instead of the loopback, in one throwaway
# qemu VM started by ../shared/softroce/run-in-softroce-vm.sh. Builds on this machine first, like
# scripts/softroce-verbs.sh; the VM runs precompiled classes in one test JVM.
#
#   client  10.78.0.1 on rxec (netdev wc)     node 0  10.78.0.2 on rxen0 (wn0)
#   node 1  10.78.0.3 on rxen1 (wn1)          node 2  10.78.0.4 on rxen2 (wn2)      (rxe0 on lo: unused)
#
# Usage: scripts/softroce-wire.sh [--tests] [--probe]
#   --tests  (default) prints the topology's facts (addresses, routes, MTUs, GID tables), the wire ends' and
#            devices' counters before and after, and runs the selected tests with -Drdmakv.test.transport=ibverbs,
#            -Drdmakv.test.nodeHosts, -Drdmakv.test.nodeDevices and -Drdmakv.test.clientDevice (LocalCluster): the
#            system-tests classes of the store and YCSB packages that start a LocalCluster instance (a node and its
#            clients in the test JVM) and the classes tagged softroce-wire (WireDevicesTest: each end on its own
#            device and GID, kvctl --device, an unknown device refused; WireFailoverTest: three child-JVM nodes,
#            one SIGKILLed). Fails if any test fails, if fewer than SOFTROCE_WIRE_MIN_TESTS succeed, if the
#            client's wire end did not carry at least SOFTROCE_WIRE_MIN_PACKETS packets each way, if the client's
#            device or fewer than two nodes' devices sent nothing, or if rxe0 (the loopback device) sent anything
#   --probe  the topology and its facts, then ibv_rc_pingpong (QP exchange, GID index 1) from rxec to rxen0
#            across the wire and the counters; no Java
# Env: SOFTROCE_WIRE_MTU            netdev MTU of the wire (default 1500: rxe's active MTU 1024; 9000 gives 4096)
#      SOFTROCE_WIRE_MIN_TESTS      (default 33: every test of the default selection; lower it with
#                                   SOFTROCE_WIRE_EXCLUDE)   SOFTROCE_WIRE_MIN_PACKETS (default 1000)
#      SOFTROCE_WIRE_TIMEOUT        seconds for the test JVM (default 450; it took 324-363 s)
#      SOFTROCE_WIRE_EXCLUDE        simple names of test classes not to run (default TlsPropertiesTest: 80 s of
#                                   TLS property checks under TCG, nothing of the wire)
#      SOFTROCE_WIRE_ONLY           simple names of the only test classes to run
#      SOFTROCE_WIRE_MEMLOCK_KB     memlock limit of the test JVM and its child nodes (default 262144), which run
#                                   without CAP_IPC_LOCK
#      SOFTROCE_STORE_OP_TIMEOUT_MS / SOFTROCE_STORE_LEASE_MS / SOFTROCE_STORE_ZK_SESSION_MS as for
#                                   scripts/softroce-verbs.sh (60000 / 10000 / 8000)
#      MVN_OFFLINE=1                build with mvn -o        and everything run-in-softroce-vm.sh reads
# Output and reports: system-tests/target/softroce-wire/ (console.log, wire.log, counters.{before,after},
# reports/)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VM_RUNNER=../shared/softroce/run-in-softroce-vm.sh
if [ ! -x "$VM_RUNNER" ]; then
  echo "softroce-wire: $ROOT/$VM_RUNNER not found (or not executable): no Soft-RoCE VM to run in." >&2
  exit 2
fi
MODE=tests
for arg in "$@"; do
  case "$arg" in
    --tests) MODE=tests ;;
    --probe) MODE=probe ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) echo "softroce-wire: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done
GUEST_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
MTU=${SOFTROCE_WIRE_MTU:-1500}
MIN_TESTS=${SOFTROCE_WIRE_MIN_TESTS:-33}
MIN_PACKETS=${SOFTROCE_WIRE_MIN_PACKETS:-1000}
TIMEOUT=${SOFTROCE_WIRE_TIMEOUT:-450}
MEMLOCK_KB=${SOFTROCE_WIRE_MEMLOCK_KB:-262144}
EXCLUDE=${SOFTROCE_WIRE_EXCLUDE-TlsPropertiesTest}
OUT=system-tests/target/softroce-wire
TOPOLOGY="bash $ROOT/scripts/softroce-wire-topology.sh"
NODE_HOSTS=10.78.0.2,10.78.0.3,10.78.0.4
NODE_DEVICES=rxen0,rxen1,rxen2
CLIENT_DEVICE=rxec

start=$(date +%s)
rm -rf "$OUT"; mkdir -p "$OUT/reports"
SELECT=""
if [ $MODE = tests ]; then
  [ -x "$GUEST_JAVA" ] || { echo "softroce-wire: $GUEST_JAVA is missing (the guest sees this machine's /)" >&2; exit 2; }
  echo "[softroce-wire] building on the host"
  scripts/mvn -B -q ${MVN_OFFLINE:+-o} -pl system-tests -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/softroce-wire/classpath.full -Dmdep.includeScope=test
  PLATFORM_VERSION=$(tr ':' '\n' < "$OUT/classpath.full" | sed -n 's#.*/junit-platform-engine-\([^/]*\)\.jar$#\1#p' | head -1)
  [ -n "$PLATFORM_VERSION" ] || { echo "softroce-wire: no junit-platform-engine on the test classpath" >&2; exit 1; }
  scripts/mvn -B -q ${MVN_OFFLINE:+-o} -pl system-tests dependency:copy \
    -Dartifact=org.junit.platform:junit-platform-console-standalone:"$PLATFORM_VERSION" \
    -DoutputDirectory=target/softroce-wire -Dmdep.stripVersion=true
  # the standalone launcher brings JUnit itself: keep only our other dependencies
  CP=$(tr ':' '\n' < "$OUT/classpath.full" | grep -vE '/org/junit/|/org/opentest4j/|/org/apiguardian/' | paste -sd: -)
  CLASSES=$ROOT/system-tests/target/test-classes${CP:+:$CP}
  # the store and YCSB classes that start a LocalCluster instance (node and clients in the test JVM), and the
  # classes tagged softroce-wire (child-JVM nodes at their own addresses)
  for f in $( { grep -l 'new LocalCluster(' system-tests/src/test/java/io/rdmakv/systemtests/store/*Test.java \
      system-tests/src/test/java/io/rdmakv/ycsb/*Test.java
    grep -l '@Tag("softroce-wire")' -r system-tests/src/test/java --include='*Test.java'; } | sort -u); do
    class=$(echo "${f#system-tests/src/test/java/}" | sed 's#/#.#g; s#\.java$##')
    if [ -n "${SOFTROCE_WIRE_ONLY:-}" ] && [[ " $SOFTROCE_WIRE_ONLY " != *" ${class##*.} "* ]]; then continue; fi
    if [[ " $EXCLUDE " == *" ${class##*.} "* ]]; then echo "[softroce-wire] NOT running $class (SOFTROCE_WIRE_EXCLUDE)"; continue; fi
    SELECT+=" --select-class $class"
  done
  [ -n "$SELECT" ] || { echo "softroce-wire: no test class selected" >&2; exit 1; }
  echo "[softroce-wire] built in $(( $(date +%s) - start ))s (JUnit Platform $PLATFORM_VERSION); classes:$SELECT"
fi

# what the guest runs (bash -c, in this directory, with this environment)
GUEST="echo '[guest] wire topology, MTU $MTU'; $TOPOLOGY setup $MTU || exit 1;
echo '[guest] facts'; $TOPOLOGY facts;
$TOPOLOGY counters > $ROOT/$OUT/counters.before; echo '[guest] counters before'; cat $ROOT/$OUT/counters.before;
"
if [ $MODE = probe ]; then
  GUEST+="(timeout 60 ibv_rc_pingpong -d rxen0 -g 1 -n 500 -s 4096 > /tmp/pp-server.log 2>&1 &); sleep 2;
timeout 60 ibv_rc_pingpong -d rxec -g 1 -n 500 -s 4096 10.78.0.2; echo \"[guest] pingpong exit \$?\"; sleep 1; cat /tmp/pp-server.log;
"
else
  JVM_FLAGS="--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xshare:auto -XX:TieredStopAtLevel=1"
  LAUNCHER="-jar $ROOT/$OUT/junit-platform-console-standalone.jar execute --details=verbose --disable-banner --disable-ansi-colors"
  NOCAP="setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock --"
  GUEST+="echo '[guest] tests across the wire: nodes $NODE_HOSTS on $NODE_DEVICES, client on $CLIENT_DEVICE; memlock $MEMLOCK_KB KiB, no CAP_IPC_LOCK'; t0=\$(date +%s.%N);
(ulimit -l $MEMLOCK_KB; timeout -k 10 $TIMEOUT $NOCAP \
  $GUEST_JAVA $JVM_FLAGS -Dbasedir=$ROOT/system-tests -Drdmakv.test.transport=ibverbs \
  -Drdmakv.test.nodeHosts=$NODE_HOSTS -Drdmakv.test.nodeDevices=$NODE_DEVICES -Drdmakv.test.clientDevice=$CLIENT_DEVICE \
  -Drdmakv.test.opTimeoutMs=${SOFTROCE_STORE_OP_TIMEOUT_MS:-60000} -Drdmakv.test.leaseMs=${SOFTROCE_STORE_LEASE_MS:-10000} -Drdmakv.test.nodeLeaseMs=${SOFTROCE_STORE_LEASE_MS:-10000} \
  -Drdmakv.test.zkSessionMs=${SOFTROCE_STORE_ZK_SESSION_MS:-8000} -Drdmakv.test.childClassPath='$CLASSES' \
  -Drdmakv.test.nodeLogs=$ROOT/$OUT/node-logs \
  $LAUNCHER --class-path '$CLASSES' $SELECT --reports-dir $ROOT/$OUT/reports) 2>&1 | tee $ROOT/$OUT/wire.log;
rc=\${PIPESTATUS[0]}; echo \"[guest] test JVM exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/wire.rc;
"
fi
GUEST+="$TOPOLOGY counters > $ROOT/$OUT/counters.after; echo '[guest] counters after'; cat $ROOT/$OUT/counters.after; exit 0"

echo "[softroce-wire] starting the Soft-RoCE VM"
vm_start=$(date +%s)
set +e
SOFTROCE_RW="$ROOT/$OUT${SOFTROCE_RW:+:$SOFTROCE_RW}" "$VM_RUNNER" "$GUEST" 2>&1 | tee "$OUT/console.log"
vm_rc=${PIPESTATUS[0]}
set -e
echo "[softroce-wire] VM run took $(( $(date +%s) - vm_start ))s, exit $vm_rc"

status=0
[ "$vm_rc" = 0 ] || { echo "[softroce-wire] the VM run itself failed (exit $vm_rc)" >&2; status=1; }
# $1 kind (veth|rdma), $2 name, $3 field: after - before, empty when unknown
delta() {
  local b a
  b=$(awk -v k="$1" -v n="$2" -v f="$3" '$1 == k && $2 == n {for (i = 3; i < NF; i++) if ($i == f) print $(i + 1)}' "$OUT/counters.before" 2>/dev/null)
  a=$(awk -v k="$1" -v n="$2" -v f="$3" '$1 == k && $2 == n {for (i = 3; i < NF; i++) if ($i == f) print $(i + 1)}' "$OUT/counters.after" 2>/dev/null)
  [[ "$b" =~ ^[0-9]+$ && "$a" =~ ^[0-9]+$ ]] && echo $((a - b)) || echo ""
}
if [ ! -s "$OUT/counters.after" ]; then
  echo "[softroce-wire] FAILED: no counters after the run" >&2; status=1
else
  for n in wc wn0 wn1 wn2; do
    echo "[softroce-wire] wire end $n: +$(delta veth $n tx_packets) packets / +$(delta veth $n tx_bytes) bytes sent," \
      "+$(delta veth $n rx_packets) packets / +$(delta veth $n rx_bytes) bytes received"
  done
  for r in rxe0 rxec rxen0 rxen1 rxen2; do
    echo "[softroce-wire] device $r: +$(delta rdma $r sent_pkts) packets sent, +$(delta rdma $r rcvd_pkts) received"
  done
  tx=$(delta veth wc tx_packets); rx=$(delta veth wc rx_packets)
  if [ -z "$tx" ] || [ -z "$rx" ] || [ "$tx" -lt "$MIN_PACKETS" ] || [ "$rx" -lt "$MIN_PACKETS" ]; then
    echo "[softroce-wire] FAILED: the client's wire end wc carried ${tx:-?} / ${rx:-?} packets, expected at least $MIN_PACKETS each way" >&2
    status=1
  fi
  client=$(delta rdma rxec sent_pkts)
  if [ -z "$client" ] || [ "$client" = 0 ]; then
    echo "[softroce-wire] FAILED: the client's device rxec sent ${client:-?} packets" >&2; status=1
  fi
  if [ $MODE = tests ]; then
    busy=0
    for r in rxen0 rxen1 rxen2; do d=$(delta rdma $r sent_pkts); [ -n "$d" ] && [ "$d" -gt 0 ] && busy=$((busy + 1)); done
    [ $busy -ge 2 ] || { echo "[softroce-wire] FAILED: only $busy node devices sent packets, expected at least 2" >&2; status=1; }
  fi
  lo=$(delta rdma rxe0 sent_pkts)
  if [ "$lo" != 0 ]; then
    echo "[softroce-wire] FAILED: the loopback device rxe0 sent ${lo:-?} packets: something did not use its wire device" >&2
    status=1
  fi
fi
if [ $MODE = probe ]; then
  grep -q 'pingpong exit 0' "$OUT/console.log" || { echo "[softroce-wire] FAILED: ibv_rc_pingpong across the wire" >&2; status=1; }
else
  count() { sed -n "s/^\[ *\([0-9][0-9]*\) tests $1 *\]$/\1/p" "$OUT/wire.log" 2>/dev/null | tail -1; }
  ok=$(count successful); failed=$(count failed); aborted=$(count aborted); skipped=$(count skipped)
  rc=$(cat "$OUT/wire.rc" 2>/dev/null || echo none)
  echo "[softroce-wire] tests: ${ok:-?} successful, ${failed:-?} failed, ${aborted:-?} aborted (assumptions), ${skipped:-?} skipped; at least $MIN_TESTS must succeed"
  if [ -z "$ok" ]; then
    echo "[softroce-wire] FAILED: no test summary in the output (JVM crashed or timed out? exit $rc)" >&2; status=1
  elif [ "${failed:-0}" != 0 ] || [ "$rc" != 0 ]; then
    echo "[softroce-wire] FAILED: test failures (test JVM exit $rc)" >&2; status=1
  elif [ "$ok" -lt "$MIN_TESTS" ]; then
    echo "[softroce-wire] FAILED: only $ok tests succeeded, expected at least $MIN_TESTS" >&2; status=1
  fi
  if [ "${aborted:-0}" != 0 ]; then
    echo "[softroce-wire] aborted (assumptions not met):"; grep -F '■' "$OUT/wire.log" | sed 's/^[│├└─ ]*/    /' | sort | uniq -c
  fi
  grep -h '^wire failover:' "$OUT/wire.log" || true
fi
echo "[softroce-wire] total $(( $(date +%s) - start ))s"
[ $status = 0 ] && echo "[softroce-wire] OK" || echo "[softroce-wire] FAILED" >&2
exit $status
