// MXNet 1.9.1's optimize_for('MKLDNN') exports (symbol/testdata/sg: fused _sg_mkldnn_* nodes,
// float and int8, written by tools/conformance/gen_sg_refs.py) imported as a SymbolBlock and run
// the way `mxnet predict` runs them, imperative and hybridized, against MXNet's outputs. (The
// fused ops through a CachedOp, their JSON and errors: symbol/sg_ops_test.cc.)
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gluon/symbol_block.h"
#include "ndarray/io.h"

namespace mxnet::gluon {
namespace {

const std::string kDir = "symbol/testdata/sg/";

float MaxDiff(const NDArray& a, const NDArray& b) {
  EXPECT_EQ(a.shape(), b.shape());
  std::vector<float> x = a.ToVector<float>(), y = b.ToVector<float>();
  float worst = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

// {export, bound on |ours - MXNet| of the output}: float exports are float32 rounding apart; the
// int8 ones differ by oneDNN's per-channel weight rounding (see symbol/sg_ops_test.cc).
TEST(SymbolBlockSg, ImportsRunLikeMxnetPredict) {
  for (auto [name, bound] :
       {std::pair{"conv_bn_relu", 1e-5f}, std::pair{"conv_add_relu", 1e-5f},
        std::pair{"fc_relu", 1e-5f}, std::pair{"selfatt", 1e-5f},
        std::pair{"quantized_conv_bn_relu", 0.02f}, std::pair{"quantized_conv_add_relu", 0.04f}}) {
    auto io = nd::load(kDir + name + "-io.params");
    ASSERT_TRUE(io.ok()) << io.status();
    const NDArray* data = io->find("data");
    const NDArray* want = io->find("output");
    ASSERT_TRUE(data && want) << name;
    std::vector<std::vector<float>> runs;
    for (bool hybrid : {false, true}) {
      auto block = SymbolBlock::imports(kDir + name + "-symbol.json", {"data"},
                                        kDir + name + "-0000.params");
      ASSERT_TRUE(block.ok()) << name << ": " << block.status();
      if (hybrid) (*block)->hybridize();
      NDArrayVec out = (**block)(NDArrayVec{*data});
      ASSERT_EQ(out.size(), 1u) << name;
      EXPECT_LE(MaxDiff(out[0], *want), bound) << name << (hybrid ? " hybridized" : " imperative");
      runs.push_back(out[0].ToVector<float>());
    }
    // Hybridizing changes nothing: same kernels, same values.
    EXPECT_EQ(runs[0], runs[1]) << name;
  }
}

}  // namespace
}  // namespace mxnet::gluon
