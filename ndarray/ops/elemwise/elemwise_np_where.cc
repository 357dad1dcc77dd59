// MXNet 1.9.1's NumPy-interface where and polyval (src/operator/numpy/np_where_op.cc,
// np_polynomial_op.cc):
//   _npi_where(condition, x, y)          x where condition is non-zero (NaN included) else y;
//                                        the three broadcast together (NumPy rules, 0-dim and
//                                        zero-size included); x and y share a dtype, which the
//                                        output has; condition may have any dtype;
//   _npi_where_lscalar(condition, x)     condition ? scalar : x (scalar converted to x's dtype);
//   _npi_where_rscalar(condition, y)     condition ? y : scalar;
//   _npi_where_scalar2(condition)        condition ? x : y for scalar attributes x, y; float32
//                                        output of condition's shape;
//   _npi_polyval(p, x)                   p[0] x^(n-1) + ... + p[n-1] (Horner) for 1-D p; p and x
//                                        share one numeric dtype (not bool); output of x's shape
//                                        (empty p gives zeros).
// Gradients: where passes the output gradient to the chosen side (un-broadcast), none to the
// condition (zeros); polyval's come from the helper op _polyval_backward.
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_bits.h"
#include "ndarray/ops/elemwise/elemwise_np_util.h"

namespace mxnet::ops {
namespace {

using np::GradIn;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

// ---- attributes ----
struct WhereScalarParam {  // _npi_where_lscalar / _npi_where_rscalar
  double scalar = 0.0;
  template <class D>
  static void Declare(D& d) {
    d.field("scalar", &WhereScalarParam::scalar).describe("The scalar value of x/y.");
  }
};
struct WhereScalar2Param {  // _npi_where_scalar2
  double x = 0.0, y = 0.0;
  template <class D>
  static void Declare(D& d) {
    d.field("x", &WhereScalar2Param::x).describe("The value where condition is true.");
    d.field("y", &WhereScalar2Param::y).describe("The value where condition is false.");
  }
};

// ---- kernel: out[i] = c[i] ? a[i] : b[i] with broadcasting (a, b of out's dtype) ----
template <typename C>
inline bool Truthy(C v) {
  if constexpr (std::is_same_v<C, bool>)
    return v;
  else if constexpr (ew::kIsHalf<C>)
    return static_cast<float>(v) != 0.0f;
  else
    return static_cast<double>(v) != 0.0;
}

void WhereLoop(const NDArray& c, const NDArray& a, const NDArray& b, const NDArray& out) {
  const Shape& os = out.shape();
  auto sc = ew::BroadcastStrides(c.shape(), os), sa = ew::BroadcastStrides(a.shape(), os),
       sb = ew::BroadcastStrides(b.shape(), os);
  const int nd = os.ndim();
  MX_DTYPE_SWITCH(c.dtype(), CT, {
    ew::BitsTypeSwitch(out.dtype(), [&]<typename T>() {  // a, b are only copied
      const CT* cp = static_cast<const CT*>(c.data_ptr());
      const T* ap = static_cast<const T*>(a.data_ptr());
      const T* bp = static_cast<const T*>(b.data_ptr());
      T* op = static_cast<T*>(out.data_ptr());
      ParallelForRange(out.size(), 32768, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          int64_t rest = i, ic = 0, ia = 0, ib = 0;
          for (int d = nd - 1; d >= 0; --d) {
            int64_t k = rest % os[d];
            rest /= os[d];
            ic += k * sc[d];
            ia += k * sa[d];
            ib += k * sb[d];
          }
          op[i] = Truthy(cp[ic]) ? ap[ia] : bp[ib];
        }
      });
    });
  });
}

NDArray ScalarOf(double v, DType t) { return NDArray::Full(Shape(), v, cpu(), t); }

std::string_view Name(const OpAttrs& a) {
  return a.op() ? std::string_view(a.op()->name) : "where";
}

