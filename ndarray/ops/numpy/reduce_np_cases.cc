// Test cases (//ndarray:all_ops_test) of the NumPy-interface reductions (reduce_np.cc):
// finite-difference gradients in float64, optimized vs reference kernels, attribute round trips;
// NumPy axis rules (None: all, (): none, 0-dim results) and zero-size inputs.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

struct AxisCase {
  Shape shape;
  AttrDict attrs;
  const char* label;
};
const AxisCase kAxisCases[] = {
    {{2, 3, 4}, {}, "(all, 0-dim result)"},
    {{2, 3, 4}, {{"axis", "(1,)"}}, "(middle)"},
    {{2, 3, 4}, {{"axis", "(-1,)"}, {"keepdims", "True"}}, "(last,keepdims)"},
    {{2, 3, 4}, {{"axis", "(0, 2)"}}, "(outer two)"},
    {{2, 3, 4}, {{"axis", "()"}}, "(empty tuple: nothing reduced)"},
    {{2, 3, 4}, {{"keepdims", "True"}}, "(all,keepdims)"},
    {Shape(), {}, "(0-dim input)"},
};

int RegisterNpReduceCases() {
  for (const char* op : {"_np_sum", "_np_prod", "_npi_mean", "_np_max", "_np_min", "_npi_std",
                         "_npi_var", "_np_all", "_np_any"}) {
    std::string o = op;
    bool boolean = o == "_np_all" || o == "_np_any";
    for (const auto& c : kAxisCases) {
      OpTestCase t{.op = op, .attrs = c.attrs, .shapes = {c.shape}, .label = c.label};
      if (o == "_np_prod") t.lo = 0.5, t.hi = 1.5;
      (void)boolean;
      // std of a single element (nothing reduced / 0-dim) has no derivative.
      if ((o == "_npi_std" || o == "_npi_var") &&
          (c.shape.ndim() == 0 || (c.attrs.count("axis") && c.attrs.at("axis") == "()")))
        continue;
      RegisterOpTestCase(t);
    }
  }
  RegisterOpTestCase({.op = "_npi_var",
                      .attrs = {{"axis", "(1,)"}, {"ddof", "1"}},
                      .shapes = {{3, 4}},
                      .label = "(ddof=1)"});
  RegisterOpTestCase({.op = "_npi_std",
                      .attrs = {{"axis", "(0, 1)"}, {"ddof", "1"}, {"keepdims", "True"}},
                      .shapes = {{3, 4, 2}},
                      .label = "(ddof=1,keepdims)"});
  RegisterOpTestCase({.op = "_npi_mean",
                      .attrs = {{"axis", "(0,)"}, {"dtype", "float64"}},
                      .shapes = {{3, 2}},
                      .label = "(dtype)"});
  RegisterOpTestCase({.op = "_np_sum", .shapes = {{0, 3}}, .label = "(zero-size)"});
  RegisterOpTestCase({.op = "_np_max",
                      .attrs = {{"axis", "(1,)"}},
                      .shapes = {{0, 3}},
                      .label = "(zero-size, empty result)"});
  for (const char* op : {"_npi_argmax", "_npi_argmin"}) {
    RegisterOpTestCase({.op = op, .shapes = {{3, 4}}, .label = "(flattened)"});
    RegisterOpTestCase({.op = op, .attrs = {{"axis", "1"}}, .shapes = {{3, 4}}});
    RegisterOpTestCase({.op = op,
                        .attrs = {{"axis", "-3"}, {"keepdims", "True"}},
                        .shapes = {{2, 3, 4}},
                        .label = "(keepdims)"});
  }
  return 0;
}
[[maybe_unused]] const int kRegistered = RegisterNpReduceCases();

}  // namespace

