#!/usr/bin/env bash
# Runs each cluster and fault test N times (default 10), one JVM per run, and reports how many runs of each
# passed; keeps the reports of every failed run under system-tests/target/loop/<Test>-<run>/. A test that
# fails once is a bug until its cause is found: read the kept reports (and, for the ZooKeeper cluster tests, the
# nodes' logs).
#   scripts/loop-tests.sh [-n N] [TEST ...]     (default tests: system-tests' cluster/, faults/ and nemesis tests)
# Exit status: 0 when every run passed, 1 otherwise, 2 on a bad argument.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=10
tests=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "loop-tests: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) tests+=("$1"); shift ;;
  esac
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then echo "loop-tests: -n needs a positive count, got '$runs'" >&2; exit 2; fi
if [ ${#tests[@]} -eq 0 ]; then
  tests=(CutOffNodeTest FailoverTest FailoverLinearizabilityTest ChainSweepFailoverTest RetriedWriteTest
         RollingRestartTest NodeRoleNodeTest ZooKeeperDownTest MapChangeHistoryTest
         StoppedPrimaryReadTest DroppedConnectionTest KilledClientTest NodeStoppedTest ServerShutdownTest NemesisTest)
fi
. scripts/java25.sh
echo "loop-tests: building once (install, tests compiled, none run)"
scripts/mvn -B -q ${MVN_FLAGS:-} install -DskipTests || exit 1
out=system-tests/target/loop
rm -rf "$out"; mkdir -p "$out"
status=0
summary=()
for t in "${tests[@]}"; do
  passed=0
  for ((i = 1; i <= runs; i++)); do
    start=$(date +%s)
    if scripts/mvn -B -q ${MVN_FLAGS:-} -pl system-tests surefire:test -Dtest="$t" -Dsurefire.failIfNoSpecifiedTests=false \
        -Drdmakv.test.mapchange=true -Drdmakv.test.nemesis=true > "$out/$t-$i.log" 2>&1; then
      passed=$((passed + 1)); rm -f "$out/$t-$i.log"
      echo "loop-tests: $t run $i/$runs passed ($(( $(date +%s) - start )) s)"
    else
      status=1
      mkdir -p "$out/$t-$i"; cp system-tests/target/surefire-reports/*"$t"* "$out/$t-$i/" 2>/dev/null
      cp system-tests/target/node-logs/"$t"-* "$out/$t-$i/" 2>/dev/null # the ZooKeeper cluster tests' node logs
      echo "loop-tests: $t run $i/$runs FAILED ($(( $(date +%s) - start )) s): $out/$t-$i.log"
    fi
  done
  summary+=("$t $passed/$runs")
done
echo "loop-tests: passed runs per test:"
printf '  %s\n' "${summary[@]}"
exit $status
