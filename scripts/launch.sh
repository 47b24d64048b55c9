# Sourced by bin/kvserver and bin/kvctl: selects Java 25, builds the module if needed, runs MAIN_CLASS.
# Expects MODULE (server or kvctl: the module whose jar and target/lib it runs) and MAIN_CLASS to be
# set. RDMAKV_CLASSPATH, when set, is used as the class path instead of the module's target folder (no build):
# tests run the launchers on their own class path.
# Class-data sharing: the first run writes an archive of the classes it loaded ($target/cds/, rewritten
# when the class path changes, -XX:+AutoCreateSharedArchive) and later runs map it instead of loading and
# verifying those classes again. RDMAKV_CDS=off runs without it; so does a RDMAKV_CLASSPATH run (an archive
# needs a class path of jars only).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/java25.sh"
target="$root/$MODULE/target"
if [ -z "${RDMAKV_CLASSPATH:-}" ] &&
   { [ ! -d "$target/classes" ] || [ ! -d "$target/lib" ] || [ -n "${RDMAKV_REBUILD:-}" ] ||
     ! ls "$target"/rdmakv-"$MODULE"-*.jar >/dev/null 2>&1; }; then
  echo "[rdmakv] building $MODULE (first run) ..." >&2
  "$root/scripts/mvn" -B -q -pl "$MODULE" -am package -DskipTests >&2 || { echo "[rdmakv] build failed" >&2; exit 1; }
fi
cds=()
if [ -n "${RDMAKV_CLASSPATH:-}" ]; then
  classpath=$RDMAKV_CLASSPATH
else
  jar=$(ls "$target"/rdmakv-"$MODULE"-*.jar | head -1)
  classpath="$jar:$target/lib/*"
  if [ -n "$(find "$target/classes" -newer "$jar" -type f -print -quit)" ]; then
    classpath="$target/classes:$target/lib/*" # compiled since the last package: run what was compiled, unarchived
  elif [ "${RDMAKV_CDS:-on}" != off ] && mkdir -p "$target/cds" 2>/dev/null; then
    archive="$target/cds/${MAIN_CLASS##*.}.jsa"
    # a jar rebuilt since the archive was written makes it unusable, and the JVM does not rewrite it: drop it
    if [ -e "$archive" ] && [ -n "$(find "$jar" "$target/lib" -newer "$archive" -print -quit)" ]; then
      rm -f "$archive"
    fi
    cds=(-XX:SharedArchiveFile="$archive" -XX:+AutoCreateSharedArchive -Xlog:cds*=off -Xlog:aot*=off)
  fi
fi
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED "${cds[@]}" ${RDMAKV_JAVA_OPTS:-} \
  -cp "$classpath" "$MAIN_CLASS" "$@"
