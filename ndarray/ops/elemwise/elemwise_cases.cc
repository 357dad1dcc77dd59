// Test cases of the elemwise family, enumerated by //ndarray:all_ops_test (finite-difference
// gradients in float64, optimized vs reference kernels, attribute round trips).
#include <string>
#include <vector>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

struct Domain {
  const char* op;
  double lo, hi;
};

// Unary ops with input ranges inside their domains (and away from kinks where possible).
const Domain kUnary[] = {
    {"exp", -2, 2},         {"log", 0.5, 3},       {"log2", 0.5, 3},       {"log10", 0.5, 3},
    {"log1p", -0.5, 2},     {"expm1", -2, 2},      {"sqrt", 0.5, 3},       {"rsqrt", 0.5, 3},
    {"cbrt", 0.5, 3},       {"rcbrt", 0.5, 3},     {"square", -2, 2},      {"reciprocal", 0.5, 2},
    {"abs", -2, 2},         {"sign", -2, 2},       {"floor", -3, 3},       {"ceil", -3, 3},
    {"round", -3, 3},       {"rint", -3, 3},       {"fix", -3, 3},         {"trunc", -3, 3},
    {"logical_not", -1, 1}, {"sin", -3, 3},        {"cos", -3, 3},         {"tan", -1.2, 1.2},
    {"arcsin", -0.9, 0.9},  {"arccos", -0.9, 0.9}, {"arctan", -3, 3},      {"degrees", -3, 3},
    {"radians", -180, 180}, {"sinh", -2, 2},       {"cosh", -2, 2},        {"tanh", -2, 2},
    {"arcsinh", -3, 3},     {"arccosh", 1.2, 3},   {"arctanh", -0.9, 0.9}, {"erf", -2, 2},
    {"erfinv", -0.9, 0.9},  {"gamma", 0.5, 3},     {"gammaln", 0.5, 3},    {"_digamma", 0.5, 3},
    {"_trigamma", 0.5, 3},  {"relu", -1, 1},       {"sigmoid", -3, 3},     {"softsign", -3, 3},
};

// Broadcasting binary ops, with the ranges their gradients need.
const Domain kBroadcast[] = {
    {"broadcast_add", -1, 1},           {"broadcast_sub", -1, 1},
    {"broadcast_mul", -1, 1},           {"broadcast_div", 0.5, 2},
    {"broadcast_mod", 0.5, 2},          {"broadcast_power", 0.5, 2},
    {"broadcast_maximum", -1, 1},       {"broadcast_minimum", -1, 1},
    {"broadcast_hypot", -1, 1},         {"broadcast_equal", -1, 1},
    {"broadcast_not_equal", -1, 1},     {"broadcast_greater", -1, 1},
    {"broadcast_greater_equal", -1, 1}, {"broadcast_lesser", -1, 1},
    {"broadcast_lesser_equal", -1, 1},  {"broadcast_logical_and", -1, 1},
    {"broadcast_logical_or", -1, 1},    {"broadcast_logical_xor", -1, 1},
};

const Domain kSameShape[] = {
    {"_mod", 0.5, 2},       {"_power", 0.5, 2},       {"_maximum", -1, 1},
    {"_minimum", -1, 1},    {"_hypot", -1, 1},        {"_equal", -1, 1},
    {"_not_equal", -1, 1},  {"_greater", -1, 1},      {"_greater_equal", -1, 1},
    {"_lesser", -1, 1},     {"_lesser_equal", -1, 1}, {"_logical_and", -1, 1},
    {"_logical_or", -1, 1}, {"_logical_xor", -1, 1},
};

struct ScalarCase {
  const char* op;
  const char* scalar;
  double lo, hi;
};
const ScalarCase kScalar[] = {
    {"_power_scalar", "2.5", 0.5, 2},      {"_power_scalar", "2.0", -1, 1},
    {"_power_scalar", "0.0", 0.5, 2},      {"_rpower_scalar", "2.0", -1, 1},
    {"_rpower_scalar", "0.5", -1, 1},      {"_maximum_scalar", "0.1", -1, 1},
    {"_minimum_scalar", "0.1", -1, 1},     {"_mod_scalar", "0.7", 0.1, 2},
    {"_mod_scalar", "-0.7", 0.1, 2},       {"_rmod_scalar", "1.5", 0.5, 2},
    {"_hypot_scalar", "3.0", -1, 1},       {"_hypot_scalar", "0.0", 0.5, 1},
    {"_equal_scalar", "0.0", -1, 1},       {"_not_equal_scalar", "0.0", -1, 1},
    {"_greater_scalar", "0.0", -1, 1},     {"_greater_equal_scalar", "0.25", -1, 1},
    {"_lesser_scalar", "0.0", -1, 1},      {"_lesser_equal_scalar", "-0.25", -1, 1},
    {"_logical_and_scalar", "1.0", -1, 1}, {"_logical_and_scalar", "0.0", -1, 1},
    {"_logical_or_scalar", "0.0", -1, 1},  {"_logical_xor_scalar", "1.0", -1, 1},
};

