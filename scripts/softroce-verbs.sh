#!/usr/bin/env bash
# Runs the verbs module's ibverbs tests, the verbs conformance suite (queue pairs connected by exchange, and again
# through rdma_cm: SOFTROCE_VERBS_CM) and the store's end-to-end tests (by exchange, and a subset through rdma_cm:
# SOFTROCE_STORE_CM)
# against a real kernel RDMA device: a Soft-RoCE device (rxe0) in a throwaway qemu VM started by
# ../shared/softroce/run-in-softroce-vm.sh. Builds on this machine first; the VM runs precompiled
# classes, one JVM per test set.
#
# Usage: scripts/softroce-verbs.sh [--tests] [--verbs] [--store] [--siw] [--latency] [--all]
#   --tests    (default) --verbs, --store and --siw, in one VM boot
#   --verbs    JUnit Platform Console Launcher over io.rdmakv.verbs.ibverbs and io.rdmakv.verbs.conformance
#              with -Drdmakv.conformance.providers=ibverbs; fails if any test fails or fewer than
#              SOFTROCE_MIN_TESTS succeed. Then, for rdmacm in SOFTROCE_VERBS_CM, the conformance suite alone
#              again with -Drdmakv.conformance.cm=rdmacm (every pair through rdma_cm on rxe0); at least
#              SOFTROCE_MIN_RDMACM_TESTS must succeed
#   --store    the system-tests module's test classes that start a LocalCluster instance (new LocalCluster:
#              kvserver and KvClient, or the YCSB binding over it, in one JVM) with
#              -Drdmakv.test.transport=ibverbs; fails if any test fails or fewer than SOFTROCE_MIN_STORE_TESTS
#              succeed. The other system tests (faults, bad input, metrics, kvctl, launchers) start nodes with
#              LocalCluster.startNode or as processes and are not run here (except the ZooKeeper cluster tests
#              tagged softroce-store, whose nodes are child JVMs): several play a misbehaving peer,
#              whose completions rxe reports differently (docs/development.md), or run tcp-only launchers
#   --siw      after the rxe runs, Soft-iWARP: siw.ko built for the VM's kernel (scripts/siw-module.sh; Debian does not
#              ship it), loaded in the guest, siw0 on a dummy interface (10.79.0.1) and rxe0 removed; then the
#              conformance suite over siw0, its queue pairs through rdma_cm (-Drdmakv.conformance.cm=auto: iWARP
#              has no QP-number exchange) and siw's deviations (no atomics, no memory windows, no RNR, ...)
#              reported as aborted, at least SOFTROCE_MIN_SIW_TESTS succeeding; then the single-node store
#              classes of SOFTROCE_SIW_STORE_ONLY over it: rdma_cm and node-assisted writes (siw has no remote
#              atomics); at least SOFTROCE_MIN_SIW_STORE_TESTS must succeed. SOFTROCE_SIW_PARTS picks the parts
#   --latency  READ/WRITE/CAS/FAA latency from Java (IbverbsLatency) next to perftest's
#              ib_read_lat / ib_write_lat / ib_atomic_lat in the same VM
#   --all      tests and latency, in one VM boot
# Env: SOFTROCE_MIN_TESTS (default 109)   SOFTROCE_MIN_STORE_TESTS (default 50; lower it with SOFTROCE_STORE_EXCLUDE)
#      SOFTROCE_TEST_TIMEOUT / SOFTROCE_STORE_TIMEOUT seconds for each test JVM (default 900 / 780)
#      SOFTROCE_MEMLOCK_KB memlock limit of the verbs test JVM, which runs without CAP_IPC_LOCK so that
#                          the limit applies (default 65536: the memlock test needs a finite limit)
#      SOFTROCE_STORE_MEMLOCK_KB the same for the store test JVM (default 262144: a test server registers
#                          a region of up to 64 MiB, and its clients their buffers)
#      SOFTROCE_STORE_EXCLUDE  simple names of store test classes not to run (printed; default none)
#      SOFTROCE_EXCHANGE_EXCLUDE  simple names of store test classes left out of the --cm exchange run only (the
#                          rdmacm and siw runs keep them; CI leaves out those the wire run runs across a wire)
#      SOFTROCE_STORE_ONLY  simple names of the only store test classes to run (default all; to try one
#                          class, with SOFTROCE_MIN_STORE_TESTS lowered to its test count)
#      SOFTROCE_STORE_LEASE_MS  the lease tests' lease timeout, and every store node's that keeps the default
#                          (child-JVM nodes too: LocalCluster#nodeArgs passes it as --lease-timeout-ms)
#                          (default 10000: a healthy session's heartbeats can come seconds late under TCG; 1500 and
#                          3000 on a real machine)
#      SOFTROCE_STORE_ZK_SESSION_MS  the ZooKeeper session timeout of the child-JVM nodes of the tests tagged
#                          softroce-store (default 8000: 2000 on a real machine)
#      SOFTROCE_STORE_OP_TIMEOUT_MS  the store test clients' per-operation timeout (default 60000: under TCG
#                          emulation a single operation over rxe was seen to stall for more than 10 s)
#      SOFTROCE_STORE_CM  the connection setups (kvserver/KvClient --cm) to run the store tests with, one test JVM
#                          each (default "exchange rdmacm"); rdmacm needs an addressed netdev, so with it in the list
#                          rxe0 sits on a dummy interface (SOFTROCE_NETDEV=dummy, 10.77.0.1) instead of lo
#      SOFTROCE_RDMACM_STORE_ONLY  simple names of the store test classes of the rdmacm run (default: a subset,
#                          RDMACM_STORE_DEFAULT below; "all": every class the exchange run has)
#      SOFTROCE_MIN_RDMACM_STORE_TESTS  tests that must succeed in the rdmacm run (default 20 for the subset)
#      SOFTROCE_SIW_STORE_ONLY  simple names of the store classes of the siw run (default SIW_STORE_DEFAULT below)
#      SOFTROCE_MIN_SIW_STORE_TESTS  tests that must succeed in the siw store run (default 20)
#      SOFTROCE_STORE_JVM_ARGS  more arguments for every store test JVM (default none), e.g.
#                          -Djava.util.logging.config.file=F to see the node's DEBUG lines of some classes
#      SOFTROCE_SIW_DEBUG  1: siw's dynamic debug messages on for the siw store run, the kernel log kept in
#                          dmesg-siw.log (needs the VM kernel's debugfs; verbose)
#      SOFTROCE_FRESH_CLIENT_ROUNDS  fresh clients whose first operation is a GET, in FreshClientFirstGetTest (every
#                          store run; default 4): to loop a fresh client's first GET within one boot, e.g. with
#                          SOFTROCE_SIW_PARTS=store SOFTROCE_SIW_STORE_ONLY=FreshClientFirstGetTest
#                          SOFTROCE_MIN_SIW_STORE_TESTS=1
#      SOFTROCE_MIN_SIW_TESTS  conformance tests that must succeed over siw0 (default 35)
#      SOFTROCE_SIW_PARTS  what --siw runs: "verbs store" (default), "verbs" or "store"
#      SOFTROCE_VERBS_CM  the connection setups of the rxe conformance runs (default "exchange rdmacm"; exchange is
#                          the --verbs run with the ibverbs tests, rdmacm the conformance suite alone again); rdmacm
#                          puts rxe0 on a dummy interface, as SOFTROCE_STORE_CM does
#      SOFTROCE_MIN_RDMACM_TESTS  conformance tests that must succeed in the rxe rdmacm run (default 75)
#      LAT_ITERS / LAT_WARMUP (default 5000 / 20000: C2 compiles slowly under emulation)   and everything run-in-softroce-vm.sh reads
# Output and reports: verbs/target/softroce/ (console.log, verbs.log, verbs-rdmacm.log, store.log, store-rdmacm.log,
#   verbs-siw.log, store-siw.log, reports/{verbs,verbs-rdmacm,store,store-rdmacm,verbs-siw,store-siw}/, latency.log)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VM_RUNNER=../shared/softroce/run-in-softroce-vm.sh
if [ ! -x "$VM_RUNNER" ]; then
  echo "softroce-verbs: $ROOT/$VM_RUNNER not found (or not executable)." >&2
  echo "It comes from the shared folder next to the repository (../shared/softroce/); without it there is no" >&2
  echo "Soft-RoCE VM to run the ibverbs tests in." >&2
  exit 2
