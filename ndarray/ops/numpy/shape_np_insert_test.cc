// Tests of shape_np_insert.cc (numpy.insert / numpy.delete / boolean-mask assignment): values
// from real MXNet 1.9.1 (testdata/shape/np_insert.json, tools/conformance/refs_np_insert.py; the
// generator checked each against NumPy), MXNet's names, attributes and rejected calls, and the
// calls where MXNet 1.9.1 is wrong, against NumPy 1.23's values (written here by hand).
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
NDArray Iota(Shape s, DType t = DType::kFloat32) {
  std::vector<double> v(s.Size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Arr(v, s, t);
}
NDArray RunOp(const std::string& op, std::vector<NDArray> in, AttrDict attrs) {
  return Invoke(op, in, attrs)[0];
}

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/shape/np_insert.json"); }

TEST(MXNetRefs, ValuesMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  RefFileCounts n = CheckRefFile(doc, DTypeTolerance(0, 0));  // copies: exact
  EXPECT_GE(n.cases, 90);
  EXPECT_EQ(n.ops.size(), 6u);
}

TEST(MXNetRefs, RejectedCallsAreRejected) { EXPECT_EQ(CheckRefErrors(LoadJson()), 9u); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 6u);
  for (auto [name, info] : doc["ops"].items()) {
    // MXNet documents the mask assignment's attributes as plain "float" / "int" (no default: its
    // kernels read them from the attribute dict); ours are required.
    for (auto& at : info["attrs"])
      if (at[1] == "float" || at[1] == "int") at[1] = at[1].get<std::string>() + ", required";
    AttrDict required;
    if (name == "_npi_boolean_mask_assign_scalar") required = {{"value", "1"}, {"start_axis", "0"}};
    if (name == "_npi_boolean_mask_assign_tensor") required = {{"start_axis", "0"}};
    CheckRegistryEntry(name, info, required);
  }
}

// ---- NumPy's values where MXNet 1.9.1 is wrong ----
TEST(NpDelete, NegativeTensorIndicesCountFromTheEnd) {
  // numpy.delete(arange(12).reshape(3, 4), [-1, 2], axis=1) -> columns 0, 1 (MXNet ignores -1).
  NDArray r =
      RunOp("_npi_delete", {Iota({3, 4}), Arr({-1, 2}, {2}, DType::kInt64)}, {{"axis", "1"}});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 1, 4, 5, 8, 9}));
  // Flattened: numpy.delete(arange(12), [-1, 2]).
  r = RunOp("_npi_delete", {Iota({3, 4}), Arr({-1, 2}, {2}, DType::kInt64)}, {});
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 1, 3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST(NpDelete, OutOfRangeTensorIndexIsAnError) {
  // NumPy: IndexError; MXNet 1.9.1 ignores the index.
  ExpectInvalidArgument(
      [&] {
        RunOp("_npi_delete", {Iota({3, 4}), Arr({1, 3}, {2}, DType::kInt64)}, {{"axis", "0"}});
      },
      {"_npi_delete", "index 3 is out of bounds for axis 0 with size 3"});
  ExpectInvalidArgument(
      [&] {
        RunOp("_npi_delete", {Iota({3, 4}), Arr({1}, {1}, DType::kBool)}, {{"axis", "0"}});
      },
      {"_npi_delete", "integer indices"});
}

TEST(NpInsert, ScalarValWithAxis) {
  // numpy.insert(arange(12).reshape(3, 4), 1, 9.5, axis=0) (MXNet: "dimension do not match").
  NDArray r = RunOp("_npi_insert_scalar", {Iota({3, 4})},
                    {{"val", "9.5"}, {"int_ind", "1"}, {"axis", "0"}});
  EXPECT_EQ(r.shape(), (Shape{4, 4}));
  EXPECT_EQ(Vals(r),
            (std::vector<double>{0, 1, 2, 3, 9.5, 9.5, 9.5, 9.5, 4, 5, 6, 7, 8, 9, 10, 11}));
  r = RunOp("_npi_insert_scalar", {Iota({2, 2})},
            {{"val", "-1"}, {"int_ind", "-1"}, {"axis", "1"}});
  EXPECT_EQ(Vals(r), (std::vector<double>{0, -1, 1, 2, -1, 3}));
}

