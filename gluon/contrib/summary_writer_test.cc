#include "gluon/contrib/summary_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "gluon/contrib/record_io.h"
#include "gluon/data/vision/image.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "ndarray/nd.h"

namespace mxnet::gluon::contrib {
namespace {

namespace fs = std::filesystem;

std::string TestDir(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(d ? d : "/tmp") + "/" + name;
  fs::remove_all(dir);
  return dir;
}

std::vector<tensorboard::Event> ReadEvents(const std::string& path) {
  auto recs = ReadRecords(path);
  EXPECT_TRUE(recs.ok()) << recs.status();
  std::vector<tensorboard::Event> out;
  if (!recs.ok()) return out;
  for (const auto& r : *recs) {
    tensorboard::Event e;
    EXPECT_TRUE(e.ParseFromString(r));
    out.push_back(e);
  }
  return out;
}

std::unique_ptr<SummaryWriter> MakeWriter(const std::string& dir, SummaryWriterOptions o = {}) {
  auto w = SummaryWriter::Create(dir, o);
  EXPECT_TRUE(w.ok()) << w.status();
  return w.ok() ? *std::move(w) : nullptr;
}

// Pixels of a PNG as (H, W, 3) RGB bytes, decoded by our libpng decoder.
std::vector<uint8_t> Rgb(const std::string& png) {
  auto a = data::vision::imdecode(png, 1);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? a->ToVector<uint8_t>() : std::vector<uint8_t>{};
}

// An event file written by tensorboardX's own SummaryWriter (gen_tensorboard_refs.py) and ours
// with the same calls must hold the same events: steps, tags, value kinds and values; images
// compared as decoded RGB pixels (tensorboardX stores gray images as RGB; PNG bytes differ
// between encoders). Wall times differ by nature.
TEST(SummaryWriter, MatchesTensorboardXFieldByField) {
  std::ifstream jf("gluon/contrib/testdata/tensorboardx_reference.json");
  ASSERT_TRUE(jf) << "missing testdata";
  nlohmann::json calls = nlohmann::json::parse(jf);
  const std::string dir = TestDir("tbx_compare");
  auto w = MakeWriter(dir);
  ASSERT_TRUE(w);
  for (const auto& s : calls["scalars"])
    ASSERT_TRUE(w->add_scalar(s[0], s[1].get<double>(), s[2].get<int64_t>()).ok());
  const auto& h = calls["histogram"];
  std::vector<double> hv = h["values"].get<std::vector<double>>();
  ASSERT_TRUE(
      w->add_histogram(h["tag"],
                       NDArray::FromVector(hv, Shape{int64_t(hv.size())}, cpu(), DType::kFloat64),
                       h["step"].get<int64_t>(), h["bins"].get<int64_t>())
          .ok());
  for (const auto& im : calls["images"]) {
    std::vector<uint8_t> px = im["values"].get<std::vector<uint8_t>>();
    Shape shape(im["shape"].get<std::vector<int64_t>>());
    ASSERT_TRUE(w->add_image(im["tag"], NDArray::FromVector(px, shape, cpu(), DType::kUint8),
                             im["step"].get<int64_t>())
                    .ok());
  }
  for (const auto& t : calls["texts"])
    ASSERT_TRUE(w->add_text(t[0], t[1].get<std::string>(), t[2].get<int64_t>()).ok());
  ASSERT_TRUE(w->close().ok());

  auto ours = ReadEvents(w->path());
  auto theirs = ReadEvents("gluon/contrib/testdata/tensorboardx_reference.tfevents");
  ASSERT_EQ(ours.size(), theirs.size());
  ASSERT_EQ(ours.size(), 1u + 3 + 1 + 2 + 1);
  EXPECT_EQ(ours[0].file_version(), "brain.Event:2");
  EXPECT_EQ(theirs[0].file_version(), "brain.Event:2");
  for (size_t i = 1; i < ours.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& a = ours[i];
    const auto& b = theirs[i];
    EXPECT_EQ(a.step(), b.step());
    EXPECT_GT(a.wall_time(), 1.6e9);
    ASSERT_EQ(a.summary().value_size(), 1);
    ASSERT_EQ(b.summary().value_size(), 1);
    const auto& va = a.summary().value(0);
    const auto& vb = b.summary().value(0);
    EXPECT_EQ(va.tag(), vb.tag());
    ASSERT_EQ(va.value_case(), vb.value_case());
    switch (va.value_case()) {
      case tensorboard::Summary::Value::kSimpleValue:
        EXPECT_EQ(va.simple_value(), vb.simple_value());
        break;
      case tensorboard::Summary::Value::kHisto: {
        const auto& x = va.histo();
        const auto& y = vb.histo();
        EXPECT_EQ(x.min(), y.min());
        EXPECT_EQ(x.max(), y.max());
        EXPECT_EQ(x.num(), y.num());
        EXPECT_NEAR(x.sum(), y.sum(), 1e-12 * std::abs(y.sum()));
        EXPECT_NEAR(x.sum_squares(), y.sum_squares(), 1e-12 * y.sum_squares());
        ASSERT_EQ(x.bucket_limit_size(), y.bucket_limit_size());
        for (int k = 0; k < x.bucket_limit_size(); ++k) {
          EXPECT_EQ(x.bucket_limit(k), y.bucket_limit(k)) << k;
          EXPECT_EQ(x.bucket(k), y.bucket(k)) << k;
        }
        break;
      }
      case tensorboard::Summary::Value::kImage: {
        EXPECT_EQ(va.image().height(), vb.image().height());
        EXPECT_EQ(va.image().width(), vb.image().width());
        // Ours keeps one channel for gray images; tensorboardX expands them to RGB.
        const int c = i == 5 ? 1 : 3;
        EXPECT_EQ(va.image().colorspace(), c);
        EXPECT_EQ(vb.image().colorspace(), 3);
        EXPECT_EQ(Rgb(va.image().encoded_image_string()), Rgb(vb.image().encoded_image_string()));
        break;
      }
      case tensorboard::Summary::Value::kTensor:
        EXPECT_EQ(va.metadata().plugin_data().plugin_name(),
                  vb.metadata().plugin_data().plugin_name());
        EXPECT_EQ(va.metadata().plugin_data().content(), vb.metadata().plugin_data().content());
        EXPECT_EQ(va.tensor().SerializeAsString(), vb.tensor().SerializeAsString());
        break;
      default:
        ADD_FAILURE() << "unexpected value kind " << va.value_case();
    }
  }
}

// Pixels of the reference images against the JSON values by hand: the gray image (1, 5, 4) and
// the RGB image (3, 2, 3) in CHW order, so tensorboardX's PNGs hold what the calls passed.
TEST(SummaryWriter, ImagePixelsAreTheInput) {
  const std::string dir = TestDir("img");
  auto w = MakeWriter(dir);
  std::vector<uint8_t> chw(18);
  for (int i = 0; i < 18; ++i) chw[i] = static_cast<uint8_t>((i * 41 + 7) % 256);
  ASSERT_TRUE(
      w->add_image("rgb", NDArray::FromVector(chw, Shape{3, 2, 3}, cpu(), DType::kUint8)).ok());
  // Floats in [0, 1] are scaled by 255 and rounded; out-of-range values clip.
  ASSERT_TRUE(
      w->add_image("f", NDArray::FromVector(std::vector<float>{0.f, 0.5f, 1.f, 2.f, -1.f, 0.2f},
                                            Shape{1, 2, 3}))
          .ok());
  // Two images of (1, 2, 2): a grid of 1 row, 2 columns with 2-pixel borders: 6 x 10.
  ASSERT_TRUE(w->add_image("grid", NDArray::FromVector(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8},
                                                       Shape{2, 1, 2, 2}, cpu(), DType::kUint8))
                  .ok());
  ASSERT_TRUE(w->close().ok());
  auto ev = ReadEvents(w->path());
  ASSERT_EQ(ev.size(), 4u);
  const auto& rgb = ev[1].summary().value(0).image();
  EXPECT_EQ(rgb.height(), 2);
  EXPECT_EQ(rgb.width(), 3);
  EXPECT_EQ(rgb.colorspace(), 3);
  std::vector<uint8_t> px = Rgb(rgb.encoded_image_string()), want;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 3; ++c) want.push_back(chw[(c * 2 + y) * 3 + x]);
  EXPECT_EQ(px, want);
  const auto& f = ev[2].summary().value(0).image();
  EXPECT_EQ(f.colorspace(), 1);
  auto g = data::vision::imdecode(f.encoded_image_string(), 0);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->ToVector<uint8_t>(), (std::vector<uint8_t>{0, 128, 255, 255, 0, 51}));
  const auto& grid = ev[3].summary().value(0).image();
  EXPECT_EQ(grid.height(), 2 + 2 + 2);
  EXPECT_EQ(grid.width(), 2 + 2 + 2 + 2 + 2);
  auto gp = data::vision::imdecode(grid.encoded_image_string(), 0);
  ASSERT_TRUE(gp.ok());
  std::vector<uint8_t> gv = gp->ToVector<uint8_t>();
  ASSERT_EQ(gv.size(), 60u);
  auto at = [&](int y, int x) { return gv[y * 10 + x]; };
  EXPECT_EQ(at(0, 0), 0);
  EXPECT_EQ(at(2, 2), 1);
  EXPECT_EQ(at(2, 3), 2);
  EXPECT_EQ(at(3, 3), 4);
  EXPECT_EQ(at(2, 6), 5);
  EXPECT_EQ(at(3, 7), 8);
  EXPECT_EQ(at(2, 4), 0);  // border between the two
}