fi

MODE_VERBS=0; MODE_STORE=0; MODE_SIW=0; MODE_LATENCY=0
[ $# -eq 0 ] && { MODE_VERBS=1; MODE_STORE=1; MODE_SIW=1; }
for arg in "$@"; do
  case "$arg" in
    --tests) MODE_VERBS=1; MODE_STORE=1; MODE_SIW=1 ;;
    --siw) MODE_SIW=1 ;;
    --verbs) MODE_VERBS=1 ;;
    --store) MODE_STORE=1 ;;
    --latency) MODE_LATENCY=1 ;;
    --all) MODE_VERBS=1; MODE_STORE=1; MODE_SIW=1; MODE_LATENCY=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "softroce-verbs: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

GUEST_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
[ -x "$GUEST_JAVA" ] || { echo "softroce-verbs: $GUEST_JAVA is missing (the guest sees this machine's /)" >&2; exit 2; }
MIN_TESTS=${SOFTROCE_MIN_TESTS:-109}
# 32 = 12 store tests (6 classes of io.rdmakv.systemtests.store) + 15 YCSB binding tests (3 classes of io.rdmakv.ycsb)
#      + 5 lease tests (io.rdmakv.systemtests.hardening.lease: fencing, lock sweep and the node's loopback CAS on rxe)
#      + 6 memory-window tests (io.rdmakv.systemtests.hardening.windows: a grant writable by its session only)
#      + 6 more in the store and YCSB classes (the shared slot cache, batched reads in the linearizability check, the
#        binding's bytes allocated per operation, its TLS properties) = 44
MIN_STORE_TESTS=${SOFTROCE_MIN_STORE_TESTS:-50}
TEST_TIMEOUT=${SOFTROCE_TEST_TIMEOUT:-900}
STORE_TIMEOUT=${SOFTROCE_STORE_TIMEOUT:-780}
MEMLOCK_KB=${SOFTROCE_MEMLOCK_KB:-65536}
STORE_MEMLOCK_KB=${SOFTROCE_STORE_MEMLOCK_KB:-262144}
STORE_CMS=${SOFTROCE_STORE_CM:-exchange rdmacm}
# the rdmacm run: a subset that covers a session's whole life through rdma_cm (connect with the ticket, GET/PUT/
# DELETE, batches, the binding, a lease expiring and a departure fencing the session, windows), for CI's time
RDMACM_STORE_DEFAULT="KvClientBasicsTest LeaseTest WriteWindowsTest RdmaKvClientTest"
RDMACM_STORE_ONLY=${SOFTROCE_RDMACM_STORE_ONLY:-$RDMACM_STORE_DEFAULT}
MIN_RDMACM_STORE_TESTS=${SOFTROCE_MIN_RDMACM_STORE_TESTS:-20}
# the siw run: single-node classes only (node-assisted writes do not replicate yet); no memory windows on siw
SIW_STORE_DEFAULT="KvClientBasicsTest StoreLinearizabilityTest ConcurrentReadersTest RdmaKvClientTest SharedClientTest FreshClientFirstGetTest"
SIW_STORE_ONLY=${SOFTROCE_SIW_STORE_ONLY:-$SIW_STORE_DEFAULT}
MIN_SIW_STORE_TESTS=${SOFTROCE_MIN_SIW_STORE_TESTS:-20}
FRESH_CLIENT_ROUNDS=${SOFTROCE_FRESH_CLIENT_ROUNDS:-4}
MIN_SIW_TESTS=${SOFTROCE_MIN_SIW_TESTS:-35}
SIW_PARTS=${SOFTROCE_SIW_PARTS:-verbs store}
SIW_VERBS=0; SIW_STORE=0
for part in $SIW_PARTS; do
  case "$part" in
    verbs) SIW_VERBS=1 ;;
    store) SIW_STORE=1 ;;
    *) echo "softroce-verbs: SOFTROCE_SIW_PARTS: unknown part $part (verbs, store)" >&2; exit 2 ;;
  esac
