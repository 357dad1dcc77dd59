// Control-flow operators (symbol/control_flow.h): registration, shape/type inference through the
// subgraphs, CPU kernels that run the subgraphs with CachedOps, gradients, and the symbolic and
// imperative front ends. Semantics follow MXNet 1.9.1 src/operator/control_flow.cc and
// python/mxnet/{ndarray,symbol}/contrib.py.
#include "symbol/control_flow.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "base/strings.h"
#include "ndarray/grad.h"
#include "symbol/executor.h"
#include "symbol/graph.h"

namespace mxnet::sym {
namespace {

// ---- Subgraph executors (built on first use, shared by all copies of the attributes). ----
struct Vjp {
  std::unique_ptr<CachedOp> op;
  std::vector<int> source;  // per CachedOp input: subgraph input, or nin + k for head gradient k
  int num_outputs = 0;
};

struct Runtime {
  std::vector<std::unique_ptr<CachedOp>> fwd;
  std::vector<std::unique_ptr<Vjp>> vjp;
};

Runtime& RuntimeOf(const Subgraphs& s) {
  std::lock_guard<std::mutex> l(s.mu);
  if (!s.runtime) {
    auto r = std::make_shared<Runtime>();
    for (const auto& g : s.graphs) r->fwd.push_back(std::make_unique<CachedOp>(g));
    r->vjp.resize(s.graphs.size());
    s.runtime = r;
  }
  return *static_cast<Runtime*>(s.runtime.get());
}

const Subgraphs& Need(const std::shared_ptr<const Subgraphs>& s, std::string_view op) {
  if (!s)
    MX_THROW(absl::StatusCode::kFailedPrecondition, op,
             ": the node has no subgraphs (build it with sym::contrib or load it from JSON)");
  return *s;
}

std::vector<NDArray> RunFwd(const Subgraphs& s, size_t k, const std::vector<NDArray>& x,
                            bool is_train) {
  NDArrayVec y = RuntimeOf(s).fwd[k]->Forward(x, is_train);
  return std::vector<NDArray>(y.begin(), y.end());
}

// d(sum of heads . outputs)/d(inputs) of subgraph k at inputs x.
std::vector<NDArray> RunVjp(const Subgraphs& s, size_t k, const std::vector<NDArray>& x,
                            const std::vector<NDArray>& heads, bool is_train) {
  Runtime& r = RuntimeOf(s);
  const Vjp* v;
  {
    std::lock_guard<std::mutex> l(s.mu);
    if (!r.vjp[k]) {
      const std::vector<std::string>& names = s.input_names[k];
      auto nv = std::make_unique<Vjp>();
      nv->num_outputs = static_cast<int>(s.graphs[k].num_outputs());
      nv->op = std::make_unique<CachedOp>(
          GradientGraph(s.graphs[k], std::vector<bool>(names.size(), true), names));
      for (const auto& in : nv->op->input_names()) {
        auto it = std::find(names.begin(), names.end(), in);
        int64_t h = -1;
        if (it != names.end())
          nv->source.push_back(static_cast<int>(it - names.begin()));
        else if (StartsWith(in, "__head_grad_") && ParseInt64(in.substr(12), &h))
          nv->source.push_back(static_cast<int>(names.size() + h));
        else
          MX_THROW(absl::StatusCode::kInternal, "gradient graph input '", in, "' is unknown");
      }
      r.vjp[k] = std::move(nv);
    }
    v = r.vjp[k].get();
  }
  std::vector<NDArray> in;
  for (int src : v->source)
    in.push_back(src < static_cast<int>(x.size()) ? x[src] : heads[src - x.size()]);
  NDArrayVec y = v->op->Forward(in, is_train);
  return std::vector<NDArray>(y.begin() + v->num_outputs, y.end());
}

// ---- Array helpers. ----
// MXNet's per-iteration slice of a foreach input: axis 0 removed; 1-D inputs give shape (1,).
Shape SliceFirstDim(const Shape& s) {
  if (!s.ndim_known()) return Shape::Unknown();
  if (s.ndim() <= 1) return Shape{1};
  return Shape(std::vector<int64_t>(s.begin() + 1, s.end()));
}
Shape DropFirstDim(const Shape& s) {
  if (!s.ndim_known() || s.ndim() == 0) return Shape::Unknown();
  return Shape(std::vector<int64_t>(s.begin() + 1, s.end()));
}
Shape Prepend(int64_t d, const Shape& s) {
  if (!s.ndim_known()) return Shape::Unknown();
  std::vector<int64_t> v{d};
  v.insert(v.end(), s.begin(), s.end());
  return Shape(v);
}

// Row i (axis 0) of `a` as a view of shape `row`.
NDArray Row(const NDArray& a, int64_t i, const Shape& row) { return a.slice(i, i + 1).ViewAs(row); }
NDArray SliceRow(const NDArray& a, int64_t i) { return Row(a, i, SliceFirstDim(a.shape())); }
NDArray OutRow(const NDArray& a, int64_t i) { return Row(a, i, DropFirstDim(a.shape())); }

void Accumulate(NDArray* acc, const NDArray& v) {
  if (acc->is_none())
    *acc = v;
  else
    *acc = Invoke("elemwise_add", std::vector<NDArray>{*acc, v})[0];
}

bool Truth(const NDArray& pred, std::string_view op) {
  if (pred.size() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": the condition must have one element, got shape ", pred.shape().ToString());
  return pred.asscalar<double>() != 0;
}

std::vector<NDArray> Extract(std::span<const NDArray> in, const Shape& locs) {
  std::vector<NDArray> out;
  for (int64_t l : locs) out.push_back(in[l]);
  return out;
}

// ---- Inference through a subgraph (shapes or dtype flags). ----
void Merge(Shape* into, const Shape& from, std::string_view what) { MergeShape(into, from, what); }
void Merge(int* into, int from, std::string_view what) { MergeType(into, from, what); }
void InferAll(const IndexedGraph& g, std::vector<Shape>* v) { InferShapes(g, v); }
void InferAll(const IndexedGraph& g, std::vector<int>* v) { InferTypes(g, v); }
template <typename T>
T UnknownOf();
template <>
Shape UnknownOf<Shape>() {
  return Shape::Unknown();
}
template <>
int UnknownOf<int>() {
  return -1;
}

template <typename T>
class SubInfer {
 public:
  SubInfer(const Symbol& s, std::string what)
      : g_(s), what_(std::move(what)), v_(g_.num_entries, UnknownOf<T>()) {}
  void In(size_t k, const T& v) {
    Merge(&v_[g_.entry_start[g_.input_nodes.at(k)]], v, what_ + " input");
  }
  void Out(size_t k, const T& v) { Merge(&v_[g_.outputs.at(k)], v, what_ + " output"); }
  const T& In(size_t k) const { return v_[g_.entry_start[g_.input_nodes.at(k)]]; }
  const T& Out(size_t k) const { return v_[g_.outputs.at(k)]; }
  void Run() {
    try {
      InferAll(g_, &v_);
    } catch (const Error& e) {
      MX_THROW(e.code(), what_, ": ", e.what());
    }
  }

