// MXNet 1.9.1's fused multi-head attention matmuls (src/operator/contrib/transformer.cc), the ops
// GluonNLP's BERT/Transformer exports use:
//   _contrib_interleaved_matmul_selfatt_qk(qkv)          -> (B*H, T, T)  = Q K^T / sqrt(D)
//   _contrib_interleaved_matmul_selfatt_valatt(qkv, att) -> (T, B, H*D)  = att V
//   _contrib_interleaved_matmul_encdec_qk(q, kv)         -> (B*H, Tq, Tk) = Q K^T / sqrt(D)
//   _contrib_interleaved_matmul_encdec_valatt(kv, att)   -> (Tq, B, H*D) = att V
// and their backward ops _backward_interleaved_matmul_* (one gradient per input).
//
// Layouts. A projection tensor (T, B, H*n*D) holds, for time t, batch b, head h, the n slots
// (n = 3: q, k, v; n = 2: k, v; n = 1: q) of D values each, interleaved per head:
// element (t, b, h, j, d) at ((t * B + b) * H + h) * n * D + j * D + d. Head bh = b * H + h of
// the batched matmuls. The attention maps are (B*H, Tq, Tk).
//
// Every product is one strided batched GEMM over the B*H heads reading the projections in place:
// the reference kernel loops in double; the optimized kernel (float32) runs oneDNN's matmul on
// strided memory descriptors (primitives cached by geometry), with the 1/sqrt(D) scale as an
// output scale.
//
// Differences from MXNet 1.9.1: MXNet's CPU kernels accept only float32 (other dtypes pass type
// inference and then fail); ours also run float64/float16/bfloat16 (accumulating in double).
// MXNet does not check the attention map's shape against the projections (a wrong one reads out
// of bounds); ours is a shape inference error.
#include <cmath>
#include <memory>
#include <vector>

#include "ndarray/backends/onednn/onednn.h"
#include "ndarray/grad.h"
#include "ndarray/ops/contrib/nn_contrib_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {

std::string InterleavedMatmulParam::Validate() const {
  if (heads < 1) return StrCat("attribute heads must be >= 1, got ", heads);
  return "";
}

