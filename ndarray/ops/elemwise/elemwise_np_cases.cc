// Test cases of the NumPy-interface elemwise ops (_npi_* / _npx_*), enumerated by
// //ndarray:all_ops_test: finite-difference gradients in float64, optimized vs reference
// kernels, attribute round trips; broadcasting with 0-dim and zero-size arrays.
#include <string>
#include <vector>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

struct Domain {
  const char* op;
  double lo, hi;
};

const Domain kBinary[] = {
    {"_npi_add", -1, 1},          {"_npi_subtract", -1, 1},      {"_npi_multiply", -1, 1},
    {"_npi_true_divide", 0.5, 2}, {"_npi_mod", 0.5, 2},          {"_npi_power", 0.5, 2},
    {"_npi_arctan2", -1, 1},      {"_npi_hypot", -1, 1},         {"_npi_copysign", -1, 1},
    {"_npi_ldexp", -1, 1},        {"_npi_equal", -1, 1},         {"_npi_not_equal", -1, 1},
    {"_npi_greater", -1, 1},      {"_npi_greater_equal", -1, 1}, {"_npi_less", -1, 1},
    {"_npi_less_equal", -1, 1},
};

struct ScalarCase {
  const char* op;
  const char* scalar;
  double lo, hi;
};
const ScalarCase kScalar[] = {
    {"_npi_add_scalar", "1.5", -1, 1},
    {"_npi_subtract_scalar", "1.5", -1, 1},
    {"_npi_rsubtract_scalar", "1.5", -1, 1},
    {"_npi_multiply_scalar", "-2.5", -1, 1},
    {"_npi_true_divide_scalar", "2.5", -1, 1},
    {"_npi_rtrue_divide_scalar", "2.5", 0.5, 2},
    {"_npi_mod_scalar", "0.7", 0.1, 2},
    {"_npi_rmod_scalar", "1.5", 0.5, 2},
    {"_npi_power_scalar", "2.5", 0.5, 2},
    {"_npi_rpower_scalar", "2.0", -1, 1},
    {"_npi_arctan2_scalar", "1.5", -1, 1},
    {"_npi_rarctan2_scalar", "-1.5", -1, 1},
    {"_npi_copysign_scalar", "-2.0", -1, 1},
    {"_npi_copysign_scalar", "2.0", -1, 1},
    {"_npi_rcopysign_scalar", "-2.0", -1, 1},
    {"_npi_ldexp_scalar", "1.5", -1, 1},
    {"_npi_rldexp_scalar", "1.5", -1, 1},
    {"_npi_equal_scalar", "0.0", -1, 1},
    {"_npi_not_equal_scalar", "0.0", -1, 1},
    {"_npi_greater_scalar", "0.25", -1, 1},
    {"_npi_greater_equal_scalar", "0.25", -1, 1},
    {"_npi_less_scalar", "-0.25", -1, 1},
    {"_npi_less_equal_scalar", "-0.25", -1, 1},
};

const Domain kUnary[] = {
    {"_npi_absolute", -2, 2},    {"_npi_abs", -2, 2},         {"_npi_sign", -2, 2},
    {"_npi_rint", -3, 3},        {"_npi_ceil", -3, 3},        {"_npi_floor", -3, 3},
    {"_npi_trunc", -3, 3},       {"_npi_fix", -3, 3},         {"_npi_square", -2, 2},
    {"_npi_sqrt", 0.5, 3},       {"_npi_cbrt", 0.5, 3},       {"_npi_exp", -2, 2},
    {"_npi_log", 0.5, 3},        {"_npi_log10", 0.5, 3},      {"_npi_log2", 0.5, 3},
    {"_npi_log1p", -0.5, 2},     {"_npi_expm1", -2, 2},       {"_npi_sin", -3, 3},
    {"_npi_cos", -3, 3},         {"_npi_tan", -1.2, 1.2},     {"_npi_sinh", -2, 2},
    {"_npi_cosh", -2, 2},        {"_npi_tanh", -2, 2},        {"_npi_arcsin", -0.9, 0.9},
    {"_npi_arccos", -0.9, 0.9},  {"_npi_arctan", -3, 3},      {"_npi_arcsinh", -3, 3},
    {"_npi_arccosh", 1.2, 3},    {"_npi_arctanh", -0.9, 0.9}, {"_npi_degrees", -3, 3},
    {"_npi_radians", -180, 180}, {"_npi_reciprocal", 0.5, 2}, {"_npx_relu", -1, 1},
    {"_npx_sigmoid", -3, 3},     {"_npi_isnan", -1, 1},       {"_npi_isinf", -1, 1},
    {"_npi_isposinf", -1, 1},    {"_npi_isneginf", -1, 1},    {"_npi_isfinite", -1, 1},
    {"_npi_logical_not", -1, 1}, {"_npi_nan_to_num", -1, 1},
};

// Integer inputs (lcm, bitwise ops): int32 values in [-20, 20] of the given shapes.
std::function<std::vector<NDArray>(DType, uint64_t)> IntInputs(std::vector<Shape> shapes) {
  return [shapes](DType, uint64_t seed) {
    std::vector<NDArray> v;
    for (const Shape& s : shapes)
      v.push_back(RandomArray(s, -20, 20, seed++, DType::kFloat64).astype(DType::kInt32));
    return v;
  };
}

