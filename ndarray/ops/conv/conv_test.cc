// Tests of the conv family: conformance with real MXNet 1.9.1 (testdata/conv/*.json from
// tools/conformance/gen_conv_refs.py), shape inference with unknown dims, error messages, the nd::
// API, oneDNN vs reference at realistic sizes, and concurrent use of the primitive cache.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/backends/backend.h"
#include "ndarray/grad.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using nlohmann::json;

// Primitives in the oneDNN backend's cache.
size_t OneDnnPrimitives() { return backends::FindBackend("onednn")->stats().primitives.entries; }

constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};

NDArray FromJson(const json& t, DType dtype) {
  std::vector<int64_t> dims = t["shape"].get<std::vector<int64_t>>();
  return NDArray::FromVector(t["data"].get<std::vector<double>>(), Shape(dims), cpu(), dtype);
}

AttrDict AttrsOf(const json& c) {
  AttrDict d;
  for (auto& [k, v] : c["attrs"].items()) d[k] = v.get<std::string>();
  return d;
}

// Runs every case of one reference file: forward and input gradients, in float32 (default
// dispatch: oneDNN where it applies, and each kernel explicitly) and float64 (reference kernels).
void CheckAgainstMxnet(const std::string& file) {
  std::ifstream f("ndarray/ops/testdata/conv/" + file);
  ASSERT_TRUE(f.good()) << "missing " << file;
  json doc = json::parse(f);
  ASSERT_GT(doc["cases"].size(), 0u);
  for (const json& c : doc["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    const AttrDict attrs = AttrsOf(c);
    const OpAttrs a = OpAttrs::Parse(op, attrs);
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      SCOPED_TRACE(DTypeName(dt));
      std::vector<NDArray> in;
      for (const json& t : c["inputs"]) in.push_back(FromJson(t, dt));
      NDArray expected = FromJson(c["output"], DType::kFloat64);
      NDArrayVec out = Invoke(op, a, in);
      EXPECT_TRUE(AllClose(out[0].astype(DType::kFloat64), expected, 1e-4, 1e-5)) << "output";
      if (dt == DType::kFloat32) {
        OpTestCase tc{.op = c["op"], .attrs = attrs};
        for (KernelKey k : op.Kernels()) {
          const auto& entry = *std::find_if(op.kernels.begin(), op.kernels.end(),
                                            [&](const Op::KernelEntry& e) { return e.key == k; });
          if (entry.supports && !entry.supports(a, in)) continue;
          EXPECT_TRUE(
              AllClose(RunWithKernel(tc, k, in)[0].astype(DType::kFloat64), expected, 1e-4, 1e-5))
              << "output of the " << BackendName(k.backend) << " kernel";
        }
      }
      NDArray og = FromJson(c["ograd"], dt);
      std::vector<NDArray> outs(out.begin(), out.end());
      std::vector<NDArray> grads = EagerGradBuilder::Run(op, a, in, outs, std::vector<NDArray>{og});
      ASSERT_EQ(grads.size(), c["grads"].size());
      for (size_t i = 0; i < grads.size(); ++i) {
        ASSERT_FALSE(grads[i].is_none()) << "no gradient for input " << i;
        EXPECT_TRUE(AllClose(grads[i].astype(DType::kFloat64),
                             FromJson(c["grads"][i], DType::kFloat64), 1e-4, 1e-5))
            << "gradient of input " << i;
      }
    }
  }
}

TEST(ConvMxnet, ConvolutionAndDeconvolution) { CheckAgainstMxnet("conv.json"); }
TEST(ConvMxnet, FullyConnected) { CheckAgainstMxnet("fc.json"); }
TEST(ConvMxnet, Pooling) { CheckAgainstMxnet("pool.json"); }
TEST(ConvMxnet, UpSampling) { CheckAgainstMxnet("upsampling.json"); }

// ---- Shape inference. ----

struct Inferred {
  ShapeVec in, out;
};
Inferred Infer(std::string_view name, const AttrDict& attrs, ShapeVec in) {
  const Op& op = OpRegistry::Get(name);
  DTypeVec in_t(in.size(), 0), out_t;
  Inferred r{in, {}};
  InferOutputs(op, OpAttrs::Parse(op, attrs), &r.in, &in_t, &r.out, &out_t);
  return r;
}

