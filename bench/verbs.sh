#!/usr/bin/env bash
# Verbs benchmark: a raw TCP ping-pong and the verbs layer's READ/WRITE/CAS latency and READ throughput,
# measured in one run, printed as key=value lines. Builds what it needs first.
# Usage: bench/verbs.sh [--provider tcp|ibverbs|auto] [--iterations N] [--warmup N] [--seconds S]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms256m -Xmx256m -XX:+UseParallelGC \
  -cp "$cp" io.rdmakv.bench.VerbsBenchmark "$@"
