#include "symbol/passes/testing/graph_testing.h"

#include <random>
#include <unordered_map>

#include "base/strings.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::sym::testing {
namespace {

class Builder {
 public:
  Builder(uint64_t seed, const RandomGraphOptions& o) : gen_(seed), o_(o) {}

  Symbol Param(const std::string& prefix, const Shape& shape, double lo, double hi) {
    std::string name = StrCat(prefix, counter_++);
    values_[name] = mxnet::testing::RandomArray(shape, lo, hi, gen_(), o_.dtype);
    return var(name);
  }
  Symbol Data(const Shape& shape) {
    values_["data"] = mxnet::testing::RandomArray(shape, -1, 1, gen_(), o_.dtype);
    return var("data");
  }

  Symbol Conv(const Symbol& x, int cin, int cout, bool k3, bool bias) {
    AttrDict a{{"kernel", k3 ? "(3, 3)" : "(1, 1)"},
               {"num_filter", StrCat(cout)},
               {"pad", k3 ? "(1, 1)" : "(0, 0)"}};
    double s = 1.0 / std::sqrt(cin * (k3 ? 9.0 : 1.0));
    std::vector<Symbol> in{x, Param("w", Shape{cout, cin, k3 ? 3 : 1, k3 ? 3 : 1}, -s, s)};
    if (bias)
      in.push_back(Param("b", Shape{cout}, -0.2, 0.2));
    else
      a["no_bias"] = "True";
    return Symbol::Create("Convolution", in, a);
  }
  Symbol Fc(const Symbol& x, int in_units, int hidden, bool bias) {
    AttrDict a{{"num_hidden", StrCat(hidden)}};
    double s = 1.0 / std::sqrt(in_units);
    std::vector<Symbol> in{x, Param("fw", Shape{hidden, in_units}, -s, s)};
    if (bias)
      in.push_back(Param("fb", Shape{hidden}, -0.2, 0.2));
    else
      a["no_bias"] = "True";
    return Symbol::Create("FullyConnected", in, a);
  }
  Symbol BN(const Symbol& x, int c) {
    AttrDict a{{"eps", Pick({"1e-05", "0.001", "0.0001"})},
               {"fix_gamma", Pick({"True", "False", "False"})}};
    return Symbol::Create(
        "BatchNorm",
        {x, Param("gamma", Shape{c}, 0.5, 1.5), Param("beta", Shape{c}, -0.5, 0.5),
         Param("mean", Shape{c}, -0.3, 0.3), Param("var", Shape{c}, 0.5, 1.5)},
        a);
  }
  Symbol Act(const Symbol& x) {
    return Symbol::Create("Activation", {x},
                          {{"act_type", Pick({"relu", "relu", "sigmoid", "tanh", "softrelu"})}});
  }
  Symbol Const(const Shape& shape) {
    Symbol ones = Symbol::Create(
        "_ones", {}, {{"shape", shape.ToString()}, {"dtype", std::string(DTypeName(o_.dtype))}});
    return Symbol::Create("_mul_scalar", {ones}, {{"scalar", Pick({"0.5", "-0.25", "2.0"})}});
  }

  std::string Pick(std::initializer_list<const char*> v) {
    return *(v.begin() + gen_() % v.size());
  }
  uint64_t Rand(uint64_t n) { return gen_() % n; }

  std::map<std::string, NDArray>& values() { return values_; }

 private:
  std::mt19937_64 gen_;
  RandomGraphOptions o_;
  int counter_ = 0;
  std::map<std::string, NDArray> values_;
};

}  // namespace

