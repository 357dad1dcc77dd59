// Parameters of MXNet 1.9.1's internal index/count ops registered in reduce_index.cc:
// _ravel_multi_index, _unravel_index, _histogram, _onehot_encode, _scatter_set_nd, _square_sum
// (see that file for shapes and semantics; _scatter_set_nd uses ScatterNDParam and
// _square_sum ReduceAxesParam of reduce_params.h). These ops have no nd:: wrappers: call them by
// name (mxnet::Invoke("_histogram", {x}, {{"bin_cnt", "4"}, {"range", "(0, 3)"}})).
#pragma once

#include <optional>
#include <vector>

#include "ndarray/params.h"

namespace mxnet::ops {

// _ravel_multi_index / _unravel_index (MXNet's RavelParam).
struct RavelParam {
  std::optional<Shape> shape;  // required in practice: None is an error at inference
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &RavelParam::shape)
        .describe("Shape of the array into which the multi-indices apply.");
  }
};

// _histogram (MXNet's HistogramParam): bin_cnt and range together (uniform bins) or neither
// (bin edges from the `bins` input).
struct HistogramParam {
  std::optional<int> bin_cnt;
  std::optional<std::vector<double>> range;
  template <class D>
  static void Declare(D& d) {
    d.field("bin_cnt", &HistogramParam::bin_cnt).describe("Number of bins for uniform case.");
    d.field("range", &HistogramParam::range)
        .describe("The lower and upper range of the bins (lower <= upper).");
  }
  std::string Validate() const {
    if (bin_cnt.has_value() != range.has_value())
      return "bin_cnt and range must be given both or neither";
    if (bin_cnt && *bin_cnt < 0) return StrCat("bin_cnt=", *bin_cnt, " must be >= 0");
    if (range && range->size() != 2)
      return StrCat("range must have 2 values (lower, upper), got ", range->size());
    if (range && (*range)[0] > (*range)[1])
      return StrCat("range lower ", PyFloatRepr((*range)[0]), " must be <= upper ",
                    PyFloatRepr((*range)[1]));
    return "";
  }
};

}  // namespace mxnet::ops
