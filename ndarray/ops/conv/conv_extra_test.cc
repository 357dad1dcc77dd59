// Tests of the conv family's legacy, deformable and position-sensitive ops: conformance with real
// MXNet 1.9.1 (testdata/conv/extra.json from tools/conformance/gen_conv_refs.py via
// refs_conv_extra.py: forward and, where MXNet has them on CPU, gradients of every input),
// hand-computed values, shape inference and error messages.
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/conv/conv_extra_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType dt = DType::kFloat64) {
  return NDArray::FromVector(v, s, cpu(), dt);
}

NDArrayVec RunOp(const std::string& name, const AttrDict& attrs, std::vector<NDArray> in) {
  const Op& op = OpRegistry::Get(name);
  return Invoke(op, OpAttrs::Parse(op, attrs), in);
}

std::vector<NDArray> Grads(const std::string& name, const AttrDict& attrs, std::vector<NDArray> in,
                           const NDArray& ograd) {
  const Op& op = OpRegistry::Get(name);
  const OpAttrs a = OpAttrs::Parse(op, attrs);
  NDArrayVec out = Invoke(op, a, in);
  return EagerGradBuilder::Run(op, a, in, std::vector<NDArray>(out.begin(), out.end()),
                               std::vector<NDArray>{ograd});
}

// Shape inference of `name` on `in` (unknown entries allowed); returns (inputs, outputs).
std::pair<ShapeVec, ShapeVec> Infer(const std::string& name, const AttrDict& attrs, ShapeVec in) {
  const Op& op = OpRegistry::Get(name);
  const OpAttrs a = OpAttrs::Parse(op, attrs);
  ShapeVec out(op.NumOutputs(a), Shape::Unknown());
  op.infer_shape(a, &in, &out);
  return {in, out};
}

template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ---- MXNet conformance. ----

TEST(ConvExtraMxnet, ForwardAndGradientsMatch) {
  const json doc = LoadRefJson("ndarray/ops/testdata/conv/extra.json");
  ASSERT_GE(doc["cases"].size(), 13u);
  std::set<std::string> ops;
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    ops.insert(op.name);
    const OpAttrs a = OpAttrs::Parse(op, RefAttrs(c));
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      SCOPED_TRACE(DTypeName(dt));
      std::vector<NDArray> in;
      for (const json& t : c["inputs"]) in.push_back(RefArray(t, dt));
      NDArrayVec out = Invoke(op, a, in);
      EXPECT_TRUE(AllClose(out[0].astype(DType::kFloat64), RefArray(c["output"], DType::kFloat64),
                           1e-4, 1e-5))
          << "output";
      if (!c.contains("grads")) continue;  // MXNet has no (CPU) gradient
      std::vector<NDArray> outs(out.begin(), out.end());
      std::vector<NDArray> grads =
          EagerGradBuilder::Run(op, a, in, outs, std::vector<NDArray>{RefArray(c["ograd"], dt)});
      ASSERT_EQ(grads.size(), c["grads"].size());
      for (size_t i = 0; i < grads.size(); ++i) {
        ASSERT_FALSE(grads[i].is_none()) << "no gradient for input " << i;
        EXPECT_TRUE(AllClose(grads[i].astype(DType::kFloat64),
                             RefArray(c["grads"][i], DType::kFloat64), 1e-4, 1e-5))
            << "gradient of input " << i;
      }
    }
  }
  EXPECT_EQ(ops.size(), 7u);  // every op of conv_extra*.cc with an MXNet counterpart
}

// Names, input names and attribute names/defaults/choices agree with MXNet's registry
// (testdata/conv/extra_registry.json).
TEST(ConvExtraMxnet, RegistryNamesAttributesAndDefaults) {
  json doc = LoadRefJson("ndarray/ops/testdata/conv/extra_registry.json");
  const std::map<std::string, AttrDict> required = {
      {"Convolution_v1", {{"kernel", "(3, 3)"}, {"num_filter", "2"}}},
      {"Pooling_v1", {}},
      {"_contrib_DeformableConvolution", {{"kernel", "(3, 3)"}, {"num_filter", "2"}}},
      {"_contrib_ModulatedDeformableConvolution", {{"kernel", "(3, 3)"}, {"num_filter", "2"}}},
      {"_contrib_PSROIPooling",
       {{"spatial_scale", "0.5"}, {"output_dim", "2"}, {"pooled_size", "2"}}},
      {"_contrib_DeformablePSROIPooling",
       {{"spatial_scale", "0.5"}, {"output_dim", "2"}, {"group_size", "2"}, {"pooled_size", "2"}}},
      {"_contrib_RROIAlign", {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}}}};
  ASSERT_EQ(doc["ops"].size(), required.size());
  for (auto& [name, info] : doc["ops"].items()) CheckRegistryEntry(name, info, required.at(name));
}

