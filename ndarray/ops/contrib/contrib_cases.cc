// Test cases of the _contrib_ box and helper ops of the reduce family (reduce_contrib*.cc),
// enumerated by //ndarray:all_ops_test. check_grad is off where MXNet's gradient is by design
// not the derivative (box_iou/encode/decode, MultiBoxDetection/Target: zeros; round_ste/sign_ste:
// straight-through; gradientmultiplier with scalar != 1); those gradients are checked against MXNet
// in reduce_contrib_test.cc.
#include <random>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

NDArray Vec(std::vector<double> v, Shape s, DType dt) {
  return NDArray::FromVector(v, s, cpu(), dt);
}

// Detections [class id, score, xmin, ymin, xmax, ymax]: two overlapping clusters plus a low
// score and a far-away box; IoUs stay far from the thresholds used below. Class ids are
// id + offset: NMS compares int(id), so offset 0.5 keeps finite differences from changing a class.
std::vector<NDArray> DetsWithIds(DType dt, double offset) {
  std::vector<double> v = {0, 0.90,  0.10, 0.10, 0.50, 0.50,   //
                           0, 0.80,  0.12, 0.11, 0.52, 0.49,   // overlaps row 0 (same class)
                           1, 0.70,  0.11, 0.09, 0.49, 0.51,   // overlaps row 0 (other class)
                           0, -0.10, 0.00, 0.00, 1.00, 1.00,   // invalid score
                           1, 0.30,  0.60, 0.60, 0.90, 0.90,   // alone
                           2, 0.55,  0.62, 0.58, 0.91, 0.88};  // overlaps row 4
  for (size_t i = 0; i < v.size(); i += 6) v[i] += offset;
  return {Vec(v, {6, 6}, dt)};
}
std::vector<NDArray> Dets(DType dt, uint64_t) { return DetsWithIds(dt, 0.5); }

// ---- boxes ----
MX_OP_TEST_CASE({.op = "_contrib_box_iou",
                 .shapes = {{3, 4}, {2, 4}},
                 .lo = 0,
                 .hi = 1,
                 .check_grad = false,
                 .label = "(zero gradient)"});
MX_OP_TEST_CASE({.op = "_contrib_box_iou",
                 .attrs = {{"format", "center"}},
                 .shapes = {{2, 2, 4}, {3, 4}},
                 .lo = 0.1,
                 .hi = 1,
                 .check_grad = false,
                 .label = "(center)"});

MX_OP_TEST_CASE({.op = "_contrib_box_nms", .make_inputs = Dets, .label = "(defaults)"});
MX_OP_TEST_CASE({.op = "_contrib_box_nms",
                 .attrs = {{"id_index", "0"}, {"topk", "4"}},
                 .make_inputs = Dets,
                 .label = "(classes, topk)"});
MX_OP_TEST_CASE({.op = "_contrib_box_nms",
                 .attrs = {{"id_index", "0"}, {"force_suppress", "True"}, {"background_id", "2"}},
                 .make_inputs = [](DType dt, uint64_t) { return DetsWithIds(dt, 0); },
                 .check_grad = false,  // background_id compares the id exactly
                 .label = "(force_suppress, background)"});
MX_OP_TEST_CASE({.op = "_contrib_box_non_maximum_suppression",
                 .attrs = {{"overlap_thresh", "0.3"}},
                 .make_inputs =
                     [](DType dt, uint64_t s) {
                       return std::vector<NDArray>{Dets(dt, s)[0].reshape({2, 3, 6})};
                     },
                 .label = "(alias, batched)"});
MX_OP_TEST_CASE({.op = "_contrib_box_nms",
                 .attrs = {{"out_format", "center"}},
                 .make_inputs = Dets,
                 .check_grad = false,  // MXNet's gradient ignores the format conversion
                 .label = "(out_format)"});
