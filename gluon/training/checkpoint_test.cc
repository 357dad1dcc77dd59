// Training checkpoints: a resumed run equals the uninterrupted one bit for bit (parameters,
// Adam states, cosine schedule, random inputs drawn after the checkpoint); bad files are clear
// errors that change nothing; the durable writer leaves no temporaries.
#include "gluon/training/checkpoint.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/training/lr_scheduler.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"

namespace mxnet::gluon {
namespace {

namespace fs = std::filesystem;

std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp") + "/" + name;
}

struct Training {
  std::shared_ptr<nn::Sequential> net;
  std::unique_ptr<Trainer> trainer;
};

// Dense(5, relu) -> Dense(2), Adam with a cosine schedule over 10 updates.
Training MakeTraining() {
  Training r;
  r.net = std::make_shared<nn::Sequential>();
  r.net->add({std::make_shared<nn::Dense>(5, nn::DenseOptions{.activation = "relu"}),
              std::make_shared<nn::Dense>(2)});
  r.net->initialize(init::Xavier());
  (*r.net)(NDArray::Full(Shape{1, 3}, 0.0));
  r.trainer = std::make_unique<Trainer>(
      r.net->collect_params(), "adam",
      Kwargs{{"learning_rate", 0.05},
             {"lr_scheduler", std::make_shared<lr_scheduler::CosineScheduler>(10, 0.05)}});
  return r;
}

// One step on inputs drawn from the generators (so a resume must restore them too).
void Step(Training& r) {
  NDArray x = nd::random::uniform(-1, 1, Shape{8, 3});
  NDArray y = nd::random::normal(0, 1, Shape{8, 2});
  loss::L2Loss l2;
  NDArray l;
  {
    auto rec = autograd::record();
    l = l2((*r.net)(x), y);
  }
  l.backward();
  r.trainer->step(8);
}

std::vector<std::vector<float>> Values(const Training& r) {
  std::vector<std::vector<float>> out;
  for (const auto& [n, p] : r.net->collect_params()) out.push_back(p->data().ToVector<float>());
  return out;
}

TEST(Checkpoint, ResumeEqualsUninterruptedRunBitForBit) {
  const std::string path = Tmp("resume.params");
  random::seed(7);
  Training a = MakeTraining();
  for (int i = 0; i < 4; ++i) Step(a);
  ASSERT_TRUE(save_checkpoint(path, *a.net, *a.trainer, {.meta = R"({"step": 4})"}).ok());
  for (int i = 0; i < 5; ++i) Step(a);

  random::seed(123);  // a different process: other initial weights and generator states
  Training b = MakeTraining();
  Step(b);
  absl::StatusOr<std::string> meta = load_checkpoint(path, *b.net, *b.trainer);
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(nlohmann::json::parse(*meta), nlohmann::json({{"step", 4}}));
  EXPECT_EQ(b.trainer->optimizer().num_update(), 4);
  for (int i = 0; i < 5; ++i) Step(b);
  EXPECT_EQ(Values(a), Values(b));  // exact
  EXPECT_DOUBLE_EQ(a.trainer->learning_rate(), b.trainer->learning_rate());

  // Without the generator states the next inputs differ, and so do the weights (the check above
  // can fail).
  random::seed(123);
  Training c = MakeTraining();
  ASSERT_TRUE(load_checkpoint(path, *c.net, *c.trainer).ok());
  random::seed(1);
  for (int i = 0; i < 5; ++i) Step(c);
  EXPECT_NE(Values(a), Values(c));
}

TEST(Checkpoint, FileIsAnNDArrayDictWithNamedRecords) {
  const std::string path = Tmp("layout.params");
  random::seed(1);
  Training a = MakeTraining();
  Step(a);
  ASSERT_TRUE(save_checkpoint(path, *a.net, *a.trainer).ok());
  auto f = nd::load(path);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_NE(f->find("param:0.weight"), nullptr);
  EXPECT_EQ(f->find("param:0.weight")->ToVector<float>(),
            a.net->collect_params().get("0.weight")->data().ToVector<float>());
  EXPECT_NE(f->find("param:1.bias"), nullptr);
  EXPECT_NE(f->find("trainer:__trainer_states__"), nullptr);
  EXPECT_NE(f->find("trainer:0:0"), nullptr);  // Adam's mean of parameter 0
  const NDArray* head = f->find("__checkpoint__");
  ASSERT_NE(head, nullptr);
  std::vector<uint8_t> bytes = head->ToVector<uint8_t>();
  auto j = nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
  EXPECT_EQ(j["format"], "mxnet-cc-checkpoint");
  EXPECT_TRUE(j["rng"][0]["state"] == random_state(cpu()));
}

TEST(Checkpoint, BadFilesAreClearErrorsAndChangeNothing) {
  const std::string path = Tmp("bad.params");
  random::seed(3);
  Training a = MakeTraining();
  Step(a);
  ASSERT_TRUE(save_checkpoint(path, *a.net, *a.trainer).ok());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  random::seed(4);
  Training b = MakeTraining();
  auto other = std::make_shared<nn::Sequential>();  // a net of another shape
  other->add({std::make_shared<nn::Dense>(6), std::make_shared<nn::Dense>(2)});
  other->initialize();
  (*other)(NDArray::Full(Shape{1, 3}, 0.0));
  Trainer ot(other->collect_params(), "adam");
  const auto before = Values(b);
  const std::string rng_before = random_state(cpu());

  auto load = [&](const std::string& content) {
    const std::string p = Tmp("bad_variant.params");
    std::ofstream(p, std::ios::binary) << content;
    return load_checkpoint(p, *b.net, *b.trainer).status();
  };
  // Every truncation point is an error (kDataLoss or kInvalidArgument), never a partial load.
  for (size_t cut = 0; cut < bytes.size(); cut += 97) {
    absl::Status s = load(bytes.substr(0, cut));
    EXPECT_FALSE(s.ok()) << "cut at " << cut;
  }
  EXPECT_EQ(load_checkpoint(Tmp("missing.params"), *b.net, *b.trainer).status().code(),
            absl::StatusCode::kNotFound);
  // A parameters-only file (save_parameters) is not a checkpoint.
  const std::string params_only = Tmp("params_only.params");
  ASSERT_TRUE(a.net->save_parameters(params_only).ok());
  absl::Status s = load_checkpoint(params_only, *b.net, *b.trainer).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no '__checkpoint__' record"), std::string::npos) << s;
  // A net of another shape: named parameter and shapes.
  s = load_checkpoint(path, *other, ot).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("parameter '0.weight' is (5, 3) float32, the net's is (6, 3)"),
            std::string::npos)
      << s;
  // Another optimizer class: the Trainer's error, nothing changed.
  Trainer sgd(b.net->collect_params(), "sgd");
  s = load_checkpoint(path, *b.net, sgd).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'adam'"), std::string::npos) << s;