namespace nn {
namespace {

// A batch of matrices inside a buffer: element (b, r, c) at off + b * sb + r * sr + c * sc.
struct View {
  int64_t off = 0, sb = 0, sr = 0, sc = 1;
  View T() const { return {off, sb, sc, sr}; }  // the transposed matrices
};
View Dense(int64_t rows, int64_t cols) { return {0, rows * cols, cols, 1}; }

// Geometry of one batched GEMM C[b] = alpha * A[b] (M x K) * B[b] (K x N), b < batch.
struct Gemm {
  int64_t batch = 0, M = 0, N = 0, K = 0;
  View a, b, c;
  double alpha = 1;
};

template <typename T>
void GemmRef(const T* A, const T* B, T* C, const Gemm& g) {
  ParallelFor(
      g.batch * g.M,
      [&](int64_t bm) {
        const int64_t bi = bm / g.M, m = bm % g.M;
        for (int64_t n = 0; n < g.N; ++n) {
          double acc = 0;
          for (int64_t k = 0; k < g.K; ++k)
            acc += static_cast<double>(A[g.a.off + bi * g.a.sb + m * g.a.sr + k * g.a.sc]) *
                   static_cast<double>(B[g.b.off + bi * g.b.sb + k * g.b.sr + n * g.b.sc]);
          C[g.c.off + bi * g.c.sb + m * g.c.sr + n * g.c.sc] = static_cast<T>(g.alpha * acc);
        }
      },
      1);
}

// ---- oneDNN strided matmul (float32), primitives cached by geometry. ----
namespace dnn = ::mxnet::backends::onednn;

// nullptr when oneDNN has no implementation for the geometry (the caller loops instead).
std::shared_ptr<const dnn::Exec> CachedPrim(const Gemm& g) {
  const float alpha = static_cast<float>(g.alpha);
  backends::CacheKey key("strided_matmul");
  key(g.batch, g.M, g.N, g.K, g.a.sb, g.a.sr, g.a.sc, g.b.sb, g.b.sr, g.b.sc, g.c.sb, g.c.sr,
      g.c.sc, alpha);
  return dnn::GetOrNull<dnn::Exec>(key, [&] {
    using dims = dnn::dims;
    return dnn::MakeMatmul({{g.batch, g.M, g.K}, dnn::dt::f32, dims{g.a.sb, g.a.sr, g.a.sc}},
                           {{g.batch, g.K, g.N}, dnn::dt::f32, dims{g.b.sb, g.b.sr, g.b.sc}},
                           {{g.batch, g.M, g.N}, dnn::dt::f32, dims{g.c.sb, g.c.sr, g.c.sc}},
                           alpha);
  });
}

// False when oneDNN cannot run this geometry.
bool GemmOneDnn(const float* A, const float* B, float* C, const Gemm& g, std::string_view op) {
  auto e = CachedPrim(g);
  if (!e) return false;
  try {
    e->Run({A + g.a.off, B + g.b.off, C + g.c.off});
  } catch (const dnnl::error& err) {
    MX_THROW(absl::StatusCode::kInternal, op, ": oneDNN matmul failed (", err.what(), ")");
  }
  return true;
}

// C (out) = A * B on NDArrays by the geometry g (out may be a slot of a zeroed gradient).
void RunGemm(bool optimized, const NDArray& a, const NDArray& b, const NDArray& c, const Gemm& g,
             std::string_view op) {
  if (g.batch == 0 || g.M == 0 || g.N == 0) return;
  if (optimized && c.dtype() == DType::kFloat32 && g.K > 0 &&
      GemmOneDnn(a.data<float>(), b.data<float>(), c.data<float>(), g, op))
    return;
  MX_FLOAT_TYPE_SWITCH(c.dtype(), T, op, { GemmRef<T>(a.data<T>(), b.data<T>(), c.data<T>(), g); });
}

// ---- Geometry. ----

constexpr const char* kSelfQK = "_contrib_interleaved_matmul_selfatt_qk";
constexpr const char* kSelfVal = "_contrib_interleaved_matmul_selfatt_valatt";
constexpr const char* kEncQK = "_contrib_interleaved_matmul_encdec_qk";
constexpr const char* kEncVal = "_contrib_interleaved_matmul_encdec_valatt";

// A projection tensor (T, B, H*n*D) seen as the batched (B*H, T, D) matrices of slot j.
struct Proj {
  int64_t T = 0, B = 0, H = 0, n = 1, D = 0;
  View Slot(int64_t j) const { return {j * D, n * D, B * H * n * D, 1}; }
};

// Checks a projection input's shape: 3-D with its last axis a multiple of heads * n.
Proj ProjOf(std::string_view op, std::string_view input, const Shape& s, int heads, int64_t n) {
  if (s.ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input ", input,
             " must be 3-D (seq_length, batch_size, heads * ", n == 1 ? "" : StrCat(n, " * "),
             "head_dim), got ", s.ToString());
  if (s[2] >= 0 && s[2] % (heads * n) != 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input ", input, " of shape ", s.ToString(),
             " has last axis ", s[2], ", not a multiple of heads * ", n, " = ", heads * n);
  return Proj{s[0], s[1], heads, n, s[2] >= 0 ? s[2] / (heads * n) : -1};
}

double Scale(int64_t D) { return D > 0 ? 1.0 / std::sqrt(static_cast<double>(D)) : 1.0; }

// Forward geometries. qk: out (B*H, Tq, Tk) = alpha * Q K^T. valatt: out (Tq, B, H*D) = att V.
Gemm QKGemm(const Proj& q, int64_t qslot, const Proj& k, int64_t kslot) {
  Gemm g{q.B * q.H, q.T, k.T, q.D, q.Slot(qslot), k.Slot(kslot).T(), Dense(q.T, k.T), Scale(q.D)};
  return g;
}
Gemm ValAttGemm(const Proj& v, int64_t vslot, int64_t Tq) {
  const Proj o{Tq, v.B, v.H, 1, v.D};
  return Gemm{v.B * v.H, Tq, v.D, v.T, Dense(Tq, v.T), v.Slot(vslot), o.Slot(0), 1.0};
}

// ---- Shape and type inference. ----

void SameFloatType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const std::string& op = attrs.op()->name;
  const std::vector<std::string> names = attrs.op()->InputNames(attrs);
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", names[i]));
  for (auto x : *out) MergeType(&t, x, StrCat(op, ": output"));
  if (t >= 0) RequireFloat(op, "input " + names[0], static_cast<DType>(t));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

int Heads(const OpAttrs& a) { return a.get<InterleavedMatmulParam>().heads; }

// The attention input (B*H, Tq, Tk) from the projections' geometry.
void AttentionShape(std::string_view op, Shape* att, int64_t BH, int64_t Tq, int64_t Tk) {
  if (att->ndim_known() && att->ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": input attention must be 3-D (batch_size * heads, query_length, key_length), got ",
             att->ToString());
  const Shape want{BH, Tq, Tk};
  if (att->ndim_known() && att->is_known() && want.is_known() && *att != want)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input attention has shape ",
             att->ToString(), ", expected ", want.ToString(),
             " (batch_size * heads, query_length, key_length)");
  AssignShape(op, "attention", att, want);
}

int64_t Mul(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : a * b; }

void SelfQKShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return;
  const Proj p = ProjOf(kSelfQK, "queries_keys_values", x, Heads(attrs), 3);
  (*out)[0] = Shape{Mul(p.B, p.H), p.T, p.T};
}
void SelfValShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return;
  const Proj p = ProjOf(kSelfVal, "queries_keys_values", x, Heads(attrs), 3);
  AttentionShape(kSelfVal, &(*in)[1], Mul(p.B, p.H), p.T, p.T);
  (*out)[0] = Shape{p.T, p.B, Mul(p.H, p.D)};
}
void EncQKShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape &q = (*in)[0], &kv = (*in)[1];
  if (!q.ndim_known() || !kv.ndim_known()) return;
  const Proj pq = ProjOf(kEncQK, "queries", q, Heads(attrs), 1);
  const Proj pk = ProjOf(kEncQK, "keys_values", kv, Heads(attrs), 2);
  if (pq.B >= 0 && pk.B >= 0 && pq.B != pk.B)
    MX_THROW(absl::StatusCode::kInvalidArgument, kEncQK, ": queries ", q.ToString(),
             " and keys_values ", kv.ToString(), " have different batch sizes (axis 1)");
  if (pq.D >= 0 && pk.D >= 0 && pq.D != pk.D)
    MX_THROW(absl::StatusCode::kInvalidArgument, kEncQK, ": queries ", q.ToString(),
             " has head_dim ", pq.D, " but keys_values ", kv.ToString(), " has head_dim ", pk.D,
             " (heads=", pq.H, ")");
  (*out)[0] = Shape{Mul(pq.B, pq.H), pq.T, pk.T};
}
void EncValShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& kv = (*in)[0];
  if (!kv.ndim_known()) return;
  const Proj p = ProjOf(kEncVal, "keys_values", kv, Heads(attrs), 2);
  Shape& att = (*in)[1];
  const int64_t Tq = att.ndim_known() && att.ndim() == 3 ? att[1] : -1;
  AttentionShape(kEncVal, &att, Mul(p.B, p.H), Tq, p.T);
  (*out)[0] = Shape{att[1], p.B, Mul(p.H, p.D)};
}

