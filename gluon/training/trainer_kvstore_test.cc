// Trainer with kvstores (TrainerOptions): update on the store vs. locally, kvstore none,
// 2bit gradient compression through the Trainer (hand-computed), and its errors. The
// multi-process store is tested under mpirun by //gluon/kvstore:mpi_kvstore_test and
// //tools/mxnet:train_mpi_test.
#include <gtest/gtest.h>

#include <limits>

#include "autograd/autograd.h"
#include "base/error.h"
#include "base/strings.h"
#include "gluon/training/trainer.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using ::mxnet::testing::AllClose;

const std::vector<Device> kTwo{cpu(0), cpu(1)};

ParameterPtr MakeParam(const std::string& name, std::vector<float> v, std::vector<Device> devices) {
  auto p = std::make_shared<Parameter>(
      name, ParameterOptions{.shape = Shape{static_cast<int64_t>(v.size())}});
  p->initialize(nullptr, devices);
  p->set_data(NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}));
  return p;
}

// loss = sum(w * x_k) on device k: the gradient of copy k is x_k.
void Backward(const ParameterPtr& w, const std::vector<NDArray>& xs) {
  std::vector<NDArray> heads;
  {
    auto rec = autograd::record();
    for (size_t k = 0; k < xs.size(); ++k) {
      Device d = w->list_device()[k];
      heads.push_back(nd::elemwise_mul(w->data(d), xs[k].copyto(d)));
    }
  }
  autograd::backward(heads);
}

NDArray V(std::vector<float> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())});
}

TEST(TrainerKVStore, UpdateOnKVStoreMatchesLocalUpdate) {
  auto a = MakeParam("a", {1, 2, 3}, kTwo), b = MakeParam("b", {1, 2, 3}, kTwo);
  const Kwargs opt{{"learning_rate", 0.1}, {"momentum", 0.9}, {"wd", 0.01}};
  Trainer on_kv({a}, "sgd", opt, {.update_on_kvstore = true});
  Trainer local({b}, "sgd", opt);
  const std::vector<NDArray> xs{V({1, -1, 2}), V({0.5, 3, -2})};
  for (int step = 0; step < 3; ++step) {
    Backward(a, xs);
    Backward(b, xs);
    on_kv.step(4);
    local.step(4);
    EXPECT_TRUE(AllClose(a->data(cpu(0)), b->data(cpu(0)), 1e-6, 1e-7)) << step;
    EXPECT_EQ(a->data(cpu(1)).ToVector<float>(), a->data(cpu(0)).ToVector<float>());
  }
  ASSERT_NE(on_kv.kvstore(), nullptr);
  EXPECT_EQ(on_kv.kvstore()->type(), "device");
  EXPECT_TRUE(on_kv.update_on_kvstore());
  EXPECT_FALSE(local.update_on_kvstore());
  try {
    on_kv.allreduce_grads();
    ADD_FAILURE() << "allreduce_grads() with update_on_kvstore";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("update_on_kvstore"), std::string::npos);
  }
  EXPECT_THROW(on_kv.update(4), Error);
  // The store's optimizer states are this Trainer's: they are saved.
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = StrCat(dir ? dir : "/tmp", "/kv_states.params");
  ASSERT_TRUE(on_kv.save_states(path).ok());
  Trainer again({a}, "sgd", opt, {.update_on_kvstore = true});
  EXPECT_TRUE(again.load_states(path).ok());
}

TEST(TrainerKVStore, NoKVStoreUpdatesEachCopyWithItsOwnGradient) {
  auto w = MakeParam("w", {1, 1}, kTwo);
  Trainer tr({w}, "sgd", {{"learning_rate", 1.0}}, {.kvstore = ""});
  Backward(w, {V({1, 2}), V({3, 4})});
  tr.step(1);
  EXPECT_EQ(tr.kvstore(), nullptr);
  EXPECT_EQ(w->data(cpu(0)).ToVector<float>(), (std::vector<float>{0, -1}));
  EXPECT_EQ(w->data(cpu(1)).ToVector<float>(), (std::vector<float>{-2, -3}));
}