TEST(NpInsert, ScalarValWithSliceOrTensorIndex) {
  // numpy.insert(arange(4), slice(1, 3), 9.5) and numpy.insert(arange(4), [3, 1], 9.5) (MXNet:
  // dtype check fails).
  NDArray r = RunOp("_npi_insert_slice", {Iota({4})},
                    {{"val", "9.5"}, {"start", "1"}, {"stop", "3"}, {"step", "1"}});
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 9.5, 1, 9.5, 2, 3}));
  r = RunOp("_npi_insert_tensor", {Iota({4}), Arr({3, 1}, {2}, DType::kInt64)},
            {{"val", "9.5"}, {"axis", "0"}});
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 9.5, 1, 2, 9.5, 3}));
}

TEST(NpInsert, ValuesThatDoNotBroadcastAreRejected) {
  // numpy.insert(arange(12).reshape(3, 4), 1, [7, 8, 9], axis=0): (1, 3) into (1, 4) fails
  // (MXNet 1.9.1 reads past the values instead).
  ExpectInvalidArgument(
      [&] {
        RunOp("_npi_insert_scalar", {Iota({3, 4}), Arr({7, 8, 9}, {3})},
              {{"int_ind", "1"}, {"axis", "0"}});
      },
      {"_npi_insert_scalar", "values of shape (1, 3) cannot be broadcast to (1, 4)"});
  ExpectInvalidArgument(
      [&] {
        RunOp("_npi_insert_tensor", {Iota({3, 4}), Iota({2, 4}), Arr({2}, {1}, DType::kInt64)},
              {{"axis", "1"}});
      },
      {"_npi_insert_tensor", "cannot be broadcast"});
}

TEST(NpInsert, SeveralIndicesKeepObjOrder) {
  // numpy.insert([0, 1, 2, 3], [3, 1, 1], [10, 20, 30]) = [0, 20, 30, 1, 2, 10, 3].
  NDArray r = RunOp("_npi_insert_tensor",
                    {Iota({4}), Arr({10, 20, 30}, {3}), Arr({3, 1, 1}, {3}, DType::kInt64)}, {});
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 20, 30, 1, 2, 10, 3}));
  EXPECT_EQ(r.dtype(), DType::kFloat32);
}

TEST(NpMaskAssign, StartAxisWithoutCountAxis) {
  // data (2, 3, 2), mask (3,) at axis 1, value (2, 2) = (lead, trail): every true position of
  // row l gets value[l] (MXNet's rule; MXNet 1.9.1 reads value (2,) past its end for l = 1).
  NDArray r = RunOp("_npi_boolean_mask_assign_tensor",
                    {Arr(std::vector<double>(12, 0), {2, 3, 2}), Arr({1, 0, 1}, {3}, DType::kBool),
                     Arr({1, 2, 3, 4}, {2, 2})},
                    {{"start_axis", "1"}});
  EXPECT_EQ(Vals(r), (std::vector<double>{1, 2, 0, 0, 1, 2, 3, 4, 0, 0, 3, 4}));
  // The input is not modified (ours returns a new array).
  NDArray x = Iota({3});
  RunOp("_npi_boolean_mask_assign_scalar", {x, Arr({1, 1, 1}, {3}, DType::kBool)},
        {{"value", "5"}, {"start_axis", "0"}});
  EXPECT_EQ(Vals(x), (std::vector<double>{0, 1, 2}));
}

TEST(NpInsertDelete, NotDifferentiable) {
  for (const char* op :
       {"_npi_insert_scalar", "_npi_insert_slice", "_npi_insert_tensor", "_npi_delete",
        "_npi_boolean_mask_assign_scalar", "_npi_boolean_mask_assign_tensor"})
    EXPECT_FALSE(OpRegistry::Get(op).differentiable()) << op;
}

}  // namespace
}  // namespace mxnet::testing
