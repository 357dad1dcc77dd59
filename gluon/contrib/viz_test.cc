#include "gluon/contrib/viz.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "ndarray/nd.h"

namespace mxnet::viz {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp") + "/" + name;
}

// The nodes and edges of a DOT digraph as plot_network writes them (statements `id [k=v ...]`
// and `a -> b [k=v ...]`; ids and values bare or double-quoted; "\n" in quotes is a newline).
struct Dot {
  std::map<std::string, std::map<std::string, std::string>> nodes;
  std::vector<std::pair<std::pair<std::string, std::string>, std::map<std::string, std::string>>>
      edges;
};

Dot ParseDot(const std::string& text) {
  std::vector<std::string> tok;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          s += text[i] == 'n' ? '\n' : text[i];
        } else {
          s += text[i];
        }
      }
      ++i;
      tok.push_back("\x01" + s);  // marks a quoted string
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      tok.push_back("->");
      i += 2;
    } else if (std::string("{}[]=;").find(c) != std::string::npos) {
      tok.push_back(std::string(1, c));
      ++i;
    } else {
      std::string s;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
             std::string("{}[]=;\"").find(text[i]) == std::string::npos)
        s += text[i++];
      tok.push_back("\x01" + s);
    }
  }
  Dot d;
  size_t i = 0;
  auto val = [&](size_t k) { return tok[k].substr(1); };
  while (i < tok.size() && tok[i] != "{") ++i;
  ++i;
  auto attrs = [&]() {
    std::map<std::string, std::string> a;
    if (i < tok.size() && tok[i] == "[") {
      for (++i; tok[i] != "]"; i += 3) a[val(i)] = val(i + 2);
      ++i;
    }
    return a;
  };
  while (i < tok.size() && tok[i] != "}") {
    std::string id = val(i++);
    if (tok[i] == "->") {
      std::string to = val(i + 1);
      i += 2;
      d.edges.push_back({{id, to}, attrs()});
    } else {
      d.nodes[id] = attrs();
    }
  }
  return d;
}

// MXNet 1.9.1's mx.viz.plot_network of a Gluon net it exported (gen_tensorboard_refs.py):
// our DOT of the same -symbol.json has the same nodes with the same labels, colours and shapes,
// and the same edges with the same shape labels.
TEST(PlotNetwork, MatchesMxnetOnItsExport) {
  auto sym = sym::Symbol::load("gluon/contrib/testdata/viz_net-symbol.json");
  ASSERT_TRUE(sym.ok()) << sym.status();
  PlotOptions o;
  o.shape = {{"data", Shape{1, 2, 9, 9}}};
  o.show_params = false;
  auto ours = plot_network(*sym, o);
  ASSERT_TRUE(ours.ok()) << ours.status();
  Dot a = ParseDot(*ours), b = ParseDot(ReadFile("gluon/contrib/testdata/viz_net_mxnet.dot"));
  ASSERT_EQ(b.nodes.size(), 10u);  // data + 9 ops; weights hidden
  EXPECT_EQ(a.nodes, b.nodes) << *ours;
  EXPECT_EQ(a.edges, b.edges) << *ours;
}

