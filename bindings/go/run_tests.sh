#!/usr/bin/env bash
# Runs the Go binding's checks with the Go toolchain (Debian's golang-go, no network:
# GOPROXY=off): gofmt, go vet, go test ./... under GODEBUG=cgocheck=2 (including the check that
# nd/ops_gen.go equals a fresh generation), and one short run of the S8 benchmarks. Prints a
# final "N passed, N failed" line (tests; skips, such as the pending S3-S6, are counted apart; a
# failing gofmt/vet/build/benchmark step counts as one failure).
#
# S3-S5 and the command tests compare with the C++ `mxnet` tool (bazel-bin/tools/mxnet/mxnet, or
# the second argument); without it those comparisons skip, naming it. Real data: ../shared
# (MXNET_SHARED_DIR; found next to the real checkout of this script) and Debian's
# dataset-fashion-mnist.
#
#   bindings/go/run_tests.sh                      # uses bazel-bin/c_api/libmxc.so.1 in this checkout
#   bindings/go/run_tests.sh path/to/libmxc.so.1 [path/to/mxnet]   # what //bindings/go:go_test passes
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lib="${1:-}"
cli="${2:-}"
# ../shared of the real checkout (Bazel runs a symlinked copy of this script).
if [ -z "${MXNET_SHARED_DIR:-}" ]; then
  real="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
  if [ -d "$real/../../../shared" ]; then export MXNET_SHARED_DIR="$(cd "$real/../../../shared" && pwd)"; fi
fi
# One intra-op thread unless told otherwise: on a machine shared with other work, OpenMP teams
# of 2+ threads wait at every barrier for a descheduled thread (S4 trained in 282 s with 2
# threads and 22 s with 1 on this 2-core machine at load 15). Results do not depend on it.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

if ! command -v go >/dev/null; then
  echo "run_tests.sh: 'go' not found (Debian package golang-go; ./bazelw installs it)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

work="${TEST_TMPDIR:-$(mktemp -d)}"
export GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=on CGO_ENABLED=1
export GOCACHE="${GOCACHE:-$work/gocache}" GOPATH="${GOPATH:-$work/gopath}"
if [ -n "${TEST_TMPDIR:-}" ]; then export HOME="$TEST_TMPDIR"; fi

if [ -n "$lib" ]; then
  # Under Bazel (or with an explicit library): a private copy of the sources next to the
  # headers, as in the repository, so the cgo directives' relative paths hold.
  lib="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"
  if [ -n "$cli" ]; then export MXNET_CLI="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"; fi
  repo="$(cd "$here/../.." && pwd)"
  src="$work/src"
  rm -rf "$src"
  mkdir -p "$src/bindings" "$src/c_api" "$work/lib"
  cp -rL "$here" "$src/bindings/go"
  cp -rL "$repo/c_api/include" "$src/c_api/include"
  mkdir -p "$src/gluon/nn/testdata"
  cp -L "$repo"/gluon/nn/testdata/cifar_*.nd "$src/gluon/nn/testdata/"
  mkdir -p "$src/ndarray/testdata/mx"
  cp -L "$repo"/ndarray/testdata/mx/sparse_v2.nd "$src/ndarray/testdata/mx/"
  cp -L "$lib" "$work/lib/libmxc.so.1"
  export CGO_LDFLAGS="-L$work/lib -Wl,-rpath,$work/lib"
  cd "$src/bindings/go"
  chmod -R u+w .
else
  cd "$here"
  if [ ! -e ../../bazel-bin/c_api/libmxc.so.1 ]; then
    echo "run_tests.sh: build the library first: ./bazelw build //c_api:libmxc.so.1" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
fi

steps_failed=0
step() { # step NAME CMD...: runs a step, counts a failure
  echo "== $1"
  shift
  if ! "$@"; then
    echo "FAILED: $*" >&2
    steps_failed=$((steps_failed + 1))
  fi
}
gofmt_clean() {
  local bad
  bad="$(gofmt -l .)"
  [ -z "$bad" ] || { echo "not gofmt-formatted: $bad" >&2; return 1; }
}

step "gofmt" gofmt_clean
step "go vet" go vet ./...

echo "== go test (GODEBUG=cgocheck=2)"
log="$work/go-test.log"
GODEBUG=cgocheck=2 go test -count=1 -v -timeout 20m ./... 2>&1 | tee "$log"
test_rc=${PIPESTATUS[0]}
passed=$(grep -cE '^\s*--- PASS:' "$log")
failed=$(grep -cE '^\s*--- FAIL:' "$log")
skipped=$(grep -cE '^\s*--- SKIP:' "$log")
broken=$(grep -cE '^FAIL\s.*\[(build|setup) failed\]|^panic:' "$log")
if [ "$test_rc" -ne 0 ] && [ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]; then broken=1; fi
grep -E '^\s*--- SKIP:' -B1 "$log" | grep -vE '^\s*--- SKIP:|^--$' | sed 's/^ */skipped: /' || true

step "S8 benchmarks (smoke run; bench_s8.sh measures)" \
  go test -count=1 -run '^$' -bench S8 -benchtime 200x .

failed=$((failed + broken + steps_failed))
echo "${passed} passed, ${failed} failed (${skipped} skipped)"
[ "$failed" -eq 0 ]