MX_OP_TEST_CASE({.op = "_backward_contrib_box_nms", .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({2, 3, 6}, -1, 1, seed, dt),
                                               Vec({4, 0, -1, 3, -1, -1}, {2, 3, 1}, dt)};
                 }});

MX_OP_TEST_CASE(
    {.op = "_contrib_box_encode",
     .make_inputs =
         [](DType dt, uint64_t seed) {
           NDArray anchors =
               Vec({0.1, 0.1, 0.4, 0.5, 0.2, 0.3, 0.6, 0.9, 0.5, 0.5, 0.8, 0.7, 0.0, 0.2, 0.3, 0.4},
                   {1, 4, 4}, dt);
           NDArray refs = Vec({0.15, 0.1, 0.45, 0.55, 0.45, 0.5, 0.85, 0.75}, {1, 2, 4}, dt);
           return std::vector<NDArray>{Vec({1, 0, 1, -1}, {1, 4}, dt),
                                       Vec({0, -1, 1, 0}, {1, 4}, dt),
                                       anchors,
                                       refs,
                                       RandomArray({4}, -0.1, 0.1, seed, dt),
                                       RandomArray({4}, 0.1, 0.3, seed + 1, dt)};
         },
     .check_grad = false,
     .label = "(zero gradients)"});
MX_OP_TEST_CASE({.op = "_contrib_box_decode",
                 .shapes = {{2, 3, 4}, {1, 3, 4}},
                 .lo = 0.1,
                 .hi = 1,
                 .check_grad = false,
                 .label = "(center, zero gradients)"});
MX_OP_TEST_CASE({.op = "_contrib_box_decode",
                 .attrs = {{"format", "corner"}, {"clip", "0.3"}, {"std2", "0.5"}},
                 .shapes = {{1, 3, 4}, {1, 3, 4}},
                 .lo = 0.1,
                 .hi = 1,
                 .check_grad = false,
                 .label = "(corner, clip)"});

// Piecewise constant outputs: the finite differences are 0, as is MXNet's gradient.
MX_OP_TEST_CASE({.op = "_contrib_bipartite_matching",
                 .attrs = {{"threshold", "0.1"}},
                 .shapes = {{4, 3}},
                 .lo = 0,
                 .hi = 1});
MX_OP_TEST_CASE({.op = "_contrib_bipartite_matching",
                 .attrs = {{"threshold", "0.6"}, {"is_ascend", "True"}, {"topk", "1"}},
                 .shapes = {{2, 3, 4}},
                 .lo = 0,
                 .hi = 1,
                 .label = "(ascend, topk, batched)"});
