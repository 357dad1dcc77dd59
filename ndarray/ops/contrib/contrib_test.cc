// Tests of the _contrib_ box and helper ops of the reduce family (reduce_contrib*.cc): their
// registered cases, reference values and gradients from real MXNet 1.9.1
// (testdata/reduce/contrib.json, tools/conformance/gen_reduce_refs.py contrib_cases), MXNet's
// registry entries, hand-computed values, shape inference with unknown dims, and errors.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/contrib_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

void ExpectError(const std::function<void()>& fn, absl::StatusCode code,
                 std::vector<std::string> pieces) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one mentioning " << StrJoin(pieces, ", ");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& p : pieces)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

NDArrayVec RunOp(const std::string& op, std::vector<NDArray> in, AttrDict attrs = {}) {
  return Invoke(op, in, attrs);
}
// The op's gradient on concrete arrays.
std::vector<NDArray> Grad(const std::string& name, const AttrDict& attrs, std::vector<NDArray> in,
                          std::vector<NDArray> out, std::vector<NDArray> og) {
  const Op& op = OpRegistry::Get(name);
  return EagerGradBuilder::Run(op, OpAttrs::Parse(op, attrs), in, out, og);
}

const char* kOps[] = {
    "_contrib_box_iou",       "_contrib_box_nms",           "_backward_contrib_box_nms",
    "_contrib_box_encode",    "_contrib_box_decode",        "_contrib_bipartite_matching",
    "_contrib_MultiBoxPrior", "_contrib_arange_like",       "_contrib_index_copy",
    "_contrib_index_array",   "_contrib_div_sqrt_dim",      "_contrib_gradientmultiplier",
    "_contrib_round_ste",     "_contrib_sign_ste",          "_contrib_quadratic",
    "_contrib_allclose",      "_contrib_MultiBoxDetection", "_contrib_MultiBoxTarget"};

bool IsContrib(const std::string& name) {
  for (const char* n : kOps)
    if (name == n) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// The registered cases of these ops, checked as //ndarray:all_ops_test does.
std::vector<int> ContribCases() {
  std::vector<int> idx;
  for (size_t i = 0; i < OpTestCases().size(); ++i)
    if (IsContrib(OpRegistry::Get(OpTestCases()[i].op).name)) idx.push_back(static_cast<int>(i));
  return idx;
}

class ContribCase : public ::testing::TestWithParam<int> {};

TEST_P(ContribCase, GradientMatchesFiniteDifferences) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  if (!op.differentiable() || !c.check_grad) GTEST_SKIP();
  EXPECT_TRUE(CheckGradient(c));
}

TEST_P(ContribCase, RunsInEveryFloatDtypeAndRoundTripsAttributes) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs a = OpAttrs::Parse(op, c.attrs);
  EXPECT_TRUE(a == OpAttrs::Parse(op, a.ToDict())) << a.Key();
  // float32 and float64 agree.
  NDArrayVec f =
      RunWithKernel(c, {DeviceType::kCPU, Backend::kReference}, MakeInputs(c, DType::kFloat32, 3));
  NDArrayVec d =
      RunWithKernel(c, {DeviceType::kCPU, Backend::kReference}, MakeInputs(c, DType::kFloat64, 3));
  for (int i = 0; i < op.NumVisibleOutputs(a); ++i)
    EXPECT_TRUE(AllClose(f[i].astype(DType::kFloat64), d[i].astype(DType::kFloat64), 1e-4, 1e-5))
        << c.op << c.label << " output " << i;
}

std::string CaseName(const ::testing::TestParamInfo<int>& info) {
  std::string n = StrCat(OpTestCases()[info.param].op, "_", info.param);
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}
INSTANTIATE_TEST_SUITE_P(Contrib, ContribCase, ::testing::ValuesIn(ContribCases()), CaseName);

