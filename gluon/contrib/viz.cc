#include "gluon/contrib/viz.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "autograd/autograd.h"
#include "base/error.h"
#include "base/strings.h"

extern char** environ;

namespace mxnet::viz {
namespace {

// MXNet's palette (plot_network's `cm`).
constexpr const char* kInput = "#8dd3c7";
constexpr const char* kConvFc = "#fb8072";
constexpr const char* kAct = "#ffffb3";
constexpr const char* kBatchNorm = "#bebada";
constexpr const char* kPool = "#80b1d3";
constexpr const char* kReshape = "#fdb462";
constexpr const char* kSoftmax = "#b3de69";
constexpr const char* kOther = "#fccde5";

bool LooksLikeWeight(const std::string& name) {
  for (const char* s : {"weight", "bias", "beta", "gamma", "moving_var", "moving_mean",
                        "running_var", "running_mean"}) {
    const std::string suffix(s);
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      const char sep = name[name.size() - suffix.size() - 1];
      if (sep == '_' || sep == '.') return true;
    }
  }
  return false;
}

// The digits of a tuple attribute joined by 'x' ("(3, 3)" -> "3x3"), like MXNet's _str2tuple.
std::string Tuple(const std::string& text) {
  std::string out, cur;
  for (char c : text + ' ') {
    if (c >= '0' && c <= '9') {
      cur += c;
    } else if (!cur.empty()) {
      out += (out.empty() ? "" : "x") + cur;
      cur.clear();
    }
  }
  return out;
}

std::string Get(const AttrDict& d, const std::string& key, const std::string& fallback) {
  auto it = d.find(key);
  return it == d.end() ? fallback : it->second;
}

// A DOT double-quoted string; "\n" in `s` becomes a centered line break.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

std::string ShapeLabel(const Shape& s) {
  if (!s.ndim_known()) return "?";
  std::string out;
  for (int i = 1; i < s.ndim(); ++i)
    StrAppend(&out, i > 1 ? "x" : "", s[i] < 0 ? "?" : StrCat(s[i]));
  return out;
}

std::string WithCommas(int64_t n) {
  std::string d = StrCat(n), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

}  // namespace

absl::StatusOr<std::map<std::pair<const sym::Node*, int>, Shape>> EntryShapes(
    const sym::Symbol& graph, const std::map<std::string, Shape>& known) {
  std::map<std::pair<const sym::Node*, int>, Shape> out;
  sym::Symbol internals = graph.get_internals();
  sym::InferResult<Shape> res;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { res = internals.infer_shape_partial(known); }));
  const auto& entries = internals.outputs();
  for (size_t i = 0; i < entries.size() && i < res.out.size(); ++i)
    out[{entries[i].node.get(), entries[i].index}] = res.out[i];
  return out;
}

