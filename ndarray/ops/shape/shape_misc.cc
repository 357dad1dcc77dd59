// Miscellaneous ops of the shape family, with MXNet 1.9.1's names, inputs and attributes:
//   diag (src/operator/tensor/diag_op-inl.h)          diagonal extraction / diagonal matrix
//   khatri_rao (contrib/krprod.cc)                    column-wise Khatri-Rao product
//   fill_element_0index (src/ndarray/ndarray.cc)      lhs with lhs[i, rhs[i]] = mhs[i]
//   amp_cast, amp_multicast (tensor/amp_cast.h)       AMP's float32/float16/bfloat16 casts
//   cast_storage (tensor/cast_storage-inl.h)          storage cast: default, csr, row_sparse
// plus two gradient helpers that are not MXNet ops: _diag_grad and _amp_cast_grad.
//
// Deliberate differences from MXNet:
//  - fill_element_0index rejects indices outside [0, columns) (MXNet writes outside the row)
//    and accepts every floating dtype (MXNet only float32).
#include <cstring>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_misc_api.h"
#include "ndarray/sparse.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;  // NOLINT

bool IsAmpFloat(int t) {
  return t == DTypeFlag(DType::kFloat32) || t == DTypeFlag(DType::kFloat16) ||
         t == DTypeFlag(DType::kBFloat16);
}

// ---- diag ----
// The diagonal of an N-D input as a strided view: output dims (the other axes in order, then the
// diagonal), the input strides along them and the offset of the first diagonal element.
struct DiagView {
  std::vector<int64_t> dims, src_strides;
  int64_t offset = 0;
};

// Output shape of diag for input shape `x` (known rank); unknown dims stay -1.
Shape DiagOut(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<DiagParam>();
  if (x.ndim() == 0) Fail(a, "input must have at least 1 dimension, got shape ", x.ToString());
  if (x.ndim() == 1) {
    if (x[0] < 0) return Shape{-1, -1};
    int64_t s = x[0] + std::abs(p.k);
    return Shape{s, s};
  }
  const int x1 = CheckAxis(a, p.axis1, x.ndim(), "axis1", x);
  const int x2 = CheckAxis(a, p.axis2, x.ndim(), "axis2", x);
  if (x1 == x2) Fail(a, "axis1 and axis2 cannot refer to the same axis ", x1);
  std::vector<int64_t> o;
  for (int i = 0; i < x.ndim(); ++i)
    if (i != x1 && i != x2) o.push_back(x[i]);
  int64_t h = x[x1], w = x[x2], s = -1;
  if (h >= 0 && w >= 0) {
    if (p.k > 0) w -= p.k;
    if (p.k < 0) h += p.k;
    s = std::min(h, w);
    if (s < 0)
      Fail(a, "diagonal k=", p.k, " does not exist for axes ", x1, " and ", x2, " of shape ",
           x.ToString());
  }
  o.push_back(s);
  return Shape(o);
}

DiagView MakeDiagView(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<DiagParam>();
  const int x1 = CheckAxis(a, p.axis1, x.ndim(), "axis1", x);
  const int x2 = CheckAxis(a, p.axis2, x.ndim(), "axis2", x);
  std::vector<int64_t> st = Strides(x);
  DiagView v;
  for (int i = 0; i < x.ndim(); ++i)
    if (i != x1 && i != x2) v.dims.push_back(x[i]), v.src_strides.push_back(st[i]);
  v.dims.push_back(DiagOut(a, x)[x.ndim() - 2]);
  v.src_strides.push_back(st[x1] + st[x2]);
  v.offset = p.k > 0 ? p.k * st[x2] : -static_cast<int64_t>(p.k) * st[x1];
  return v;
}

std::vector<int64_t> Contiguous(const std::vector<int64_t>& dims) { return Strides(Shape(dims)); }

// Moves values between the diagonal of `big` (shape `bs`) and the dense `small`:
// to_small = extract (diag of N-D, gradient of 1-D), else place (1-D forward, N-D gradient).
// For a 1-D `small` of n elements, `big` is the (n+|k|)^2 matrix.
void DiagCopy(const OpAttrs& a, const Shape& small_shape, const Shape& big_shape, void* big,
              void* small, size_t es, bool to_small, bool one_d) {
  std::vector<int64_t> dims, bst;
  int64_t off = 0;
  if (one_d) {
    const int k = a.get<DiagParam>().k;
    const int64_t m = big_shape[1];
    dims = {small_shape[0]};
    bst = {m + 1};
    off = k >= 0 ? k : -static_cast<int64_t>(k) * m;
  } else {
    DiagView v = MakeDiagView(a, big_shape);
    dims = v.dims, bst = v.src_strides, off = v.offset;
  }
  std::vector<int64_t> sst = Contiguous(dims);
  if (to_small)
    StridedCopy(small, ElemPtr(big, off, es), es, dims, sst, bst);
  else
    StridedCopy(ElemPtr(big, off, es), small, es, dims, bst, sst);
}

