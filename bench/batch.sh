#!/usr/bin/env bash
# One thread: synchronous GETs against the same GETs 16 at a time (KvClient.getAll), side by side in one
# run against a running cluster (key=value lines: ops/s, round trips per GET, cache hit ratio, speed-up).
# Builds what it needs. Usage: bench/batch.sh --hosts HOST:PORT [--transport T] [--records N] [--ops N]
#                              [--batch N] [--value-size B]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms512m -Xmx512m \
  -cp "$cp" io.rdmakv.bench.BatchBenchmark "$@"
