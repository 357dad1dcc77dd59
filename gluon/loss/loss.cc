#include "gluon/loss/loss.h"

#include <cmath>
#include <numbers>

#include "base/strings.h"
#include "ndarray/nd.h"
#include "ndarray/params.h"

namespace mxnet::gluon::loss {
namespace {

// MXNet's _reshape_like(F, x, y): x reshaped to y's shape (the reshape_like op, so a hybridized
// graph stays shape-agnostic).
NDArray ReshapeLike(const NDArray& x, const NDArray& y) { return nd::reshape_like(x, y); }

// Activation(x, act_type='softrelu') = log(1 + exp(x)).
NDArray SoftRelu(const NDArray& x) { return nd::Activation(x, "softrelu"); }

}  // namespace

// ---- Loss base. ----
Loss::Loss(std::optional<double> weight, int batch_axis, int min_inputs, int max_inputs,
           std::string signature)
    : weight_(weight),
      batch_axis_(batch_axis),
      min_inputs_(min_inputs),
      max_inputs_(max_inputs),
      signature_(std::move(signature)) {}

NDArray Loss::operator()(const NDArray& pred, const NDArray& label, const NDArray& sample_weight) {
  NDArrayVec in = {pred, label};
  if (!sample_weight.is_none()) in.push_back(sample_weight);
  return (*this)(in)[0];
}

NDArrayVec Loss::forward(const NDArrayVec& inputs) {
  int n = static_cast<int>(inputs.size());
  if (n < min_inputs_ || n > max_inputs_)
    MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": forward takes ", signature_,
             ", got ", n, " input", n == 1 ? "" : "s");
  for (int i = 0; i < n; ++i)
    if (inputs[i].is_none())
      MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": input ", i, " of ", signature_,
               " is none");
  return {Compute(inputs)};
}

std::string Loss::repr_args() const {
  return StrCat("batch_axis=", batch_axis_,
                ", w=", weight_ ? PyFloatRepr(*weight_) : std::string("None"));
}

NDArray Loss::ApplyWeighting(NDArray loss, std::optional<double> weight,
                             const NDArray& sample_weight) {
  if (!sample_weight.is_none()) loss = nd::broadcast_mul(loss, sample_weight);
  if (weight) loss = nd::mul_scalar(loss, *weight);
  return loss;
}

NDArray Loss::MeanOverNonBatch(const NDArray& loss) const {
  return nd::mean(loss, {.axis = Shape{batch_axis_}, .exclude = true});
}

// ---- L1 / L2. ----
L1Loss::L1Loss(std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])") {}

NDArray L1Loss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  NDArray loss = nd::abs(nd::elemwise_sub(label, pred));
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

L2Loss::L2Loss(double weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])") {}

NDArray L2Loss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  NDArray loss = nd::square(nd::elemwise_sub(label, pred));
  return MeanOverNonBatch(ApplyWeighting(loss, *weight_ / 2, Opt(in, 2)));
}

// ---- Sigmoid binary cross-entropy. ----
SigmoidBinaryCrossEntropyLoss::SigmoidBinaryCrossEntropyLoss(bool from_sigmoid,
                                                             std::optional<double> weight,
                                                             int batch_axis)
    : Loss(weight, batch_axis, 2, 4, "(pred, label[, sample_weight[, pos_weight]])"),
      from_sigmoid_(from_sigmoid) {}

NDArray SigmoidBinaryCrossEntropyLoss::operator()(const NDArray& pred, const NDArray& label,
                                                  const NDArray& sample_weight,
                                                  const NDArray& pos_weight) {
  if (pos_weight.is_none()) return Loss::operator()(pred, label, sample_weight);
  // Ones leave the loss and every gradient unchanged (x * 1).
  NDArray sw =
      sample_weight.is_none() ? nd::ones(Shape{1}, pred.device(), pred.dtype()) : sample_weight;
  return (*this)(NDArrayVec{pred, label, sw, pos_weight})[0];
}

NDArray SigmoidBinaryCrossEntropyLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  NDArray pos_weight = Opt(in, 3);
  NDArray loss;
  if (!from_sigmoid_) {
    NDArray pred_label = nd::elemwise_mul(pred, label);
    NDArray soft = SoftRelu(nd::negative(nd::abs(pred)));
    if (pos_weight.is_none()) {
      // relu(x) - x * z + softrelu(-|x|)
      loss = nd::elemwise_add(nd::elemwise_sub(nd::relu(pred), pred_label), soft);
    } else {
      // x - x * z + (1 + (pos_weight - 1) * z) * (softrelu(-|x|) + relu(-x))
      NDArray log_weight =
          nd::plus_scalar(nd::broadcast_mul(nd::minus_scalar(pos_weight, 1), label), 1);
      loss = nd::broadcast_add(
          nd::elemwise_sub(pred, pred_label),
          nd::broadcast_mul(log_weight, nd::elemwise_add(soft, nd::relu(nd::negative(pred)))));
    }
  } else {
    constexpr double kEps = 1e-12;
    NDArray log_p = nd::log(nd::plus_scalar(pred, kEps));
    NDArray log_1mp = nd::log(nd::plus_scalar(nd::rminus_scalar(pred, 1), kEps));
    NDArray neg = nd::elemwise_mul(log_1mp, nd::rminus_scalar(label, 1));
    NDArray pos = nd::elemwise_mul(log_p, label);
    if (!pos_weight.is_none()) pos = nd::broadcast_mul(pos, pos_weight);
    loss = nd::negative(nd::broadcast_add(pos, neg));
  }
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

// ---- Softmax cross-entropy. ----
SoftmaxCrossEntropyLoss::SoftmaxCrossEntropyLoss(int axis, bool sparse_label, bool from_logits,
                                                 std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])"),
      axis_(axis),
      sparse_label_(sparse_label),
      from_logits_(from_logits) {}

NDArray SoftmaxCrossEntropyLoss::Compute(const NDArrayVec& in) {
  NDArray pred = in[0];
  if (!from_logits_) pred = nd::log_softmax(pred, {.axis = axis_});
  NDArray loss;
  if (sparse_label_) {
    loss = nd::negative(nd::pick(pred, in[1], axis_, /*keepdims=*/true));
  } else {
    NDArray label = ReshapeLike(in[1], pred);
    loss = nd::negative(
        nd::sum(nd::elemwise_mul(pred, label), {.axis = Shape{axis_}, .keepdims = true}));
  }
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

// ---- KL divergence. ----
KLDivLoss::KLDivLoss(bool from_logits, int axis, std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])"),
      from_logits_(from_logits),
      axis_(axis) {}

NDArray KLDivLoss::Compute(const NDArrayVec& in) {
  NDArray pred = in[0];
  const NDArray& label = in[1];
  if (!from_logits_) pred = nd::log_softmax(pred, {.axis = axis_});
  NDArray loss =
      nd::broadcast_mul(label, nd::broadcast_sub(nd::log(nd::plus_scalar(label, 1e-12)), pred));
  loss = ApplyWeighting(loss, weight_, Opt(in, 2));
  return nd::sum(loss, {.axis = Shape{batch_axis_}, .exclude = true});
}

// ---- Huber. ----
HuberLoss::HuberLoss(double rho, std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])"), rho_(rho) {
  if (!(rho > 0))
    MX_THROW(absl::StatusCode::kInvalidArgument, "HuberLoss: rho must be positive, got ", rho);
}

NDArray HuberLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  NDArray loss = nd::abs(nd::elemwise_sub(label, pred));
  loss = nd::where(nd::greater_scalar(loss, rho_), nd::minus_scalar(loss, 0.5 * rho_),
                   nd::mul_scalar(nd::square(loss), 0.5 / rho_));
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

// ---- Hinge. ----
HingeLoss::HingeLoss(double margin, std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])"), margin_(margin) {}

NDArray HingeLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  NDArray loss = nd::relu(nd::rminus_scalar(nd::elemwise_mul(pred, label), margin_));
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

SquaredHingeLoss::SquaredHingeLoss(double margin, std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])"), margin_(margin) {}

NDArray SquaredHingeLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  NDArray loss = nd::square(nd::relu(nd::rminus_scalar(nd::elemwise_mul(pred, label), margin_)));
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

// ---- Logistic. ----
LogisticLoss::LogisticLoss(std::optional<double> weight, int batch_axis, std::string label_format)
    : Loss(weight, batch_axis, 2, 3, "(pred, label[, sample_weight])"),
      label_format_(std::move(label_format)) {
  if (label_format_ != "signed" && label_format_ != "binary")
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "LogisticLoss: label_format must be 'signed' or 'binary', got '", label_format_, "'");
}

NDArray LogisticLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray label = ReshapeLike(in[1], pred);
  if (label_format_ == "signed")
    label = nd::div_scalar(nd::plus_scalar(label, 1.0), 2.0);  // {-1, 1} -> {0, 1}
  NDArray loss = nd::elemwise_add(nd::elemwise_sub(nd::relu(pred), nd::elemwise_mul(pred, label)),
                                  SoftRelu(nd::negative(nd::abs(pred))));
  return MeanOverNonBatch(ApplyWeighting(loss, weight_, Opt(in, 2)));
}