MX_REGISTER_OP(diag)
    .describe(
        "1-D input: a square matrix with the input on diagonal k. N-D input: diagonal k of the "
        "(axis1, axis2) planes, appended as the last axis (numpy.diagonal).")
    .set_params<DiagParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      MergeShape(&(*out)[0], DiagOut(a, x), "diag: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const size_t es = DTypeSize(in[0].dtype());
                  if (in[0].shape().ndim() == 1) {
                    out[0].Fill(0);
                    DiagCopy(a, in[0].shape(), out[0].shape(), out[0].data_ptr(), in[0].data_ptr(),
                             es, false, true);
                  } else {
                    DiagCopy(a, out[0].shape(), in[0].shape(), in[0].data_ptr(), out[0].data_ptr(),
                             es, true, false);
                  }
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("_diag_grad", {og[0], in[0]}, a.get<DiagParam>())};
        },
        true, false);

MX_REGISTER_OP(_diag_grad)
    .describe(
        "The gradient of diag (not an MXNet op): for 1-D data, diagonal k of ograd; otherwise "
        "zeros shaped like data with ograd placed on the diagonal.")
    .set_params<DiagParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_diag_grad: output");
      (*in)[1] = (*out)[0];
      if ((*in)[1].ndim_known()) MergeShape(&(*in)[0], DiagOut(a, (*in)[1]), "_diag_grad: ograd");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      int t = (*in)[0];
      MergeType(&t, (*out)[0], "_diag_grad: output");
      (*in)[0] = (*out)[0] = t;
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const size_t es = DTypeSize(in[0].dtype());
                  if (out[0].shape().ndim() == 1) {
                    DiagCopy(a, out[0].shape(), in[0].shape(), in[0].data_ptr(), out[0].data_ptr(),
                             es, true, true);
                  } else {
                    out[0].Fill(0);
                    DiagCopy(a, in[0].shape(), out[0].shape(), out[0].data_ptr(), in[0].data_ptr(),
                             es, false, false);
                  }
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("diag", {og[0]}, a.get<DiagParam>()),
                                        b.ZerosLike(in[1])};
        },
        true, false);

// ---- khatri_rao ----
MX_REGISTER_OP(khatri_rao)
    .describe(
        "Column-wise Khatri-Rao product of num_args matrices (M_i, N) of one floating dtype: "
        "shape (prod M_i, N), column j = kron(A_1[:, j], ..., A_n[:, j]).")
    .set_params<KhatriRaoParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<KhatriRaoParam>().num_args; })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> v;
      for (int i = 0; i < a.get<KhatriRaoParam>().num_args; ++i) v.push_back(StrCat("arg", i));
      return v;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      int64_t rows = 1, cols = -1;
      for (size_t i = 0; i < in->size(); ++i) {
        const Shape& s = (*in)[i];
        if (!s.ndim_known()) return;
        if (s.ndim() != 2) Fail(a, "input arg", i, " must be a matrix, got shape ", s.ToString());
        if (s[1] >= 0 && cols >= 0 && s[1] != cols)
          Fail(a, "input arg", i, " has ", s[1], " columns, arg0 has ", cols);
        if (s[1] >= 0) cols = s[1];
        rows = (rows < 0 || s[0] < 0) ? -1 : rows * s[0];
      }
      MergeShape(&(*out)[0], Shape{rows, cols}, "khatri_rao: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const int64_t rows = out[0].shape()[0], cols = out[0].shape()[1];
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "khatri_rao", {
                    T* y = static_cast<T*>(out[0].data_ptr());
                    for (int64_t r = 0; r < rows; ++r) {
                      // Row index digits, the last matrix fastest.
                      std::vector<int64_t> idx(in.size());
                      int64_t rem = r;
                      for (int i = static_cast<int>(in.size()) - 1; i >= 0; --i) {
                        const int64_t m = in[i].shape()[0];
                        idx[i] = rem % m;
                        rem /= m;
                      }
                      for (int64_t j = 0; j < cols; ++j) {
                        AccType<T> v = static_cast<AccType<T>>(
                            static_cast<const T*>(in[0].data_ptr())[idx[0] * cols + j]);
                        for (size_t i = 1; i < in.size(); ++i)
                          v = static_cast<AccType<T>>(
                              static_cast<T>(v * static_cast<AccType<T>>(static_cast<const T*>(
                                                     in[i].data_ptr())[idx[i] * cols + j])));
                        y[r * cols + j] = static_cast<T>(v);
                      }
                    }
                  });
                })
    .set_non_differentiable();