// Our own traced graph, checked by hand: Dense(4, relu) on (1, 3) -> 3*4 + 4 = 16 parameters,
// Dense(2) -> 4*2 + 2 = 10; edges carry the shape without the batch axis.
TEST(PlotNetwork, TracedNetByHand) {
  auto net = std::make_shared<gluon::nn::HybridSequential>();
  net->add({std::make_shared<gluon::nn::Dense>(4, gluon::nn::DenseOptions{.activation = "relu"}),
            std::make_shared<gluon::nn::Dense>(2)});
  net->initialize();
  auto graph = TraceBlock(*net, {Shape{1, 3}});
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_FALSE(net->is_hybridized());  // turned back off
  PlotOptions o;
  o.shape = GraphInputShapes(*net, {Shape{1, 3}});
  auto dot = plot_network(*graph, o);
  ASSERT_TRUE(dot.ok()) << dot.status();
  Dot d = ParseDot(*dot);
  ASSERT_EQ(d.nodes.size(), 4u) << *dot;  // data, FC, relu, FC
  ASSERT_EQ(d.edges.size(), 3u) << *dot;
  std::vector<std::string> labels;
  for (const auto& [name, attrs] : d.nodes) labels.push_back(attrs.at("label"));
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"Activation\nrelu", "FullyConnected\n2\n10 params",
                                              "FullyConnected\n4\n16 params", "data"}))
      << *dot;
  EXPECT_EQ(d.nodes.at("data").at("shape"), "oval");
  EXPECT_EQ(d.nodes.at("data").at("width"), "1.6");  // room for the parameter line
  EXPECT_EQ(d.nodes.at("data").at("height"), "1.0");
  EXPECT_EQ(d.nodes.at("data").at("fillcolor"), "#8dd3c7");
  std::map<std::string, std::string> edge_label;  // consumer's label -> its input's shape
  for (const auto& [e, attrs] : d.edges) {
    EXPECT_EQ(attrs.at("dir"), "back");
    edge_label[d.nodes.at(e.first).at("label")] = attrs.at("label");
  }
  EXPECT_EQ(edge_label.at("FullyConnected\n4\n16 params"), "3");
  EXPECT_EQ(edge_label.at("Activation\nrelu"), "4");
  EXPECT_EQ(edge_label.at("FullyConnected\n2\n10 params"), "4");
  for (const auto& [name, attrs] : d.nodes)
    if (attrs.at("label").starts_with("FullyConnected")) {
      EXPECT_EQ(attrs.at("fillcolor"), "#fb8072");
      EXPECT_EQ(attrs.at("shape"), "box");
    }
  // Without shapes: no edge labels; hide_weights=false shows the parameters as ovals.
  o.shape.clear();
  o.hide_weights = false;
  dot = plot_network(*graph, o);
  ASSERT_TRUE(dot.ok());
  d = ParseDot(*dot);
  EXPECT_EQ(d.nodes.size(), 8u);
  EXPECT_EQ(d.edges.size(), 7u);
  for (const auto& [e, attrs] : d.edges) EXPECT_EQ(attrs.at("label"), "");
}

// ---- print_summary: byte-identical to MXNet 1.9.1's mx.viz.print_summary
// (testdata/print_summary, gen_print_summary_refs.py). ----

std::map<std::string, Shape> ShapesFromJson(const std::string& path) {
  std::map<std::string, Shape> out;
  const nlohmann::json j = nlohmann::json::parse(ReadFile(path));
  for (auto it = j.begin(); it != j.end(); ++it)
    out[it.key()] = Shape(it.value().get<std::vector<int64_t>>());
  return out;
}

void ExpectSummaryMatches(const std::string& symbol_file, const std::string& ref,
                          const std::string& shape_file) {
  auto graph = sym::Symbol::load(symbol_file);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::map<std::string, Shape> shape;
  if (!shape_file.empty()) shape = ShapesFromJson(shape_file);
  auto ours = print_summary(*graph, shape);
  ASSERT_TRUE(ours.ok()) << ours.status();
  const std::string want = ReadFile(ref);
  ASSERT_FALSE(want.empty()) << ref;
  EXPECT_EQ(*ours, want) << "ours:\n" << *ours;
}

const char* kSummaryDir = "gluon/contrib/testdata/print_summary/";

// Every branch: biased, bias-free and grouped convolutions, BatchNorm, both FullyConnected forms
// (MXNet counts dim 1 of a 4-D input: (8 + 1) * 10 = 90 for fc1), Embedding (50 * 4 = 200),
// two-input nodes, a multi-output SliceChannel (no shape), a variable that is not a head.
TEST(PrintSummary, SyntheticMatchesMxnet) {
  const std::string d = kSummaryDir;
  ExpectSummaryMatches(d + "synthetic-symbol.json", d + "synthetic.txt", d + "synthetic.shape");
}

