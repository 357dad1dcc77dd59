// Sequence ops of MXNet 1.9.1 (src/operator/sequence_{mask,last,reverse}-inl.h): SequenceMask,
// SequenceLast, SequenceReverse, and _backward_SequenceLast.
//
// Layout: data (T, B, ...) for axis 0, (B, T, ...) for axis 1 (rank >= 2); the optional input
// sequence_length (B,) exists only with use_sequence_length=True and may have any numeric dtype
// (lengths are truncated to integers, as MXNet casts them). Data may have any numeric dtype.
// Kernels move whole (rest,) rows as bytes, so no per-dtype code is needed.
//
// Lengths outside what the op can use are errors here, where MXNet 1.9.1 reads out of bounds:
// SequenceLast needs 1 <= length <= T, SequenceReverse 0 <= length <= T. SequenceMask takes any
// length (<= 0 masks everything, >= T nothing), as MXNet.
//
// Gradients (no gradient for sequence_length): SequenceMask's is SequenceMask(ograd, value=0),
// SequenceReverse's is SequenceReverse(ograd), SequenceLast's scatters ograd back to the picked
// positions (_backward_SequenceLast, itself differentiable).
#include <cmath>
#include <cstring>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/nn/nn_extra_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {

std::string SequenceMaskParam::Validate() const {
  if (axis != 0 && axis != 1) return StrCat("attribute axis must be 0 or 1, got ", axis);
  return "";
}
std::string SequenceLastParam::Validate() const {
  if (axis != 0 && axis != 1) return StrCat("attribute axis must be 0 or 1, got ", axis);
  return "";
}
std::string SequenceReverseParam::Validate() const {
  if (axis != 0) return StrCat("attribute axis must be 0 (the only one supported), got ", axis);
  return "";
}

namespace nn {
namespace {

// The (use_sequence_length, axis) pair every sequence op has.
struct SeqArgs {
  bool use_len = false;
  int axis = 0;
};
SeqArgs ArgsOf(const OpAttrs& a) {
  const std::string& op = a.op()->name;
  if (op == "SequenceMask") {
    const auto& p = a.get<SequenceMaskParam>();
    return {p.use_sequence_length, p.axis};
  }
  if (op == "SequenceReverse") {
    const auto& p = a.get<SequenceReverseParam>();
    return {p.use_sequence_length, p.axis};
  }
  const auto& p = a.get<SequenceLastParam>();  // SequenceLast, _backward_SequenceLast
  return {p.use_sequence_length, p.axis};
}

// data seen as (T, B, rest) (axis 0) or (B, T, rest) (axis 1).
struct SeqLayout {
  int64_t T = 0, B = 0, rest = 1;
  int axis = 0;
  size_t esize = 0;  // bytes per element
  // Byte offset of row (t, b).
  size_t Row(int64_t t, int64_t b) const {
    const int64_t r = axis == 0 ? t * B + b : b * T + t;
    return static_cast<size_t>(r * rest) * esize;
  }
  size_t RowBytes() const { return static_cast<size_t>(rest) * esize; }
};
SeqLayout LayoutOf(const NDArray& data, int axis) {
  const Shape& s = data.shape();
  SeqLayout l;
  l.axis = axis;
  l.T = s[axis];
  l.B = s[1 - axis];
  l.rest = s.ProdRange(2, s.ndim());
  l.esize = DTypeSize(data.dtype());
  return l;
}

// The per-example lengths (truncated toward zero), or T for each without use_sequence_length.
std::vector<int64_t> Lengths(std::span<const NDArray> in, const SeqArgs& a, const SeqLayout& l,
                             int len_input) {
  std::vector<int64_t> len(static_cast<size_t>(l.B), l.T);
  if (!a.use_len) return len;
  const std::vector<double> v = in[len_input].ToVector<double>();
  for (int64_t b = 0; b < l.B; ++b) {
    const double x = v[static_cast<size_t>(b)];
    len[static_cast<size_t>(b)] = std::isfinite(x) ? static_cast<int64_t>(x) : -1;
  }
  return len;
}

void CheckLengths(std::string_view op, const std::vector<int64_t>& len, int64_t lo, int64_t T,
                  const std::vector<double>& raw) {
  for (size_t b = 0; b < len.size(); ++b)
    if (len[b] < lo || len[b] > T)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": sequence_length[", b, "] = ", raw[b],
               " is out of range [", lo, ", ", T, "] (max_sequence_length ", T, ")");
}

// Shapes: data rank >= 2; sequence_length (B,); output data's shape (drop_axis: without the
// sequence axis).
void SeqShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out, bool drop_axis) {
  const std::string& op = attrs.op()->name;
  const SeqArgs a = ArgsOf(attrs);
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  if (d.ndim() < 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": data must have at least 2 dimensions (sequence, batch, ...), got ", d.ToString());
  if (a.use_len) {
    const Shape want{d[1 - a.axis]};
    Shape& l = (*in)[1];
    if (l.ndim_known() && (l.ndim() != 1 || (l[0] >= 0 && want[0] >= 0 && l[0] != want[0])))
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input sequence_length has shape ",
               l.ToString(), ", expected ", want.ToString(), " (the batch size of data ",
               d.ToString(), " with axis=", a.axis, ")");
    AssignShape(op, "sequence_length", &l, want);
  }
  if (!drop_axis) {
    (*out)[0] = d;
    return;
  }
  Shape o;
  for (int k = 0; k < d.ndim(); ++k)
    if (k != a.axis) o.push_back(d[k]);
  (*out)[0] = o;
}