// ---- Kernels. ----

template <bool kOpt>
void SelfQK(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  const Proj p = ProjOf(kSelfQK, "queries_keys_values", in[0].shape(), Heads(attrs), 3);
  RunGemm(kOpt, in[0], in[0], out[0], QKGemm(p, 0, p, 1), kSelfQK);
}
template <bool kOpt>
void SelfVal(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
             std::span<const NDArray> out) {
  const Proj p = ProjOf(kSelfVal, "queries_keys_values", in[0].shape(), Heads(attrs), 3);
  RunGemm(kOpt, in[1], in[0], out[0], ValAttGemm(p, 2, p.T), kSelfVal);
}
template <bool kOpt>
void EncQK(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
  const Proj q = ProjOf(kEncQK, "queries", in[0].shape(), Heads(attrs), 1);
  const Proj k = ProjOf(kEncQK, "keys_values", in[1].shape(), Heads(attrs), 2);
  RunGemm(kOpt, in[0], in[1], out[0], QKGemm(q, 0, k, 0), kEncQK);
}
template <bool kOpt>
void EncVal(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  const Proj p = ProjOf(kEncVal, "keys_values", in[0].shape(), Heads(attrs), 2);
  RunGemm(kOpt, in[1], in[0], out[0], ValAttGemm(p, 1, in[1].shape()[1]), kEncVal);
}