TEST(ConvShape, ConvolutionInfersWeightAndBiasFromData) {
  // As MXNet's infer_shape_partial(data=(0, 4, 10, 0)): weight (8, 2, 3, 3), output (0, 8, 8, 0).
  auto r = Infer("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"num_group", "2"}},
                 {Shape{-1, 4, 10, -1}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{8, 2, 3, 3}));
  EXPECT_EQ(r.in[2], (Shape{8}));
  EXPECT_EQ(r.out[0], (Shape{-1, 8, 8, -1}));
  // Fully known data (deferred initialization): everything known.
  r = Infer("Convolution",
            {{"kernel", "(3, 3)"},
             {"num_filter", "16"},
             {"pad", "(1, 1)"},
             {"stride", "(2, 2)"},
             {"no_bias", "True"}},
            {Shape{2, 3, 32, 32}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{16, 3, 3, 3}));
  EXPECT_EQ(r.out[0], (Shape{2, 16, 16, 16}));
  // Channels-last weight is (num_filter, kh, kw, C/num_group).
  r = Infer("Convolution", {{"kernel", "(3, 2)"}, {"num_filter", "6"}, {"layout", "NHWC"}},
            {Shape{1, 7, 7, 5}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{6, 3, 2, 5}));
  EXPECT_EQ(r.out[0], (Shape{1, 5, 6, 6}));
  // Unknown data rank: the kernel gives it; channels come back from the weight.
  r = Infer("Convolution", {{"kernel", "(3,)"}, {"num_filter", "4"}, {"num_group", "2"}},
            {Shape::Unknown(), Shape{4, 3, 3}, Shape::Unknown()});
  EXPECT_EQ(r.in[0], (Shape{-1, 6, -1}));
  // 3-D.
  r = Infer("Convolution", {{"kernel", "(3, 3, 3)"}, {"num_filter", "2"}, {"dilate", "(2, 1, 1)"}},
            {Shape{1, 3, 9, 8, 7}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{2, 3, 3, 3, 3}));
  EXPECT_EQ(r.out[0], (Shape{1, 2, 5, 6, 5}));
}

TEST(ConvShape, ConvolutionBackInfersDataFromOutput) {
  // Batch always; spatial sizes where the stride is 1 (MXNet's partial inference).
  const Op& op = OpRegistry::Get("Convolution");
  OpAttrs a = OpAttrs::Parse(op, {{"kernel", "(3, 3)"},
                                  {"num_filter", "4"},
                                  {"pad", "(1, 0)"},
                                  {"stride", "(1, 2)"},
                                  {"no_bias", "True"}});
  ShapeVec in{Shape{-1, 3, -1, -1}, Shape::Unknown()}, out{Shape{5, 4, 10, 6}};
  op.infer_shape(a, &in, &out);
  EXPECT_EQ(in[0], (Shape{5, 3, 10, -1}));
}

