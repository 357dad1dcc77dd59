// CTCLoss (aliases ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss) and _backward_ctc_loss,
// following MXNet 1.9.1 (src/operator/nn/ctc_loss.cc, ctc_loss-inl.h): Connectionist Temporal
// Classification (Graves et al. 2006) over softmax(data) along the alphabet axis, computed with
// the forward-backward (alpha-beta) recursions in log space, in double precision.
//
// Like MXNet, the forward also produces the gradient w.r.t. data as a hidden output
// (softmax - per-class posterior, zero past a sample's data length); the backward scales it by
// the head gradient of each sample. A label that cannot be aligned (label length + number of
// adjacent repeats > data length) gives loss 0 and gradient 0, as MXNet does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/nn/nn_rnn_api.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops::nn {
namespace {

constexpr const char* kCTC = "CTCLoss";
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

inline double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

int NumInputs(const CTCLossParam& p) {
  return 2 + (p.use_data_lengths ? 1 : 0) + (p.use_label_lengths ? 1 : 0);
}

std::vector<std::string> InputNames(const CTCLossParam& p) {
  std::vector<std::string> n{"data", "label"};
  if (p.use_data_lengths) n.push_back("data_lengths");
  if (p.use_label_lengths) n.push_back("label_lengths");
  return n;
}

void CTCShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<CTCLossParam>();
  const Shape &d = (*in)[0], &l = (*in)[1];
  if (d.ndim_known() && d.ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, kCTC,
             ": data must be 3-D (sequence length, batch, alphabet size), got ", d.ToString());
  if (l.ndim_known() && l.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, kCTC,
             ": label must be 2-D (batch, max label length), got ", l.ToString());
  int64_t N = d.ndim_known() ? d[1] : -1;
  if (l.ndim_known()) {
    if (N >= 0 && l[0] >= 0 && l[0] != N)
      MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": label ", l.ToString(), " and data ",
               d.ToString(), " have different batch sizes");
    if (N < 0) N = l[0];
    if (d.ndim_known() && d[0] >= 0 && l[1] >= 0 && l[1] > d[0])
      MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": the max label length ", l[1],
               " (label ", l.ToString(), ") exceeds the sequence length ", d[0], " of data ",
               d.ToString());
  }
  int i = 2;
  for (bool use : {p.use_data_lengths, p.use_label_lengths}) {
    if (!use) continue;
    const char* name = i == 2 && p.use_data_lengths ? "data_lengths" : "label_lengths";
    Shape& s = (*in)[i++];
    if (s.ndim_known() && s.ndim() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": input ", name,
               " must be 1-D (batch,), got ", s.ToString());
    AssignShape(kCTC, name, &s, Shape{N});
  }
  (*out)[0] = Shape{N};
  (*out)[1] = d.ndim_known() ? d : Shape{-1, N, -1};
}

void CTCType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const int t = (*in)[0];
  if (t >= 0) RequireFloat(kCTC, "data", static_cast<DType>(t));
  const std::vector<std::string> names = InputNames(attrs.get<CTCLossParam>());
  for (size_t i = 1; i < in->size(); ++i)
    if ((*in)[i] == DTypeFlag(DType::kBool))
      MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": input ", names[i],
               " must be numeric, got bool");
  (*out)[0] = (*out)[1] = t;
}