absl::StatusOr<std::string> print_summary(const sym::Symbol& graph,
                                          const std::map<std::string, Shape>& shape,
                                          const SummaryOptions& options) {
  const bool show_shape = !shape.empty();
  std::map<std::string, Shape> shape_dict;  // internals' output names -> shapes
  if (show_shape) {
    sym::Symbol internals = graph.get_internals();
    sym::InferResult<Shape> res;
    MX_RETURN_IF_ERROR(StatusFromCall([&] { res = internals.infer_shape_partial(shape); }));
    const std::vector<std::string> names = internals.list_outputs();
    for (size_t i = 0; i < names.size() && i < res.out.size(); ++i) {
      if (!res.out[i].is_known())
        return absl::InvalidArgumentError(
            StrCat("Input shape is incomplete: the shape of ", names[i], " stays unknown"));
      shape_dict[names[i]] = res.out[i];
    }
  }
  // Column ends: fractions of the line length (truncated like Python's int()) or columns.
  std::vector<size_t> pos;
  const bool fractions = !options.positions.empty() && options.positions.back() <= 1;
  for (double p : options.positions)
    pos.push_back(static_cast<size_t>(fractions ? options.line_length * p : p));
  std::string out;
  auto row = [&](const std::vector<std::string>& fields) {
    std::string line;
    for (size_t i = 0; i < fields.size() && i < pos.size(); ++i) {
      line += fields[i];
      line.resize(pos[i], ' ');  // truncates or pads to the column end
    }
    out += line + "\n";
  };
  auto rule = [&](char c) { out += std::string(options.line_length, c) + "\n"; };
  auto to_int = [](const std::string& text, const sym::Node& n, const char* what) {
    int64_t v = 0;
    if (!ParseInt64(text, &v))
      MX_THROW(absl::StatusCode::kInvalidArgument, "print_summary: node ", n.name, " (", n.op->name,
               "): ", what, " '", text, "' is not an integer");
    return v;
  };
  const std::vector<std::shared_ptr<sym::Node>> nodes = graph.TopoNodes();
  std::map<const sym::Node*, int> id;
  for (size_t i = 0; i < nodes.size(); ++i) id[nodes[i].get()] = static_cast<int>(i);
  std::set<int> heads;  // MXNet: set(conf["heads"][0]), i.e. {node id, output index, 0}
  if (!graph.outputs().empty()) {
    heads = {id.at(graph.outputs()[0].node.get()), graph.outputs()[0].index, 0};
  }
  auto shape_of = [&](const sym::Node& n, std::vector<int64_t>* dims) {
    auto it = shape_dict.find(n.is_variable() ? n.name : n.name + "_output");
    if (it == shape_dict.end()) return false;
    dims->clear();
    for (int k = 1; k < it->second.ndim(); ++k) dims->push_back(it->second[k]);
    return true;
  };
  rule('_');
  row({"Layer (type)", "Output Shape", "Param #", "Previous Layer"});
  rule('=');
  int64_t total = 0;
  absl::Status status = StatusFromCall([&] {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const sym::Node& n = *nodes[i];
      if (n.is_variable() && i > 0) continue;
      std::vector<int64_t> out_shape;
      if ((!n.is_variable() || heads.count(static_cast<int>(i))) && show_shape)
        shape_of(n, &out_shape);
      std::vector<std::string> pre_node;
      int64_t pre_filter = 0, params = 0;
      if (!n.is_variable()) {
        for (const auto& in : n.inputs) {
          if (in.node->is_variable() && !heads.count(id.at(in.node.get()))) continue;
          pre_node.push_back(in.node->name);
          std::vector<int64_t> d;
          if (show_shape && shape_of(*in.node, &d) && !d.empty()) pre_filter += d[0];
        }
        const std::string op = n.op->name;
        const AttrDict& p = n.params;
        if (op == "Convolution") {
          const int64_t groups = to_int(Get(p, "num_group", "1"), n, "num_group");
          const int64_t filters = to_int(Get(p, "num_filter", ""), n, "num_filter");
          if (groups == 0)
            MX_THROW(absl::StatusCode::kInvalidArgument, "print_summary: node ", n.name,
                     " (Convolution): num_group is 0");
          params = pre_filter * filters / groups;
          std::string digits = Tuple(Get(p, "kernel", ""));
          for (auto k : StrSplit(digits, 'x'))
            if (!k.empty()) params *= to_int(std::string(k), n, "kernel");
          if (Get(p, "no_bias", "") != "True") params += filters;
        } else if (op == "FullyConnected") {
          const int64_t hidden = to_int(Get(p, "num_hidden", ""), n, "num_hidden");
          params = (Get(p, "no_bias", "") == "True" ? pre_filter : pre_filter + 1) * hidden;
        } else if (op == "BatchNorm") {
          std::vector<int64_t> d;
          if (show_shape && shape_of(n, &d) && !d.empty()) params = d[0] * 2;
        } else if (op == "Embedding") {
          params = to_int(Get(p, "input_dim", ""), n, "input_dim") *
                   to_int(Get(p, "output_dim", ""), n, "output_dim");
        }
      }
      std::vector<std::string> dims;
      for (int64_t d : out_shape) dims.push_back(StrCat(d));
      row({StrCat(n.name, "(", n.is_variable() ? "null" : n.op->name, ")"), StrJoin(dims, "x"),
           StrCat(params), pre_node.empty() ? "" : pre_node[0]});
      for (size_t k = 1; k < pre_node.size(); ++k) row({"", "", "", pre_node[k]});
      total += params;
      rule(i + 1 == nodes.size() ? '=' : '_');
    }
  });
  MX_RETURN_IF_ERROR(status);
  out += StrCat("Total params: ", total, "\n");
  rule('_');
  return out;
}

