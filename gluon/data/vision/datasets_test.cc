#include "gluon/data/vision/datasets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gluon/data/dataloader.h"
#include "gluon/data/vision/transforms.h"

namespace mxnet::gluon::data::vision {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char kFashion[] = "/usr/share/datasets/fashion-mnist";
const char kImages[] = "/work/shared/data/images/";

const nlohmann::json& Refs() {
  static const nlohmann::json* refs = [] {
    std::ifstream f("gluon/data/vision/testdata/refs.json");
    return new nlohmann::json(nlohmann::json::parse(f));
  }();
  return *refs;
}

// A fresh directory under the test's temp dir.
std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  fs::path p = fs::path(base ? base : "/tmp") / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void WriteGzip(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(f);
}

std::string Be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// IDX files for n images of h x w: pixel (i, y, x) = i + y + x, label i % 10.
std::string IdxImages(uint32_t n, uint32_t h, uint32_t w) {
  std::string s = Be32(0x803) + Be32(n) + Be32(h) + Be32(w);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) s += static_cast<char>(i + y + x);
  return s;
}
std::string IdxLabels(uint32_t n) {
  std::string s = Be32(0x801) + Be32(n);
  for (uint32_t i = 0; i < n; ++i) s += static_cast<char>(i % 10);
  return s;
}

// ---------------------------------------------------------------- Fashion-MNIST (real files)

class FashionMnistTest : public ::testing::TestWithParam<bool> {};

TEST_P(FashionMnistTest, MatchesMXNet) {
  const bool train = GetParam();
  const nlohmann::json& ref = Refs()["fashion_mnist"][train ? "train" : "test"];
  absl::StatusOr<std::shared_ptr<FashionMNIST>> ds = FashionMNIST::Create(kFashion, train);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ((*ds)->size(), ref["size"].get<int64_t>());
  EXPECT_EQ((*ds)->size(), train ? 60000 : 10000);
  Sample s = (*ds)->at(0);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].shape(), (Shape{28, 28, 1}));
  EXPECT_EQ(s[0].dtype(), DType::kUint8);
  EXPECT_EQ(DTypeName(s[0].dtype()), ref["image_dtype"].get<std::string>());
  EXPECT_EQ(s[1].shape(), Shape());
  EXPECT_EQ(s[1].dtype(), DType::kInt32);
  EXPECT_EQ(DTypeName(s[1].dtype()), ref["label_dtype"].get<std::string>());
  EXPECT_EQ(s[0].ToVector<int>(), ref["image0"].get<std::vector<int>>());
  std::vector<int> first;
  for (int i = 0; i < 20; ++i) first.push_back((*ds)->at(i)[1].asscalar<int>());
  EXPECT_EQ(first, ref["first_labels"].get<std::vector<int>>());
  int64_t sum = 0;
  for (int v : (*ds)->at((*ds)->size() - 1)[0].ToVector<int>()) sum += v;
  EXPECT_EQ(sum, ref["last_image_sum"].get<int64_t>());
  std::vector<int> hist(10, 0);
  for (int l : (*ds)->label().ToVector<int>()) ++hist.at(l);
  EXPECT_EQ(hist, ref["label_histogram"].get<std::vector<int>>());
  // Default batchify: (B, 28, 28, 1) uint8 and (B,) int32, like MXNet's DataLoader.
  DataLoader loader(*ds, {.batch_size = 4});
  const Batch& b = *loader.begin();
  EXPECT_EQ(b[0].shape().ToVector(), ref["batch"]["data_shape"].get<std::vector<int64_t>>());
  EXPECT_EQ(DTypeName(b[0].dtype()), ref["batch"]["data_dtype"].get<std::string>());
  EXPECT_EQ(b[1].shape().ToVector(), ref["batch"]["label_shape"].get<std::vector<int64_t>>());
  EXPECT_EQ(DTypeName(b[1].dtype()), ref["batch"]["label_dtype"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Split, FashionMnistTest, ::testing::Values(true, false));

TEST(FashionMnistTest, KnownFirstLabels) {
  // Zalando's published first training labels: ankle boot, T-shirt, T-shirt, dress, T-shirt.
  auto ds = FashionMNIST::Create(kFashion, true);
  ASSERT_TRUE(ds.ok());
  EXPECT_THAT((*ds)->label().slice(0, 5).ToVector<int>(), ElementsAre(9, 0, 0, 3, 0));
}

// ---------------------------------------------------------------- MNIST file errors

TEST(MnistTest, ReadsGzipAndPlainFiles) {
  const std::string dir = TempDir("mnist_ok");
  WriteGzip(dir + "/t10k-images-idx3-ubyte.gz", IdxImages(12, 4, 3));
  WriteGzip(dir + "/t10k-labels-idx1-ubyte.gz", IdxLabels(12));
  // Train split as uncompressed files (no .gz).
  WriteFile(dir + "/train-images-idx3-ubyte", IdxImages(5, 2, 2));
  WriteFile(dir + "/train-labels-idx1-ubyte", IdxLabels(5));
  auto test = MNIST::Create(dir, false);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 12);
  EXPECT_FALSE((*test)->train());
  Sample s = (*test)->at(11);
  EXPECT_EQ(s[0].shape(), (Shape{4, 3, 1}));
  EXPECT_EQ(s[0].ToVector<int>()[3 * 2 + 1], 11 + 2 + 1);  // (y=2, x=1)
  EXPECT_EQ(s[1].asscalar<int>(), 1);
  auto train = MNIST::Create(dir, true);
  ASSERT_TRUE(train.ok()) << train.status();
  EXPECT_EQ((*train)->size(), 5);
}

