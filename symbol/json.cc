// MXNet symbol JSON, both ways (docs/formats.md §3): reads what MXNet 0.8-2.0 wrote (legacy
// attr/param keys, input pairs, the hidden-key, aux-state, BatchNorm-init and argmax upgrades of
// §3.3, op aliases) and writes what MXNet 1.9.1 loads.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "symbol/control_flow.h"
#include "symbol/symbol.h"

namespace mxnet::sym {
namespace {

using Json = nlohmann::json;
constexpr int kWriteVersion = 10901;  // MXNet 1.9.1
constexpr int kCurrentVersion = 20000;

bool IsHiddenKey(const std::string& k) {
  return k.size() > 4 && StartsWith(k, "__") && EndsWith(k, "__");
}

const char* kHiddenKeys[] = {"ctx_group",       "lr_mult",      "wd_mult",
                             "force_mirroring", "mirror_stage", "profiler_scope"};

absl::Status Bad(std::string_view msg) {
  return absl::InvalidArgumentError(StrCat("symbol JSON: ", msg));
}

const Op* FindOp(const std::string& name) {
  if (const Op* op = OpRegistry::Find(name)) return op;
  if (StartsWith(name, "_npx_")) return OpRegistry::Find(name.substr(5));
  return nullptr;
}

// Legacy shapes ("(0, 3)", 0 = unknown) to ours ("(-1, 3)").
std::string ShapeFromLegacy(const std::string& s) {
  auto p = ParseShape(s);
  return p.ok() ? Shape::FromLegacy(*p).ToString() : s;
}

std::string ShapeToLegacy(const std::string& s) {
  auto p = ParseShape(s);
  return p.ok() ? p->ToLegacyString() : s;
}

}  // namespace

namespace {
constexpr int kMaxSubgraphDepth = 32;
// Files before MXNet 0.9 may leave out trailing inputs (aux states, weights; §3.3 step 3): at most
// this many per node (BatchNorm, the most, leaves out 4). A variadic op's inputs (num_args) must
// be in the file, one [node, output] each.
constexpr int kMaxImplicitInputs = 16;
// Outputs a file may declare in all (num_outputs, num_args of the split/upsampling ops ...):
// this base plus this many per byte of JSON. Each output becomes a graph entry (shape, dtype,
// array at run time), so a few bytes must not declare billions.
constexpr int64_t kOutputsBase = 1 << 16;
constexpr int64_t kOutputsPerByte = 16;

// One graph object (the file, or a node's subgraph, which has no attrs of its own and is read
// with the file's version and shape semantics).
absl::StatusOr<Symbol> ParseGraph(const Json& j, int version, bool np_shape, int depth,
                                  int64_t* outputs_left) {
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array())
    return Bad("missing the 'nodes' array");
  const Json& jn = j["nodes"];
  std::vector<std::shared_ptr<Node>> file_nodes;  // index = node index in the file
  file_nodes.reserve(jn.size());
  for (size_t i = 0; i < jn.size(); ++i) {
    const Json& x = jn[i];
    std::string where = StrCat("node ", i);
    if (!x.is_object() || !x.contains("op") || !x["op"].is_string() || !x.contains("name") ||
        !x["name"].is_string())
      return Bad(StrCat(where, ": needs string fields 'op' and 'name'"));
    auto n = std::make_shared<Node>();
    n->name = x["name"].get<std::string>();
    where = StrCat("node ", i, " ('", n->name, "')");
    std::string opname = x["op"].get<std::string>();
    // Attributes: param (<= 0.8) < attr (0.9-1.0) < attrs; hidden keys go to user_attrs.
    AttrDict merged;
    for (const char* key : {"param", "attr", "attrs"}) {
      if (!x.contains(key)) continue;
      if (!x[key].is_object()) return Bad(StrCat(where, ": '", key, "' must be an object"));
      for (auto& [k, v] : x[key].items()) {
        if (!v.is_string()) return Bad(StrCat(where, ": attribute '", k, "' must be a string"));
        merged[k] = v.get<std::string>();
      }
    }
    // Subgraphs of control-flow nodes (_foreach, _while_loop, _cond); attached below.
    std::vector<Symbol> subgraphs;
    if (x.contains("subgraphs") && !x["subgraphs"].is_null()) {
      if (!x["subgraphs"].is_array()) return Bad(StrCat(where, ": 'subgraphs' must be an array"));
      if (depth >= kMaxSubgraphDepth) return Bad(StrCat(where, ": subgraphs nested too deeply"));
      for (size_t k = 0; k < x["subgraphs"].size(); ++k) {
        auto g = ParseGraph(x["subgraphs"][k], version, np_shape, depth + 1, outputs_left);
        if (!g.ok())
          return absl::Status(g.status().code(),
                              StrCat(where, ": subgraph ", k, ": ", g.status().message()));
        subgraphs.push_back(*std::move(g));
      }
    }
    // Inputs: [node, index, version] or legacy [node, index].
    if (x.contains("inputs")) {
      if (!x["inputs"].is_array()) return Bad(StrCat(where, ": 'inputs' must be an array"));
      for (const Json& in : x["inputs"]) {
        if (!in.is_array() || in.size() < 2 || in.size() > 3 || !in[0].is_number_integer() ||
            !in[1].is_number_integer())
          return Bad(StrCat(where, ": an input must be [node, output] or [node, output, version]"));
        int64_t src = in[0].get<int64_t>(), idx = in[1].get<int64_t>();
        if (src < 0 || src >= static_cast<int64_t>(i))
          return Bad(StrCat(where, ": input refers to node ", src,
                            ", which is not an earlier node (bad reference or cycle)"));
        if (idx < 0 || idx >= file_nodes[src]->num_outputs())
          return Bad(StrCat(where, ": input refers to output ", idx, " of node ", src, " ('",
                            file_nodes[src]->name, "'), which has ", file_nodes[src]->num_outputs(),
                            " outputs"));
        n->inputs.push_back(
            NodeEntry{file_nodes[src], static_cast<int>(idx),
                      in.size() == 3 && in[2].is_number_integer() ? in[2].get<int>() : 0});
      }
    }
    if (x.contains("control_deps") && x["control_deps"].is_array()) {
      for (const Json& d : x["control_deps"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0 ||
            d.get<int64_t>() >= static_cast<int64_t>(i))
          return Bad(StrCat(where, ": bad control dependency"));
        n->control_deps.push_back(file_nodes[d.get<int64_t>()]);
      }
    }
    if (opname == "null") {
      if (!n->inputs.empty()) return Bad(StrCat(where, ": a variable cannot have inputs"));
      if (!subgraphs.empty()) return Bad(StrCat(where, ": a variable cannot have subgraphs"));
      for (auto& [k, v] : merged) {
        std::string key = k;
        if (!IsHiddenKey(key))
          for (const char* h : kHiddenKeys)
            if (key == h) key = StrCat("__", h, "__");  // docs/formats.md §3.3 step 1
        n->user_attrs[key] = v;
      }
      if (auto it = n->user_attrs.find("__shape__"); it != n->user_attrs.end() && !np_shape)
        it->second = ShapeFromLegacy(it->second);
      file_nodes.push_back(n);
      continue;
    }
    const Op* op = FindOp(opname);
    if (!op)
      return absl::NotFoundError(
          StrCat("symbol JSON: ", where, ": unknown operator '", opname, "'"));
    n->op = op;
    AttrDict params;
    std::vector<std::pair<std::string, std::string>> arg_hidden;  // <arg>_lr_mult -> variable
    for (auto& [k, v] : merged) {
      if (IsHiddenKey(k)) {
        n->user_attrs[k] = v;
        continue;
      }
      bool moved = false;
      for (const char* h : kHiddenKeys) {
        std::string hk = h;
        if (k == hk) {
          n->user_attrs[StrCat("__", hk, "__")] = v;
          moved = true;
        } else if (EndsWith(k, "_" + hk) && version < kCurrentVersion) {
          arg_hidden.push_back({k, v});
          moved = true;
        }
      }
      if (moved) continue;
      if (version < 905 && (op->name == "argmax" || op->name == "argmin") && k == "axis" &&
          v == "-1")
        continue;  // docs/formats.md §3.3 step 5
      params[k] = v;
    }
    absl::Status st = StatusFromCall([&] { n->attrs = OpAttrs::Parse(*op, params); });
    if (!st.ok()) return Bad(StrCat(where, ": ", st.message()));
    n->params = params;
    // Subgraphs first: the input count of the fused _sg_* ops depends on them.
    if (!subgraphs.empty() || (IsControlFlowOp(*op) && !StartsWith(op->name, "_backward"))) {
      absl::Status as = AttachSubgraphs(n.get(), std::move(subgraphs));
      if (!as.ok())
        return absl::Status(as.code(), StrCat("symbol JSON: ", where, ": ", as.message()));
    }
    const int nout = n->num_outputs();
    if (nout < 0 || nout > *outputs_left)
      return Bad(StrCat(where, ": operator ", op->name, " declares ", nout,
                        " outputs; the file's size allows ", *outputs_left,
                        " more outputs in all"));
    *outputs_left -= nout;
    const int nin = op->NumInputs(n->attrs);
    const int have = static_cast<int>(n->inputs.size());
    const int implicit = version < 900 ? kMaxImplicitInputs : 0;
    if (nin < have || nin > have + implicit) {
      // The names are listed for ops of a sane arity only (num_args may be huge).
      std::string names = nin >= 0 && nin <= 64
                              ? StrCat(" (", StrJoin(op->InputNames(n->attrs), ", "), ")")
                              : std::string();
      return Bad(
          StrCat(where, ": operator ", op->name, " takes ", nin, " inputs", names, ", got ", have));
    }
    std::vector<std::string> in_names = op->InputNames(n->attrs);
    auto in_name = [&](int k) {
      return k < static_cast<int>(in_names.size()) ? in_names[k] : StrCat("input", k);
    };
    // docs/formats.md §3.3 step 3: add missing trailing inputs (aux states) as variables.
    if (have < nin) {
      for (int k = have; k < nin; ++k) {
        auto v = std::make_shared<Node>();
        v->name = n->name + "_" + in_name(k);
        v->user_attrs = n->user_attrs;
        for (auto& [pk, pv] : params) v->user_attrs[pk] = pv;
        n->inputs.push_back(NodeEntry{v, 0, 0});
      }
    }
    // Step 1 for "<arg>_lr_mult": move to the input variable named by <arg>.
    for (auto& [k, v] : arg_hidden) {
      bool placed = false;
      for (int a = 0; a < nin && !placed; ++a)
        for (const char* h : kHiddenKeys)
          if (k == in_name(a) + "_" + h && n->inputs[a].node->is_variable()) {
            n->inputs[a].node->user_attrs[StrCat("__", h, "__")] = v;
            placed = true;
            break;
          }
      if (!placed) n->user_attrs[k] = v;
    }
    // docs/formats.md §3.3 step 4: BatchNorm initializers of its moving statistics.
    if (version < 904 && op->name == "BatchNorm" && nin == 5) {
      n->inputs[3].node->user_attrs.try_emplace("__init__", "[\"zero\", {}]");
      n->inputs[4].node->user_attrs.try_emplace("__init__", "[\"one\", {}]");
    }
    file_nodes.push_back(n);
  }
  if (!j.contains("heads") || !j["heads"].is_array() || j["heads"].empty())
    return Bad("missing the 'heads' array");
  std::vector<NodeEntry> outs;
  for (const Json& h : j["heads"]) {
    if (!h.is_array() || h.size() < 2 || !h[0].is_number_integer() || !h[1].is_number_integer())
      return Bad("a head must be [node, output, version]");
    int64_t src = h[0].get<int64_t>(), idx = h[1].get<int64_t>();
    if (src < 0 || src >= static_cast<int64_t>(file_nodes.size()) || idx < 0 ||
        idx >= file_nodes[src]->num_outputs())
      return Bad(StrCat("head [", src, ", ", idx, "] refers to a missing node or output"));
    outs.push_back(NodeEntry{file_nodes[src], static_cast<int>(idx), 0});
  }
  return Symbol(outs);
}

// The graph object of `s`; subgraphs of control-flow nodes are written inside their node like
// MXNet does (without the top-level attrs).
Json GraphToJson(const Symbol& s, bool top) {
  std::vector<std::shared_ptr<Node>> nodes = s.TopoNodes();
  std::unordered_map<Node*, int> id;
  for (size_t i = 0; i < nodes.size(); ++i) id[nodes[i].get()] = static_cast<int>(i);
  Json jn = Json::array(), arg_nodes = Json::array(), row_ptr = Json::array(),
       heads = Json::array();
  int64_t row = 0;
  row_ptr.push_back(0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    Json x = Json::object();
    x["op"] = n.is_variable() ? "null" : n.op->name;
    x["name"] = n.name;
    Json attrs = Json::object();
    for (const auto& [k, v] : n.params) attrs[k] = v;
    for (const auto& [k, v] : n.user_attrs) attrs[k] = k == "__shape__" ? ShapeToLegacy(v) : v;
    if (!attrs.empty()) x["attrs"] = attrs;
    Json in = Json::array();
    for (const auto& e : n.inputs)
      in.push_back(Json::array({id.at(e.node.get()), e.index, e.version}));
    x["inputs"] = in;
    if (!n.control_deps.empty()) {
      Json d = Json::array();
      for (const auto& c : n.control_deps) d.push_back(id.at(c.get()));
      x["control_deps"] = d;
    }
    if (const Subgraphs* sg = NodeSubgraphs(n); sg && !sg->graphs.empty()) {
      Json subs = Json::array();
      for (const Symbol& g : sg->graphs) subs.push_back(GraphToJson(g, false));
      x["subgraphs"] = subs;
    }
    jn.push_back(x);
    if (n.is_variable()) arg_nodes.push_back(static_cast<int>(i));
    row += n.num_outputs();
    row_ptr.push_back(row);
  }
  for (const auto& e : s.outputs()) heads.push_back(Json::array({id.at(e.node.get()), e.index, 0}));
  Json j = Json::object();
  j["nodes"] = jn;
  j["arg_nodes"] = arg_nodes;
  j["node_row_ptr"] = row_ptr;
  j["heads"] = heads;
  if (top) j["attrs"] = Json::object({{"mxnet_version", Json::array({"int", kWriteVersion})}});
  return j;
}

}  // namespace