// Gradients of out = alpha * Q K^T (dO: (B*H, Tq, Tk)): dQ = alpha dO K, dK = alpha dO^T Q.
void QKBackward(bool opt, const NDArray& dO, const NDArray& qsrc, const Proj& q, int64_t qslot,
                const NDArray& ksrc, const Proj& k, int64_t kslot, const NDArray& dq,
                const NDArray& dk, std::string_view op) {
  const double alpha = Scale(q.D);
  const int64_t BH = q.B * q.H;
  const View o = Dense(q.T, k.T);
  RunGemm(opt, dO, ksrc, dq, Gemm{BH, q.T, q.D, k.T, o, k.Slot(kslot), q.Slot(qslot), alpha}, op);
  RunGemm(opt, dO, qsrc, dk, Gemm{BH, k.T, k.D, q.T, o.T(), q.Slot(qslot), k.Slot(kslot), alpha},
          op);
}
// Gradients of out = att V (dO: (Tq, B, H*D)): dAtt = dO V^T, dV = att^T dO.
void ValAttBackward(bool opt, const NDArray& dO, const NDArray& att, const NDArray& vsrc,
                    const Proj& v, int64_t vslot, int64_t Tq, const NDArray& datt,
                    const NDArray& dv, std::string_view op) {
  const int64_t BH = v.B * v.H;
  const View o = Proj{Tq, v.B, v.H, 1, v.D}.Slot(0);
  RunGemm(opt, dO, vsrc, datt, Gemm{BH, Tq, v.T, v.D, o, v.Slot(vslot).T(), Dense(Tq, v.T), 1.0},
          op);
  RunGemm(opt, att, dO, dv, Gemm{BH, v.T, v.D, Tq, Dense(Tq, v.T).T(), o, v.Slot(vslot), 1.0}, op);
}

void Zero(const NDArray& a) { std::memset(a.data_ptr(), 0, a.nbytes()); }

// _backward_interleaved_matmul_selfatt_qk(ograd, queries_keys_values) -> d(queries_keys_values)
template <bool kOpt>
void SelfQKBackward(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const char* op = "_backward_interleaved_matmul_selfatt_qk";
  const Proj p = ProjOf(op, "queries_keys_values", in[1].shape(), Heads(attrs), 3);
  Zero(out[0]);
  QKBackward(kOpt, in[0], in[1], p, 0, in[1], p, 1, out[0], out[0], op);
}
// _backward_interleaved_matmul_selfatt_valatt(ograd, queries_keys_values, attention)
//   -> (d(queries_keys_values), d(attention))
template <bool kOpt>
void SelfValBackward(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const char* op = "_backward_interleaved_matmul_selfatt_valatt";
  const Proj p = ProjOf(op, "queries_keys_values", in[1].shape(), Heads(attrs), 3);
  Zero(out[0]);
  ValAttBackward(kOpt, in[0], in[2], in[1], p, 2, p.T, out[1], out[0], op);
}
// _backward_interleaved_matmul_encdec_qk(ograd, queries, keys_values) -> (dq, dkv)
template <bool kOpt>
void EncQKBackward(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const char* op = "_backward_interleaved_matmul_encdec_qk";
  const Proj q = ProjOf(op, "queries", in[1].shape(), Heads(attrs), 1);
  const Proj k = ProjOf(op, "keys_values", in[2].shape(), Heads(attrs), 2);
  Zero(out[0]);
  Zero(out[1]);
  QKBackward(kOpt, in[0], in[1], q, 0, in[2], k, 0, out[0], out[1], op);
}
// _backward_interleaved_matmul_encdec_valatt(ograd, keys_values, attention) -> (dkv, datt)
template <bool kOpt>
void EncValBackward(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const char* op = "_backward_interleaved_matmul_encdec_valatt";
  const Proj p = ProjOf(op, "keys_values", in[1].shape(), Heads(attrs), 2);
  Zero(out[0]);
  ValAttBackward(kOpt, in[0], in[2], in[1], p, 1, in[2].shape()[1], out[1], out[0], op);
}

bool IsF32(const OpAttrs&, std::span<const NDArray> in) { return in[0].dtype() == DType::kFloat32; }

// Backward ops: outputs have the shapes of the forward inputs (inputs 1..).
void BackwardShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  for (size_t i = 0; i < out->size(); ++i) (*out)[i] = (*in)[i + 1];
}

FGradient BackwardOf(std::string bw) {
  return [bw](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
              std::span<const GradValue>, std::span<const GradValue> og) {
    std::vector<GradValue> args{og[0]};
    args.insert(args.end(), in.begin(), in.end());
    return b.Apply(OpRegistry::Get(bw), MakeAttrs(bw, attrs.get<InterleavedMatmulParam>()), args);
  };
}

#define MX_INTERLEAVED_KERNELS(F)                               \
  set_kernel({DeviceType::kCPU, Backend::kReference}, F<false>) \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, F<true>, IsF32)