TEST(ConvShape, DeconvolutionWeightAndOutput) {
  auto r = Infer("Deconvolution",
                 {{"kernel", "(4, 4)"},
                  {"num_filter", "6"},
                  {"num_group", "3"},
                  {"stride", "(2, 2)"},
                  {"pad", "(1, 1)"}},
                 {Shape{2, 9, 5, -1}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{9, 2, 4, 4}));
  EXPECT_EQ(r.out[0], (Shape{2, 6, 10, -1}));
  r = Infer("Deconvolution",
            {{"kernel", "(3, 3)"},
             {"num_filter", "3"},
             {"stride", "(2, 2)"},
             {"target_shape", "(6, 5)"},
             {"no_bias", "False"}},
            {Shape{1, 2, 3, 3}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[2], (Shape{3}));
  EXPECT_EQ(r.out[0], (Shape{1, 3, 6, 5}));
  r = Infer("Deconvolution",
            {{"kernel", "(3,)"},
             {"num_filter", "2"},
             {"stride", "(3,)"},
             {"adj", "(2,)"},
             {"layout", "NWC"}},
            {Shape{1, 4, 5}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{5, 3, 2}));
  EXPECT_EQ(r.out[0], (Shape{1, 14, 2}));
}

TEST(ConvShape, FullyConnected) {
  auto r = Infer("FullyConnected", {{"num_hidden", "10"}},
                 {Shape{4, 3, 5}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{10, 15}));
  EXPECT_EQ(r.in[2], (Shape{10}));
  EXPECT_EQ(r.out[0], (Shape{4, 10}));
  r = Infer("FullyConnected", {{"num_hidden", "10"}, {"flatten", "False"}},
            {Shape{4, -1, 5}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{10, 5}));
  EXPECT_EQ(r.out[0], (Shape{4, -1, 10}));
  // Unknown non-batch dims leave the flattened input size unknown.
  r = Infer("FullyConnected", {{"num_hidden", "2"}, {"no_bias", "True"}},
            {Shape{-1, -1, 3}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{2, -1}));
  EXPECT_EQ(r.out[0], (Shape{-1, 2}));
}

TEST(ConvShape, PoolingConventions) {
  auto out = [](AttrDict attrs, Shape data) { return Infer("Pooling", attrs, {data}).out[0]; };
  EXPECT_EQ(out({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}}, Shape{1, 3, 8, -1}),
            (Shape{1, 3, 3, -1}));
  EXPECT_EQ(out({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}},
                Shape{1, 3, 8, 8}),
            (Shape{1, 3, 4, 4}));
  EXPECT_EQ(
      out({{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pooling_convention", "same"}}, Shape{1, 3, 8}),
      (Shape{1, 3, 4}));
  EXPECT_EQ(out({{"global_pool", "True"}, {"layout", "NHWC"}}, Shape{2, 7, 5, 3}),
            (Shape{2, 1, 1, 3}));
  EXPECT_EQ(out({{"kernel", "(2, 2, 2)"}, {"layout", "NDHWC"}, {"stride", "(2, 2, 2)"}},
                Shape{2, 4, 6, 8, 3}),
            (Shape{2, 2, 3, 4, 3}));
  EXPECT_EQ(out({{"kernel", "(3, 3)"}}, Shape::Unknown()), Shape::Unknown());
}

TEST(ConvShape, UpSampling) {
  auto r = Infer("UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}},
                 {Shape{1, 2, 4, 4}, Shape{1, 3, 2, 2}});
  EXPECT_EQ(r.out[0], (Shape{1, 5, 8, 8}));
  r = Infer("UpSampling",
            {{"scale", "3"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "4"}},
            {Shape{2, 4, 5, 5}, Shape::Unknown()});
  EXPECT_EQ(r.in[1], (Shape{4, 1, 5, 5}));
  EXPECT_EQ(r.out[0], (Shape{2, 4, 15, 15}));
}

// ---- Errors name the op, the attribute and the shapes. ----

void ExpectError(const std::function<void()>& f, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << StrJoin(parts, ", ");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument) << e.what();
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

NDArray Ones(Shape s, DType dt = DType::kFloat32) { return NDArray::Full(s, 1.0, cpu(), dt); }

TEST(ConvErrors, MessagesNameOpAttributeAndShapes) {
  // Channel mismatch between data and weight.
  ExpectError(
      [] {
        nd::Convolution(Ones({1, 3, 5, 5}), Ones({4, 2, 3, 3}),
                        {.kernel = {3, 3}, .num_filter = 4});
      },
      {"Convolution", "weight", "(4, 2, 3, 3)", "(4, 3, 3, 3)", "(1, 3, 5, 5)"});
  // Kernel larger than the padded input.
  ExpectError(
      [] {
        nd::Convolution(Ones({1, 1, 2, 2}), Ones({1, 1, 5, 5}),
                        {.kernel = {5, 5}, .num_filter = 1, .pad = {1, 1}});
      },
      {"Convolution", "kernel=(5, 5)", "exceeds", "4", "(1, 1, 2, 2)"});
  ExpectError(
      [] {
        nd::Pooling(Ones({1, 1, 2, 2}), {.kernel = {3, 3}});
      },
      {"Pooling", "kernel=(3, 3)", "exceeds", "(1, 1, 2, 2)"});
  // Groups.
  ExpectError(
      [] {
        nd::Convolution(Ones({1, 3, 5, 5}), Ones({4, 1, 3, 3}),
                        {.kernel = {3, 3}, .num_filter = 4, .num_group = 2});
      },
      {"Convolution", "channels 3", "num_group=2"});
  // Rank and layout.
  ExpectError(
      [] {
        nd::Convolution(Ones({1, 3, 5}), Ones({4, 3, 3, 3}), {.kernel = {3, 3}, .num_filter = 4});
      },
      {"Convolution", "4-D", "NCHW", "(1, 3, 5)"});
  ExpectError(
      [] {
        nd::Convolution(Ones({1, 5, 3}), Ones({4, 3, 3}),
                        {.kernel = {3}, .num_filter = 4, .layout = "NHWC"});
      },
      {"Convolution", "layout=NHWC", "kernel=(3,)"});
  // Attributes.
  const Op& conv = OpRegistry::Get("Convolution");
  ExpectError(
      [&] {
        OpAttrs::Parse(conv, {{"num_filter", "4"}});
      },
      {"Convolution", "kernel", "missing"});
  ExpectError(
      [&] {
        OpAttrs::Parse(conv, {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"stride", "(1,)"}});
      },
      {"Convolution", "stride=(1,)", "2 entries"});
  ExpectError(
      [&] {
        OpAttrs::Parse(conv, {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"layout", "NCDHWX"}});
      },
      {"Convolution", "layout", "NCDHWX"});
  ExpectError(
      [] {
        OpAttrs::Parse(OpRegistry::Get("Pooling"), {{"kernel", "(2, 2)"}, {"pool_type", "lp"}});
      },
      {"Pooling", "p_value"});
  ExpectError(
      [] {
        OpAttrs::Parse(OpRegistry::Get("Pooling"),
                       {{"kernel", "(2, 2)"}, {"pooling_convention", "same"}});
      },
      {"Pooling", "same", "1-D"});
  // Deconvolution adj must be smaller than the stride; target_shape must be reachable.
  ExpectError(
      [] {
        nd::Deconvolution(Ones({1, 2, 3, 3}), Ones({2, 2, 3, 3}),
                          {.kernel = {3, 3}, .num_filter = 2, .stride = {2, 2}, .adj = {2, 2}});
      },
      {"Deconvolution", "adj 2", "stride 2"});
  ExpectError(
      [] {
        nd::Deconvolution(
            Ones({1, 2, 3, 3}), Ones({2, 2, 3, 3}),
            {.kernel = {3, 3}, .num_filter = 2, .stride = {2, 2}, .target_shape = {9, 9}});
      },
      {"Deconvolution", "target_shape=(9, 9)", "at most 7"});
  // FullyConnected weight.
  ExpectError(
      [] {
        nd::FullyConnected(Ones({2, 3, 4}), Ones({5, 4}), Ones({5}), {.num_hidden = 5});
      },
      {"FullyConnected", "weight", "(5, 4)", "(5, 12)", "flatten=True"});
  ExpectError(
      [] {
        nd::FullyConnected(Ones({2, 4}), Ones({5, 4}), Ones({6}), {.num_hidden = 5});
      },
      {"FullyConnected", "bias", "(6,)", "(5,)"});
  // Bias arguments vs no_bias.
  ExpectError(
      [] {
        nd::FullyConnected(Ones({2, 4}), Ones({5, 4}), Ones({5}),
                           {.num_hidden = 5, .no_bias = true});
      },
      {"FullyConnected", "no_bias=True", "(5,)"});
  // NDArray() as the bias needs no_bias=True (Convolution's and FullyConnected's default is
  // False); Deconvolution's default no_bias=True refuses a bias array unless set to False.
  ExpectError(
      [] {
        nd::Convolution(Ones({1, 3, 5, 5}), Ones({4, 3, 3, 3}), NDArray(),
                        {.kernel = {3, 3}, .num_filter = 4});
      },
      {"Convolution", "no_bias=False", "empty NDArray"});
  ExpectError(
      [] {
        nd::Deconvolution(Ones({1, 2, 3, 3}), Ones({2, 2, 3, 3}), Ones({2}),
                          {.kernel = {3, 3}, .num_filter = 2});
      },
      {"Deconvolution", "no_bias=True", "(2,)"});
  // UpSampling's num_args, when set, must be the number of inputs.
  ExpectError(
      [] {
        nd::UpSampling(Ones({1, 1, 2, 2}), {.scale = 2, .num_args = 2});
      },
      {"UpSampling", "num_args=2", "1 inputs"});
  // UpSampling sizes.
  ExpectError(
      [] {
        nd::UpSampling(std::vector<NDArray>{Ones({1, 1, 4, 4}), Ones({1, 1, 3, 3})}, {.scale = 2});
      },
      {"UpSampling", "arg1", "(1, 1, 3, 3)", "does not divide", "8"});
  ExpectError(
      [] {
        nd::Pooling(Ones({1, 1, 4, 4}), {.kernel = {2, 2}, .pool_type = "median"});
      },
      {"Pooling", "pool_type", "median"});
  // The fused conv's clip bounds: required with act_type=clip, rejected without it, ordered.
  const Op& sg = OpRegistry::Get("_sg_onednn_conv");
  const AttrDict base{{"kernel", "(1, 1)"}, {"num_filter", "2"}};
  auto with = [&](AttrDict extra) {
    AttrDict a = base;
    a.insert(extra.begin(), extra.end());
    return a;
  };
  ExpectError(
      [&] {
        OpAttrs::Parse(sg, with({{"act_type", "clip"}, {"act_min", "0"}}));
      },
      {"_sg_onednn_conv", "act_type='clip' needs act_min and act_max"});
  ExpectError(
      [&] {
        OpAttrs::Parse(sg, with({{"act_type", "relu"}, {"act_max", "6"}}));
      },
      {"_sg_onednn_conv", "act_min/act_max need act_type='clip'"});
  ExpectError(
      [&] {
        OpAttrs::Parse(sg, with({{"act_type", "clip"}, {"act_min", "2"}, {"act_max", "1"}}));
      },
      {"_sg_onednn_conv", "act_min (2) must not exceed act_max (1)"});
  EXPECT_NO_THROW(
      OpAttrs::Parse(sg, with({{"act_type", "clip"}, {"act_min", "0"}, {"act_max", "6"}})));
}