absl::StatusOr<Symbol> Symbol::fromjson(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad("not valid JSON");
  if (!j.is_object()) return Bad("missing the 'nodes' array");
  int version = 800;
  bool np_shape = false;
  if (j.contains("attrs") && j["attrs"].is_object()) {
    const Json& a = j["attrs"];
    if (a.contains("mxnet_version") && a["mxnet_version"].is_array() &&
        a["mxnet_version"].size() == 2 && a["mxnet_version"][1].is_number_integer())
      version = a["mxnet_version"][1].get<int>();
    if (a.contains("is_np_shape") && a["is_np_shape"].is_array() && a["is_np_shape"].size() == 2)
      np_shape = a["is_np_shape"][1] == 1;
  }
  int64_t outputs_left = kOutputsBase + kOutputsPerByte * static_cast<int64_t>(text.size());
  return ParseGraph(j, version, np_shape, 0, &outputs_left);
}

std::string Symbol::tojson() const { return GraphToJson(*this, true).dump(2); }

absl::Status Symbol::save(const std::string& path) const {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return absl::PermissionDeniedError(StrCat("cannot write ", tmp));
    f << tojson();
    f.flush();
    if (!f) return absl::DataLossError(StrCat("writing ", tmp, " failed"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

absl::StatusOr<Symbol> Symbol::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(StrCat("cannot open symbol file ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  auto s = fromjson(ss.str());
  if (!s.ok()) return absl::Status(s.status().code(), StrCat(path, ": ", s.status().message()));
  return s;
}

}  // namespace mxnet::sym