TEST(ContribFamily, EveryOpHasACaseAndAGradientDeclaration) {
  std::set<std::string> with_case;
  for (const auto& c : OpTestCases()) with_case.insert(OpRegistry::Get(c.op).name);
  for (const char* n : kOps) {
    const Op& op = OpRegistry::Get(n);
    EXPECT_TRUE(with_case.count(n)) << n;
    EXPECT_TRUE(op.differentiable() || op.non_differentiable) << n;
  }
  EXPECT_TRUE(OpRegistry::Get("_contrib_allclose").non_differentiable);
  EXPECT_TRUE(OpRegistry::Get("_backward_contrib_box_nms").non_differentiable);
  // Its output shape depends on the mask's values (reduce_mask.cc, tested there).
  EXPECT_TRUE(OpRegistry::Get("_contrib_boolean_mask").has_dynamic_output_shape());
}

// ---------------------------------------------------------------------------------------------
// Conformance with real MXNet 1.9.1.
json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/contrib.json"); }

::testing::AssertionResult Matches(const NDArray& got, const NDArray& want) {
  switch (want.dtype()) {
    case DType::kFloat32:
      return SameDTypeAllClose(got, want, 2e-5, 2e-6);
    case DType::kFloat64:
      return SameDTypeAllClose(got, want, 1e-12, 1e-13);
    default:
      return SameDTypeAllClose(got, want, 0, 0);
  }
}

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, with_grads = 0;
  std::set<std::string> ops_seen;
  for (const auto& c : doc["cases"]) CheckRefCase(c, Matches, &n, &with_grads, &ops_seen);
  EXPECT_GT(n, 70);
  EXPECT_GT(with_grads, 30);
  for (const char* o : kOps)
    if (std::string(o) != "_backward_contrib_box_nms") {
      EXPECT_TRUE(ops_seen.count(o)) << o;
    }
}

// Names, aliases, input names and attribute names/defaults/choices agree with MXNet's registry.
TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  const std::map<std::string, AttrDict> required = {
      {"_contrib_bipartite_matching", {{"threshold", "0.5"}}}};
  ASSERT_EQ(doc["ops"].size(), 17u);
  for (auto& [name, info] : doc["ops"].items())
    CheckRegistryEntry(name, info, required.count(name) ? required.at(name) : AttrDict{});
}

// ---------------------------------------------------------------------------------------------
// Hand-computed values.
TEST(Boxes, IouByHand) {
  NDArray a = Arr({0, 0, 2, 2, 1, 1, 3, 3}, {2, 4});
  NDArray b = Arr({1, 0, 2, 1, 5, 5, 6, 6}, {1, 2, 4});
  NDArray r = nd::contrib::box_iou(a, b);
  EXPECT_EQ(r.shape(), (Shape{2, 1, 2}));
  // [0,0,2,2] vs [1,0,2,1]: 1 / (4 + 1 - 1); [1,1,3,3] vs [1,0,2,1]: touching edge -> 0.
  EXPECT_EQ(Vals(r), (std::vector<double>{0.25, 0, 0, 0}));
  // Center format: [1,1,2,2] is corner [0,0,2,2]; [2,2,2,2] is [1,1,3,3]: IoU 1/7.
  NDArray c = nd::contrib::box_iou(Arr({1, 1, 2, 2}, {1, 4}), Arr({2, 2, 2, 2}, {1, 4}), "center");
  EXPECT_NEAR(Vals(c)[0], 1.0 / 7, 1e-7);
}