// ---- The nd:: API. ----

TEST(ConvApi, MatchesByNameInvocation) {
  NDArray x = RandomArray({2, 3, 8, 8}, -1, 1, 1, DType::kFloat32);
  NDArray w = RandomArray({6, 3, 3, 3}, -1, 1, 2, DType::kFloat32);
  NDArray b = RandomArray({6}, -1, 1, 3, DType::kFloat32);
  NDArray y = nd::Convolution(x, w, b,
                              {.kernel = {3, 3}, .num_filter = 6, .stride = {2, 2}, .pad = {1, 1}});
  NDArray y2 = Invoke(
      "Convolution", std::vector<NDArray>{x, w, b},
      {{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}})[0];
  EXPECT_EQ(y.shape(), (Shape{2, 6, 4, 4}));
  EXPECT_TRUE(AllClose(y, y2, 0, 0));
  // No bias: NDArray() infers no_bias.
  NDArray y3 = nd::Convolution(x, w, {.kernel = {3, 3}, .num_filter = 6});
  EXPECT_EQ(y3.shape(), (Shape{2, 6, 6, 6}));

  NDArray d = nd::Deconvolution(
      y, w, {.kernel = {3, 3}, .num_filter = 3, .stride = {2, 2}, .pad = {1, 1}, .adj = {1, 1}});
  EXPECT_EQ(d.shape(), (Shape{2, 3, 8, 8}));
  // Deconvolution with the conv's geometry is the adjoint: <conv(x), y> == <x, deconv(y)>.
  NDArray cx =
      nd::Convolution(x, w, {.kernel = {3, 3}, .num_filter = 6, .stride = {2, 2}, .pad = {1, 1}});
  double lhs = 0, rhs = 0;
  auto cv = cx.ToVector<double>(), yv = y.ToVector<double>(), xv = x.ToVector<double>(),
       dv = d.ToVector<double>();
  for (size_t i = 0; i < cv.size(); ++i) lhs += cv[i] * yv[i];
  for (size_t i = 0; i < xv.size(); ++i) rhs += xv[i] * dv[i];
  EXPECT_NEAR(lhs, rhs, 1e-3 * std::abs(lhs) + 1e-3);

  NDArray fc =
      nd::FullyConnected(x, RandomArray({10, 192}, -1, 1, 4, DType::kFloat32), {.num_hidden = 10});
  EXPECT_EQ(fc.shape(), (Shape{2, 10}));
  NDArray p = nd::Pooling(x, {.kernel = {3, 3},
                              .pool_type = "avg",
                              .stride = {2, 2},
                              .pad = {1, 1},
                              .count_include_pad = false});
  EXPECT_EQ(p.shape(), (Shape{2, 3, 4, 4}));
  NDArray g = nd::Pooling(x, {.global_pool = true});
  EXPECT_EQ(g.shape(), (Shape{2, 3, 1, 1}));
  NDArray u = nd::UpSampling(x, {.scale = 2});
  EXPECT_EQ(u.shape(), (Shape{2, 3, 16, 16}));
  EXPECT_EQ(u.ToVector<float>()[1], x.ToVector<float>()[0]);
  NDArray ub = nd::UpSampling(std::vector<NDArray>{x, Ones({3, 1, 4, 4})},
                              {.scale = 2, .sample_type = "bilinear", .num_filter = 3});
  EXPECT_EQ(ub.shape(), (Shape{2, 3, 16, 16}));
}

