#!/usr/bin/env bash
# Closed-loop store benchmark against a running cluster (key=value lines: throughput, latency
# percentiles, round trips per operation, control messages per 100 PUTs). Builds what it needs.
# Usage: bench/store.sh --hosts HOST:PORT [--transport T] [--records N] [--ops N] [--threads N]
#                       [--value-size B] [--read-percent P] [--wait busy-spin|adaptive|blocking]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms512m -Xmx512m \
  -cp "$cp" io.rdmakv.bench.StoreBenchmark "$@"
