// Tests of shape_np_pad.cc (_npi_pad, numpy.pad): values and gradients from real MXNet 1.9.1
// (testdata/shape/np_pad.json, tools/conformance/refs_np_pad.py; the generator checked each against
// numpy.pad), MXNet's registry entry and rejected calls, and the calls where MXNet 1.9.1 is wrong
// against numpy.pad's values (NumPy 1.23, written here by hand).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }
NDArray Pad(const NDArray& x, AttrDict attrs) {
  return Invoke("_npi_pad", std::vector<NDArray>{x}, attrs)[0];
}
const NDArray& A() {
  static NDArray a = Arr({1, 2, 3, 4, 5, 6}, {2, 3});
  return a;
}

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/shape/np_pad.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  RefFileCounts n = CheckRefFile(doc, DTypeTolerance(0, 0));  // copies: exact
  EXPECT_GE(n.cases, 32);
  EXPECT_GE(n.with_grads, 5);
}

TEST(MXNetRefs, RejectedCallsAreRejected) { EXPECT_EQ(CheckRefErrors(LoadJson()), 1u); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 1u);
  CheckRegistryEntry("_npi_pad", doc["ops"]["_npi_pad"], {{"pad_width", "((0, 0), (0, 0))"}});
}

// ---- numpy.pad's values where MXNet 1.9.1 fails or differs ----
TEST(NpPad, ShortPadWidthForms) {
  // numpy.pad(a, ((1, 2),), constant_values=7) (MXNet's op fails its index check).
  NDArray r = Pad(A(), {{"pad_width", "((1, 2),)"}, {"constant_value", "7"}});
  EXPECT_EQ(r.shape(), (Shape{5, 6}));
  EXPECT_EQ(Vals(r), (std::vector<double>{7, 7, 7, 7, 7, 7, 7, 1, 2, 3, 7, 7, 7, 4, 5,
                                          6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}));
  EXPECT_EQ(Pad(A(), {{"pad_width", "(1, 2)"}}).shape(), (Shape{5, 6}));
  EXPECT_EQ(Pad(A(), {{"pad_width", "(2,)"}}).shape(), (Shape{6, 7}));
  EXPECT_EQ(Pad(A(), {{"pad_width", "2"}}).shape(), (Shape{6, 7}));
  // numpy.pad([1, 2, 3], (4, 5), 'reflect'): repeated reflection.
  EXPECT_EQ(Vals(Pad(Arr({1, 2, 3}, {3}), {{"pad_width", "((4, 5),)"}, {"mode", "reflect"}})),
            (std::vector<double>{1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2}));
}

TEST(NpPad, ReflectTypeOdd) {
  // numpy.pad(a, 1, 'reflect', reflect_type='odd') (MXNet ignores 'odd').
  NDArray r = Pad(A(), {{"pad_width", "1"}, {"mode", "reflect"}, {"reflect_type", "odd"}});
  EXPECT_EQ(Vals(r),
            (std::vector<double>{-3, -2, -1, 0, 1, 0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 6, 7, 8, 9, 10}));
  // numpy.pad([1, 2, 4], (5, 4), 'symmetric', reflect_type='odd'): growing chunks.
  r = Pad(Arr({1, 2, 4}, {3}, DType::kFloat64),
          {{"pad_width", "(5, 4)"}, {"mode", "symmetric"}, {"reflect_type", "odd"}});
  EXPECT_EQ(Vals(r), (std::vector<double>{-4, -2, -2, 0, 1, 1, 2, 4, 4, 6, 7, 7}));
  EXPECT_EQ(r.dtype(), DType::kFloat64);
}

TEST(NpPad, MinimumCornersReadEarlierAxes) {
  // numpy.pad(a, ((1, 1), (2, 1)), 'minimum').
  NDArray r = Pad(A(), {{"pad_width", "((1, 1), (2, 1))"}, {"mode", "minimum"}});
  EXPECT_EQ(Vals(r), (std::vector<double>{1, 1, 1, 2, 3, 1, 1, 1, 1, 2, 3, 1,
                                          4, 4, 4, 5, 6, 4, 1, 1, 1, 2, 3, 1}));
}

TEST(NpPad, GradientOnlyForConstant) {
  const Op& op = OpRegistry::Get("_npi_pad");
  std::vector<NDArray> in = {A()};
  NDArray og = Arr(std::vector<double>(20, 0), {4, 5});
  std::vector<double> g(20);
  for (int i = 0; i < 20; ++i) g[i] = i;
  og = Arr(g, {4, 5});
  OpAttrs c = OpAttrs::Parse(op, {{"pad_width", "((1, 1), (0, 2))"}});
  NDArrayVec out = Invoke(op, c, in);
  std::vector<NDArray> outs = {out[0]}, ogs = {og};
  // MXNet 1.9.1's gradient for this call (its test): the interior of the head gradient.
  EXPECT_EQ(Vals(EagerGradBuilder::Run(op, c, in, outs, ogs)[0]),
            (std::vector<double>{5, 6, 7, 10, 11, 12}));
  OpAttrs e = OpAttrs::Parse(op, {{"pad_width", "((1, 1), (0, 2))"}, {"mode", "edge"}});
  out = Invoke(op, e, in);
  outs = {out[0]};
  ExpectInvalidArgument([&] { EagerGradBuilder::Run(op, e, in, outs, ogs); },
                        {"_npi_pad", "only defined for mode 'constant'", "edge"});
}

TEST(NpPad, Errors) {
  ExpectInvalidArgument(
      [&] {
        Pad(A(), {{"pad_width", "((1, -1), (0, 0))"}});
      },
      {"_npi_pad", "negative width"});
  ExpectInvalidArgument(
      [&] {
        Pad(A(), {{"pad_width", "((1, 1), (0, 0), (1, 1))"}});
      },
      {"_npi_pad", "3 pairs for an input of 2 dimensions"});
  ExpectInvalidArgument([&] { Pad(A(), {{"pad_width", "(1, 2, 3)"}}); }, {"_npi_pad", "pad_width"});
  ExpectInvalidArgument(
      [&] {
        Pad(Arr({}, {0, 2}), {{"pad_width", "1"}, {"mode", "edge"}});
      },
      {"_npi_pad", "cannot pad an empty axis 0 with mode 'edge'"});
}

}  // namespace
}  // namespace mxnet::testing
