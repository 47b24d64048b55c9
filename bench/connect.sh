#!/usr/bin/env bash
# Times KvClient.connect + close against a running node (key=value lines: p50/p99/mean in microseconds),
# with or without TLS on the bootstrap. Builds what it needs.
# Usage: bench/connect.sh --hosts HOST:PORT [--transport T] [--token T] [--connects N] [--warmup N]
#                         [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
"$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xms256m -Xmx256m \
  -cp "$cp" io.rdmakv.bench.ConnectBenchmark "$@"