int RegisterTables() {
  // Broadcasting: rank mismatch with size-1 stretch, a 0-dim operand, zero-size axes, equal shapes.
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 1, 3}, {4, 3}}, {Shape(), {2, 3}}, {{0, 3}, {1, 3}}, {{3, 4}, {3, 4}}};
  for (const auto& d : kBinary)
    for (const auto& [a, b] : shapes)
      RegisterOpTestCase({.op = d.op,
                          .shapes = {a, b},
                          .lo = d.lo,
                          .hi = d.hi,
                          .label = "(" + a.ToString() + " vs " + b.ToString() + ")"});
  for (const char* op : {"_npi_lcm", "_npi_bitwise_and", "_npi_bitwise_or", "_npi_bitwise_xor"})
    RegisterOpTestCase(
        {.op = op, .shapes = {{2, 1, 3}, {4, 3}}, .make_inputs = IntInputs({{2, 1, 3}, {4, 3}})});
  for (const auto& c : kScalar)
    RegisterOpTestCase({.op = c.op,
                        .attrs = {{"scalar", c.scalar}, {"is_int", "False"}},
                        .shapes = {{3, 4}},
                        .lo = c.lo,
                        .hi = c.hi,
                        .label = std::string("(scalar=") + c.scalar + ")"});
  for (const char* op : {"_npi_lcm_scalar", "_npi_bitwise_and_scalar", "_npi_bitwise_or_scalar",
                         "_npi_bitwise_xor_scalar"})
    RegisterOpTestCase({.op = op,
                        .attrs = {{"scalar", "6"}},
                        .shapes = {{3, 4}},
                        .make_inputs = IntInputs({{3, 4}})});
  for (const auto& d : kUnary) {
    RegisterOpTestCase({.op = d.op, .shapes = {{3, 4}}, .lo = d.lo, .hi = d.hi});
    RegisterOpTestCase(
        {.op = d.op, .shapes = {Shape()}, .lo = d.lo, .hi = d.hi, .label = "(0-dim)"});
  }
  return 0;
}
[[maybe_unused]] const int kTables = RegisterTables();

MX_OP_TEST_CASE({.op = "_npi_bitwise_not", .shapes = {{3, 4}}, .make_inputs = IntInputs({{3, 4}})});
MX_OP_TEST_CASE({.op = "_npi_around", .shapes = {{3, 4}}, .lo = -30, .hi = 30});
MX_OP_TEST_CASE({.op = "_npi_around",
                 .attrs = {{"decimals", "1"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(decimals=1)"});
MX_OP_TEST_CASE({.op = "_npi_around",
                 .attrs = {{"decimals", "-1"}},
                 .shapes = {{3, 4}},
                 .lo = -300,
                 .hi = 300,
                 .label = "(decimals=-1)"});
MX_OP_TEST_CASE({.op = "_npi_nan_to_num",
                 .attrs = {{"nan", "1.5"}, {"posinf", "9"}, {"neginf", "-9"}},
                 .shapes = {{3, 4}},
                 .label = "(values)"});
MX_OP_TEST_CASE({.op = "_grad_cast_like", .shapes = {{3, 4}, {3, 4}}});

// where: a 0/1 condition (its gradient is not checked: it is a step function) and x, y.
std::function<std::vector<NDArray>(DType, uint64_t)> WhereInputs(std::vector<Shape> shapes) {
  return [shapes](DType dtype, uint64_t seed) {
    std::vector<double> c = RandomArray(shapes[0], -1, 1, seed, DType::kFloat64).ToVector<double>();
    for (auto& v : c) v = v > 0 ? 1 : 0;
    std::vector<NDArray> in{NDArray::FromVector(c, shapes[0], cpu(), dtype)};
    for (size_t i = 1; i < shapes.size(); ++i)
      in.push_back(RandomArray(shapes[i], -1, 1, seed + i, dtype));
    return in;
  };
}
MX_OP_TEST_CASE({.op = "_npi_where",
                 .shapes = {{2, 1, 3}, {4, 3}, {}},
                 .make_inputs = WhereInputs({{2, 1, 3}, {4, 3}, {}}),
                 .grad_inputs = {1, 2},
                 .label = "(broadcast, 0-dim y)"});
MX_OP_TEST_CASE({.op = "_npi_where",
                 .shapes = {{3, 4}, {3, 4}, {3, 4}},
                 .make_inputs = WhereInputs({{3, 4}, {3, 4}, {3, 4}}),
                 .grad_inputs = {1, 2}});
MX_OP_TEST_CASE({.op = "_npi_where",
                 .shapes = {{0, 3}, {1, 3}, {3}},
                 .make_inputs = WhereInputs({{0, 3}, {1, 3}, {3}}),
                 .grad_inputs = {1, 2},
                 .label = "(zero-size)"});
MX_OP_TEST_CASE({.op = "_npi_where_lscalar",
                 .attrs = {{"scalar", "0.5"}},
                 .shapes = {{2, 1}, {3}},
                 .make_inputs = WhereInputs({{2, 1}, {3}}),
                 .grad_inputs = {1}});
MX_OP_TEST_CASE({.op = "_npi_where_rscalar",
                 .attrs = {{"scalar", "-0.5"}},
                 .shapes = {{2, 1}, {3}},
                 .make_inputs = WhereInputs({{2, 1}, {3}}),
                 .grad_inputs = {1}});
// A non-zero condition everywhere: the (zero) gradient matches finite differences.
MX_OP_TEST_CASE({.op = "_npi_where_scalar2",
                 .attrs = {{"x", "1.5"}, {"y", "-2"}},
                 .shapes = {{3, 4}},
                 .lo = 0.5,
                 .hi = 1});
MX_OP_TEST_CASE({.op = "_npi_polyval", .shapes = {{4}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_polyval", .shapes = {{1}, {}}, .label = "(constant, 0-dim x)"});
MX_OP_TEST_CASE({.op = "_polyval_backward", .shapes = {{2, 3}, {4}, {2, 3}}, .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