TEST(PrintSummary, WithoutShapesMatchesMxnet) {
  const std::string d = kSummaryDir;
  ExpectSummaryMatches(d + "synthetic-symbol.json", d + "synthetic_noshape.txt", "");
}

TEST(PrintSummary, MobileNetExportMatchesMxnet) {
  const std::string d = kSummaryDir;
  ExpectSummaryMatches(d + "mobilenetv2_0.25-symbol.json", d + "mobilenetv2_0.25.txt",
                       d + "mobilenetv2_0.25.shape");
}

// The real GluonCV CIFAR ResNet-20 export (MXNet-written): 272,474 parameters as MXNet counts.
TEST(PrintSummary, RealCifarExportMatchesMxnet) {
  const char* shared = std::getenv("MXNET_SHARED_DIR");
  if (!shared) GTEST_SKIP() << "MXNET_SHARED_DIR unset";
  const std::string d = kSummaryDir;
  ExpectSummaryMatches(std::string(shared) + "/data/models/cifar_resnet20_v1-symbol.json",
                       d + "cifar_resnet20_v1.txt", d + "cifar_resnet20_v1.shape");
  EXPECT_NE(ReadFile(d + "cifar_resnet20_v1.txt").find("Total params: 272474"), std::string::npos);
}

TEST(PrintSummary, IncompleteOrWrongShapesAreErrors) {
  auto graph = sym::Symbol::load(std::string(kSummaryDir) + "synthetic-symbol.json");
  ASSERT_TRUE(graph.ok());
  auto missing = print_summary(*graph, {{"data", Shape{2, 3, 8, 8}}});  // no "tokens"
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("Input shape is incomplete"), std::string::npos)
      << missing.status();
  auto wrong = print_summary(*graph, {{"data", Shape{2, 3, 8, 8}}, {"tokens", Shape{3, 5}}});
  EXPECT_FALSE(wrong.ok());  // batch 3 vs 2 at the final add
}

TEST(Render, DotRendersSvgAndPng) {
  const std::string dot =
      "digraph \"t\" {\n\t\"a.b\" [label=\"Conv\\n3x3\" shape=\"box\"]\n"
      "\t\"c\" -> \"a.b\" [label=\"4x4\" dir=\"back\"]\n}\n";
  const std::string svg = Tmp("net.svg"), png = Tmp("net.png"), txt = Tmp("net.dot");
  ASSERT_TRUE(render(dot, svg).ok()) << render(dot, svg);
  const std::string s = ReadFile(svg);
  EXPECT_NE(s.find("<svg"), std::string::npos);
  EXPECT_NE(s.find(">Conv</text>"), std::string::npos) << s;
  EXPECT_NE(s.find(">4x4</text>"), std::string::npos) << s;
  ASSERT_TRUE(render(dot, png).ok());
  EXPECT_EQ(ReadFile(png).substr(0, 8), "\x89PNG\r\n\x1a\n");
  ASSERT_TRUE(render(dot, txt).ok());
  EXPECT_EQ(ReadFile(txt), dot);
  // No temporary files left behind.
  for (const auto& e : fs::directory_iterator(fs::path(svg).parent_path()))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(Render, ClearErrors) {
  auto s = render("digraph {}", Tmp("net.jpeg"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown picture format '.jpeg' (use .svg, .png, .pdf, .dot or .gv)"),
            std::string::npos)
      << s;
  s = render("digraph {}", "/nonexistent-dir/net.svg");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("directory /nonexistent-dir does not exist"), std::string::npos) << s;
  s = render("digraph { a -> }", Tmp("bad.svg"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("syntax error"), std::string::npos) << s;
  EXPECT_FALSE(fs::exists(Tmp("bad.svg")));
}

}  // namespace
}  // namespace mxnet::viz
