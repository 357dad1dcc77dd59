#!/usr/bin/env bash
# tools/fuzz/build.sh [TARGET...]: builds the libFuzzer targets of //tools/fuzz with clang-14,
# ASan and UBSan (--config=fuzz), in a separate Bazel output base so that the default g++ build's
# outputs and analysis cache stay untouched. Prints one line per target: NAME PATH-OF-BINARY.
# Default targets: all of them. The output base is $MXNET_FUZZ_OUTPUT_BASE, default
# ~/.cache/mxnet-cpp/fuzz-output-base-<hash of the checkout's path>.
set -euo pipefail
cd "$(dirname "$0")/../.."
ALL=(ndarray_params_fuzzer ndarray_npy_fuzzer symbol_json_fuzzer image_fuzzer model_store_fuzzer
     onnx_fuzzer c_api_symbol_fuzzer c_api_ndarray_fuzzer c_api_image_fuzzer c_api_onnx_fuzzer)
targets=("$@")
((${#targets[@]})) || targets=("${ALL[@]}")
labels=()
for t in "${targets[@]}"; do labels+=("//tools/fuzz:$t"); done
hash="$(pwd | md5sum | cut -c1-8)"
export MXNET_BAZEL_OUTPUT_BASE="${MXNET_FUZZ_OUTPUT_BASE:-$HOME/.cache/mxnet-cpp/fuzz-output-base-$hash}"
rc=0
./bazelw build --config=fuzz --keep_going "${labels[@]}" >&2 || rc=$?
bin="$(./bazelw info --config=fuzz bazel-bin 2>/dev/null)"
# With --keep_going the targets that did build are listed even when others failed (exit 1).
for t in "${targets[@]}"; do
  if [ -x "$bin/tools/fuzz/$t" ]; then echo "$t $bin/tools/fuzz/$t"; else echo "build.sh: $t was not built" >&2; fi
done
exit $rc
