// Joining and splitting: Concat, stack, SliceChannel (split), _split_v2, and _split_like (the
// gradient of Concat). Semantics follow MXNet 1.9.1 (nn/concat.cc, matrix_op, slice_channel).
// Inputs of the variadic ops are named arg0, arg1, ... and counted by num_args, as in MXNet.
#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

template <typename P>
std::vector<GradValue> ApplyP(GradBuilder& b, std::string_view name, P p,
                              const std::vector<GradValue>& inputs) {
  const Op& op = OpRegistry::Get(name);
  return b.Apply(op, OpAttrs::From(op, std::move(p)), inputs);
}

// Output gradients, with zeros for outputs that got none.
std::vector<GradValue> DenseOutGrads(GradBuilder& b, std::span<const GradValue> outs,
                                     std::span<const GradValue> og) {
  std::vector<GradValue> g;
  for (size_t k = 0; k < og.size(); ++k) g.push_back(og[k].valid() ? og[k] : b.ZerosLike(outs[k]));
  return g;
}

std::vector<std::string> ArgNames(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(StrCat("arg", i));
  return v;
}

// Copies piece k of `in` along `axis` ([starts[k], starts[k] + size_k)) into outs[k].
void SplitCopy(const NDArray& in, std::span<const NDArray> outs, int axis,
               const std::vector<int64_t>& starts) {
  const Shape& s = in.shape();
  int64_t outer = s.ProdRange(0, axis), inner = s.ProdRange(axis + 1, s.ndim()), A = s[axis];
  size_t es = DTypeSize(in.dtype());
  for (size_t k = 0; k < outs.size(); ++k) {
    int64_t part = outs[k].size() / std::max<int64_t>(1, outer * inner);
    if (outer * inner == 0) continue;
    std::vector<int64_t> dims{outer, part * inner}, ds{part * inner, 1}, ss{A * inner, 1};
    StridedCopy(outs[k].data_ptr(), ElemPtr(in.data_ptr(), starts[k] * inner, es), es, dims, ds,
                ss);
  }
}

// Copies inputs[k] into `out` along `axis` at offsets starts[k] (the inverse of SplitCopy).
void JoinCopy(std::span<const NDArray> ins, const NDArray& out, int axis,
              const std::vector<int64_t>& starts) {
  const Shape& s = out.shape();
  int64_t outer = s.ProdRange(0, axis), inner = s.ProdRange(axis + 1, s.ndim()), A = s[axis];
  size_t es = DTypeSize(out.dtype());
  if (outer * inner == 0) return;
  for (size_t k = 0; k < ins.size(); ++k) {
    int64_t part = ins[k].size() / (outer * inner);
    std::vector<int64_t> dims{outer, part * inner}, ds{A * inner, 1}, ss{part * inner, 1};
    StridedCopy(ElemPtr(out.data_ptr(), starts[k] * inner, es), ins[k].data_ptr(), es, dims, ds,
                ss);
  }
}

// ---- Concat ----
// Shapes agree except along `dim`, where the output is the sum. Infers a missing input size
// along `dim` from the output (MXNet leaves it unknown).
void ConcatShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out, int dim) {
  int nd = -1;
  for (const auto& x : *in)
    if (x.ndim_known()) nd = x.ndim();
  if (nd < 0 && (*out)[0].ndim_known()) nd = (*out)[0].ndim();
  if (nd < 0) return;
  if (nd == 0) Fail(a, "zero-dimensional arrays cannot be concatenated");
  Shape probe = Shape::Filled(nd, 1);
  int axis = CheckAxis(a, dim, nd, "dim", (*out)[0].ndim_known() ? (*out)[0] : probe);
  Shape common = Shape::Filled(nd, -1);
  auto merge_rest = [&](const Shape& x, std::string_view what) {
    if (!x.ndim_known()) return;
    Shape t = x;
    if (t.ndim() == nd) t[axis] = -1;
    Shape before = common;
    try {
      MergeShape(&common, t, what);
    } catch (const Error&) {
      Fail(a, what, " has shape ", x.ToString(), ", incompatible with ", before.ToString(),
           " (all dims but dim ", axis, " must agree)");
    }
  };
  for (size_t i = 0; i < in->size(); ++i)
    merge_rest((*in)[i], StrCat("input ", i, " (arg", i, ")"));
  merge_rest((*out)[0], "output");
  int64_t sum = 0;
  int unknown = -1, n_unknown = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    Shape t = common;
    t[axis] = (*in)[i].ndim_known() ? (*in)[i][axis] : -1;
    MergeShape(&(*in)[i], t, StrCat(OpName(a), ": input ", i, " (arg", i, ")"));
    if ((*in)[i][axis] < 0)
      ++n_unknown, unknown = static_cast<int>(i);
    else
      sum += (*in)[i][axis];
  }
  Shape o = common;
  o[axis] = n_unknown ? -1 : sum;
  MergeShape(&(*out)[0], o, StrCat(OpName(a), ": output"));
  int64_t total = (*out)[0][axis];
  if (n_unknown == 1 && total >= 0) {
    if (total < sum)
      Fail(a, "output size ", total, " along dim ", axis, " is smaller than the sum ", sum,
           " of the known inputs");
    (*in)[unknown][axis] = total - sum;
  }
}