TEST(MnistTest, ClearErrorsNamingTheFile) {
  auto missing = MNIST::Create("/nonexistent/mnist", true);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("/nonexistent/mnist/train-labels-idx1-ubyte.gz"));

  const std::string dir = TempDir("mnist_bad");
  struct Case {
    std::string name, images, labels, expect;
    absl::StatusCode code;
    bool gzip_truncate = false;
  } cases[] = {
      {"magic", Be32(0x801) + IdxImages(3, 4, 4).substr(4), IdxLabels(3),
       "t10k-images-idx3-ubyte.gz' has the wrong magic", absl::StatusCode::kInvalidArgument},
      {"truncated", IdxImages(3, 4, 4).substr(0, 30), IdxLabels(3),
       "t10k-images-idx3-ubyte.gz' is truncated: the header promises 48 bytes of data, found 14",
       absl::StatusCode::kDataLoss},
      {"count", IdxImages(3, 4, 4), IdxLabels(4), "has 3 images but",
       absl::StatusCode::kInvalidArgument},
      {"short header", IdxImages(3, 4, 4), "ab", "t10k-labels-idx1-ubyte.gz' is truncated",
       absl::StatusCode::kDataLoss},
      {"gzip cut", IdxImages(50, 28, 28), IdxLabels(50), "error decompressing",
       absl::StatusCode::kDataLoss, true},
  };
  for (const Case& c : cases) {
    WriteGzip(dir + "/t10k-images-idx3-ubyte.gz", c.images);
    WriteGzip(dir + "/t10k-labels-idx1-ubyte.gz", c.labels);
    if (c.gzip_truncate) {
      const std::string p = dir + "/t10k-images-idx3-ubyte.gz";
      std::ifstream in(p, std::ios::binary);
      std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      WriteFile(p, gz.substr(0, gz.size() / 2));
    }
    auto r = MNIST::Create(dir, false);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), c.code) << c.name << ": " << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.expect)) << c.name;
  }
}

// ---------------------------------------------------------------- CIFAR (synthetic files)

// A CIFAR record: labels, then CHW pixels with pixel (c, y, x) = seed + 3 c + y + 2 x.
std::string CifarRecord(std::vector<int> labels, int seed) {
  std::string r;
  for (int l : labels) r += static_cast<char>(l);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x) r += static_cast<char>(seed + 3 * c + y + 2 * x);
  return r;
}

TEST(CifarTest, Cifar10TrainAndTest) {
  const std::string dir = TempDir("cifar10");
  for (int b = 1; b <= 5; ++b)
    WriteFile(dir + "/data_batch_" + std::to_string(b) + ".bin",
              CifarRecord({b}, b) + CifarRecord({(b + 5) % 10}, 10 * b));
  WriteFile(dir + "/test_batch.bin", CifarRecord({7}, 99));
  auto train = CIFAR10::Create(dir, true);
  ASSERT_TRUE(train.ok()) << train.status();
  EXPECT_EQ((*train)->size(), 10);
  EXPECT_THAT((*train)->label().ToVector<int>(), ElementsAre(1, 6, 2, 7, 3, 8, 4, 9, 5, 0));
  Sample s = (*train)->at(3);  // batch 2, second record: seed 20
  EXPECT_EQ(s[0].shape(), (Shape{32, 32, 3}));
  EXPECT_EQ(s[0].dtype(), DType::kUint8);
  EXPECT_EQ(s[1].dtype(), DType::kInt32);
  const std::vector<int> px = s[0].ToVector<int>();
  // HWC: (y=5, x=7, c=2) = 20 + 6 + 5 + 14.
  EXPECT_EQ(px[(5 * 32 + 7) * 3 + 2], 45);
  EXPECT_EQ(px[(31 * 32 + 31) * 3 + 0], (20 + 31 + 62) & 255);
  auto test = CIFAR10::Create(dir, false);
  ASSERT_TRUE(test.ok());
  EXPECT_EQ((*test)->size(), 1);
  EXPECT_EQ((*test)->at(0)[1].asscalar<int>(), 7);
}

