// Test cases (//ndarray:all_ops_test) of reduce_index.cc's internal index/count ops. Index
// inputs sit between integers so finite differences of the (piecewise constant) ravel ops
// stay zero, like their declared gradient.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {
std::function<std::vector<NDArray>(DType, uint64_t)> Fixed(std::vector<std::vector<double>> v,
                                                           std::vector<Shape> s,
                                                           std::vector<int> int_inputs = {}) {
  return [=](DType dt, uint64_t) {
    std::vector<NDArray> in;
    for (size_t i = 0; i < v.size(); ++i) {
      bool is_int =
          std::find(int_inputs.begin(), int_inputs.end(), static_cast<int>(i)) != int_inputs.end();
      in.push_back(NDArray::FromVector(v[i], s[i], cpu(), is_int ? DType::kInt64 : dt));
    }
    return in;
  };
}
}  // namespace

MX_OP_TEST_CASE({.op = "_ravel_multi_index",
                 .attrs = {{"shape", "(7, 6)"}},
                 .shapes = {{2, 3}},
                 .make_inputs = Fixed({{3.3, 6.5, 6.2, 4.4, 5.6, 1.5}}, {{2, 3}})});
MX_OP_TEST_CASE({.op = "_unravel_index",
                 .attrs = {{"shape", "(2, 3, 4)"}},
                 .shapes = {{4}},
                 .make_inputs = Fixed({{22.5, 5.5, 17.2, 0.3}}, {{4}})});
MX_OP_TEST_CASE({.op = "_histogram",
                 .attrs = {{"bin_cnt", "4"}, {"range", "(-1.0, 1.0)"}},
                 .shapes = {{3, 5}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_histogram",
                 .shapes = {{6}, {4}},
                 .make_inputs = Fixed({{0.1, 0.5, 1.0, 2.0, 3.0, -1}, {0, 1, 1.5, 3}}, {{6}, {4}}),
                 .check_grad = false,
                 .label = "(bins input)"});
MX_OP_TEST_CASE({.op = "_onehot_encode",
                 .shapes = {{3}, {3, 4}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{
                           NDArray::FromVector(std::vector<double>{0, 3, 7}, {3}, cpu(),
                                               DType::kFloat32),
                           NDArray::Full({3, 4}, 0, cpu(), DType::kFloat32)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_scatter_set_nd",
                 .attrs = {{"shape", "(3, 2)"}},
                 .shapes = {{3, 2}, {2, 2}, {1, 2}},
                 .make_inputs = Fixed({{1, 2, 3, 4, 5, 6}, {9, 8, 7, 6}, {2, 0}},
                                      {{3, 2}, {2, 2}, {1, 2}}, {2}),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_square_sum", .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "_square_sum",
                 .attrs = {{"axis", "(1,)"}, {"keepdims", "True"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_square_sum",
                 .attrs = {{"axis", "(0,)"}, {"exclude", "True"}},
                 .shapes = {{2, 3}}});

}  // namespace mxnet::testing
