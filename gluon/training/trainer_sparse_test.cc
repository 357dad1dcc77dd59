// gluon nn::Embedding(sparse_grad=true) trained by gluon::Trainer against real MXNet 1.9.1
// (testdata/sparse_trainer.json from tools/conformance/gen_sparse_grad_refs.py): sgd with
// momentum and weight decay, sgd and adam with lazy_update False, adam and adagrad lazy; two
// steps each, with the dense-gradient layer as MXNet trains it too. Lazy updates leave the rows
// a batch does not look up untouched (their momentum/mean/var too), which the references show
// as different weights for sparse and dense gradients.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/training/trainer.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using json = nlohmann::json;

NDArray F32(const json& v, Shape s) {
  return NDArray::FromVector(v.get<std::vector<double>>(), std::move(s), cpu(), DType::kFloat32);
}

TEST(TrainerSparse, EmbeddingStepsMatchMxnet) {
  std::ifstream f("gluon/training/testdata/sparse_trainer.json");
  ASSERT_TRUE(f.good()) << "missing gluon/training/testdata/sparse_trainer.json";
  json doc = json::parse(f);
  int n = 0;
  for (const json& c : doc["cases"]) {
    const bool sparse = c["sparse_grad"].get<bool>();
    SCOPED_TRACE(StrCat(c["optimizer"].get<std::string>(), " ", c["kwargs"].dump(),
                        sparse ? " sparse" : " dense"));
    const int64_t in_dim = c["input_dim"], out_dim = c["output_dim"];
    auto net = std::make_shared<nn::Embedding>(in_dim, out_dim, DType::kFloat32, nullptr, sparse);
    net->initialize();
    net->weight->set_data(F32(c["weight"], Shape{in_dim, out_dim}));
    EXPECT_EQ(net->weight->grad_stype(), sparse ? StorageType::kRowSparse : StorageType::kDefault);
    Kwargs kw;
    for (auto& [k, v] : c["kwargs"].items()) {
      const std::string s = v.get<std::string>();
      if (s == "True" || s == "False")
        kw.emplace(k, KwargValue(s == "True"));
      else
        kw.emplace(k, KwargValue(std::stod(s)));
    }
    Trainer tr(net->collect_params(), c["optimizer"].get<std::string>(), kw);
    for (size_t t = 0; t < c["batches"].size(); ++t) {
      Shape bs(c["batch_shapes"][t].get<std::vector<int64_t>>());
      Shape hs = bs;
      hs.push_back(out_dim);
      NDArray x = F32(c["batches"][t], bs);
      NDArray y;
      {
        auto rec = autograd::record();
        y = net->forward(x);
      }
      autograd::backward({y}, {F32(c["head_grads"][t], hs)});
      EXPECT_EQ(net->weight->grad().stype(),
                sparse ? StorageType::kRowSparse : StorageType::kDefault);
      tr.step(static_cast<double>(bs[0]));
      EXPECT_TRUE(testing::AllClose(net->weight->data(),
                                    F32(c["weight_after"][t], Shape{in_dim, out_dim}), 1e-6, 1e-7))
          << "step " << t + 1;
    }
    ++n;
  }
  EXPECT_EQ(n, 10);
}

// Rows no batch looked up keep their exact initial values under lazy sgd with momentum and wd
// (the dense update decays them).
TEST(TrainerSparse, LazyUpdateLeavesOtherRows) {
  for (bool lazy : {true, false}) {
    auto net = std::make_shared<nn::Embedding>(6, 2, DType::kFloat32, nullptr, true);
    net->initialize();
    NDArray w0 = testing::RandomArray({6, 2}, -1, 1, 3, DType::kFloat32);
    net->weight->set_data(w0);
    Trainer tr(net->collect_params(), "sgd",
               {{"learning_rate", KwargValue(0.1)},
                {"momentum", KwargValue(0.9)},
                {"wd", KwargValue(0.1)},
                {"lazy_update", KwargValue(lazy)}});
    for (int t = 0; t < 2; ++t) {
      NDArray y;
      {
        auto rec = autograd::record();
        y = net->forward(NDArray::FromVector<float>({2, 4}, Shape{2}));
      }
      autograd::backward({y});
      tr.step(1);
    }
    std::vector<float> a = net->weight->data().ToVector<float>(), b = w0.ToVector<float>();
    for (int r = 0; r < 6; ++r)
      for (int j = 0; j < 2; ++j) {
        if (r == 2 || r == 4 || !lazy)
          EXPECT_NE(a[r * 2 + j], b[r * 2 + j]) << r << " lazy " << lazy;
        else
          EXPECT_EQ(a[r * 2 + j], b[r * 2 + j]) << r;
      }
  }
}

}  // namespace
}  // namespace mxnet::gluon