// Loss and gradient of one sample. logp: (T, A) log-probabilities (row stride A); lab: the label
// without padding; grad: (T, A) output (row stride `gstride`).
double SampleCost(const double* logp, int64_t T, int64_t A, int64_t blank,
                  const std::vector<int64_t>& lab, double* grad, int64_t gstride) {
  const int64_t L = static_cast<int64_t>(lab.size()), S = 2 * L + 1;
  int64_t repeats = 0;
  for (int64_t i = 1; i < L; ++i) repeats += lab[i] == lab[i - 1];
  if (L + repeats > T || T == 0) return 0.0;  // infeasible: MXNet's 0 loss, 0 gradient
  std::vector<int64_t> ext(S);
  for (int64_t s = 0; s < S; ++s) ext[s] = s % 2 ? lab[s / 2] : blank;
  auto skip = [&](int64_t s) { return s >= 2 && ext[s] != blank && ext[s] != ext[s - 2]; };
  std::vector<double> alpha(T * S, kNegInf), beta(T * S, kNegInf);
  alpha[0] = logp[ext[0]];
  if (S > 1) alpha[1] = logp[ext[1]];
  for (int64_t t = 1; t < T; ++t)
    for (int64_t s = 0; s < S; ++s) {
      double a = alpha[(t - 1) * S + s];
      if (s >= 1) a = LogAdd(a, alpha[(t - 1) * S + s - 1]);
      if (skip(s)) a = LogAdd(a, alpha[(t - 1) * S + s - 2]);
      alpha[t * S + s] = a == kNegInf ? kNegInf : a + logp[t * A + ext[s]];
    }
  const double logz =
      S > 1 ? LogAdd(alpha[(T - 1) * S + S - 1], alpha[(T - 1) * S + S - 2]) : alpha[(T - 1) * S];
  beta[(T - 1) * S + S - 1] = logp[(T - 1) * A + ext[S - 1]];
  if (S > 1) beta[(T - 1) * S + S - 2] = logp[(T - 1) * A + ext[S - 2]];
  for (int64_t t = T - 2; t >= 0; --t)
    for (int64_t s = 0; s < S; ++s) {
      double b = beta[(t + 1) * S + s];
      if (s + 1 < S) b = LogAdd(b, beta[(t + 1) * S + s + 1]);
      if (s + 2 < S && skip(s + 2)) b = LogAdd(b, beta[(t + 1) * S + s + 2]);
      beta[t * S + s] = b == kNegInf ? kNegInf : b + logp[t * A + ext[s]];
    }
  // d(-log Z)/d activation = softmax - sum_{s: ext[s] = a} alpha * beta / (y * Z).
  std::vector<double> post(A);
  for (int64_t t = 0; t < T; ++t) {
    std::fill(post.begin(), post.end(), kNegInf);
    for (int64_t s = 0; s < S; ++s) {
      const double ab = alpha[t * S + s] + beta[t * S + s];
      if (ab != kNegInf) post[ext[s]] = LogAdd(post[ext[s]], ab);
    }
    for (int64_t a = 0; a < A; ++a) {
      const double lp = logp[t * A + a];
      double g = std::exp(lp);
      if (post[a] != kNegInf) g -= std::exp(post[a] - lp - logz);
      grad[t * gstride + a] = g;
    }
  }
  return -logz;
}

void CTCRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  const auto& p = attrs.get<CTCLossParam>();
  const Shape& ds = in[0].shape();
  const int64_t T = ds[0], N = ds[1], A = ds[2], Lmax = in[1].shape()[1];
  const int64_t blank = p.blank_label == "first" ? 0 : A - 1;
  const std::vector<double> x = in[0].ToVector<double>(), lab = in[1].ToVector<double>();
  std::vector<double> dlen, llen;
  int i = 2;
  if (p.use_data_lengths) dlen = in[i++].ToVector<double>();
  if (p.use_label_lengths) llen = in[i++].ToVector<double>();
  std::vector<double> loss(N, 0.0), grad(T * N * A, 0.0);
  const double pad = p.blank_label == "first" ? 0.0 : -1.0;
  std::vector<std::vector<int64_t>> labels(N);
  std::vector<int64_t> tn(N, T);
  for (int64_t n = 0; n < N; ++n) {
    if (p.use_data_lengths) {
      if (!(dlen[n] >= 0 && dlen[n] <= static_cast<double>(T)))
        MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": data_lengths[", n, "] = ", dlen[n],
                 " is out of range [0, ", T, "]");
      tn[n] = static_cast<int64_t>(dlen[n]);
    }
    int64_t len = Lmax;
    if (p.use_label_lengths) {
      if (!(llen[n] >= 0 && llen[n] <= static_cast<double>(Lmax)))
        MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": label_lengths[", n, "] = ", llen[n],
                 " is out of range [0, ", Lmax, "]");
      len = static_cast<int64_t>(llen[n]);
    } else {
      for (int64_t k = 0; k < Lmax; ++k)
        if (static_cast<int64_t>(lab[n * Lmax + k]) == static_cast<int64_t>(pad)) {
          len = k;
          break;
        }
    }
    for (int64_t k = 0; k < len; ++k) {
      const int64_t c = static_cast<int64_t>(lab[n * Lmax + k]);
      if (c < 0 || c >= A || c == blank)
        MX_THROW(absl::StatusCode::kInvalidArgument, kCTC, ": label[", n, ", ", k, "] = ", c,
                 " is not a class of alphabet size ", A, " with blank_label='", p.blank_label,
                 "' (blank ", blank, ")");
      labels[n].push_back(c);
    }
  }
  ParallelFor(
      N,
      [&](int64_t n) {
        const int64_t Tn = tn[n];
        std::vector<double> logp(Tn * A);
        for (int64_t t = 0; t < Tn; ++t) {
          const double* row = x.data() + (t * N + n) * A;
          double mx = kNegInf;
          for (int64_t a = 0; a < A; ++a) mx = std::max(mx, row[a]);
          double sum = 0;
          for (int64_t a = 0; a < A; ++a) sum += std::exp(row[a] - mx);
          const double lse = mx + std::log(sum);
          for (int64_t a = 0; a < A; ++a) logp[t * A + a] = row[a] - lse;
        }
        loss[n] = SampleCost(logp.data(), Tn, A, blank, labels[n], grad.data() + n * A, N * A);
      },
      1);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T_, kCTC, {
    T_* lo = out[0].data<T_>();
    T_* go = out[1].data<T_>();
    for (int64_t n = 0; n < N; ++n) lo[n] = static_cast<T_>(static_cast<AccType<T_>>(loss[n]));
    for (int64_t k = 0; k < T * N * A; ++k)
      go[k] = static_cast<T_>(static_cast<AccType<T_>>(grad[k]));
  });
}

