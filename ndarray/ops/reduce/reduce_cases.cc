// Test cases of the reduce family, enumerated by //ndarray:all_ops_test (finite-difference
// gradients in float64, optimized vs reference kernels in float32, attribute round trips).
#include <cmath>
#include <limits>
#include <random>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// Uniform integers in [lo, hi] as `dtype`.
NDArray RandInts(const Shape& s, int64_t lo, int64_t hi, uint64_t seed,
                 DType dtype = DType::kInt32) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<double> v(s.Size());
  for (auto& x : v) x = static_cast<double>(d(gen));
  return NDArray::FromVector(v, s, cpu(), dtype);
}

// A float input followed by integer indices.
std::function<std::vector<NDArray>(DType, uint64_t)> DataAndIndex(Shape data, Shape idx, int64_t lo,
                                                                  int64_t hi,
                                                                  DType idx_dtype = DType::kInt32) {
  return [=](DType dt, uint64_t seed) {
    return std::vector<NDArray>{RandomArray(data, -1, 1, seed, dt),
                                RandInts(idx, lo, hi, seed + 1, idx_dtype)};
  };
}

// ---- Reductions: axis / keepdims / exclude combinations over the loop shapes of the optimized
// kernel (rows, columns, middle axis, general strided, everything). ----
const char* kReduceOps[] = {"sum", "mean", "prod", "nansum", "nanprod", "max", "min"};

struct AxisCase {
  Shape shape;
  AttrDict attrs;
  const char* label;
};
const AxisCase kAxisCases[] = {
    {{2, 3, 4}, {}, "(all)"},
    {{2, 3, 4}, {{"axis", "(1,)"}}, "(middle)"},
    {{2, 3, 4}, {{"axis", "-1"}, {"keepdims", "True"}}, "(last,keepdims)"},
    {{2, 3, 4}, {{"axis", "(0,)"}}, "(first)"},
    {{2, 3, 4}, {{"axis", "(0, 2)"}}, "(outer two)"},
    {{2, 3, 4}, {{"axis", "(1,)"}, {"exclude", "True"}}, "(exclude)"},
    {{2, 3, 4},
     {{"axis", "(-3, -2)"}, {"exclude", "True"}, {"keepdims", "True"}},
     "(exclude,keepdims,neg)"},
    {{2, 3, 4}, {{"axis", "()"}, {"keepdims", "True"}}, "(empty tuple)"},
    {{3, 1, 5}, {{"axis", "(1,)"}}, "(size-1 axis)"},
    {{4, 5}, {{"axis", "(0, 1)"}, {"exclude", "True"}}, "(exclude all: no reduction)"},
    {{2, 2, 2, 3}, {{"axis", "(0, 2)"}}, "(general strided)"},
};

int RegisterReduceCases() {
  for (const char* op : kReduceOps)
    for (const auto& c : kAxisCases) {
      bool prodlike = std::string(op).find("prod") != std::string::npos;
      OpTestCase t{.op = op, .attrs = c.attrs, .shapes = {c.shape}, .label = c.label};
      if (prodlike) t.lo = 0.5, t.hi = 1.5;
      RegisterOpTestCase(t);
    }
  // nansum/nanprod with NaNs in the input.
  for (const char* op : {"nansum", "nanprod"}) {
    RegisterOpTestCase(
        {.op = op,
         .attrs = {{"axis", "1"}},
         .shapes = {{3, 4}},
         .make_inputs =
             [](DType dt, uint64_t seed) {
               std::vector<double> v = RandomArray({3, 4}, 0.5, 1.5, seed).ToVector<double>();
               v[1] = v[6] = std::numeric_limits<double>::quiet_NaN();
               return std::vector<NDArray>{NDArray::FromVector(v, {3, 4}, cpu(), dt)};
             },
         .label = "(with NaN)"});
  }
  return 0;
}
[[maybe_unused]] int reduce_cases_registered = RegisterReduceCases();

// sum over a larger array (optimized kernels' parallel paths).
MX_OP_TEST_CASE({.op = "sum",
                 .attrs = {{"axis", "1"}},
                 .shapes = {{3, 70000}},
                 .check_grad = false,
                 .label = "(big rows)"});
MX_OP_TEST_CASE({.op = "sum",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{300, 700}},
                 .check_grad = false,
                 .label = "(big columns)"});
MX_OP_TEST_CASE({.op = "max", .shapes = {{140000}}, .check_grad = false, .label = "(big all)"});