RandomGraph RandomConvGraph(uint64_t seed, const RandomGraphOptions& o) {
  Builder b(seed, o);
  const int C = o.channels;
  const Shape act_shape{o.batch, C, o.size, o.size};
  std::vector<Symbol> acts{b.Data(act_shape)};
  // A value to read: recent ones more often (deeper graphs).
  auto pick = [&](const std::vector<Symbol>& v) -> const Symbol& {
    size_t n = v.size();
    return b.Rand(3) ? v[n - 1 - b.Rand(std::min<size_t>(n, 3))] : v[b.Rand(n)];
  };
  for (int step = 0; step < o.num_ops; ++step) {
    const Symbol& x = pick(acts);
    switch (b.Rand(10)) {
      case 0:
        acts.push_back(b.Conv(x, C, C, b.Rand(2), b.Rand(2)));
        break;
      case 1:
        acts.push_back(b.BN(b.Conv(x, C, C, b.Rand(2), b.Rand(2)), C));
        break;
      case 2:
        acts.push_back(b.Act(b.BN(b.Conv(x, C, C, true, b.Rand(2)), C)));
        break;
      case 3: {  // residual block: relu(bn(conv(relu(bn(conv(x))))) + x)
        Symbol y = b.Act(b.BN(b.Conv(x, C, C, true, false), C));
        acts.push_back(b.Act(b.BN(b.Conv(y, C, C, true, false), C) + x));
        break;
      }
      case 4:
        acts.push_back(b.Act(x));
        break;
      case 5:
        acts.push_back(pick(acts) + x);
        break;
      case 6:
        acts.push_back(b.BN(x, C));
        break;
      case 7:
        if (o.dropout) {
          acts.push_back(Symbol::Create("Dropout", {x}, {{"p", "0.5"}}));
          break;
        }
        [[fallthrough]];
      case 8:
        if (o.constants) {
          acts.push_back(x + b.Const(act_shape));
          break;
        }
        [[fallthrough]];
      default:
        if (o.duplicates && acts.size() > 1) {
          // The same op twice on the same input: CSE merges them, their sum doubles.
          Symbol a1 = Symbol::Create("Activation", {x}, {{"act_type", "tanh"}});
          Symbol a2 = Symbol::Create("Activation", {x}, {{"act_type", "tanh"}});
          acts.push_back(a1 + a2);
        } else {
          acts.push_back(b.Act(x));
        }
    }
  }
  // Head: flatten + FC, then a few 2-D ops.
  const int in_units = C * o.size * o.size, H = 6;
  std::vector<Symbol> vecs{b.Fc(acts.back(), in_units, H, b.Rand(2))};
  for (int step = 0; step < 3; ++step) {
    const Symbol& x = vecs.back();
    switch (b.Rand(4)) {
      case 0:
        vecs.push_back(b.Act(b.Fc(x, H, H, b.Rand(2))));
        break;
      case 1:
        vecs.push_back(b.BN(b.Fc(x, H, H, b.Rand(2)), H));
        break;
      case 2:
        vecs.push_back(b.Act(b.Fc(x, H, H, true) + vecs[b.Rand(vecs.size())]));
        break;
      default:
        vecs.push_back(b.Act(x));
    }
  }
  Symbol out = Symbol::Group({vecs.back(), acts[1 + b.Rand(acts.size() - 1)]});
  RandomGraph g;
  g.symbol = out;
  for (const auto& name : out.list_inputs()) g.values[name] = b.values().at(name);
  return g;
}

std::vector<NDArray> Interpret(const Symbol& s, const std::map<std::string, NDArray>& values,
                               bool is_train) {
  DispatchStateScope scope;
  scope.state().is_training = is_train;
  scope.state().is_recording = is_train;  // BatchNorm updates its moving statistics only then
  std::unordered_map<const Node*, NDArrayVec> out;
  for (const auto& n : s.TopoNodes()) {
    if (n->is_variable()) {
      auto it = values.find(n->name);
      if (it == values.end())
        MX_THROW(absl::StatusCode::kInvalidArgument, "Interpret: no value for '", n->name, "'");
      out[n.get()] = {it->second};
      continue;
    }
    NDArrayVec in;
    for (const auto& e : n->inputs) in.push_back(out.at(e.node.get())[e.index]);
    out[n.get()] = Invoke(*n->op, n->attrs, in);
  }
  std::vector<NDArray> result;
  for (const auto& e : s.outputs()) result.push_back(out.at(e.node.get())[e.index]);
  return result;
}

std::vector<NDArray> InputsFor(const CachedOp& op, const std::map<std::string, NDArray>& values,
                               bool copy) {
  std::vector<NDArray> in;
  for (const auto& n : op.input_names()) in.push_back(copy ? values.at(n).copy() : values.at(n));
  return in;
}

std::map<std::string, NDArray> CopyValues(const std::map<std::string, NDArray>& values) {
  std::map<std::string, NDArray> c;
  for (const auto& [k, v] : values) c[k] = v.copy();
  return c;
}

}  // namespace mxnet::sym::testing
