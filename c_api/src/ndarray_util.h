// Helpers of the ndarray family shared with dlpack.cc.
#pragma once

#include <functional>
#include <string_view>

#include "base/device.h"
#include "base/dtype.h"
#include "base/shape.h"
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

}  // namespace mxc