// The nd:: functions take the ops' parameter structs themselves (declared once, conv_params.h):
// no option struct to copy from, and a struct value is checked like its string form.
static_assert(std::is_same_v<nd::ConvolutionOptions, ops::ConvolutionParam>);
static_assert(std::is_same_v<nd::DeconvolutionOptions, ops::DeconvolutionParam>);
static_assert(std::is_same_v<nd::FullyConnectedOptions, ops::FullyConnectedParam>);
static_assert(std::is_same_v<nd::PoolingOptions, ops::PoolingParam>);
static_assert(std::is_same_v<nd::UpSamplingOptions, ops::UpSamplingParam>);
static_assert(
    std::is_same_v<
        decltype(static_cast<NDArray (*)(const NDArray&, const NDArray&, const NDArray&,
                                         const ops::ConvolutionParam&)>(&nd::Convolution)),
        NDArray (*)(const NDArray&, const NDArray&, const NDArray&, const ops::ConvolutionParam&)>);

TEST(ConvApi, BiasOverloadsAndStructChecks) {
  NDArray x = RandomArray({1, 2, 5, 5}, -1, 1, 11, DType::kFloat32);
  NDArray w = RandomArray({3, 2, 3, 3}, -1, 1, 12, DType::kFloat32);
  NDArray b = RandomArray({3}, -1, 1, 13, DType::kFloat32);
  const AttrDict conv{{"kernel", "(3, 3)"}, {"num_filter", "3"}};
  auto by_name = [](const std::string& op, std::vector<NDArray> in, AttrDict a) {
    return Invoke(op, in, a)[0];
  };
  // Without a bias argument: MXNet's no_bias=True graph; with one: no_bias=False.
  AttrDict nb = conv;
  nb["no_bias"] = "True";
  EXPECT_TRUE(AllClose(nd::Convolution(x, w, {.kernel = {3, 3}, .num_filter = 3}),
                       by_name("Convolution", {x, w}, nb), 0, 0));
  EXPECT_TRUE(AllClose(
      nd::Convolution(x, w, NDArray(), {.kernel = {3, 3}, .num_filter = 3, .no_bias = true}),
      by_name("Convolution", {x, w}, nb), 0, 0));
  EXPECT_TRUE(AllClose(nd::Convolution(x, w, b, {.kernel = {3, 3}, .num_filter = 3}),
                       by_name("Convolution", {x, w, b}, conv), 0, 0));
  // Deconvolution: data (1, 3, 3, 3), weight (3, 2, 3, 3), bias (2,) with no_bias=False.
  NDArray y = RandomArray({1, 3, 3, 3}, -1, 1, 14, DType::kFloat32);
  NDArray db = RandomArray({2}, -1, 1, 15, DType::kFloat32);
  EXPECT_TRUE(
      AllClose(nd::Deconvolution(y, w, db, {.kernel = {3, 3}, .num_filter = 2, .no_bias = false}),
               by_name("Deconvolution", {y, w, db},
                       {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"no_bias", "False"}}),
               0, 0));
  EXPECT_TRUE(AllClose(
      nd::FullyConnected(x, RandomArray({4, 50}, -1, 1, 16, DType::kFloat32), {.num_hidden = 4}),
      by_name("FullyConnected", {x, RandomArray({4, 50}, -1, 1, 16, DType::kFloat32)},
              {{"num_hidden", "4"}, {"no_bias", "True"}}),
      0, 0));
  // A value outside a field's declared choices: the same message as the string form.
  std::string typed, parsed;
  try {
    nd::Convolution(x, w, {.kernel = {3, 3}, .num_filter = 3, .layout = "NCHWX"});
  } catch (const Error& e) {
    typed = e.what();
  }
  try {
    OpAttrs::Parse(OpRegistry::Get("Convolution"),
                   {{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"layout", "NCHWX"}});
  } catch (const Error& e) {
    parsed = e.what();
  }
  EXPECT_NE(typed.find("Convolution: attribute layout='NCHWX' is not one of {None, NCW"),
            std::string::npos)
      << typed;
  EXPECT_EQ(typed, parsed);
}