MX_REGISTER_OP(Concat)
    .describe("Joins the inputs along axis `dim`; the other dims must agree.")
    .add_alias("concat")
    .add_alias("_sparse_concat")
    .set_params<ConcatParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<ConcatParam>().num_args; })
    .set_input_names([](const OpAttrs& a) { return ArgNames(a.get<ConcatParam>().num_args); })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ConcatShape(a, in, out, a.get<ConcatParam>().dim);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  int axis =
                      CheckAxis(a, a.get<ConcatParam>().dim, out[0].ndim(), "dim", out[0].shape());
                  std::vector<int64_t> starts;
                  int64_t off = 0;
                  for (const auto& x : in) starts.push_back(off), off += x.shape()[axis];
                  JoinCopy(in, out[0], axis, starts);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          const auto& p = a.get<ConcatParam>();
          SplitLikeParam sp;
          sp.num_args = p.num_args;
          sp.dim = p.dim;
          std::vector<GradValue> args{og[0]};
          args.insert(args.end(), in.begin(), in.end());
          return ApplyP(b, "_split_like", sp, args);
        },
        true, false);

// ---- _split_like ----
MX_REGISTER_OP(_split_like)
    .describe(
        "Splits data along `dim` into num_args parts sized like the other inputs along `dim` "
        "(the gradient of Concat).")
    .set_params<SplitLikeParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<SplitLikeParam>().num_args + 1; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<SplitLikeParam>().num_args; })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> v{"data"};
      for (int i = 0; i < a.get<SplitLikeParam>().num_args; ++i) v.push_back(StrCat("like", i));
      return v;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      // Same relation as Concat with the outputs as its inputs and data as its output.
      ShapeVec parts(out->begin(), out->end()), whole{(*in)[0]};
      int dim = a.get<SplitLikeParam>().dim;
      for (size_t k = 0; k < parts.size(); ++k) {
        const Shape& like = (*in)[k + 1];
        if (!like.ndim_known()) continue;
        int axis = CheckAxis(a, dim, like.ndim(), "dim", like);
        Shape t = Shape::Filled(like.ndim(), -1);
        t[axis] = like[axis];
        MergeShape(&parts[k], t, StrCat(OpName(a), ": output ", k));
      }
      ConcatShape(a, &parts, &whole, dim);
      (*in)[0] = whole[0];
      for (size_t k = 0; k < parts.size(); ++k) (*out)[k] = parts[k];
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      int t = (*in)[0];
      for (int o : *out) MergeType(&t, o, "_split_like: output");
      (*in)[0] = t;
      for (auto& o : *out) o = t;
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  int axis =
                      CheckAxis(a, a.get<SplitLikeParam>().dim, in[0].ndim(), "dim", in[0].shape());
                  std::vector<int64_t> starts;
                  int64_t off = 0;
                  for (const auto& x : out) starts.push_back(off), off += x.shape()[axis];
                  SplitCopy(in[0], out, axis, starts);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue> outs, std::span<const GradValue> og) {
          const auto& p = a.get<SplitLikeParam>();
          ConcatParam cp;
          cp.num_args = p.num_args;
          cp.dim = p.dim;
          std::vector<GradValue> g{ApplyP(b, "Concat", cp, DenseOutGrads(b, outs, og))[0]};
          for (size_t i = 1; i < in.size(); ++i) g.push_back(b.ZerosLike(in[i]));
          return g;
        },
        true, true);