done
VERBS_CMS=${SOFTROCE_VERBS_CM:-exchange rdmacm}
VERBS_RDMACM=0
for cm in $VERBS_CMS; do
  case "$cm" in
    exchange) ;;
    rdmacm) VERBS_RDMACM=1 ;;
    *) echo "softroce-verbs: SOFTROCE_VERBS_CM: unknown setup $cm (exchange, rdmacm)" >&2; exit 2 ;;
  esac
done
MIN_RDMACM_TESTS=${SOFTROCE_MIN_RDMACM_TESTS:-75}
if [ $MODE_SIW = 1 ]; then
  siw_rc=0; SIW_KO=$(scripts/siw-module.sh) || siw_rc=$?
  if [ $siw_rc = 3 ]; then
    # no VM kernel cached yet (a fresh machine): one empty boot fetches it, then the module is built for it
    "$VM_RUNNER" true > /dev/null; siw_rc=0; SIW_KO=$(scripts/siw-module.sh) || siw_rc=$?
  fi
  [ $siw_rc = 0 ] || { echo "softroce-verbs: --siw: no siw.ko for the VM's kernel (above)" >&2; exit 1; }
  SIW_KDIR=$(dirname "$(dirname "$SIW_KO")")/../kroot/lib/modules/$(basename "$(dirname "$SIW_KO")")/kernel