TEST(Boxes, NmsKeepsSortsPadsAndRecords) {
  NDArray d = Arr({0, 0.9,  0.1,  0.1, 0.5, 0.5,  //
                   0, 0.8,  0.12, 0.1, 0.5, 0.5,  // suppressed by row 0 (same class)
                   1, 0.7,  0.1,  0.1, 0.5, 0.5,  // other class: kept unless force_suppress
                   0, -0.1, 0,    0,   1,   1,    // score <= valid_thresh
                   1, 0.3,  0.6,  0.6, 0.9, 0.9},
                  {5, 6});
  NDArrayVec r = RunOp("_contrib_box_nms", {d}, {{"id_index", "0"}});
  ASSERT_EQ(r.size(), 2u);
  std::vector<double> o = Vals(r[0]);
  EXPECT_EQ(r[0].shape(), (Shape{5, 6}));
  EXPECT_DOUBLE_EQ(o[1], 0.9f);
  EXPECT_DOUBLE_EQ(o[7], 0.7f);
  EXPECT_DOUBLE_EQ(o[13], 0.3f);
  for (int i = 18; i < 30; ++i) EXPECT_EQ(o[i], -1) << i;
  EXPECT_EQ(r[1].shape(), (Shape{5, 1}));
  EXPECT_EQ(Vals(r[1]), (std::vector<double>{0, 2, 4, -1, -1}));
  // force_suppress drops the other-class duplicate too.
  NDArray f = nd::contrib::box_nms(d, {.id_index = 0, .force_suppress = true});
  EXPECT_EQ(Vals(f)[7], 0.3f);
  // The gradient copies og rows back to the kept rows' sources.
  NDArray og = NDArray::Full({5, 6}, 1);
  std::vector<NDArray> g =
      Grad("_contrib_box_nms", {{"id_index", "0"}}, {d}, {r[0], r[1]}, {og, nd::zeros_like(r[1])});
  std::vector<double> gv = Vals(g[0]);
  for (int row = 0; row < 5; ++row)
    EXPECT_EQ(gv[row * 6], (row == 0 || row == 2 || row == 4) ? 1 : 0) << row;
  // topk=0 returns the input unchanged; nothing valid gives all -1.
  EXPECT_EQ(Vals(nd::contrib::box_nms(d, {.topk = 0})), Vals(d));
  NDArray none = nd::contrib::box_nms(d, {.valid_thresh = 5});
  for (double v : Vals(none)) EXPECT_EQ(v, -1);
}

TEST(Boxes, BipartiteMatchingFollowsMXNetTopkQuirk) {
  NDArray s = Arr({0.5, 0.6, 0.1, 0.1, 0.7, 0.3, 0.9, 0.2, 0.3, 0.4, 0.4, 0.8}, {4, 3});
  NDArrayVec all = nd::contrib::bipartite_matching(s, 1e-12f);
  EXPECT_EQ(Vals(all[0]), (std::vector<double>{-1, 1, 0, 2}));
  EXPECT_EQ(Vals(all[1]), (std::vector<double>{2, 1, 3}));
  // topk=1 keeps 2 matches (MXNet checks the limit after assigning).
  NDArrayVec one = nd::contrib::bipartite_matching(s, 1e-12f, false, 1);
  EXPECT_EQ(Vals(one[0]), (std::vector<double>{-1, -1, 0, 2}));
  NDArrayVec asc = nd::contrib::bipartite_matching(s, 0.35f, true);
  EXPECT_EQ(Vals(asc[0]), (std::vector<double>{2, 0, 1, -1}));
}

TEST(Boxes, EncodeDecodeRoundTrip) {
  NDArray anchors = Arr({0.1, 0.1, 0.5, 0.3, 0.2, 0.4, 0.6, 0.9}, {1, 2, 4});
  NDArray refs = Arr({0.15, 0.05, 0.55, 0.35}, {1, 1, 4});
  NDArrayVec enc = nd::contrib::box_encode(Arr({1, 0}, {1, 2}), Arr({0, 0}, {1, 2}), anchors, refs,
                                           Arr({0, 0, 0, 0}, {4}), Arr({1, 1, 1, 1}, {4}));
  EXPECT_EQ(Vals(enc[1]), (std::vector<double>{1, 1, 1, 1, 0, 0, 0, 0}));
  std::vector<double> t = Vals(enc[0]);
  EXPECT_NEAR(t[0], (0.35 - 0.3) / 0.4, 1e-6);
  EXPECT_NEAR(t[2], std::log(0.4 / 0.4), 1e-6);
  EXPECT_NEAR(t[3], std::log(0.3 / 0.2), 1e-6);
  for (int i = 4; i < 8; ++i) EXPECT_EQ(t[i], 0);
  // Decoding the positive's target against its (corner) anchor gives back the ref box.
  NDArray dec = nd::contrib::box_decode(enc[0], anchors, {.format = "corner"});
  std::vector<double> b = Vals(dec);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(b[k], Vals(refs)[k], 1e-5) << k;
  // clip bounds the log-size deltas before exp.
  NDArray big = Arr({0, 0, 5, 5}, {1, 1, 4});
  NDArray one = Arr({0.5, 0.5, 1, 1}, {1, 1, 4});
  EXPECT_NEAR(Vals(nd::contrib::box_decode(big, one, {.clip = 1}))[2], 0.5 + std::exp(1.f) / 2,
              1e-6);
}