MX_OP_TEST_CASE({.op = "_np_reduce_bcast",
                 .attrs = {{"axis", "(1,)"}},
                 .shapes = {{2, 4}, {2, 3, 4}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_np_reduce_bcast",
                 .attrs = {{"normalize", "True"}},
                 .shapes = {Shape(), {2, 3}},
                 .grad_inputs = {0},
                 .label = "(all, normalize)"});
MX_OP_TEST_CASE({.op = "_np_reduce_bcast",
                 .attrs = {{"axis", "(0, 2)"}, {"keepdims", "True"}, {"normalize", "True"}},
                 .shapes = {{1, 3, 1}, {2, 3, 4}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_np_cumsum", .shapes = {{2, 3}}, .label = "(flattened)"});
MX_OP_TEST_CASE({.op = "_np_cumsum", .attrs = {{"axis", "1"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_np_cumsum",
                 .attrs = {{"axis", "-3"}, {"dtype", "float64"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(first axis, dtype)"});
MX_OP_TEST_CASE({.op = "_np_cumsum", .shapes = {Shape()}, .label = "(0-dim)"});
MX_OP_TEST_CASE({.op = "_np_cumsum_backward",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{3, 2}, {3, 2}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_np_cumsum_backward",
                 .shapes = {{6}, {2, 3}},
                 .grad_inputs = {0},
                 .label = "(flattened)"});
MX_OP_TEST_CASE({.op = "_npi_average",
                 .attrs = {{"axis", "(1,)"}},
                 .shapes = {{2, 3}, {2, 3}},
                 .lo = 0.5,
                 .hi = 1.5});
MX_OP_TEST_CASE({.op = "_npi_average",
                 .attrs = {{"returned", "True"}},
                 .shapes = {{2, 3}, {2, 3}},
                 .lo = 0.5,
                 .hi = 1.5,
                 .label = "(all, returned)"});
MX_OP_TEST_CASE({.op = "_npi_average",
                 .attrs = {{"axis", "(-2,)"}, {"returned", "True"}},
                 .shapes = {{3, 2}, {3}},
                 .lo = 0.5,
                 .hi = 1.5,
                 .label = "(1-D weights)"});
MX_OP_TEST_CASE({.op = "_npi_average",
                 .attrs = {{"axis", "(0, 2)"}, {"weighted", "False"}, {"returned", "True"}},
                 .shapes = {{2, 3, 2}},
                 .label = "(unweighted)"});
MX_OP_TEST_CASE({.op = "_npi_average_backward",
                 .attrs = {{"axis", "(1,)"}},
                 .shapes = {{2}, {2}, {2, 3}, {2, 3}, {2}, {2}},
                 .lo = 0.5,
                 .hi = 1.5,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_average_backward",
                 .attrs = {{"weighted", "False"}},
                 .shapes = {Shape(), Shape(), {2, 3}, Shape(), Shape()},
                 .lo = 0.5,
                 .hi = 1.5,
                 .check_grad = false,
                 .label = "(unweighted)"});
MX_OP_TEST_CASE({.op = "_np_trace", .shapes = {{3, 3}}});
MX_OP_TEST_CASE({.op = "_np_trace",
                 .attrs = {{"offset", "1"}, {"axis1", "1"}, {"axis2", "2"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(offset, batch)"});
MX_OP_TEST_CASE({.op = "_np_trace",
                 .attrs = {{"offset", "-1"}, {"axis1", "-1"}, {"axis2", "0"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(negative offset, swapped axes)"});
MX_OP_TEST_CASE({.op = "_np_trace_backward",
                 .attrs = {{"offset", "1"}},
                 .shapes = {{4}, {3, 4, 4}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_npi_diff", .shapes = {{2, 5}}});
MX_OP_TEST_CASE({.op = "_npi_diff",
                 .attrs = {{"n", "2"}, {"axis", "0"}},
                 .shapes = {{4, 3}},
                 .label = "(n=2, axis 0)"});
MX_OP_TEST_CASE({.op = "_npi_diff",
                 .attrs = {{"n", "4"}},
                 .shapes = {{2, 3}},
                 .label = "(n past the axis: empty)"});
MX_OP_TEST_CASE({.op = "_npi_diff_backward",
                 .attrs = {{"n", "2"}, {"axis", "1"}},
                 .shapes = {{2, 2, 3}, {2, 4, 3}},
                 .grad_inputs = {0}});
// Bool input: nothing to difference (the gradient is zero).
MX_OP_TEST_CASE({.op = "_npx_constraint_check",
                 .shapes = {{2, 3}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{NDArray::FromVector(
                           std::vector<double>{1, 1, 1, 1, 1, 1}, {2, 3}, cpu(), DType::kBool)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_bincount",
                 .attrs = {{"minlength", "6"}},
                 .shapes = {{5}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{NDArray::FromVector(
                           std::vector<double>{0, 3, 3, 1, 4}, {5}, cpu(), DType::kInt32)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_bincount",
                 .attrs = {{"has_weights", "True"}},
                 .shapes = {{4}, {4}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           NDArray::FromVector(std::vector<double>{2, 0, 2, 5}, {4}, cpu(),
                                               DType::kInt64),
                           RandomArray({4}, -1, 1, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(weights)"});
MX_OP_TEST_CASE({.op = "_npi_ediff1d", .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_ediff1d",
                 .attrs = {{"to_begin_arr_given", "True"}, {"to_end_scalar", "2.5"}},
                 .shapes = {{5}, {2}},
                 .label = "(begin array, end scalar)"});
MX_OP_TEST_CASE({.op = "_npi_ediff1d",
                 .attrs = {{"to_begin_arr_given", "True"}, {"to_end_arr_given", "True"}},
                 .shapes = {{3, 2}, {2}, {3}},
                 .label = "(begin and end arrays)"});
MX_OP_TEST_CASE({.op = "_npi_ediff1d_backward",
                 .attrs = {{"to_begin_scalar", "1"}, {"to_end_arr_given", "True"}},
                 .shapes = {{7}, {4}, {3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_np_reduce_extremum_mask",
                 .attrs = {{"axis", "(1,)"}},
                 .shapes = {{3, 4}, {3}}});

}  // namespace mxnet::testing
