#!/usr/bin/env bash
# Repeats the experiments behind the Soft-RoCE deviations the conformance suite accepts (retry_cnt 7,
# RECVs posted in ERR): builds the verbs test classes here and runs io.rdmakv.verbs.ibverbs.RxeProbe in
# the Soft-RoCE VM (../shared/softroce/run-in-softroce-vm.sh). About 1.5 minutes; output on stdout.
# Use it to check whether another guest kernel or rdma-core still deviates (docs/development.md: Known rxe deviations).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VM_RUNNER=../shared/softroce/run-in-softroce-vm.sh
[ -x "$VM_RUNNER" ] || { echo "softroce-probe: $ROOT/$VM_RUNNER not found (or not executable)" >&2; exit 2; }
GUEST_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
mkdir -p verbs/target/softroce-probe
scripts/mvn -B -q -pl verbs test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/softroce-probe/classpath -Dmdep.includeScope=test
CLASSES=$ROOT/verbs/target/test-classes:$ROOT/verbs/target/classes:$(cat verbs/target/softroce-probe/classpath)
exec "$VM_RUNNER" "echo \"[guest] kernel \$(uname -r), rdma-core \$(dpkg-query -W -f='\${Version}' rdma-core)\";
timeout 300 $GUEST_JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -cp '$CLASSES' io.rdmakv.verbs.ibverbs.RxeProbe"
