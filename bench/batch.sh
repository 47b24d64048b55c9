#!/usr/bin/env bash
# One thread: synchronous GETs (or PUTs, --mode put) against the same 16 at a time (getAll/putAll) and 16
# getAsync/putAsync outstanding, side by side in one
# run against a running cluster (key=value lines: ops/s, round trips per operation, cache hit ratio, speed-ups).
# Builds what it needs. Usage: bench/batch.sh --hosts HOST:PORT [--transport T] [--mode get|put] [--records N] [--ops N]
#                              [--batch N] [--value-size B]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms512m -Xmx512m \
  -cp "$cp" io.rdmakv.bench.BatchBenchmark "$@"
