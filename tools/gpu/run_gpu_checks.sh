#!/usr/bin/env bash
# The GPU checks of issue 24, as one prepared script for a machine with an NVIDIA GPU: builds the
# GPU targets with --config=cuda, runs the GPU tests with MXNET_REQUIRE_GPU set to the machine's
# GPU count (a test that needs a GPU then fails instead of skipping), runs the caching allocator's
# benchmark, and writes a short report to $OUT/gpu_report.md (logs beside it).
#
#   tools/gpu/run_gpu_checks.sh                  build with ./bazelw here, then run
#   tools/gpu/run_gpu_checks.sh --prebuilt DIR   run binaries packed by tools/gpu/pack_prebuilt.sh
#                                                (for a machine without Bazel or the Debian packages)
#   --allow-no-gpu                               dry run on a machine without a GPU (tests skip)
#   OUT=DIR                                      where the report goes (default: a temporary dir)
#
# On a lent GPU machine without Bazel (the device tool's image: CUDA 13, driver 580, no Bazel):
# here `tools/gpu/pack_prebuilt.sh .gpu_prebuilt` (about 83 MB with nccl_gpu_test's libraries,
# over the tool's 64 MiB: carry `tar -cJf` of it, about 15 MB, into a folder git ignores, e.g. via
# .git/info/exclude), then there unpack it and run `tools/gpu/run_gpu_checks.sh --prebuilt DIR`;
# the report lands in that machine's $OUT.
#
# What runs today: //ndarray/backends/cuda:gpu_test (device count and properties, streams,
# copyto/as_in_context CPU<->GPU and GPU<->GPU (direct peer copies with 2+ GPUs), Storage through
# the caching allocator, out of memory, the CPU fallback of an op without a GPU kernel, the
# generic elementwise kernel for every op it covers against the host run of its per-thread body
# (which elemwise_plan_test checks against the CPU reference kernels), and elementwise ops
# dispatched to it), :caching_allocator_test, //tools/build_defs:cuda_smoke_test (a kernel), and
# :caching_allocator_benchmark, and //gluon/kvstore:nccl_gpu_test (kvstore "nccl" with the real
# NCCL on every GPU, one GPU = one rank: allreduce/broadcast, push/pull, a Trainer step equal to
# the CPU run with the whole batch; skipped, visibly, without libnccl.so.2 on the machine). The tests run with MXNET_GPU_FALLBACK=error, so an op that should
# have run a GPU kernel but fell back to the CPU fails (tests of the fallback itself set it
# themselves). Exit status: 0 when everything built and passed.
set -uo pipefail
caller_dir="$PWD"
cd "$(dirname "$0")/../.."
prebuilt=""
allow_no_gpu=0
while (($#)); do
  case "$1" in
    --prebuilt) prebuilt="$2"; shift 2 ;;
    --allow-no-gpu) allow_no_gpu=1; shift ;;
    *) echo "run_gpu_checks: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -n "$prebuilt" ]]; then  # absolute (LD_LIBRARY_PATH below), relative to the caller
  prebuilt="$(cd "$caller_dir" && cd "$prebuilt" && pwd)" || exit 2
fi
OUT="${OUT:-$(mktemp -d -t mxnet-gpu-checks.XXXXXX)}"
mkdir -p "$OUT"
report="$OUT/gpu_report.md"

ngpu=0
if command -v nvidia-smi >/dev/null 2>&1; then
  ngpu="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
fi
if ((ngpu == 0 && !allow_no_gpu)); then
  echo "run_gpu_checks: no GPU here (nvidia-smi lists none); --allow-no-gpu for a dry run" >&2
  exit 2
fi