TEST(Boxes, MultiBoxPriorByHand) {
  NDArray x = NDArray::Full({1, 3, 2, 4}, 0);
  NDArray p = nd::contrib::MultiBoxPrior(x, {.sizes = {0.5, 0.25}, .ratios = {1, 4}});
  EXPECT_EQ(p.shape(), (Shape{1, 2 * 4 * 3, 4}));
  std::vector<double> v = Vals(p);
  // Cell (0, 0): center (0.125, 0.25); size 0.5 ratio 1: w/2 = 0.5*2/4/2, h/2 = 0.25.
  EXPECT_NEAR(v[0], 0.125 - 0.125, 1e-7);
  EXPECT_NEAR(v[1], 0.25 - 0.25, 1e-7);
  EXPECT_NEAR(v[2], 0.25, 1e-7);
  EXPECT_NEAR(v[3], 0.5, 1e-7);
  // Third anchor: size 0.5, ratio 4 (sqrt 2): w/2 = 0.125*2, h/2 = 0.125.
  EXPECT_NEAR(v[8], 0.125 - 0.25, 1e-7);
  EXPECT_NEAR(v[9], 0.25 - 0.125, 1e-7);
  NDArray clipped = nd::contrib::MultiBoxPrior(x, {.sizes = {2}, .clip = true});
  for (double e : Vals(clipped)) EXPECT_TRUE(e >= 0 && e <= 1) << e;
}

