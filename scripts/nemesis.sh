#!/usr/bin/env bash
# The nemesis long run: three ZooKeeper servers, three nodes (groups of two) and client
# processes, each in its own network namespace; faults by nftables cuts, signals and kills; every key's history
# checked. Needs root, ip netns and nft (scripts/setup.sh installs nftables and iproute2).
#   scripts/nemesis.sh [--minutes N] [--faults all|LIST] [--rounds K] [--clients C] [--threads T] [--keys K] [--out DIR]
# LIST: zk-cut,client-cut,group-cut,one-way (= one-way-in,one-way-out),stop,kill,term,zk-one,zk-quorum,move.
# move (move under faults) gives the run two more nodes (started at its first phase, forming group 1) and 16
# partitions; see docs/development.md.
# Each fault type runs K rounds on fresh keys; with --minutes the passes over the list repeat until N minutes
# have passed. Writes DIR/report.md and DIR/report.json (default system-tests/target/nemesis), logs and merged
# histories under DIR/work. Exit status: 0 all linearizable and nothing lost, 1 findings or an aborted run,
# 2 bad arguments, 3 the machine cannot host it. MVN_FLAGS (e.g. -o) go to the build.
set -euo pipefail
. "$(dirname "$0")/java25.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cp_file="$root/system-tests/target/nemesis-classpath.txt"
# shellcheck disable=SC2086
scripts/mvn -B -q ${MVN_FLAGS:-} -pl system-tests -am test-compile dependency:build-classpath \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >&2 || { echo "[nemesis] build failed" >&2; exit 1; }
exec java --enable-native-access=ALL-UNNAMED -cp "$root/system-tests/target/test-classes:$(cat "$cp_file")" \
  io.rdmakv.systemtests.nemesis.NemesisMain "$@"
