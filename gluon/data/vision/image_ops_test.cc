// Tests of _cvimdecode / _cvimread (image_ops.cc) against real MXNet 1.9.1
// (testdata/cvimdecode.json, tools/conformance/refs_image_decode.py): the real photos of
// ../shared/data/images ($MXNET_SHARED_DIR, else /work/shared; skipped when absent), small PNGs
// (lossless: exact), errors, registry entries.
#include "gluon/data/vision/image_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gluon/data/vision/image.h"
#include "ndarray/op.h"

namespace mxnet::gluon::data::vision {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const char kTestdata[] = "gluon/data/vision/testdata/";

// Largest |ours - MXNet| of a JPEG pixel, measured over every pixel of the three photos (colour
// and grayscale, 5.1 million values): 0 -- Debian's libjpeg-turbo and the one in MXNet 1.9.1's
// OpenCV 3.4.2 build decode them bit for bit. Another libjpeg version may round its IDCT
// differently (typically +-1-2 levels); then this bound and the exact sums below need widening.
constexpr int kJpegTolerance = 0;

const nlohmann::json& Refs() {
  static const nlohmann::json* refs = [] {
    std::ifstream f(std::string(kTestdata) + "cvimdecode.json");
    return new nlohmann::json(nlohmann::json::parse(f));
  }();
  return *refs;
}

// The photo directory with a trailing '/', or "" if there is none.
std::string Images() {
  for (const char* base :
       std::initializer_list<const char*>{std::getenv("MXNET_SHARED_DIR"), "/work/shared"}) {
    if (base == nullptr) continue;
    const fs::path p = fs::path(base) / "data" / "images";
    if (fs::is_directory(p)) return p.string() + "/";
  }
  return "";
}

NDArray BytesArray(const std::string& path) {
  absl::StatusOr<std::string> b = ReadFileBytes(path);
  EXPECT_TRUE(b.ok()) << b.status();
  std::vector<uint8_t> v(b->begin(), b->end());
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::kUint8);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class CvPhotoTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CvPhotoTest, DecodeAndReadMatchMXNet) {
  const std::string dir = Images();
  if (dir.empty()) GTEST_SKIP() << "../shared/data/images not found (set MXNET_SHARED_DIR)";
  const std::string name = GetParam();
  const nlohmann::json& ref = Refs()["photos"][name];
  const NDArray buf = BytesArray(dir + name);
  const NDArray color = cvimdecode(buf), gray = cvimdecode(buf, 0);
  const Shape shape(ref["shape"].get<std::vector<int64_t>>());
  ASSERT_EQ(color.shape(), shape);
  ASSERT_EQ(gray.shape(), (Shape{shape[0], shape[1], 1}));
  EXPECT_EQ(color.dtype(), DType::kUint8);
  const std::vector<int> c = color.ToVector<int>(), g = gray.ToVector<int>();
  const int64_t w = shape[1];
  int max_diff = 0;
  size_t k = 0;
  for (int y : ref["ys"]) {
    for (int x : ref["xs"]) {
      for (int ch = 0; ch < 3; ++ch)
        max_diff = std::max(
            max_diff, std::abs(c[(y * w + x) * 3 + ch] - ref["color"][k * 3 + ch].get<int>()));
      max_diff = std::max(max_diff, std::abs(g[y * w + x] - ref["gray"][k].get<int>()));
      ++k;
    }
  }
  EXPECT_LE(max_diff, kJpegTolerance);
  // Whole-image sums per channel: equal to MXNet's (every pixel is, see kJpegTolerance).
  std::vector<int64_t> sum(3, 0);
  int64_t gsum = 0;
  for (size_t p = 0; p < g.size(); ++p) {
    for (int ch = 0; ch < 3; ++ch) sum[ch] += c[p * 3 + ch];
    gsum += g[p];
  }
  for (int ch = 0; ch < 3; ++ch) EXPECT_EQ(sum[ch], ref["color_sum"][ch].get<int64_t>()) << ch;
  EXPECT_EQ(gsum, ref["gray_sum"].get<int64_t>());
  // BGR on request; _cvimread gives the same pixels as _cvimdecode.
  const std::vector<int> bgr = cvimdecode(buf, 1, false).ToVector<int>();
  for (size_t p = 0; p < g.size(); p += 997) {
    EXPECT_EQ(bgr[p * 3], c[p * 3 + 2]);
    EXPECT_EQ(bgr[p * 3 + 2], c[p * 3]);
  }
  EXPECT_EQ(cvimread(dir + name).ToVector<int>(), c);
  EXPECT_EQ(cvimread(dir + name, 0).shape(), gray.shape());
}

