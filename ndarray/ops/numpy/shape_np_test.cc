// Tests of shape_np.cc's NumPy-interface shape ops: reference values and gradients from real
// MXNet 1.9.1 (testdata/shape/np.json, tools/conformance/refs_np_shape.py), MXNet's names,
// attributes and rejected calls, and hand-computed values.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/shape/np.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  // Exact but for sums in gradients (tril of 1-D, broadcast_to).
  RefFileCounts n = CheckRefFile(doc, DTypeTolerance(1e-6, 1e-7));
  EXPECT_GE(n.cases, 113);
  EXPECT_GE(n.with_grads, 46);
  EXPECT_EQ(n.ops.size(), 26u);  // all but _npi_dsplit (by hand below)
}

TEST(MXNetRefs, RejectedCallsAreRejected) { EXPECT_GE(CheckRefErrors(LoadJson()), 53u); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 27u);
  const std::map<std::string, AttrDict> required = {
      {"_np_reshape", {{"newshape", "(1,)"}}},
      {"_npx_reshape", {{"newshape", "(1,)"}}},
      {"_np_moveaxis", {{"source", "(0,)"}, {"destination", "(0,)"}}},
      {"_npi_flip", {{"axis", "(0,)"}}},
      {"_npi_hsplit", {{"indices", "(0,)"}}},
      {"_npi_dsplit", {{"indices", "(0,)"}}},
  };
  for (auto& [name, info] : doc["ops"].items()) {
    if (name == "_npi_concatenate") continue;  // by hand below
    if (info["inputs"].size() == 1 && info["attrs"].dump().find("num_args") != std::string::npos) {
      // MXNet lists one variadic input ("arys" / "data"); ours are numbered.
      json i = info;
      i["inputs"] = {info["inputs"][0].get<std::string>() + "0"};
      CheckRegistryEntry(name, i, {{"num_args", "1"}});
      continue;
    }
    auto it = required.find(name);
    CheckRegistryEntry(name, info, it == required.end() ? AttrDict{} : it->second);
  }
}

// MXNet 1.9.1's registry documents concatenate's axis as `dim` (Concat's docs) but its parser
// reads `axis` (default 0, None: flattened) and rejects `dim`.
TEST(MXNetRegistry, ConcatenateTakesAxis) {
  const Op& op = OpRegistry::Get("_npi_concatenate");
  EXPECT_EQ(op.InputNames(OpAttrs::Parse(op, {{"num_args", "2"}})),
            (std::vector<std::string>{"data0", "data1"}));
  EXPECT_TRUE(op.schema->Find("num_args")->required);
  EXPECT_NE(op.schema->Find("axis"), nullptr);
  EXPECT_EQ(op.schema->Find("dim"), nullptr);
  NDArray a = Arr({1, 2, 3, 4}, {2, 2}), b = Arr({5, 6}, {1, 2});
  EXPECT_EQ(Invoke("_npi_concatenate", std::vector<NDArray>{a, b}, {{"num_args", "2"}})[0].shape(),
            (Shape{3, 2}));
}

TEST(NpxReshape, CodesByHand) {
  NDArray x = Arr(std::vector<double>(24, 1), {2, 3, 4});
  auto shape = [&](const char* ns, const char* rev = "False") {
    return Invoke("_npx_reshape", std::vector<NDArray>{x}, {{"newshape", ns}, {"reverse", rev}})[0]
        .shape();
  };
  EXPECT_EQ(shape("(-2, -1)"), (Shape{2, 12}));
  EXPECT_EQ(shape("(-5, -2)"), (Shape{6, 4}));
  EXPECT_EQ(shape("(-2, -6, 3, -1, -2)"), (Shape{2, 3, 1, 4}));
  EXPECT_EQ(shape("(-4, 1)"), (Shape{2, 3, 4, 1}));
  EXPECT_EQ(shape("(-1, 2)", "True"), (Shape{12, 2}));
  ExpectInvalidArgument([&] { shape("(-6, -1, -1, -4)"); }, {"_npx_reshape", "-6"});
  ExpectInvalidArgument([&] { shape("(-7,)"); }, {"_npx_reshape", "unknown code"});
}

