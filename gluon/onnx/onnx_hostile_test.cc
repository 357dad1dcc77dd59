// Malformed and hostile ONNX files: every one gives a clear error (a Status naming what and
// where), never a crash; plus a mutation fuzzer over a valid model (the reader joins the fuzzers).
#include <filesystem>
#include <fstream>
#include <random>

#include "gluon/onnx/onnx.h"
#include "gluon/onnx/testing/cases.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace mxnet::gluon {
namespace {

namespace fs = std::filesystem;

std::string TmpDir(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  fs::path p = fs::path(dir ? dir : "/tmp") / name;
  fs::create_directories(p);
  return p.string();
}

// A small valid model: Conv + Relu + GlobalAveragePool + Flatten + Gemm.
::onnx::ModelProto Valid() {
  sym::Symbol x = sym::var("data");
  sym::Symbol c =
      sym::Symbol::Create("Convolution", {x}, {{"kernel", "(3, 3)"}, {"num_filter", "2"}}, "c");
  sym::Symbol r = sym::Symbol::Create("relu", {c});
  sym::Symbol g = sym::Symbol::Create(
      "Pooling", {r}, {{"global_pool", "True"}, {"kernel", "(1, 1)"}, {"pool_type", "avg"}});
  sym::Symbol f = sym::Symbol::Create("FullyConnected", {g}, {{"num_hidden", "3"}}, "fc");
  std::map<std::string, NDArray> p = {{"c_weight", onnx_testing::Lcg(Shape{2, 1, 3, 3}, 1)},
                                      {"c_bias", onnx_testing::Lcg(Shape{2}, 2)},
                                      {"fc_weight", onnx_testing::Lcg(Shape{3, 2}, 3)},
                                      {"fc_bias", onnx_testing::Lcg(Shape{3}, 4)}};
  auto bytes = export_onnx_to_string(f, p, {{"data", Shape{1, 1, 5, 5}}});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(*bytes));
  return m;
}

std::string Bytes(const ::onnx::ModelProto& m) { return m.SerializeAsString(); }

// imports_onnx_from_string must fail with a message containing every `needles`.
void ExpectError(const std::string& bytes, const std::vector<std::string>& needles,
                 const std::string& base_dir = "") {
  auto r = imports_onnx_from_string(bytes, base_dir);
  ASSERT_FALSE(r.ok()) << "accepted; wanted an error with '" << needles[0] << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  for (const auto& n : needles)
    EXPECT_NE(r.status().message().find(n), std::string::npos)
        << "error '" << r.status().message() << "' lacks '" << n << "'";
}

TEST(OnnxHostile, ValidModelLoads) {
  auto r = imports_onnx_from_string(Bytes(Valid()));
  ASSERT_TRUE(r.ok()) << r.status();
  NDArray y = (**r)(NDArray::Full(Shape{4, 1, 5, 5}, 0.5));
  EXPECT_EQ(y.shape(), (Shape{4, 3}));
}

TEST(OnnxHostile, TruncatedAndGarbage) {
  const std::string good = Bytes(Valid());
  ExpectError("this is not a protobuf at all \xff\xff\xff", {"ONNX"});
  ExpectError("", {"opset"});  // an empty message parses: no opset, no graph
  // Every truncation is refused (protobuf parse error, or a graph missing pieces).
  for (size_t n = 1; n < good.size(); n += std::max<size_t>(1, good.size() / 97)) {
    auto r = imports_onnx_from_string(good.substr(0, n));
    EXPECT_FALSE(r.ok()) << "truncated at " << n << " of " << good.size() << " was accepted";
  }
  EXPECT_EQ(imports_onnx("/nonexistent/model.onnx").status().code(), absl::StatusCode::kNotFound);
}

TEST(OnnxHostile, TensorDimsAndData) {
  ::onnx::ModelProto m = Valid();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->set_dims(0, int64_t{1} << 40);  // huge
  ExpectError(Bytes(m), {"initializer", w->name(), "too large"});
  m = Valid();
  m.mutable_graph()->mutable_initializer(0)->set_dims(0, -3);
  ExpectError(Bytes(m), {"negative dim"});
  m = Valid();
  m.mutable_graph()->mutable_initializer(0)->set_dims(0, 7);  // data has 2*1*3*3 values
  ExpectError(Bytes(m), {"raw_data", "need"});
  m = Valid();
  m.mutable_graph()->mutable_initializer(0)->set_data_type(8);  // STRING
  ExpectError(Bytes(m), {"element type"});
  m = Valid();
  auto* in = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type();
  in->mutable_shape()->mutable_dim(1)->set_dim_value(-5);
  ExpectError(Bytes(m), {"negative dim"});
}

