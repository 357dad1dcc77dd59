#include "gluon/onnx/testing/cases.h"

#include <cmath>

#include "base/error.h"
#include "base/strings.h"
#include "gluon/symbol_block.h"

namespace mxnet::gluon::onnx_testing {
namespace {

using sym::Symbol;

Symbol S(const std::string& op, const std::vector<Symbol>& in, const AttrDict& attrs = {},
         const std::string& name = "") {
  return Symbol::Create(op, in, attrs, name);
}
Symbol V(const std::string& name) { return sym::var(name); }

uint64_t Hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

// Parameters by inferred shape: BatchNorm variances and norm scales positive, others in [-.5, .5).
Case Make(const std::string& name, Symbol graph,
          std::vector<std::pair<std::string, Shape>> inputs) {
  Case c{name, std::move(graph), {}, std::move(inputs)};
  std::map<std::string, Shape> known(c.inputs.begin(), c.inputs.end());
  sym::InferResult<Shape> r = c.graph.infer_shape(known);
  std::vector<std::string> args = c.graph.list_arguments(), aux = c.graph.list_auxiliary_states();
  auto fill = [&](const std::string& n, const Shape& s) {
    if (known.count(n)) return;
    const bool positive = EndsWith(n, "moving_var") || EndsWith(n, "gamma");
    c.params[n] = positive ? Lcg(s, Hash(name + n), 0.5, 1.5) : Lcg(s, Hash(name + n), -0.5, 0.5);
  };
  for (size_t i = 0; i < args.size(); ++i) fill(args[i], r.arg[i]);
  for (size_t i = 0; i < aux.size(); ++i) fill(aux[i], r.aux[i]);
  return c;
}

Case Cnn() {
  Symbol x = V("data");
  Symbol c1 =
      S("Convolution", {x}, {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "8"}}, "c1");
  Symbol b1 = S("BatchNorm", {c1}, {{"fix_gamma", "False"}, {"eps", "1e-05"}}, "b1");
  Symbol r1 = S("Activation", {b1}, {{"act_type", "relu"}});
  Symbol p1 =
      S("Pooling", {r1}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}});
  Symbol c2 = S("Convolution", {p1},
                {{"kernel", "(3, 3)"},
                 {"pad", "(2, 2)"},
                 {"dilate", "(2, 2)"},
                 {"num_group", "2"},
                 {"num_filter", "8"}},
                "c2");
  Symbol b2 = S("BatchNorm", {c2}, {{"fix_gamma", "True"}}, "b2");
  Symbol l2 = S("LeakyReLU", {b2}, {{"act_type", "leaky"}, {"slope", "0.1"}});
  Symbol p2 = S("Pooling", {l2},
                {{"kernel", "(3, 3)"},
                 {"stride", "(2, 2)"},
                 {"pad", "(1, 1)"},
                 {"pool_type", "avg"},
                 {"pooling_convention", "full"},
                 {"count_include_pad", "True"}});
  Symbol f = S("Flatten", {p2});
  Symbol fc = S("FullyConnected", {f}, {{"num_hidden", "10"}}, "fc");
  Symbol d = S("Dropout", {fc}, {{"p", "0.5"}});
  Symbol out = S("softmax", {d}, {{"axis", "-1"}, {"temperature", "2.0"}});
  return Make("cnn", out, {{"data", Shape{2, 3, 16, 16}}});
}

