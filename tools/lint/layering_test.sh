#!/usr/bin/env bash
# Bazel test: the package layering of docs/design.md §2 (tools/lint/layering.py) holds for every
# tracked BUILD file, and the checker catches a violation (a synthetic workspace where //base
# depends on //ndarray). Tagged "external" (never cached): the result depends on every BUILD file.
set -euo pipefail
script="$(readlink -f "$TEST_SRCDIR/$TEST_WORKSPACE/tools/lint/layering.py")"
root="$(cd "$(dirname "$script")/../.." && pwd)"

# 1. The checker fails on a downward-pointing violation and names it.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base" "$tmp/ndarray"
printf 'mx_cc_library(name = "base", deps = ["//ndarray:core"])\n' >"$tmp/base/BUILD"
printf 'mx_cc_library(name = "core", deps = ["//base"])\n' >"$tmp/ndarray/BUILD"
git -C "$tmp" init -q && git -C "$tmp" add base/BUILD ndarray/BUILD
if out="$(python3 "$script" "$tmp")"; then
  echo "layering_test: the checker accepted //base depending on //ndarray:" >&2
  echo "$out" >&2
  exit 1
fi
grep -q "//base:base (mx_cc_library, layer 'base') depends on //ndarray" <<<"$out" || {
  echo "layering_test: unexpected report for the synthetic violation:" >&2
  echo "$out" >&2
  exit 1
}

# 2. The real tree.
if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "layering_test: $root is not a git checkout; only the self-check ran" >&2
  exit 0
fi
exec python3 "$script" "$root"
