#include "ndarray/backends/cuda/elemwise_plan.h"

#include <algorithm>

#include "base/error.h"
#include "base/half.h"
#include "base/strings.h"
#include "ndarray/backends/cuda/elemwise_ops.h"

namespace mxnet::backends::cuda {

std::string ElemwisePlan::ToString() const {
  return StrCat("vec ", vec, ", ", n_vec, " vectors + ", n - n_vec * vec, " tail, grid ", grid,
                " x ", block);
}

ElemwisePlan PlanElemwise(int64_t n, size_t elem_bytes, std::span<const uintptr_t> addresses,
                          int multiprocessors) {
  if (n < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "PlanElemwise: negative element count ", n);
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
    MX_THROW(absl::StatusCode::kInvalidArgument, "PlanElemwise: element size ", elem_bytes,
             " is not 1, 2, 4 or 8 bytes");
  if (multiprocessors < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "PlanElemwise: ", multiprocessors,
             " multiprocessors");
  ElemwisePlan p;
  p.n = n;
  p.block = kElemwiseBlock;
  p.vec = static_cast<int>(kMaxVectorBytes / elem_bytes);
  auto aligned = [&](int vec) {
    for (uintptr_t a : addresses)
      if (a % (vec * elem_bytes) != 0) return false;
    return true;
  };
  while (p.vec > 1 && !aligned(p.vec)) p.vec /= 2;
  p.n_vec = n / p.vec;
  const int64_t tail = n - p.n_vec * p.vec;
  const int64_t work = std::max(p.n_vec, tail);  // per-thread items of the longer loop
  const int64_t cap = int64_t{multiprocessors} * kBlocksPerSm;
  p.grid = work == 0 ? 0 : std::min(cap, (work + p.block - 1) / p.block);
  return p;
}

float EwHalfToFloat(uint16_t bits) { return Half::ToFloat(bits); }
uint16_t EwFloatToHalf(float f) { return Half::FromFloat(f); }

}  // namespace mxnet::backends::cuda