// TensorFlow's default buckets by hand: limits grow by 10% from 1e-12 to 1e20 on each side of 0.
TEST(SummaryWriter, DefaultBucketsByHand) {
  const auto& L = DefaultBucketLimits();
  ASSERT_EQ(L.size(), 1551u);  // 774 positive limits below 1e20, DBL_MAX, mirrored, and 0
  EXPECT_EQ(L.front(), -DBL_MAX);
  EXPECT_EQ(L[775], 0.0);
  EXPECT_EQ(L[776], 1e-12);
  EXPECT_DOUBLE_EQ(L[777], 1.1e-12);
  EXPECT_EQ(L.back(), DBL_MAX);
  EXPECT_EQ(L[774], -1e-12);
  auto h = MakeHistogram({-1.0, 0.0, 0.0, 2.5});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->min(), -1.0);
  EXPECT_EQ(h->max(), 2.5);
  EXPECT_EQ(h->num(), 4);
  EXPECT_EQ(h->sum(), 1.5);
  EXPECT_EQ(h->sum_squares(), 7.25);
  // Empty runs collapse: (.., 0) (-1's bucket, 1) (0, 0) (1e-12, 2) (.., 0) (2.5's bucket, 1)
  // (DBL_MAX, 0).
  ASSERT_EQ(h->bucket_size(), 7);
  std::vector<double> counts(h->bucket().begin(), h->bucket().end());
  EXPECT_EQ(counts, (std::vector<double>{0, 1, 0, 2, 0, 1, 0}));
  EXPECT_LE(h->bucket_limit(0), -1.0);
  EXPECT_GT(h->bucket_limit(1), -1.0);
  EXPECT_NEAR(h->bucket_limit(0) / h->bucket_limit(1), 1.1, 1e-9);
  EXPECT_EQ(h->bucket_limit(2), 0.0);
  EXPECT_EQ(h->bucket_limit(3), 1e-12);
  EXPECT_LE(h->bucket_limit(4), 2.5);
  EXPECT_GT(h->bucket_limit(5), 2.5);
  EXPECT_NEAR(h->bucket_limit(5) / h->bucket_limit(4), 1.1, 1e-9);
  EXPECT_EQ(h->bucket_limit(6), DBL_MAX);
}

