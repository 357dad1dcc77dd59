#!/usr/bin/env bash
# tools/fuzz/sanitizers.sh [asan|tsan|all]: the sanitizer runs of docs/reliability.md.
#  asan: the whole suite (//...) under ASan + UBSan (--config=asan_ubsan, g++ 12);
#  tsan: the tests that run threads under ThreadSanitizer (--config=tsan), TSAN_TARGETS below.
# For each run prints: date, configuration, targets passed/failed/skipped, wall-clock duration;
# the lines are also appended to $MXNET_SANITIZER_LOG (default /tmp/mxnet-sanitizers.log) with
# the full Bazel output next to it. Extra arguments after the mode go to `bazel test`.
# Both configurations compile the tree again (different flags): on 2 cores expect an hour or
# more for asan from an empty cache. Runs in the checkout's own Bazel output base (another one
# would descend into the bazel-* links in //...), so other builds there wait for it.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode="${1:-all}"; shift || true
LOG="${MXNET_SANITIZER_LOG:-/tmp/mxnet-sanitizers.log}"

# Tests whose code under test starts threads (thread pools, DataLoader workers, concurrent
# CachedOp/imperative calls, the C ABI from several threads).
TSAN_TARGETS=(
  //base:threading_test
  //ndarray:runtime_context_test
  //ndarray:op_test
  //ndarray/backends:primitive_cache_test
  //ndarray/backends:scratch_test
  //autograd:autograd_test
  //gluon:block_test
  //gluon/data:dataloader_test
  //symbol:executor_test
  //c_api:thread_test
  //tools/stress:concurrency_stress_test
)

run() {
  local name="$1"; shift
  local out="${LOG%.log}-$name-$(date -u +%Y%m%dT%H%M%SZ).out"
  local t0; t0=$(date +%s)
  echo "== $name: ./bazelw test $* (full output: $out)" >&2
  ./bazelw test --keep_going "$@" >"$out" 2>&1
  local rc=$?
  local secs=$(($(date +%s) - t0))
  # Bazel's summary: "Executed N out of M tests: K tests pass and F fail ..." / "... skipped".
  local summary; summary="$(grep -E '^(INFO: )?(Executed|[0-9]+ tests? pass)|tests pass|fail locally|were skipped' "$out" | tail -3 | tr '\n' ' ')"
  local passed failed
  passed=$(grep -cE '^//.* PASSED' "$out")
  failed=$(grep -cE '^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$out")
  local line
  line="$(date -u '+%Y-%m-%d %H:%M UTC') $name: rc=$rc, $passed test targets passed, $failed failed/not built, $((secs / 60)) min $((secs % 60)) s; $summary"
  echo "$line" | tee -a "$LOG"
  grep -E '^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$out" | sed 's/^/    /' | tee -a "$LOG"
  return $rc
}

status=0
case "$mode" in
  asan|all) run asan_ubsan --config=asan_ubsan "$@" //... || status=1 ;;&
  tsan|all) run tsan --config=tsan "${TSAN_TARGETS[@]}" "$@" || status=1 ;;
  asan) ;;
  *) echo "usage: tools/fuzz/sanitizers.sh [asan|tsan|all] [bazel test args]" >&2; exit 2 ;;
esac
exit $status