MX_OP_TEST_CASE({.op = "norm", .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "norm", .attrs = {{"ord", "1"}, {"axis", "(1,)"}}, .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "norm",
                 .attrs = {{"axis", "(0, 2)"}, {"keepdims", "True"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "norm",
                 .attrs = {{"axis", "-1"}, {"out_dtype", "float64"}},
                 .shapes = {{2, 3}},
                 .label = "(out_dtype)"});

MX_OP_TEST_CASE({.op = "argmax", .attrs = {{"axis", "1"}}, .shapes = {{3, 4, 2}}});
MX_OP_TEST_CASE({.op = "argmax", .shapes = {{3, 4}}, .label = "(flattened)"});
MX_OP_TEST_CASE({.op = "argmin",
                 .attrs = {{"axis", "-1"}, {"keepdims", "True"}},
                 .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "argmax_channel", .shapes = {{2, 5, 3}}});

// ---- dot / batch_dot ----
MX_OP_TEST_CASE({.op = "dot", .shapes = {{3, 4}, {4, 5}}});
MX_OP_TEST_CASE({.op = "dot", .attrs = {{"transpose_a", "True"}}, .shapes = {{4, 3}, {4, 5}}});
MX_OP_TEST_CASE({.op = "dot", .attrs = {{"transpose_b", "True"}}, .shapes = {{3, 4}, {5, 4}}});
MX_OP_TEST_CASE({.op = "dot",
                 .attrs = {{"transpose_a", "True"}, {"transpose_b", "True"}},
                 .shapes = {{4, 3}, {5, 4}}});
MX_OP_TEST_CASE({.op = "dot", .shapes = {{5}, {5}}, .label = "(1-D . 1-D)"});
MX_OP_TEST_CASE({.op = "dot", .shapes = {{4}, {4, 3}}, .label = "(1-D . 2-D)"});
MX_OP_TEST_CASE({.op = "dot",
                 .attrs = {{"transpose_b", "True"}},
                 .shapes = {{3, 4}, {4}},
                 .label = "(2-D . 1-D)"});
MX_OP_TEST_CASE({.op = "dot", .shapes = {{2, 3, 4}, {4, 2, 3}}, .label = "(3-D . 3-D)"});
MX_OP_TEST_CASE({.op = "dot",
                 .attrs = {{"transpose_a", "True"}, {"transpose_b", "True"}},
                 .shapes = {{2, 3, 2}, {3, 2, 2}},
                 .label = "(3-D^T . 3-D^T)"});
MX_OP_TEST_CASE(
    {.op = "dot", .shapes = {{40, 70}, {70, 90}}, .check_grad = false, .label = "(bigger)"});
MX_OP_TEST_CASE({.op = "batch_dot", .shapes = {{2, 3, 4}, {2, 4, 5}}});
MX_OP_TEST_CASE({.op = "batch_dot",
                 .attrs = {{"transpose_a", "True"}},
                 .shapes = {{2, 4, 3}, {2, 4, 5}}});
MX_OP_TEST_CASE({.op = "batch_dot",
                 .attrs = {{"transpose_b", "True"}},
                 .shapes = {{2, 3, 4}, {2, 5, 4}}});
MX_OP_TEST_CASE({.op = "batch_dot",
                 .attrs = {{"transpose_a", "True"}, {"transpose_b", "True"}},
                 .shapes = {{2, 4, 3}, {2, 5, 4}}});
MX_OP_TEST_CASE({.op = "batch_dot", .shapes = {{2, 2, 3, 2}, {2, 2, 2, 3}}, .label = "(4-D)"});

// ---- ordering (random inputs: no ties) ----
MX_OP_TEST_CASE({.op = "topk", .attrs = {{"k", "2"}}, .shapes = {{3, 5}}});
MX_OP_TEST_CASE({.op = "topk",
                 .attrs = {{"k", "2"}, {"ret_typ", "value"}, {"axis", "0"}},
                 .shapes = {{4, 3}}});
MX_OP_TEST_CASE(
    {.op = "topk",
     .attrs = {{"k", "3"}, {"ret_typ", "both"}, {"is_ascend", "True"}, {"dtype", "int32"}},
     .shapes = {{2, 3, 5}}});
MX_OP_TEST_CASE({.op = "topk",
                 .attrs = {{"k", "2"}, {"ret_typ", "mask"}, {"axis", "1"}},
                 .shapes = {{2, 4, 3}}});
MX_OP_TEST_CASE({.op = "topk",
                 .attrs = {{"k", "4"}, {"ret_typ", "value"}, {"axis", "None"}},
                 .shapes = {{3, 4}},
                 .label = "(flattened)"});
MX_OP_TEST_CASE({.op = "topk",
                 .attrs = {{"k", "0"}, {"ret_typ", "value"}},
                 .shapes = {{2, 6}},
                 .label = "(k=0: all)"});
MX_OP_TEST_CASE({.op = "topk",
                 .attrs = {{"k", "3"}, {"ret_typ", "both"}},
                 .shapes = {{4, 200}},
                 .check_grad = false,
                 .label = "(partial sort)"});
MX_OP_TEST_CASE({.op = "sort", .shapes = {{3, 5}}});
MX_OP_TEST_CASE({.op = "sort",
                 .attrs = {{"axis", "0"}, {"is_ascend", "False"}},
                 .shapes = {{4, 3}}});
MX_OP_TEST_CASE(
    {.op = "sort", .attrs = {{"axis", "None"}}, .shapes = {{2, 3}}, .label = "(flattened)"});
MX_OP_TEST_CASE({.op = "argsort", .shapes = {{3, 5}}});
MX_OP_TEST_CASE({.op = "argsort",
                 .attrs = {{"axis", "1"}, {"is_ascend", "False"}, {"dtype", "int64"}},
                 .shapes = {{2, 4, 3}}});

// ---- indexing ----
MX_OP_TEST_CASE({.op = "take",
                 .shapes = {{5, 3}, {2, 3}},
                 .make_inputs = DataAndIndex({5, 3}, {2, 3}, -2, 6)});
MX_OP_TEST_CASE({.op = "take",
                 .attrs = {{"axis", "1"}, {"mode", "wrap"}},
                 .shapes = {{2, 4, 3}, {5}},
                 .make_inputs = DataAndIndex({2, 4, 3}, {5}, -6, 9)});
MX_OP_TEST_CASE({.op = "take",
                 .attrs = {{"axis", "-1"}, {"mode", "raise"}},
                 .shapes = {{3, 4}, {2, 2}},
                 .make_inputs = DataAndIndex({3, 4}, {2, 2}, 0, 3, DType::kInt64)});
MX_OP_TEST_CASE({.op = "take",
                 .shapes = {{4, 3}, {6}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {  // float indices are truncated
                       return std::vector<NDArray>{
                           RandomArray({4, 3}, -1, 1, seed, dt),
                           NDArray::FromVector(std::vector<double>{0.5, 1.7, 3.2, 2.9, 0.0, 1.1},
                                               {6}, cpu(), dt)};
                     },
                 .grad_inputs = {0},
                 .label = "(float indices)"});
MX_OP_TEST_CASE({.op = "pick",
                 .shapes = {{3, 4}, {3}},
                 .make_inputs = DataAndIndex({3, 4}, {3}, -1, 5)});
MX_OP_TEST_CASE({.op = "pick",
                 .attrs = {{"axis", "1"}, {"keepdims", "True"}, {"mode", "wrap"}},
                 .shapes = {{2, 3, 4}, {2, 1, 4}},
                 .make_inputs = DataAndIndex({2, 3, 4}, {2, 1, 4}, -4, 7)});
MX_OP_TEST_CASE({.op = "one_hot",
                 .attrs = {{"depth", "4"}},
                 .shapes = {{2, 3}},
                 .make_inputs = [](DType, uint64_t seed) {
                   return std::vector<NDArray>{RandInts({2, 3}, -1, 4, seed)};
                 }});
MX_OP_TEST_CASE(
    {.op = "one_hot",
     .attrs = {{"depth", "3"}, {"on_value", "5"}, {"off_value", "-1"}, {"dtype", "int32"}},
     .shapes = {{4}},
     .make_inputs = [](DType, uint64_t seed) {
       return std::vector<NDArray>{RandInts({4}, 0, 2, seed)};
     }});
MX_OP_TEST_CASE({.op = "Embedding",
                 .attrs = {{"input_dim", "5"}, {"output_dim", "3"}},
                 .shapes = {{2, 3}, {5, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {  // float-valued indices, as Gluon passes them
                       return std::vector<NDArray>{RandInts({2, 3}, -1, 6, seed, dt),
                                                   RandomArray({5, 3}, -1, 1, seed, dt)};
                     },
                 .grad_inputs = {1}});
MX_OP_TEST_CASE({.op = "gather_nd",
                 .shapes = {{3, 4, 2}, {2, 5}},
                 .make_inputs = DataAndIndex({3, 4, 2}, {2, 5}, -3, 2)});
MX_OP_TEST_CASE({.op = "gather_nd",
                 .shapes = {{3, 4}, {2, 2, 2}},
                 .make_inputs = DataAndIndex({3, 4}, {2, 2, 2}, 0, 2),
                 .label = "(full tuples)"});
MX_OP_TEST_CASE({.op = "scatter_nd",
                 .attrs = {{"shape", "(3, 4)"}},
                 .shapes = {{3}, {2, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {  // distinct tuples
                   return std::vector<NDArray>{
                       RandomArray({3}, -1, 1, seed, dt),
                       NDArray::FromVector(std::vector<int>{0, 2, -1, 1, 3, 0}, {2, 3}, cpu(),
                                           DType::kInt32)};
                 }});
MX_OP_TEST_CASE({.op = "batch_take",
                 .shapes = {{3, 4}, {3}},
                 .make_inputs = DataAndIndex({3, 4}, {3}, -1, 5)});

// ---- helper ops of the gradients ----
MX_OP_TEST_CASE({.op = "_reduce_bcast",
                 .attrs = {{"axis", "(1,)"}},
                 .shapes = {{2, 4}, {2, 3, 4}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_reduce_bcast",
                 .attrs = {{"axis", "(0, 2)"}, {"keepdims", "True"}, {"normalize", "True"}},
                 .shapes = {{1, 3, 1}, {2, 3, 4}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_reduce_bcast",
                 .attrs = {{"axis", "(0,)"}, {"exclude", "True"}},
                 .shapes = {{2}, {2, 3}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_reduce_extremum_mask",
                 .attrs = {{"axis", "(1,)"}},
                 .shapes = {{3, 4}, {3}}});
MX_OP_TEST_CASE({.op = "_reduce_notnan", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_reduce_nan_to_one", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_reduce_sign", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_matrix_view", .attrs = {{"split", "1"}}, .shapes = {{2, 3, 2}}});
MX_OP_TEST_CASE({.op = "_matrix_view", .shapes = {{3}}, .label = "(1-D)"});
MX_OP_TEST_CASE({.op = "_reshape_as", .shapes = {{6}, {2, 3}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_dot_out_view",
                 .attrs = {{"transpose_a", "True"}},
                 .shapes = {{3, 2, 5}, {4, 3, 2}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_take_along_axis",
                 .attrs = {{"axis", "1"}},
                 .shapes = {{2, 4, 3}, {2, 2, 3}},
                 .make_inputs = DataAndIndex({2, 4, 3}, {2, 2, 3}, 0, 3, DType::kInt64)});
MX_OP_TEST_CASE({.op = "_scatter_add_along_axis",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{2, 3}, {2, 3}, {4, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({2, 3}, -1, 1, seed, dt),
                                               RandInts({2, 3}, 0, 3, seed + 1),
                                               RandomArray({4, 3}, -1, 1, seed + 2, dt)};
                 }});
MX_OP_TEST_CASE({.op = "_take_backward",
                 .attrs = {{"axis", "1"}, {"mode", "wrap"}},
                 .shapes = {{2, 5}, {5}, {2, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({2, 5}, -1, 1, seed, dt),
                                               RandInts({5}, -4, 6, seed + 1),
                                               RandomArray({2, 3}, -1, 1, seed + 2, dt)};
                 }});
MX_OP_TEST_CASE({.op = "_pick_backward",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{3}, {3}, {4, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({3}, -1, 1, seed, dt),
                                               RandInts({3}, -1, 5, seed + 1),
                                               RandomArray({4, 3}, -1, 1, seed + 2, dt)};
                 }});
MX_OP_TEST_CASE({.op = "_gather_nd_backward",
                 .shapes = {{4, 2}, {1, 4}, {3, 2}},
                 .make_inputs = [](DType dt, uint64_t seed) {  // repeated tuples accumulate
                   return std::vector<NDArray>{RandomArray({4, 2}, -1, 1, seed, dt),
                                               NDArray::FromVector(std::vector<int>{0, 2, 0, -1},
                                                                   {1, 4}, cpu(), DType::kInt32),
                                               RandomArray({3, 2}, -1, 1, seed + 2, dt)};
                 }});

}  // namespace
}  // namespace mxnet::testing
