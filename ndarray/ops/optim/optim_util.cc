#include "ndarray/ops/optim/optim_util.h"

#include <memory>

namespace mxnet::ops::optim {
namespace {

// Up to how many weights a multi-tensor op declares its mutated inputs and in-place outputs (the
// registry's lists are static; a state position of weight k never coincides with a weight, grad
// or tail position of another k, so over-declaring is harmless).
constexpr int kMaxDeclared = 256;

int Stride(const UpdateLayout& l) { return static_cast<int>(l.group.size()); }

// Input i of `layout` with n weights (n < 0: single-weight op).
const UpdateInput& InputAt(const UpdateLayout& l, int n, int i) {
  const int st = Stride(l), groups = n < 0 ? 1 : n;
  return i < groups * st ? l.group[i % st] : l.tail[i - groups * st];
}

std::string NameAt(const UpdateLayout& l, int n, int i) {
  const int st = Stride(l);
  const UpdateInput& in = InputAt(l, n, i);
  if (n < 0 || i >= n * st) return in.name;
  return StrCat(in.name, "_", i / st);
}

std::vector<std::string> Names(const UpdateLayout& l, int n) {
  const int total = (n < 0 ? 1 : n) * Stride(l) + static_cast<int>(l.tail.size());
  std::vector<std::string> names;
  names.reserve(total);
  for (int i = 0; i < total; ++i) names.push_back(NameAt(l, n, i));
  return names;
}

// MergeShape / MergeType, building the error context only when they are about to fail.
template <typename F>
void Merge(Shape* into, const Shape& from, F what) {
  bool agree = !from.ndim_known() || !into->ndim_known() || into->ndim() == from.ndim();
  for (int d = 0; agree && from.ndim_known() && into->ndim_known() && d < from.ndim(); ++d)
    agree = from[d] < 0 || (*into)[d] < 0 || from[d] == (*into)[d];
  if (agree)
    MergeShape(into, from, {});
  else
    MergeShape(into, from, what());
}
template <typename F>
void Merge(int* into, int from, F what) {
  if (from >= 0 && *into >= 0 && from != *into)
    MergeType(into, from, what());
  else
    MergeType(into, from, {});
}

void CheckRule(const UpdateLayout& l, int n, const OpAttrs& a, int i, Shape* s) {
  const ShapeRule rule = InputAt(l, n, i).shape;
  const int64_t want = rule == ShapeRule::kPerWeight ? n : 1;
  if (!s->is_known()) {
    *s = Shape{want};
    return;
  }
  const bool ok = rule == ShapeRule::kAtLeastOne ? s->Size() >= 1 : s->Size() == want;
  if (ok) return;
  const char* need = rule == ShapeRule::kOne          ? "exactly one element"
                     : rule == ShapeRule::kAtLeastOne ? "at least one value"
                                                      : nullptr;
  MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": input ", NameAt(l, n, i),
           " must hold ", need ? std::string(need) : StrCat("num_weights = ", n, " values"),
           ", got shape ", s->ToString());
}

}  // namespace

void InferUpdateShape(const UpdateLayout& l, int n, const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const int st = Stride(l), groups = n < 0 ? 1 : n;
  for (int k = 0; k < groups; ++k) {
    Shape s = Shape::Unknown();
    for (int j = 0; j < st; ++j)
      if (l.group[j].shape == ShapeRule::kWeight)
        Merge(&s, (*in)[k * st + j],
              [&] { return StrCat(OpName(a), ": input ", NameAt(l, n, k * st + j)); });
    Merge(&s, (*out)[k], [&] { return StrCat(OpName(a), ": output ", k); });
    for (int j = 0; j < st; ++j)
      if (l.group[j].shape == ShapeRule::kWeight) (*in)[k * st + j] = s;
    (*out)[k] = s;
  }
  for (int i = 0; i < static_cast<int>(in->size()); ++i)
    if (InputAt(l, n, i).shape != ShapeRule::kWeight) CheckRule(l, n, a, i, &(*in)[i]);
}