TEST(CifarTest, Cifar100FineAndCoarse) {
  const std::string dir = TempDir("cifar100");
  WriteFile(dir + "/train.bin", CifarRecord({3, 77}, 1) + CifarRecord({19, 5}, 2));
  auto coarse = CIFAR100::Create(dir, /*fine_label=*/false, true);
  ASSERT_TRUE(coarse.ok()) << coarse.status();
  EXPECT_THAT((*coarse)->label().ToVector<int>(), ElementsAre(3, 19));
  auto fine = CIFAR100::Create(dir, /*fine_label=*/true, true);
  ASSERT_TRUE(fine.ok());
  EXPECT_THAT((*fine)->label().ToVector<int>(), ElementsAre(77, 5));
  EXPECT_EQ((*fine)->at(1)[0].ToVector<int>()[0], 2);
}

TEST(CifarTest, Errors) {
  const std::string dir = TempDir("cifar_bad");
  auto missing = CIFAR10::Create(dir, false);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("test_batch.bin"));
  WriteFile(dir + "/test_batch.bin", CifarRecord({1}, 0).substr(0, 3000));
  auto truncated = CIFAR10::Create(dir, false);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(truncated.status().message()),
              HasSubstr("test_batch.bin' has 3000 bytes, not a positive multiple of the 3073"));
  WriteFile(dir + "/test_batch.bin", CifarRecord({12}, 0));
  auto label = CIFAR10::Create(dir, false);
  ASSERT_FALSE(label.ok());
  EXPECT_THAT(std::string(label.status().message()), HasSubstr("label 12, outside [0, 10)"));
}

// ---------------------------------------------------------------- ImageFolderDataset

TEST(ImageFolderTest, ClassesFilesAndDecoding) {
  const std::string root = TempDir("folder");
  fs::create_directories(root + "/dog");
  fs::create_directories(root + "/cat");
  fs::create_directories(root + "/empty");
  fs::create_symlink(std::string(kImages) + "dog.jpg", root + "/dog/b.JPG");
  fs::create_symlink(std::string(kImages) + "cat.jpg", root + "/cat/z.jpg");
  fs::copy_file("gluon/data/vision/testdata/rgb8.png", root + "/cat/a.png");
  WriteFile(root + "/cat/notes.txt", "not an image");
  WriteFile(root + "/dog/broken.jpeg", "\xFF\xD8\xFF garbage");
  WriteFile(root + "/README", "top-level file");
  auto ds = ImageFolderDataset::Create(root);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_THAT((*ds)->synsets(), ElementsAre("cat", "dog", "empty"));
  ASSERT_EQ((*ds)->size(), 4);
  EXPECT_EQ((*ds)->items()[0].first, root + "/cat/a.png");
  EXPECT_EQ((*ds)->items()[1].first, root + "/cat/z.jpg");
  EXPECT_EQ((*ds)->items()[2].first, root + "/dog/b.JPG");
  EXPECT_EQ((*ds)->items()[3].first, root + "/dog/broken.jpeg");
  Sample cat = (*ds)->at(1);
  EXPECT_EQ(cat[0].shape(), (Shape{400, 500, 3}));
  EXPECT_EQ(cat[1].asscalar<int>(), 0);
  EXPECT_EQ(cat[1].dtype(), DType::kInt32);
  Sample dog = (*ds)->at(2);
  EXPECT_EQ(dog[0].shape(), (Shape{576, 1024, 3}));
  EXPECT_EQ(dog[1].asscalar<int>(), 1);
  try {
    (*ds)->at(3);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr(root + "/dog/broken.jpeg"));
    EXPECT_THAT(e.what(), HasSubstr("JPEG"));
  }
  auto gray = ImageFolderDataset::Create(root, 0);
  ASSERT_TRUE(gray.ok());
  EXPECT_EQ((*gray)->at(0)[0].shape(), (Shape{9, 13, 1}));
  // Through a DataLoader with a resize so images stack; the broken file surfaces by index.
  using namespace transforms;
  DataLoader loader((*ds)->transform_first(Resize({32, 24})), {.batch_size = 2, .num_workers = 2});
  auto it = loader.begin();
  EXPECT_EQ((*it)[0].shape(), (Shape{2, 24, 32, 3}));
  EXPECT_THAT((*it)[1].ToVector<int>(), ElementsAre(0, 0));
  try {
    ++it;
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("loading sample 3 (batch 1) failed"));
    EXPECT_THAT(e.what(), HasSubstr("broken.jpeg"));
  }
}

TEST(ImageFolderTest, Errors) {
  EXPECT_EQ(ImageFolderDataset::Create("/nonexistent/root").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ImageFolderDataset::Create(std::string(kImages) + "cat.jpg").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ImageFolderDataset::Create(TempDir("f2"), 3).ok());
}

TEST(DefaultRootTest, UsesMxnetHome) {
  setenv("MXNET_HOME", "/data/mx", 1);
  EXPECT_EQ(DefaultRoot("cifar10"), "/data/mx/datasets/cifar10");
  unsetenv("MXNET_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultRoot("mnist"), "/home/u/.mxnet/datasets/mnist");
}

}  // namespace
}  // namespace mxnet::gluon::data::vision
