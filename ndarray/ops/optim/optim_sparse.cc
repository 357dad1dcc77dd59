// Lazy optimizer updates for row_sparse gradients and _sparse_adagrad_update (optim_sparse.h;
// MXNet 1.9.1's SGDDnsRspKernel, SGDMomDnsRspDnsKernel, AdamDnsRspDnsKernel and
// AdagradDnsRspDnsKernel semantics). Each stored row runs the dense kernel's arithmetic in the
// same order (optim.cc), in the weight's dtype (float16/bfloat16 in float32, rounded once).
#include "ndarray/ops/optim/optim_sparse.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ndarray/kernel_util.h"
#include "ndarray/ops/optim/optim_util.h"
#include "ndarray/sparse.h"

namespace mxnet::ops {

using namespace optim;  // NOLINT(build/namespaces): the family's building blocks

namespace {

// The grad's stored rows, checked against the weight, and the row length. out not sharing the
// weight's buffer first receives a copy of the weight (MXNet only allows out = weight).
struct Rows {
  std::vector<int64_t> idx;
  int64_t len = 0;
};

Rows Prepare(const OpAttrs& attrs, std::span<const NDArray> in, const NDArray& out) {
  const NDArray& w = in[0];
  if (w.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs),
             ": a row_sparse gradient needs a weight of at least 1 dimension");
  Rows r;
  r.len = w.shape()[0] > 0 ? w.size() / w.shape()[0] : 0;
  r.idx = in[1].indices().ToVector<int64_t>();
  for (int64_t i : r.idx)
    if (i < 0 || i >= w.shape()[0])
      MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs), ": gradient row ", i,
               " is outside the weight's ", w.shape()[0], " rows");
  if (out.data_ptr() != w.data_ptr()) w.copyto(out);
  return r;
}

// f(i, base): stored row i of the gradient updates the weight elements [base, base + len).
template <typename F>
void ForRows(const Rows& r, F f) {
  const int64_t k = static_cast<int64_t>(r.idx.size());
  ParallelForRange(k, std::max<int64_t>(1, kGrain / std::max<int64_t>(r.len, 1)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t i = b; i < e; ++i) f(i, r.idx[i] * r.len);
                   });
}

bool DenseExceptGrad(std::span<const StorageType> in) {
  if (in[1] != StorageType::kRowSparse) return false;
  for (size_t i = 0; i < in.size(); ++i)
    if (i != 1 && in[i] != StorageType::kDefault) return false;
  return true;
}

}  // namespace

bool SGDLazyStorage(const OpAttrs& a, std::span<const StorageType> in, std::span<StorageType>) {
  return DenseExceptGrad(in) && a.get<SGDParam>().lazy_update;
}
bool SGDMomLazyStorage(const OpAttrs& a, std::span<const StorageType> in, std::span<StorageType>) {
  return DenseExceptGrad(in) && a.get<SGDMomParam>().lazy_update;
}
bool AdamLazyStorage(const OpAttrs& a, std::span<const StorageType> in, std::span<StorageType>) {
  return DenseExceptGrad(in) && a.get<AdamParam>().lazy_update;
}

void SGDLazyKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<SGDParam>();
  const Rows r = Prepare(attrs, in, out[0]);
  const NDArray gd = in[1].data();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "sgd_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(gd);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A decay = A(1.f) - lr * wd, lrg = lr * rg;
    const bool clip = cg >= A(0);
    const int64_t len = r.len;
    ForRows(r, [=](int64_t i, int64_t base) {
      for (int64_t j = 0; j < len; ++j) {
        const A gi = A(g[i * len + j]);
        A step = clip ? lr * Clip(rg * gi, cg) : lrg * gi;
        o[base + j] = static_cast<T>(decay * A(w[base + j]) - step);
      }
    });
  });
}

void SGDMomLazyKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<SGDMomParam>();
  const Rows r = Prepare(attrs, in, out[0]);
  const NDArray gd = in[1].data();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "sgd_mom_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(gd);
    T* mom = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient, mu = p.momentum;
    const A lrwd = lr * wd, lrrg = lr * rg;
    const bool clip = cg >= A(0);
    const int64_t len = r.len;
    ForRows(r, [=](int64_t i, int64_t base) {
      for (int64_t j = 0; j < len; ++j) {
        const int64_t x = base + j;
        const A wi = A(w[x]), gi = A(g[i * len + j]);
        A step = clip ? lr * Clip(rg * gi, cg) : lrrg * gi;
        A m = mu * A(mom[x]) - lrwd * wi - step;
        mom[x] = static_cast<T>(m);
        o[x] = static_cast<T>(wi + A(mom[x]));
      }
    });
  });
}

void AdamLazyKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<AdamParam>();
  const Rows r = Prepare(attrs, in, out[0]);
  const NDArray gd = in[1].data();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "adam_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(gd);
    T* mean = Ptr<T>(in[2]);
    T* var = Ptr<T>(in[3]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A b1 = p.beta1, b2 = p.beta2, eps = p.epsilon;
    const A c1 = A(1.f) - b1, c2 = A(1.f) - b2;
    const int64_t len = r.len;
    ForRows(r, [=](int64_t i, int64_t base) {
      for (int64_t j = 0; j < len; ++j) {
        const int64_t x = base + j;
        A wi = A(w[x]);
        A gr = A(g[i * len + j]) * rg + wi * wd;
        const bool clip = cg >= A(0);
        gr = clip ? Clip(gr, cg) : gr;
        A m = b1 * A(mean[x]) + c1 * gr;
        // MXNet's lazy kernel squares the clipped gradient first (c2 * gr^2), the unclipped one
        // left to right ((c2 * gr) * gr), as the dense kernel does.
        A v = b2 * A(var[x]) + (clip ? c2 * (gr * gr) : c2 * gr * gr);
        mean[x] = static_cast<T>(m);
        var[x] = static_cast<T>(v);
        o[x] = static_cast<T>(wi - lr * A(mean[x]) / (std::sqrt(A(var[x])) + eps));
      }
    });
  });
}

namespace {

// ---- _sparse_adagrad_update ----
// One element: g = clip(rescale_grad*grad); history += g^2; w - lr * g / sqrt(history + eps).
template <typename T, typename A>
inline void AdagradElement(const T* w, A gi, T* hist, T* o, A lr, A eps, A rg, A cg) {
  A gr = gi * rg;
  if (cg >= A(0)) gr = Clip(gr, cg);
  *hist = static_cast<T>(A(*hist) + gr * gr);
  const A div = gr / std::sqrt(A(*hist) + eps);
  *o = static_cast<T>(A(*w) - div * lr);
}

void CheckAdagradWd(const AdagradParam& p) {
  if (p.wd != 0.0f)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_sparse_adagrad_update: wd = ", p.wd,
             " is not supported (MXNet's sparse adagrad_update needs wd = 0)");
}

void AdagradDenseKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = attrs.get<AdagradParam>();
  CheckAdagradWd(p);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_sparse_adagrad_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* h = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, eps = p.epsilon, rg = p.rescale_grad, cg = p.clip_gradient;
    ParallelForRange(in[0].size(), kGrain, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) AdagradElement(w + i, A(g[i]), h + i, o + i, lr, eps, rg, cg);
    });
  });
}

void AdagradLazyKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const auto& p = attrs.get<AdagradParam>();
  CheckAdagradWd(p);
  const Rows r = Prepare(attrs, in, out[0]);
  const NDArray gd = in[1].data();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_sparse_adagrad_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(gd);
    T* h = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, eps = p.epsilon, rg = p.rescale_grad, cg = p.clip_gradient;
    const int64_t len = r.len;
    ForRows(r, [=](int64_t i, int64_t base) {
      for (int64_t j = 0; j < len; ++j)
        AdagradElement(w + base + j, A(g[i * len + j]), h + base + j, o + base + j, lr, eps, rg,
                       cg);
    });
  });
}

[[maybe_unused]] Op& adagrad_op =
    DeclareUpdate(OpRegistry::Register("_sparse_adagrad_update"),
                  UpdateLayout{{In("weight"), In("grad"), State("history")}})
        .describe(
            "AdaGrad update (Duchi et al. 2011) for row_sparse gradients: for each row the grad "
            "stores, g = clip(rescale_grad*grad, clip_gradient); history += g^2; weight -= "
            "lr*g/sqrt(history + epsilon); other rows and their history are untouched. wd must "
            "be 0. A dense grad updates every row.")
        .set_params<AdagradParam>()
        .set_kernel({DeviceType::kCPU, Backend::kReference}, AdagradDenseKernel)
        .set_storage_kernel([](const OpAttrs&, std::span<const StorageType> in,
                               std::span<StorageType>) { return DenseExceptGrad(in); },
                            AdagradLazyKernel);

}  // namespace
}  // namespace mxnet::ops

namespace mxnet::nd {

NDArray sparse_adagrad_update(const NDArray& weight, const NDArray& grad, const NDArray& history,
                              const AdagradOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(_sparse_adagrad_update), opts, {weight, grad, history}, out);
}

}  // namespace mxnet::nd