// ---- Triplet. ----
TripletLoss::TripletLoss(double margin, std::optional<double> weight, int batch_axis)
    : Loss(weight, batch_axis, 3, 3, "(pred, positive, negative)"), margin_(margin) {}

NDArray TripletLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray positive = ReshapeLike(in[1], pred);
  NDArray negative = ReshapeLike(in[2], pred);
  NDArray d = nd::elemwise_sub(nd::square(nd::elemwise_sub(positive, pred)),
                               nd::square(nd::elemwise_sub(negative, pred)));
  NDArray loss = nd::sum(d, {.axis = Shape{batch_axis_}, .exclude = true});
  loss = nd::relu(nd::plus_scalar(loss, margin_));
  return ApplyWeighting(loss, weight_, NDArray());
}

// ---- Poisson NLL. ----
PoissonNLLLoss::PoissonNLLLoss(std::optional<double> weight, bool from_logits, int batch_axis,
                               bool compute_full, double epsilon)
    : Loss(weight, batch_axis, 2, 3, "(pred, target[, sample_weight])"),
      from_logits_(from_logits),
      compute_full_(compute_full),
      epsilon_(epsilon) {}

NDArray PoissonNLLLoss::Compute(const NDArrayVec& in) {
  const NDArray& pred = in[0];
  NDArray target = ReshapeLike(in[1], pred);
  NDArray loss;
  if (from_logits_) {
    loss = nd::elemwise_sub(nd::exp(pred), nd::elemwise_mul(target, pred));
  } else {
    loss =
        nd::elemwise_sub(pred, nd::elemwise_mul(target, nd::log(nd::plus_scalar(pred, epsilon_))));
  }
  if (compute_full_) {
    // target log target - target + 0.5 log(2 pi target), kept where target > 1. Computed on
    // max(target, 1) so the masked-out entries are 0, not 0 * NaN (see the header).
    NDArray t = nd::maximum_scalar(target, 1.0);
    NDArray stirling =
        nd::elemwise_add(nd::elemwise_sub(nd::elemwise_mul(t, nd::log(t)), t),
                         nd::mul_scalar(nd::log(nd::mul_scalar(t, 2 * std::numbers::pi)), 0.5));
    stirling = nd::elemwise_mul(stirling, nd::greater_scalar(target, 1.0));
    loss = nd::elemwise_add(loss, stirling);
  }
  loss = ApplyWeighting(loss, weight_, Opt(in, 2));
  return nd::mean(loss);
}

// ---- Cosine embedding. ----
CosineEmbeddingLoss::CosineEmbeddingLoss(std::optional<double> weight, int batch_axis,
                                         double margin)
    : Loss(weight, batch_axis, 3, 4, "(input1, input2, label[, sample_weight])"), margin_(margin) {}

NDArray CosineEmbeddingLoss::operator()(const NDArray& input1, const NDArray& input2,
                                        const NDArray& label, const NDArray& sample_weight) {
  NDArrayVec in = {input1, input2, label};
  if (!sample_weight.is_none()) in.push_back(sample_weight);
  return (*this)(in)[0];
}

NDArray CosineEmbeddingLoss::Compute(const NDArrayVec& in) {
  const NDArray& x2 = in[1];
  NDArray x1 = ReshapeLike(in[0], x2);
  NDArray label = nd::reshape(in[2], {-1, 1});
  // cos = <x1, x2> / max(|x1| |x2|, 1e-12) along the last axis, as (batch, 1).
  NDArray n1 = nd::reshape(nd::norm(x1, {.axis = Shape{-1}}), {-1, 1});
  NDArray n2 = nd::reshape(nd::norm(x2, {.axis = Shape{-1}}), {-1, 1});
  NDArray dot = nd::reshape(nd::sum(nd::elemwise_mul(x1, x2), -1), {-1, 1});
  NDArray cos = nd::elemwise_div(dot, nd::maximum_scalar(nd::elemwise_mul(n1, n2), 1e-12));
  NDArray y_1 = nd::equal_scalar(label, 1);
  NDArray y_minus_1 = nd::equal_scalar(label, -1);
  NDArray a = nd::broadcast_mul(nd::rminus_scalar(cos, 1), y_1);
  // MXNet's broadcast_maximum(zeros((1, 1)), ...): ties give the zero its gradient, like relu.
  NDArray b = nd::relu(nd::broadcast_mul(y_minus_1, nd::minus_scalar(cos, margin_)));
  return ApplyWeighting(nd::broadcast_add(a, b), weight_, Opt(in, 3));
}

}  // namespace mxnet::gluon::loss
