# Sourced by ./mvnw before anything else: makes sure Maven runs on a JDK >= 25.
# A fresh machine of this kind has OpenJDK 17 as the default `java` and Temurin 25 under /usr/lib/jvm, so when
# JAVA_HOME is unset or older than 25 we look there (and under /opt/java, /usr/local/lib/jvm) for the newest JDK >= 25.
# The version is read from the JDK's `release` file, which costs no JVM start.
jcni_jdk_major() {
  sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}
jcni_required_jdk=25
jcni_have=$( [ -n "${JAVA_HOME-}" ] && jcni_jdk_major "$JAVA_HOME" )
if [ -z "$jcni_have" ] || [ "$jcni_have" -lt "$jcni_required_jdk" ]; then
  jcni_best="" ; jcni_best_major=0
  for jcni_dir in /usr/lib/jvm/* /opt/java/* /usr/local/lib/jvm/*; do
    [ -x "$jcni_dir/bin/javac" ] || continue
    jcni_m=$(jcni_jdk_major "$jcni_dir")
    [ -n "$jcni_m" ] || continue
    if [ "$jcni_m" -ge "$jcni_required_jdk" ] && [ "$jcni_m" -gt "$jcni_best_major" ]; then
      jcni_best=$jcni_dir ; jcni_best_major=$jcni_m
    fi
  done
  if [ -z "$jcni_best" ]; then
    echo "jcni needs a JDK ${jcni_required_jdk} or newer (JAVA_HOME=${JAVA_HOME-<unset>} is ${jcni_have:-not a JDK})." >&2
    echo "Install one (e.g. Temurin 25 under /usr/lib/jvm) or point JAVA_HOME at it." >&2
    exit 1
  fi
  JAVA_HOME=$jcni_best
  export JAVA_HOME
fi
unset jcni_have jcni_best jcni_best_major jcni_dir jcni_m jcni_required_jdk
