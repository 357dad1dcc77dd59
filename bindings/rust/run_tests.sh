#!/usr/bin/env bash
# Runs the Rust binding's tests: `cargo test --offline --locked --workspace` (unit, integration
# and doc tests of mxc-sys, mxnet and mxnet-opgen), then `cargo clippy -D warnings` when clippy is
# installed, and prints a final "N passed, N failed, N skipped" line (skipped = ignored tests:
# none today). Exit status 0 only when nothing failed.
#
# The scenario tests S3-S6 need real data and the C++ CLI as their reference: ../shared/data
# ($MXNET_SHARED_DIR), Fashion-MNIST (Debian's dataset-fashion-mnist, or $MXNET_FASHION_MNIST)
# and bazel-bin/tools/mxnet/mxnet ($MXNET_CLI; `./bazelw build //tools/mxnet:mxnet`).
#
# Outside Bazel: run from anywhere after
# `./bazelw build //c_api:libmxc.so.1 //c_api:libmxc_so //tools/mxnet:mxnet`
# (mxc-sys finds bazel-bin/c_api) or with MXC_LIB_DIR set. Under Bazel (//bindings/rust:rust_test)
# the sources are copied to $TEST_TMPDIR and built there against the runfiles' libmxc.so.1 and
# headers.
#
# Cargo: $CARGO, else the newest rustup stable toolchain (called directly, no rustup proxy, so it
# works with Bazel's strict PATH and HOME), else `cargo` on PATH or in ~/.cargo/bin. Needs Rust
# 1.77 or later (Debian 12's rustc 1.63 is too old).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
real_home="$(getent passwd "$(id -u)" | cut -d: -f6)"
real_home="${real_home:-${HOME:-/root}}"

find_cargo() {
  if [ -n "${CARGO:-}" ] && [ -x "$CARGO" ]; then echo "$CARGO"; return; fi
  local rustup_home="${RUSTUP_HOME:-$real_home/.rustup}" tc
  for tc in $(ls -d "$rustup_home"/toolchains/stable-* 2>/dev/null | sort -r); do
    if [ -x "$tc/bin/cargo" ]; then echo "$tc/bin/cargo"; return; fi
  done
  if command -v cargo >/dev/null 2>&1; then command -v cargo; return; fi
  if [ -x "$real_home/.cargo/bin/cargo" ]; then echo "$real_home/.cargo/bin/cargo"; return; fi
}

cargo_bin="$(find_cargo)"
if [ -z "$cargo_bin" ]; then
  echo "run_tests.sh: no cargo found (install Rust >= 1.77 with rustup, or set CARGO)" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
bindir="$(dirname "$cargo_bin")"
export PATH="$bindir:$PATH"
[ -x "$bindir/rustc" ] && export RUSTC="$bindir/rustc"
[ -x "$bindir/rustdoc" ] && export RUSTDOC="$bindir/rustdoc"

src="$here"
if [ -n "${TEST_TMPDIR:-}" ]; then
  # Under Bazel: libmxc.so.1 and the headers come from the runfiles; build in a private copy.
  runfiles="${RUNFILES_DIR:-$TEST_SRCDIR}/${TEST_WORKSPACE:-__main__}"
  export MXC_LIB_DIR="$runfiles/c_api"
  export MXC_INCLUDE_DIR="$runfiles/c_api/include"
  export CARGO_HOME="$TEST_TMPDIR/cargo-home"
  export CARGO_TARGET_DIR="$TEST_TMPDIR/target"
  mkdir -p "$TEST_TMPDIR/src" "$CARGO_HOME"
  cp -rL "$here/." "$TEST_TMPDIR/src/"
  rm -rf "$TEST_TMPDIR/src/target"
  src="$TEST_TMPDIR/src"
  # The scenario tests' references: the C++ CLI from the runfiles, ../shared next to the source
  # tree this script (a runfiles symlink) lives in.
  export MXNET_CLI="${MXNET_CLI:-$runfiles/tools/mxnet/mxnet}"
  export MXNET_IO_TESTDATA="${MXNET_IO_TESTDATA:-$runfiles/ndarray/testdata/mx}"
  repo_root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
  if [ -z "${MXNET_SHARED_DIR:-}" ] && [ -d "$repo_root/../shared/data" ]; then
    export MXNET_SHARED_DIR="$(cd "$repo_root/../shared" && pwd)"
  fi
  # The rustup toolchain still wants its own home for nothing but reading.
  [ -d "$real_home/.rustup" ] && export RUSTUP_HOME="${RUSTUP_HOME:-$real_home/.rustup}"
fi

# One intra-op thread unless the caller chose: on a shared, loaded machine an OpenMP team waits
# at every op's barrier for its descheduled thread (base/threading.h; cmd_train.cc's ThreadTuner).
# Measured with load ~15 on 2 cores: LeNet forward+backward of 128 images 0.97 s with 2 threads,
# 0.14 s with 1 (S4's training takes ~4 min instead of ~30 s). Calls from many Rust threads (S6)
# are unaffected.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

cd "$src" || exit 1
echo "run_tests.sh: $("$cargo_bin" --version) in $src"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

"$cargo_bin" test --offline --locked --workspace 2>&1 | tee "$log"
test_rc=${PIPESTATUS[0]}

read -r passed failed ignored < <(awk '
  /^test result:/ {
    for (i = 1; i <= NF; i++) {
      if ($(i) ~ /^passed;?$/) p += $(i-1)
      if ($(i) ~ /^failed;?$/) f += $(i-1)
      if ($(i) ~ /^ignored;?$/) g += $(i-1)
    }
  }
  END { print p+0, f+0, g+0 }' "$log")
# A build failure runs no tests: count it as a failure.
if [ "$test_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=$((failed + 1)); fi

if "$cargo_bin" clippy --version >/dev/null 2>&1; then
  if "$cargo_bin" clippy --offline --locked --workspace --all-targets -- -D warnings; then
    echo "clippy: clean"
    passed=$((passed + 1))
  else
    echo "clippy: warnings (see above)"
    failed=$((failed + 1))
  fi
else
  echo "clippy: not installed, skipped"
  ignored=$((ignored + 1))
fi

echo "$passed passed, $failed failed, $ignored skipped"
[ "$failed" -eq 0 ]