// Output dtype = data's; sequence_length: any dtype.
void SeqType(const OpAttrs&, DTypeVec* in, DTypeVec* out) { (*out)[0] = (*in)[0]; }

std::vector<std::string> SeqInputNames(const OpAttrs& a) {
  return ArgsOf(a).use_len ? std::vector<std::string>{"data", "sequence_length"}
                           : std::vector<std::string>{"data"};
}
int SeqNumInputs(const OpAttrs& a) { return ArgsOf(a).use_len ? 2 : 1; }

// ---------------------------------------------------------------------------------------------
// SequenceMask: positions t >= length[b] become `value`.

void SequenceMaskRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const auto& p = attrs.get<SequenceMaskParam>();
  const SeqArgs a = ArgsOf(attrs);
  const SeqLayout l = LayoutOf(in[0], a.axis);
  if (out[0].data_ptr() != in[0].data_ptr())  // in place is allowed
    std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
  if (!a.use_len || in[0].size() == 0) return;
  const std::vector<int64_t> len = Lengths(in, a, l, 1);
  NDArray fill(Shape{l.rest}, cpu(), in[0].dtype());
  fill.Fill(p.value);
  const char* f = static_cast<const char*>(fill.data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  for (int64_t b = 0; b < l.B; ++b)
    for (int64_t t = std::max<int64_t>(len[b], 0); t < l.T; ++t)
      std::memcpy(y + l.Row(t, b), f, l.RowBytes());
}

std::vector<GradValue> SequenceMaskGrad(GradBuilder& b, const OpAttrs& attrs,
                                        std::span<const GradValue> in, std::span<const GradValue>,
                                        std::span<const GradValue> og) {
  SequenceMaskParam p = attrs.get<SequenceMaskParam>();
  p.value = 0.0f;
  if (!p.use_sequence_length) return {og[0]};
  GradValue dx = Apply1(b, "SequenceMask", {og[0], in[1]}, MakeAttrs("SequenceMask", p));
  return {dx, GradValue{}};
}

MX_REGISTER_OP(SequenceMask)
    .describe(
        "Sets the positions of each sequence at or beyond its length to `value`: data (T, B, "
        "...) (axis 0) or (B, T, ...) (axis 1), sequence_length (B,).")
    .add_alias("_npx_sequence_mask")
    .set_params<SequenceMaskParam>()
    .set_num_inputs(SeqNumInputs)
    .set_input_names(SeqInputNames)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SeqShape(a, in, out, false);
    })
    .set_infer_type(SeqType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SequenceMaskRef)
    .set_gradient(SequenceMaskGrad, true, false)
    .add_inplace(0, 0);

// ---------------------------------------------------------------------------------------------
// SequenceLast: row length[b] - 1 of each sequence.

void SequenceLastRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const SeqArgs a = ArgsOf(attrs);
  const SeqLayout l = LayoutOf(in[0], a.axis);
  if (in[0].size() == 0) return;
  const std::vector<int64_t> len = Lengths(in, a, l, 1);
  if (a.use_len) CheckLengths("SequenceLast", len, 1, l.T, in[1].ToVector<double>());
  const char* x = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  for (int64_t b = 0; b < l.B; ++b)
    std::memcpy(y + static_cast<size_t>(b) * l.RowBytes(), x + l.Row(len[b] - 1, b), l.RowBytes());
}

// _backward_SequenceLast(ograd (B, ...), data[, sequence_length]) -> data-shaped gradient: ograd
// at row length[b] - 1, zero elsewhere.
void BackwardSequenceLastRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                             std::span<const NDArray> out) {
  const SeqArgs a = ArgsOf(attrs);
  const SeqLayout l = LayoutOf(out[0], a.axis);
  std::memset(out[0].data_ptr(), 0, out[0].nbytes());
  if (out[0].size() == 0) return;
  const std::vector<int64_t> len = Lengths(in, a, l, 2);
  if (a.use_len) CheckLengths("_backward_SequenceLast", len, 1, l.T, in[2].ToVector<double>());
  const char* g = static_cast<const char*>(in[0].data_ptr());
  char* dx = static_cast<char*>(out[0].data_ptr());
  for (int64_t b = 0; b < l.B; ++b)
    std::memcpy(dx + l.Row(len[b] - 1, b), g + static_cast<size_t>(b) * l.RowBytes(), l.RowBytes());
}

