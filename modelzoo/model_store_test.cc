// The offline model store: MXNet's SHA-1 table, file naming, root resolution, the errors for a
// missing or corrupt file, and loading a verified file.
#include "modelzoo/model_store.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "modelzoo/testing/test_util.h"

namespace mxnet::gluon::model_zoo {
namespace {

namespace fs = std::filesystem;

// sha1sum of testdata/load/resnet_v2b_tiny.params (written by gen_modelzoo_refs.py).
constexpr char kTinySha1[] = "b58972aedfb35986ea246afdd6caa3a454d58300";
constexpr char kTinyParams[] = "modelzoo/testdata/load/resnet_v2b_tiny.params";

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

TEST(Sha1, KnownVectors) {
  // FIPS 180-2 examples.
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1_hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  auto f = sha1_file(kTinyParams);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(*f, kTinySha1);
  EXPECT_EQ(sha1_file("/nonexistent/x.params").status().code(), absl::StatusCode::kNotFound);
}

TEST(Table, MatchesMxnet) {
  const auto& table = model_sha1_table();
  EXPECT_EQ(table.size(), 34u);
  std::vector<std::string> names;
  for (const auto& [n, h] : table) {
    names.push_back(n);
    EXPECT_EQ(h.size(), 40u) << n;
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << n;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, vision::model_names());  // every get_model name has pretrained weights
  // docs/formats.md §5.
  EXPECT_EQ(*short_hash("resnet18_v1"), "a0666292");
  EXPECT_EQ(*short_hash("resnet50_v1"), "0aee57f9");
  EXPECT_EQ(*short_hash("mobilenet1.0"), "6b8c5106");
  EXPECT_EQ(*short_hash("vgg16"), "e660d456");
  EXPECT_EQ(*short_hash("alexnet"), "44335d1f");
  auto bad = short_hash("resnet19_v1");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(bad.status().message(), "Pretrained model for resnet19_v1 is not available.");
}

class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    const char* v = std::getenv(name);
    had_ = v != nullptr;
    if (had_) old_ = v;
  }
  ~EnvGuard() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_;
  std::string old_;
};

TEST(Root, MxnetHomeAndHome) {
  EnvGuard g1("MXNET_HOME"), g2("HOME");
  setenv("HOME", "/home/someone", 1);
  unsetenv("MXNET_HOME");
  EXPECT_EQ(default_root(), "/home/someone/.mxnet/models");
  setenv("MXNET_HOME", "/data/mx", 1);
  EXPECT_EQ(default_root(), "/data/mx/models");
  // A missing file under the default root names that directory.
  auto r = get_model_file("alexnet");
  EXPECT_NE(std::string(r.status().message()).find("'/data/mx/models'"), std::string::npos)
      << r.status();
  // ~ in an explicit root is expanded.
  auto t = get_model_file("alexnet", "~/zoo");
  EXPECT_NE(std::string(t.status().message()).find("'/home/someone/zoo'"), std::string::npos)
      << t.status();
}

TEST(GetModelFile, MissingFileNamesFileDirectoryAndUrl) {
  EnvGuard g("MXNET_GLUON_REPO");
  unsetenv("MXNET_GLUON_REPO");
  std::string root = testing::MakeTempDir("store_missing");
  auto r = get_model_file("resnet18_v1", root);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  std::string msg(r.status().message());
  EXPECT_NE(msg.find("'resnet18_v1-a0666292.params'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'" + root + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/models/"
                     "resnet18_v1-a0666292.zip"),
            std::string::npos)
      << msg;
  setenv("MXNET_GLUON_REPO", "http://mirror.example/mx", 1);
  EXPECT_EQ(internal::DownloadUrl("vgg16-e660d456"),
            "http://mirror.example/mx/gluon/models/vgg16-e660d456.zip");
}

TEST(GetModelFile, ChecksumMismatchIsAnError) {
  std::string root = testing::MakeTempDir("store_corrupt");
  WriteFile(root + "/mobilenet1.0-6b8c5106.params", "not the published weights");
  auto r = get_model_file("mobilenet1.0", root);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  std::string msg(r.status().message());
  EXPECT_NE(msg.find(sha1_hex("not the published weights")), std::string::npos) << msg;
  EXPECT_NE(msg.find("6b8c5106c730e8750bcd82ceb75220a3351157cd"), std::string::npos) << msg;
}

TEST(GetModelFile, VerifiedFileLoads) {
  std::string root = testing::MakeTempDir("store_ok");
  fs::copy_file(kTinyParams, root + "/tiny-" + std::string(kTinySha1).substr(0, 8) + ".params");
  auto path = internal::FindVerifiedFile("tiny", kTinySha1, root);
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, root + "/tiny-b58972ae.params");
  vision::ResNetV2 net(vision::residual_block<vision::BasicBlockV2>(), {2, 1}, {8, 8, 16}, 10,
                       true);
  EXPECT_TRUE(net.load_parameters(*path).ok());
  // One flipped byte fails verification.
  std::string bytes;
  {
    std::ifstream f(*path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  bytes[bytes.size() / 2] ^= 1;
  WriteFile(*path, bytes);
  EXPECT_EQ(internal::FindVerifiedFile("tiny", kTinySha1, root).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(Pretrained, FactoriesNeverFallBackToRandomWeights) {
  std::string root = testing::MakeTempDir("store_factories");
  for (const std::string name : {"resnet18_v1", "vgg11_bn", "squeezenet1.1", "mobilenet0.5",
                                 "mobilenetv2_0.25", "inceptionv3", "densenet121", "alexnet"}) {
    try {
      vision::get_model(name, {.pretrained = true, .root = root});
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), absl::StatusCode::kNotFound) << name;
      std::string expected_file = name + "-" + *short_hash(name) + ".params";
      EXPECT_NE(std::string(e.what()).find(expected_file), std::string::npos) << e.what();
    }
  }
  WriteFile(root + "/squeezenet1.0-264ba497.params", "corrupt");
  try {
    vision::squeezenet1_0({.pretrained = true, .root = root});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kDataLoss) << e.what();
  }
}

TEST(Purge, RemovesParamsFilesOnly) {
  std::string root = testing::MakeTempDir("store_purge");
  WriteFile(root + "/a-12345678.params", "x");
  WriteFile(root + "/keep.txt", "y");
  EXPECT_TRUE(purge(root).ok());
  EXPECT_FALSE(fs::exists(root + "/a-12345678.params"));
  EXPECT_TRUE(fs::exists(root + "/keep.txt"));
  EXPECT_TRUE(purge(root + "/does-not-exist").ok());
}

}  // namespace
}  // namespace mxnet::gluon::model_zoo
