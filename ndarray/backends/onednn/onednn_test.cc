// Tests of the oneDNN backend on real primitives: layouts against oneDNN's named formats and
// hand-written strides, the primitive cache's hits and misses, a convolution run through Exec
// against a direct loop (plain and channels-last, several threads on one cached primitive),
// constant operands, and Release() freeing everything with kernels working afterwards.
// (Run under --config=tsan too.)
#include "ndarray/backends/onednn/onednn.h"

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ndarray/backends/backend.h"

namespace mxnet::backends::onednn {
namespace {

std::vector<int64_t> Strides(const memory::desc& md) {
  const auto& b = md.data.format_desc.blocking;
  return std::vector<int64_t>(b.strides, b.strides + md.data.ndims);
}

TEST(OneDnnLayout, ActivationsAndWeights) {
  const std::vector<int64_t> hw{4, 5};
  const memory::desc nchw = ActDesc(2, 3, hw, false), nhwc = ActDesc(2, 3, hw, true);
  EXPECT_EQ(nchw, memory::desc({2, 3, 4, 5}, dt::f32, tag::nchw));
  EXPECT_EQ(nhwc, memory::desc({2, 3, 4, 5}, dt::f32, tag::nhwc));
  EXPECT_EQ(Strides(nchw), (std::vector<int64_t>{60, 20, 5, 1}));
  EXPECT_EQ(Strides(nhwc), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(AnyDesc(2, 3, hw).dims(), (dims{2, 3, 4, 5}));
  const std::vector<int64_t> d{2, 4, 5};
  EXPECT_EQ(ActDesc(1, 3, d, true, dt::u8), memory::desc({1, 3, 2, 4, 5}, dt::u8, tag::ndhwc));

  // Weights: 4 output, 6 input channels, 3x3 kernel, in 1 and 2 groups.
  const std::vector<int64_t> k{3, 3};
  EXPECT_EQ(WeightDims(1, 4, 6, k), (dims{4, 6, 3, 3}));
  EXPECT_EQ(WeightDims(2, 4, 6, k), (dims{2, 2, 3, 3, 3}));
  EXPECT_EQ(WeightDesc(1, 4, 6, k, false), memory::desc({4, 6, 3, 3}, dt::f32, tag::oihw));
  EXPECT_EQ(WeightDesc(1, 4, 6, k, true), memory::desc({4, 6, 3, 3}, dt::f32, tag::ohwi));
  EXPECT_EQ(WeightDesc(2, 4, 6, k, false), memory::desc({2, 2, 3, 3, 3}, dt::f32, tag::goihw));
  EXPECT_EQ(Strides(WeightDesc(2, 4, 6, k, false)), (std::vector<int64_t>{54, 27, 9, 3, 1}));
  EXPECT_EQ(Strides(WeightDesc(2, 4, 6, k, true)), (std::vector<int64_t>{54, 27, 1, 9, 3}));

  const std::vector<int64_t> s{2, 1}, dil{1, 3}, p{0, 2};
  ConvDims cd(s, dil, p);
  EXPECT_EQ(cd.strides, (dims{2, 1}));
  EXPECT_EQ(cd.dilates, (dims{0, 2}));  // gaps
  EXPECT_EQ(cd.pad_l, (dims{0, 2}));
  EXPECT_EQ(cd.pad_r, (dims{0, 2}));
}

TEST(OneDnnLayout, ReorderedMatchesTheSourceElementwise) {
  const std::vector<int64_t> hw{2, 3};
  std::vector<float> x(2 * 3 * 2 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const memory::desc cf = ActDesc(2, 3, hw, false);
  memory same = Reordered(Stream(), cf, x.data(), cf);
  EXPECT_EQ(same.get_data_handle(), x.data());  // no copy when the layouts match
  memory cl = Reordered(Stream(), cf, x.data(), ActDesc(2, 3, hw, true));
  Stream().wait();
  const float* y = static_cast<const float*>(cl.get_data_handle());
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int s = 0; s < 6; ++s) EXPECT_EQ(y[(n * 6 + s) * 3 + c], x[(n * 3 + c) * 6 + s]);
}

// ---- A convolution through Exec. ----

struct Conv {
  int64_t N = 2, C = 5, O = 7, H = 6, W = 5, K = 3, P = 1;
  bool cl = false;
  std::vector<int64_t> In() const { return {H, W}; }
  std::vector<int64_t> Kernel() const { return {K, K}; }
  int64_t OH() const { return H + 2 * P - K + 1; }
  int64_t OW() const { return W + 2 * P - K + 1; }
  CacheKey Key() const { return CacheKey("test_conv")(N, C, O, H, W, K, P, cl); }
};

std::shared_ptr<Exec> MakeConv(const Conv& c) {
  const std::vector<int64_t> one{1, 1}, pad{c.P, c.P}, out{c.OH(), c.OW()};
  const ConvDims cd(one, one, pad);
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
          AnyDesc(c.N, c.C, c.In()),
          memory::desc(WeightDims(1, c.O, c.C, c.Kernel()), dt::f32, tag::any),
          AnyDesc(c.N, c.O, out), cd.strides, cd.dilates, cd.pad_l, cd.pad_r),
      UserScratchpad(), Engine());
  auto e = std::make_shared<Exec>();
  e->prim = dnnl::convolution_forward(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_SRC, ActDesc(c.N, c.C, c.In(), c.cl), pd.src_desc(), Exec::Dir::kIn);
  e->Add(DNNL_ARG_WEIGHTS, WeightDesc(1, c.O, c.C, c.Kernel(), c.cl), pd.weights_desc(),
         Exec::Dir::kIn);
  e->Add(DNNL_ARG_DST, ActDesc(c.N, c.O, out, c.cl), pd.dst_desc(), Exec::Dir::kOut);
  return e;
}

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// Direct convolution in double, in the layout of `c`.
std::vector<float> ConvRef(const Conv& c, const std::vector<float>& x,
                           const std::vector<float>& w) {
  auto xi = [&](int64_t n, int64_t ch, int64_t h, int64_t ww) {
    return c.cl ? ((n * c.H + h) * c.W + ww) * c.C + ch : ((n * c.C + ch) * c.H + h) * c.W + ww;
  };
  auto wi = [&](int64_t o, int64_t ch, int64_t kh, int64_t kw) {
    return c.cl ? ((o * c.K + kh) * c.K + kw) * c.C + ch : ((o * c.C + ch) * c.K + kh) * c.K + kw;
  };
  std::vector<float> y(c.N * c.O * c.OH() * c.OW());
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t o = 0; o < c.O; ++o)
      for (int64_t i = 0; i < c.OH(); ++i)
        for (int64_t j = 0; j < c.OW(); ++j) {
          double acc = 0;
          for (int64_t ch = 0; ch < c.C; ++ch)
            for (int64_t kh = 0; kh < c.K; ++kh)
              for (int64_t kw = 0; kw < c.K; ++kw) {
                const int64_t h = i + kh - c.P, ww = j + kw - c.P;
                if (h < 0 || h >= c.H || ww < 0 || ww >= c.W) continue;
                acc += double{x[xi(n, ch, h, ww)]} * w[wi(o, ch, kh, kw)];
              }
          const int64_t yi = c.cl ? ((n * c.OH() + i) * c.OW() + j) * c.O + o
                                  : ((n * c.O + o) * c.OH() + i) * c.OW() + j;
          y[yi] = static_cast<float>(acc);
        }
  return y;
}