TEST(Helpers, ArangeIndexCopyIndexArray) {
  NDArray x = NDArray::Full({2, 3}, 7);
  EXPECT_EQ(Vals(nd::contrib::arange_like(x)), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  NDArray r = nd::contrib::arange_like(x, {.start = 1, .step = 2, .repeat = 2, .axis = -1});
  EXPECT_EQ(r.shape(), (Shape{3}));
  EXPECT_EQ(Vals(r), (std::vector<double>{1, 1, 3}));
  EXPECT_EQ(OpRegistry::Find("_npx_arange_like"), OpRegistry::Find("_contrib_arange_like"));

  NDArray old = Arr({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
  NDArray c =
      nd::contrib::index_copy(old, Arr({3, 1}, {2}, DType::kInt32), Arr({9, 9, 8, 8}, {2, 2}));
  EXPECT_EQ(Vals(c), (std::vector<double>{0, 1, 8, 8, 4, 5, 9, 9}));

  NDArray ia = nd::contrib::index_array(NDArray::Full({2, 2}, 0));
  EXPECT_EQ(ia.dtype(), DType::kInt64);
  EXPECT_EQ(Vals(ia), (std::vector<double>{0, 0, 0, 1, 1, 0, 1, 1}));
  NDArray ib = nd::contrib::index_array(NDArray::Full({2, 3}, 0), Shape{-1});
  EXPECT_EQ(ib.shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(Vals(ib), (std::vector<double>{0, 1, 2, 0, 1, 2}));
}

TEST(Helpers, ElementwiseAndStraightThroughGradients) {
  NDArray x = Arr({-2.5, -0.5, 0.5, 1.5, -0.2, 0}, {6});
  EXPECT_EQ(Vals(nd::contrib::round_ste(x)), (std::vector<double>{-3, -1, 1, 2, -0, 0}));
  EXPECT_EQ(Vals(nd::contrib::sign_ste(x)), (std::vector<double>{-1, -1, 1, 1, -1, 0}));
  EXPECT_EQ(Vals(nd::contrib::quadratic(Arr({1, 2}, {2}), 1, 2, 3)), (std::vector<double>{6, 11}));
  EXPECT_EQ(Vals(nd::contrib::div_sqrt_dim(NDArray::Full({2, 4}, 1))),
            (std::vector<double>(8, 0.5)));
  NDArray og = Arr({1, 2, 3, 4, 5, 6}, {6});
  for (const char* name : {"_contrib_round_ste", "_contrib_sign_ste"}) {
    NDArray y = RunOp(name, {x})[0];
    EXPECT_EQ(Vals(Grad(name, {}, {x}, {y}, {og})[0]), Vals(og)) << name;
  }
  NDArray y = nd::contrib::gradientmultiplier(x, -2);
  EXPECT_EQ(Vals(y), Vals(x));
  EXPECT_EQ(Vals(Grad("_contrib_gradientmultiplier", {{"scalar", "-2"}}, {x}, {y}, {og})[0]),
            (std::vector<double>{-2, -4, -6, -8, -10, -12}));
}

TEST(Helpers, AllcloseScalarUint8) {
  NDArray a = Arr({1, 2, std::nan("")}, {3});
  NDArray r = nd::contrib::allclose(a, a);
  EXPECT_EQ(r.shape(), Shape{});
  EXPECT_EQ(r.dtype(), DType::kUint8);
  EXPECT_EQ(Vals(r), std::vector<double>{1});
  EXPECT_EQ(Vals(nd::contrib::allclose(a, a, 1e-5f, 1e-8f, false)), std::vector<double>{0});
  EXPECT_EQ(Vals(nd::contrib::allclose(Arr({1.0}, {1}), Arr({1.001}, {1}))),
            std::vector<double>{0});
  EXPECT_EQ(Vals(nd::contrib::allclose(Arr({1.0}, {1}), Arr({1.001}, {1}), 1e-2f)),
            std::vector<double>{1});
}

// ---------------------------------------------------------------------------------------------
TEST(Inference, UnknownDimsPropagate) {
  auto infer = [](const std::string& name, ShapeVec in, AttrDict attrs = {}) {
    const Op& op = OpRegistry::Get(name);
    OpAttrs a = OpAttrs::Parse(op, attrs);
    DTypeVec types(in.size(), static_cast<int>(DType::kFloat32)), out_t;
    ShapeVec out;
    InferOutputs(op, a, &in, &types, &out, &out_t);
    return std::make_pair(in, out);
  };
  EXPECT_EQ(infer("_contrib_box_iou", {Shape{-1, 4}, Shape{3, 4}}).second[0], (Shape{-1, 3}));
  auto nms = infer("_contrib_box_nms", {Shape{2, -1, 6}}).second;
  EXPECT_EQ(nms[0], (Shape{2, -1, 6}));
  EXPECT_EQ(nms[1], (Shape{2, -1, 1}));
  auto enc = infer("_contrib_box_encode", {Shape::Unknown(), Shape::Unknown(), Shape{2, 5, 4},
                                           Shape{2, 3, 4}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(enc.first[0], (Shape{2, 5}));
  EXPECT_EQ(enc.first[4], (Shape{4}));
  EXPECT_EQ(enc.second[1], (Shape{2, 5, 4}));
  auto bm = infer("_contrib_bipartite_matching", {Shape{2, 3, 5}}, {{"threshold", "0.1"}}).second;
  EXPECT_EQ(bm[0], (Shape{2, 3}));
  EXPECT_EQ(bm[1], (Shape{2, 5}));
  EXPECT_EQ(
      infer("_contrib_MultiBoxPrior", {Shape{-1, 3, 4, 5}}, {{"sizes", "(0.1, 0.2)"}}).second[0],
      (Shape{1, 40, 4}));
  EXPECT_EQ(infer("_contrib_arange_like", {Shape{-1, 6}}, {{"axis", "1"}}).second[0], (Shape{6}));
  EXPECT_EQ(infer("_contrib_index_array", {Shape{-1, 6}}).second[0], (Shape{-1, 6, 2}));
  EXPECT_EQ(infer("_contrib_allclose", {Shape{-1, 2}, Shape{3, 2}}).first[0], (Shape{3, 2}));
  EXPECT_FALSE(infer("_contrib_box_nms", {Shape::Unknown()}).second[0].ndim_known());
}

// ---------------------------------------------------------------------------------------------
TEST(Errors, NameTheOpAndWhatWasWrong) {
  using absl::StatusCode;
  NDArray b4 = NDArray::Full({2, 4}, 1), b5 = NDArray::Full({2, 5}, 1);
  ExpectError([&] { nd::contrib::box_iou(b4, b5); }, StatusCode::kInvalidArgument,
              {"_contrib_box_iou", "rhs", "(2, 5)"});
  ExpectError([&] { nd::contrib::box_iou(NDArray::Full({4}, 1), b4); },
              StatusCode::kInvalidArgument, {"_contrib_box_iou", "lhs", "at least 2"});
  ExpectError([&] { nd::contrib::box_iou(b4, b4, "diagonal"); }, StatusCode::kInvalidArgument,
              {"_contrib_box_iou", "format"});
  ExpectError([&] { nd::contrib::box_iou(b4.astype(DType::kInt32), b4.astype(DType::kInt32)); },
              StatusCode::kInvalidArgument, {"_contrib_box_iou", "int32"});
  NDArray d = NDArray::Full({3, 6}, 0.5);
  ExpectError([&] { nd::contrib::box_nms(d, {.score_index = 3}); }, StatusCode::kInvalidArgument,
              {"_contrib_box_nms", "score_index 3", "coordinates"});
  ExpectError(
      [&] {
        nd::contrib::box_nms(NDArray::Full({3, 5}, 0), {.id_index = 0});
      },
      StatusCode::kInvalidArgument, {"_contrib_box_nms", "at least 6", "(3, 5)"});
  ExpectError([&] { nd::contrib::box_nms(d, {.coord_start = 3}); }, StatusCode::kInvalidArgument,
              {"_contrib_box_nms", "coordinates [3, 6]"});
  ExpectError([&] { nd::contrib::box_nms(d, {.id_index = 1}); }, StatusCode::kInvalidArgument,
              {"_contrib_box_nms", "id_index and score_index"});
  ExpectError(
      [&] {
        RunOp("_contrib_box_nms", {d}, {{"in_format", "xywh"}});
      },
      StatusCode::kInvalidArgument, {"_contrib_box_nms", "in_format", "xywh"});
  ExpectError(
      [&] {
        nd::contrib::box_encode(NDArray::Full({1, 2}, 1), NDArray::Full({1, 2}, 3),
                                NDArray::Full({1, 2, 4}, 1), NDArray::Full({1, 2, 4}, 1),
                                NDArray::Full({4}, 0), NDArray::Full({4}, 1));
      },
      StatusCode::kOutOfRange, {"_contrib_box_encode", "match 3", "2 refs"});
  ExpectError(
      [&] {
        nd::contrib::box_encode(NDArray::Full({1, 2}, 1), NDArray::Full({1, 2}, 0),
                                NDArray::Full({1, 2, 4}, 1), NDArray::Full({1, 2, 4}, 1),
                                NDArray::Full({3}, 0), NDArray::Full({4}, 1));
      },
      StatusCode::kInvalidArgument, {"_contrib_box_encode", "means"});
  ExpectError(
      [&] {
        nd::contrib::box_decode(NDArray::Full({1, 3, 4}, 0), NDArray::Full({1, 2, 4}, 1));
      },
      StatusCode::kInvalidArgument, {"_contrib_box_decode", "anchors", "N=3"});
  ExpectError([&] { nd::contrib::box_decode(b4, b4); }, StatusCode::kInvalidArgument,
              {"_contrib_box_decode", "data", "(2, 4)"});
  ExpectError([&] { RunOp("_contrib_bipartite_matching", {b4}); }, StatusCode::kInvalidArgument,
              {"_contrib_bipartite_matching", "threshold"});
  ExpectError([&] { nd::contrib::bipartite_matching(NDArray::Full({4}, 1), 0.5f); },
              StatusCode::kInvalidArgument, {"_contrib_bipartite_matching", "at least 2"});
  ExpectError(
      [&] {
        nd::contrib::MultiBoxPrior(NDArray::Full({1, 2, 3}, 0));
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxPrior", "4-D", "(1, 2, 3)"});
  ExpectError(
      [&] {
        nd::contrib::MultiBoxPrior(NDArray::Full({1, 1, 2, 2}, 0), {.offsets = {0.5, 1.5}});
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxPrior", "offsets"});
  ExpectError(
      [&] {
        RunOp("_contrib_MultiBoxPrior", {b4}, {{"steps", "(0.1,)"}});
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxPrior", "steps"});
  NDArray anc = NDArray::Full({1, 3, 4}, 0.5);
  ExpectError(
      [&] {
        nd::contrib::MultiBoxDetection(NDArray::Full({1, 2, 4}, 0.5), NDArray::Full({1, 12}, 0),
                                       anc);
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxDetection", "4 anchors", "(1, 3, 4)"});
  ExpectError(
      [&] {
        nd::contrib::MultiBoxDetection(NDArray::Full({1, 2, 3}, 0.5), NDArray::Full({1, 8}, 0),
                                       anc);
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxDetection", "loc_pred", "12"});
  ExpectError(
      [&] {
        nd::contrib::MultiBoxDetection(NDArray::Full({1, 2, 3}, 0.5), NDArray::Full({1, 12}, 0),
                                       anc, {.variances = {0.1, 0.2}});
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxDetection", "variances"});
  ExpectError(
      [&] {
        nd::contrib::MultiBoxTarget(anc, NDArray::Full({1, 2, 4}, 0), NDArray::Full({1, 2, 3}, 0));
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxTarget", "at least 5", "(1, 2, 4)"});
  ExpectError(
      [&] {
        nd::contrib::MultiBoxTarget(NDArray::Full({2, 3, 4}, 0), NDArray::Full({1, 2, 5}, 0),
                                    NDArray::Full({1, 2, 3}, 0));
      },
      StatusCode::kInvalidArgument, {"_contrib_MultiBoxTarget", "anchor", "(2, 3, 4)"});
  ExpectError([&] { nd::contrib::arange_like(b4, {.axis = 2}); }, StatusCode::kInvalidArgument,
              {"_contrib_arange_like", "axis 2", "(2, 4)"});
  ExpectError([&] { nd::contrib::arange_like(b4, {.repeat = 0}); }, StatusCode::kInvalidArgument,
              {"_contrib_arange_like", "repeat"});
  NDArray old = NDArray::Full({4, 2}, 0);
  ExpectError(
      [&] {
        nd::contrib::index_copy(old, Arr({4}, {1}), NDArray::Full({1, 2}, 1));
      },
      StatusCode::kOutOfRange, {"_contrib_index_copy", "index 4", "size 4"});
  ExpectError(
      [&] {
        nd::contrib::index_copy(old, Arr({0}, {1}), NDArray::Full({1, 3}, 1));
      },
      StatusCode::kInvalidArgument, {"_contrib_index_copy", "(1, 3)", "(4, 2)"});
  ExpectError(
      [&] {
        nd::contrib::index_copy(old, Arr({0, 1}, {2}), NDArray::Full({1, 2}, 1));
      },
      StatusCode::kInvalidArgument, {"_contrib_index_copy", "2 entries"});
  ExpectError([&] { nd::contrib::index_array(b4, Shape{2}); }, StatusCode::kInvalidArgument,
              {"_contrib_index_array", "axes 2", "(2, 4)"});
  ExpectError([&] { nd::contrib::div_sqrt_dim(b4.astype(DType::kInt32)); },
              StatusCode::kInvalidArgument, {"_contrib_div_sqrt_dim", "int32"});
  ExpectError([&] { nd::contrib::allclose(b4, b5); }, StatusCode::kInvalidArgument,
              {"_contrib_allclose", "(2, 4)", "(2, 5)"});
}

}  // namespace
}  // namespace mxnet::testing
