// Non-template parts of the NumPy-interface elemwise ops: dtype rules, conversions, gradient
// wrappers, and the helper op _grad_cast_like.
#include "ndarray/ops/elemwise/elemwise_np_util.h"

#include <cstring>

#include "ndarray/ops/core/basic_util.h"

namespace mxnet::ops::np {
namespace {

bool IsFloat(int t) { return t >= 0 && IsFloatingPoint(static_cast<DType>(t)); }
bool IsBool(int t) { return t == DTypeFlag(DType::kBool); }
bool IsInt(int t) { return t >= 0 && !IsFloat(t) && !IsBool(t); }
int Flag(DType t) { return DTypeFlag(t); }

[[noreturn]] void Unsupported(std::string_view op, int a, int b) {
  MX_THROW(absl::StatusCode::kInvalidArgument, op, ": unsupported dtypes ",
           DTypeName(static_cast<DType>(a)), " and ", DTypeName(static_cast<DType>(b)));
}

// The wider of two floats / two ints (by element size; float16 < float32 < float64).
int Wider(int a, int b) {
  return DTypeSize(static_cast<DType>(a)) >= DTypeSize(static_cast<DType>(b)) ? a : b;
}

// Output dtype of a binary op for known input dtypes a, b.
int BinaryOut(BinRule rule, std::string_view op, int a, int b) {
  switch (rule) {
    case BinRule::kPromote:
    case BinRule::kSubMod: {
      bool sub = rule == BinRule::kSubMod;
      if (a == b) {
        if (sub && IsBool(a)) Unsupported(op, a, b);
        return a;
      }
      if (IsFloat(a) && IsFloat(b)) return Wider(a, b);
      if (IsFloat(a) || IsFloat(b)) return IsFloat(a) ? a : b;
      if (sub) Unsupported(op, a, b);
      if (IsBool(a) || IsBool(b)) return IsBool(a) ? b : a;
      bool u8i8 = (a == Flag(DType::kUint8) && b == Flag(DType::kInt8)) ||
                  (a == Flag(DType::kInt8) && b == Flag(DType::kUint8));
      if (u8i8) Unsupported(op, a, b);
      return Wider(a, b);
    }
    case BinRule::kTrueDivide:
      if (a == b) return IsFloat(a) ? a : Flag(DType::kFloat32);
      if (IsFloat(a) != IsFloat(b)) return IsFloat(a) ? a : b;
      Unsupported(op, a, b);
    case BinRule::kFloatSame:
      if (a != b || !IsFloat(a)) Unsupported(op, a, b);
      return a;
    case BinRule::kSame:
      if (a != b || IsBool(a)) Unsupported(op, a, b);
      return a;
    case BinRule::kIntSame:
      if (a != b || IsFloat(a)) Unsupported(op, a, b);
      return a;
    case BinRule::kCompare:
      if (a != b) Unsupported(op, a, b);
      return Flag(DType::kBool);
  }
  return -1;
}

std::string_view OpName(const OpAttrs& attrs) {
  return attrs.op() ? std::string_view(attrs.op()->name) : "np op";
}

}  // namespace

void BinaryType(BinRule rule, const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  std::string_view op = OpName(attrs);
  int& a = (*in)[0];
  int& b = (*in)[1];
  bool same = rule != BinRule::kPromote && rule != BinRule::kSubMod && rule != BinRule::kTrueDivide;
  if (same && (a < 0) != (b < 0)) (a < 0 ? a : b) = a < 0 ? b : a;  // one dtype: fill the other
  if (a < 0 || b < 0) {
    if (rule == BinRule::kCompare)
      MergeType(&(*out)[0], Flag(DType::kBool), StrCat(op, ": output"));
    return;
  }
  MergeType(&(*out)[0], BinaryOut(rule, op, a, b), StrCat(op, ": output"));
}

void ScalarType(ScalarRule rule, const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  std::string_view op = OpName(attrs);
  int t = (*in)[0];
  std::string what = StrCat(op, ": output");
  if (rule == ScalarRule::kCompare) {
    MergeType(&(*out)[0], Flag(DType::kBool), what);
    return;
  }
  if (rule == ScalarRule::kDefault) {
    ScalarOpType(attrs, in, out);
    return;
  }
  if (t < 0) return;
  if ((rule == ScalarRule::kInt && !IsInt(t)) || (rule == ScalarRule::kIntBool && IsFloat(t)))
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": unsupported dtype ",
             DTypeName(static_cast<DType>(t)),
             rule == ScalarRule::kInt ? " (needs an integer dtype)"
                                      : " (needs an integer or bool dtype)");
  if (rule == ScalarRule::kTrueDivide && !IsFloat(t)) t = Flag(DType::kFloat32);
  MergeType(&(*out)[0], t, what);
}

