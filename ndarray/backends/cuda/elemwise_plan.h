// The launch plan of the generic elementwise GPU kernel (issue 24 item 2: one kernel generator
// with vectorized loads, not one hand-written kernel per op). Host code, no CUDA: compiled and
// tested in every build (elemwise_plan_test), used by elemwise_gpu.cc to launch
// elemwise_kernels.cu.
//
// A call maps n elements of one dtype (elem_bytes each) from up to two inputs to one output, all
// contiguous. The kernel reads and writes `vec` elements at a time (one 16-byte load/store for
// float32 x4 or float64 x2) when every pointer is aligned to vec * elem_bytes; it halves vec
// until they are (views at odd offsets get narrower vectors, down to scalar accesses). Elements
// [0, n_vec * vec) go in vectors, the rest [n_vec * vec, n) one by one. Threads: `block` per
// block, `grid` blocks, a grid-stride loop over the vectors then over the tail: thread t handles
// vectors t, t + grid * block, ... and tail elements n_vec * vec + t, + grid * block, ... The grid
// covers the work once, but at most `kBlocksPerSm` blocks per multiprocessor (larger arrays loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace mxnet::backends::cuda {

struct ElemwisePlan {
  int vec = 1;                   // elements per vector access: 1, 2, 4, 8 or 16 (16 bytes at most)
  int64_t n_vec = 0;             // whole vectors
  int64_t n = 0;                 // elements in all (tail: [n_vec * vec, n))
  int block = 256;               // threads per block
  int64_t grid = 0;              // blocks; 0 when n == 0 (nothing to launch)
  std::string ToString() const;  // "vec 4, 250 vectors + 1 tail, grid 1 x 256"
};

inline constexpr int kElemwiseBlock = 256;
inline constexpr int kBlocksPerSm = 32;
inline constexpr int kMaxVectorBytes = 16;

// Errors: kInvalidArgument for n < 0, elem_bytes not 1/2/4/8, or multiprocessors < 1.
ElemwisePlan PlanElemwise(int64_t n, size_t elem_bytes, std::span<const uintptr_t> addresses,
                          int multiprocessors);

}  // namespace mxnet::backends::cuda
