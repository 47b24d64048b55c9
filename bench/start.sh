#!/usr/bin/env bash
# Start-up of a client against a running node: connect to first GET cold (a fresh JVM) and warm (the
# median of fresh connects in a warmed JVM), with and without the class-data-sharing archive the launchers
# use (scripts/launch.sh). Prints key=value lines per case. Builds what it needs.
# Usage: bench/start.sh --hosts HOST:PORT [--transport T] [--runs N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/java25.sh"
hosts= transport=auto runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: bench/start.sh --hosts HOST:PORT [--transport T] [--runs N]" >&2; exit 2 ;;
  esac
done
[ -n "$hosts" ] || { echo "usage: bench/start.sh --hosts HOST:PORT [--transport T] [--runs N]" >&2; exit 2; }
"$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
# jars only: a class-data-sharing archive cannot cover a directory on the class path
cp="$(ls "$root"/bench/target/rdmakv-bench-*.jar):$(cat "$root/bench/target/classpath.txt")"
archive="$root/bench/target/first-operation.jsa"
rm -f "$archive"
run() { "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED "$@" -cp "$cp" io.rdmakv.bench.FirstOperation \
  --hosts "$hosts" --transport "$transport"; }
cds=(-XX:SharedArchiveFile="$archive" -XX:+AutoCreateSharedArchive -Xlog:cds=off,aot=off)
# one run to write the archive (AutoCreateSharedArchive dumps it at exit), not measured
run "${cds[@]}" >/dev/null
# alternated, so that the machine's load drifts over both cases alike
for i in $(seq "$runs"); do
  run | sed "s/^/cds_off_run${i}_/"
  run "${cds[@]}" | sed "s/^/cds_on_run${i}_/"
done