TEST(ConvApi, AttributesPrintLikeMxnet) {
  const Op& conv = OpRegistry::Get("Convolution");
  OpAttrs a = OpAttrs::Parse(conv, {{"kernel", "(3,3)"},
                                    {"num_filter", "16"},
                                    {"no_bias", "true"},
                                    {"stride", "[2, 2]"},
                                    {"layout", "NCHW"}});
  AttrDict expected{{"kernel", "(3, 3)"},
                    {"num_filter", "16"},
                    {"no_bias", "True"},
                    {"stride", "(2, 2)"},
                    {"layout", "NCHW"}};
  EXPECT_EQ(a.ToDict(), expected);
  // Gluon's GlobalAvgPool2D attributes parse; defaults (Deconvolution no_bias True) apply.
  const Op& pool = OpRegistry::Get("Pooling");
  OpAttrs p = OpAttrs::Parse(pool, {{"global_pool", "True"},
                                    {"kernel", "(1, 1)"},
                                    {"pad", "(0, 0)"},
                                    {"pool_type", "avg"},
                                    {"pooling_convention", "full"},
                                    {"stride", "(1, 1)"}});
  EXPECT_EQ(p.ToDict().at("pooling_convention"), "full");
  const Op& deconv = OpRegistry::Get("Deconvolution");
  EXPECT_EQ(deconv.NumInputs(OpAttrs::Parse(deconv, {{"kernel", "(2, 2)"}, {"num_filter", "3"}})),
            2);
  EXPECT_EQ(conv.InputNames(OpAttrs::Parse(conv, {{"kernel", "(2, 2)"}, {"num_filter", "3"}})),
            (std::vector<std::string>{"data", "weight", "bias"}));
  const Op& up = OpRegistry::Get("UpSampling");
  EXPECT_EQ(up.InputNames(OpAttrs::Parse(
                up, {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}})),
            (std::vector<std::string>{"arg0", "arg1"}));
}

// ---- oneDNN vs reference at realistic sizes (forward and every backward helper). ----

void ExpectBackendsAgree(std::string_view op_name, const AttrDict& attrs, std::vector<Shape> shapes,
                         double rtol = 1e-4, double atol = 1e-4) {
  SCOPED_TRACE(StrCat(op_name, " ", OpAttrs::Parse(OpRegistry::Get(op_name), attrs).Key()));
  OpTestCase c{.op = std::string(op_name), .attrs = attrs, .shapes = shapes};
  std::vector<NDArray> in = MakeInputs(c, DType::kFloat32, 11);
  const Op& op = OpRegistry::Get(op_name);
  const auto& opt = *std::find_if(op.kernels.begin(), op.kernels.end(),
                                  [](const Op::KernelEntry& e) { return e.key == kOpt; });
  ASSERT_TRUE(!opt.supports || opt.supports(OpAttrs::Parse(op, attrs), in));
  size_t before = OneDnnPrimitives();
  NDArray got = RunWithKernel(c, kOpt, in)[0];
  EXPECT_GT(OneDnnPrimitives(), before) << "the oneDNN primitive was not created";
  EXPECT_TRUE(AllClose(got, RunWithKernel(c, kRef, in)[0], rtol, atol));
}