fi
if { [[ " $STORE_CMS " == *" rdmacm "* ]] && [ $MODE_STORE = 1 ]; } || { [ $VERBS_RDMACM = 1 ] && [ $MODE_VERBS = 1 ]; }; then
  # rdma_cm cannot resolve a route over lo on rxe (ENODEV): rxe0 on a dummy interface with 10.77.0.1
  export SOFTROCE_NETDEV=${SOFTROCE_NETDEV:-dummy}
fi
LAT_ITERS=${LAT_ITERS:-5000}
LAT_WARMUP=${LAT_WARMUP:-20000}
OUT=verbs/target/softroce

# 1. build here: test classes, the test classpaths, and the console launcher matching our JUnit
start=$(date +%s)
echo "[softroce-verbs] building on the host"
rm -rf "$OUT"; mkdir -p "$OUT/reports"
MODULES=verbs
[ $MODE_STORE = 1 ] || { [ $MODE_SIW = 1 ] && [ $SIW_STORE = 1 ]; } && MODULES=verbs,system-tests
# -am builds system-tests' reactor dependencies (server, client, kvctl, ycsb-binding, test-support, ...) too;
# their classpaths resolve to target/classes
scripts/mvn -B -q -pl "$MODULES" -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/softroce/classpath.full -Dmdep.includeScope=test
PLATFORM_VERSION=$(tr ':' '\n' < "$OUT/classpath.full" | sed -n 's#.*/junit-platform-engine-\([^/]*\)\.jar$#\1#p' | head -1)
[ -n "$PLATFORM_VERSION" ] || { echo "softroce-verbs: no junit-platform-engine on the test classpath" >&2; exit 1; }
scripts/mvn -B -q -pl verbs dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:"$PLATFORM_VERSION" \
  -DoutputDirectory=target/softroce -Dmdep.stripVersion=true