TESTS=(gpu_test caching_allocator_test cuda_smoke_test nccl_gpu_test)
LABELS=(//ndarray/backends/cuda:gpu_test //ndarray/backends/cuda:caching_allocator_test
        //tools/build_defs:cuda_smoke_test //gluon/kvstore:nccl_gpu_test)
BENCH=//ndarray/backends/cuda:caching_allocator_benchmark

{
  echo "# GPU checks, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if ((ngpu > 0)); then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader |
      sed 's/^/- GPU /'
  else
    echo "- GPU: none (dry run, --allow-no-gpu)"
  fi
  echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  if [[ -n "$prebuilt" ]]; then
    echo "- mode: prebuilt binaries from $prebuilt (tools/gpu/pack_prebuilt.sh)"
  else
    echo "- mode: ./bazelw build --config=cuda (fastbuild, -O2)"
  fi
} >"$report"

status=0
declare -A bin
if [[ -n "$prebuilt" ]]; then
  for t in "${TESTS[@]}" caching_allocator_benchmark; do bin[$t]="$prebuilt/$t"; done
  export LD_LIBRARY_PATH="$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  start=$SECONDS
  if ./bazelw build --config=cuda "${LABELS[@]}" "$BENCH" >"$OUT/build.log" 2>&1; then
    echo "- build: OK in $((SECONDS - start)) s (build.log)" >>"$report"
  else
    echo "- build: FAILED (build.log; last lines below)" >>"$report"
    tail -20 "$OUT/build.log" | sed 's/^/    /' >>"$report"
    exit 1
  fi
  bb="$(./bazelw info --config=cuda bazel-bin 2>/dev/null)"
  bin[gpu_test]="$bb/ndarray/backends/cuda/gpu_test"
  bin[caching_allocator_test]="$bb/ndarray/backends/cuda/caching_allocator_test"
  bin[cuda_smoke_test]="$bb/tools/build_defs/cuda_smoke_test"
  bin[caching_allocator_benchmark]="$bb/ndarray/backends/cuda/caching_allocator_benchmark"
  bin[nccl_gpu_test]="$bb/gluon/kvstore/nccl_gpu_test"
fi

echo -e "\n## Tests (MXNET_REQUIRE_GPU=$ngpu MXNET_GPU_FALLBACK=error)\n" >>"$report"
for t in "${TESTS[@]}"; do
  start=$SECONDS
  # NCCL (libnccl.so.2, about 200 MB) is not packed by pack_prebuilt.sh: it must be on the
  # machine (the CUDA toolkit's lib/ or the loader path); without it, a visible skip.
  if [[ "$t" == nccl_gpu_test ]] && ldd "${bin[$t]}" 2>/dev/null | grep -q 'libnccl.*not found'; then
    echo "- $t: SKIPPED: libnccl.so.2 not found on this machine (NCCL untested here)" >>"$report"
    continue
  fi
  MXNET_REQUIRE_GPU="$ngpu" MXNET_GPU_FALLBACK=error timeout 300 "${bin[$t]}" >"$OUT/$t.log" 2>&1
  rc=$?
  summary="$(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$OUT/$t.log" | tr '\n' ' ')"
  if ((rc == 0)); then r=ok; else r="FAILED (exit $rc)"; status=1; fi
  echo "- $t: $r, $((SECONDS - start)) s: ${summary:-no gtest summary}" >>"$report"
  grep -E '^(GPU runtime:|\[no GPU\]|gpu\([0-9]+\): |NCCL over )' "$OUT/$t.log" | sed 's/^/    /' >>"$report"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/$t.log" | sort -u | sed 's/^/    /' >>"$report"
done

echo -e "\n## Caching allocator benchmark (ns per operation)\n" >>"$report"
if timeout 120 "${bin[caching_allocator_benchmark]}" --benchmark_min_time=0.2 \
  >"$OUT/benchmark.txt" 2>&1; then
  grep -E '^BM_' "$OUT/benchmark.txt" | sed 's/^/    /' >>"$report"
else
  echo "    benchmark FAILED (benchmark.txt)" >>"$report"
  status=1
fi
echo -e "\nresult: $([[ $status == 0 ]] && echo PASS || echo FAIL)" >>"$report"
cat "$report"
exit "$status"