// ---- Convolution_v1 / Pooling_v1. ----

TEST(ConvExtraValues, ConvolutionV1IsConvolution) {
  NDArray x = RandomArray({2, 4, 6, 5}, -1, 1, 1), w = RandomArray({6, 2, 3, 3}, -1, 1, 2),
          b = RandomArray({6}, -1, 1, 3);
  const AttrDict attrs = {{"kernel", "(3, 3)"},
                          {"num_filter", "6"},
                          {"num_group", "2"},
                          {"stride", "(2, 1)"},
                          {"pad", "(1, 0)"}};
  EXPECT_TRUE(AllClose(RunOp("Convolution_v1", attrs, {x, w, b})[0],
                       RunOp("Convolution", attrs, {x, w, b})[0], 1e-12, 1e-12));
  NDArray og = RandomArray({2, 6, 3, 3}, -1, 1, 4);
  std::vector<NDArray> g1 = Grads("Convolution_v1", attrs, {x, w, b}, og);
  std::vector<NDArray> g2 = Grads("Convolution", attrs, {x, w, b}, og);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(AllClose(g1[i], g2[i], 1e-12, 1e-12)) << i;
}

TEST(ConvExtraValues, PoolingV1PadsWithZerosAndDividesByTheKernel) {
  // All negative: max windows touching the padding give 0 (MXNet's v1), the inner one -5.
  std::vector<double> v(9);
  for (int i = 0; i < 9; ++i) v[i] = -(i + 1);
  NDArray x = Arr(v, {1, 1, 3, 3});
  NDArray m =
      RunOp("Pooling_v1", {{"kernel", "(2, 2)"}, {"pad", "(1, 1)"}, {"stride", "(2, 2)"}}, {x})[0];
  EXPECT_EQ(m.ToVector<double>(), (std::vector<double>{0, 0, 0, -5}));
  // 'full' avg divides by 4 even where the window hangs over: [[-1,-2],[-4,-5]] -> -3,
  // [-3, -6] / 4, [-7, -8] / 4, -9 / 4.
  NDArray a = RunOp("Pooling_v1",
                    {{"kernel", "(2, 2)"},
                     {"stride", "(2, 2)"},
                     {"pool_type", "avg"},
                     {"pooling_convention", "full"}},
                    {x})[0];
  EXPECT_EQ(a.ToVector<double>(), (std::vector<double>{-3, -2.25, -3.75, -2.25}));
  // Its gradient: 1/4 per covered position.
  std::vector<NDArray> g = Grads("Pooling_v1",
                                 {{"kernel", "(2, 2)"},
                                  {"stride", "(2, 2)"},
                                  {"pool_type", "avg"},
                                  {"pooling_convention", "full"}},
                                 {x}, NDArray::Full({1, 1, 2, 2}, 1.0, cpu(), DType::kFloat64));
  EXPECT_EQ(g[0].ToVector<double>(), std::vector<double>(9, 0.25));
  // 3-D runs (MXNet 1.9.1's CPU refuses it).
  NDArray y3 = RunOp("Pooling_v1", {{"kernel", "(2, 2, 2)"}, {"pool_type", "sum"}},
                     {NDArray::Full({1, 1, 2, 2, 2}, 1.0, cpu(), DType::kFloat64)})[0];
  EXPECT_EQ(y3.ToVector<double>(), (std::vector<double>{8}));
}