# the standalone launcher brings JUnit itself: keep only our other dependencies
without_junit() { tr ':' '\n' < "$1" | grep -vE '/org/junit/|/org/opentest4j/|/org/apiguardian/' | paste -sd: -; }
CP=$(without_junit "$OUT/classpath.full")
CLASSES=$ROOT/verbs/target/test-classes:$ROOT/verbs/target/classes${CP:+:$CP}
STORE_CLASSES=""; STORE_SELECT=""; RDMACM_SELECT=""; SIW_SELECT=""
if [ $MODE_STORE = 1 ] || { [ $MODE_SIW = 1 ] && [ $SIW_STORE = 1 ]; }; then
  STORE_CP=$(without_junit system-tests/target/softroce/classpath.full)
  # system-tests has test classes only
  STORE_CLASSES=$ROOT/system-tests/target/test-classes${STORE_CP:+:$STORE_CP}
  # every system test class that starts a real kvserver as a LocalCluster instance, so new store tests join by
  # themselves, the replicated group of ChainReplicationTest (nodes of one JVM under a static replicated map),
  # and the ZooKeeper cluster tests tagged softroce-store (child-JVM nodes: too slow under TCG to run them all)
  for f in $(grep -l 'new LocalCluster(\|ReplicatedPair.start(\|@Tag("softroce-store")' -r system-tests/src/test/java --include='*Test.java' | sort); do
    class=$(echo "${f#system-tests/src/test/java/}" | sed 's#/#.#g; s#\.java$##')
    if [ -n "${SOFTROCE_STORE_ONLY:-}" ] && [[ " $SOFTROCE_STORE_ONLY " != *" ${class##*.} "* ]]; then continue; fi
    if [[ " ${SOFTROCE_STORE_EXCLUDE:-} " == *" ${class##*.} "* ]]; then
      echo "[softroce-verbs] NOT running $class (SOFTROCE_STORE_EXCLUDE)"; continue
    fi
    if [[ " ${SOFTROCE_EXCHANGE_EXCLUDE:-} " == *" ${class##*.} "* ]]; then
      echo "[softroce-verbs] NOT running $class in the --cm exchange run (SOFTROCE_EXCHANGE_EXCLUDE)"
    else
      STORE_SELECT+=" --select-class $class"
    fi
    if [ "$RDMACM_STORE_ONLY" = all ] || [[ " $RDMACM_STORE_ONLY " == *" ${class##*.} "* ]]; then
      RDMACM_SELECT+=" --select-class $class"
    fi
    if [[ " $SIW_STORE_ONLY " == *" ${class##*.} "* ]]; then SIW_SELECT+=" --select-class $class"; fi
  done
  [ -n "$STORE_SELECT" ] || { echo "softroce-verbs: no system test class starts a LocalCluster" >&2; exit 1; }
fi
echo "[softroce-verbs] built in $(( $(date +%s) - start ))s (JUnit Platform $PLATFORM_VERSION)"

# 2. what the guest runs (bash -c, in this directory, with this environment)
JVM_FLAGS="--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xshare:auto"
LAUNCHER="-jar $ROOT/$OUT/junit-platform-console-standalone.jar execute --details=tree --disable-banner --disable-ansi-colors"
NOCAP="setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock --"
# what the tests run over: the device's link, active MTU and GID types (the path MTU of an rdma_cm connection is
# the route's, of an exchange the smaller active MTU; both are rxe0's on one host)
GUEST="echo '[guest] device:' \$(rdma link show 2>&1 | head -3 | tr '\n' ' ');
ibv_devinfo -d rxe0 2>&1 | grep -E 'transport|active_mtu|link_layer' | sed 's/^[[:space:]]*/[guest]   /';
for i in 0 1; do echo \"[guest]   GID[\$i] \$(cat /sys/class/infiniband/rxe0/ports/1/gids/\$i 2>/dev/null) \$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/\$i 2>/dev/null)\"; done;
"
if [ $MODE_VERBS = 1 ]; then
  # One JVM, C1 only (start-up is ~15x slower under TCG). Without CAP_IPC_LOCK and with a finite
  # memlock limit, so that the memlock test runs and everything else proves it fits in the limit.
  GUEST+="echo '[guest] verbs tests: memlock '$MEMLOCK_KB' KiB, no CAP_IPC_LOCK, kernel '\$(uname -r); t0=\$(date +%s.%N);
(ulimit -l $MEMLOCK_KB; timeout -k 10 $TEST_TIMEOUT $NOCAP \
  $GUEST_JAVA $JVM_FLAGS -XX:TieredStopAtLevel=1 -Dbasedir=$ROOT/verbs -Drdmakv.conformance.providers=ibverbs \
  $LAUNCHER --class-path '$CLASSES' \
  --select-package io.rdmakv.verbs.ibverbs --select-package io.rdmakv.verbs.conformance \
  --reports-dir $ROOT/$OUT/reports/verbs) 2>&1 | tee $ROOT/$OUT/verbs.log;
rc=\${PIPESTATUS[0]}; echo \"[guest] verbs test JVM exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/verbs.rc;
"
  if [ $VERBS_RDMACM = 1 ]; then
    # the conformance suite again, every pair connected through rdma_cm (rxe0 on the dummy interface)
    GUEST+="echo '[guest] conformance tests over rxe0 through rdma_cm'; t0=\$(date +%s.%N);