TEST(ConvOneDnn, MatchesReferenceAtResNetSizes) {
  const AttrDict conv{
      {"kernel", "(3, 3)"}, {"num_filter", "32"}, {"pad", "(1, 1)"}, {"no_bias", "True"}};
  ExpectBackendsAgree("Convolution", conv, {{2, 16, 14, 14}, {32, 16, 3, 3}});
  ExpectBackendsAgree("_backward_Convolution_data", conv,
                      {{2, 32, 14, 14}, {32, 16, 3, 3}, {2, 16, 14, 14}});
  ExpectBackendsAgree("_backward_Convolution_weight", conv, {{2, 32, 14, 14}, {2, 16, 14, 14}});
  const AttrDict strided{{"kernel", "(3, 3)"}, {"num_filter", "16"}, {"pad", "(1, 1)"},
                         {"stride", "(2, 2)"}, {"num_group", "4"},   {"dilate", "(2, 2)"}};
  ExpectBackendsAgree("Convolution", strided, {{2, 16, 15, 15}, {16, 4, 3, 3}, {16}});
  const AttrDict nhwc{{"kernel", "(3, 3)"},
                      {"num_filter", "24"},
                      {"pad", "(1, 1)"},
                      {"stride", "(2, 2)"},
                      {"layout", "NHWC"}};
  ExpectBackendsAgree("Convolution", nhwc, {{2, 15, 15, 8}, {24, 3, 3, 8}, {24}});
  ExpectBackendsAgree("_backward_Convolution_weight", nhwc, {{2, 8, 8, 24}, {2, 15, 15, 8}});
  ExpectBackendsAgree("Deconvolution",
                      {{"kernel", "(4, 4)"},
                       {"num_filter", "8"},
                       {"stride", "(2, 2)"},
                       {"pad", "(1, 1)"},
                       {"no_bias", "False"}},
                      {{2, 16, 7, 7}, {16, 8, 4, 4}, {8}});
  ExpectBackendsAgree("Convolution",
                      {{"kernel", "(3, 3, 3)"}, {"num_filter", "8"}, {"pad", "(1, 1, 1)"}},
                      {{1, 4, 6, 6, 6}, {8, 4, 3, 3, 3}, {8}});
  const AttrDict fc{{"num_hidden", "100"}};
  ExpectBackendsAgree("FullyConnected", fc, {{8, 512}, {100, 512}, {100}});
  ExpectBackendsAgree("_backward_FullyConnected_data", fc, {{8, 100}, {100, 512}, {8, 512}});
  ExpectBackendsAgree("_backward_FullyConnected_weight", fc, {{8, 100}, {8, 512}});
  ExpectBackendsAgree("Pooling", {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
                      {{2, 16, 28, 28}});
  ExpectBackendsAgree("Pooling",
                      {{"kernel", "(3, 3)"},
                       {"stride", "(2, 2)"},
                       {"pool_type", "avg"},
                       {"pooling_convention", "full"},
                       {"layout", "NHWC"}},
                      {{2, 13, 13, 16}});
  ExpectBackendsAgree("Pooling", {{"global_pool", "True"}, {"pool_type", "sum"}}, {{2, 16, 7, 7}});
}

TEST(ConvOneDnn, DeclinesWhatItCannotComputeExactly) {
  const Op& pool = OpRegistry::Get("Pooling");
  const auto& opt = *std::find_if(pool.kernels.begin(), pool.kernels.end(),
                                  [](const Op::KernelEntry& e) { return e.key == kOpt; });
  NDArray x = Ones({1, 2, 6, 6});
  auto supports = [&](AttrDict a, const NDArray& in) {
    return opt.supports(OpAttrs::Parse(pool, a), std::vector<NDArray>{in});
  };
  // MXNet's avg with count_include_pad counts the symmetric pad but not full-convention overhang.
  EXPECT_FALSE(supports({{"kernel", "(3, 3)"},
                         {"stride", "(2, 2)"},
                         {"pad", "(1, 1)"},
                         {"pool_type", "avg"},
                         {"pooling_convention", "full"}},
                        x));
  EXPECT_TRUE(supports({{"kernel", "(3, 3)"},
                        {"stride", "(2, 2)"},
                        {"pad", "(1, 1)"},
                        {"pool_type", "avg"},
                        {"pooling_convention", "full"},
                        {"count_include_pad", "False"}},
                       x));
  EXPECT_FALSE(supports({{"kernel", "(2, 2)"}, {"pool_type", "lp"}, {"p_value", "2"}}, x));
  EXPECT_FALSE(supports({{"kernel", "(2, 2)"}}, x.astype(DType::kFloat64)));
  // Float64 and float16 run the reference kernels through the same entry point.
  for (DType dt : {DType::kFloat64, DType::kFloat16}) {
    NDArray y = nd::Convolution(Ones({1, 2, 4, 4}, dt), Ones({3, 2, 3, 3}, dt),
                                {.kernel = {3, 3}, .num_filter = 3});
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_EQ(y.ToVector<double>()[0], 18.0);
  }
  // Empty batches work (the reference kernel handles them).
  NDArray e =
      nd::Convolution(Ones({0, 2, 4, 4}), Ones({3, 2, 3, 3}), {.kernel = {3, 3}, .num_filter = 3});
  EXPECT_EQ(e.shape(), (Shape{0, 3, 2, 2}));
}

TEST(ConvOneDnn, MaxPoolGradientRoutesTiesToTheFirstPosition) {
  // MXNet routes each window's gradient to the first position (in scan order) holding the max.
  // Overlapping 2x2 windows, stride 1, on a constant plane: window (i, j) routes to (i, j).
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = Ones({1, 1, 3, 3}, dt);
    NDArray og = NDArray::FromVector(std::vector<double>{1, 2, 3, 4}, Shape{1, 1, 2, 2}, cpu(), dt);
    NDArray y = nd::Pooling(x, {.kernel = {2, 2}});
    NDArray dx =
        Invoke("_backward_Pooling", std::vector<NDArray>{og, x, y}, {{"kernel", "(2, 2)"}})[0];
    EXPECT_EQ(dx.ToVector<double>(), (std::vector<double>{1, 2, 0, 3, 4, 0, 0, 0, 0}))
        << DTypeName(dt);
  }
}