TEST(SummaryWriter, EqualWidthBinsByHand) {
  // numpy.histogram([0, 1, 1, 3], 3): edges 0, 1, 2, 3 -> counts 1, 2, 1 (3 in the last bin).
  auto h = MakeHistogram({0, 1, 1, 3}, 3);
  ASSERT_TRUE(h.ok());
  std::vector<double> lim(h->bucket_limit().begin(), h->bucket_limit().end());
  std::vector<double> cnt(h->bucket().begin(), h->bucket().end());
  EXPECT_EQ(lim, (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(cnt, (std::vector<double>{0, 1, 2, 1}));
  // All equal: the range becomes [v - 0.5, v + 0.5]; empty buckets at both ends are dropped.
  h = MakeHistogram({2, 2}, 4);
  ASSERT_TRUE(h.ok());
  lim.assign(h->bucket_limit().begin(), h->bucket_limit().end());
  cnt.assign(h->bucket().begin(), h->bucket().end());
  EXPECT_EQ(lim, (std::vector<double>{2.0, 2.25}));
  EXPECT_EQ(cnt, (std::vector<double>{0, 2}));
  EXPECT_EQ(MakeHistogram({}, 3).status().code(), absl::StatusCode::kInvalidArgument);
  auto nan = MakeHistogram({1.0, NAN}, 3);
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.status().message().find("element 1"), std::string::npos) << nan.status();
}

// Everything written parses back with our protos, framing CRCs check, and the file is named
// events.out.tfevents.<10 digits>.<host>.
TEST(SummaryWriter, WritesAllKindsAndGraph) {
  const std::string dir = TestDir("all") + "/nested/run";  // created with parents
  auto w = MakeWriter(dir, {.max_queue = 2});
  ASSERT_TRUE(w);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string fname = fs::path(w->path()).filename().string();
  EXPECT_TRUE(std::regex_match(fname, std::regex(R"(events\.out\.tfevents\.\d{10}\..+)"))) << fname;
  EXPECT_EQ(fname.substr(31), host);
  // The file-version event is on disk at once; then max_queue = 2 writes every second event.
  EXPECT_EQ(ReadEvents(w->path()).size(), 1u);
  ASSERT_TRUE(w->add_scalar("a", 1.5, 1).ok());
  EXPECT_EQ(ReadEvents(w->path()).size(), 1u);
  ASSERT_TRUE(w->add_scalar("a", 2.5, 2).ok());
  EXPECT_EQ(ReadEvents(w->path()).size(), 3u);

  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Conv2D>(3, Shape{3, 3}, nn::ConvOptions{.activation = "relu"}),
            std::make_shared<nn::Flatten>(), std::make_shared<nn::Dense>(2)});
  net->initialize();
  EXPECT_EQ(w->add_graph(*net).code(), absl::StatusCode::kFailedPrecondition);
  net->hybridize();
  (*net)(NDArray::Full(Shape{2, 1, 5, 5}, 0.5));
  ASSERT_TRUE(w->add_graph(*net, {Shape{2, 1, 5, 5}}).ok());
  ASSERT_TRUE(
      w->add_histogram("w", NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3}), 4).ok());
  ASSERT_TRUE(w->add_text("t", "x", 5).ok());
  ASSERT_TRUE(w->flush().ok());
  auto ev = ReadEvents(w->path());
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev[1].summary().value(0).simple_value(), 1.5f);
  EXPECT_EQ(ev[2].step(), 2);
  ASSERT_EQ(ev[3].what_case(), tensorboard::Event::kGraphDef);
  tensorboard::GraphDef g;
  ASSERT_TRUE(g.ParseFromString(ev[3].graph_def()));
  // data, conv weight/bias, Convolution, Activation (relu), Flatten, dense weight/bias, FC.
  std::map<std::string, const tensorboard::NodeDef*> by_op;
  for (const auto& n : g.node()) by_op[n.op()] = &n;
  ASSERT_TRUE(by_op.count("Convolution"));
  ASSERT_TRUE(by_op.count("FullyConnected"));
  const auto& conv = *by_op["Convolution"];
  EXPECT_EQ(conv.input_size(), 3);
  EXPECT_EQ(conv.input(0), "data");
  EXPECT_EQ(conv.attr().at("kernel").s(), "(3, 3)");
  EXPECT_EQ(conv.attr().at("num_filter").s(), "3");
  const auto& cs = conv.attr().at("_output_shapes").list().shape(0);
  ASSERT_EQ(cs.dim_size(), 4);
  EXPECT_EQ(cs.dim(0).size(), 2);
  EXPECT_EQ(cs.dim(1).size(), 3);
  EXPECT_EQ(cs.dim(2).size(), 3);
  EXPECT_EQ(cs.dim(3).size(), 3);
  const auto& fc = *by_op["FullyConnected"];
  const auto& fs2 = fc.attr().at("_output_shapes").list().shape(0);
  ASSERT_EQ(fs2.dim_size(), 2);
  EXPECT_EQ(fs2.dim(1).size(), 2);
  // Every input names a node of the graph.
  std::set<std::string> names;
  for (const auto& n : g.node()) names.insert(n.name());
  for (const auto& n : g.node())
    for (const auto& in : n.input()) EXPECT_TRUE(names.count(in.substr(0, in.find(':')))) << in;
  EXPECT_EQ(g.node_size(), 9);
  EXPECT_EQ(ev[4].summary().value(0).histo().num(), 3);
  EXPECT_EQ(ev[5].summary().value(0).tag(), "t/text_summary");
  ASSERT_TRUE(w->close().ok());
  ASSERT_TRUE(w->close().ok());
  EXPECT_EQ(w->add_scalar("a", 1, 3).code(), absl::StatusCode::kFailedPrecondition);
}