DType BinaryComputeType(BinRule rule, DType a, DType out) {
  return rule == BinRule::kCompare ? a : out;
}

DType ScalarComputeType(ScalarRule rule, DType in, bool is_int, DType out) {
  if (rule != ScalarRule::kCompare) return out;
  return is_int || IsFloatingPoint(in) ? in : DType::kFloat64;
}

NDArray Converted(const NDArray& x, DType t) {
  if (x.dtype() == t) return x;
  NDArray y(x.shape(), x.device(), t);
  ConvertInto(x, y);
  return y;
}

void ConvertInto(const NDArray& src, const NDArray& dst) {
  ConvertElements(src.data_ptr(), src.dtype(), dst.data_ptr(), dst.dtype(),
                  static_cast<size_t>(src.size()));
}

std::vector<GradValue> CastingGrad(const FGradient& same, bool cast_in, GradBuilder& b,
                                   const OpAttrs& attrs, GradIn in, GradIn out, GradIn og) {
  std::vector<GradValue> xs(in.begin(), in.end());
  if (cast_in)
    for (auto& x : xs) x = b.Call("_cast_like", {x, out[0]});
  std::vector<GradValue> g = same(b, attrs, xs, out, og);
  for (size_t i = 0; i < g.size() && i < in.size(); ++i)
    if (g[i].valid()) g[i] = b.Call("_grad_cast_like", {g[i], in[i]});
  return g;
}

FGradient LegacyGrad(const char* legacy, bool cast_in) {
  return [legacy, cast_in](GradBuilder& b, const OpAttrs& attrs, GradIn in, GradIn out, GradIn og) {
    return CastingGrad(OpRegistry::Get(legacy).gradient, cast_in, b, attrs, in, out, og);
  };
}

FGradient OwnGrad(GradFn f, bool cast_in) {
  return [f, cast_in](GradBuilder& b, const OpAttrs& attrs, GradIn in, GradIn out, GradIn og) {
    return CastingGrad(f, cast_in, b, attrs, in, out, og);
  };
}

std::vector<GradValue> ZeroGrads(GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn) {
  std::vector<GradValue> g;
  for (auto x : in) g.push_back(b.ZerosLike(x));
  return g;
}

namespace {

// data converted to like's dtype if that is floating-point, else zeros of like's dtype.
void GradCastKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  if (IsFloatingPoint(in[1].dtype()))
    ConvertInto(in[0], out[0]);
  else
    std::memset(out[0].data_ptr(), 0, static_cast<size_t>(out[0].nbytes()));
}

MX_REGISTER_OP(_grad_cast_like)
    .describe(
        "data (shape of data) converted to like's dtype when that is floating-point, else "
        "zeros of like's dtype: the gradient of an np op's input, none for integer/bool "
        "inputs as in MXNet. Helper of the _npi_* gradients (not an MXNet op).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[0], "_grad_cast_like: output");
      (*in)[0] = (*out)[0];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_grad_cast_like: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, GradCastKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
          return std::vector<GradValue>{b.Call("_grad_cast_like", {og[0], in[0]}),
                                        b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops::np