 private:
  IndexedGraph g_;
  std::string what_;
  std::vector<T> v_;
};

// Identity on dtypes, slicing on shapes.
int SliceFirstDim(int t) { return t; }
int DropFirstDim(int t) { return t; }
int Prepend(int64_t, int t) { return t; }
int64_t FirstDim(const Shape& s) { return s.ndim() >= 1 ? s[0] : -1; }
int64_t FirstDim(int) { return -1; }
bool IsOneD(const Shape& s) { return s.ndim() == 1; }
bool IsOneD(int) { return false; }

template <typename T, typename V>
void ForeachInfer(const OpAttrs& attrs, V* in, V* out) {
  const ForeachParam& p = attrs.get<ForeachParam>();
  const Subgraphs& s = Need(p.subgraphs, "_foreach");
  const int nd = p.in_data_locs.ndim(), ns = p.in_state_locs.ndim(), nod = p.num_out_data;
  SubInfer<T> b(s.graphs[0], "_foreach body");
  for (int j = 0; j < nd; ++j) b.In(p.in_data_locs[j], SliceFirstDim((*in)[j]));
  for (int j = 0; j < ns; ++j) {
    b.In(p.in_state_locs[j], (*in)[nd + j]);
    b.In(p.in_state_locs[j], (*out)[nod + j]);
    b.Out(nod + j, (*out)[nod + j]);
    b.Out(nod + j, (*in)[nd + j]);
  }
  for (int j = 0; j < p.remain_locs.ndim(); ++j) b.In(p.remain_locs[j], (*in)[nd + ns + j]);
  for (int k = 0; k < nod; ++k) b.Out(k, DropFirstDim((*out)[k]));
  b.Run();
  int64_t len = nd > 0 ? FirstDim((*in)[0]) : -1;
  for (int j = 0; j < nd; ++j)
    if (!IsOneD((*in)[j])) Merge(&(*in)[j], Prepend(len, b.In(p.in_data_locs[j])), "_foreach data");
  for (int j = 0; j < ns; ++j) {
    Merge(&(*in)[nd + j], b.In(p.in_state_locs[j]), "_foreach initial state");
    Merge(&(*in)[nd + j], b.Out(nod + j), "_foreach state (body output vs initial state)");
    Merge(&(*out)[nod + j], b.Out(nod + j), "_foreach final state");
  }
  for (int j = 0; j < p.remain_locs.ndim(); ++j)
    Merge(&(*in)[nd + ns + j], b.In(p.remain_locs[j]), "_foreach input");
  for (int k = 0; k < nod; ++k) Merge(&(*out)[k], Prepend(len, b.Out(k)), "_foreach output");
}

template <typename T, typename V>
void WhileInfer(const OpAttrs& attrs, V* in, V* out) {
  const WhileLoopParam& p = attrs.get<WhileLoopParam>();
  const Subgraphs& s = Need(p.subgraphs, "_while_loop");
  const int nod = p.num_out_data;
  SubInfer<T> c(s.graphs[0], "_while_loop cond"), f(s.graphs[1], "_while_loop func");
  for (int j = 0; j < p.cond_input_locs.ndim(); ++j) c.In(j, (*in)[p.cond_input_locs[j]]);
  for (int j = 0; j < p.func_input_locs.ndim(); ++j) f.In(j, (*in)[p.func_input_locs[j]]);
  for (int v = 0; v < p.func_var_locs.ndim(); ++v) {
    f.In(p.func_var_locs[v], (*out)[nod + v]);
    f.Out(nod + v, (*out)[nod + v]);
    f.Out(nod + v, (*in)[p.func_input_locs[p.func_var_locs[v]]]);
  }
  for (int k = 0; k < nod; ++k) f.Out(k, DropFirstDim((*out)[k]));
  c.Run();
  f.Run();
  for (int j = 0; j < p.cond_input_locs.ndim(); ++j)
    Merge(&(*in)[p.cond_input_locs[j]], c.In(j), "_while_loop cond input");
  for (int j = 0; j < p.func_input_locs.ndim(); ++j)
    Merge(&(*in)[p.func_input_locs[j]], f.In(j), "_while_loop func input");
  for (int v = 0; v < p.func_var_locs.ndim(); ++v) {
    Merge(&(*in)[p.func_input_locs[p.func_var_locs[v]]], f.Out(nod + v),
          "_while_loop loop variable (func output vs input)");
    Merge(&(*out)[nod + v], f.Out(nod + v), "_while_loop final loop variable");
  }
  for (int k = 0; k < nod; ++k)
    Merge(&(*out)[k], Prepend(p.max_iterations, f.Out(k)), "_while_loop output");
}

template <typename T, typename V>
void CondInfer(const OpAttrs& attrs, V* in, V* out) {
  const CondParam& p = attrs.get<CondParam>();
  const Subgraphs& s = Need(p.subgraphs, "_cond");
  SubInfer<T> c(s.graphs[0], "_cond pred"), t(s.graphs[1], "_cond then"),
      e(s.graphs[2], "_cond else");
  for (int j = 0; j < p.cond_input_locs.ndim(); ++j) c.In(j, (*in)[p.cond_input_locs[j]]);
  for (int j = 0; j < p.then_input_locs.ndim(); ++j) t.In(j, (*in)[p.then_input_locs[j]]);
  for (int j = 0; j < p.else_input_locs.ndim(); ++j) e.In(j, (*in)[p.else_input_locs[j]]);
  for (int k = 0; k < p.num_outputs; ++k) t.Out(k, (*out)[k]), e.Out(k, (*out)[k]);
  c.Run();
  t.Run();
  e.Run();
  for (int j = 0; j < p.cond_input_locs.ndim(); ++j)
    Merge(&(*in)[p.cond_input_locs[j]], c.In(j), "_cond pred input");
  for (int j = 0; j < p.then_input_locs.ndim(); ++j)
    Merge(&(*in)[p.then_input_locs[j]], t.In(j), "_cond then input");
  for (int j = 0; j < p.else_input_locs.ndim(); ++j)
    Merge(&(*in)[p.else_input_locs[j]], e.In(j), "_cond else input");
  for (int k = 0; k < p.num_outputs; ++k) {
    Merge(&(*out)[k], t.Out(k), "_cond output (then branch)");
    Merge(&(*out)[k], e.Out(k), "_cond output (else branch vs then branch)");
  }
}

// Backward ops: [head gradients (num_outputs)..., forward inputs...] -> forward input gradients.
template <typename V>
void BackwardInfer(int num_outputs, V* in, V* out, std::string_view op) {
  for (size_t i = 0; i < out->size(); ++i) {
    if constexpr (std::is_same_v<V, ShapeVec>)
      MergeShape(&(*out)[i], (*in)[num_outputs + i], op);
    else
      MergeType(&(*out)[i], (*in)[num_outputs + i], op);
  }
}

// ---- Kernels. ----
void ForeachForward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const ForeachParam& p = attrs.get<ForeachParam>();
  const Subgraphs& s = Need(p.subgraphs, "_foreach");
  const int nd = p.in_data_locs.ndim(), ns = p.in_state_locs.ndim(), nod = p.num_out_data;
  const int64_t len = in[0].shape()[0];
  for (int j = 1; j < nd; ++j)
    if (in[j].shape()[0] != len)
      MX_THROW(absl::StatusCode::kInvalidArgument, "_foreach: data ", j, " has ", in[j].shape()[0],
               " rows, data 0 has ", len);
  std::vector<NDArray> x(s.input_names[0].size());
  for (int j = 0; j < p.remain_locs.ndim(); ++j) x[p.remain_locs[j]] = in[nd + ns + j];
  std::vector<NDArray> states(in.begin() + nd, in.begin() + nd + ns);
  for (int64_t i = 0; i < len; ++i) {
    for (int j = 0; j < nd; ++j) x[p.in_data_locs[j]] = SliceRow(in[j], i);
    for (int j = 0; j < ns; ++j) x[p.in_state_locs[j]] = states[j];
    std::vector<NDArray> y = RunFwd(s, 0, x, ctx.is_train);
    for (int k = 0; k < nod; ++k) y[k].copyto(OutRow(out[k], i));
    for (int j = 0; j < ns; ++j) states[j] = y[nod + j];
  }
  for (int j = 0; j < ns; ++j) states[j].copyto(out[nod + j]);
}

// Recomputes the iterations, then runs them backwards through the body's gradient graph.
void ForeachBackward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const ForeachParam& p = attrs.get<ForeachParam>();
  const Subgraphs& s = Need(p.subgraphs, "_foreach");
  const int nd = p.in_data_locs.ndim(), ns = p.in_state_locs.ndim(), nr = p.remain_locs.ndim();
  const int no = p.num_outputs, nod = p.num_out_data;
  std::span<const NDArray> og = in.subspan(0, no), fin = in.subspan(no);
  const int64_t len = fin[0].shape()[0];
  std::vector<NDArray> x(s.input_names[0].size());
  for (int j = 0; j < nr; ++j) x[p.remain_locs[j]] = fin[nd + ns + j];
  std::vector<std::vector<NDArray>> hist;
  std::vector<NDArray> states(fin.begin() + nd, fin.begin() + nd + ns);
  for (int64_t i = 0; i < len; ++i) {
    hist.push_back(states);
    if (i + 1 == len) break;  // the last iteration's new states are not needed
    for (int j = 0; j < nd; ++j) x[p.in_data_locs[j]] = SliceRow(fin[j], i);
    for (int j = 0; j < ns; ++j) x[p.in_state_locs[j]] = states[j];
    std::vector<NDArray> y = RunFwd(s, 0, x, ctx.is_train);
    for (int j = 0; j < ns; ++j) states[j] = y[nod + j];
  }
  std::vector<NDArray> dstate(og.begin() + nod, og.end()), dremain(nr);
  for (int64_t i = len - 1; i >= 0; --i) {
    for (int j = 0; j < nd; ++j) x[p.in_data_locs[j]] = SliceRow(fin[j], i);
    for (int j = 0; j < ns; ++j) x[p.in_state_locs[j]] = hist[i][j];
    std::vector<NDArray> heads;
    for (int k = 0; k < nod; ++k) heads.push_back(OutRow(og[k], i));
    heads.insert(heads.end(), dstate.begin(), dstate.end());
    std::vector<NDArray> dx = RunVjp(s, 0, x, heads, ctx.is_train);
    for (int j = 0; j < nd; ++j) dx[p.in_data_locs[j]].copyto(SliceRow(out[j], i));
    for (int j = 0; j < nr; ++j) Accumulate(&dremain[j], dx[p.remain_locs[j]]);
    for (int j = 0; j < ns; ++j) dstate[j] = dx[p.in_state_locs[j]];
  }
  for (int j = 0; j < ns; ++j) dstate[j].copyto(out[nd + j]);
  for (int j = 0; j < nr; ++j) {
    if (dremain[j].is_none())
      out[nd + ns + j].Fill(0);
    else
      dremain[j].copyto(out[nd + ns + j]);
  }
}

// Runs the loop; returns func's inputs at the start of every step taken (and, with
// `final_vars`, the loop variables after the last step).
std::vector<std::vector<NDArray>> WhileRun(const WhileLoopParam& p, const Subgraphs& s,
                                           std::span<const NDArray> in, bool is_train,
                                           std::span<const NDArray> out,
                                           std::vector<NDArray>* func_x) {
  const int nod = p.num_out_data;
  std::vector<NDArray> cond_x = Extract(in, p.cond_input_locs);
  *func_x = Extract(in, p.func_input_locs);
  std::vector<std::vector<NDArray>> hist;
  for (int step = 0; step < p.max_iterations; ++step) {
    if (!Truth(RunFwd(s, 0, cond_x, is_train)[0], "_while_loop")) break;
    hist.push_back(*func_x);
    std::vector<NDArray> y = RunFwd(s, 1, *func_x, is_train);
    for (int k = 0; k < nod && !out.empty(); ++k) y[k].copyto(OutRow(out[k], step));
    for (int v = 0; v < p.func_var_locs.ndim(); ++v) {
      int64_t j = p.func_var_locs[v];
      (*func_x)[j] = y[nod + v];
      for (int c = 0; c < p.cond_input_locs.ndim(); ++c)
        if (p.cond_input_locs[c] == p.func_input_locs[j]) cond_x[c] = y[nod + v];
    }
  }
  return hist;
}

void WhileForward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const WhileLoopParam& p = attrs.get<WhileLoopParam>();
  const Subgraphs& s = Need(p.subgraphs, "_while_loop");
  std::vector<NDArray> func_x;
  const int64_t steps = static_cast<int64_t>(WhileRun(p, s, in, ctx.is_train, out, &func_x).size());
  for (int k = 0; k < p.num_out_data; ++k)
    if (steps < p.max_iterations) out[k].slice(steps, p.max_iterations).Fill(0);
  for (int v = 0; v < p.func_var_locs.ndim(); ++v)
    func_x[p.func_var_locs[v]].copyto(out[p.num_out_data + v]);
}

void WhileBackward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const WhileLoopParam& p = attrs.get<WhileLoopParam>();
  const Subgraphs& s = Need(p.subgraphs, "_while_loop");
  const int no = p.num_outputs, nod = p.num_out_data, nv = p.func_var_locs.ndim();
  std::span<const NDArray> og = in.subspan(0, no), fin = in.subspan(no);
  std::vector<NDArray> func_x;
  std::vector<std::vector<NDArray>> hist = WhileRun(p, s, fin, ctx.is_train, {}, &func_x);
  const int nf = p.func_input_locs.ndim();
  std::vector<int> var_of(nf, -1);
  for (int v = 0; v < nv; ++v) var_of[p.func_var_locs[v]] = v;
  std::vector<NDArray> dvar(og.begin() + nod, og.end()), acc(nf);
  for (int64_t step = static_cast<int64_t>(hist.size()) - 1; step >= 0; --step) {
    std::vector<NDArray> heads;
    for (int k = 0; k < nod; ++k) heads.push_back(OutRow(og[k], step));
    heads.insert(heads.end(), dvar.begin(), dvar.end());
    std::vector<NDArray> dx = RunVjp(s, 1, hist[step], heads, ctx.is_train);
    for (int j = 0; j < nf; ++j) {
      if (var_of[j] >= 0)
        dvar[var_of[j]] = dx[j];
      else
        Accumulate(&acc[j], dx[j]);
    }
  }
  std::vector<NDArray> g(out.size());
  for (int j = 0; j < nf; ++j) {
    const NDArray& d = var_of[j] >= 0 ? dvar[var_of[j]] : acc[j];
    if (!d.is_none()) Accumulate(&g[p.func_input_locs[j]], d);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (g[i].is_none())
      out[i].Fill(0);
    else
      g[i].copyto(out[i]);
  }
}

int CondBranch(const CondParam& p, const Subgraphs& s, std::span<const NDArray> in, bool is_train) {
  return Truth(RunFwd(s, 0, Extract(in, p.cond_input_locs), is_train)[0], "_cond") ? 1 : 2;
}

void CondForward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const CondParam& p = attrs.get<CondParam>();
  const Subgraphs& s = Need(p.subgraphs, "_cond");
  int b = CondBranch(p, s, in, ctx.is_train);
  std::vector<NDArray> y =
      RunFwd(s, b, Extract(in, b == 1 ? p.then_input_locs : p.else_input_locs), ctx.is_train);
  for (int k = 0; k < p.num_outputs; ++k) y[k].copyto(out[k]);
}

void CondBackward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const CondParam& p = attrs.get<CondParam>();
  const Subgraphs& s = Need(p.subgraphs, "_cond");
  std::span<const NDArray> og = in.subspan(0, p.num_outputs), fin = in.subspan(p.num_outputs);
  int b = CondBranch(p, s, fin, ctx.is_train);
  const Shape& locs = b == 1 ? p.then_input_locs : p.else_input_locs;
  std::vector<NDArray> dx =
      RunVjp(s, b, Extract(fin, locs), std::vector<NDArray>(og.begin(), og.end()), ctx.is_train);
  std::vector<NDArray> g(out.size());
  for (int j = 0; j < locs.ndim(); ++j) Accumulate(&g[locs[j]], dx[j]);
  for (size_t i = 0; i < out.size(); ++i) {
    if (g[i].is_none())
      out[i].Fill(0);
    else
      g[i].copyto(out[i]);
  }
}

// Gradient: one _backward_<op> node over [head gradients..., inputs...].
template <typename P>
FGradient GradVia(const char* backward_op) {
  return [backward_op](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> inputs,
                       std::span<const GradValue>, std::span<const GradValue> out_grads) {
    const Op& op = OpRegistry::Get(backward_op);
    std::vector<GradValue> in(out_grads.begin(), out_grads.end());
    in.insert(in.end(), inputs.begin(), inputs.end());
    return b.Apply(op, OpAttrs::From(op, attrs.get<P>()), in);
  };
}

// ---- Registration. ----
constexpr KernelKey kCpu{DeviceType::kCPU, Backend::kReference};

// Declares _backward_<op> of a control-flow op with `nsub` subgraph arguments: inputs
// [head gradients..., the op's inputs...], one gradient per op input.
template <typename P>
Op& DeclareBackward(Op& op, int nsub, FCompute kernel) {
  const std::string name = op.name;
  return op
      .describe(StrCat("Gradient of ", name.substr(std::string("_backward").size()),
                       ": [head gradients..., inputs...] -> input gradients."))
      .set_params<P>()
      .set_num_inputs([nsub](const OpAttrs& a) {
        const auto& p = a.get<P>();
        return p.num_outputs + p.num_args - nsub;
      })
      .set_num_outputs([nsub](const OpAttrs& a) { return a.get<P>().num_args - nsub; })
      .set_infer_shape([name](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
        BackwardInfer(a.get<P>().num_outputs, in, out, name);
      })
      .set_infer_type([name](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
        BackwardInfer(a.get<P>().num_outputs, in, out, name);
      })
      .set_kernel(kCpu, std::move(kernel));
}

MX_REGISTER_OP(_foreach)
    .describe(
        "Runs the body subgraph on every slice (axis 0) of the data inputs, threading loop "
        "states (mx.sym.contrib.foreach). Inputs: data..., initial states..., remaining body "
        "inputs; outputs: stacked body outputs (len, ...)..., final states.")
    .set_params<ForeachParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<ForeachParam>().num_args - 1; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<ForeachParam>().num_outputs; })
    .set_infer_shape(ForeachInfer<Shape, ShapeVec>)
    .set_infer_type(ForeachInfer<int, DTypeVec>)
    .set_kernel(kCpu, ForeachForward)
    .set_gradient(GradVia<ForeachParam>("_backward_foreach"), true, false);

static Op& mx_register_backward_foreach =
    DeclareBackward<ForeachParam>(OpRegistry::Register("_backward_foreach"), 1, ForeachBackward);

MX_REGISTER_OP(_while_loop)
    .describe(
        "Runs func while cond is true, at most max_iterations times (mx.sym.contrib.while_loop). "
        "Outputs: step outputs (max_iterations, ...)... (rows past the last step are zeros; "
        "MXNet leaves them undefined), final loop variables.")
    .set_params<WhileLoopParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<WhileLoopParam>().num_args - 2; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<WhileLoopParam>().num_outputs; })
    .set_infer_shape(WhileInfer<Shape, ShapeVec>)
    .set_infer_type(WhileInfer<int, DTypeVec>)
    .set_kernel(kCpu, WhileForward)
    .set_gradient(GradVia<WhileLoopParam>("_backward_while_loop"), true, false);

static Op& mx_register_backward_while_loop =
    DeclareBackward<WhileLoopParam>(OpRegistry::Register("_backward_while_loop"), 2, WhileBackward);

MX_REGISTER_OP(_cond)
    .describe(
        "Runs the then or the else subgraph depending on the pred subgraph's scalar result "
        "(mx.sym.contrib.cond).")
    .set_params<CondParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<CondParam>().num_args - 3; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<CondParam>().num_outputs; })
    .set_infer_shape(CondInfer<Shape, ShapeVec>)
    .set_infer_type(CondInfer<int, DTypeVec>)
    .set_kernel(kCpu, CondForward)
    .set_gradient(GradVia<CondParam>("_backward_cond"), true, false);

static Op& mx_register_backward_cond =
    DeclareBackward<CondParam>(OpRegistry::Register("_backward_cond"), 3, CondBackward);

// ---- Symbolic builders. ----
std::string LocsText(const std::vector<int64_t>& v) {
  std::vector<std::string> parts;
  for (int64_t x : v) parts.push_back(StrCat(x));
  return StrCat("[", StrJoin(parts, ", "), "]");
}

