// Shape-inference helpers shared by the conv family's registration files (internal).
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"
#include "base/shape.h"

namespace mxnet::ops {

// Whether `actual` may be `expected`: unknown rank, or the same rank with equal known dims.
inline bool ShapesCompatible(const Shape& actual, const Shape& expected) {
  if (!actual.ndim_known() || !expected.ndim_known()) return true;
  if (actual.ndim() != expected.ndim()) return false;
  for (int i = 0; i < actual.ndim(); ++i)
    if (actual[i] >= 0 && expected[i] >= 0 && actual[i] != expected[i]) return false;
  return true;
}

// Merges `expected` into *slot (unknown dims filled from either side). Throws kInvalidArgument
// "<op>: <name> has shape A, expected B <why>" on a mismatch.
inline void AssignShape(std::string_view op, std::string_view name, Shape* slot,
                        const Shape& expected, std::string_view why = "") {
  if (!ShapesCompatible(*slot, expected))
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ", name, " has shape ", slot->ToString(),
             ", expected ", expected.ToString(), why.empty() ? "" : " ", why);
  if (!expected.ndim_known()) return;
  if (!slot->ndim_known()) {
    *slot = expected;
    return;
  }
  for (int i = 0; i < slot->ndim(); ++i)
    if ((*slot)[i] < 0) (*slot)[i] = expected[i];
}

}  // namespace mxnet::ops