int Mismatches(const std::vector<float>& got, const std::vector<float>& want) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::abs(got[i] - want[i]) > 1e-4f) ++bad;
  return bad;
}

// Runs conv `c` through the cache on seeded inputs; the number of wrong outputs.
int RunConv(const Conv& c, unsigned seed) {
  auto e = Get<Exec>(c.Key(), [&] { return MakeConv(c); });
  const std::vector<float> x = Random(c.N * c.C * c.H * c.W, seed),
                           w = Random(c.O * c.C * c.K * c.K, seed + 1);
  std::vector<float> y(c.N * c.O * c.OH() * c.OW(), NAN);
  e->Run({x.data(), w.data(), y.data()});
  return Mismatches(y, ConvRef(c, x, w));
}

TEST(OneDnnExec, ConvolutionMatchesADirectLoop) {
  Conv c;
  EXPECT_EQ(RunConv(c, 1), 0);
  c.cl = true;
  EXPECT_EQ(RunConv(c, 2), 0);
  c.N = 1, c.C = 16, c.O = 16, c.H = 9, c.W = 9;  // blocked layouts: reorders on every argument
  EXPECT_EQ(RunConv(c, 3), 0);
  c.cl = false;
  EXPECT_EQ(RunConv(c, 4), 0);
}

TEST(OneDnnCache, HitsMissesAndKeys) {
  Conv c;
  c.O = 3;  // a key no other test uses
  const CacheStats s0 = Cache().Stats();
  int made = 0;
  auto make = [&] {
    ++made;
    return MakeConv(c);
  };
  auto e1 = Get<Exec>(c.Key(), make);
  auto e2 = Get<Exec>(c.Key(), make);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(e1, e2);  // one shared entry
  CacheStats s1 = Cache().Stats();
  EXPECT_EQ(s1.misses, s0.misses + 1);
  EXPECT_EQ(s1.hits, s0.hits + 1);
  EXPECT_EQ(s1.entries, s0.entries + 1);

  // Another entry type under the same key is another entry.
  auto other = Get<int>(c.Key(), [] { return std::make_shared<int>(5); });
  EXPECT_EQ(*other, 5);
  // So is another thread count (oneDNN divides the work at creation).
  const int threads = GetNumThreads();
  SetNumThreads(threads + 1);
  auto e3 = Get<Exec>(c.Key(), make);
  SetNumThreads(threads);
  EXPECT_EQ(made, 2);
  EXPECT_NE(e3, e1);
  EXPECT_EQ(Get<Exec>(c.Key(), make), e1);

  // A configuration oneDNN rejects is cached as unsupported by GetOrNull; Get propagates.
  int tried = 0;
  auto bad = [&]() -> std::shared_ptr<Exec> {
    ++tried;
    auto e = std::make_shared<Exec>();
    // Mismatched shapes: source (1, 2, 4) times weights (1, 3, 4).
    e->prim = dnnl::matmul(
        dnnl::matmul::primitive_desc(dnnl::matmul::desc(memory::desc({1, 2, 4}, dt::f32, tag::abc),
                                                        memory::desc({1, 3, 4}, dt::f32, tag::abc),
                                                        memory::desc({1, 2, 4}, dt::f32, tag::abc)),
                                     Engine()));
    return e;
  };
  EXPECT_THROW(Get<Exec>(CacheKey("test_bad"), bad), dnnl::error);
  EXPECT_EQ(GetOrNull<Exec>(CacheKey("test_bad"), bad), nullptr);
  EXPECT_EQ(GetOrNull<Exec>(CacheKey("test_bad"), bad), nullptr);
  EXPECT_EQ(tried, 2);  // the unsupported entry answered the last call
}