(ulimit -l $MEMLOCK_KB; timeout -k 10 $TEST_TIMEOUT $NOCAP \
  $GUEST_JAVA $JVM_FLAGS -XX:TieredStopAtLevel=1 -Dbasedir=$ROOT/verbs -Drdmakv.conformance.providers=ibverbs -Drdmakv.conformance.cm=rdmacm \
  $LAUNCHER --class-path '$CLASSES' --select-package io.rdmakv.verbs.conformance \
  --reports-dir $ROOT/$OUT/reports/verbs-rdmacm) 2>&1 | tee $ROOT/$OUT/verbs-rdmacm.log;
rc=\${PIPESTATUS[0]}; echo \"[guest] verbs test JVM (rdmacm) exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/verbs-rdmacm.rc;
"
  fi
fi
if [ $MODE_STORE = 1 ]; then
  # kvserver and KvClient in one JVM on rxe0, the same way (C1, no CAP_IPC_LOCK, a finite memlock limit); one JVM
  # per connection setup: store.log for exchange (every class), store-rdmacm.log for rdmacm (RDMACM_SELECT)
  for cm in $STORE_CMS; do
    case "$cm" in
      exchange) name=store; select=$STORE_SELECT ;;
      rdmacm) name=store-rdmacm; select=$RDMACM_SELECT ;;
      *) echo "softroce-verbs: SOFTROCE_STORE_CM: unknown setup $cm (exchange, rdmacm)" >&2; exit 2 ;;
    esac
    [ -n "$select" ] || { echo "softroce-verbs: no store test class for --cm $cm" >&2; exit 1; }
    GUEST+="echo '[guest] store tests over ibverbs, --cm $cm: memlock '$STORE_MEMLOCK_KB' KiB, no CAP_IPC_LOCK'; t0=\$(date +%s.%N);
(ulimit -l $STORE_MEMLOCK_KB; timeout -k 10 $STORE_TIMEOUT $NOCAP \
  $GUEST_JAVA $JVM_FLAGS -XX:TieredStopAtLevel=1 -Dbasedir=$ROOT/system-tests -Drdmakv.test.transport=ibverbs -Drdmakv.test.cm=$cm -Drdmakv.test.opTimeoutMs=${SOFTROCE_STORE_OP_TIMEOUT_MS:-60000} -Drdmakv.test.freshClientRounds=$FRESH_CLIENT_ROUNDS ${SOFTROCE_STORE_JVM_ARGS:-} \
  -Drdmakv.test.leaseMs=${SOFTROCE_STORE_LEASE_MS:-10000} -Drdmakv.test.nodeLeaseMs=${SOFTROCE_STORE_LEASE_MS:-10000} -Drdmakv.test.zkSessionMs=${SOFTROCE_STORE_ZK_SESSION_MS:-8000} -Drdmakv.test.childClassPath='$STORE_CLASSES' $LAUNCHER --class-path '$STORE_CLASSES' $select \
  --reports-dir $ROOT/$OUT/reports/$name) 2>&1 | tee $ROOT/$OUT/$name.log;
rc=\${PIPESTATUS[0]}; echo \"[guest] store test JVM (--cm $cm) exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/$name.rc;
"
  done
fi
if [ $MODE_SIW = 1 ]; then
  [ $SIW_STORE = 0 ] || [ -n "$SIW_SELECT" ] || { echo "softroce-verbs: no store test class for the siw run ($SIW_STORE_ONLY)" >&2; exit 1; }
  # last: rxe0 goes, so that siw0 is the only device the tests can open
  GUEST+="echo '[guest] siw: loading '$SIW_KO; insmod $SIW_KDIR/crypto/crc32c_generic.ko 2>/dev/null; insmod $SIW_KDIR/lib/libcrc32c.ko 2>/dev/null;
insmod $SIW_KO || echo '[guest] siw: insmod failed';
rdma link delete rxe0; ip link add dummy1 type dummy; ip addr add 10.79.0.1/24 dev dummy1; ip link set dummy1 up;
rdma link add siw0 type siw netdev dummy1 || echo '[guest] siw: rdma link add failed';
echo '[guest] device:' \$(rdma link show 2>&1 | tr '\n' ' ');
ibv_devinfo -v -d siw0 2>&1 | grep -E 'transport|vendor_id|atomic_cap|max_mw|max_sge|active_mtu|link_layer' | sed 's/^[[:space:]]*/[guest]   /';
"
  if [ $SIW_VERBS = 1 ]; then
    # the conformance suite over siw0: rdma_cm (auto: the device is iWARP), siw's deviations aborted with the reasons
    GUEST+="echo '[guest] conformance tests over siw0 through rdma_cm'; t0=\$(date +%s.%N);
