#!/usr/bin/env bash
# The chart of a bench/grow.sh run: bench/grow-chart.sh CSV [PNG [SUBTITLE]] draws, from its per-second CSV,
# throughput and the read and update p99 and max over time, the add marked (dashed line: the first second not
# before it) and the seconds with batches in the map shaded; PNG defaults to the CSV's name with .png. Drawn
# with JFreeChart (io.rdmakv.bench.chart.GrowChart), as bench/ycsb.sh draws its results; builds the bench module
# first when it is not built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: bench/grow-chart.sh CSV [PNG [SUBTITLE]]" >&2; exit 2; }
csv=$1 png=${2:-${1%.csv}.png} subtitle=${3:-}
[ -r "$csv" ] || { echo "bench/grow-chart.sh: cannot read '$csv'" >&2; exit 2; }
. "$root/scripts/java25.sh"
if [ ! -f "$root/bench/target/classes/io/rdmakv/bench/chart/GrowChart.class" ] || [ ! -f "$root/bench/target/classpath.txt" ]; then
  "$root/scripts/mvn" -B -q -pl bench -am package -DskipTests >&2
fi
"$JAVA_HOME/bin/java" -Djava.awt.headless=true -cp "$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")" \
  io.rdmakv.bench.chart.GrowChart "$csv" "$png" "$subtitle"
echo "chart: $png"