// One cached primitive run by several threads at once, each with its own inputs.
TEST(OneDnnExec, ConcurrentRunsOfOneCachedPrimitive) {
  Conv c;
  c.C = 16, c.O = 16, c.H = 10, c.W = 10;
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < 6; ++t)
    ts.emplace_back([&, t] {
      for (unsigned i = 0; i < 8; ++i) bad += RunConv(c, 100 * t + i);
      if (t == 0) ReleaseScratch();  // racing with the others' runs
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(OneDnnConstant, ReorderedOncePerBuffer) {
  Conv c;
  c.N = 1, c.C = 16, c.O = 16, c.H = 8, c.W = 8;
  auto e = Get<Exec>(c.Key(), [&] { return MakeConv(c); });
  ASSERT_TRUE(e->Find(DNNL_ARG_WEIGHTS)->to_inner) << "this test needs a blocked weight layout";
  const std::vector<float> x = Random(c.N * c.C * c.H * c.W, 7);
  auto w = std::make_shared<std::vector<float>>(Random(c.O * c.C * c.K * c.K, 8));
  auto m1 = ReorderedConstant(c.Key(), *e, DNNL_ARG_WEIGHTS, w, 0, w->data());
  auto m2 = ReorderedConstant(c.Key(), *e, DNNL_ARG_WEIGHTS, w, 0, w->data());
  ASSERT_NE(m1, nullptr);
  EXPECT_EQ(m1, m2);  // reordered once
  std::vector<float> y(c.N * c.O * c.OH() * c.OW());
  e->Run({x.data(), nullptr, y.data()}, {{DNNL_ARG_WEIGHTS, *m1}});
  EXPECT_EQ(Mismatches(y, ConvRef(c, x, *w)), 0);
  // Another buffer (even with the same contents) is another entry; the source needs none.
  auto w2 = std::make_shared<std::vector<float>>(*w);
  EXPECT_NE(ReorderedConstant(c.Key(), *e, DNNL_ARG_WEIGHTS, w2, 0, w2->data()), m1);
  EXPECT_EQ(ReorderedConstant(c.Key(), *e, DNNL_ARG_DST, w, 0, w->data()), nullptr);
}

TEST(OneDnnBackend, ReleaseFreesEverythingAndKernelsStillWork) {
  const BackendTable* t = FindBackend("onednn");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->device, DeviceType::kCPU);
  Conv c;
  c.N = 1, c.C = 16, c.O = 16, c.H = 8, c.W = 8;
  ASSERT_EQ(RunConv(c, 11), 0);
  auto e = Get<Exec>(c.Key(), [&] { return MakeConv(c); });
  auto w = std::make_shared<std::vector<float>>(Random(c.O * c.C * c.K * c.K, 12));
  ReorderedConstant(c.Key(), *e, DNNL_ARG_WEIGHTS, w, 0, w->data());
  GetOrNull<Exec>(CacheKey("test_unsupported"),
                  []() -> std::shared_ptr<Exec> { throw dnnl::error(dnnl_unimplemented, "test"); });
  BackendStats s = t->stats();
  EXPECT_GT(s.primitives.entries, 0u);
  EXPECT_GT(s.primitives.unsupported, 0u);
  EXPECT_GT(s.constants, 0u);
  EXPECT_GT(s.scratch_bytes, 0u);
  EXPECT_GT(s.scratch_buffers, 0u);

  ReleaseCaches();  // every backend's hook: this one's Release()
  s = Stats();
  EXPECT_EQ(s.primitives.entries, 0u);
  EXPECT_EQ(s.primitives.unsupported, 0u);
  EXPECT_EQ(s.constants, 0u);
  EXPECT_EQ(s.scratch_bytes, 0u);
  EXPECT_EQ(s.scratch_buffers, 0u);

  EXPECT_EQ(RunConv(c, 13), 0);  // recreated
  e->Run({Random(c.N * c.C * c.H * c.W, 1).data(), w->data(),
          std::vector<float>(c.N * c.O * c.OH() * c.OW()).data()});  // a held entry still runs
  EXPECT_EQ(Stats().primitives.entries, 1u);
  EXPECT_GT(Stats().scratch_bytes, 0u);
}

}  // namespace
}  // namespace mxnet::backends::onednn