MX_REGISTER_OP(CTCLoss)
    .describe(
        "Connectionist Temporal Classification loss of activations data (T, N, alphabet) "
        "(softmax applied inside) against labels (N, L); returns (N,). The gradient w.r.t. "
        "data is computed with the loss (hidden output).")
    .add_alias("ctc_loss")
    .add_alias("_contrib_CTCLoss")
    .add_alias("_contrib_ctc_loss")
    .set_params<CTCLossParam>()
    .set_num_inputs([](const OpAttrs& a) { return NumInputs(a.get<CTCLossParam>()); })
    .set_input_names([](const OpAttrs& a) { return InputNames(a.get<CTCLossParam>()); })
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_output_names(std::vector<std::string>{"out", "grad"})
    .set_infer_shape(CTCShape)
    .set_infer_type(CTCType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CTCRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue>,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          const GradValue head = og[0].valid() ? og[0] : b.OnesLike(out[0]);
          std::vector<GradValue> g{b.Call("_backward_ctc_loss", {head, out[1]})};
          g.resize(NumInputs(attrs.get<CTCLossParam>()));  // labels, lengths: none
          return g;
        },
        false, true);

MX_REGISTER_OP(_backward_ctc_loss)
    .describe(
        "ograd[n] * grad[t, n, :]: CTCLoss's data gradient from its hidden output (internal).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "grad"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape& g = (*in)[1];
      if (g.ndim_known() && g.ndim() != 3)
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "_backward_ctc_loss: grad must be 3-D (T, N, alphabet), got ", g.ToString());
      if (g.ndim_known()) AssignShape("_backward_ctc_loss", "ograd", &(*in)[0], Shape{g[1]});
      (*out)[0] = g;
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*in)[0], (*in)[1], "_backward_ctc_loss: input ograd");
      MergeType(&(*in)[1], (*in)[0], "_backward_ctc_loss: input grad");
      if ((*in)[1] >= 0) RequireFloat("_backward_ctc_loss", "grad", static_cast<DType>((*in)[1]));
      (*out)[0] = (*in)[1];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const std::vector<double> og = in[0].ToVector<double>();
                  const Shape& s = in[1].shape();
                  const int64_t N = s[1], A = s[2];
                  MX_FLOAT_TYPE_SWITCH(in[1].dtype(), T_, "_backward_ctc_loss", {
                    const T_* g = in[1].data<T_>();
                    T_* dx = out[0].data<T_>();
                    for (int64_t k = 0; k < in[1].size(); ++k)
                      dx[k] = static_cast<T_>(static_cast<AccType<T_>>(
                          og[(k / A) % N] * static_cast<double>(static_cast<AccType<T_>>(g[k]))));
                  });
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops::nn

namespace mxnet::nd {

NDArray CTCLoss(const NDArray& data, const NDArray& label, const NDArray& data_lengths,
                const NDArray& label_lengths, CTCLossOptions opts) {
  const Op& op = MX_ND_OP(CTCLoss);
  opts.use_data_lengths = !data_lengths.is_none();
  opts.use_label_lengths = !label_lengths.is_none();
  std::vector<NDArray> in{data, label};
  if (opts.use_data_lengths) in.push_back(data_lengths);
  if (opts.use_label_lengths) in.push_back(label_lengths);
  return Invoke(op, OpAttrs::From(op, opts), in)[0];
}

NDArray CTCLoss(const NDArray& data, const NDArray& label, const CTCLossOptions& opts) {
  if (opts.use_data_lengths || opts.use_label_lengths)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "CTCLoss: use_data_lengths/use_label_lengths need the length inputs (use "
             "CTCLoss(data, label, data_lengths, label_lengths, opts))");
  return CTCLoss(data, label, NDArray(), NDArray(), opts);
}

}  // namespace mxnet::nd