absl::StatusOr<std::string> plot_network(const sym::Symbol& graph, const PlotOptions& options) {
  const bool draw_shape = !options.shape.empty();
  std::map<std::pair<const sym::Node*, int>, Shape> shapes;
  if (draw_shape || options.show_params) {
    MX_ASSIGN_OR_RETURN(shapes, EntryShapes(graph, options.shape));
  }
  auto shape_of = [&](const sym::Node* n, int i) {
    auto it = shapes.find({n, i});
    return it == shapes.end() ? Shape::Unknown() : it->second;
  };
  std::map<std::string, std::string> base = {{"shape", "box"},
                                             {"fixedsize", "true"},
                                             {"width", "1.3"},
                                             {"height", "0.8034"},
                                             {"style", "filled"}};
  if (options.show_params) base["width"] = "1.6", base["height"] = "1.0";  // room for a 3rd line
  for (const auto& [k, v] : options.node_attrs) base[k] = v;
  const std::vector<std::shared_ptr<sym::Node>> nodes = graph.TopoNodes();
  std::set<const sym::Node*> hidden;
  std::string dot = StrCat("digraph ", Quote(options.title), " {\n");
  for (const auto& np : nodes) {
    const sym::Node& n = *np;
    std::map<std::string, std::string> attr = base;
    std::string label = n.name;
    if (n.is_variable()) {
      if (options.hide_weights && LooksLikeWeight(n.name)) {
        hidden.insert(&n);
        continue;
      }
      attr["shape"] = "oval";
      attr["fillcolor"] = kInput;
    } else {
      const std::string op = n.op->name;
      const AttrDict& p = n.params;
      if (op == "Convolution") {
        label = StrCat("Convolution\n", Tuple(Get(p, "kernel", "")), "/",
                       p.count("stride") ? Tuple(p.at("stride")) : "1", ", ",
                       Get(p, "num_filter", "?"));
        attr["fillcolor"] = kConvFc;
      } else if (op == "FullyConnected") {
        label = StrCat("FullyConnected\n", Get(p, "num_hidden", "?"));
        attr["fillcolor"] = kConvFc;
      } else if (op == "BatchNorm") {
        attr["fillcolor"] = kBatchNorm;
      } else if (op == "Activation" || op == "LeakyReLU") {
        label = StrCat(op, "\n", Get(p, "act_type", op == "LeakyReLU" ? "leaky" : "?"));
        attr["fillcolor"] = kAct;
      } else if (op == "Pooling") {
        std::string kernel = p.count("kernel") ? Tuple(p.at("kernel")) : "[]";
        if (!p.count("kernel") && (Get(p, "global_pool", "") == "True")) kernel = "global";
        label = StrCat("Pooling\n", Get(p, "pool_type", "max"), ", ", kernel, "/",
                       p.count("stride") ? Tuple(p.at("stride")) : "1");
        attr["fillcolor"] = kPool;
      } else if (op == "Concat" || op == "Flatten" || op == "Reshape") {
        attr["fillcolor"] = kReshape;
      } else if (op == "Softmax") {
        attr["fillcolor"] = kSoftmax;
      } else {
        attr["fillcolor"] = kOther;
        if (op == "Custom") label = Get(p, "op_type", label);
      }
      if (options.show_params) {
        int64_t count = 0;
        bool known = true;
        for (const auto& in : n.inputs) {
          if (!in.node->is_variable() || !LooksLikeWeight(in.node->name)) continue;
          const int64_t s = shape_of(in.node.get(), in.index).Size();
          if (s < 0)
            known = false;
          else
            count += s;
        }
        if (count > 0 || !known)
          StrAppend(&label, "\n", known ? WithCommas(count) : "?",
                    count == 1 ? " param" : " params");
      }
    }
    StrAppend(&dot, "\t", Quote(n.name), " [label=", Quote(label));
    for (const auto& [k, v] : attr) StrAppend(&dot, " ", k, "=", Quote(v));
    dot += "]\n";
  }
  for (const auto& np : nodes) {
    const sym::Node& n = *np;
    if (n.is_variable()) continue;
    for (const auto& in : n.inputs) {
      if (hidden.count(in.node.get())) continue;
      std::string label = draw_shape ? ShapeLabel(shape_of(in.node.get(), in.index)) : "";
      StrAppend(&dot, "\t", Quote(n.name), " -> ", Quote(in.node->name), " [label=", Quote(label),
                " arrowtail=open dir=back]\n");
    }
  }
  return dot + "}\n";
}