TEST(ConvOneDnn, PrimitiveCacheIsThreadSafe) {
  // Several threads run convolutions of a few shapes at once (first use and cached use).
  std::vector<NDArray> xs, ws, expected;
  for (int i = 0; i < 4; ++i) {
    xs.push_back(RandomArray({1 + i % 2, 8, 9 + i, 9 + i}, -1, 1, 20 + i, DType::kFloat32));
    ws.push_back(RandomArray({8, 8, 3, 3}, -1, 1, 30 + i, DType::kFloat32));
    OpTestCase c{
        .op = "Convolution",
        .attrs = {
            {"kernel", "(3, 3)"}, {"num_filter", "8"}, {"no_bias", "True"}, {"pad", "(1, 1)"}}};
    expected.push_back(RunWithKernel(c, kRef, std::vector<NDArray>{xs[i], ws[i]})[0]);
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        int i = (t + rep) % 4;
        NDArray y =
            nd::Convolution(xs[i], ws[i], {.kernel = {3, 3}, .num_filter = 8, .pad = {1, 1}});
        if (!AllClose(y, expected[i], 1e-4, 1e-4)) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// backends::ReleaseCaches() drops the oneDNN backend's primitives, constant operands and scratch
// buffers; the kernels then recreate them and give bit-identical results.
TEST(ConvOneDnn, ReleaseCachesFreesAndKernelsRecreate) {
  const AttrDict conv{{"kernel", "(3, 3)"}, {"num_filter", "16"}, {"pad", "(1, 1)"}};
  const AttrDict pool{{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}};
  AttrDict fused = conv;
  fused.insert({{"const_weight", "True"}, {"act_type", "relu"}, {"with_sum", "True"}});
  NDArray x = RandomArray({2, 16, 8, 8}, -1, 1, 40, DType::kFloat32);
  std::vector<std::pair<OpTestCase, std::vector<NDArray>>> cases;
  auto add = [&](std::string op, AttrDict attrs, std::vector<NDArray> in) {
    cases.push_back({OpTestCase{.op = std::move(op), .attrs = std::move(attrs)}, std::move(in)});
  };
  NDArray w = RandomArray({16, 16, 3, 3}, -1, 1, 41, DType::kFloat32);
  NDArray b = RandomArray({16}, -1, 1, 42, DType::kFloat32);
  add("Convolution", conv, {x, w, b});
  add("_backward_Convolution_weight", conv,
      {RandomArray({2, 16, 8, 8}, -1, 1, 43, DType::kFloat32), x});
  add("FullyConnected", {{"num_hidden", "10"}},
      {x, RandomArray({10, 1024}, -1, 1, 44, DType::kFloat32),
       RandomArray({10}, -1, 1, 45, DType::kFloat32)});
  NDArray y = nd::Pooling(x, {.kernel = {2, 2}, .stride = {2, 2}});
  add("_backward_Pooling", pool, {RandomArray({2, 16, 4, 4}, -1, 1, 46, DType::kFloat32), x, y});
  const AttrDict avg{
      {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}};
  add("_backward_Pooling", avg,
      {RandomArray({2, 16, 4, 4}, -1, 1, 48, DType::kFloat32), x,
       nd::Pooling(x, {.kernel = {3, 3}, .pool_type = "avg", .stride = {2, 2}, .pad = {1, 1}})});
  add("_sg_onednn_conv", fused, {x, w, b, RandomArray({2, 16, 8, 8}, -1, 1, 47, DType::kFloat32)});
  auto run_all = [&] {
    std::vector<std::vector<float>> outs;
    for (auto& [c, in] : cases) outs.push_back(RunWithKernel(c, kOpt, in)[0].ToVector<float>());
    return outs;
  };
  const std::vector<std::vector<float>> first = run_all();
  const backends::BackendTable* onednn = backends::FindBackend("onednn");
  ASSERT_NE(onednn, nullptr);
  backends::BackendStats s = onednn->stats();
  // At least conv, its weight gradient, FC, avg-pool backward and the fused conv (this max-pool
  // backward runs its own loop).
  EXPECT_GE(s.primitives.entries, 5u);
  EXPECT_GT(s.constants, 0u) << "the fused conv's constant weight was not kept reordered";
  EXPECT_GT(s.scratch_bytes, 0u);

  backends::ReleaseCaches();
  s = onednn->stats();
  EXPECT_EQ(s.primitives.entries, 0u);
  EXPECT_EQ(s.constants, 0u);
  EXPECT_EQ(s.scratch_bytes, 0u);
  EXPECT_EQ(s.scratch_buffers, 0u);

  EXPECT_EQ(run_all(), first);  // the same primitives, recreated
  for (auto& [c, in] : cases) {
    if (c.op == "_sg_onednn_conv") continue;  // its reference needs //ndarray/ops/nn (all_ops_test)
    SCOPED_TRACE(c.op);
    EXPECT_TRUE(AllClose(RunWithKernel(c, kOpt, in)[0], RunWithKernel(c, kRef, in)[0], 1e-4, 1e-4));
  }
  EXPECT_GE(onednn->stats().primitives.entries, 5u);
}

// ---- Gradients compose: second order through the helper ops. ----

TEST(ConvGrad, SecondOrderMatchesFiniteDifferences) {
  // First-order gradients are registered ops whose own gradients compose from the registry
  // (all_ops_test checks every helper); spot-check a strided one and FullyConnected's here.
  OpTestCase c{
      .op = "_backward_Convolution_data",
      .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
      .shapes = {{1, 4, 3, 3}, {4, 2, 3, 3}, {1, 2, 6, 6}}};
  EXPECT_TRUE(CheckGradient(c));
  OpTestCase fc{.op = "_backward_FullyConnected_weight",
                .attrs = {{"num_hidden", "3"}},
                .shapes = {{2, 3}, {2, 5}}};
  EXPECT_TRUE(CheckGradient(fc));
}

}  // namespace
}  // namespace mxnet::testing
