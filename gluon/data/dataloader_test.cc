#include "gluon/data/dataloader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gluon/data/vision/datasets.h"
#include "gluon/data/vision/transforms.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Sample i = {x: (3,) float32 [i, i, i], y: () int32 i}. Loading sleeps a little, longer for
// lower indices, so worker threads finish out of order.
class SlowDataset : public Dataset {
 public:
  explicit SlowDataset(int64_t n, int64_t fail_at = -1) : n_(n), fail_at_(fail_at) {}
  int64_t size() const override { return n_; }
  mutable std::atomic<int> loads{0};

 protected:
  Sample Get(int64_t i) const override {
    ++loads;
    std::this_thread::sleep_for(std::chrono::microseconds(50 * ((n_ - i) % 7)));
    if (i == fail_at_) MX_THROW(absl::StatusCode::kDataLoss, "record ", i, " is corrupt");
    const float v = static_cast<float>(i);
    return {NDArray::FromVector(std::vector<float>{v, v, v}, Shape{3}),
            NDArray::FromVector(std::vector<int32_t>{static_cast<int32_t>(i)}, Shape(), cpu(),
                                DType::kInt32)};
  }

 private:
  int64_t n_;
  int64_t fail_at_;
};

// The label batches of one epoch.
std::vector<std::vector<int>> Epoch(DataLoader& loader) {
  std::vector<std::vector<int>> out;
  for (const Batch& b : loader) {
    EXPECT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0].shape()[0], b[1].shape()[0]);
    out.push_back(b[1].ToVector<int>());
  }
  return out;
}

TEST(DataLoaderTest, SequentialBatchesKeepLast) {
  DataLoader loader(std::make_shared<SlowDataset>(10), {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  std::vector<Batch> batches;
  for (const Batch& b : loader) batches.push_back(b);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0][0].shape(), (Shape{4, 3}));
  EXPECT_EQ(batches[0][0].dtype(), DType::kFloat32);
  EXPECT_EQ(batches[0][1].shape(), (Shape{4}));
  EXPECT_EQ(batches[0][1].dtype(), DType::kInt32);
  EXPECT_THAT(batches[2][0].ToVector<float>(), ElementsAre(8, 8, 8, 9, 9, 9));
  EXPECT_THAT(batches[2][1].ToVector<int>(), ElementsAre(8, 9));
}

TEST(DataLoaderTest, WorkersGiveTheSameBatchesInOrder) {
  auto ds = std::make_shared<SlowDataset>(53);
  DataLoader serial(ds, {.batch_size = 5});
  const auto expected = Epoch(serial);
  ASSERT_EQ(expected.size(), 11u);
  for (int workers : {1, 2, 4}) {
    for (int prefetch : {-1, 0, 1, 7, 100}) {
      DataLoader loader(ds, {.batch_size = 5, .num_workers = workers, .prefetch = prefetch});
      EXPECT_EQ(Epoch(loader), expected) << workers << " workers, prefetch " << prefetch;
      EXPECT_EQ(Epoch(loader), expected) << "second epoch";
    }
  }
}

// pin_memory: batches land in cpu_pinned(pin_device_id) with the same values, with and without
// workers. (In this build cpu_pinned is ordinary host memory: no GPU backend is linked.)
TEST(DataLoaderTest, PinMemoryPutsBatchesInPinnedMemory) {
  auto ds = std::make_shared<SlowDataset>(11);
  DataLoader plain(ds, {.batch_size = 4});
  std::vector<Batch> want;
  for (const Batch& b : plain) want.push_back(b);
  for (int workers : {0, 2}) {
    for (int id : {0, 1}) {
      DataLoader pinned(
          ds, {.batch_size = 4, .num_workers = workers, .pin_memory = true, .pin_device_id = id});
      size_t n = 0;
      for (const Batch& b : pinned) {
        ASSERT_LT(n, want.size());
        ASSERT_EQ(b.size(), 2u);
        for (size_t k = 0; k < b.size(); ++k) {
          EXPECT_EQ(b[k].device(), cpu_pinned(id)) << workers << " workers, batch " << n;
          EXPECT_EQ(b[k].dtype(), want[n][k].dtype());
          EXPECT_EQ(b[k].shape(), want[n][k].shape());
          EXPECT_EQ(b[k].ToVector<double>(), want[n][k].ToVector<double>());
        }
        // Usable as CPU arrays, and moved to cpu() like any array.
        EXPECT_EQ(b[0].as_in_context(cpu()).device(), cpu());
        ++n;
      }
      EXPECT_EQ(n, want.size());
    }
  }
  for (const Batch& b : plain) EXPECT_EQ(b[0].device(), cpu());  // off by default
  try {
    DataLoader bad(ds, {.batch_size = 4, .pin_memory = true, .pin_device_id = -1});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("pin_device_id must be >= 0, got -1"));
  }
}

