// Tests of shape_internal.cc's internal helper ops: reference values and gradients from real
// MXNet 1.9.1 (testdata/shape/internal.json, tools/conformance/refs_shape_internal.py), MXNet's
// names/attributes and rejected calls, and by hand the ops MXNet cannot run imperatively
// (_set_value, _zeros_without_dtype, _NoGradient, _CrossDeviceCopy).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/shape/internal.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  RefFileCounts r = CheckRefFile(LoadJson(), DTypeTolerance(1e-6, 1e-7));
  EXPECT_GE(r.cases, 18);
  EXPECT_GE(r.with_grads, 8);
  EXPECT_EQ(r.ops.size(), 6u);
}

// Names and aliases of all; attributes where MXNet lists them in the usual form (_copyto is a
// legacy NDArray function there, _rnn_param_concat's inputs are one variadic "data",
// _CrossDeviceCopy/_NoGradient list nothing).
TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 10u);
  for (auto& [name, info] : doc["ops"].items()) {
    const Op* op = OpRegistry::Find(name);
    ASSERT_NE(op, nullptr) << name;
    for (const auto& alias : info["names"])
      EXPECT_EQ(OpRegistry::Find(alias.get<std::string>()), op);
    if (name == "_copyto" || name == "_rnn_param_concat" || name == "_CrossDeviceCopy" ||
        name == "_NoGradient" || name == "_zeros_without_dtype" || name == "_set_value")
      continue;
    CheckRegistryEntry(name, info, {});
  }
  // _set_value's src has no default in MXNet ("real_t").
  EXPECT_TRUE(OpRegistry::Get("_set_value").schema->Find("src")->required);
  const Op& r = OpRegistry::Get("_rnn_param_concat");
  EXPECT_EQ(OpAttrs::Parse(r, {{"num_args", "2"}}).get<ops::ConcatParam>().dim, 1);
  const Op& z = OpRegistry::Get("_zeros_without_dtype");
  EXPECT_EQ(OpAttrs::Parse(z, {}).ToDict(), AttrDict{});
}

TEST(MXNetErrors, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 4u); }

TEST(SetValue, FillsTheCallersOutput) {
  const Op& op = OpRegistry::Get("_set_value");
  NDArray out(Shape{2, 2}, cpu(), DType::kInt32);
  InvokeInto(op, OpAttrs::Parse(op, {{"src", "3.5"}}), {}, std::vector<NDArray>{out});
  EXPECT_EQ(Vals(out), (std::vector<double>{3, 3, 3, 3}));
  // Without an output there is nothing to set (MXNet: "Set value target must not be empty").
  ExpectInvalidArgument(
      [] {
        Invoke("_set_value", {}, {{"src", "1"}});
      },
      {"_set_value", "cannot infer"});
}

TEST(NoGradient, ZerosOfTheGivenOutput) {
  const Op& op = OpRegistry::Get("_NoGradient");
  NDArray out = Arr({1, 2, 3}, {3});
  InvokeInto(op, OpAttrs::Parse(op, {}), {}, std::vector<NDArray>{out});
  EXPECT_EQ(Vals(out), (std::vector<double>{0, 0, 0}));
}

TEST(ZerosWithoutDType, DTypeFromAttributeOrCaller) {
  NDArray z = Invoke("_zeros_without_dtype", {}, {{"shape", "(2, 2)"}, {"dtype", "6"}})[0];
  EXPECT_EQ(z.dtype(), DType::kInt64);
  EXPECT_EQ(Vals(z), (std::vector<double>{0, 0, 0, 0}));
  // dtype -1: unknown until a graph or the caller gives it (MXNet: "Unknown type enum -1").
  ExpectInvalidArgument(
      [] {
        Invoke("_zeros_without_dtype", {}, {{"shape", "(2, 2)"}});
      },
      {"_zeros_without_dtype", "cannot infer"});
  const Op& op = OpRegistry::Get("_zeros_without_dtype");
  NDArray out = Arr({1, 2}, {2}, DType::kFloat64);
  InvokeInto(op, OpAttrs::Parse(op, {{"shape", "(2,)"}}), {}, std::vector<NDArray>{out});
  EXPECT_EQ(Vals(out), (std::vector<double>{0, 0}));
  ExpectInvalidArgument(
      [] {
        Invoke("_zeros_without_dtype", {}, {{"shape", "(2, 2)"}, {"dtype", "99"}});
      },
      {"_zeros_without_dtype", "dtype flag 99"});
}

TEST(Copies, CrossDeviceCopyAndCopytoAreDeepCopies) {
  NDArray x = Arr({1, 2, 3}, {3}, DType::kInt32);
  for (const char* op : {"_CrossDeviceCopy", "_copyto", "_npi_copyto"}) {
    NDArray y = Invoke(op, std::vector<NDArray>{x})[0];
    EXPECT_EQ(y.dtype(), DType::kInt32);
    EXPECT_EQ(Vals(y), Vals(x));
    EXPECT_NE(y.data_ptr(), x.data_ptr());
  }
}

}  // namespace
}  // namespace mxnet::testing