INSTANTIATE_TEST_SUITE_P(Photos, CvPhotoTest,
                         ::testing::Values("cat.jpg", "dog.jpg", "plane-draw.jpeg"));

TEST(CvImdecode, PngsAreExact) {
  for (const auto& [name, ref] : Refs()["pngs"].items()) {
    SCOPED_TRACE(name);
    const NDArray buf = BytesArray(kTestdata + name);
    const Shape shape(ref["shape"].get<std::vector<int64_t>>());
    const NDArray color = cvimdecode(buf);
    EXPECT_EQ(color.shape(), shape);
    EXPECT_EQ(color.ToVector<int>(), ref["color"].get<std::vector<int>>());
    EXPECT_EQ(cvimdecode(buf, 0).ToVector<int>(), ref["gray"].get<std::vector<int>>());
    EXPECT_EQ(cvimdecode(buf, 1, false).ToVector<int>(), ref["bgr"].get<std::vector<int>>());
    // By name with string attributes, as the C ABI calls it.
    NDArrayVec o = Invoke("_npi_cvimdecode", std::vector<NDArray>{buf}, {{"flag", "0"}});
    EXPECT_EQ(o[0].shape(), (Shape{shape[0], shape[1], 1}));
  }
}

TEST(CvImdecode, RejectsWhatMXNetRejects) {
  for (const auto& e : Refs()["errors"]) ASSERT_FALSE(e["message"].is_null()) << e["what"];
  std::vector<uint8_t> junk(64);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<uint8_t>(i % 7);
  NDArray j = NDArray::FromVector(junk, Shape{64}, cpu(), DType::kUint8);
  EXPECT_THAT(ErrorOf([&] { cvimdecode(j); }), HasSubstr("_cvimdecode"));
  EXPECT_THAT(ErrorOf([&] { cvimdecode(j); }), HasSubstr("unknown image format"));
  NDArray f = NDArray::FromVector(std::vector<float>(8, 1.0f), Shape{8}, cpu(), DType::kFloat32);
  EXPECT_THAT(ErrorOf([&] { cvimdecode(f); }), HasSubstr("uint8"));
  NDArray empty = NDArray::FromVector(std::vector<uint8_t>{}, Shape{0}, cpu(), DType::kUint8);
  EXPECT_THAT(ErrorOf([&] { cvimdecode(empty); }), HasSubstr("empty"));
  EXPECT_THAT(ErrorOf([] { cvimread("/nonexistent/dir/x.jpg"); }),
              HasSubstr("/nonexistent/dir/x.jpg"));
  EXPECT_THAT(ErrorOf([&] { cvimdecode(j, 2); }), HasSubstr("flag"));
  // A truncated JPEG: the header gives the size, the decoder the error.
  const std::string dir = Images();
  if (!dir.empty()) {
    std::vector<uint8_t> cut = BytesArray(dir + "cat.jpg").ToVector<uint8_t>();
    cut.resize(cut.size() / 2);
    NDArray t =
        NDArray::FromVector(cut, Shape{static_cast<int64_t>(cut.size())}, cpu(), DType::kUint8);
    EXPECT_THAT(ErrorOf([&] { cvimdecode(t); }), HasSubstr("_cvimdecode"));
  }
}

TEST(CvImdecode, Registry) {
  const Op& dec = OpRegistry::Get("_cvimdecode");
  EXPECT_EQ(&OpRegistry::Get("_npi_cvimdecode"), &dec);
  EXPECT_EQ(&OpRegistry::Get("_npi_cvimread"), &OpRegistry::Get("_cvimread"));
  EXPECT_TRUE(dec.non_differentiable);
  EXPECT_TRUE(dec.has_dynamic_output_shape());
  const Op& rd = OpRegistry::Get("_cvimread");
  OpAttrs a = OpAttrs::Parse(rd, {{"filename", "x.png"}, {"flag", "0"}, {"to_rgb", "False"}});
  EXPECT_EQ(OpAttrs::Parse(rd, a.ToDict()).ToDict(), a.ToDict());
  EXPECT_EQ(rd.NumInputs(a), 0);
  EXPECT_FALSE(ErrorOf([&] { OpAttrs::Parse(rd, {}); }).empty()) << "filename is required";
  // MXNet 1.9.1's legacy _imdecode cannot decode real files (see image_ops.h): not registered.
  EXPECT_EQ(OpRegistry::Find("_imdecode"), nullptr);
}

}  // namespace
}  // namespace mxnet::gluon::data::vision