TEST(OnnxHostile, GraphStructure) {
  // Unknown operator, named with its node.
  ::onnx::ModelProto m = Valid();
  m.mutable_graph()->mutable_node(1)->set_op_type("FancyUnknownOp");
  ExpectError(Bytes(m), {"unsupported ONNX operator 'FancyUnknownOp'", m.graph().node(1).name()});
  // A custom domain.
  m = Valid();
  m.mutable_graph()->mutable_node(1)->set_domain("com.example");
  ExpectError(Bytes(m), {"domain", "com.example"});
  // A cycle: node 0 reads node 1's output, which depends on node 0.
  m = Valid();
  m.mutable_graph()->mutable_node(0)->set_input(0, m.graph().node(1).output(0));
  ExpectError(Bytes(m), {"cycle"});
  // A dangling input.
  m = Valid();
  m.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  ExpectError(Bytes(m), {"'nowhere'", "not produced"});
  // The same tensor produced twice.
  m = Valid();
  m.mutable_graph()->mutable_node(1)->set_output(0, m.graph().node(0).output(0));
  ExpectError(Bytes(m), {"produced twice"});
  // Opset too new / too old.
  m = Valid();
  m.mutable_opset_import(0)->set_version(99);
  ExpectError(Bytes(m), {"opset 99"});
  // A wrongly typed attribute.
  m = Valid();
  for (auto& a : *m.mutable_graph()->mutable_node(0)->mutable_attribute())
    if (a.name() == "strides") a.set_type(::onnx::AttributeProto::FLOAT);
  ExpectError(Bytes(m), {"strides", "not a list of ints"});
  // A graph output nobody produces.
  m = Valid();
  m.mutable_graph()->mutable_output(0)->set_name("ghost");
  ExpectError(Bytes(m), {"'ghost'"});
  // Out-of-order nodes are fine (ONNX requires order; we sort).
  m = Valid();
  m.mutable_graph()->mutable_node()->SwapElements(0, 3);
  EXPECT_TRUE(imports_onnx_from_string(Bytes(m)).ok());
}

TEST(OnnxHostile, ExternalData) {
  const std::string dir = TmpDir("ext"), outside = TmpDir("outside");
  ::onnx::ModelProto m = Valid();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  const std::string raw = w->raw_data();
  {
    std::ofstream(dir + "/weights.bin", std::ios::binary) << std::string(16, 'x') << raw;
    std::ofstream(outside + "/secret.bin", std::ios::binary) << raw;
  }
  w->clear_raw_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto set = [&](const std::string& loc, const std::string& offset) {
    w->clear_external_data();
    auto* kv = w->add_external_data();
    kv->set_key("location");
    kv->set_value(loc);
    kv = w->add_external_data();
    kv->set_key("offset");
    kv->set_value(offset);
  };
  set("weights.bin", "16");
  const std::string model = dir + "/model.onnx";
  std::ofstream(model, std::ios::binary) << Bytes(m);
  auto ok = imports_onnx(model);
  ASSERT_TRUE(ok.ok()) << ok.status();
  // Escapes: parent directories, absolute paths, a symlink out of the directory.
  set("../outside/secret.bin", "0");
  ExpectError(Bytes(m), {"leaves the model's directory"}, dir);
  set(outside + "/secret.bin", "0");
  ExpectError(Bytes(m), {"relative"}, dir);
  std::error_code ec;
  fs::remove(dir + "/link.bin", ec);
  fs::create_symlink(outside + "/secret.bin", dir + "/link.bin", ec);
  ASSERT_FALSE(ec) << ec.message();
  set("link.bin", "0");
  ExpectError(Bytes(m), {"outside the model's directory"}, dir);
  // Past the end of the file, and without a directory (bytes in memory).
  set("weights.bin", "1000000");
  ExpectError(Bytes(m), {"fewer than offset"}, dir);
  set("weights.bin", "16");
  ExpectError(Bytes(m), {"needs the model's directory"});
}

// Random mutations of a valid model: each is refused with a Status or loads and runs (or throws
// mxnet::Error when run); nothing crashes.
TEST(OnnxHostile, MutationFuzz) {
  const std::string good = Bytes(Valid());
  std::mt19937_64 rng(20261128);
  int refused = 0, loaded = 0;
  for (int iter = 0; iter < 400; ++iter) {
    std::string b = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % b.size();
      switch (rng() % 4) {
        case 0:
          b[pos] = static_cast<char>(rng());
          break;
        case 1:
          b[pos] ^= static_cast<char>(1 << (rng() % 8));
          break;
        case 2:
          b.erase(pos, 1 + rng() % 8);
          break;
        default:
          b.insert(pos, std::string(1 + rng() % 4, static_cast<char>(rng())));
          break;
      }
      if (b.empty()) b = "x";
    }
    auto r = imports_onnx_from_string(b);
    if (!r.ok()) {
      ++refused;
      continue;
    }
    ++loaded;
    try {
      (**r)(NDArray::Full(Shape{2, 1, 5, 5}, 0.25));
    } catch (const Error&) {
    }
  }
  EXPECT_GT(refused, 0);
  std::printf("mutation fuzz: %d refused, %d loaded\n", refused, loaded);
}

}  // namespace
}  // namespace mxnet::gluon