// Node inputs for a subgraph's free variables: the outer variable node itself (same name).
Symbol Outer(const Symbol& g, const std::string& name) {
  for (const auto& n : g.TopoNodes())
    if (n->is_variable() && n->name == name) return Symbol({NodeEntry{n, 0, 0}});
  MX_THROW(absl::StatusCode::kInternal, "no variable ", name);
}

// The node named like MXNet's (_foreach0, ...); MXNet uses the builders' `name` argument only
// for the __subgraph_name__ attribute of the body's nodes.
Symbol Finish(const std::string& op_name, const AttrDict& params, const std::vector<Symbol>& inputs,
              std::vector<Symbol> graphs) {
  const Op& op = OpRegistry::Get(op_name);
  Symbol out = Symbol::Create(op, OpAttrs::Parse(op, params), inputs);
  Node* n = out.outputs()[0].node.get();
  n->params = params;
  absl::Status st = AttachSubgraphs(n, std::move(graphs));
  if (!st.ok()) MX_THROW(st.code(), st.message());
  return out;
}

std::vector<Symbol> Vars(const std::string& prefix, size_t n,
                         const std::vector<std::string>& names) {
  std::vector<Symbol> v;
  for (size_t i = 0; i < n; ++i) v.push_back(Symbol::Variable(StrCat(names[i], prefix)));
  return v;
}

std::vector<std::string> NamesOf(const std::vector<Symbol>& syms, const char* what) {
  std::vector<std::string> out;
  for (size_t i = 0; i < syms.size(); ++i) {
    std::string n = syms[i].name();
    out.push_back(n.empty() ? StrCat(what, i) : n);
  }
  return out;
}

// The subgraph's inputs: position of each placeholder, and the free variables (in order).
struct InputMap {
  std::vector<int64_t> placeholder_locs;              // per placeholder (-1: unused)
  std::vector<std::pair<int64_t, std::string>> free;  // (loc, name)
};
InputMap MapInputs(const Symbol& g, const std::vector<std::string>& placeholders) {
  InputMap m;
  std::vector<std::string> names = g.list_inputs();
  m.placeholder_locs.assign(placeholders.size(), -1);
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = std::find(placeholders.begin(), placeholders.end(), names[i]);
    if (it != placeholders.end())
      m.placeholder_locs[it - placeholders.begin()] = static_cast<int64_t>(i);
    else
      m.free.push_back({static_cast<int64_t>(i), names[i]});
  }
  return m;
}

// Outputs that are variables are copied (_copy) like MXNet does, so every output is a node.
std::vector<Symbol> Materialize(const std::vector<Symbol>& outs) {
  std::vector<Symbol> r;
  for (const auto& o : outs)
    r.push_back(o.outputs()[0].node->is_variable() ? Symbol::Create("_copy", {o}) : o);
  return r;
}

}  // namespace

namespace contrib {

std::pair<SymbolVec, SymbolVec> foreach (
    const std::function<std::pair<SymbolVec, SymbolVec>(const SymbolVec&, const SymbolVec&)>& body,
    const SymbolVec& data, const SymbolVec& init_states, const std::string& name) {
  if (data.empty()) MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: no data");
  std::vector<std::string> dn = NamesOf(data, "data"), sn = NamesOf(init_states, "state");
  SymbolVec dv = Vars("-0", data.size(), dn), sv = Vars("-0", init_states.size(), sn);
  auto [outs, states] = body(dv, sv);
  if (states.size() != init_states.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: the body returned ", states.size(),
             " states for ", init_states.size(), " initial states");
  SymbolVec all = Materialize(outs);
  SymbolVec st = Materialize(states);
  all.insert(all.end(), st.begin(), st.end());
  Symbol g = Symbol::Group(all);
  std::vector<std::string> ph;
  for (const auto& v : dv) ph.push_back(v.name());
  for (const auto& v : sv) ph.push_back(v.name());
  InputMap m = MapInputs(g, ph);
  for (size_t i = 0; i < ph.size(); ++i)
    if (m.placeholder_locs[i] < 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: the body does not use ",
               i < data.size() ? "data " : "state ", ph[i], " (MXNet needs every input used)");
  std::vector<int64_t> dl(m.placeholder_locs.begin(), m.placeholder_locs.begin() + data.size());
  std::vector<int64_t> sl(m.placeholder_locs.begin() + data.size(), m.placeholder_locs.end());
  std::vector<int64_t> rl;
  SymbolVec inputs = data;
  inputs.insert(inputs.end(), init_states.begin(), init_states.end());
  for (const auto& [loc, n] : m.free) rl.push_back(loc), inputs.push_back(Outer(g, n));
  AttrDict params = {{"num_args", StrCat(inputs.size() + 1)}, {"num_outputs", StrCat(all.size())},
                     {"num_out_data", StrCat(outs.size())},   {"in_data_locs", LocsText(dl)},
                     {"in_state_locs", LocsText(sl)},         {"remain_locs", LocsText(rl)}};
  Symbol node = Finish("_foreach", params, inputs, {g});
  SymbolVec o, s;
  for (size_t k = 0; k < all.size(); ++k) (k < outs.size() ? o : s).push_back(node[k]);
  return {o, s};
}

std::pair<SymbolVec, SymbolVec> while_loop(
    const std::function<Symbol(const SymbolVec&)>& cond,
    const std::function<std::pair<SymbolVec, SymbolVec>(const SymbolVec&)>& func,
    const SymbolVec& loop_vars, int max_iterations, const std::string& name) {
  if (loop_vars.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: no loop variables");
  if (max_iterations < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: max_iterations must be >= 1, got ",
             max_iterations);
  std::vector<std::string> vn = NamesOf(loop_vars, "var");
  SymbolVec cv = Vars("-0", loop_vars.size(), vn), fv = Vars("-0", loop_vars.size(), vn);
  Symbol cg = Symbol::Group(Materialize({cond(cv)}));
  auto [outs, vars] = func(fv);
  if (vars.size() != loop_vars.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: func returned ", vars.size(),
             " loop variables for ", loop_vars.size());
  SymbolVec all = Materialize(outs), nv = Materialize(vars);
  all.insert(all.end(), nv.begin(), nv.end());
  Symbol fg = Symbol::Group(all);
  // Node inputs: loop vars first, then free variables of cond and func (by name, once each).
  SymbolVec inputs = loop_vars;
  std::vector<std::string> in_names;
  for (const auto& v : cv) in_names.push_back(v.name());
  auto locs_of = [&](const Symbol& g) {
    std::vector<int64_t> locs;
    for (const auto& n : g.list_inputs()) {
      auto it = std::find(in_names.begin(), in_names.end(), n);
      if (it == in_names.end()) {
        in_names.push_back(n);
        inputs.push_back(Outer(g, n));
        it = in_names.end() - 1;
      }
      locs.push_back(it - in_names.begin());
    }
    return locs;
  };
  std::vector<int64_t> cl = locs_of(cg), fl = locs_of(fg), varl;
  std::vector<std::string> fin = fg.list_inputs();
  for (const auto& v : fv) {
    auto it = std::find(fin.begin(), fin.end(), v.name());
    if (it == fin.end())
      MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: func does not use loop variable ",
               v.name(), " (MXNet needs every loop variable used)");
    varl.push_back(it - fin.begin());
  }
  AttrDict params = {
      {"num_args", StrCat(inputs.size() + 2)}, {"num_outputs", StrCat(all.size())},
      {"num_out_data", StrCat(outs.size())},   {"max_iterations", StrCat(max_iterations)},
      {"cond_input_locs", LocsText(cl)},       {"func_input_locs", LocsText(fl)},
      {"func_var_locs", LocsText(varl)}};
  Symbol node = Finish("_while_loop", params, inputs, {cg, fg});
  SymbolVec o, s;
  for (size_t k = 0; k < all.size(); ++k) (k < outs.size() ? o : s).push_back(node[k]);
  return {o, s};
}

SymbolVec cond(const Symbol& pred, const std::function<SymbolVec()>& then_func,
               const std::function<SymbolVec()>& else_func, const std::string& name) {
  Symbol pg = Symbol::Group(Materialize({pred}));
  SymbolVec t = then_func(), e = else_func();
  if (t.size() != e.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "cond: then_func returned ", t.size(),
             " outputs, else_func ", e.size());
  Symbol tg = Symbol::Group(Materialize(t)), eg = Symbol::Group(Materialize(e));
  // Node inputs: every free variable of the three graphs, once each (by name).
  SymbolVec inputs;
  std::vector<std::string> in_names;
  auto locs_of = [&](const Symbol& g) {
    std::vector<int64_t> locs;
    for (const auto& n : g.list_inputs()) {
      auto it = std::find(in_names.begin(), in_names.end(), n);
      if (it == in_names.end()) {
        in_names.push_back(n);
        inputs.push_back(Outer(g, n));
        it = in_names.end() - 1;
      }
      locs.push_back(it - in_names.begin());
    }
    return locs;
  };
  std::vector<int64_t> cl = locs_of(pg), tl = locs_of(tg), el = locs_of(eg);
  AttrDict params = {{"num_args", StrCat(inputs.size() + 3)},
                     {"num_outputs", StrCat(t.size())},
                     {"cond_input_locs", LocsText(cl)},
                     {"then_input_locs", LocsText(tl)},
                     {"else_input_locs", LocsText(el)}};
  Symbol node = Finish("_cond", params, inputs, {pg, tg, eg});
  SymbolVec o;
  for (size_t k = 0; k < t.size(); ++k) o.push_back(node[k]);
  return o;
}

}  // namespace contrib
}  // namespace mxnet::sym