TEST(ConvExtraErrors, LegacyOps) {
  const Op& conv = OpRegistry::Get("Convolution_v1");
  EXPECT_NE(ErrorOf([&] {
              OpAttrs::Parse(conv, {{"kernel", "(3,)"}, {"num_filter", "2"}});
            }).find("1-D convolution is not supported"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              OpAttrs::Parse(conv, {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"layout", "NHWC"}});
            }).find("layout=NHWC is not supported"),
            std::string::npos);
  const std::string e = ErrorOf([] {
    Infer("Convolution_v1", {{"kernel", "(3, 3)"}, {"num_filter", "2"}},
          {{1, 3, 5, 5}, {2, 2, 3, 3}, {2}});
  });
  EXPECT_TRUE(StartsWith(e, "Convolution_v1: weight has shape")) << e;
  const Op& pool = OpRegistry::Get("Pooling_v1");
  EXPECT_NE(ErrorOf([&] {
              OpAttrs::Parse(pool, {{"pool_type", "lp"}, {"kernel", "(2, 2)"}});
            }).find("pool_type"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              OpAttrs::Parse(pool, {{"kernel", "(2, 2)"}, {"pooling_convention", "same"}});
            }).find("pooling_convention"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("Pooling_v1", {{"kernel", "(2, 2)"}}, {{1, 2, 5}});
            }).find("Pooling_v1: data must be 4-D"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("Pooling_v1", {}, {{1, 2, 3, 3}});
            }).find("Pooling_v1: attribute kernel is required unless global_pool=True"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("Pooling_v1", {{"kernel", "(4, 4)"}}, {{1, 2, 3, 3}});
            }).find("Pooling_v1: kernel=(4, 4)"),
            std::string::npos);
}

// ---- Deformable convolutions. ----

const AttrDict kDcn = {{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"pad", "(1, 1)"}};

TEST(ConvExtraValues, DeformableWithZeroOffsetsIsConvolution) {
  NDArray x = RandomArray({2, 2, 5, 4}, -1, 1, 1), w = RandomArray({3, 2, 3, 3}, -1, 1, 2),
          b = RandomArray({3}, -1, 1, 3);
  NDArray off = NDArray::Full({2, 18, 5, 4}, 0.0, cpu(), DType::kFloat64);
  NDArray ref = RunOp("Convolution", kDcn, {x, w, b})[0];
  EXPECT_TRUE(AllClose(RunOp("_contrib_DeformableConvolution", kDcn, {x, off, w, b})[0], ref, 1e-12,
                       1e-12));
  NDArray ones = NDArray::Full({2, 9, 5, 4}, 1.0, cpu(), DType::kFloat64);
  EXPECT_TRUE(
      AllClose(RunOp("_contrib_ModulatedDeformableConvolution", kDcn, {x, off, ones, w, b})[0], ref,
               1e-12, 1e-12));
  // Data, weight and bias gradients are Convolution's.
  NDArray og = RandomArray({2, 3, 5, 4}, -1, 1, 4);
  std::vector<NDArray> gd = Grads("_contrib_DeformableConvolution", kDcn, {x, off, w, b}, og);
  std::vector<NDArray> gc = Grads("Convolution", kDcn, {x, w, b}, og);
  EXPECT_TRUE(AllClose(gd[0], gc[0], 1e-12, 1e-12));
  EXPECT_TRUE(AllClose(gd[2], gc[1], 1e-12, 1e-12));
  EXPECT_TRUE(AllClose(gd[3], gc[2], 1e-12, 1e-12));
  // A mask of 0.5 halves the output without bias.
  NDArray half = NDArray::Full({2, 9, 5, 4}, 0.5, cpu(), DType::kFloat64);
  const AttrDict nb = {
      {"kernel", "(3, 3)"}, {"num_filter", "3"}, {"pad", "(1, 1)"}, {"no_bias", "True"}};
  std::vector<double> h =
      RunOp("_contrib_ModulatedDeformableConvolution", nb, {x, off, half, w})[0].ToVector<double>();
  std::vector<double> f =
      RunOp("_contrib_DeformableConvolution", nb, {x, off, w})[0].ToVector<double>();
  ASSERT_EQ(h.size(), f.size());
  for (size_t i = 0; i < h.size(); ++i) EXPECT_NEAR(h[i], 0.5 * f[i], 1e-12);
}