// Broadcast shape of the array inputs.
void WhereShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  Shape s = (*in)[0];
  for (size_t i = 1; i < in->size(); ++i) s = ew::BroadcastShapes(Name(attrs), s, (*in)[i]);
  MergeShape(&s, (*out)[0], StrCat(Name(attrs), ": output"));
  (*out)[0] = s;
}
// Inputs 1.. share the output's dtype; the condition (input 0) is free.
void WhereType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (size_t i = 1; i < in->size(); ++i)
    MergeType(&t, (*in)[i], StrCat(Name(attrs), ": x and y (one dtype)"));
  MergeType(&t, (*out)[0], StrCat(Name(attrs), ": output"));
  for (size_t i = 1; i < in->size(); ++i) (*in)[i] = t;
  (*out)[0] = t;
}

// where(c, g, 0) / where(c, 0, g) un-broadcast to `like`.
GradValue Masked(GradBuilder& b, GradValue c, GradValue g, bool take_true, GradValue like) {
  GradValue z = b.ZerosLike(g);
  return b.SumLike(b.Call("_npi_where", {c, take_true ? g : z, take_true ? z : g}), like);
}

MX_REGISTER_OP(_npi_where)
    .describe(
        "x where condition is non-zero else y; condition, x, y broadcast together. x and y: "
        "one dtype (the output's); condition: any dtype.")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"condition", "x", "y"})
    .set_infer_shape(WhereShape)
    .set_infer_type(WhereType)
    .set_kernel(kRef, [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                         std::span<const NDArray> out) { WhereLoop(in[0], in[1], in[2], out[0]); })
    .set_gradient(np::OwnGrad(
                      [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
                        return std::vector<GradValue>{b.ZerosLike(in[0]),
                                                      Masked(b, in[0], og[0], true, in[1]),
                                                      Masked(b, in[0], og[0], false, in[2])};
                      },
                      false),
                  true, false);

MX_REGISTER_OP(_npi_where_lscalar)
    .describe(
        "scalar where condition is non-zero else x (the scalar in x's dtype); condition and "
        "x broadcast together.")
    .set_params<WhereScalarParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"condition", "x"})
    .set_infer_shape(WhereShape)
    .set_infer_type(WhereType)
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WhereLoop(in[0], ScalarOf(attrs.get<WhereScalarParam>().scalar, in[1].dtype()),
                            in[1], out[0]);
                })
    .set_gradient(np::OwnGrad(
                      [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
                        return std::vector<GradValue>{b.ZerosLike(in[0]),
                                                      Masked(b, in[0], og[0], false, in[1])};
                      },
                      false),
                  true, false);

MX_REGISTER_OP(_npi_where_rscalar)
    .describe(
        "y where condition is non-zero else scalar (in y's dtype); condition and y broadcast "
        "together.")
    .set_params<WhereScalarParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"condition", "y"})
    .set_infer_shape(WhereShape)
    .set_infer_type(WhereType)
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  WhereLoop(in[0], in[1],
                            ScalarOf(attrs.get<WhereScalarParam>().scalar, in[1].dtype()), out[0]);
                })
    .set_gradient(np::OwnGrad(
                      [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
                        return std::vector<GradValue>{b.ZerosLike(in[0]),
                                                      Masked(b, in[0], og[0], true, in[1])};
                      },
                      false),
                  true, false);

MX_REGISTER_OP(_npi_where_scalar2)
    .describe(
        "x where condition is non-zero else y, for scalar attributes x and y: float32 output "
        "of condition's shape. Gradient: zero for condition.")
    .set_params<WhereScalar2Param>()
    .set_input_names(std::vector<std::string>{"condition"})
    .set_infer_shape(ElemwiseShape)
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], DTypeFlag(DType::kFloat32), "_npi_where_scalar2: output");
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<WhereScalar2Param>();
                  WhereLoop(in[0], ScalarOf(p.x, DType::kFloat32), ScalarOf(p.y, DType::kFloat32),
                            out[0]);
                })
    .set_gradient(np::ZeroGrads, true, false);

// ---- polyval ----
void PolyvalShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& p = (*in)[0];
  if (p.ndim_known() && p.ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_npi_polyval: p must be 1-D, got shape ",
             p.ToString());
  MergeShape(&(*out)[0], (*in)[1], "_npi_polyval: output");
  (*in)[1] = (*out)[0];
}

void NumericSameType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  ElemwiseType(attrs, in, out);
  if ((*in)[0] == DTypeFlag(DType::kBool))
    MX_THROW(absl::StatusCode::kInvalidArgument, Name(attrs), ": unsupported dtype bool");
}

// Horner in T (integers wrap).
void PolyvalKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  MX_NUMERIC_TYPE_SWITCH(in[1].dtype(), T, "_npi_polyval", {
    const T* p = static_cast<const T*>(in[0].data_ptr());
    const T* x = static_cast<const T*>(in[1].data_ptr());
    T* y = static_cast<T*>(out[0].data_ptr());
    const int64_t n = in[0].size();
    ParallelForRange(in[1].size(), 4096, [=](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        T r = T(0);
        for (int64_t k = 0; k < n; ++k)
          r = ew::Binary<ew::Add, T>(ew::Binary<ew::Mul, T>(r, x[i]), p[k]);
        y[i] = r;
      }
    });
  });
}

// Outputs dp (p's shape): dp[k] = sum_i g[i] x[i]^(n-1-k), and dx (x's shape): g p'(x).
// Integer dtypes compute in double (their gradients are zeroed by the caller).
void PolyvalBackwardKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                           std::span<const NDArray> out) {
  MX_NUMERIC_TYPE_SWITCH(in[2].dtype(), T, "_polyval_backward", {
    using A = std::conditional_t<std::is_floating_point_v<AccType<T>>, AccType<T>, double>;
    auto a = [](T v) { return static_cast<A>(static_cast<AccType<T>>(v)); };
    const T* g = static_cast<const T*>(in[0].data_ptr());
    const T* p = static_cast<const T*>(in[1].data_ptr());
    const T* x = static_cast<const T*>(in[2].data_ptr());
    T* dp = static_cast<T*>(out[0].data_ptr());
    T* dx = static_cast<T*>(out[1].data_ptr());
    const int64_t n = in[1].size(), m = in[2].size();
    std::vector<A> acc(n, A(0));
    for (int64_t i = 0; i < m; ++i) {
      const A xv = a(x[i]), gv = a(g[i]);
      A pw = A(1), dv = A(0);
      for (int64_t k = n - 1; k >= 0; --k, pw *= xv) acc[k] += gv * pw;
      for (int64_t k = 0; k + 1 < n; ++k) dv = dv * xv + a(p[k]) * static_cast<A>(n - 1 - k);
      dx[i] = static_cast<T>(static_cast<AccType<T>>(gv * dv));
    }
    for (int64_t k = 0; k < n; ++k) dp[k] = static_cast<T>(static_cast<AccType<T>>(acc[k]));
  });
}

MX_REGISTER_OP(_npi_polyval)
    .describe(
        "Evaluates the polynomial with coefficients p (1-D, highest power first) at x; p and "
        "x: one numeric dtype (not bool); output of x's shape; empty p gives zeros.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"p", "x"})
    .set_infer_shape(PolyvalShape)
    .set_infer_type(NumericSameType)
    .set_kernel(kRef, PolyvalKernel)
    .set_gradient(np::OwnGrad(
                      [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
                        const Op& op = OpRegistry::Get("_polyval_backward");
                        auto r = b.Apply(op, OpAttrs::Parse(op, {}),
                                         std::vector<GradValue>{og[0], in[0], in[1]});
                        return std::vector<GradValue>{r[0], r[1]};
                      },
                      false),
                  true, false);

MX_REGISTER_OP(_polyval_backward)
    .describe(
        "Gradients of _npi_polyval for output gradient g (x's shape), coefficients p (1-D) and "
        "x: outputs dp (p's shape) and dx (x's shape); floating dtypes. Helper (not an MXNet op).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "p", "x"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_polyval_backward: dp");
      MergeShape(&(*out)[1], (*in)[2], "_polyval_backward: dx");
      MergeShape(&(*out)[1], (*in)[0], "_polyval_backward: ograd (x's shape)");
    })
    .set_kernel(kRef, PolyvalBackwardKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