// ---- Imperative front end. ----
namespace mxnet::nd::contrib {
namespace {
using sym::NodeEntry;
using sym::Symbol;

NDArray Call(std::string_view op, std::vector<NDArray> in, const AttrDict& attrs = {}) {
  return Invoke(op, in, attrs)[0];
}
NDArray Stack(const std::vector<NDArray>& rows) {
  return Call("stack", rows, {{"axis", "0"}, {"num_args", StrCat(rows.size())}});
}

// While a HybridBlock is traced (hybridize), the functions below emit one control-flow node:
// each body runs once, on copies of its inputs, under this observer, which builds the body's
// graph. Arrays the body reads that it did not compute (parameters, other arrays of the outer
// forward) become subgraph variables and inputs of the node (MXNet's remaining/free inputs).
class BodyTracer final : public InvokeObserver {
 public:
  explicit BodyTracer(std::string prefix) : prefix_(std::move(prefix)) {}
  void OnInvoke(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                std::span<const NDArray> outputs) override {
    auto n = std::make_shared<sym::Node>();
    n->op = &op;
    n->attrs = attrs;
    n->params = attrs.ToDict();
    n->name = sym::NameManager::Get("", sym::OpNameHint(op));
    for (const auto& in : inputs) n->inputs.push_back(EntryFor(in));
    for (size_t k = 0; k < outputs.size(); ++k)
      Tag(outputs[k], NodeEntry{n, static_cast<int>(k), 0});
  }
  // A body input: a new variable `name`.
  void Placeholder(const NDArray& a, const std::string& name) {
    Tag(a, Symbol::Variable(name).outputs()[0]);
  }
  // The graph entry of `a`; an array from outside the body becomes a free variable.
  NodeEntry EntryFor(const NDArray& a) {
    auto it = entries_.find(a.id());
    if (it != entries_.end()) return it->second;
    std::string name = StrCat(prefix_, "_free", free_arrays.size());
    free_arrays.push_back(a);
    free_names.push_back(name);
    NodeEntry e = Symbol::Variable(name).outputs()[0];
    Tag(a, e);
    return e;
  }
  // Outputs as graph entries; variables are copied (_copy) so every output is a node.
  std::vector<Symbol> Outputs(const NDArrayVec& outs) {
    std::vector<Symbol> r;
    for (const auto& o : outs) {
      Symbol s({EntryFor(o)});
      r.push_back(s.outputs()[0].node->is_variable() ? Symbol::Create("_copy", {s}) : s);
    }
    return r;
  }
  // Runs f with this observer as the current context's tracer and recording off.
  template <typename F>
  auto Run(F&& f) {
    DispatchStateScope scope;
    scope.state().tracer = this;
    scope.state().is_recording = false;
    return f();
  }
  std::vector<NDArray> free_arrays;
  std::vector<std::string> free_names;

