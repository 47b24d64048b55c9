#!/usr/bin/env bash
# Runs the verbs module's ibverbs tests (and the verbs conformance suite, once it exists) against a
# real kernel RDMA device: a Soft-RoCE device (rxe0) in a throwaway qemu VM started by
# ../shared/softroce/run-in-softroce-vm.sh. Builds on this machine first; the VM runs precompiled
# classes in one JVM.
#
# Usage: scripts/softroce-verbs.sh [--tests] [--latency] [--all]
#   --tests    (default) JUnit Platform Console Launcher over io.rdmakv.verbs.ibverbs and
#              io.rdmakv.verbs.conformance with -Drdmakv.conformance.providers=ibverbs; fails if any
#              test fails or fewer than SOFTROCE_MIN_TESTS succeed
#   --latency  READ/WRITE/CAS/FAA latency from Java (IbverbsLatency) next to perftest's
#              ib_read_lat / ib_write_lat / ib_atomic_lat in the same VM
#   --all      both, in one VM boot
# Env: SOFTROCE_MIN_TESTS (default 31)   SOFTROCE_TEST_TIMEOUT seconds for the test JVM (default 900)
#      SOFTROCE_MEMLOCK_KB memlock limit of the test JVM, which runs without CAP_IPC_LOCK so that the
#                          limit applies (default 65536)
#      LAT_ITERS / LAT_WARMUP (default 5000 / 20000: C2 compiles slowly under emulation)   and everything run-in-softroce-vm.sh reads
# Output and reports: verbs/target/softroce/ (console.log, reports/, latency.log)
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

MODE_TESTS=0; MODE_LATENCY=0
[ $# -eq 0 ] && MODE_TESTS=1
for arg in "$@"; do
  case "$arg" in
    --tests) MODE_TESTS=1 ;;
    --latency) MODE_LATENCY=1 ;;
    --all) MODE_TESTS=1; MODE_LATENCY=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "softroce-verbs: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

GUEST_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
[ -x "$GUEST_JAVA" ] || { echo "softroce-verbs: $GUEST_JAVA is missing (the guest sees this machine's /)" >&2; exit 2; }
MIN_TESTS=${SOFTROCE_MIN_TESTS:-31}
TEST_TIMEOUT=${SOFTROCE_TEST_TIMEOUT:-900}
MEMLOCK_KB=${SOFTROCE_MEMLOCK_KB:-65536}
LAT_ITERS=${LAT_ITERS:-5000}
LAT_WARMUP=${LAT_WARMUP:-20000}
OUT=verbs/target/softroce

# 1. build here: test classes, the test classpath, and the console launcher matching our JUnit
start=$(date +%s)
echo "[softroce-verbs] building on the host"
rm -rf "$OUT"; mkdir -p "$OUT/reports"
scripts/mvn -B -q -pl verbs test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/softroce/classpath.full -Dmdep.includeScope=test
PLATFORM_VERSION=$(tr ':' '\n' < "$OUT/classpath.full" | sed -n 's#.*/junit-platform-engine-\([^/]*\)\.jar$#\1#p' | head -1)
[ -n "$PLATFORM_VERSION" ] || { echo "softroce-verbs: no junit-platform-engine on the test classpath" >&2; exit 1; }
scripts/mvn -B -q -pl verbs dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:"$PLATFORM_VERSION" \
  -DoutputDirectory=target/softroce -Dmdep.stripVersion=true
# the standalone launcher brings JUnit itself: keep only our other dependencies
CP=$(tr ':' '\n' < "$OUT/classpath.full" | grep -vE '/org/junit/|/org/opentest4j/|/org/apiguardian/' | paste -sd: -)
CLASSES=$ROOT/verbs/target/test-classes:$ROOT/verbs/target/classes${CP:+:$CP}
echo "[softroce-verbs] built in $(( $(date +%s) - start ))s (JUnit Platform $PLATFORM_VERSION)"

# 2. what the guest runs (bash -c, in this directory, with this environment)
JVM_FLAGS="--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xshare:auto"
GUEST=""
if [ $MODE_TESTS = 1 ]; then
  # One JVM, C1 only (start-up is ~15x slower under TCG). Without CAP_IPC_LOCK and with a finite
  # memlock limit, so that the memlock test runs and everything else proves it fits in the limit.
  GUEST+="echo '[guest] tests: memlock '$MEMLOCK_KB' KiB, no CAP_IPC_LOCK'; t0=\$(date +%s.%N);
ulimit -l $MEMLOCK_KB;
timeout -k 10 $TEST_TIMEOUT setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock -- \
  $GUEST_JAVA $JVM_FLAGS -XX:TieredStopAtLevel=1 -Dbasedir=$ROOT/verbs -Drdmakv.conformance.providers=ibverbs \
  -jar $ROOT/$OUT/junit-platform-console-standalone.jar execute \
  --class-path '$CLASSES' \
  --select-package io.rdmakv.verbs.ibverbs --select-package io.rdmakv.verbs.conformance \
  --details=tree --disable-banner --disable-ansi-colors --reports-dir $ROOT/$OUT/reports;
rc=\$?; echo \"[guest] test JVM exit \$rc after \$(echo \"\$(date +%s.%N) - \$t0\" | bc | cut -c1-6)s\"; echo \$rc > $ROOT/$OUT/tests.rc;
"
fi
if [ $MODE_LATENCY = 1 ]; then
  # perftest: server and client in the guest, GID index 1 (::ffff:127.0.0.1 on lo), 8 bytes
  for t in ib_read_lat ib_write_lat ib_atomic_lat; do
    GUEST+="echo '[guest] $t'; (timeout 300 $t -d rxe0 -x 1 -s 8 -n $LAT_ITERS >/dev/null 2>&1 &); sleep 2;
timeout 300 $t -d rxe0 -x 1 -s 8 -n $LAT_ITERS 127.0.0.1 2>&1 | grep -E '#bytes|^ *8 ' ; sleep 1;
"
  done
  GUEST+="echo '[guest] java'; timeout 900 $GUEST_JAVA $JVM_FLAGS -cp '$CLASSES' io.rdmakv.verbs.ibverbs.IbverbsLatency $LAT_ITERS $LAT_WARMUP 8;
"
fi
GUEST+="exit \$(cat $ROOT/$OUT/tests.rc 2>/dev/null || echo 0)"

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
fi
if [ $MODE_TESTS = 1 ]; then
  count() { sed -n "s/^\[ *\([0-9][0-9]*\) tests $1 *\]$/\1/p" "$OUT/console.log" | tail -1; }
  ok=$(count successful); failed=$(count failed); aborted=$(count aborted); skipped=$(count skipped)
  echo "[softroce-verbs] tests: ${ok:-?} successful, ${failed:-?} failed, ${aborted:-?} aborted (assumptions), ${skipped:-?} skipped; at least $MIN_TESTS must succeed"
  if [ -z "$ok" ]; then
    echo "[softroce-verbs] FAILED: no test summary in the output (JVM crashed or timed out?)" >&2; status=1
  elif [ "${failed:-0}" != 0 ] || [ "$vm_rc" != 0 ]; then
    echo "[softroce-verbs] FAILED: test failures (exit $vm_rc)" >&2; status=1
  elif [ "$ok" -lt "$MIN_TESTS" ]; then
    echo "[softroce-verbs] FAILED: only $ok tests succeeded, expected at least $MIN_TESTS" >&2; status=1
  else
    echo "[softroce-verbs] OK"
  fi
elif [ "$vm_rc" != 0 ]; then
  status=1
fi
exit $status