TEST(TrainerKVStore, TwoBitCompressionThroughTheTrainer) {
  auto w = MakeParam("w", {0, 0, 0}, kTwo);
  Trainer tr({w}, "sgd", {{"learning_rate", 1.0}},
             {.kvstore = "device", .compression_params = {{"type", "2bit"}, {"threshold", 0.5}}});
  // Device 0: (0.6, 0.2, -0.7) -> (.5, 0, -.5); device 1: (0.6, -0.5, 0.1) -> (.5, -.5, 0).
  // Sum (1, -.5, -.5); w = 0 - 1 * sum / batch 1.
  Backward(w, {V({0.6f, 0.2f, -0.7f}), V({0.6f, -0.5f, 0.1f})});
  tr.step(1);
  EXPECT_TRUE(AllClose(w->data(cpu(0)), V({-1, 0.5f, 0.5f}), 1e-6, 1e-7));
  EXPECT_TRUE(AllClose(w->data(cpu(1)), V({-1, 0.5f, 0.5f}), 1e-6, 1e-7));
  // Residuals (.1, .2, -.2) and (.1, 0, .1) plus (0.4, 0.3, 0): (.5, .5, -.2) -> (.5, .5, 0)
  // and (.5, .3, .1) -> (.5, 0, 0). Sum (1, .5, 0).
  Backward(w, {V({0.4f, 0.3f, 0}), V({0.4f, 0.3f, 0})});
  tr.step(1);
  EXPECT_TRUE(AllClose(w->data(cpu(0)), V({-2, 0, 0.5f}), 1e-6, 1e-7));
}

TEST(TrainerKVStore, StoreObjectAndErrors) {
  // A store object is used even for one device; "local" cannot compress (MXNet's rule).
  auto w = MakeParam("w", {1}, {cpu()});
  Trainer tr({w}, "sgd", {{"learning_rate", 1.0}},
             {.kvstore = kvstore::create("local"), .compression_params = {{"type", "2bit"}}});
  Backward(w, {V({1})});
  EXPECT_THROW(tr.step(1), Error);
  auto u = MakeParam("u", {1}, {cpu()});
  Trainer one({u}, "sgd", {{"learning_rate", 1.0}}, {.kvstore = kvstore::create("local")});
  Backward(u, {V({2})});
  one.step(1);
  ASSERT_NE(one.kvstore(), nullptr);
  EXPECT_EQ(u->data().ToVector<float>(), (std::vector<float>{-1}));
  // update_on_kvstore without a store.
  auto x = MakeParam("x", {1}, {cpu()});
  Trainer none({x}, "sgd", {}, {.kvstore = "", .update_on_kvstore = true});
  Backward(x, {V({1})});
  EXPECT_THROW(none.step(1), Error);
  // Unknown store name: the error names it.
  auto y = MakeParam("y", {1}, kTwo);
  Trainer bad({y}, "sgd", {}, {.kvstore = "bogus"});
  Backward(y, {V({1}), V({1})});
  try {
    bad.step(1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown kvstore type 'bogus'"), std::string::npos);
  }
}

// Finite check with update_on_kvstore (issue 25): the store would apply the update at push,
// before Update() scanned the gradients. Now the store's push check scans the summed gradient
// first: the step throws and neither the weights nor the optimizer state change. Then a
// finite step updates as usual (hand value: sgd w - lr * g / batch).
TEST(TrainerKVStore, FiniteCheckRunsBeforeTheStoreUpdates) {
  auto w = MakeParam("w", {1, 2, 3}, kTwo);
  Trainer tr({w}, "sgd", {{"learning_rate", 0.5}}, {.update_on_kvstore = true});
  tr.set_check_finite(true);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Backward(w, {V({1, nan, 1}), V({1, 1, std::numeric_limits<float>::infinity()})});
  try {
    tr.step(1);
    ADD_FAILURE() << "a NaN gradient was applied";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Trainer step 1: the gradient of Parameter 0 'w' (3,) on cpu(0) (summed by "
                       "the kvstore) has 1 NaN and 1 Inf values (first at flat index 1)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("nothing was updated"), std::string::npos) << msg;
  }
  for (const Device& d : kTwo)
    EXPECT_EQ(w->data(d).ToVector<float>(), (std::vector<float>{1, 2, 3})) << d.ToString();
  EXPECT_EQ(tr.optimizer().num_update(), 0);
  // The stored weight is unchanged too: a finite step starts from (1, 2, 3).
  Backward(w, {V({1, 2, 0}), V({1, 0, 4})});  // summed: (2, 2, 4)
  tr.step(2);
  for (const Device& d : kTwo)
    EXPECT_TRUE(AllClose(w->data(d), V({0.5f, 1.5f, 2.0f}), 1e-6, 1e-7)) << d.ToString();
}

}  // namespace
}  // namespace mxnet::gluon
