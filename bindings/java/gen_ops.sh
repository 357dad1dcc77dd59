#!/usr/bin/env bash
# Regenerates src/main/java/org/mxnetcpp/Ops.java from the built libmxc's operator metadata
# (run after the C ABI's operators change; OpsGenTest fails until then).
#   bindings/java/gen_ops.sh [LIBMXC_SO LIBMXC_JNI_SO]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
mxc="${1:-$repo/bazel-bin/c_api/libmxc.so.1}"
jni="${2:-$repo/bazel-bin/bindings/java/libmxc_jni.so}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$here"
# The library without Ops.java (the generator needs only the core classes).
javac --release 17 -encoding UTF-8 -d "$work/classes" \
  $(find src/main/java -name '*.java' ! -name Ops.java)
javac --release 17 -encoding UTF-8 -cp "$work/classes" -d "$work/tools" \
  $(find src/tools/java -name '*.java')
java -Dmxc.library="$(readlink -f "$mxc")" -Dmxc.jni.library="$(readlink -f "$jni")" \
  -cp "$work/classes:$work/tools" org.mxnetcpp.tools.OpGen src/main/java/org/mxnetcpp/Ops.java
echo "wrote $here/src/main/java/org/mxnetcpp/Ops.java ($(wc -l <src/main/java/org/mxnetcpp/Ops.java) lines)"
