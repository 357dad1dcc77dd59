#!/usr/bin/env bash
# Builds the GPU check binaries here with --config=cuda and packs them, stripped, with the shared
# libraries they need that a plain CUDA machine may lack (Debian's absl, gtest, benchmark, libgomp,
# libstdc++, and CUDA's runtime), into DIR, for `tools/gpu/run_gpu_checks.sh --prebuilt DIR` on a
# GPU machine without Bazel (the device machine's image has CUDA 13 and no Bazel). The C library
# and the driver (libcuda) are the machine's own.
#   tools/gpu/pack_prebuilt.sh DIR        (DIR is emptied first; about 10-20 MB)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${1:?usage: tools/gpu/pack_prebuilt.sh DIR}"
targets=(//ndarray/backends/cuda:gpu_test //ndarray/backends/cuda:caching_allocator_test
         //tools/build_defs:cuda_smoke_test //ndarray/backends/cuda:caching_allocator_benchmark
         //gluon/kvstore:nccl_gpu_test)
./bazelw build --config=cuda "${targets[@]}" >&2
bb="$(./bazelw info --config=cuda bazel-bin 2>/dev/null)"
rm -rf "$dir"
mkdir -p "$dir/lib"
for b in ndarray/backends/cuda/gpu_test ndarray/backends/cuda/caching_allocator_test \
  tools/build_defs/cuda_smoke_test ndarray/backends/cuda/caching_allocator_benchmark \
  gluon/kvstore/nccl_gpu_test; do
  cp "$bb/$b" "$dir/"
  strip --strip-debug "$dir/$(basename "$b")"
  # Every resolved library except the C library, the loader, the driver and NCCL (about 200 MB:
  # the GPU machine must have it; run_gpu_checks.sh skips nccl_gpu_test visibly otherwise).
  ldd "$bb/$b" | awk '/=> \// {print $3}' |
    { grep -v -E '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libcuda|libnccl)\.so' || true; } |
    while read -r lib; do cp -L -n "$lib" "$dir/lib/"; done
done
chmod -R u+w "$dir"
strip --strip-debug "$dir/lib/"*.so* 2>/dev/null || true
du -sh "$dir" >&2