Case Mobile() {
  Symbol x = V("data");
  Symbol dw = S("Convolution", {x},
                {{"kernel", "(3, 3)"},
                 {"pad", "(1, 1)"},
                 {"num_filter", "8"},
                 {"num_group", "8"},
                 {"no_bias", "True"}},
                "dw");
  Symbol bn = S("BatchNorm", {dw}, {{"fix_gamma", "False"}}, "bn");
  Symbol r6 = S("clip", {bn}, {{"a_min", "0"}, {"a_max", "6"}});
  Symbol pw = S("Convolution", {r6},
                {{"kernel", "(1, 1)"}, {"num_filter", "8"}, {"no_bias", "True"}}, "pw");
  Symbol add = S("elemwise_add", {pw, x});
  Symbol s2 = S("Convolution", {add},
                {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"num_filter", "4"}}, "s2");
  Symbol gp =
      S("Pooling", {s2}, {{"global_pool", "True"}, {"pool_type", "avg"}, {"kernel", "(1, 1)"}});
  Symbol fc =
      S("FullyConnected", {S("Flatten", {gp})}, {{"num_hidden", "5"}, {"no_bias", "True"}}, "fc");
  return Make("mobile", S("sigmoid", {fc}), {{"data", Shape{2, 8, 9, 9}}});
}

Case Dense() {
  Symbol x = V("data");
  Symbol mp = S("Pooling", {x},
                {{"kernel", "(3, 3)"},
                 {"stride", "(2, 2)"},
                 {"pool_type", "max"},
                 {"pooling_convention", "full"}});
  Symbol e1 =
      S("Activation", {S("Convolution", {mp}, {{"kernel", "(1, 1)"}, {"num_filter", "3"}}, "e1")},
        {{"act_type", "relu"}});
  Symbol e3 = S("Activation",
                {S("Convolution", {mp},
                   {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "3"}}, "e3")},
                {{"act_type", "relu"}});
  Symbol cat = S("Concat", {e1, e3}, {{"dim", "1"}, {"num_args", "2"}});
  Symbol ap = S("Pooling", {cat},
                {{"kernel", "(3, 3)"},
                 {"stride", "(1, 1)"},
                 {"pad", "(1, 1)"},
                 {"pool_type", "avg"},
                 {"count_include_pad", "False"}});
  Symbol dc = S("Deconvolution", {ap},
                {{"kernel", "(2, 2)"},
                 {"stride", "(2, 2)"},
                 {"adj", "(1, 1)"},
                 {"num_filter", "4"},
                 {"no_bias", "False"}},
                "dc");
  Symbol gm =
      S("Pooling", {dc}, {{"global_pool", "True"}, {"pool_type", "max"}, {"kernel", "(1, 1)"}});
  return Make("dense", S("Flatten", {gm}), {{"data", Shape{2, 4, 11, 11}}});
}

Case Activations() {
  Symbol x = V("data");
  std::vector<Symbol> parts = {
      S("LeakyReLU", {x}, {{"act_type", "prelu"}}, "pr"),
      S("LeakyReLU", {x}, {{"act_type", "selu"}}),
      S("LeakyReLU", {x}, {{"act_type", "gelu"}}),
      S("LeakyReLU", {x}, {{"act_type", "elu"}, {"slope", "0.7"}}),
      S("hard_sigmoid", {x}, {{"alpha", "0.3"}, {"beta", "0.4"}}),
      S("Activation", {x}, {{"act_type", "softsign"}}),
      S("Activation", {x}, {{"act_type", "softrelu"}}),
      S("Activation", {x}, {{"act_type", "tanh"}}),
      S("relu", {x}),
  };
  Symbol sum = S("add_n", parts, {{"num_args", StrCat(parts.size())}});
  return Make("activations", S("log_softmax", {sum}, {{"axis", "1"}}),
              {{"data", Shape{2, 6, 3, 3}}});
}