TEST(DataLoaderTest, ShuffleRepeatableWithSeedWithAndWithoutWorkers) {
  auto ds = std::make_shared<SlowDataset>(40);
  DataLoader serial(ds, {.batch_size = 8, .shuffle = true});
  DataLoader threaded(ds, {.batch_size = 8, .shuffle = true, .num_workers = 3});
  random::seed(123);
  const auto a = Epoch(serial);
  const auto a_next = Epoch(serial);
  random::seed(123);
  const auto b = Epoch(threaded);
  random::seed(123);
  const auto c = Epoch(serial);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_NE(a, a_next);
  std::vector<int> all;
  for (const auto& batch : a) all.insert(all.end(), batch.begin(), batch.end());
  std::vector<int> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 40; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_NE(all, sorted);
}

TEST(DataLoaderTest, LastBatchModes) {
  auto ds = std::make_shared<SlowDataset>(10);
  DataLoader discard(ds, {.batch_size = 4, .last_batch = LastBatch::kDiscard});
  EXPECT_EQ(discard.size(), 2);
  EXPECT_EQ(Epoch(discard), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  DataLoader rollover(ds, {.batch_size = 4, .last_batch = LastBatch::kRollover, .num_workers = 2});
  EXPECT_EQ(Epoch(rollover), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(rollover.size(), 3);
  EXPECT_EQ(Epoch(rollover),
            (std::vector<std::vector<int>>{{8, 9, 0, 1}, {2, 3, 4, 5}, {6, 7, 8, 9}}));
}

TEST(DataLoaderTest, CustomSamplersAndBatchify) {
  auto ds = std::make_shared<SlowDataset>(6);
  auto bs = std::make_shared<BatchSampler>(std::make_shared<SequentialSampler>(3, 2), 2);
  DataLoader loader(ds, {.batch_sampler = bs});
  EXPECT_EQ(Epoch(loader), (std::vector<std::vector<int>>{{2, 3}, {4}}));
  // A batchify that returns only the labels, summed.
  DataLoader summed(ds, {.batch_size = 3, .batchify_fn = [](const std::vector<Sample>& s) {
                           int total = 0;
                           for (const Sample& x : s) total += x[1].asscalar<int>();
                           return Batch{NDArray::Full(Shape{1}, total)};
                         }});
  std::vector<float> sums;
  for (const Batch& b : summed) sums.push_back(b[0].asscalar<float>());
  EXPECT_THAT(sums, ElementsAre(3, 12));
}

TEST(DataLoaderTest, OptionErrors) {
  auto ds = std::make_shared<SlowDataset>(6);
  auto bs = std::make_shared<BatchSampler>(std::make_shared<SequentialSampler>(6), 2);
  auto sampler = std::make_shared<SequentialSampler>(6);
  EXPECT_THROW(DataLoader(ds, {}), Error);  // no batch_size
  EXPECT_THROW(DataLoader(ds, {.batch_size = 2, .shuffle = true, .sampler = sampler}), Error);
  EXPECT_THROW(DataLoader(ds, {.batch_size = 2, .batch_sampler = bs}), Error);
  EXPECT_THROW(DataLoader(ds, {.last_batch = LastBatch::kKeep, .batch_sampler = bs}), Error);
  EXPECT_THROW(DataLoader(nullptr, {.batch_size = 2}), Error);
  EXPECT_THROW(DataLoader(ds, {.batch_size = 2, .num_workers = -1}), Error);
  try {
    DataLoader(ds, {.batch_size = 2, .shuffle = true, .sampler = sampler});
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("shuffle must not be specified if sampler is specified"));
  }
}

TEST(DataLoaderTest, WorkerExceptionSurfacesOnConsumerNamingTheSample) {
  for (int workers : {0, 1, 3}) {
    auto ds = std::make_shared<SlowDataset>(30, /*fail_at=*/13);
    DataLoader loader(ds, {.batch_size = 4, .num_workers = workers});
    std::vector<std::vector<int>> seen;
    try {
      for (const Batch& b : loader) seen.push_back(b[1].ToVector<int>());
      FAIL() << "expected an error with " << workers << " workers";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), absl::StatusCode::kDataLoss);
      EXPECT_THAT(e.what(), HasSubstr("loading sample 13 (batch 3) failed"));
      EXPECT_THAT(e.what(), HasSubstr("record 13 is corrupt"));
    }
    // Batches before the failing one arrived intact and in order.
    EXPECT_EQ(seen, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}));
    // The loader stays usable: a new epoch starts over (and fails again at the same place).
    auto it = loader.begin();
    EXPECT_THAT((*it)[1].ToVector<int>(), ElementsAre(0, 1, 2, 3));
  }
}

