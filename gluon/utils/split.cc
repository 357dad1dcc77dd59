#include "gluon/utils/split.h"

#include <string>

#include "base/error.h"
#include "ndarray/op.h"

namespace mxnet::gluon::utils {

std::vector<NDArray> split_data(const NDArray& data, int num_slice, int batch_axis,
                                bool even_split) {
  if (data.is_none())
    MX_THROW(absl::StatusCode::kInvalidArgument, "split_data: the data array is none");
  const int ndim = static_cast<int>(data.shape().ndim());
  if (ndim < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "split_data: cannot split a 0-d array (shape ",
             data.shape().ToString(), ")");
  if (num_slice < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "split_data: num_slice must be >= 1, got ",
             num_slice);
  const int axis = batch_axis < 0 ? batch_axis + ndim : batch_axis;
  if (axis < 0 || axis >= ndim)
    MX_THROW(absl::StatusCode::kInvalidArgument, "split_data: batch_axis ", batch_axis,
             " is out of range for data of shape ", data.shape().ToString());
  const int64_t size = data.shape()[axis];
  if (even_split && size % num_slice != 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "data with shape ", data.shape().ToString(),
             " cannot be evenly split into ", num_slice, " slices along axis ", batch_axis,
             ". Use a batch size that's multiple of ", num_slice,
             " or set even_split=False to allow uneven partitioning of data.");
  const int64_t each = size / num_slice, extras = size % num_slice;
  std::vector<NDArray> out;
  out.reserve(static_cast<size_t>(num_slice));
  int64_t begin = 0;
  for (int i = 0; i < num_slice; ++i) {
    const int64_t end = begin + each + (i < extras ? 1 : 0);
    if (axis == 0) {
      out.push_back(data.slice(begin, end));
    } else {
      const std::vector<NDArray> in{data};
      out.push_back(Invoke("slice_axis", in,
                           {{"axis", std::to_string(axis)},
                            {"begin", std::to_string(begin)},
                            {"end", std::to_string(end)}})[0]);
    }
    begin = end;
  }
  return out;
}

std::vector<NDArray> split_and_load(const NDArray& data, const std::vector<Device>& devices,
                                    int batch_axis, bool even_split) {
  if (devices.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "split_and_load: empty device list");
  if (data.is_none())
    MX_THROW(absl::StatusCode::kInvalidArgument, "split_and_load: the data array is none");
  if (devices.size() == 1) return {data.as_in_context(devices[0])};
  std::vector<NDArray> pieces =
      split_data(data, static_cast<int>(devices.size()), batch_axis, even_split);
  for (size_t i = 0; i < pieces.size(); ++i) pieces[i] = pieces[i].as_in_context(devices[i]);
  return pieces;
}

}  // namespace mxnet::gluon::utils