// ---- stack ----
MX_REGISTER_OP(stack)
    .describe("Joins same-shaped inputs along a new axis `axis` of the result.")
    .set_params<StackParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<StackParam>().num_args; })
    .set_input_names([](const OpAttrs& a) { return ArgNames(a.get<StackParam>().num_args); })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const auto& p = a.get<StackParam>();
      Shape common = Shape::Unknown();
      for (size_t i = 0; i < in->size(); ++i)
        MergeShape(&common, (*in)[i], StrCat("stack: input ", i, " (arg", i, ")"));
      Shape& y = (*out)[0];
      int nd = common.ndim_known() ? common.ndim() + 1 : y.ndim();
      if (nd < 0) return;
      int axis = CheckAxis(a, p.axis, nd, "axis", common.ndim_known() ? Shape::Filled(nd, 1) : y);
      if (y.ndim_known()) {
        if (y.ndim() != nd)
          Fail(a, "output shape ", y.ToString(), " does not match inputs of shape ",
               common.ToString());
        Shape back;
        for (int i = 0; i < nd; ++i)
          if (i != axis) back.push_back(y[i]);
        MergeShape(&common, back, "stack: output");
      }
      Shape o = Shape::Filled(nd, -1);
      for (int i = 0, j = 0; i < nd; ++i) o[i] = i == axis ? p.num_args : common[j++];
      MergeShape(&y, o, "stack: output");
      for (auto& x : *in) x = common;
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  int axis =
                      CheckAxis(a, a.get<StackParam>().axis, out[0].ndim(), "axis", out[0].shape());
                  std::vector<int64_t> starts;
                  for (size_t i = 0; i < in.size(); ++i) starts.push_back(static_cast<int64_t>(i));
                  JoinCopy(in, out[0], axis, starts);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          const auto& p = a.get<StackParam>();
          SliceChannelParam sp;
          sp.num_outputs = p.num_args;
          sp.axis = p.axis;
          sp.squeeze_axis = true;
          return ApplyP(b, "SliceChannel", sp, {og[0]});
        },
        false, false);

// ---- SliceChannel (split) ----
MX_REGISTER_OP(SliceChannel)
    .describe(
        "Splits the input along `axis` into num_outputs equal parts (squeeze_axis removes the "
        "axis; then its size must equal num_outputs).")
    .add_alias("split")
    .set_params<SliceChannelParam>()
    .set_num_outputs([](const OpAttrs& a) { return a.get<SliceChannelParam>().num_outputs; })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const auto& p = a.get<SliceChannelParam>();
      Shape& x = (*in)[0];
      int n = p.num_outputs;
      Shape part = Shape::Unknown();
      for (size_t k = 0; k < out->size(); ++k)
        MergeShape(&part, (*out)[k], StrCat("SliceChannel: output ", k));
      int nd = x.ndim_known()      ? x.ndim()
               : part.ndim_known() ? part.ndim() + (p.squeeze_axis ? 1 : 0)
                                   : -1;
      if (nd < 0) return;
      int axis = CheckAxis(a, p.axis, nd, "axis", x.ndim_known() ? x : Shape::Filled(nd, 1));
      // Input from the parts.
      if (part.ndim_known()) {
        Shape back = Shape::Filled(nd, -1);
        if (part.ndim() != nd - (p.squeeze_axis ? 1 : 0))
          Fail(a, "output shape ", part.ToString(), " does not match input shape ", x.ToString());
        for (int i = 0, j = 0; i < nd; ++i) {
          if (i != axis) {
            back[i] = part[j++];
          } else if (p.squeeze_axis) {
            back[i] = n;
          } else {
            back[i] = part[j] < 0 ? -1 : part[j] * n;
            ++j;
          }
        }
        MergeShape(&x, back, "SliceChannel: input");
      }
      if (x[axis] >= 0 && x[axis] % n != 0)
        Fail(a, "cannot split axis ", axis, " of input shape ", x.ToString(),
             " into num_outputs=", n, " equal parts: ", n, " does not divide ", x[axis]);
      if (p.squeeze_axis && x[axis] >= 0 && x[axis] != n)
        Fail(a, "with squeeze_axis, the size of axis ", axis, " must equal num_outputs=", n,
             ", input shape ", x.ToString());
      Shape o;
      for (int i = 0; i < nd; ++i) {
        if (i != axis)
          o.push_back(x[i]);
        else if (!p.squeeze_axis)
          o.push_back(x[i] < 0 ? -1 : x[i] / n);
      }
      for (size_t k = 0; k < out->size(); ++k)
        MergeShape(&(*out)[k], o, StrCat("SliceChannel: output ", k));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<SliceChannelParam>();
                  int axis = CheckAxis(a, p.axis, in[0].ndim(), "axis", in[0].shape());
                  int64_t part = in[0].shape()[axis] / p.num_outputs;
                  std::vector<int64_t> starts;
                  for (int k = 0; k < p.num_outputs; ++k) starts.push_back(k * part);
                  SplitCopy(in[0], out, axis, starts);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>,
           std::span<const GradValue> outs, std::span<const GradValue> og) {
          const auto& p = a.get<SliceChannelParam>();
          std::vector<GradValue> g = DenseOutGrads(b, outs, og);
          if (p.squeeze_axis) {
            StackParam sp;
            sp.num_args = p.num_outputs;
            sp.axis = p.axis;
            return std::vector<GradValue>{ApplyP(b, "stack", sp, g)[0]};
          }
          ConcatParam cp;
          cp.num_args = p.num_outputs;
          cp.dim = p.axis;
          return std::vector<GradValue>{ApplyP(b, "Concat", cp, g)[0]};
        },
        false, true);

