// The real GluonCV CIFAR-10 ResNet-20 export (shared/data/models/cifar_resnet20_v1-*), loaded
// with Symbol::load + nd::load: unoptimized and optimized CachedOp outputs against each other
// and against real MXNet 1.9.1 (symbol/testdata/cifar_resnet20_v1_ref.json from
// tools/conformance/gen_symbol_refs.py), per-pass node counts, and the memory plan.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "ndarray/io.h"
#include "ndarray/testing/op_testing.h"
#include "symbol/executor.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym {
namespace {

namespace fs = std::filesystem;
using mxnet::testing::AllClose;

const char kRef[] = "symbol/testdata/cifar_resnet20_v1_ref.json";

std::string SharedDir() {
  std::vector<fs::path> candidates;
  if (const char* e = std::getenv("MXNET_SHARED_DIR")) candidates.emplace_back(e);
  std::error_code ec;
  fs::path real = fs::canonical(kRef, ec);
  if (!ec) candidates.push_back(real.parent_path().parent_path().parent_path() / ".." / "shared");
  candidates.emplace_back("/work/shared");
  for (const auto& c : candidates)
    if (fs::exists(c / "data" / "models" / "cifar_resnet20_v1-symbol.json")) return c.string();
  return "";
}

class ResNet20 : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string shared = SharedDir();
    if (shared.empty()) GTEST_SKIP() << "cifar_resnet20_v1 export not found (set MXNET_SHARED_DIR)";
    std::string prefix = shared + "/data/models/cifar_resnet20_v1";
    auto s = Symbol::load(prefix + "-symbol.json");
    ASSERT_TRUE(s.ok()) << s.status();
    symbol_ = *s;
    auto f = nd::load(prefix + "-0000.params");
    ASSERT_TRUE(f.ok()) << f.status();
    for (size_t i = 0; i < f->names.size(); ++i) params_[f->names[i].substr(4)] = f->arrays[i];
    std::ifstream in(kRef);
    ASSERT_TRUE(in) << kRef;
    ref_ = nlohmann::json::parse(in);
  }

  // The reference input: x[i] = ((i * 7919) % 2000) / 1000 - 1.
  NDArray Input(int batch) const {
    std::vector<float> v(batch * 3 * 32 * 32);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(static_cast<double>((i * 7919) % 2000) / 1000.0 - 1.0);
    return NDArray::FromVector(v, Shape{batch, 3, 32, 32});
  }

  std::vector<NDArray> Inputs(const CachedOp& op, const NDArray& data) const {
    std::vector<NDArray> in;
    for (const auto& n : op.input_names()) in.push_back(n == "data" ? data : params_.at(n));
    return in;
  }

  NDArray Reference(const char* key) const {
    std::vector<float> v = ref_[key].get<std::vector<float>>();
    return NDArray::FromVector(v, Shape{2, 10});
  }

  Symbol symbol_;
  std::map<std::string, NDArray> params_;
  nlohmann::json ref_;
};

int CountOp(const Symbol& s, const std::string& op) {
  int n = 0;
  for (const auto& node : s.TopoNodes()) n += node->op && node->op->name == op;
  return n;
}

TEST_F(ResNet20, MatchesMXNetWithAndWithoutPasses) {
  const NDArray x = Input(2);
  EXPECT_EQ(passes::CountOpNodes(symbol_), ref_["op_nodes"].get<int>());
  std::map<std::string, NDArrayVec> outs;
  for (const char* backend : {"none", "default", "onednn"}) {
    CachedOp op(symbol_, {.backend = backend});
    outs[backend] = op(Inputs(op, x));
    ASSERT_EQ(outs[backend].size(), 1u);
    EXPECT_TRUE(AllClose(outs[backend][0], Reference("output"), 1e-4, 1e-4)) << backend;
    absl::Status st = op.verify_memory_plan();
    EXPECT_TRUE(st.ok()) << backend << ": " << st;
    CompileReport rep = op.last_report();
    std::cout << "[" << backend << "] " << rep.ToString();
  }
  // Optimized vs unoptimized within float32 tolerance.
  EXPECT_TRUE(AllClose(outs["onednn"][0], outs["none"][0], 1e-4, 1e-4));
  EXPECT_TRUE(AllClose(outs["default"][0], outs["none"][0], 1e-4, 1e-4));
}