TEST(ConvExtraValues, DeformableSamplesBilinearly) {
  // 1x1 kernel, one channel: out = w * data sampled at (h + dy, w + dx).
  NDArray x = Arr({0, 1, 2, 3, 4, 5}, {1, 1, 2, 3});
  NDArray w = Arr({2}, {1, 1, 1, 1});
  // Offsets: (0.5, 0.25) at (0, 0) -> 0.5*(0.75*0 + 0.25*1) + 0.5*(0.75*3 + 0.25*4) = 1.75;
  // (0, 0.5) at (0, 2) -> w = 2.5: v1 clamps to column 2 (2), v2 reads 0 past it (1);
  // (-0.5, 0) at (1, 0) -> v1 (h = 0.5) 1.5; (-1.5, 0) at (1, 1): h = -0.5, v1 0, v2 0.5 * 1.
  std::vector<double> dy = {0.5, 0, 0, -0.5, -1.5, 0}, dx = {0.25, 0, 0.5, 0, 0, 0};
  std::vector<double> off(dy);
  off.insert(off.end(), dx.begin(), dx.end());
  NDArray o = Arr(off, {1, 2, 2, 3});
  const AttrDict a = {{"kernel", "(1, 1)"}, {"num_filter", "1"}, {"no_bias", "True"}};
  std::vector<double> v1 =
      RunOp("_contrib_DeformableConvolution", a, {x, o, w})[0].ToVector<double>();
  EXPECT_DOUBLE_EQ(v1[0], 2 * 1.75);
  EXPECT_DOUBLE_EQ(v1[1], 2 * 1);
  EXPECT_DOUBLE_EQ(v1[2], 2 * 2);  // clamped (v1)
  EXPECT_DOUBLE_EQ(v1[3], 2 * 1.5);
  EXPECT_DOUBLE_EQ(v1[4], 0);  // h in (-1, 0): 0 (v1)
  NDArray m = NDArray::Full({1, 1, 2, 3}, 1.0, cpu(), DType::kFloat64);
  std::vector<double> v2 =
      RunOp("_contrib_ModulatedDeformableConvolution", a, {x, o, m, w})[0].ToVector<double>();
  EXPECT_DOUBLE_EQ(v2[0], 2 * 1.75);
  EXPECT_DOUBLE_EQ(v2[2], 2 * 1);    // zero-padded: half of column 2, column 3 reads 0
  EXPECT_DOUBLE_EQ(v2[4], 2 * 0.5);  // half of row 0's value 1
}

TEST(ConvExtraShapes, DeformableInference) {
  auto [in, out] =
      Infer("_contrib_ModulatedDeformableConvolution",
            {{"kernel", "(3, 3)"},
             {"num_filter", "4"},
             {"stride", "(2, 2)"},
             {"num_deformable_group", "2"}},
            {{2, 6, 9, 7}, Shape::Unknown(), Shape::Unknown(), Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(in[1], (Shape{2, 36, 4, 3}));
  EXPECT_EQ(in[2], (Shape{2, 18, 4, 3}));
  EXPECT_EQ(in[3], (Shape{4, 6, 3, 3}));
  EXPECT_EQ(in[4], (Shape{4}));
  EXPECT_EQ(out[0], (Shape{2, 4, 4, 3}));
  // Channels from the weight, batch from the offset.
  auto [in2, out2] = Infer("_contrib_DeformableConvolution",
                           {{"kernel", "(1, 1)"}, {"num_filter", "2"}, {"no_bias", "True"}},
                           {Shape{-1, -1, 3, 3}, Shape{5, 2, 3, 3}, Shape{2, 3, 1, 1}});
  EXPECT_EQ(in2[0], (Shape{5, 3, 3, 3}));
  EXPECT_EQ(out2[0], (Shape{5, 2, 3, 3}));
}

TEST(ConvExtraErrors, Deformable) {
  const std::string op = "_contrib_DeformableConvolution";
  EXPECT_NE(ErrorOf([&] {
              Infer(op, kDcn, {{1, 2, 4, 4}, {1, 9, 4, 4}, {3, 2, 3, 3}, {3}});
            })
                .find("_contrib_DeformableConvolution: offset has shape (1, 9, 4, 4), expected "
                      "(1, 18, 4, 4)"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              Infer(op, kDcn, {{1, 2, 4}, {}, {}, {}});
            }).find("data must be 4-D"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              Infer(op, {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"num_deformable_group", "2"}},
                    {{1, 3, 4, 4}, Shape::Unknown(), Shape::Unknown(), Shape::Unknown()});
            }).find("must be divisible by num_deformable_group=2"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              Infer(op, {{"kernel", "(5, 5)"}, {"num_filter", "2"}},
                    {{1, 3, 4, 4}, Shape::Unknown(), Shape::Unknown(), Shape::Unknown()});
            }).find("exceeds the padded input size 4"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              Infer(
                  "_contrib_ModulatedDeformableConvolution", kDcn,
                  {{1, 2, 4, 4}, {1, 18, 4, 4}, {1, 18, 4, 4}, Shape::Unknown(), Shape::Unknown()});
            }).find("mask has shape (1, 18, 4, 4), expected (1, 9, 4, 4)"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              OpAttrs::Parse(OpRegistry::Get(op), {{"kernel", "(3, 3, 3)"}, {"num_filter", "2"}});
            }).find("only 2-D deformable convolution"),
            std::string::npos);
}