void InferUpdateType(const UpdateLayout& l, int n, const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  const int st = Stride(l), groups = n < 0 ? 1 : n, total = static_cast<int>(in->size());
  auto input = [&](int i) { return StrCat(OpName(a), ": input ", NameAt(l, n, i)); };
  int t = -1;
  for (int k = 0; k < groups; ++k) {
    for (int j = 0; j < st; ++j)
      if (!l.group[j].f32) Merge(&t, (*in)[k * st + j], [&] { return input(k * st + j); });
    if (!l.out_f32) Merge(&t, (*out)[k], [&] { return StrCat(OpName(a), ": output ", k); });
  }
  for (int i = groups * st; i < total; ++i)
    if (!InputAt(l, n, i).f32) Merge(&t, (*in)[i], [&] { return input(i); });
  constexpr int kF32 = static_cast<int>(DType::kFloat32);
  for (int i = 0; i < total; ++i) {
    int& x = (*in)[i];
    if (!InputAt(l, n, i).f32) {
      x = t;
    } else if (x < 0) {
      x = kF32;
    } else if (x != kF32) {
      MX_THROW(absl::StatusCode::kInvalidArgument, input(i), " must be float32, got ",
               DTypeName(static_cast<DType>(x)));
    }
  }
  for (auto& x : *out) x = l.out_f32 ? kF32 : t;
}

Op& DeclareUpdate(Op& op, UpdateLayout layout) {
  std::vector<int> mutated;
  bool plain = layout.tail.empty() && !layout.out_f32;
  for (int j = 0; j < Stride(layout); ++j) {
    if (layout.group[j].mutated) mutated.push_back(j);
    plain = plain && !layout.group[j].f32 && layout.group[j].shape == ShapeRule::kWeight;
  }
  op.set_num_inputs(Stride(layout))
      .set_input_names(Names(layout, -1))
      .set_mutable_inputs(std::move(mutated))
      .set_non_differentiable()
      .add_inplace(0, 0);
  if (plain) return op;  // the registry's elementwise inference is the same
  auto l = std::make_shared<const UpdateLayout>(std::move(layout));
  return op
      .set_infer_shape([l](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
        InferUpdateShape(*l, -1, a, in, out);
      })
      .set_infer_type([l](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
        InferUpdateType(*l, -1, a, in, out);
      });
}

Op& DeclareMultiUpdate(Op& op, UpdateLayout layout, std::function<int(const OpAttrs&)> count) {
  auto l = std::make_shared<const UpdateLayout>(std::move(layout));
  const int st = Stride(*l), tail = static_cast<int>(l->tail.size());
  std::vector<int> mutated;
  for (int k = 0; k < kMaxDeclared; ++k) {
    for (int j = 0; j < st; ++j)
      if (l->group[j].mutated) mutated.push_back(k * st + j);
    op.add_inplace(k * st, k);
  }
  return op.set_num_inputs([count, st, tail](const OpAttrs& a) { return count(a) * st + tail; })
      .set_num_outputs(count)
      .set_input_names([l, count](const OpAttrs& a) { return Names(*l, count(a)); })
      .set_mutable_inputs(std::move(mutated))
      .set_infer_shape([l, count](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
        InferUpdateShape(*l, count(a), a, in, out);
      })
      .set_infer_type([l, count](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
        InferUpdateType(*l, count(a), a, in, out);
      })
      .set_non_differentiable();
}

std::string CheckPerWeight(int n, std::string_view n_name,
                           std::initializer_list<std::pair<std::string_view, size_t>> counts) {
  if (n < 1) return StrCat(n_name, " must be >= 1, got ", n);
  for (const auto& [what, got] : counts)
    if (static_cast<int>(got) != n)
      return StrCat(what, " has ", got, " values, expected ", n_name, " = ", n);
  return "";
}

}  // namespace mxnet::ops::optim

namespace mxnet::nd::optim {

std::vector<NDArray> Run(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& in,
                         const std::vector<NDArray>& out) {
  if (out.empty()) {
    NDArrayVec r = Invoke(op, attrs, in);
    return std::vector<NDArray>(r.begin(), r.end());
  }
  InvokeInto(op, attrs, in, out);
  return out;
}

std::vector<NDArray> Interleave(std::string_view op,
                                const std::vector<const std::vector<NDArray>*>& lists,
                                const std::vector<NDArray>& out,
                                std::initializer_list<NDArray> tail) {
  const size_t n = lists[0]->size();
  if (n == 0) MX_THROW(absl::StatusCode::kInvalidArgument, op, ": no weights given");
  for (const auto* l : lists)
    if (l->size() != n)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": got ", n,
               " weights but an input list of ", l->size(), " arrays");
  if (!out.empty() && out.size() != n)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": got ", n, " weights but ", out.size(),
             " outputs");
  std::vector<NDArray> in;
  in.reserve(n * lists.size() + tail.size());
  for (size_t k = 0; k < n; ++k)
    for (const auto* l : lists) in.push_back((*l)[k]);
  in.insert(in.end(), tail.begin(), tail.end());
  return in;
}

}  // namespace mxnet::nd::optim