int RegisterTables() {
  for (const auto& d : kUnary) {
    RegisterOpTestCase({.op = d.op, .shapes = {{3, 4}}, .lo = d.lo, .hi = d.hi});
  }
  // Broadcasting: size-1 stretch with a rank mismatch, equal shapes, a scalar-like rhs, a
  // lower-rank lhs, and zero-size axes.
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 1, 3}, {4, 3}}, {{3, 4}, {3, 4}}, {{2, 3}, {1}}, {{4}, {2, 3, 4}}, {{0, 3}, {1, 3}}};
  for (const auto& d : kBroadcast) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      RegisterOpTestCase(
          {.op = d.op,
           .shapes = {shapes[i].first, shapes[i].second},
           .lo = d.lo,
           .hi = d.hi,
           .label = "(" + shapes[i].first.ToString() + " vs " + shapes[i].second.ToString() + ")"});
    }
  }
  for (const auto& d : kSameShape)
    RegisterOpTestCase({.op = d.op, .shapes = {{2, 3, 2}, {2, 3, 2}}, .lo = d.lo, .hi = d.hi});
  for (const auto& c : kScalar) {
    RegisterOpTestCase({.op = c.op,
                        .attrs = {{"scalar", c.scalar}},
                        .shapes = {{3, 4}},
                        .lo = c.lo,
                        .hi = c.hi,
                        .label = std::string("(scalar=") + c.scalar + ")"});
  }
  return 0;
}
[[maybe_unused]] const int kTables = RegisterTables();

// Binary (condition, x, y) inputs of where: a 0/1 condition of `cshape`.
std::function<std::vector<NDArray>(DType, uint64_t)> WhereInputs(Shape cshape, Shape xshape) {
  return [cshape, xshape](DType dtype, uint64_t seed) {
    std::vector<double> c = RandomArray(cshape, -1, 1, seed, DType::kFloat64).ToVector<double>();
    for (auto& v : c) v = v > 0 ? 1 : 0;
    return std::vector<NDArray>{NDArray::FromVector(c, cshape, cpu(), dtype),
                                RandomArray(xshape, -1, 1, seed + 1, dtype),
                                RandomArray(xshape, -1, 1, seed + 2, dtype)};
  };
}

MX_OP_TEST_CASE({.op = "clip", .attrs = {{"a_min", "-0.5"}, {"a_max", "0.5"}}, .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "clip",
                 .attrs = {{"a_min", "0"}, {"a_max", "6"}},
                 .shapes = {{5}},
                 .lo = -3,
                 .hi = 8,
                 .label = "(relu6)"});
MX_OP_TEST_CASE({.op = "where",
                 .shapes = {{3, 4}, {3, 4}, {3, 4}},
                 .make_inputs = WhereInputs({3, 4}, {3, 4}),
                 .grad_inputs = {1, 2}});
MX_OP_TEST_CASE({.op = "where",
                 .shapes = {{3}, {3, 2, 2}, {3, 2, 2}},
                 .make_inputs = WhereInputs({3}, {3, 2, 2}),
                 .grad_inputs = {1, 2},
                 .label = "(1-D condition)"});
MX_OP_TEST_CASE({.op = "cast", .attrs = {{"dtype", "float64"}}, .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "cast",
                 .attrs = {{"dtype", "float32"}},
                 .shapes = {{3, 4}},
                 .fd_eps = 1e-3,
                 .grad_rtol = 1e-3,
                 .grad_atol = 1e-5,
                 .label = "(to float32)"});
MX_OP_TEST_CASE({.op = "Cast",
                 .attrs = {{"dtype", "int32"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(alias, to int32)"});
MX_OP_TEST_CASE({.op = "_cast_like", .shapes = {{3, 4}, {3, 4}}});
MX_OP_TEST_CASE({.op = "smooth_l1", .shapes = {{3, 4}}, .lo = -2, .hi = 2});
MX_OP_TEST_CASE({.op = "smooth_l1",
                 .attrs = {{"scalar", "2.0"}},
                 .shapes = {{3, 4}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(sigma=2)"});
MX_OP_TEST_CASE({.op = "add_n", .attrs = {{"num_args", "3"}}, .shapes = {{2, 3}, {2, 3}, {2, 3}}});
MX_OP_TEST_CASE({.op = "ElementWiseSum",
                 .attrs = {{"num_args", "1"}},
                 .shapes = {{4}},
                 .label = "(alias, 1 input)"});
// BlockGrad's gradient is zero and make_loss's is ones by definition (not the derivative).
MX_OP_TEST_CASE({.op = "BlockGrad", .shapes = {{3, 2}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "make_loss", .shapes = {{3, 2}}, .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
