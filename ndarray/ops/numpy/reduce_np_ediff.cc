// MXNet 1.9.1's _npi_ediff1d (mx.np.ediff1d; src/operator/numpy/np_ediff1d_op.cc), attributes
// in reduce_np_api.h, and its gradient _npi_ediff1d_backward.
// Inputs: a (any shape, flattened) [, to_begin array] [, to_end array] (flattened, converted to
// a's dtype). Output (1-D, a's dtype; bool is kInvalidArgument): to_begin, a[1:] - a[:-1],
// to_end. Gradients: the adjoint of the difference for a; the begin/end arrays get their
// slices of the output gradient.
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/numpy/reduce_np_api.h"

namespace mxnet::ops {
namespace {
using reduce_internal::OpName;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

int NumIn(const NpEdiff1dParam& p) { return 1 + p.to_begin_arr_given + p.to_end_arr_given; }

// Sizes of the prepended / appended parts given the inputs' shapes.
struct Parts {
  int64_t begin = 0, diff = 0, end = 0;
};
Parts PartsOf(const NpEdiff1dParam& p, const ShapeVec& in) {
  Parts r;
  int k = 1;
  r.diff = std::max<int64_t>(in[0].Size() - 1, 0);
  if (p.to_begin_arr_given)
    r.begin = in[k++].Size();
  else if (p.to_begin_scalar)
    r.begin = 1;
  if (p.to_end_arr_given)
    r.end = in[k].Size();
  else if (p.to_end_scalar)
    r.end = 1;
  return r;
}

void Ediff1dKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = a.get<NpEdiff1dParam>();
  std::vector<double> y;
  int k = 1;
  if (p.to_begin_arr_given) {
    std::vector<double> b = in[k++].ToVector<double>();
    y.insert(y.end(), b.begin(), b.end());
  } else if (p.to_begin_scalar) {
    y.push_back(*p.to_begin_scalar);
  }
  std::vector<double> x = in[0].ToVector<double>();
  for (size_t i = 1; i < x.size(); ++i) y.push_back(x[i] - x[i - 1]);
  if (p.to_end_arr_given) {
    std::vector<double> e = in[k].ToVector<double>();
    y.insert(y.end(), e.begin(), e.end());
  } else if (p.to_end_scalar) {
    y.push_back(*p.to_end_scalar);
  }
  ConvertElements(y.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), y.size());
}

MX_REGISTER_OP(_npi_ediff1d)
    .describe(
        "Differences between consecutive elements of the flattened input, with to_begin "
        "prepended and to_end appended (mx.np.ediff1d); 1-D, the input's dtype.")
    .set_params<NpEdiff1dParam>()
    .set_num_inputs([](const OpAttrs& a) { return NumIn(a.get<NpEdiff1dParam>()); })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> n{"input1", "input2", "input3"};
      n.resize(NumIn(a.get<NpEdiff1dParam>()));
      return n;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      for (const Shape& s : *in)
        if (!s.is_known()) return;
      Parts r = PartsOf(a.get<NpEdiff1dParam>(), *in);
      MergeShape(&(*out)[0], Shape{r.begin + r.diff + r.end}, StrCat(OpName(a), ": output"));
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] == DTypeFlag(DType::kBool))
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": dtype bool is not supported");
      MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
    })
    .set_kernel(kRef, Ediff1dKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          const Op& bw = OpRegistry::Get("_npi_ediff1d_backward");
          std::vector<GradValue> args{og[0]};
          args.insert(args.end(), in.begin(), in.end());
          return b.Apply(bw, OpAttrs::From(bw, a.get<NpEdiff1dParam>()), args);
        },
        true, false);

// Inputs: ograd (the ediff1d output) and ediff1d's inputs; outputs: the gradient of a,
// dx[i] = og[b + i - 1] - og[b + i] over the difference part (b = the prepended count), then
// those of the begin/end arrays (their slices of ograd).
MX_REGISTER_OP(_npi_ediff1d_backward)
    .describe(
        "Gradient of _npi_ediff1d for its first input (the adjoint of the difference); "
        "inputs: ograd, then ediff1d's inputs.")
    .set_params<NpEdiff1dParam>()
    .set_num_inputs([](const OpAttrs& a) { return 1 + NumIn(a.get<NpEdiff1dParam>()); })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> n{"ograd", "input1", "input2", "input3"};
      n.resize(1 + NumIn(a.get<NpEdiff1dParam>()));
      return n;
    })
    .set_num_outputs([](const OpAttrs& a) { return NumIn(a.get<NpEdiff1dParam>()); })
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      for (size_t i = 0; i < out->size(); ++i)
        MergeShape(&(*out)[i], (*in)[i + 1], "_npi_ediff1d_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      for (size_t i = 0; i < out->size(); ++i)
        MergeType(&(*out)[i], (*in)[i + 1], "_npi_ediff1d_backward: output");
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<NpEdiff1dParam>();
                  std::vector<double> og = in[0].ToVector<double>();
                  int64_t n = out[0].size(), m = std::max<int64_t>(n - 1, 0);
                  int64_t b = p.to_begin_arr_given ? in[2].size() : (p.to_begin_scalar ? 1 : 0);
                  std::vector<double> dx(n, 0.0);
                  for (int64_t i = 0; i < m; ++i) {
                    dx[i] -= og[b + i];
                    dx[i + 1] += og[b + i];
                  }
                  ConvertElements(dx.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(),
                                  dx.size());
                  // The prepended / appended arrays pass their slices of ograd through.
                  size_t k = 1;
                  if (p.to_begin_arr_given) {
                    ConvertElements(og.data(), DType::kFloat64, out[k].data_ptr(), out[k].dtype(),
                                    out[k].size());
                    ++k;
                  }
                  if (p.to_end_arr_given)
                    ConvertElements(og.data() + og.size() - out[k].size(), DType::kFloat64,
                                    out[k].data_ptr(), out[k].dtype(), out[k].size());
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