TEST_F(ResNet20, PassesRemoveAndFuseNodes) {
  CachedOp op(symbol_, {.backend = "onednn"});
  NDArrayVec out = op(Inputs(op, Input(1)));
  CompileReport rep = op.last_report();
  std::map<std::string, passes::PassResult> by_pass;
  for (const auto& r : rep.passes) by_pass[r.pass] = r;  // the last of each name
  EXPECT_EQ(rep.nodes_before, 71);
  // All 21 BatchNorms fold into their convolutions.
  EXPECT_EQ(by_pass["batchnorm_folding"].rewritten, 21) << by_pass["batchnorm_folding"].summary;
  EXPECT_EQ(by_pass["batchnorm_folding"].removed, 21);
  // The 18 relus and 9 residual adds fuse into 18 convolutions (9 conv+relu, 9 conv+add+relu);
  // the other 3 (the stem conv, read by a conv and a residual add, and 2 adds' other operands)
  // become the fused op without post-ops, for its cached constant weight.
  EXPECT_EQ(by_pass["onednn_fusion"].added, 21) << by_pass["onednn_fusion"].summary;
  EXPECT_EQ(by_pass["onednn_fusion"].removed, 21 + 18 + 9);
  // What MXNet's own oneDNN partitioning leaves: 23 nodes (it also wraps the lone FC).
  EXPECT_EQ(by_pass["onednn_fusion"].nodes_after, ref_["op_nodes_mkldnn"].get<int>());
  // The 21 fused convolutions form one channels-last chain: a transpose in (the image) and one
  // out (to the pooling).
  EXPECT_EQ(by_pass["onednn_layout"].rewritten, 21) << by_pass["onednn_layout"].summary;
  EXPECT_EQ(by_pass["onednn_layout"].added, 2) << by_pass["onednn_layout"].summary;
  EXPECT_EQ(rep.nodes_after, ref_["op_nodes_mkldnn"].get<int>() + 2);
  Symbol opt = op.optimized_symbol();
  EXPECT_EQ(CountOp(opt, "_sg_onednn_conv"), 21);
  EXPECT_EQ(CountOp(opt, "Convolution"), 0);
  EXPECT_EQ(CountOp(opt, "BatchNorm"), 0);
  EXPECT_EQ(rep.folded_inputs.size(), 21u * 4 + 21u);  // BN gamma/beta/mean/var + conv weights
  std::cout << rep.ToString();
}

TEST_F(ResNet20, MemoryPlanBeatsOneBufferPerValue) {
  for (int batch : {1, 64}) {
    CachedOp plain(symbol_, {.plan_memory = false});
    CachedOp planned(symbol_, {.backend = "onednn"});
    NDArray x = NDArray::Full(Shape{batch, 3, 32, 32}, 0.5);
    plain(Inputs(plain, x));
    planned(Inputs(planned, x));
    MemoryStats a = plain.memory_stats(), b = planned.memory_stats();
    EXPECT_EQ(a.planned_bytes, a.naive_bytes);
    EXPECT_LT(b.planned_bytes, b.naive_bytes / 2) << "batch " << batch;
    EXPECT_GT(b.num_inplace, 0);
    std::cout << "batch " << batch << ": naive " << passes::FormatBytes(a.naive_bytes)
              << " (71 nodes), optimized graph naive " << passes::FormatBytes(b.naive_bytes)
              << ", planned " << passes::FormatBytes(b.planned_bytes) << " in " << b.num_buffers
              << " buffers, " << b.num_inplace << " in place\n";
    EXPECT_TRUE(planned.verify_memory_plan().ok());
  }
}

TEST_F(ResNet20, OptimizedGraphExportsAsJsonWithConstants) {
  CachedOp op(symbol_, {.backend = "onednn"});
  NDArray x = Input(2);
  NDArrayVec out = op(Inputs(op, x));
  Symbol opt = op.optimized_symbol();
  auto back = Symbol::fromjson(opt.tojson());
  ASSERT_TRUE(back.ok()) << back.status();
  // Run the reloaded optimized graph with the folded constants as parameters.
  std::map<std::string, NDArray> consts = op.optimized_constants();
  CachedOp again(*back);
  std::vector<NDArray> in;
  for (const auto& n : again.input_names())
    in.push_back(n == "data" ? x : consts.count(n) ? consts.at(n) : params_.at(n));
  EXPECT_TRUE(AllClose(again(in)[0], out[0], 1e-6, 1e-6));
}

}  // namespace
}  // namespace mxnet::sym
