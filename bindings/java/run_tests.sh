#!/usr/bin/env bash
# Runs the Java binding's checks with the JDK (javac --release 17) and JUnit 5's console launcher
# from Debian's junit5 (/usr/share/java); no Maven, no network. Steps: compile the library with
# -Xlint:all -Werror and -Xdoclint (every public item documented), the generator and the tests;
# compile the examples (Classify, Train); run every JUnit test (S1-S8, including S8's overhead bound,
# S3-S5's comparisons with the C++ CLI, and the check that Ops.java equals a fresh generation).
# Prints a final "N passed, N failed (N skipped)" line; skipped tests (@Disabled ones marked
# PENDING) are listed and counted apart; a failing compile step counts as one failure.
#
#   bindings/java/run_tests.sh                        # bazel-bin libraries of this checkout
#   bindings/java/run_tests.sh LIBMXC_SO LIBMXC_JNI_SO MXNET_CLI  # what //bindings/java:java_test passes
#   JUNIT_SELECT="--select-class org.mxnetcpp.S8OverheadTest" bindings/java/run_tests.sh  # a subset
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
mxc="${1:-$repo/bazel-bin/c_api/libmxc.so.1}"
jni="${2:-$repo/bazel-bin/bindings/java/libmxc_jni.so}"
cli="${3:-$repo/bazel-bin/tools/mxnet/mxnet}" # the C++ CLI: S3/S4 compare the binding against it
junit="${JUNIT_CONSOLE:-/usr/share/java/junit-platform-console-standalone.jar}"

fail_setup() {
  echo "run_tests.sh: $*" >&2
  echo "0 passed, 1 failed (0 skipped)"
  exit 1
}
command -v javac >/dev/null || fail_setup "'javac' not found (Debian package openjdk-17-jdk-headless)"
command -v java >/dev/null || fail_setup "'java' not found (Debian package openjdk-17-jdk-headless)"
[ -f "$junit" ] || fail_setup "$junit not found (Debian package junit5)"
[ -f "$mxc" ] || fail_setup "$mxc not found: ./bazelw build //c_api:libmxc.so.1"
[ -f "$jni" ] || fail_setup "$jni not found: ./bazelw build //bindings/java:libmxc_jni.so"
[ -x "$cli" ] || fail_setup "$cli not found: ./bazelw build //tools/mxnet:mxnet"
mxc="$(cd "$(dirname "$mxc")" && pwd)/$(basename "$mxc")"
jni="$(cd "$(dirname "$jni")" && pwd)/$(basename "$jni")"
cli="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"

work="${TEST_TMPDIR:-$(mktemp -d)}/java"
rm -rf "$work"
mkdir -p "$work/classes" "$work/tools" "$work/examples" "$work/test-classes" "$work/reports"
# ../shared (the repository's sibling) holds the real model files. Under Bazel the script is a
# runfiles symlink: its real path leads back to the checkout (MXNET_SHARED_DIR overrides).
real_repo="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
shared="${MXNET_SHARED_DIR:-$(cd "$real_repo/.." && pwd)/shared}"
mkdir -p "$work/tmp"
# Files real MXNet wrote (//ndarray:io_testdata: from the runfiles, else the checkout).
iodata="$here/../../ndarray/testdata/mx"
[ -d "$iodata" ] || iodata="$real_repo/ndarray/testdata/mx"
iodata="$(cd "$iodata" && pwd)"

failed_steps=0
step() { # step NAME CMD...: runs a compile step; a failure counts once
  local name="$1"
  echo "== $name"
  shift
  if ! "$@"; then
    echo "FAILED: $name" >&2
    failed_steps=$((failed_steps + 1))
    return 1
  fi
}

cd "$here"
main_sources=$(find src/main/java -name '*.java' | sort)
step "javac (library, -Xlint:all -Werror, -Xdoclint)" \
  javac --release 17 -encoding UTF-8 -Xlint:all -Werror -Xdoclint:all/protected \
  -d "$work/classes" $main_sources &&
  step "javac (generator)" \
    javac --release 17 -encoding UTF-8 -Xlint:all -Werror -cp "$work/classes" -d "$work/tools" \
    $(find src/tools/java -name '*.java') &&
  step "javac (examples: Classify, Train)" \
    javac --release 17 -encoding UTF-8 -Xlint:all,-try -Werror -Xdoclint:all/protected \
    -cp "$work/classes" -d "$work/examples" $(find src/examples/java -name '*.java') &&
  step "javac (tests)" \
    javac --release 17 -encoding UTF-8 -Xlint:all,-try,-processing -Werror \
    -cp "$work/classes:$work/tools:$work/examples:$junit" -d "$work/test-classes" \
    $(find src/test/java -name '*.java')
if [ "$failed_steps" -ne 0 ]; then
  echo "0 passed, $failed_steps failed (0 skipped)"
  exit 1
fi

echo "== JUnit (console launcher)"
log="$work/junit.log"
java -XX:-UsePerfData -XX:+UseSerialGC -Djava.io.tmpdir="$work/tmp" \
  -Dmxc.library="$mxc" -Dmxc.jni.library="$jni" -Dmxc.shared.dir="$shared" -Dmxc.cli="$cli" \
  -Dmxc.io.testdata="$iodata" \
  -Dmxc.ops.source="$here/src/main/java/org/mxnetcpp/Ops.java" \
  -jar "$junit" --disable-banner --disable-ansi-colors --details=tree --details-theme=ascii \
  --class-path "$work/classes:$work/tools:$work/examples:$work/test-classes" ${JUNIT_SELECT:---scan-class-path} \
  --reports-dir "$work/reports" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

count() { # the number in the summary line "[  N tests WHAT  ]"
  sed -n "s/^\[ *\([0-9]*\) tests $1 *\]$/\1/p" "$log" | tail -1
}
passed=$(count successful)
failed=$(count failed)
skipped=$(count skipped)
aborted=$(count aborted)
passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0} aborted=${aborted:-0}
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi # the launcher itself failed
grep -E "\[S\] .*PENDING" "$log" | sed "s/^[^a-zA-Z]*/skipped: /" | sort -u || true
skipped=$((skipped + aborted))
echo "${passed} passed, ${failed} failed (${skipped} skipped)"
[ "$failed" -eq 0 ]