// ---- _split_v2 ----
int SplitV2Outputs(const OpAttrs& a) {
  const auto& p = a.get<SplitV2Param>();
  return p.sections > 0 ? p.sections : p.indices.ndim();
}

// Start of every part along the axis of size `len` (known).
std::vector<int64_t> SplitV2Starts(const OpAttrs& a, int64_t len, const Shape& in) {
  const auto& p = a.get<SplitV2Param>();
  std::vector<int64_t> starts;
  if (p.sections > 0) {
    int64_t base = len / p.sections, extra = len % p.sections, off = 0;
    for (int i = 0; i < p.sections; ++i) starts.push_back(off), off += base + (i < extra ? 1 : 0);
  } else {
    starts = p.indices.ToVector();
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t e = i + 1 < starts.size() ? starts[i + 1] : len;
    if (len > 0 && (starts[i] < 0 || starts[i] > e || e > len))
      Fail(a, "indices ", p.indices.ToString(), " do not split axis of size ", len,
           " of input shape ", in.ToString(), " into ordered parts");
  }
  return starts;
}

MX_REGISTER_OP(_split_v2)
    .describe(
        "Splits the input along `axis` at the given start indices, or into `sections` "
        "near-equal parts (the first len % sections parts one longer).")
    .add_alias("_npi_split")
    .set_params<SplitV2Param>()
    .set_num_outputs(SplitV2Outputs)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const auto& p = a.get<SplitV2Param>();
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      int axis = CheckAxis(a, p.axis, x.ndim(), "axis", x);
      if (x[axis] < 0) return;
      std::vector<int64_t> starts = SplitV2Starts(a, x[axis], x);
      int64_t len = x[axis];
      for (size_t k = 0; k < starts.size(); ++k) {
        int64_t e = k + 1 < starts.size() ? starts[k + 1] : len;
        int64_t size = len == 0 ? 0 : e - starts[k];
        Shape o;
        for (int i = 0; i < x.ndim(); ++i) {
          if (i != axis)
            o.push_back(x[i]);
          else if (!p.squeeze_axis)
            o.push_back(size);
          else if (size != 1)
            Fail(a, "squeeze_axis needs parts of size 1, part ", k, " has size ", size,
                 " (input shape ", x.ToString(), ")");
        }
        MergeShape(&(*out)[k], o, StrCat("_split_v2: output ", k));
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  int axis =
                      CheckAxis(a, a.get<SplitV2Param>().axis, in[0].ndim(), "axis", in[0].shape());
                  SplitCopy(in[0], out, axis, SplitV2Starts(a, in[0].shape()[axis], in[0].shape()));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>,
           std::span<const GradValue> outs, std::span<const GradValue> og) {
          const auto& p = a.get<SplitV2Param>();
          std::vector<GradValue> g = DenseOutGrads(b, outs, og);
          int n = static_cast<int>(g.size());
          if (p.squeeze_axis) {
            StackParam sp;
            sp.num_args = n;
            sp.axis = p.axis;
            return std::vector<GradValue>{ApplyP(b, "stack", sp, g)[0]};
          }
          ConcatParam cp;
          cp.num_args = n;
          cp.dim = p.axis;
          return std::vector<GradValue>{ApplyP(b, "Concat", cp, g)[0]};
        },
        false, true);

}  // namespace
}  // namespace mxnet::ops