 private:
  void Tag(const NDArray& a, NodeEntry e) {
    entries_[a.id()] = std::move(e);
    keep_.push_back(a);  // keeps the impl alive so its address is not reused
  }
  std::string prefix_;
  std::unordered_map<const void*, NodeEntry> entries_;
  std::vector<NDArray> keep_;
};

bool Tracing() { return CurrentDispatchState().tracer != nullptr; }

// A body input like `a` that does not alias it: a copy, or a placeholder in shape-only dispatch
// (hybridize traces without running).
NDArray BodyInput(const NDArray& a) {
  if (CurrentDispatchState().infer_only || a.is_placeholder())
    return NDArray::Placeholder(a.shape(), a.device(), a.dtype());
  return a.copy();
}

// Positions of `names` among the graph's inputs (-1: unused).
std::vector<int64_t> LocsOf(const Symbol& g, const std::vector<std::string>& names) {
  std::vector<std::string> in = g.list_inputs();
  std::vector<int64_t> locs;
  for (const auto& n : names) {
    auto it = std::find(in.begin(), in.end(), n);
    locs.push_back(it == in.end() ? -1 : static_cast<int64_t>(it - in.begin()));
  }
  return locs;
}

bool AllUsed(const std::vector<int64_t>& locs) {
  return std::all_of(locs.begin(), locs.end(), [](int64_t l) { return l >= 0; });
}

// Invokes the control-flow op with its subgraphs attached (the outer tracer records it).
NDArrayVec InvokeWith(std::string_view op_name, const AttrDict& params, std::vector<Symbol> graphs,
                      const std::vector<NDArray>& inputs) {
  const Op& op = OpRegistry::Get(op_name);
  sym::Node n;
  n.op = &op;
  n.name = std::string(op_name);
  n.attrs = OpAttrs::Parse(op, params);
  n.inputs.resize(inputs.size());
  absl::Status st = sym::AttachSubgraphs(&n, std::move(graphs));
  if (!st.ok()) MX_THROW(absl::StatusCode::kInternal, st.message());
  return Invoke(op, n.attrs, inputs);
}

// Free variables of the graphs (in first-use order over `graphs`): names and outer arrays.
void FreeInputs(const BodyTracer& t, const std::vector<Symbol>& graphs,
                std::vector<std::string>* names, std::vector<NDArray>* arrays) {
  for (const auto& g : graphs)
    for (const auto& n : g.list_inputs()) {
      auto it = std::find(t.free_names.begin(), t.free_names.end(), n);
      if (it == t.free_names.end() || std::find(names->begin(), names->end(), n) != names->end())
        continue;
      names->push_back(n);
      arrays->push_back(t.free_arrays[it - t.free_names.begin()]);
    }
}

std::optional<std::pair<NDArrayVec, NDArrayVec>> TracedForeach(
    const std::function<std::pair<NDArrayVec, NDArrayVec>(const NDArrayVec&, const NDArrayVec&)>&
        body,
    const NDArrayVec& data, const NDArrayVec& init_states) {
  BodyTracer t("foreach");
  NDArrayVec slices, states;
  std::vector<std::string> ph;
  for (size_t j = 0; j < data.size(); ++j) {
    slices.push_back(BodyInput(sym::SliceRow(data[j], 0)));
    ph.push_back(StrCat("foreach_data", j));
    t.Placeholder(slices.back(), ph.back());
  }
  for (size_t j = 0; j < init_states.size(); ++j) {
    states.push_back(BodyInput(init_states[j]));
    ph.push_back(StrCat("foreach_state", j));
    t.Placeholder(states.back(), ph.back());
  }
  auto [outs, new_states] = t.Run([&] { return body(slices, states); });
  if (new_states.size() != init_states.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: the body returned ", new_states.size(),
             " states for ", init_states.size(), " initial states");
  std::vector<Symbol> all = t.Outputs(outs), st = t.Outputs(new_states);
  all.insert(all.end(), st.begin(), st.end());
  Symbol g = Symbol::Group(all);
  std::vector<int64_t> locs = LocsOf(g, ph);
  if (!AllUsed(locs)) return std::nullopt;  // MXNet's node needs every input used: unroll
  std::vector<std::string> free_names;
  std::vector<NDArray> inputs(data.begin(), data.end());
  inputs.insert(inputs.end(), init_states.begin(), init_states.end());
  FreeInputs(t, {g}, &free_names, &inputs);
  AttrDict params = {{"num_args", StrCat(inputs.size() + 1)},
                     {"num_outputs", StrCat(all.size())},
                     {"num_out_data", StrCat(outs.size())},
                     {"in_data_locs", sym::LocsText({locs.begin(), locs.begin() + data.size()})},
                     {"in_state_locs", sym::LocsText({locs.begin() + data.size(), locs.end()})},
                     {"remain_locs", sym::LocsText(LocsOf(g, free_names))}};
  NDArrayVec r = InvokeWith("_foreach", params, {g}, inputs);
  return std::pair<NDArrayVec, NDArrayVec>{NDArrayVec(r.begin(), r.begin() + outs.size()),
                                           NDArrayVec(r.begin() + outs.size(), r.end())};
}

std::optional<std::pair<NDArrayVec, NDArrayVec>> TracedWhile(
    const std::function<NDArray(const NDArrayVec&)>& cond,
    const std::function<std::pair<NDArrayVec, NDArrayVec>(const NDArrayVec&)>& func,
    const NDArrayVec& loop_vars, int max_iterations) {
  BodyTracer t("while_loop");
  NDArrayVec cv, fv;
  std::vector<std::string> ph;
  for (size_t j = 0; j < loop_vars.size(); ++j) {
    ph.push_back(StrCat("while_loop_var", j));
    cv.push_back(BodyInput(loop_vars[j]));
    t.Placeholder(cv.back(), ph.back());
  }
  BodyTracer tf("while_loop");
  for (size_t j = 0; j < loop_vars.size(); ++j) {
    fv.push_back(BodyInput(loop_vars[j]));
    tf.Placeholder(fv.back(), ph[j]);
  }
  NDArray c = t.Run([&] { return cond(cv); });
  auto [outs, vars] = tf.Run([&] { return func(fv); });
  if (vars.size() != loop_vars.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: func returned ", vars.size(),
             " loop variables for ", loop_vars.size());
  Symbol cg = Symbol::Group(t.Outputs({c}));
  std::vector<Symbol> all = tf.Outputs(outs), nv = tf.Outputs(vars);
  all.insert(all.end(), nv.begin(), nv.end());
  Symbol fg = Symbol::Group(all);
  std::vector<int64_t> var_locs = LocsOf(fg, ph);
  if (!AllUsed(var_locs)) return std::nullopt;
  // Node inputs: loop variables, then the free arrays of cond and of func (an array both read
  // is one input).
  std::vector<NDArray> inputs(loop_vars.begin(), loop_vars.end());
  std::vector<std::string> cond_free, func_free;
  std::vector<NDArray> cond_arrays, func_arrays;
  FreeInputs(t, {cg}, &cond_free, &cond_arrays);
  FreeInputs(tf, {fg}, &func_free, &func_arrays);
  auto index_of = [&](const NDArray& a) {  // a loop variable's array read as a free one is apart
    for (size_t i = loop_vars.size(); i < inputs.size(); ++i)
      if (inputs[i].is_same(a)) return static_cast<int64_t>(i);
    inputs.push_back(a);
    return static_cast<int64_t>(inputs.size() - 1);
  };
  auto locs_for = [&](const Symbol& g, const std::vector<std::string>& free,
                      const std::vector<NDArray>& arrays) {
    std::vector<int64_t> locs;
    for (const auto& n : g.list_inputs()) {
      auto p = std::find(ph.begin(), ph.end(), n);
      if (p != ph.end()) {
        locs.push_back(p - ph.begin());
        continue;
      }
      locs.push_back(index_of(arrays[std::find(free.begin(), free.end(), n) - free.begin()]));
    }
    return locs;
  };
  std::vector<int64_t> cl = locs_for(cg, cond_free, cond_arrays),
                       fl = locs_for(fg, func_free, func_arrays);
  AttrDict params = {
      {"num_args", StrCat(inputs.size() + 2)},   {"num_outputs", StrCat(all.size())},
      {"num_out_data", StrCat(outs.size())},     {"max_iterations", StrCat(max_iterations)},
      {"cond_input_locs", sym::LocsText(cl)},    {"func_input_locs", sym::LocsText(fl)},
      {"func_var_locs", sym::LocsText(var_locs)}};
  NDArrayVec r = InvokeWith("_while_loop", params, {cg, fg}, inputs);
  return std::pair<NDArrayVec, NDArrayVec>{NDArrayVec(r.begin(), r.begin() + outs.size()),
                                           NDArrayVec(r.begin() + outs.size(), r.end())};
}

// pred is an array of the outer forward: the pred subgraph is a copy of it.
NDArrayVec TracedCond(const NDArray& pred, const std::function<NDArrayVec()>& then_func,
                      const std::function<NDArrayVec()>& else_func) {
  BodyTracer tp("cond"), tt("cond"), te("cond");
  Symbol pg = Symbol::Group(tp.Outputs({pred}));
  NDArrayVec to = tt.Run([&] { return then_func(); });
  NDArrayVec eo = te.Run([&] { return else_func(); });
  if (to.size() != eo.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "cond: then_func returned ", to.size(),
             " outputs, else_func ", eo.size());
  Symbol tg = Symbol::Group(tt.Outputs(to)), eg = Symbol::Group(te.Outputs(eo));
  std::vector<NDArray> inputs;
  auto locs_for = [&](const BodyTracer& t, const Symbol& g) {
    std::vector<std::string> names;
    std::vector<NDArray> arrays;
    FreeInputs(t, {g}, &names, &arrays);
    std::vector<int64_t> locs;
    for (const auto& n : g.list_inputs()) {
      const NDArray& a = arrays[std::find(names.begin(), names.end(), n) - names.begin()];
      int64_t idx = -1;
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].is_same(a)) idx = static_cast<int64_t>(i);
      if (idx < 0) inputs.push_back(a), idx = static_cast<int64_t>(inputs.size() - 1);
      locs.push_back(idx);
    }
    return locs;
  };
  std::vector<int64_t> cl = locs_for(tp, pg), tl = locs_for(tt, tg), el = locs_for(te, eg);
  AttrDict params = {{"num_args", StrCat(inputs.size() + 3)},
                     {"num_outputs", StrCat(to.size())},
                     {"cond_input_locs", sym::LocsText(cl)},
                     {"then_input_locs", sym::LocsText(tl)},
                     {"else_input_locs", sym::LocsText(el)}};
  return InvokeWith("_cond", params, {pg, tg, eg}, inputs);
}
}  // namespace

