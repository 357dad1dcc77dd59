// Helpers of the ndarray family shared with dlpack.cc and the families returning arrays.
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "base/device.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "mxc/ndarray.h"
#include "ndarray/ndarray.h"

namespace mxc {

// product(shape) * dtype size. Throws kInvalidArgument naming `arg` on overflow.
size_t ByteSize(const mxnet::Shape& shape, mxnet::DType dtype, std::string_view arg);

// An array using caller memory in place (see mxc_ndarray_from_external); `release` runs when the
// last user is gone. Checks nbytes against the shape, NULL data and alignment (naming `arg`), and
// that the build has the device.
mxnet::NDArray WrapExternal(void* data, size_t nbytes, const mxnet::Shape& shape,
                            mxnet::DType dtype, mxnet::Device device, std::function<void()> release,
                            std::string_view arg);

// Moves arrays[0..n) into +1 handles at out[0..n) and sets *count = n, all or nothing (nothing
// is written on error). Errors: kOutOfRange "<what> returns <n> <noun> but the <noun> buffer
// holds <max>".
void ReturnArrays(std::span<mxnet::NDArray> arrays, mxc_ndarray** out, size_t max, size_t* count,
                  std::string_view what, std::string_view noun);

}  // namespace mxc