// ---- Position-sensitive / rotated region pooling. ----

TEST(ConvExtraValues, PsroiPooling) {
  // 8 channels = output_dim 2 * group 2^2, each plane constant (its channel index); 4x4 image.
  std::vector<double> v(8 * 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i / 16);
  NDArray x = Arr(v, {1, 8, 4, 4});
  // The whole image [0, 0, 3, 3] in 2x2 bins: bin (ph, pw) of class c reads channel
  // (c*2 + ph)*2 + pw; a batch index outside [0, N) gives zeros.
  NDArray rois = Arr({0, 0, 0, 3, 3, 5, 0, 0, 3, 3}, {2, 5});
  NDArray y = nd::contrib::PSROIPooling(x, rois,
                                        {.spatial_scale = 1.0f, .output_dim = 2, .pooled_size = 2});
  std::vector<double> want = {0, 1, 2, 3, 4, 5, 6, 7};
  want.resize(16, 0.0);
  EXPECT_EQ(y.ToVector<double>(), want);
  // Its gradient spreads each ograd over its 2x2 bin (1/4 each); rois get zeros.
  std::vector<NDArray> g =
      Grads("_contrib_PSROIPooling",
            {{"spatial_scale", "1.0"}, {"output_dim", "2"}, {"pooled_size", "2"}}, {x, rois},
            NDArray::Full({2, 2, 2, 2}, 1.0, cpu(), DType::kFloat64));
  std::vector<double> gx = g[0].ToVector<double>();
  EXPECT_DOUBLE_EQ(gx[0], 0.25);       // channel 0, top-left bin
  EXPECT_DOUBLE_EQ(gx[2], 0);          // channel 0 outside its bin
  EXPECT_DOUBLE_EQ(gx[16 + 2], 0.25);  // channel 1, top-right bin
  EXPECT_EQ(g[1].ToVector<double>(), std::vector<double>(10, 0.0));
}

TEST(ConvExtraValues, DeformablePsroiPooling) {
  // One sample per bin at the bin's top-left corner (roi start - 0.5 + bin offset), with
  // no_trans equal to a plain read of the bilinear image.
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;
  NDArray x = Arr(v, {1, 1, 4, 4});
  NDArray rois = Arr({0, 1, 1, 2, 2}, {1, 5});
  const nd::DeformablePSROIPoolingOptions o = {
      .spatial_scale = 1.0f, .output_dim = 1, .group_size = 1, .pooled_size = 2, .no_trans = true};
  // roi [0.5, 2.5) in x and y, bins of 1: samples at (0.5, 0.5), (1.5, 0.5), (0.5, 1.5), ...
  // value(x, y) = 4y + x.
  NDArray y = nd::contrib::DeformablePSROIPooling(x, rois, NDArray(), o);
  EXPECT_EQ(y.ToVector<double>(), (std::vector<double>{2.5, 3.5, 6.5, 7.5}));
  // trans shifts by trans * trans_std * roi size (2): +0.25 * 2 = 0.5 in x -> +0.5.
  nd::DeformablePSROIPoolingOptions t = o;
  t.no_trans = false;
  t.trans_std = 0.5f;
  t.part_size = 1;
  NDArray trans = Arr({0.5, 0}, {1, 2, 1, 1});
  NDArray yt = nd::contrib::DeformablePSROIPooling(x, rois, trans, t);
  EXPECT_EQ(yt.ToVector<double>(), (std::vector<double>{3, 4, 7, 8}));
  // d out / d trans_x = 1 (slope in x) * trans_std * roi width = 1 per bin.
  std::vector<NDArray> g = Grads("_contrib_DeformablePSROIPooling",
                                 {{"spatial_scale", "1.0"},
                                  {"output_dim", "1"},
                                  {"group_size", "1"},
                                  {"pooled_size", "2"},
                                  {"part_size", "1"},
                                  {"trans_std", "0.5"}},
                                 {x, rois, Arr({0.3, 0.1}, {1, 2, 1, 1})},
                                 NDArray::Full({1, 1, 2, 2}, 1.0, cpu(), DType::kFloat64));
  std::vector<double> dt = g[2].ToVector<double>();
  EXPECT_NEAR(dt[0], 4 * 1.0, 1e-12);  // 4 bins, slope 1 in x
  EXPECT_NEAR(dt[1], 4 * 4.0, 1e-12);  // slope 4 in y
}