std::pair<NDArrayVec, NDArrayVec> foreach (
    const std::function<std::pair<NDArrayVec, NDArrayVec>(const NDArrayVec&, const NDArrayVec&)>&
        body,
    const NDArrayVec& data, const NDArrayVec& init_states) {
  if (data.empty()) MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: no data");
  const int64_t len = data[0].ndim() >= 1 ? data[0].shape()[0] : 0;
  for (const auto& d : data)
    if (d.ndim() < 1 || d.shape()[0] != len || len == 0)
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "foreach: every data array needs the same non-zero length on axis 0, got ",
               d.shape().ToString(), " and ", data[0].shape().ToString());
  if (Tracing())
    if (auto r = TracedForeach(body, data, init_states)) return *r;
  NDArrayVec states = init_states;
  std::vector<std::vector<NDArray>> rows;
  for (int64_t i = 0; i < len; ++i) {
    NDArrayVec slices;
    for (const auto& d : data) {
      NDArray r =
          Call("slice_axis", {d}, {{"axis", "0"}, {"begin", StrCat(i)}, {"end", StrCat(i + 1)}});
      // MXNet's data[i]: axis 0 removed (1-D data gives one-element rows).
      slices.push_back(d.ndim() == 1 ? r : Call("squeeze", {r}, {{"axis", "(0,)"}}));
    }
    auto [outs, new_states] = body(slices, states);
    if (new_states.size() != init_states.size())
      MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: the body returned ", new_states.size(),
               " states for ", init_states.size(), " initial states");
    if (i > 0 && outs.size() != rows.size())
      MX_THROW(absl::StatusCode::kInvalidArgument, "foreach: the body returned ", outs.size(),
               " outputs, earlier ", rows.size());
    rows.resize(outs.size());
    for (size_t k = 0; k < outs.size(); ++k) rows[k].push_back(outs[k]);
    states = new_states;
  }
  NDArrayVec stacked;
  for (const auto& r : rows) stacked.push_back(Stack(r));
  return {stacked, states};
}

std::pair<NDArrayVec, NDArrayVec> while_loop(
    const std::function<NDArray(const NDArrayVec&)>& cond,
    const std::function<std::pair<NDArrayVec, NDArrayVec>(const NDArrayVec&)>& func,
    const NDArrayVec& loop_vars, int max_iterations) {
  if (loop_vars.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: no loop variables");
  if (max_iterations < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: max_iterations must be >= 1, got ",
             max_iterations);
  if (Tracing()) {
    if (auto r = TracedWhile(cond, func, loop_vars, max_iterations)) return *r;
    if (CurrentDispatchState().infer_only)
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "while_loop inside a hybridized forward: func does not use every loop variable, so "
               "the loop cannot become one _while_loop node (MXNet needs every input used), and "
               "hybridize traces without running, so it cannot unroll the loop by its condition "
               "either; use every loop variable in func, or call the block without hybridize()");
  }
  // Shape-only dispatch (deferred initialization) cannot read the condition: one step gives the
  // shapes.
  const bool shapes_only = CurrentDispatchState().infer_only;
  NDArrayVec vars = loop_vars;
  std::vector<std::vector<NDArray>> rows;
  int steps = 0;
  while (steps < max_iterations &&
         (shapes_only ? steps == 0 : sym::Truth(cond(vars), "while_loop"))) {
    auto [outs, new_vars] = func(vars);
    if (new_vars.size() != loop_vars.size())
      MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: func returned ", new_vars.size(),
               " loop variables for ", loop_vars.size());
    if (steps > 0 && outs.size() != rows.size())
      MX_THROW(absl::StatusCode::kInvalidArgument, "while_loop: func returned ", outs.size(),
               " step outputs, earlier ", rows.size());
    rows.resize(outs.size());
    for (size_t k = 0; k < outs.size(); ++k) rows[k].push_back(outs[k]);
    vars = new_vars;
    ++steps;
  }
  NDArrayVec stacked;
  for (const auto& r : rows) {
    NDArray s = Stack(r);
    if (steps < max_iterations) {
      std::vector<int64_t> pad = s.shape().ToVector();
      pad[0] = max_iterations - steps;
      NDArray z(Shape(pad), s.device(), s.dtype());
      z.Fill(0);
      s = Call("Concat", {s, z}, {{"dim", "0"}, {"num_args", "2"}});
    }
    stacked.push_back(s);
  }
  return {stacked, vars};
}

NDArrayVec cond(const NDArray& pred, const std::function<NDArrayVec()>& then_func,
                const std::function<NDArrayVec()>& else_func) {
  if (Tracing()) return TracedCond(pred, then_func, else_func);
  // Shape-only dispatch (deferred initialization): both branches give the same shapes.
  if (CurrentDispatchState().infer_only) return then_func();
  return sym::Truth(pred, "cond") ? then_func() : else_func();
}

}  // namespace mxnet::nd::contrib