  EXPECT_EQ(Values(b), before);
  EXPECT_TRUE(random_state(cpu()) == rng_before);
  EXPECT_EQ(b.trainer->optimizer().num_update(), 0);
}

TEST(Checkpoint, DurableWriterLeavesNoTemporariesAndCleansStaleOnes) {
  const std::string dir = Tmp("durable");
  fs::create_directories(dir);
  const std::string path = dir + "/state.params";
  ASSERT_TRUE(write_file_durably(path, "first").ok());
  ASSERT_TRUE(write_file_durably(path, "second").ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  // What a killed writer leaves: removed; look-alikes are kept.
  std::ofstream(path + ".tmp-abc123") << "half";
  std::ofstream(path + ".tmp-zz") << "not ours";
  std::ofstream(dir + "/other.params.tmp-abc123") << "another file's";
  EXPECT_EQ(remove_stale_temporaries(path), 1);
  EXPECT_FALSE(fs::exists(path + ".tmp-abc123"));
  EXPECT_TRUE(fs::exists(path + ".tmp-zz"));
  EXPECT_TRUE(fs::exists(dir + "/other.params.tmp-abc123"));

  absl::Status s = write_file_durably(dir + "/no/such/dir/x", "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/no/such/dir/x: cannot create"), std::string::npos) << s;
}

TEST(Checkpoint, RandomStateRoundTrips) {
  random::seed(11);
  const std::string s = random_state(cpu());
  const std::vector<float> first = nd::random::uniform(0, 1, Shape{6}).ToVector<float>();
  set_random_state(cpu(), s);
  EXPECT_EQ(nd::random::uniform(0, 1, Shape{6}).ToVector<float>(), first);
  EXPECT_THROW(set_random_state(cpu(), "not a state"), Error);
}

}  // namespace
}  // namespace mxnet::gluon
