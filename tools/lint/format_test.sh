#!/usr/bin/env bash
# Bazel test: clang-format style of every tracked C++ source (tools/lint/format.sh's check).
# The sandbox links format.sh to the source tree; the workspace is found through that link.
# Tagged "external" (never cached): the result depends on every source file, not on declared deps.
set -euo pipefail
script="$(readlink -f "$TEST_SRCDIR/$TEST_WORKSPACE/tools/lint/format.sh")"
root="$(cd "$(dirname "$script")/../.." && pwd)"
if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "format_test: $root is not a git checkout; nothing to check" >&2
  exit 0
fi
BUILD_WORKSPACE_DIRECTORY="$root" exec "$script"