(ulimit -l $MEMLOCK_KB; timeout -k 10 $TEST_TIMEOUT $NOCAP \
  $GUEST_JAVA $JVM_FLAGS -XX:TieredStopAtLevel=1 -Dbasedir=$ROOT/verbs -Drdmakv.conformance.providers=ibverbs -Drdmakv.conformance.cm=auto \
  $LAUNCHER --class-path '$CLASSES' --select-package io.rdmakv.verbs.conformance \
  --reports-dir $ROOT/$OUT/reports/verbs-siw) 2>&1 | tee $ROOT/$OUT/verbs-siw.log;
rc=\${PIPESTATUS[0]}; echo \"[guest] verbs test JVM (siw) exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/verbs-siw.rc;
"
  fi
  if [ $SIW_STORE = 1 ]; then
    if [ "${SOFTROCE_SIW_DEBUG:-0}" = 1 ]; then
      GUEST+="mount -t debugfs none /sys/kernel/debug 2>/dev/null; echo 'module siw +p' > /sys/kernel/debug/dynamic_debug/control ||
  echo '[guest] siw: no dynamic debug'; (dmesg --follow > $ROOT/$OUT/dmesg-siw.log 2>&1 &);
"
    fi
    GUEST+="echo '[guest] store tests over siw0: --cm rdmacm, node-assisted writes'; t0=\$(date +%s.%N);
(ulimit -l $STORE_MEMLOCK_KB; timeout -k 10 $STORE_TIMEOUT $NOCAP \
  $GUEST_JAVA $JVM_FLAGS -XX:TieredStopAtLevel=1 -Dbasedir=$ROOT/system-tests -Drdmakv.test.transport=ibverbs -Drdmakv.test.cm=rdmacm -Drdmakv.test.opTimeoutMs=${SOFTROCE_STORE_OP_TIMEOUT_MS:-60000} -Drdmakv.test.freshClientRounds=$FRESH_CLIENT_ROUNDS ${SOFTROCE_STORE_JVM_ARGS:-} \
  -Drdmakv.test.leaseMs=${SOFTROCE_STORE_LEASE_MS:-10000} -Drdmakv.test.nodeLeaseMs=${SOFTROCE_STORE_LEASE_MS:-10000} $LAUNCHER --class-path '$STORE_CLASSES' $SIW_SELECT \
  --reports-dir $ROOT/$OUT/reports/store-siw) 2>&1 | tee $ROOT/$OUT/store-siw.log;
rc=\${PIPESTATUS[0]}; echo \"[guest] store test JVM (siw) exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/store-siw.rc;
"
  fi
fi
if [ $MODE_LATENCY = 1 ]; then
  # perftest: server and client in the guest, GID index 1 (::ffff:127.0.0.1 on lo, ::ffff:10.77.0.1 on dummy), 8 bytes
  LAT_ADDR=127.0.0.1; [ "${SOFTROCE_NETDEV:-lo}" = dummy ] && LAT_ADDR=10.77.0.1
  for t in ib_read_lat ib_write_lat ib_atomic_lat; do
    GUEST+="echo '[guest] $t'; (timeout 300 $t -d rxe0 -x 1 -s 8 -n $LAT_ITERS >/dev/null 2>&1 &); sleep 2;
timeout 300 $t -d rxe0 -x 1 -s 8 -n $LAT_ITERS $LAT_ADDR 2>&1 | grep -E '#bytes|^ *8 ' ; sleep 1;
"
  done
  GUEST+="echo '[guest] java'; timeout 900 $GUEST_JAVA $JVM_FLAGS -cp '$CLASSES' io.rdmakv.verbs.ibverbs.IbverbsLatency $LAT_ITERS $LAT_WARMUP 8;
"
fi
GUEST+="exit 0"

