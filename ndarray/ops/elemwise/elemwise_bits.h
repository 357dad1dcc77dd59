// Dtype dispatch for kernels that only copy elements (where, _npi_where): one unsigned integer
// type per element size instead of one instantiation per dtype. A copy through it moves the same
// bits as a copy in the element's own type, so results are unchanged (build time only).
#pragma once

#include <cstdint>

#include "base/dtype.h"
#include "base/error.h"

namespace mxnet::ops::ew {

// Calls f.template operator()<U>() with U = uint8_t, uint16_t, uint32_t or uint64_t, the unsigned
// type of dtype t's size (bool, int8, uint8: 1 byte; float16, bfloat16, (u)int16: 2; ...).
template <typename F>
void BitsTypeSwitch(DType t, F&& f) {
  switch (DTypeSize(t)) {
    case 1:
      f.template operator()<uint8_t>();
      break;
    case 2:
      f.template operator()<uint16_t>();
      break;
    case 4:
      f.template operator()<uint32_t>();
      break;
    case 8:
      f.template operator()<uint64_t>();
      break;
    default:
      MX_THROW(absl::StatusCode::kInternal, "unexpected size of dtype ", DTypeName(t));
  }
}

}  // namespace mxnet::ops::ew