MX_OP_TEST_CASE({.op = "_contrib_MultiBoxPrior", .shapes = {{1, 2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npx_multibox_prior",
                 .attrs = {{"sizes", "(0.5, 0.25)"},
                           {"ratios", "(1, 2, 0.5)"},
                           {"clip", "True"},
                           {"steps", "(0.3, 0.2)"},
                           {"offsets", "(0.2, 0.7)"}},
                 .shapes = {{2, 1, 2, 3}},
                 .label = "(alias, all attributes)"});

// MultiBoxDetection / MultiBoxTarget: zero gradients (MXNet); the outputs are piecewise smooth,
// so the finite differences are not zero and the gradient check is off.
std::vector<NDArray> Anchors6(DType dt) {
  return {Vec({0.0, 0.0, 0.5, 0.6, 0.3,  0.0, 0.8,  0.5, 0.6, 0.1, 1.0,  0.6,  //
               0.0, 0.4, 0.4, 1.0, 0.35, 0.5, 0.75, 0.9, 0.6, 0.5, 0.95, 1.0},
              {1, 6, 4}, dt)};
}
MX_OP_TEST_CASE({.op = "_contrib_MultiBoxDetection",
                 .attrs = {{"force_suppress", "True"}, {"nms_threshold", "0.2"}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({2, 3, 6}, 0, 1, seed, dt),
                                                   RandomArray({2, 24}, -0.5, 0.5, seed + 1, dt),
                                                   Anchors6(dt)[0]};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npx_multibox_detection",
                 .attrs = {{"clip", "False"}, {"nms_topk", "3"}, {"threshold", "0.3"}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({1, 4, 6}, 0, 1, seed, dt),
                                                   RandomArray({1, 24}, -0.5, 0.5, seed + 1, dt),
                                                   Anchors6(dt)[0]};
                     },
                 .check_grad = false,
                 .label = "(alias, topk)"});
MX_OP_TEST_CASE({.op = "_contrib_MultiBoxTarget",
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       NDArray labels = Vec({0, 0.05, 0.1, 0.4, 0.6, 1,  0.5, 0.4, 0.95, 0.9,  //
                                             2, 0.3,  0.2, 0.7, 0.7, -1, -1,  -1,  -1,   -1},
                                            {2, 2, 5}, dt);
                       return std::vector<NDArray>{Anchors6(dt)[0], labels,
                                                   RandomArray({2, 3, 6}, -2, 2, seed, dt)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npx_multibox_target",
                 .attrs = {{"negative_mining_ratio", "1.0"}, {"overlap_threshold", "0.3"}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       NDArray labels = Vec({1, 0.1, 0.1, 0.5, 0.6}, {1, 1, 5}, dt);
                       return std::vector<NDArray>{Anchors6(dt)[0], labels,
                                                   RandomArray({1, 2, 6}, -2, 2, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(alias, negative mining)"});

// ---- helpers ----
MX_OP_TEST_CASE({.op = "_contrib_arange_like", .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_npx_arange_like",
                 .attrs = {{"start", "1.5"}, {"step", "-0.5"}, {"repeat", "2"}, {"axis", "-1"}},
                 .shapes = {{2, 5}},
                 .label = "(alias, axis, repeat)"});
MX_OP_TEST_CASE({.op = "_contrib_index_copy",
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({5, 3}, -1, 1, seed, dt),
                                                   Vec({3, 0}, {2}, DType::kInt64),
                                                   RandomArray({2, 3}, -1, 1, seed + 1, dt)};
                     },
                 .grad_inputs = {0, 2}});
MX_OP_TEST_CASE({.op = "_contrib_index_array", .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_contrib_index_array",
                 .attrs = {{"axes", "(-1, 0)"}},
                 .shapes = {{2, 3, 2}},
                 .label = "(axes)"});
MX_OP_TEST_CASE({.op = "_contrib_div_sqrt_dim", .shapes = {{2, 3, 5}}});
MX_OP_TEST_CASE({.op = "_contrib_gradientmultiplier", .shapes = {{3, 4}}, .label = "(scalar 1)"});
MX_OP_TEST_CASE({.op = "_contrib_gradientmultiplier",
                 .attrs = {{"scalar", "-2.5"}},
                 .shapes = {{3, 4}},
                 .check_grad = false,
                 .label = "(scaled gradient)"});
MX_OP_TEST_CASE(
    {.op = "_contrib_round_ste", .shapes = {{3, 4}}, .lo = -3, .hi = 3, .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_contrib_sign_ste", .shapes = {{3, 4}}, .lo = -3, .hi = 3, .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_quadratic",
                 .attrs = {{"a", "1.5"}, {"b", "-2.0"}, {"c", "0.5"}},
                 .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "_contrib_quadratic", .shapes = {{2, 2}}, .label = "(zeros)"});
MX_OP_TEST_CASE({.op = "_contrib_allclose", .shapes = {{3, 4}, {3, 4}}});
MX_OP_TEST_CASE({.op = "_contrib_allclose",
                 .attrs = {{"rtol", "0.1"}, {"atol", "0.01"}, {"equal_nan", "False"}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       NDArray a = RandomArray({4}, 1, 2, seed, dt);
                       return std::vector<NDArray>{a, a.copy()};
                     },
                 .label = "(equal)"});

}  // namespace
}  // namespace mxnet::testing