TEST(ConvExtraValues, RroiAlign) {
  std::vector<double> v(36);
  for (int i = 0; i < 36; ++i) v[i] = i % 6;  // value = x
  NDArray x = Arr(v, {1, 1, 6, 6});
  // Unrotated 2x2 roi centred at (2.5, 2.5), one sample per bin at the bin centres
  // x = 2, 3 (the roi spans x in [1.5, 3.5]): values 2, 3.
  NDArray a =
      nd::contrib::RROIAlign(x, Arr({0, 2.5, 2.5, 2, 2, 0}, {1, 6}),
                             {.pooled_size = {1, 2}, .spatial_scale = 1.0f, .sampling_ratio = 1});
  EXPECT_EQ(a.ToVector<double>(), (std::vector<double>{2, 3}));
  // Rotated by 90 degrees, the roi's x axis runs along the image's y: constant x = 2.5.
  NDArray r =
      nd::contrib::RROIAlign(x, Arr({0, 2.5, 2.5, 2, 2, 90}, {1, 6}),
                             {.pooled_size = {1, 2}, .spatial_scale = 1.0f, .sampling_ratio = 1});
  std::vector<double> rv = r.ToVector<double>();
  EXPECT_NEAR(rv[0], 2.5, 1e-12);
  EXPECT_NEAR(rv[1], 2.5, 1e-12);
  EXPECT_FALSE(OpRegistry::Get("_contrib_RROIAlign").differentiable());
}

TEST(ConvExtraErrors, RegionOps) {
  EXPECT_NE(ErrorOf([] {
              Infer("_contrib_PSROIPooling",
                    {{"spatial_scale", "1.0"}, {"output_dim", "2"}, {"pooled_size", "3"}},
                    {{1, 8, 6, 6}, {2, 5}});
            })
                .find("_contrib_PSROIPooling: data has 8 channels (shape (1, 8, 6, 6)), needs at "
                      "least 18"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("_contrib_PSROIPooling",
                    {{"spatial_scale", "1.0"}, {"output_dim", "2"}, {"pooled_size", "2"}},
                    {{1, 8, 6, 6}, {2, 4}});
            }).find("rois has shape (2, 4), expected (-1, 5)"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("_contrib_DeformablePSROIPooling",
                    {{"spatial_scale", "1.0"},
                     {"output_dim", "2"},
                     {"group_size", "2"},
                     {"pooled_size", "2"}},
                    {{1, 8, 6, 6}, {2, 5}, {2, 3, 2, 2}});
            }).find("dim 1 must be 2*num_classes"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("_contrib_DeformablePSROIPooling",
                    {{"spatial_scale", "1.0"},
                     {"output_dim", "2"},
                     {"group_size", "2"},
                     {"pooled_size", "2"}},
                    {{1, 8, 6, 6}, {2, 5}, {3, 2, 2, 2}});
            }).find("trans has shape (3, 2, 2, 2), expected (2, -1, 2, 2)"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              Infer("_contrib_RROIAlign", {{"pooled_size", "(2, 2)"}, {"spatial_scale", "1.0"}},
                    {{1, 8, 6, 6}, {2, 5}});
            }).find("_contrib_RROIAlign: rois has shape (2, 5), expected (-1, 6)"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              OpAttrs::Parse(OpRegistry::Get("_contrib_RROIAlign"),
                             {{"pooled_size", "(2, 0)"}, {"spatial_scale", "1.0"}});
            }).find("pooled_size=(2, 0)"),
            std::string::npos);
  // Shapes: (R, output_dim, P, P); trans fills R.
  auto [in, out] = Infer("_contrib_DeformablePSROIPooling",
                         {{"spatial_scale", "1.0"},
                          {"output_dim", "2"},
                          {"group_size", "2"},
                          {"pooled_size", "3"},
                          {"part_size", "2"}},
                         {{1, 8, 6, 6}, Shape::Unknown(), {4, 2, 2, 2}});
  EXPECT_EQ(in[1], (Shape{4, 5}));
  EXPECT_EQ(out[0], (Shape{4, 2, 3, 3}));
}

}  // namespace
}  // namespace mxnet::testing
