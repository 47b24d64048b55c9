# Sourced by bin/kvserver and bin/kvctl: selects Java 25, builds the module if needed, runs MAIN_CLASS.
# Expects MODULE (server or client) and MAIN_CLASS to be set.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/java25.sh"
target="$root/$MODULE/target"
if [ ! -d "$target/classes" ] || [ ! -d "$target/lib" ] || [ -n "${RDMAKV_REBUILD:-}" ]; then
  echo "[rdmakv] building $MODULE (first run) ..." >&2
  "$root/scripts/mvn" -B -q -pl "$MODULE" -am package -DskipTests >&2 || { echo "[rdmakv] build failed" >&2; exit 1; }
fi
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${RDMAKV_JAVA_OPTS:-} \
  -cp "$target/classes:$target/lib/*" "$MAIN_CLASS" "$@"