Case Elemwise() {
  Symbol x = V("data"), w = sym::var("w", {.shape = Shape{1, 4, 5}});
  Symbol a = S("exp", {S("tanh", {x})});
  Symbol c = S("sqrt", {S("_plus_scalar", {S("abs", {x})}, {{"scalar", "1.0"}})});
  Symbol e = S("elemwise_mul", {a, S("log", {c})});
  Symbol f = S("_rminus_scalar", {e}, {{"scalar", "2.0"}});
  Symbol g = S("_rdiv_scalar", {S("_plus_scalar", {S("square", {f})}, {{"scalar", "1"}})},
               {{"scalar", "3"}});
  Symbol h = S("broadcast_mul", {g, w});
  Symbol i = S("broadcast_maximum", {h, S("_mul_scalar", {x}, {{"scalar", "0.5"}})});
  Symbol j = S("where", {S("broadcast_greater", {i, x}), i, S("negative", {x})});
  Symbol k = S("clip", {j}, {{"a_min", "-0.7"}, {"a_max", "0.8"}});
  Symbol l = S("elemwise_sub",
               {k, S("_div_scalar",
                     {S("rsqrt", {S("_plus_scalar", {S("square", {x})}, {{"scalar", "0.5"}})})},
                     {{"scalar", "4"}})});
  Symbol m = S("elemwise_add", {l, S("_power_scalar", {S("abs", {x})}, {{"scalar", "1.5"}})});
  Symbol n = S("broadcast_sub", {m, S("log1p", {S("abs", {w})})});
  Symbol o =
      S("broadcast_div", {n, S("_plus_scalar", {S("expm1", {S("abs", {w})})}, {{"scalar", "1"}})});
  Symbol p =
      S("elemwise_add", {o, S("_mul_scalar", {S("_lesser_equal_scalar", {x}, {{"scalar", "0.2"}})},
                              {{"scalar", "0.25"}})});
  Symbol q = S("elemwise_add",
               {p, S("_mul_scalar", {S("floor", {S("_mul_scalar", {x}, {{"scalar", "3"}})})},
                     {{"scalar", "0.1"}})});
  Symbol r = S("elemwise_add", {q, S("erf", {x})});
  Symbol s = S("elemwise_add", {r, S("sign", {x})});
  Symbol t = S("broadcast_minimum",
               {s, S("_plus_scalar",
                     {S("reciprocal", {S("_plus_scalar", {S("abs", {w})}, {{"scalar", "0.5"}})})},
                     {{"scalar", "0.5"}})});
  Symbol u = S("elemwise_add", {t, S("ones_like", {x})});
  Symbol v = S("elemwise_add", {u, S("sin", {S("ceil", {x})})});
  return Make("elemwise", v, {{"data", Shape{2, 4, 5}}});
}

Case Shapes() {
  Symbol x = V("data");
  Symbol r = S("Reshape", {x}, {{"shape", "(0, -1, 5)"}});         // (2, 12, 5)
  Symbol t = S("transpose", {r}, {{"axes", "(0, 2, 1)"}});         // (2, 5, 12)
  Symbol sw = S("SwapAxis", {t}, {{"dim1", "1"}, {"dim2", "2"}});  // (2, 12, 5)
  Symbol ex = S("expand_dims", {sw}, {{"axis", "1"}});             // (2, 1, 12, 5)
  Symbol sq = S("squeeze", {ex}, {{"axis", "(1,)"}});              // (2, 12, 5)
  Symbol sl = S("slice", {sq},
                {{"begin", "(None, 1, None)"},
                 {"end", "(None, 11, None)"},
                 {"step", "(None, 2, -1)"}});                                           // (2, 5, 5)
  Symbol sa = S("slice_axis", {sl}, {{"axis", "2"}, {"begin", "1"}, {"end", "None"}});  // (2, 5, 4)
  Symbol tl = S("tile", {sa}, {{"reps", "(1, 2)"}});                                    // (2, 5, 8)
  Symbol pd = S("Pad", {S("expand_dims", {tl}, {{"axis", "1"}})},
                {{"mode", "constant"},
                 {"pad_width", "(0, 0, 0, 0, 1, 1, 2, 0)"},
                 {"constant_value", "0.5"}});  // (2, 1, 7, 10)
  Symbol pe =
      S("Pad", {pd}, {{"mode", "edge"}, {"pad_width", "(0, 0, 0, 0, 1, 0, 0, 1)"}});  // (2,1,8,11)
  Symbol fl =
      S("Flatten",
        {S("slice_axis", {pe}, {{"axis", "3"}, {"begin", "0"}, {"end", "10"}})});  // (2, 80)
  Symbol st = S("stack", {fl, S("_mul_scalar", {fl}, {{"scalar", "2"}})},
                {{"axis", "1"}, {"num_args", "2"}});
  Symbol sp =
      S("SliceChannel", {st}, {{"num_outputs", "2"}, {"axis", "1"}, {"squeeze_axis", "True"}});
  Symbol bt =
      S("broadcast_to", {S("expand_dims", {sp[0]}, {{"axis", "1"}})}, {{"shape", "(0, 3, 0)"}});
  Symbol out1 = S("Concat", {bt, S("expand_dims", {sp[1]}, {{"axis", "1"}})},
                  {{"dim", "1"}, {"num_args", "2"}});
  Symbol out2 = S("Reshape", {sp[1]}, {{"shape", "(-1, 8, 10)"}});
  return Make("shapes", Symbol::Group({out1, out2}), {{"data", Shape{2, 3, 4, 5}}});
}

