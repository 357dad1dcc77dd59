#include "ndarray/params.h"

#include <gtest/gtest.h>

namespace mxnet {
namespace {

struct TestParam {
  Shape kernel;
  Shape stride;
  int64_t num_filter = 0;
  bool no_bias = false;
  float eps = 1e-3f;
  double momentum = 0.9;
  std::string act_type = "relu";
  std::optional<int> axis;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("kernel", &TestParam::kernel).required();
    d.field("stride", &TestParam::stride);
    d.field("num_filter", &TestParam::num_filter);
    d.field("no_bias", &TestParam::no_bias);
    d.field("eps", &TestParam::eps);
    d.field("momentum", &TestParam::momentum);
    d.field("act_type", &TestParam::act_type).choices({"relu", "sigmoid"});
    d.field("axis", &TestParam::axis);
    d.field("dtype", &TestParam::dtype);
  }
  std::string Validate() const { return num_filter < 0 ? "num_filter must be >= 0" : ""; }
};

TEST(Params, PyFloatRepr) {
  EXPECT_EQ(PyFloatRepr(1e-5), "1e-05");
  EXPECT_EQ(PyFloatRepr(1e-5f), "1e-05");
  EXPECT_EQ(PyFloatRepr(0.9), "0.9");
  EXPECT_EQ(PyFloatRepr(0.9f), "0.9");
  EXPECT_EQ(PyFloatRepr(1.0), "1.0");
  EXPECT_EQ(PyFloatRepr(100000.0), "100000.0");
  EXPECT_EQ(PyFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PyFloatRepr(-2.5), "-2.5");
  EXPECT_EQ(PyFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PyFloatRepr(0.334), "0.334");
  EXPECT_EQ(PyFloatRepr(123456789.123), "123456789.123");
}

TEST(Params, ParsesMxnetStringsWithDefaults) {
  const ParamSchema& s = SchemaOf<TestParam>();
  auto r = s.Parse("Test", {{"kernel", "(3, 3)"},
                            {"no_bias", "True"},
                            {"eps", "1e-05"},
                            {"axis", "None"},
                            {"dtype", "float16"}});
  ASSERT_TRUE(r.ok()) << r.status();
  const auto& p = *static_cast<const TestParam*>(r->get());
  EXPECT_EQ(p.kernel, Shape({3, 3}));
  EXPECT_EQ(p.stride, Shape());  // default
  EXPECT_TRUE(p.no_bias);
  EXPECT_FLOAT_EQ(p.eps, 1e-5f);
  EXPECT_DOUBLE_EQ(p.momentum, 0.9);
  EXPECT_FALSE(p.axis.has_value());
  EXPECT_EQ(p.dtype, DType::kFloat16);
  // Printing gives required + non-default fields in MXNet's formats.
  AttrDict d = s.Print(r->get());
  EXPECT_EQ(
      d, (AttrDict{
             {"kernel", "(3, 3)"}, {"no_bias", "True"}, {"eps", "1e-05"}, {"dtype", "float16"}}));
  // Accepts every legacy spelling.
  auto r2 = s.Parse("Test",
                    {{"kernel", "[7,7]"}, {"no_bias", "1"}, {"num_filter", "64L"}, {"axis", "-1"}});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(static_cast<const TestParam*>(r2->get())->num_filter, 64);
  EXPECT_EQ(static_cast<const TestParam*>(r2->get())->axis, -1);
}

TEST(Params, UnknownShapeRoundTrips) {
  // Shape::Unknown() prints "None" (MXNet's text for an unknown TShape) and parses back.
  Shape s{2, 3};
  EXPECT_EQ(PrintAttrValue(Shape::Unknown()), "None");
  ASSERT_TRUE(ParseAttrValue("None", &s));
  EXPECT_EQ(s, Shape::Unknown());
  ASSERT_TRUE(ParseAttrValue("(2, 3)", &s));
  EXPECT_EQ(s, Shape({2, 3}));
  EXPECT_FALSE(ParseAttrValue("Nothing", &s));
}

TEST(Params, ErrorsNameOpAndAttribute) {
  const ParamSchema& s = SchemaOf<TestParam>();
  auto check = [&](const AttrDict& d, const std::string& needle) {
    auto r = s.Parse("Convolution", d);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    std::string m(r.status().message());
    EXPECT_NE(m.find("Convolution"), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  };
  check({}, "required attribute 'kernel'");
  check({{"kernel", "(3, x)"}}, "kernel='(3, x)'");
  check({{"kernel", "(3,)"}, {"bogus", "1"}}, "unknown attribute 'bogus'");
  check({{"kernel", "(3,)"}, {"no_bias", "maybe"}}, "no_bias");
  check({{"kernel", "(3,)"}, {"act_type", "tanh"}}, "is not one of {relu, sigmoid}");
  check({{"kernel", "(3,)"}, {"num_filter", "-2"}}, "num_filter must be >= 0");
  check({{"kernel", "(3,)"}, {"dtype", "complex"}}, "dtype");
}

}  // namespace
}  // namespace mxnet
