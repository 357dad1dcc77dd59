// mxnet.gluon.utils.split_data / split_and_load (MXNet 1.9.1 semantics): slicing a batch along
// its batch axis for data-parallel training, one slice per device.
#pragma once

#include <vector>

#include "base/device.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::utils {

// Splits `data` (any shape, any dtype; ndim >= 1) into `num_slice` pieces along `batch_axis`
// (default 0; negative counts from the end). With size = data.shape[batch_axis], the first
// size % num_slice pieces get size / num_slice + 1 rows, the others size / num_slice (MXNet's
// divmod rule; pieces can be empty when size < num_slice and even_split is false). Axis 0
// pieces are views of `data` (NDArray::slice), other axes copies (slice_axis).
// Errors (kInvalidArgument): num_slice < 1, batch_axis out of range, a none or 0-d array, and
// with even_split (the default) a size not divisible by num_slice (MXNet's message: "data with
// shape S cannot be evenly split into N slices along axis A. ...").
std::vector<NDArray> split_data(const NDArray& data, int num_slice, int batch_axis = 0,
                                bool even_split = true);

// split_data(data, devices.size(), batch_axis, even_split), piece i moved to devices[i]
// (as_in_context: no copy when it is already there). One device: [data.as_in_context(d)].
// Errors: as split_data; kInvalidArgument for an empty device list.
std::vector<NDArray> split_and_load(const NDArray& data, const std::vector<Device>& devices,
                                    int batch_axis = 0, bool even_split = true);

}  // namespace mxnet::gluon::utils