Case Reduce() {
  Symbol x = V("data"), w2 = sym::var("w2", {.shape = Shape{6, 3}});
  Symbol m1 = S("mean", {x}, {{"axis", "2"}});
  Symbol mx = S("max", {x}, {{"axis", "(0, 1)"}, {"exclude", "True"}});
  Symbol pr = S(
      "prod", {S("_plus_scalar", {S("_mul_scalar", {x}, {{"scalar", "0.1"}})}, {{"scalar", "1"}})},
      {{"axis", "2"}});
  Symbol nm = S("norm", {x}, {{"ord", "2"}, {"axis", "(2,)"}});
  Symbol am = S("argmax", {x}, {{"axis", "2"}});
  Symbol y = S("elemwise_add", {S("elemwise_add", {m1, mx}), S("elemwise_add", {pr, nm})});
  y = S("elemwise_add", {y, S("_mul_scalar", {am}, {{"scalar", "0.01"}})});
  Symbol fc = S("FullyConnected", {x}, {{"num_hidden", "3"}, {"flatten", "False"}}, "fcnf");
  Symbol dt = S("dot", {x, w2});
  Symbol bd = S("batch_dot", {fc, dt}, {{"transpose_b", "True"}});
  Symbol s1 = S("sum", {x}, {{"axis", "(1,)"}, {"keepdims", "True"}});
  Symbol n1 = S("norm", {x}, {{"ord", "1"}, {"axis", "(1,)"}, {"keepdims", "True"}});
  Symbol ln = S("LayerNorm", {x}, {{"axis", "-1"}}, "ln");
  Symbol ln2 = S("LayerNorm", {x}, {{"axis", "1"}}, "ln2");
  Symbol in = S("InstanceNorm", {x}, {}, "inorm");
  Symbol mn = S("min", {x}, {{"axis", "1"}});
  Symbol sm = S("softmax", {S("sum", {x}, {{"axis", "(2,)"}})}, {{"axis", "1"}});
  return Make("reduce",
              Symbol::Group({y, bd, S("broadcast_add", {s1, n1}),
                             S("elemwise_add", {S("elemwise_add", {ln, ln2}), in}), mn, sm}),
              {{"data", Shape{2, 4, 6}}});
}

Case Misc() {
  Symbol x = V("data"), ids = V("ids");
  Symbol up = S("UpSampling", {x}, {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}});
  Symbol pooled =
      S("Pooling", {up}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "avg"}});
  Symbol gt = S("_greater_scalar", {x}, {{"scalar", "0.1"}});
  Symbol y = S("where", {gt, S("_power_scalar", {S("abs", {x})}, {{"scalar", "1.5"}}),
                         S("zeros_like", {x})});
  Symbol z = S("elemwise_add", {y, pooled});
  Symbol emb =
      S("Embedding", {ids}, {{"input_dim", "10"}, {"output_dim", "4"}}, "emb");    // (2, 3, 4)
  Symbol idx = S("_arange", {}, {{"start", "3"}, {"stop", "0"}, {"step", "-2"}});  // [3, 1]
  Symbol tk = S("take", {emb, idx}, {{"axis", "2"}});                              // (2, 3, 2)
  Symbol cmp = S("broadcast_not_equal", {emb, S("_mul_scalar", {emb}, {{"scalar", "1"}})});
  return Make("misc", Symbol::Group({z, tk, cmp}),
              {{"data", Shape{2, 3, 4, 4}}, {"ids", Shape{2, 3}}});
}

Case More() {
  Symbol x = V("data");
  Symbol lp =
      S("Pooling", {x},
        {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "lp"}, {"p_value", "2"}});
  Symbol sa = S("SoftmaxActivation", {lp}, {{"mode", "channel"}});  // (2, 4, 3, 3)
  Symbol sm = S("softmin", {lp}, {{"axis", "1"}});
  Symbol sl = S("slice_like", {x, lp}, {{"axes", "(2, 3)"}});  // (2, 4, 3, 3)
  Symbol rl = S("reshape_like", {S("Flatten", {sl}), sl});
  Symbol ba = S("broadcast_axis", {S("sum", {rl}, {{"axis", "(1,)"}, {"keepdims", "True"}})},
                {{"axis", "(1,)"}, {"size", "(4,)"}});
  Symbol c =
      S("Cast", {S("_mul_scalar", {S("Cast", {ba}, {{"dtype", "float64"}})}, {{"scalar", "0.5"}})},
        {{"dtype", "float32"}});
  Symbol t = S("elemwise_add", {S("elemwise_add", {sa, sm}), c});
  Symbol tr =
      S("elemwise_add", {S("log2", {S("_plus_scalar", {S("abs", {t})}, {{"scalar", "1"}})}),
                         S("arcsin", {S("_mul_scalar", {S("tanh", {t})}, {{"scalar", "0.5"}})})});
  tr = S("elemwise_add",
         {tr, S("log10", {S("_plus_scalar", {S("square", {t})}, {{"scalar", "1"}})})});
  tr = S("elemwise_add", {tr, S("LeakyReLU", {t}, {{"act_type", "rrelu"}})[0]});
  Symbol pr = S("Pad", {tr}, {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 1, 1, 1, 1)"}});
  Symbol am = S("argmin", {x}, {{"axis", "1"}});
  Symbol sh = S("shape_array", {x});
  return Make("more", Symbol::Group({pr, am, sh}), {{"data", Shape{2, 4, 6, 6}}});
}

}  // namespace

NDArray Lcg(const Shape& shape, uint64_t seed, double lo, double hi) {
  std::vector<double> v(static_cast<size_t>(shape.Size()));
  uint64_t s = seed | 1;
  for (double& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  return NDArray::FromVector(v, shape, cpu(), DType::kFloat32);
}

std::vector<Case> AllCases() {
  sym::NameManager::Reset();  // the same automatic node names on every call
  return {Cnn(), Mobile(), Dense(), Activations(), Elemwise(), Shapes(), Reduce(), Misc(), More()};
}

NDArrayVec CaseInputs(const Case& c, int64_t batch) {
  NDArrayVec v;
  for (const auto& [name, shape] : c.inputs) {
    Shape s = shape;
    s[0] = batch;
    if (name == "ids") {  // integer-valued indices in [0, 10)
      NDArray a = Lcg(s, Hash(c.name + name), 0.0, 10.0);
      std::vector<float> f = a.ToVector<float>();
      for (float& e : f) e = std::floor(e);
      v.push_back(NDArray::FromVector(f, s));
    } else {
      v.push_back(Lcg(s, Hash(c.name + name + StrCat(batch)), -1.0, 1.0));
    }
  }
  return v;
}

NDArrayVec Forward(const Case& c, const NDArrayVec& inputs) {
  std::vector<std::string> names;
  for (const auto& [n, _] : c.inputs) names.push_back(n);
  auto block = std::make_shared<SymbolBlock>(c.graph, names);
  std::vector<std::pair<std::string, NDArray>> dict(c.params.begin(), c.params.end());
  ThrowIfError(block->load_dict(dict));
  return (*block)(inputs);
}

}  // namespace mxnet::gluon::onnx_testing