absl::StatusOr<sym::Symbol> TraceBlock(gluon::HybridBlock& net,
                                       const std::vector<Shape>& input_shapes) {
  const bool was = net.is_hybridized();
  sym::Symbol graph;
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    if (!was) net.hybridize(true);
    NDArrayVec xs;
    for (const Shape& s : input_shapes) xs.push_back(NDArray::Full(s, 0.0));
    auto paused = autograd::pause(false);
    NDArrayVec out = net(xs);
    for (auto& o : out) o.wait_to_read();
    graph = net.cached_graph();
    if (!was) net.hybridize(false);
  }));
  return graph;
}

std::map<std::string, Shape> GraphInputShapes(const gluon::Block& net,
                                              const std::vector<Shape>& input_shapes) {
  std::map<std::string, Shape> out;
  for (const auto& [name, p] : net.collect_params()) out[name] = p->shape();
  for (size_t i = 0; i < input_shapes.size(); ++i)
    out[input_shapes.size() == 1 ? "data" : StrCat("data", i)] = input_shapes[i];
  return out;
}

absl::Status CheckPicturePath(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  if (ext != ".svg" && ext != ".png" && ext != ".pdf" && ext != ".dot" && ext != ".gv")
    return absl::InvalidArgumentError(StrCat("cannot write ", path, ": unknown picture format '",
                                             ext, "' (use .svg, .png, .pdf, .dot or .gv)"));
  std::error_code ec;
  const std::filesystem::path dir = p.parent_path();
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    return absl::NotFoundError(
        StrCat("cannot write ", path, ": directory ", dir.string(), " does not exist"));
  return absl::OkStatus();
}

absl::Status render(const std::string& dot, const std::string& path) {
  MX_RETURN_IF_ERROR(CheckPicturePath(path));
  const std::string ext = std::filesystem::path(path).extension().string();
  const std::string format = ext == ".dot" || ext == ".gv" ? "" : ext.substr(1);
  const std::string tmp = StrCat(path, ".tmp", getpid());
  const std::string dot_file = format.empty() ? tmp : StrCat(tmp, ".dot");
  {
    std::ofstream f(dot_file, std::ios::binary | std::ios::trunc);
    if (!f) return absl::PermissionDeniedError(StrCat("cannot write ", dot_file));
    f << dot;
    if (!f.flush()) return absl::DataLossError(StrCat("writing ", dot_file, " failed"));
  }
  if (!format.empty()) {
    const std::string err_file = StrCat(tmp, ".err");
    std::vector<std::string> args = {"dot", "-T" + format, "-o", tmp, dot_file};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "dot", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    if (rc == 0) waitpid(pid, &status, 0);
    std::ifstream ef(err_file);
    std::stringstream es;
    es << ef.rdbuf();
    std::remove(err_file.c_str());
    std::remove(dot_file.c_str());
    if (rc != 0) {
      std::remove(tmp.c_str());
      return absl::FailedPreconditionError(
          StrCat("cannot render ", path, ": Graphviz's `dot` program could not be run (",
                 std::strerror(rc),
                 "); install Graphviz (Debian: apt-get install graphviz) or write .dot"));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::remove(tmp.c_str());
      std::string msg = es.str();
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
      return absl::InternalError(
          StrCat("Graphviz's dot failed rendering ", path, ": ", msg.empty() ? "no message" : msg));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

}  // namespace mxnet::viz