// ---- fill_element_0index ----
MX_REGISTER_OP(fill_element_0index)
    .describe(
        "A copy of lhs (n, m) with lhs[i, rhs[i]] = mhs[i] for every row i (0-based column "
        "indices rhs, truncated to integers, in [0, m)).")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"lhs", "mhs", "rhs"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& l = (*in)[0];
      if (l.ndim_known() && l.ndim() != 2)
        Fail(a, "lhs must be a matrix, got shape ", l.ToString());
      for (int i : {1, 2}) {
        const Shape& s = (*in)[i];
        if (s.ndim_known() && s.ndim() != 1)
          Fail(a, i == 1 ? "mhs" : "rhs", " must be 1-D, got shape ", s.ToString());
        if (l.ndim_known() && s.ndim_known() && l[0] >= 0 && s[0] >= 0 && s[0] != l[0])
          Fail(a, i == 1 ? "mhs" : "rhs", " has ", s[0], " elements, lhs has ", l[0], " rows");
        if (!s.ndim_known() && l.ndim_known()) (*in)[i] = Shape{l[0]};
      }
      MergeShape(&(*out)[0], l, "fill_element_0index: output");
      (*in)[0] = (*out)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
                  const int64_t n = in[0].shape()[0], m = in[0].shape()[1];
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "fill_element_0index", {
                    T* y = static_cast<T*>(out[0].data_ptr());
                    const T* v = static_cast<const T*>(in[1].data_ptr());
                    const T* idx = static_cast<const T*>(in[2].data_ptr());
                    for (int64_t i = 0; i < n; ++i) {
                      const double c = static_cast<double>(idx[i]);
                      if (!(c > -1.0 && c < static_cast<double>(m)))
                        Fail(a, "rhs[", i, "] = ", c, " is not a column index of lhs (", m,
                             " columns)");
                      y[i * m + static_cast<int64_t>(c)] = v[i];
                    }
                  });
                })
    .set_non_differentiable();

// ---- amp_cast / amp_multicast ----
void ConvertKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  for (size_t i = 0; i < in.size(); ++i)
    ConvertElements(in[i].data_ptr(), in[i].dtype(), out[i].data_ptr(), out[i].dtype(),
                    static_cast<size_t>(in[i].size()));
}

MX_REGISTER_OP(amp_cast)
    .describe("AMP cast: float32/float16/bfloat16 data converted to dtype; other dtypes unchanged.")
    .set_params<AMPCastParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      const int t = (*in)[0];
      if (t < 0) return;
      MergeType(&(*out)[0], IsAmpFloat(t) ? DTypeFlag(a.get<AMPCastParam>().dtype) : t,
                "amp_cast: output");
    })
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ConvertKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("_amp_cast_grad", {og[0], in[0]})};
        },
        true, false);

MX_REGISTER_OP(_amp_cast_grad)
    .describe(
        "ograd converted to the dtype of data (shape of ograd): the gradient of amp_cast and "
        "amp_multicast (not an MXNet op).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[0], "_amp_cast_grad: output");
      (*in)[0] = (*out)[0];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_amp_cast_grad: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  ConvertElements(in[0].data_ptr(), in[0].dtype(), out[0].data_ptr(),
                                  out[0].dtype(), static_cast<size_t>(in[0].size()));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("_amp_cast_grad", {og[0], in[0]}),
                                        b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(amp_multicast)
    .describe(
        "AMP multi-cast: float32/float16/bfloat16 inputs converted to the widest float type "
        "present (cast_narrow: the narrowest); other dtypes unchanged.")
    .set_params<AMPMultiCastParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<AMPMultiCastParam>().num_outputs; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<AMPMultiCastParam>().num_outputs; })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> v;
      for (int i = 0; i < a.get<AMPMultiCastParam>().num_outputs; ++i)
        v.push_back(StrCat("data_", i));
      return v;
    })
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      for (size_t i = 0; i < in->size(); ++i) {
        MergeShape(&(*out)[i], (*in)[i], StrCat("amp_multicast: output ", i));
        (*in)[i] = (*out)[i];
      }
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      // MXNet's AMPMultiCastType, in its order of tests.
      const bool narrow = a.get<AMPMultiCastParam>().cast_narrow;
      const int f32 = DTypeFlag(DType::kFloat32), f16 = DTypeFlag(DType::kFloat16),
                bf16 = DTypeFlag(DType::kBFloat16);
      int target = narrow ? f32 : (*in)[0];
      for (size_t i = 0; i < in->size(); ++i) {
        const int ti = (*in)[i], to = (*out)[i];
        if (!narrow && (ti == f32 || to == f32))
          target = f32;
        else if (narrow && (ti == f16 || to == f16))
          target = f16;
        else if (narrow && (ti == bf16 || to == bf16))
          target = bf16;
      }
      for (size_t i = 0; i < in->size(); ++i) {
        const int ti = (*in)[i];
        if (ti < 0) continue;
        MergeType(&(*out)[i], IsAmpFloat(ti) ? target : ti, StrCat("amp_multicast: output ", i));
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ConvertKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          std::vector<GradValue> g;
          for (size_t i = 0; i < in.size(); ++i)
            g.push_back(b.Call("_amp_cast_grad", {og[i], in[i]}));
          return g;
        },
        true, false);