MX_REGISTER_OP(SequenceLast)
    .describe(
        "The last element of each sequence: data (T, B, ...) (axis 0) or (B, T, ...) (axis 1) "
        "-> (B, ...), at length[b] - 1 with use_sequence_length.")
    .set_params<SequenceLastParam>()
    .set_num_inputs(SeqNumInputs)
    .set_input_names(SeqInputNames)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SeqShape(a, in, out, true);
    })
    .set_infer_type(SeqType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SequenceLastRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          const auto& p = attrs.get<SequenceLastParam>();
          std::vector<GradValue> args{og[0], in[0]};
          if (p.use_sequence_length) args.push_back(in[1]);
          GradValue dx =
              Apply1(b, "_backward_SequenceLast", args, MakeAttrs("_backward_SequenceLast", p));
          if (p.use_sequence_length) return std::vector<GradValue>{dx, GradValue{}};
          return std::vector<GradValue>{dx};
        },
        true, false);

MX_REGISTER_OP(_backward_SequenceLast)
    .describe("Gradient of SequenceLast: ograd scattered into data's shape (internal).")
    .set_params<SequenceLastParam>()
    .set_num_inputs([](const OpAttrs& a) { return SeqNumInputs(a) + 1; })
    .set_input_names([](const OpAttrs& a) {
      return ArgsOf(a).use_len ? std::vector<std::string>{"ograd", "data", "sequence_length"}
                               : std::vector<std::string>{"ograd", "data"};
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      // As SequenceLast on (data[, length]), with ograd its output.
      ShapeVec fin{(*in)[1]}, fout{(*in)[0]};
      if (ArgsOf(a).use_len) fin.push_back((*in)[2]);
      SeqShape(a, &fin, &fout, true);
      MergeShape(&(*in)[0], fout[0], "_backward_SequenceLast: input ograd");
      if (ArgsOf(a).use_len) (*in)[2] = fin[1];
      (*out)[0] = (*in)[1];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*in)[0], (*in)[1], "_backward_SequenceLast: ograd vs data");
      (*out)[0] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BackwardSequenceLastRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          const auto& p = attrs.get<SequenceLastParam>();
          std::vector<GradValue> args{og[0]};
          if (p.use_sequence_length) args.push_back(in[2]);
          std::vector<GradValue> g{Apply1(b, "SequenceLast", args, MakeAttrs("SequenceLast", p)),
                                   b.ZerosLike(in[1])};
          if (p.use_sequence_length) g.push_back(GradValue{});
          return g;
        },
        true, false);

// ---------------------------------------------------------------------------------------------
// SequenceReverse: the first length[b] rows of each sequence in reverse order, the rest kept.

void SequenceReverseRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const SeqArgs a = ArgsOf(attrs);
  const SeqLayout l = LayoutOf(in[0], a.axis);
  if (in[0].size() == 0) return;
  const std::vector<int64_t> len = Lengths(in, a, l, 1);
  if (a.use_len) CheckLengths("SequenceReverse", len, 0, l.T, in[1].ToVector<double>());
  const char* x = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  for (int64_t b = 0; b < l.B; ++b)
    for (int64_t t = 0; t < l.T; ++t) {
      const int64_t src = t < len[b] ? len[b] - 1 - t : t;
      std::memcpy(y + l.Row(t, b), x + l.Row(src, b), l.RowBytes());
    }
}

MX_REGISTER_OP(SequenceReverse)
    .describe(
        "Reverses the first length[b] elements of each sequence (all of them without "
        "use_sequence_length): data (T, B, ...), sequence_length (B,).")
    .set_params<SequenceReverseParam>()
    .set_num_inputs(SeqNumInputs)
    .set_input_names(SeqInputNames)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SeqShape(a, in, out, false);
    })
    .set_infer_type(SeqType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SequenceReverseRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          const auto& p = attrs.get<SequenceReverseParam>();
          std::vector<GradValue> args{og[0]};
          if (p.use_sequence_length) args.push_back(in[1]);
          GradValue dx = Apply1(b, "SequenceReverse", args, attrs);
          if (p.use_sequence_length) return std::vector<GradValue>{dx, GradValue{}};
          return std::vector<GradValue>{dx};
        },
        true, false);

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops
