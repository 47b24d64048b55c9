# Sourced by bin/kvserver and bin/kvctl: selects Java 25, builds the module if needed, runs MAIN_CLASS.
# Expects MODULE (server or kvctl: the module whose target/classes and target/lib it runs) and MAIN_CLASS to be
# set. RDMAKV_CLASSPATH, when set, is used as the class path instead of the module's target folder (no build):
# tests run the launchers on their own class path.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/java25.sh"
target="$root/$MODULE/target"
classpath=${RDMAKV_CLASSPATH:-"$target/classes:$target/lib/*"}
if [ -z "${RDMAKV_CLASSPATH:-}" ] &&
   { [ ! -d "$target/classes" ] || [ ! -d "$target/lib" ] || [ -n "${RDMAKV_REBUILD:-}" ]; }; then
  echo "[rdmakv] building $MODULE (first run) ..." >&2
  "$root/scripts/mvn" -B -q -pl "$MODULE" -am package -DskipTests >&2 || { echo "[rdmakv] build failed" >&2; exit 1; }
fi
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${RDMAKV_JAVA_OPTS:-} \
  -cp "$classpath" "$MAIN_CLASS" "$@"