TEST(Roll, FlatAndPerAxisByHand) {
  NDArray x = Arr({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(Vals(Invoke("_np_roll", std::vector<NDArray>{x}, {{"shift", "(1,)"}})[0]),
            (std::vector<double>{5, 0, 1, 2, 3, 4}));
  EXPECT_EQ(Vals(Invoke("_np_roll", std::vector<NDArray>{x},
                        {{"shift", "(1, 4)"}, {"axis", "(0, 1)"}})[0]),
            (std::vector<double>{5, 3, 4, 2, 0, 1}));
}

TEST(Rot90, QuarterTurnByHand) {
  // [[0, 1], [2, 3]] rotated once counter-clockwise: [[1, 3], [0, 2]].
  NDArray x = Arr({0, 1, 2, 3}, {2, 2}, DType::kInt32);
  NDArray y = Invoke("_npi_rot90", std::vector<NDArray>{x}, {{"axes", "(0, 1)"}})[0];
  EXPECT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(Vals(y), (std::vector<double>{1, 3, 0, 2}));
}

TEST(Reshape, OrderIsIgnoredAsInMXNet) {
  NDArray y = Invoke("_np_reshape", std::vector<NDArray>{Arr({1, 2, 3, 4}, {2, 2})},
                     {{"newshape", "(4,)"}, {"order", "F"}})[0];
  EXPECT_EQ(Vals(y), (std::vector<double>{1, 2, 3, 4}));
}

// MXNet: np.shares_memory(a, a) and (a, a[1:]) are True, a copy is not (the reference file
// can only hold distinct arrays).
TEST(ShareMemory, SameArrayAndViewsOverlap) {
  NDArray a = Arr({1, 2, 3, 4}, {2, 2});
  auto shares = [](const NDArray& x, const NDArray& y) {
    NDArray r = Invoke("_npi_share_memory", std::vector<NDArray>{x, y})[0];
    EXPECT_EQ(r.dtype(), DType::kBool);
    EXPECT_EQ(r.shape(), Shape());
    return r.ToVector<double>()[0] != 0;
  };
  EXPECT_TRUE(shares(a, a));
  EXPECT_TRUE(shares(a, a.slice(1, 2)));
  EXPECT_FALSE(shares(a.slice(0, 1), a.slice(1, 2)));
  EXPECT_FALSE(shares(a, a.copy()));
}

// MXNet 1.9.1's dsplit corrupts its heap, so no reference values: numpy.dsplit by hand.
TEST(Dsplit, SplitsAxis2LikeNumpy) {
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i;
  NDArray x = Arr(v, {2, 2, 3});  // x[i, j, :] = 6i + 3j + (0, 1, 2)
  NDArrayVec parts =
      Invoke("_npi_dsplit", std::vector<NDArray>{x}, {{"indices", "()"}, {"sections", "2"}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(Vals(parts[0]), (std::vector<double>{0, 1, 3, 4, 6, 7, 9, 10}));
  EXPECT_EQ(Vals(parts[1]), (std::vector<double>{2, 5, 8, 11}));
  parts = Invoke("_npi_dsplit", std::vector<NDArray>{x}, {{"indices", "(0, 1)"}});
  EXPECT_EQ(parts[1].shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(Vals(parts[1]), (std::vector<double>{1, 2, 4, 5, 7, 8, 10, 11}));
  parts = Invoke("_npi_dsplit", std::vector<NDArray>{x},
                 {{"indices", "()"}, {"sections", "3"}, {"squeeze_axis", "True"}});
  EXPECT_EQ(parts[2].shape(), (Shape{2, 2}));
  EXPECT_EQ(Vals(parts[2]), (std::vector<double>{2, 5, 8, 11}));
  // axis is ignored, as in MXNet.
  parts = Invoke("_npi_dsplit", std::vector<NDArray>{x},
                 {{"indices", "()"}, {"sections", "3"}, {"axis", "0"}});
  EXPECT_EQ(parts[0].shape(), (Shape{2, 2, 1}));
}

}  // namespace
}  // namespace mxnet::testing
