#include "gluon/param_names.h"

#include <map>
#include <mutex>

#include "base/strings.h"

namespace mxnet::gluon {
namespace {

std::mutex& RulesMu() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, Mxnet1Rule>& Rules() {
  static auto* rules = new std::map<std::string, Mxnet1Rule>();
  return *rules;
}
const Mxnet1Rule* FindRule(const std::string& class_name) {
  std::lock_guard<std::mutex> lock(RulesMu());
  auto it = Rules().find(class_name);
  return it == Rules().end() ? nullptr : &it->second;  // entries are never erased
}

// One 1.x name scope: the prefix of blocks built inside it and their per-hint counters.
struct Scope {
  std::string prefix;
  std::map<std::string, int> counter;
};

}  // namespace

void RegisterMxnet1Naming(const std::string& class_name, Mxnet1Rule rule) {
  std::lock_guard<std::mutex> lock(RulesMu());
  Rules()[class_name] = std::move(rule);
}

std::string Mxnet1Hint(const Block& block) {
  std::string c = block.class_name();
  if (StartsWith(c, "Conv")) return "conv";  // Conv1D..3D, Conv*Transpose (1.x _Conv._alias)
  if (c.find("Pool") != std::string::npos) return "pool";
  return AsciiToLower(c);
}

std::string Mxnet1RootPrefix(const Block& net) {
  return net.class_name() == "SymbolBlock" ? "" : Mxnet1Hint(net) + "0_";
}

std::vector<std::pair<std::string, std::string>> Block::mxnet1_param_names() const {
  std::vector<std::pair<std::string, std::string>> out;
  // Visits `b` (structured path `path`, "" for the root) whose 1.x prefix is `prefix` and whose
  // children are built in `scope`; `rule` is the innermost registered net's rule, `base` the
  // structured path of that net (rule paths are relative to it).
  std::function<void(const Block&, const std::string&, const std::string&, Scope&,
                     const Mxnet1Rule*, const Block*, const std::string&)>
      visit = [&](const Block& b, const std::string& path, const std::string& prefix, Scope& scope,
                  const Mxnet1Rule* rule, const Block* net, const std::string& base) {
        for (const auto& [leaf, p] : b.params_)
          out.push_back({path.empty() ? leaf : path + "." + leaf, prefix + leaf});
        for (const auto& [name, child] : b.children_) {
          const std::string cpath = path.empty() ? name : path + "." + name;
          const Mxnet1Rule* own = FindRule(child->class_name());
          Mxnet1Scope how;  // kAuto
          if (rule && !own) {
            std::string rel = cpath.substr(base.empty() ? 0 : base.size() + 1);
            how = (*rule)(rel, *child, *net);
          }
          if (how.kind == Mxnet1Scope::kInherit) {
            visit(*child, cpath, scope.prefix, scope, rule, net, base);
            continue;
          }
          std::string cprefix;
          if (child->class_name() == "SymbolBlock") {
            cprefix = "";
          } else if (how.kind == Mxnet1Scope::kFixed) {
            cprefix = scope.prefix + how.prefix;
          } else {
            std::string hint = Mxnet1Hint(*child);
            cprefix = StrCat(scope.prefix, hint, scope.counter[hint]++, "_");
          }
          Scope inner{cprefix, {}};
          visit(*child, cpath, cprefix, inner, own ? own : rule, own ? child.get() : net,
                own ? cpath : base);
        }
      };
  const std::string root = Mxnet1RootPrefix(*this);
  Scope scope{root, {}};
  visit(*this, "", root, scope, FindRule(class_name()), this, "");
  return out;
}

}  // namespace mxnet::gluon
