# Sourced by rdmakv's scripts: selects Java 25 or fails with a clear message.
# Honours an existing JAVA_HOME that points at Java 25 or later.
rdmakv_java_version() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}'; }
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(rdmakv_java_version "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk /usr/lib/jvm/java-25-openjdk-amd64 /usr/lib/jvm/jdk-25*; do
    if [ -x "$candidate/bin/java" ]; then JAVA_HOME=$candidate; break; fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(rdmakv_java_version "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
  echo "rdmakv needs Java 25 or later; none found (looked at JAVA_HOME and /usr/lib/jvm/temurin-25-jdk-amd64)." >&2
  echo "Install a Java 25 JDK and set JAVA_HOME to it." >&2
  exit 1
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