TEST(DataLoaderTest, ErrorInFirstBatchThrowsFromBegin) {
  auto ds = std::make_shared<SlowDataset>(8, /*fail_at=*/1);
  DataLoader loader(ds, {.batch_size = 4, .num_workers = 2});
  EXPECT_THROW(loader.begin(), Error);
}

TEST(DataLoaderTest, BatchifyErrorNamesTheBatch) {
  std::vector<Sample> samples = {{NDArray::Full(Shape{2}, 0.0)}, {NDArray::Full(Shape{3}, 0.0)}};
  DataLoader loader(std::make_shared<SimpleDataset>(samples), {.batch_size = 2, .num_workers = 1});
  try {
    loader.begin();
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("batchify of batch 0 (samples 0, 1) failed"));
    EXPECT_THAT(e.what(), HasSubstr("use Pad"));
  }
}

TEST(DataLoaderTest, AbandonedEpochDoesNotHangOrLoadEverything) {
  auto ds = std::make_shared<SlowDataset>(1000);
  {
    DataLoader loader(ds, {.batch_size = 2, .num_workers = 2, .prefetch = 4});
    auto it = loader.begin();
    ++it;
    EXPECT_EQ(it.batch_index(), 1);
    // Leaving the scope with batches in flight must not hang.
  }
  EXPECT_LT(ds->loads.load(), 100);
  // Iterator outliving its loader.
  std::optional<DataLoader::Iterator> it;
  {
    DataLoader loader(ds, {.batch_size = 2, .num_workers = 2});
    it.emplace(loader.begin());
  }
  EXPECT_EQ((**it)[1].shape(), (Shape{2}));
}

// Real data through the whole pipeline: Fashion-MNIST, ToTensor + Normalize in 2 workers.
TEST(DataLoaderTest, FashionMnistWithTransformsAndWorkers) {
  auto fm = vision::FashionMNIST::Create("/usr/share/datasets/fashion-mnist", /*train=*/false);
  ASSERT_TRUE(fm.ok()) << fm.status();
  using namespace vision::transforms;
  DatasetPtr ds = (*fm)->transform_first(Compose({ToTensor(), Normalize({0.286f}, {0.353f})}));
  DataLoader loader(ds, {.batch_size = 128, .num_workers = 2});
  EXPECT_EQ(loader.size(), 79);  // ceil(10000 / 128)
  auto it = loader.begin();
  const Batch& b = *it;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].shape(), (Shape{128, 1, 28, 28}));
  EXPECT_EQ(b[0].dtype(), DType::kFloat32);
  EXPECT_EQ(b[1].shape(), (Shape{128}));
  EXPECT_EQ(b[1].dtype(), DType::kInt32);
  // The test set's first labels (same as real MXNet's FashionMNIST, see datasets_test).
  std::vector<int> labels = b[1].ToVector<int>();
  EXPECT_THAT(std::vector<int>(labels.begin(), labels.begin() + 10),
              ElementsAre(9, 2, 1, 1, 6, 1, 4, 6, 5, 7));
  // Normalized: background pixels are (0 - 0.286) / 0.353.
  EXPECT_NEAR(b[0].ToVector<float>()[0], -0.286f / 0.353f, 1e-6);
}

}  // namespace
}  // namespace mxnet::gluon::data