MX_REGISTER_OP(_contrib_interleaved_matmul_selfatt_qk)
    .describe(
        "Self-attention scores from interleaved projections (T, B, heads*3*head_dim): "
        "(B*heads, T, T) = Q K^T / sqrt(head_dim) per head.")
    .set_params<InterleavedMatmulParam>()
    .set_input_names(std::vector<std::string>{"queries_keys_values"})
    .set_infer_shape(SelfQKShape)
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(SelfQK)
    .set_gradient(BackwardOf("_backward_interleaved_matmul_selfatt_qk"), true, false);

MX_REGISTER_OP(_contrib_interleaved_matmul_selfatt_valatt)
    .describe(
        "Self-attention output from interleaved projections (T, B, heads*3*head_dim) and "
        "attention weights (B*heads, T, T): (T, B, heads*head_dim) = attention V per head.")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"queries_keys_values", "attention"})
    .set_infer_shape(SelfValShape)
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(SelfVal)
    .set_gradient(BackwardOf("_backward_interleaved_matmul_selfatt_valatt"), true, false);

MX_REGISTER_OP(_contrib_interleaved_matmul_encdec_qk)
    .describe(
        "Encoder-decoder attention scores from queries (Tq, B, heads*head_dim) and interleaved "
        "keys/values (Tk, B, heads*2*head_dim): (B*heads, Tq, Tk) = Q K^T / sqrt(head_dim).")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"queries", "keys_values"})
    .set_infer_shape(EncQKShape)
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(EncQK)
    .set_gradient(BackwardOf("_backward_interleaved_matmul_encdec_qk"), true, false);

MX_REGISTER_OP(_contrib_interleaved_matmul_encdec_valatt)
    .describe(
        "Encoder-decoder attention output from interleaved keys/values (Tk, B, "
        "heads*2*head_dim) and attention weights (B*heads, Tq, Tk): (Tq, B, heads*head_dim).")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"keys_values", "attention"})
    .set_infer_shape(EncValShape)
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(EncVal)
    .set_gradient(BackwardOf("_backward_interleaved_matmul_encdec_valatt"), true, false);

MX_REGISTER_OP(_backward_interleaved_matmul_selfatt_qk)
    .describe("Gradient of _contrib_interleaved_matmul_selfatt_qk (internal).")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "queries_keys_values"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ShapeVec fi{(*in)[1]}, fo{(*in)[0]};
      SelfQKShape(a, &fi, &fo);
      AssignShape("_backward_interleaved_matmul_selfatt_qk", "ograd", &(*in)[0], fo[0]);
      BackwardShape(a, in, out);
    })
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(SelfQKBackward)
    .set_non_differentiable();

MX_REGISTER_OP(_backward_interleaved_matmul_selfatt_valatt)
    .describe("Gradient of _contrib_interleaved_matmul_selfatt_valatt (internal).")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "queries_keys_values", "attention"})
    .set_num_outputs(2)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ShapeVec fi{(*in)[1], (*in)[2]}, fo{(*in)[0]};
      SelfValShape(a, &fi, &fo);
      (*in)[2] = fi[1];
      AssignShape("_backward_interleaved_matmul_selfatt_valatt", "ograd", &(*in)[0], fo[0]);
      BackwardShape(a, in, out);
    })
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(SelfValBackward)
    .set_non_differentiable();

MX_REGISTER_OP(_backward_interleaved_matmul_encdec_qk)
    .describe("Gradient of _contrib_interleaved_matmul_encdec_qk (internal).")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "queries", "keys_values"})
    .set_num_outputs(2)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ShapeVec fi{(*in)[1], (*in)[2]}, fo{(*in)[0]};
      EncQKShape(a, &fi, &fo);
      AssignShape("_backward_interleaved_matmul_encdec_qk", "ograd", &(*in)[0], fo[0]);
      BackwardShape(a, in, out);
    })
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(EncQKBackward)
    .set_non_differentiable();

MX_REGISTER_OP(_backward_interleaved_matmul_encdec_valatt)
    .describe("Gradient of _contrib_interleaved_matmul_encdec_valatt (internal).")
    .set_params<InterleavedMatmulParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "keys_values", "attention"})
    .set_num_outputs(2)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ShapeVec fi{(*in)[1], (*in)[2]}, fo{(*in)[0]};
      EncValShape(a, &fi, &fo);
      (*in)[2] = fi[1];
      AssignShape("_backward_interleaved_matmul_encdec_valatt", "ograd", &(*in)[0], fo[0]);
      BackwardShape(a, in, out);
    })
    .set_infer_type(SameFloatType)
    .MX_INTERLEAVED_KERNELS(EncValBackward)
    .set_non_differentiable();

#undef MX_INTERLEAVED_KERNELS

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops
