// Our side of tools/conformance/report.py: runs the cases of freshly generated MXNet 1.9.1
// reference files through our libraries and writes OUR results as JSON (no comparison here:
// report.py compares them with MXNet's values and computes every error it reports).
//
//   dump_ours ops        CASES.json OUT.json   op cases normalized by report.py: forward (default
//                                              dispatch, the given train/record flags), visible
//                                              outputs, inputs after the call (aux states) and
//                                              the op's gradient for the given head gradients
//   dump_ours optim      OPS.json OUT.json     gen_optim_refs.py ops.json: three in-place updates
//   dump_ours layers     DIR OUT.json          gen_layer_refs.py DIR (refs.json + <case>.params),
//                                              imperative and hybridized
//   dump_ours losses     LOSSES.json OUT.json  gen_loss_refs.py, imperative and hybridized
//   dump_ours init       INIT.json OUT.json    gen_init_refs.py: statistics of our draws, exact
//                                              values, dumps()
//   dump_ours optimizers OPT.json OUT.json     gen_optim_refs.py optimizers.json: three updates
//   dump_ours sparse     CASES.json OUT.json   gen_sparse_{elemwise,graph}_refs.py cases
//                                              (csr / row_sparse inputs by their parts or
//                                              dense values + stype): every output's stype,
//                                              dtype, shape, dense values and stored parts
//   dump_ours read       OUT.json FILE...      nd::load of each file: kind, names, arrays
//   dump_ours model      DIR OUT.json PREFIX   the seeds' Model (gen_gluon_refs.py DIR): loads
//                                              MXNet's model.params, forward/backward, then
//                                              PREFIX.params (save_parameters) and export_model
//   dump_ours mzload     DIR WORK OUT.json     gen_modelzoo_refs.py DIR/load: loads MXNet's
//                                              <case>.params, runs WORK/<case>-input.nd, writes
//                                              WORK/<case>-ours.nd and WORK/<case>-ours.params
//
// Each case is run inside its own try/catch; an exception becomes the case's "error" field.
// The layer, loss and model-zoo constructors below are the C++ twins of the generators' Python
// constructors (the same ones the unit tests use); keep them in step with the generators.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "gluon/block.h"
#include "gluon/init.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/activations.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "gluon/training/lr_scheduler.h"
#include "gluon/training/optimizer.h"
#include "modelzoo/densenet.h"
#include "modelzoo/resnet.h"
#include "modelzoo/vision.h"
#include "ndarray/grad.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"
#include "ndarray/sparse.h"

namespace mxnet::conformance {
namespace {

using json = nlohmann::json;
namespace nn = gluon::nn;

// ---------------------------------------------------------------------------------------------
// JSON <-> NDArray.

double Num(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan" || s == "NaN") return std::nan("");
    if (s == "inf" || s == "Infinity") return INFINITY;
    if (s == "-inf" || s == "-Infinity") return -INFINITY;
    return std::stod(s);
  }
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return v.get<double>();
}

// {"shape", "dtype" (default float32), "data" or "values"}.
NDArray ArrIn(const json& a, DType fallback = DType::kFloat32) {
  Shape shape(a.at("shape").get<std::vector<int64_t>>());
  DType t = fallback;
  if (a.contains("dtype")) t = ValueOrThrow(DTypeFromName(a["dtype"].get<std::string>()));
  const json& d = a.contains("data") ? a["data"] : a.at("values");
  std::vector<double> v;
  v.reserve(d.size());
  for (const auto& x : d) v.push_back(Num(x));
  return NDArray::FromVector(v, shape, cpu(), t);
}

json Float(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

json ArrOut(const NDArray& a) {
  json e;
  e["shape"] = a.shape().ToVector();
  e["dtype"] = std::string(DTypeName(a.dtype()));
  json d = json::array();
  const DType t = a.dtype();
  if (IsFloatingPoint(t)) {
    for (double x : a.ToVector<double>()) d.push_back(Float(x));
  } else if (t == DType::kUint8 || t == DType::kUint16 || t == DType::kUint32 ||
             t == DType::kUint64) {
    for (uint64_t x : a.ToVector<uint64_t>()) d.push_back(x);
  } else {
    for (int64_t x : a.ToVector<int64_t>()) d.push_back(x);
  }
  e["data"] = std::move(d);
  return e;
}

json Load(const std::string& path) {
  std::ifstream f(path);
  if (!f.good()) MX_THROW(absl::StatusCode::kNotFound, "cannot open ", path);
  return json::parse(f);
}

void Write(const std::string& path, const json& j) {
  std::ofstream f(path);
  f << j.dump() << "\n";
  if (!f.good()) MX_THROW(absl::StatusCode::kInternal, "cannot write ", path);
}

// Runs `f`, turning an exception into r["error"].
template <typename F>
void Guard(json& r, F f) {
  try {
    f();
  } catch (const std::exception& e) {
    r["error"] = e.what();
  }
}

AttrDict Attrs(const json& j) {
  AttrDict d;
  for (auto& [k, v] : j.items()) d[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return d;
}

// The current context's train/record flags for a scope (what autograd.record(train_mode) sets).
class ModeScope : public DispatchStateScope {
 public:
  ModeScope(bool train, bool record) {
    state().is_training = train;
    state().is_recording = record;
  }
};

std::vector<NDArray> Copies(const std::vector<NDArray>& in) {
  std::vector<NDArray> out;
  for (const auto& a : in) out.push_back(a.copy());
  return out;
}

// ---------------------------------------------------------------------------------------------
// ops: {"cases": [{"id", "op", "attrs", "inputs", "train", "record", "head_grads" (optional;
// null entries and missing trailing ones are zeros), "grads": bool}]}.

json RunOpCase(const json& c) {
  json r;
  r["id"] = c["id"];
  Guard(r, [&] {
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    OpAttrs attrs = OpAttrs::Parse(op, Attrs(c["attrs"]));
    std::vector<NDArray> in;
    for (const auto& a : c["inputs"]) in.push_back(ArrIn(a));
    const bool train = c.value("train", false), record = c.value("record", false);
    std::vector<NDArray> cin = Copies(in);
    NDArrayVec out;
    {
      ModeScope mode(train, record);
      out = Invoke(op, attrs, cin);
    }
    const int visible = op.NumVisibleOutputs(attrs);
    json outs = json::array();
    for (int k = 0; k < visible && k < static_cast<int>(out.size()); ++k)
      outs.push_back(ArrOut(out[k]));
    r["outputs"] = outs;
    json after = json::array();
    for (const auto& a : cin) after.push_back(ArrOut(a));
    r["inputs_after"] = after;
    if (!c.value("grads", false)) return;
    try {
      ModeScope mode(train, false);
      std::vector<NDArray> gin = Copies(in);
      NDArrayVec o2 = Invoke(op, attrs, gin);
      std::vector<NDArray> ov(o2.begin(), o2.end()), og;
      const json hg = c.value("head_grads", json::array());
      for (size_t k = 0; k < ov.size(); ++k) {
        if (k < hg.size() && !hg[k].is_null())
          og.push_back(ArrIn(hg[k]).astype(ov[k].dtype()));
        else
          og.push_back(NDArray::Full(ov[k].shape(), 0, cpu(), ov[k].dtype()));
      }
      std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, gin, ov, og);
      json grads = json::array();
      for (const auto& x : g) grads.push_back(x.is_none() ? json() : ArrOut(x));
      r["grads"] = grads;
    } catch (const std::exception& e) {
      r["grad_error"] = e.what();
    }
  });
  return r;
}

json DumpOps(const json& doc) {
  json res = json::array();
  for (const auto& c : doc["cases"]) res.push_back(RunOpCase(c));
  return {{"results", res}};
}

// ---------------------------------------------------------------------------------------------
// sparse: {"cases": [{"op", "attrs", "inputs"}]}, inputs {"stype", "dtype", "shape"} with
// "values" (dense, cast to stype) or stored parts ("data" [+ "data_shape"], "indices"
// [+ "indptr" for csr]); results {"outputs": [{"stype", "dtype", "shape", "values", "entries"
// (csr: [row, col, value] in stored order) | "indices" + "data" (row_sparse)}]} or {"error"}.

NDArray SparseIn(const json& s) {
  DType t = ValueOrThrow(DTypeFromName(s.at("dtype").get<std::string>()));
  Shape shape(s.at("shape").get<std::vector<int64_t>>());
  const std::string stype = s.at("stype").get<std::string>();
  auto nums = [](const json& a) {
    std::vector<double> v;
    for (const auto& x : a) v.push_back(Num(x));
    return v;
  };
  auto ints = [](const json& a) {
    std::vector<int64_t> v = a.get<std::vector<int64_t>>();
    return NDArray::FromVector(v, Shape({static_cast<int64_t>(v.size())}), cpu(), DType::kInt64);
  };
  if (s.contains("indptr")) {
    std::vector<double> d = nums(s["data"]);
    return csr_matrix(NDArray::FromVector(d, Shape({static_cast<int64_t>(d.size())}), cpu(), t),
                      ints(s["indices"]), ints(s["indptr"]), shape);
  }
  if (s.contains("indices")) {
    NDArray d = NDArray::FromVector(
        nums(s["data"]), Shape(s.at("data_shape").get<std::vector<int64_t>>()), cpu(), t);
    return row_sparse_array(d, ints(s["indices"]), shape);
  }
  NDArray d = NDArray::FromVector(nums(s.at("values")), shape, cpu(), t);
  return d.tostype(ValueOrThrow(ParseStorageType(stype)));
}

json SparseOut(const NDArray& y) {
  json e;
  e["stype"] = std::string(StorageTypeName(y.stype()));
  e["dtype"] = std::string(DTypeName(y.dtype()));
  e["shape"] = y.shape().ToVector();
  json v = json::array();
  for (double x : y.ToVector<double>()) v.push_back(Float(x));
  e["values"] = std::move(v);
  if (y.stype() == StorageType::kCSR) {
    std::vector<int64_t> ptr = y.indptr().ToVector<int64_t>(),
                         idx = y.indices().ToVector<int64_t>();
    std::vector<double> d = y.data().ToVector<double>();
    json en = json::array();
    for (size_t r = 0; r + 1 < ptr.size(); ++r)
      for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
        en.push_back(json::array({static_cast<int64_t>(r), idx[k], Float(d[k])}));
    e["entries"] = std::move(en);
  } else if (y.stype() == StorageType::kRowSparse) {
    e["indices"] = y.indices().ToVector<int64_t>();
    json d = json::array();
    for (double x : y.data().ToVector<double>()) d.push_back(Float(x));
    e["data"] = std::move(d);
  }
  return e;
}

json DumpSparse(const json& doc) {
  random::seed(11);
  json res = json::array();
  for (const auto& c : doc["cases"]) {
    json r;
    Guard(r, [&] {
      std::vector<NDArray> in;
      for (const auto& a : c["inputs"]) in.push_back(SparseIn(a));
      NDArrayVec out = Invoke(c["op"].get<std::string>(), in, Attrs(c["attrs"]));
      json outs = json::array();
      for (const auto& y : out) outs.push_back(SparseOut(y));
      r["outputs"] = std::move(outs);
    });
    res.push_back(std::move(r));
  }
  return {{"results", res}};
}

// ---------------------------------------------------------------------------------------------
// optim: the fused update ops, called with out=weight like MXNet's optimizers (three steps).

// A "multi" case (multi-tensor ops, gen_optim_refs.py gen_multi_ops): all inputs in op order;
// each step puts fresh gradients at grad_index, writes the outputs into the inputs at out_index
// (or fresh arrays, initialized from out_init when given) and records output 0 (input 0 for ops
// without outputs), all outputs and all inputs after the call.
json RunMultiOptimCase(const Op& op, const json& c, std::vector<NDArray>& in) {
  const OpAttrs attrs = OpAttrs::Parse(op, Attrs(c["attrs"]));
  std::vector<int> grad_index = c.value("grad_index", std::vector<int>{});
  json steps = json::array();
  for (size_t t = 0; t < c["steps"].size(); ++t) {
    for (size_t j = 0; j < grad_index.size(); ++j) in[grad_index[j]] = ArrIn(c["grads"][t][j]);
    std::vector<NDArray> outs;
    if (c.contains("out_index") && !c["out_index"].is_null()) {
      for (int i : c["out_index"].get<std::vector<int>>()) outs.push_back(in[i]);
      InvokeInto(op, attrs, in, outs);
    } else if (c.contains("out_init")) {
      for (const auto& j : c["out_init"]) outs.push_back(ArrIn(j));
      InvokeInto(op, attrs, in, outs);
    } else {
      NDArrayVec o = Invoke(op, attrs, in);
      outs.assign(o.begin(), o.end());
    }
    json all = json::array(), a = json::array();
    for (const auto& x : outs) all.push_back(ArrOut(x));
    for (const auto& x : in) a.push_back(ArrOut(x));
    steps.push_back(
        {{"out", ArrOut(outs.empty() ? in[0] : outs[0])}, {"outputs", all}, {"args", a}});
  }
  return steps;
}

json DumpOptim(const json& doc) {
  json res = json::array();
  for (const auto& c : doc["cases"]) {
    json r;
    r["name"] = c["name"];
    Guard(r, [&] {
      const Op& op = OpRegistry::Get(c["op"].get<std::string>());
      std::vector<NDArray> in;
      for (const auto& j : c["inputs"]) in.push_back(ArrIn(j));
      json steps = json::array();
      if (c.value("multi", false)) {
        r["steps"] = RunMultiOptimCase(op, c, in);
        return;
      }
      if (c.value("single", false)) {
        NDArray w = in[0];
        InvokeInto(op, OpAttrs::Parse(op, Attrs(c["attrs"])), in, std::vector<NDArray>{w});
        steps.push_back({{"out", ArrOut(w)}, {"args", json::array()}});
        r["steps"] = steps;
        return;
      }
      NDArray weight = in[0];
      std::vector<NDArray> states(in.begin() + 1, in.end()), extra;
      for (const auto& j : c["extra"]) extra.push_back(ArrIn(j));
      const bool returns_g = c.value("returns_g", false);
      for (size_t t = 0; t < c["grads"].size(); ++t) {
        AttrDict ad = Attrs(c["attrs"]);
        if (c.contains("step_attrs") && t < c["step_attrs"].size())
          for (auto& [k, v] : Attrs(c["step_attrs"][t])) ad[k] = v;
        std::vector<NDArray> args{weight, ArrIn(c["grads"][t])};
        args.insert(args.end(), states.begin(), states.end());
        args.insert(args.end(), extra.begin(), extra.end());
        NDArray out = weight;
        if (returns_g) {
          const json& want = c["steps"][t]["out"];
          out = NDArray(Shape(want["shape"].get<std::vector<int64_t>>()), cpu(),
                        ValueOrThrow(DTypeFromName(want["dtype"].get<std::string>())));
        }
        InvokeInto(op, OpAttrs::Parse(op, ad), args, std::vector<NDArray>{out});
        json a = json::array();
        for (const auto& x : args) a.push_back(ArrOut(x));
        steps.push_back({{"out", ArrOut(out)}, {"args", a}});
      }
      r["steps"] = steps;
    });
    res.push_back(r);
  }
  return {{"results", res}};
}

// ---------------------------------------------------------------------------------------------
// layers: the C++ twin of every case of gen_layer_refs.py (as in gluon/nn/layers_test.cc).

template <typename T, typename... Args>
std::function<gluon::BlockPtr()> Make(Args... args) {
  return [=] { return std::static_pointer_cast<gluon::Block>(std::make_shared<T>(args...)); };
}

const std::map<std::string, std::function<gluon::BlockPtr()>>& Layers() {
  using namespace nn;  // NOLINT(build/namespaces)
  static const auto* m = new std::map<std::string, std::function<gluon::BlockPtr()>>{
      {"dense_flatten", Make<Dense>(5, DenseOptions{.activation = "tanh"})},
      {"dense_no_flatten", Make<Dense>(4, DenseOptions{.use_bias = false, .flatten = false})},
      {"dense_in_units", Make<Dense>(3, DenseOptions{.in_units = 4})},
      {"conv1d", Make<Conv1D>(4, Shape{3}, ConvOptions{.strides = Shape{2}, .padding = Shape{1}})},
      {"conv1d_dilation", Make<Conv1D>(2, Shape{3}, ConvOptions{.dilation = Shape{2}, .use_bias = false})},
      {"conv2d_relu", Make<Conv2D>(4, Shape{3, 3}, ConvOptions{.padding = Shape{1}, .activation = "relu"})},
      {"conv2d_groups_dilation",
       Make<Conv2D>(4, Shape{3},
                    ConvOptions{.strides = Shape{1, 2}, .dilation = Shape{2}, .groups = 2, .in_channels = 4})},
      {"conv2d_nhwc", Make<Conv2D>(3, Shape{2, 3}, ConvOptions{.padding = Shape{1, 0}, .layout = "NHWC"})},
      {"conv3d", Make<Conv3D>(2, Shape{2, 2, 2}, ConvOptions{.padding = Shape{1, 0, 0}})},
      {"conv2d_transpose",
       Make<Conv2DTranspose>(3, Shape{3},
                             ConvOptions{.strides = Shape{2}, .padding = Shape{1}, .output_padding = Shape{1}})},
      {"conv1d_transpose_groups",
       Make<Conv1DTranspose>(4, Shape{3}, ConvOptions{.strides = Shape{2}, .groups = 2, .in_channels = 4})},
      {"conv3d_transpose", Make<Conv3DTranspose>(2, Shape{2}, ConvOptions{.strides = Shape{2}})},
      {"maxpool1d", Make<MaxPool1D>(Shape{2}, PoolOptions{})},
      {"maxpool2d_ceil", Make<MaxPool2D>(Shape{3}, PoolOptions{.strides = Shape{2}, .ceil_mode = true})},
      {"maxpool2d_nhwc", Make<MaxPool2D>(Shape{2}, PoolOptions{.layout = "NHWC"})},
      {"maxpool3d", Make<MaxPool3D>(Shape{1, 2, 2}, PoolOptions{.padding = Shape{0, 1, 1}})},
      {"avgpool2d_exclude_pad",
       Make<AvgPool2D>(Shape{3},
                       PoolOptions{.strides = Shape{2}, .padding = Shape{1}, .count_include_pad = false})},
      {"avgpool2d_include_pad_ceil",
       Make<AvgPool2D>(Shape{3}, PoolOptions{.strides = Shape{2}, .padding = Shape{1}, .ceil_mode = true})},
      {"avgpool1d", Make<AvgPool1D>(Shape{3}, PoolOptions{.strides = Shape{1}, .padding = Shape{1}})},
      {"avgpool3d", Make<AvgPool3D>(Shape{2}, PoolOptions{})},
      {"global_maxpool2d", Make<GlobalMaxPool2D>("")},
      {"global_avgpool1d", Make<GlobalAvgPool1D>("")},
      {"global_avgpool3d", Make<GlobalAvgPool3D>("")},
      {"batchnorm_train", Make<BatchNorm>(BatchNormOptions{})},
      {"batchnorm_predict", Make<BatchNorm>(BatchNormOptions{.in_channels = 3})},
      {"batchnorm_axis_last_train",
       Make<BatchNorm>(BatchNormOptions{.axis = -1, .momentum = 0.8, .center = false})},
      {"batchnorm_no_scale_train", Make<BatchNorm>(BatchNormOptions{.epsilon = 1e-3, .scale = false})},
      {"layernorm", Make<LayerNorm>()},
      {"layernorm_axis1", Make<LayerNorm>(1, 1e-3, /*center=*/false)},
      {"groupnorm", Make<GroupNorm>(2)},
      {"instancenorm", Make<InstanceNorm>(1, 1e-5, true, /*scale=*/true)},
      {"instancenorm_axis2", Make<InstanceNorm>(2, 1e-3, true, /*scale=*/true)},
      {"embedding", Make<Embedding>(10, 4)},
      {"dropout_predict", Make<Dropout>(0.5)},
      {"dropout_axes_predict", Make<Dropout>(0.3, Shape{1})},
      {"flatten", Make<Flatten>()},
      {"activation_softrelu", Make<Activation>("softrelu")},
      {"leakyrelu", Make<LeakyReLU>(0.1)},
      {"prelu", Make<PReLU>()},
      {"prelu_channels", Make<PReLU>(nullptr, 3)},
      {"elu", Make<ELU>(0.7)},
      {"selu", Make<SELU>()},
      {"gelu", Make<GELU>()},
      {"swish", Make<Swish>(1.5)},
      {"hybrid_concurrent",
       [] {
         auto c = std::make_shared<HybridConcatenate>(1);
         c->add({std::make_shared<Dense>(3), std::make_shared<Dense>(2, DenseOptions{.activation = "relu"})});
         return std::static_pointer_cast<gluon::Block>(c);
       }},
      {"reflection_pad2d", Make<ReflectionPad2D>(2)},
      {"sequential_train",
       [] {
         auto s = std::make_shared<HybridSequential>();
         s->add({std::make_shared<Conv2D>(4, Shape{3}, ConvOptions{.padding = Shape{1}}),
                 std::make_shared<BatchNorm>(), std::make_shared<Activation>("relu"),
                 std::make_shared<MaxPool2D>(Shape{2}), std::make_shared<Flatten>(),
                 std::make_shared<Dense>(3)});
         return std::static_pointer_cast<gluon::Block>(s);
       }},
  };
  return *m;
}

json DumpLayers(const std::string& dir) {
  json refs = Load(dir + "/refs.json");
  json res = json::array();
  for (const auto& c : refs["cases"]) {
    for (bool hybrid : {false, true}) {
      json r;
      r["name"] = c["name"];
      r["hybridized"] = hybrid;
      Guard(r, [&] {
        const std::string name = c["name"];
        auto it = Layers().find(name);
        if (it == Layers().end())
          MX_THROW(absl::StatusCode::kNotFound, "no C++ layer for case ", name);
        gluon::BlockPtr block = it->second();
        r["repr_init"] = block->ToString();
        ThrowIfError(block->load_parameters(dir + "/" + name + ".params"));
        gluon::ParameterDict params = block->collect_params();
        json plist = json::array();
        for (const auto& [pname, p] : params)
          plist.push_back({{"name", pname},
                           {"shape", p->shape().ToVector()},
                           {"grad_req_null", p->grad_req() == GradReq::kNull}});
        r["params"] = plist;
        if (hybrid) block->hybridize();
        const bool train = c["train"].get<bool>();
        NDArray x = ArrIn(c["input"]);
        const bool input_grad = !c["input_grad"].is_null();
        if (input_grad) x.attach_grad();
        NDArray y;
        {
          auto rec = autograd::record(train);
          y = (*block)(x);
        }
        r["output"] = ArrOut(y);
        y.backward(ArrIn(c["head_grad"]), /*retain_graph=*/false, /*train_mode=*/train);
        if (input_grad) r["input_grad"] = ArrOut(x.grad());
        json grads = json::object(), data = json::object();
        for (const auto& [pname, p] : params) {
          if (p->grad_req() != GradReq::kNull) grads[pname] = ArrOut(p->grad());
          data[pname] = ArrOut(p->data());
        }
        r["param_grads"] = grads;
        r["params_after"] = data;
        r["repr"] = block->ToString();
      });
      res.push_back(r);
    }
  }
  return {{"results", res}};
}

// ---------------------------------------------------------------------------------------------
// losses: gluon.loss class name + kwargs (as gluon/loss/loss_test.cc builds them).

std::shared_ptr<gluon::loss::Loss> MakeLoss(const std::string& cls, const json& kw) {
  using namespace gluon::loss;  // NOLINT(build/namespaces)
  auto num = [&](const char* k, double d) { return kw.contains(k) ? kw[k].get<double>() : d; };
  auto flag = [&](const char* k, bool d) { return kw.contains(k) ? kw[k].get<bool>() : d; };
  auto integer = [&](const char* k, int d) { return kw.contains(k) ? kw[k].get<int>() : d; };
  std::optional<double> w;
  if (kw.contains("weight")) w = kw["weight"].get<double>();
  const int ba = integer("batch_axis", 0);
  if (cls == "L1Loss") return std::make_shared<L1Loss>(w, ba);
  if (cls == "L2Loss") return std::make_shared<L2Loss>(w.value_or(1.0), ba);
  if (cls == "SigmoidBinaryCrossEntropyLoss")
    return std::make_shared<SigmoidBCELoss>(flag("from_sigmoid", false), w, ba);
  if (cls == "SoftmaxCrossEntropyLoss")
    return std::make_shared<SoftmaxCELoss>(integer("axis", -1), flag("sparse_label", true),
                                           flag("from_logits", false), w, ba);
  if (cls == "KLDivLoss")
    return std::make_shared<KLDivLoss>(flag("from_logits", true), integer("axis", -1), w, ba);
  if (cls == "HuberLoss") return std::make_shared<HuberLoss>(num("rho", 1), w, ba);
  if (cls == "HingeLoss") return std::make_shared<HingeLoss>(num("margin", 1), w, ba);
  if (cls == "SquaredHingeLoss") return std::make_shared<SquaredHingeLoss>(num("margin", 1), w, ba);
  if (cls == "LogisticLoss")
    return std::make_shared<LogisticLoss>(w, ba, kw.value("label_format", std::string("signed")));
  if (cls == "TripletLoss") return std::make_shared<TripletLoss>(num("margin", 1), w, ba);
  if (cls == "PoissonNLLLoss")
    return std::make_shared<PoissonNLLLoss>(w, flag("from_logits", true), ba,
                                            flag("compute_full", false));
  if (cls == "CosineEmbeddingLoss")
    return std::make_shared<CosineEmbeddingLoss>(w, ba, num("margin", 0));
  MX_THROW(absl::StatusCode::kNotFound, "no C++ twin for loss ", cls);
}

json DumpLosses(const json& doc) {
  json res = json::array();
  for (const auto& c : doc["cases"]) {
    for (bool hybrid : {false, true}) {
      json r;
      r["name"] = c["name"];
      r["hybridized"] = hybrid;
      Guard(r, [&] {
        auto loss = MakeLoss(c["loss"], c["kwargs"]);
        r["repr"] = loss->ToString();
        if (hybrid) loss->hybridize();
        NDArrayVec in;
        for (size_t i = 0; i < c["inputs"].size(); ++i) {
          in.push_back(ArrIn(c["inputs"][i]));
          if (c["grad"][i].get<bool>()) in.back().attach_grad();
        }
        const bool with_grad = !c["head_grad"].is_null();
        NDArray out;
        if (with_grad) {
          auto rec = autograd::record();
          out = (*loss)(in)[0];
        } else {
          out = (*loss)(in)[0];
        }
        r["output"] = ArrOut(out);
        if (!with_grad) return;
        out.backward(ArrIn(c["head_grad"]));
        json grads = json::array();
        for (size_t i = 0; i < in.size(); ++i)
          grads.push_back(c["grad"][i].get<bool>() ? ArrOut(in[i].grad()) : json());
        r["grads"] = grads;
      });
      res.push_back(r);
    }
  }
  return {{"results", res}};
}

// ---------------------------------------------------------------------------------------------
// init: the same statistics gen_init_refs.py computes, over our draws (seeds 1000 + s).

json DumpInit(const json& doc) {
  json stats = json::array(), exact = json::array(), dumps = json::object();
  for (const auto& r : doc["stats"]) {
    json o;
    o["spec"] = r["spec"];
    o["shape"] = r["shape"];
    o["param"] = r["param"];
    Guard(o, [&] {
      const std::string spec = r["spec"];
      Shape shape(r["shape"].get<std::vector<int64_t>>());
      gluon::InitializerPtr init = gluon::init::Create(spec);
      std::vector<double> all;
      double gram_dev = 0, sumsq_total = 0;
      const int seeds = r["seeds"].get<int>();
      const bool ortho = r.contains("gram_dev");
      double scale = 1.414;
      if (ortho && spec[0] == '[') scale = json::parse(spec)[1].value("scale", 1.414);
      for (int s = 0; s < seeds; ++s) {
        random::seed(1000 + s);
        NDArray a(shape, cpu(), DType::kFloat32);
        (*init)(r["param"].get<std::string>(), a);
        std::vector<double> v;
        for (float x : a.ToVector<float>()) v.push_back(x);
        all.insert(all.end(), v.begin(), v.end());
        if (ortho) {  // W as (nout, nin); G = W W^T (nout <= nin) or W^T W
          const int64_t nout = shape[0], nin = shape.Size() / nout;
          const bool rows = nout <= nin;
          const int64_t k = rows ? nout : nin, len = rows ? nin : nout;
          auto at = [&](int64_t vec, int64_t i) {
            return rows ? v[vec * nin + i] : v[i * nin + vec];
          };
          for (int64_t p = 0; p < k; ++p)
            for (int64_t q = 0; q < k; ++q) {
              double g = 0;
              for (int64_t i = 0; i < len; ++i) g += at(p, i) * at(q, i);
              gram_dev = std::max(gram_dev, std::abs(g - (p == q ? scale * scale : 0.0)));
            }
          double ss = 0;
          for (double x : v) ss += x * x;
          sumsq_total += ss;
        }
      }
      double mean = 0, mn = all.empty() ? 0 : all[0], mx = mn, mean_abs = 0, var = 0;
      for (double x : all)
        mean += x, mean_abs += std::abs(x), mn = std::min(mn, x), mx = std::max(mx, x);
      mean /= all.size();
      mean_abs /= all.size();
      for (double x : all) var += (x - mean) * (x - mean);
      o["n"] = all.size();
      o["mean"] = mean;
      o["std"] = std::sqrt(var / all.size());
      o["min"] = mn;
      o["max"] = mx;
      o["mean_abs"] = mean_abs;
      if (ortho) {
        o["gram_dev"] = gram_dev;
        o["sumsq"] = sumsq_total / seeds;
      }
    });
    stats.push_back(o);
  }
  for (const auto& r : doc["exact"]) {
    json o;
    o["spec"] = r["spec"];
    o["param"] = r["param"];
    o["shape"] = r["shape"];
    Guard(o, [&] {
      random::seed(7);
      NDArray a(Shape(r["shape"].get<std::vector<int64_t>>()), cpu(), DType::kFloat32);
      (*gluon::init::Create(r["spec"]))(r["param"].get<std::string>(), a);
      o["data"] = ArrOut(a)["data"];
    });
    exact.push_back(o);
  }
  for (auto& [spec, text] : doc["dumps"].items()) {
    try {
      dumps[spec] = gluon::init::Create(spec)->dumps();
    } catch (const std::exception& e) {
      dumps[spec] = std::string("error: ") + e.what();
    }
  }
  return {{"stats", stats}, {"exact", exact}, {"dumps", dumps}};
}

// ---------------------------------------------------------------------------------------------
// optimizers: Create(name, kwargs) and three update_multi_precision calls.

gluon::LRSchedulerPtr MakeScheduler(const json& spec) {
  namespace ls = gluon::lr_scheduler;
  const std::string type = spec["type"];
  const double base_lr = spec.value("base_lr", 0.01);
  if (type == "factor")
    return std::make_shared<ls::FactorScheduler>(spec["step"].get<int64_t>(),
                                                 spec.value("factor", 1.0),
                                                 spec.value("stop_factor_lr", 1e-8), base_lr);
  if (type == "poly")
    return std::make_shared<ls::PolyScheduler>(spec["max_update"].get<int64_t>(), base_lr,
                                               spec.value("pwr", 2.0));
  MX_THROW(absl::StatusCode::kNotFound, "scheduler type ", type);
}

gluon::Kwargs ToKwargs(const json& kw) {
  gluon::Kwargs out;
  for (auto& [k, v] : kw.items()) {
    if (k == "lr_scheduler")
      out.emplace(k, MakeScheduler(v));
    else if (v.is_boolean())
      out.emplace(k, v.get<bool>());
    else if (v.is_null())
      out.emplace(k, gluon::None);
    else
      out.emplace(k, v.get<double>());
  }
  return out;
}

json DumpOptimizers(const json& doc) {
  namespace opt = gluon::optimizer;
  json res = json::array();
  for (const auto& c : doc["cases"]) {
    json r;
    r["name"] = c["name"];
    Guard(r, [&] {
      opt::OptimizerPtr o = opt::Create(c["optimizer"], ToKwargs(c["kwargs"]));
      o->set_lr_mult({{0, c["lr_mult"].get<double>()}});
      o->set_wd_mult({{0, c["wd_mult"].get<double>()}});
      NDArray w = ArrIn(c["weight"]);
      opt::State st = o->create_state_multi_precision(0, w);
      json weights = json::array(), lrs = json::array();
      for (size_t t = 0; t < c["grads"].size(); ++t) {
        o->update_multi_precision(0, w, ArrIn(c["grads"][t]), st);
        weights.push_back(ArrOut(w));
        lrs.push_back(o->learning_rate());
      }
      r["weights"] = weights;
      r["lrs"] = lrs;
    });
    res.push_back(r);
  }
  json names = json::array();
  for (const auto& n : opt::List()) names.push_back(n);
  return {{"results", res}, {"registered", names}};
}

// ---------------------------------------------------------------------------------------------
// read: what our reader makes of NDArray files (exact values; bfloat16 also as bits).

json DumpRead(const std::vector<std::string>& files) {
  json res = json::array();
  for (const auto& path : files) {
    json r;
    r["file"] = path;
    Guard(r, [&] {
      nd::NDArrayFile f = ValueOrThrow(nd::load(path));
      r["kind"] = f.is_dict ? "dict" : "list";
      r["names"] = f.names;
      json arrays = json::array();
      for (size_t i = 0; i < f.arrays.size(); ++i) {
        const NDArray& a = f.arrays[i];
        if (a.is_none()) {
          arrays.push_back(json());
          continue;
        }
        json e = ArrOut(a);
        e["stype"] = std::string(nd::StorageTypeName(f.records[i].stype));
        e["record_version"] = static_cast<int>(f.records[i].version);
        if (a.dtype() == DType::kBFloat16) {
          std::vector<uint16_t> bits(static_cast<size_t>(a.size()));
          a.SyncCopyToCPU(bits.data(), a.nbytes());
          e["bits"] = bits;
        }
        arrays.push_back(e);
      }
      r["arrays"] = arrays;
    });
    res.push_back(r);
  }
  return {{"results", res}};
}

// ---------------------------------------------------------------------------------------------
// model: the Model of ../shared/seeds/gluon-hybridblock-api.txt (gen_gluon_refs.py).

class Model : public gluon::HybridBlock {
 public:
  Model() {
    dense0 = register_child(std::make_shared<nn::Dense>(20), "dense0");
    dense1 = register_child(std::make_shared<nn::Dense>(20), "dense1");
  }
  NDArray forward(const NDArray& x) override { return nd::relu((*dense1)(nd::relu((*dense0)(x)))); }
  std::string class_name() const override { return "Model"; }
  std::shared_ptr<nn::Dense> dense0, dense1;
};

NDArray Flat(const json& values, Shape shape) {
  std::vector<double> v;
  for (const auto& x : values) v.push_back(Num(x));
  return NDArray::FromVector(v, shape, cpu(), DType::kFloat32);
}

json DumpModel(const std::string& dir, const std::string& prefix) {
  json r;
  Guard(r, [&] {
    json ref = Load(dir + "/model.json");
    auto model = std::make_shared<Model>();
    ThrowIfError(model->load_parameters(dir + "/model.params"));
    const int64_t n = static_cast<int64_t>(ref["input"].size()) / 10;
    NDArray x = Flat(ref["input"], Shape{n, 10});
    x.attach_grad();
    NDArray y;
    {
      auto rec = autograd::record();
      y = (*model)(x);
    }
    y.backward(Flat(ref["head_grad"], y.shape()));
    r["output"] = ArrOut(y);
    r["input_grad"] = ArrOut(x.grad());
    json grads = json::object();
    for (const auto& [pname, p] : model->collect_params()) grads[pname] = ArrOut(p->grad());
    r["param_grads"] = grads;
    model->hybridize();
    NDArray y2 = (*model)(x);
    r["output_hybridized"] = ArrOut(y2);
    ThrowIfError(model->save_parameters(prefix + ".params"));
    ThrowIfError(model->export_model(prefix));
    ThrowIfError(nd::save(prefix + "-io.params", {{"data", x}, {"output", y2}}));
  });
  return r;
}

// ---------------------------------------------------------------------------------------------
// mzload: the constructors of gen_modelzoo_refs.py's LOAD_CASES (as modelzoo/load_test.cc).

std::shared_ptr<gluon::HybridBlock> BuildNet(const std::string& c) {
  namespace v = gluon::model_zoo::vision;
  if (c == "mobilenet0.25_c10") return v::get_model("mobilenet0.25", {.classes = 10});
  if (c == "resnet_v1_tiny")
    return std::make_shared<v::ResNetV1>(v::residual_block<v::BasicBlockV1>(),
                                         std::vector<int>{1, 1, 1, 1},
                                         std::vector<int64_t>{8, 8, 16, 32, 64}, 10, true);
  if (c == "resnet_v1b_tiny")
    return std::make_shared<v::ResNetV1>(v::residual_block<v::BottleneckV1>(),
                                         std::vector<int>{1, 2}, std::vector<int64_t>{16, 32, 64},
                                         10);
  if (c == "resnet_v2_tiny")
    return std::make_shared<v::ResNetV2>(v::residual_block<v::BottleneckV2>(),
                                         std::vector<int>{1, 2}, std::vector<int64_t>{16, 32, 64},
                                         10);
  if (c == "resnet_v2b_tiny")
    return std::make_shared<v::ResNetV2>(v::residual_block<v::BasicBlockV2>(),
                                         std::vector<int>{2, 1}, std::vector<int64_t>{8, 8, 16}, 10,
                                         true);
  if (c == "densenet_tiny")
    return std::make_shared<v::DenseNet>(8, 4, std::vector<int>{2, 2}, 2, 0.1, 10);
  MX_THROW(absl::StatusCode::kNotFound, "no C++ twin for model-zoo load case ", c);
}

json DumpMzLoad(const std::string& dir, const std::string& work) {
  json cases = Load(dir + "/cases.json");
  json res = json::array();
  for (auto& [name, ref] : cases.items()) {
    json r;
    r["name"] = name;
    Guard(r, [&] {
      auto net = BuildNet(name);
      ThrowIfError(net->load_parameters(dir + "/" + name + ".params"));
      nd::NDArrayFile in = ValueOrThrow(nd::load(work + "/" + name + "-input.nd"));
      const NDArray* x = in.find("input");
      if (x == nullptr) MX_THROW(absl::StatusCode::kNotFound, "no 'input' array");
      NDArray imperative = (*net)(*x);
      net->hybridize();
      NDArray hybridized = (*net)(*x);
      ThrowIfError(nd::save(work + "/" + name + "-ours.nd",
                            {{"imperative", imperative}, {"hybridized", hybridized}}));
      ThrowIfError(net->save_parameters(work + "/" + name + "-ours.params"));
    });
    res.push_back(r);
  }
  return {{"results", res}};
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: dump_ours ops|optim|sparse|losses|init|optimizers IN.json OUT.json\n"
                 "       dump_ours layers DIR OUT.json | model DIR OUT.json PREFIX | mzload DIR "
                 "WORK OUT.json\n"
                 "       dump_ours read OUT.json FILE...\n");
    return 2;
  };
  if (args.size() < 3) return usage();
  const std::string& mode = args[0];
  json out;
  std::string out_path = args[2];
  if (mode == "ops")
    out = DumpOps(Load(args[1]));
  else if (mode == "optim")
    out = DumpOptim(Load(args[1]));
  else if (mode == "sparse")
    out = DumpSparse(Load(args[1]));
  else if (mode == "layers")
    out = DumpLayers(args[1]);
  else if (mode == "losses")
    out = DumpLosses(Load(args[1]));
  else if (mode == "init")
    out = DumpInit(Load(args[1]));
  else if (mode == "optimizers")
    out = DumpOptimizers(Load(args[1]));
  else if (mode == "read") {
    out_path = args[1];
    out = DumpRead(std::vector<std::string>(args.begin() + 2, args.end()));
  } else if (mode == "model" && args.size() == 4) {
    out = DumpModel(args[1], args[3]);
  } else if (mode == "mzload" && args.size() == 4) {
    out_path = args[3];
    out = DumpMzLoad(args[1], args[2]);
  } else {
    return usage();
  }
  Write(out_path, out);
  return 0;
}

}  // namespace
}  // namespace mxnet::conformance

int main(int argc, char** argv) {
  try {
    return mxnet::conformance::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dump_ours: %s\n", e.what());
    return 1;
  }
}