// ---- cast_storage ----
// Any storage type to any other (ndarray/sparse.h: CastStorage). Dense to dense is the reference
// kernel (a copy); everything else runs the storage kernel. csr needs a 2-d array, row_sparse at
// least 1-d (kInvalidArgument from shape inference, as MXNet's check).
StorageType CastTarget(const OpAttrs& a) {
  return ValueOrThrow(ParseStorageType(a.get<CastStorageParam>().stype));
}

MX_REGISTER_OP(cast_storage)
    .describe(
        "Casts the storage type: 'default' (dense), 'csr' (2-d) or 'row_sparse'. Zeros are not "
        "stored; the values do not change.")
    .add_alias("_sparse_cast_storage")
    .set_params<CastStorageParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      StorageType st = CastTarget(a);
      ElemwiseShape(a, in, out);
      const Shape& s = (*out)[0];
      if (s.ndim_known() && st == StorageType::kCSR && s.ndim() != 2)
        Fail(a, "stype='csr' needs a 2-d input, got shape ", s.ToString());
      if (s.ndim_known() && st == StorageType::kRowSparse && s.ndim() < 1)
        Fail(a, "stype='row_sparse' needs an input of at least 1 dim, got a 0-d one");
    })
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
                })
    .set_storage_kernel(
        [](const OpAttrs& a, std::span<const StorageType> in, std::span<StorageType> out) {
          out[0] = CastTarget(a);
          return in[0] != StorageType::kDefault || out[0] != StorageType::kDefault;
        },
        [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          NDArray r = CastStorage(in[0], CastTarget(a));
          if (r.is_same(in[0])) r = r.copy();  // same stype: a copy, like the dense kernel
          r.copyto(out[0]);
        })
    .set_gradient([](GradBuilder&, const OpAttrs&, std::span<const GradValue>,
                     std::span<const GradValue>,
                     std::span<const GradValue> og) { return std::vector<GradValue>{og[0]}; },
                  false, false);

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: API ----
namespace mxnet::nd {

NDArray diag(const NDArray& data, int k, int axis1, int axis2) {
  const Op& op = MX_ND_OP(diag);
  return Call(op, OpAttrs::From(op, ops::DiagParam{k, axis1, axis2}), {data})[0];
}

NDArray khatri_rao(const std::vector<NDArray>& matrices) {
  const Op& op = MX_ND_OP(khatri_rao);
  ops::KhatriRaoParam p;
  p.num_args = static_cast<int>(matrices.size());
  return Invoke(op, OpAttrs::From(op, p), matrices)[0];
}

NDArray fill_element_0index(const NDArray& lhs, const NDArray& mhs, const NDArray& rhs) {
  const Op& op = MX_ND_OP(fill_element_0index);
  return Call(op, NoAttrs(op), {lhs, mhs, rhs})[0];
}

NDArray amp_cast(const NDArray& data, DType dtype) {
  const Op& op = MX_ND_OP(amp_cast);
  ops::AMPCastParam p;
  p.dtype = dtype;
  return Call(op, OpAttrs::From(op, p), {data})[0];
}

std::vector<NDArray> amp_multicast(const std::vector<NDArray>& data, bool cast_narrow) {
  const Op& op = MX_ND_OP(amp_multicast);
  ops::AMPMultiCastParam p;
  p.num_outputs = static_cast<int>(data.size());
  p.cast_narrow = cast_narrow;
  NDArrayVec r = Invoke(op, OpAttrs::From(op, p), data);
  return std::vector<NDArray>(r.begin(), r.end());
}

NDArray cast_storage(const NDArray& data, const std::string& stype) {
  const Op& op = MX_ND_OP(cast_storage);
  ops::CastStorageParam p;
  p.stype = stype;
  return Call(op, OpAttrs::From(op, p), {data})[0];
}

}  // namespace mxnet::nd