# 3. run it in the VM; output and reports come back through the shared (read-write) $OUT
echo "[softroce-verbs] starting the Soft-RoCE VM"
vm_start=$(date +%s)
set +e
SOFTROCE_RW="$ROOT/$OUT${SOFTROCE_RW:+:$SOFTROCE_RW}" "$VM_RUNNER" "$GUEST" 2>&1 | tee "$OUT/console.log"
vm_rc=${PIPESTATUS[0]}
set -e
echo "[softroce-verbs] VM run took $(( $(date +%s) - vm_start ))s, exit $vm_rc"

status=0
if [ $MODE_LATENCY = 1 ]; then
  grep -E '^\[guest\] ib_|#bytes|^ *8 |^java |^ibverbs latency' "$OUT/console.log" > "$OUT/latency.log" || true
  [ "$vm_rc" = 0 ] || status=1
fi
# $1 name, $2 log, $3 exit status file, $4 minimum successful
check() {
  local ok failed aborted skipped rc
  count() { sed -n "s/^\[ *\([0-9][0-9]*\) tests $1 *\]$/\1/p" "$2" 2>/dev/null | tail -1; }
  ok=$(count successful "$2"); failed=$(count failed "$2"); aborted=$(count aborted "$2"); skipped=$(count skipped "$2")
  rc=$(cat "$3" 2>/dev/null || echo none)
  echo "[softroce-verbs] $1 tests: ${ok:-?} successful, ${failed:-?} failed, ${aborted:-?} aborted (assumptions), ${skipped:-?} skipped; at least $4 must succeed"
  if [ -z "$ok" ]; then
    echo "[softroce-verbs] $1 FAILED: no test summary in the output (JVM crashed or timed out? exit $rc, VM exit $vm_rc)" >&2; return 1
  elif [ "${failed:-0}" != 0 ] || [ "$rc" != 0 ]; then
    echo "[softroce-verbs] $1 FAILED: test failures (test JVM exit $rc)" >&2; return 1
  elif [ "$ok" -lt "$4" ]; then
    echo "[softroce-verbs] $1 FAILED: only $ok tests succeeded, expected at least $4" >&2; return 1
  fi
  if [ "${aborted:-0}" != 0 ]; then
    echo "[softroce-verbs] $1: aborted (assumptions not met, with the reasons; the Soft-RoCE ones are in docs/development.md):"
    grep -F '■' "$2" | sed 's/^[│├└─ ]*/    /' | sort | uniq -c | sed 's/^ */    /'
  fi
  echo "[softroce-verbs] $1 OK"
}
if [ $MODE_VERBS = 1 ]; then
  check verbs "$OUT/verbs.log" "$OUT/verbs.rc" "$MIN_TESTS" || status=1
  if [ $VERBS_RDMACM = 1 ]; then
    check "conformance (rdma_cm)" "$OUT/verbs-rdmacm.log" "$OUT/verbs-rdmacm.rc" "$MIN_RDMACM_TESTS" || status=1
  fi
fi
if [ $MODE_STORE = 1 ]; then
  for cm in $STORE_CMS; do
    case "$cm" in
      exchange) check "store (--cm exchange)" "$OUT/store.log" "$OUT/store.rc" "$MIN_STORE_TESTS" || status=1 ;;
      rdmacm) check "store (--cm rdmacm)" "$OUT/store-rdmacm.log" "$OUT/store-rdmacm.rc" "$MIN_RDMACM_STORE_TESTS" || status=1 ;;
    esac
  done
fi
if [ $MODE_SIW = 1 ] && [ $SIW_VERBS = 1 ]; then
  check "conformance over siw (rdma_cm)" "$OUT/verbs-siw.log" "$OUT/verbs-siw.rc" "$MIN_SIW_TESTS" || status=1
fi
if [ $MODE_SIW = 1 ] && [ $SIW_STORE = 1 ]; then check "store over siw (--cm rdmacm, node-assisted)" "$OUT/store-siw.log" \
  "$OUT/store-siw.rc" "$MIN_SIW_STORE_TESTS" || status=1; fi
if [ "$vm_rc" != 0 ]; then echo "[softroce-verbs] the VM run itself failed (exit $vm_rc)" >&2; status=1; fi
[ $status = 0 ] && echo "[softroce-verbs] OK" || echo "[softroce-verbs] FAILED" >&2
exit $status