// Adds from several threads: every event arrives whole (the CRCs check), none is lost.
// flush_secs that has always passed writes each event at once.
TEST(SummaryWriter, ConcurrentAddsAndFlushSecs) {
  auto w = MakeWriter(TestDir("threads"), {.max_queue = 7});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) EXPECT_TRUE(w->add_scalar("t" + std::to_string(t), i, i).ok());
    });
  for (auto& th : threads) th.join();
  ASSERT_TRUE(w->close().ok());
  auto ev = ReadEvents(w->path());
  ASSERT_EQ(ev.size(), 201u);
  std::map<std::string, std::set<int64_t>> steps;
  for (size_t i = 1; i < ev.size(); ++i) {
    const auto& v = ev[i].summary().value(0);
    EXPECT_EQ(v.simple_value(), static_cast<float>(ev[i].step()));
    steps[v.tag()].insert(ev[i].step());
  }
  ASSERT_EQ(steps.size(), 4u);
  for (const auto& [tag, s] : steps) EXPECT_EQ(s.size(), 50u) << tag;

  auto quick = MakeWriter(TestDir("quick"), {.max_queue = 1000, .flush_secs = 1e-9});
  ASSERT_TRUE(quick->add_scalar("x", 1).ok());
  EXPECT_EQ(ReadEvents(quick->path()).size(), 2u);
  EXPECT_EQ(SummaryWriter::Create(TestDir("q2"), {.flush_secs = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SummaryWriter, ClearErrors) {
  EXPECT_EQ(SummaryWriter::Create("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SummaryWriter::Create(TestDir("q"), {.max_queue = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A logdir below a regular file cannot be created.
  const std::string file = TestDir("plainfile");
  std::ofstream(file) << "x";
  auto bad = SummaryWriter::Create(file + "/sub");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(bad.status().message().find(file), std::string::npos) << bad.status();

  auto w = MakeWriter(TestDir("errs"));
  EXPECT_EQ(w->add_scalar("", 1).code(), absl::StatusCode::kInvalidArgument);
  auto s = w->add_image("im", NDArray::Full(Shape{2, 4, 4}, 0.5));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("2 channels"), std::string::npos) << s;
  s = w->add_image("im", NDArray::Full(Shape{1, 1, 3, 4, 4}, 0.5));
  EXPECT_NE(s.message().find("bad rank"), std::string::npos) << s;
  s = w->add_image("im", NDArray::Full(Shape{1, 4, 4}, 1, cpu(), DType::kInt32));
  EXPECT_NE(s.message().find("unsupported dtype"), std::string::npos) << s;
  s = w->add_histogram("h", NDArray::FromVector(std::vector<float>{1, INFINITY}, Shape{2}));
  EXPECT_NE(s.message().find("add_histogram(h): histogram values must be finite; element 1"),
            std::string::npos)
      << s;
  EXPECT_EQ(w->add_histogram("h", NDArray::Full(Shape{0}, 0)).code(),
            absl::StatusCode::kInvalidArgument);
  // Two writers in the same second get different files.
  auto w2 = MakeWriter(w->get_logdir());
  auto w3 = MakeWriter(w->get_logdir());
  EXPECT_NE(w->path(), w2->path());
  EXPECT_NE(w2->path(), w3->path());
  EXPECT_TRUE(fs::exists(w->path()) && fs::exists(w2->path()) && fs::exists(w3->path()));
}

}  // namespace
}  // namespace mxnet::gluon::contrib
