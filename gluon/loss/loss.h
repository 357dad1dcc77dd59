// Loss functions (mxnet.gluon.loss), as HybridBlocks with MXNet 1.9.1's semantics.
//
//   loss::SoftmaxCrossEntropyLoss ce;
//   NDArray l = ce(pred, label);                  // (batch,): one loss per sample
//   NDArray lw = ce(pred, label, sample_weight);  // sample_weight broadcasts against the loss
//
// Every loss is a composition of registered ops, so gradients flow to the prediction (and to
// labels/weights that have gradients attached) and hybridize() traces it into one graph.
// Inputs are passed in MXNet's order: {pred, label[, sample_weight]} through Block's vector
// call, or with the typed operator() below. Labels are reshaped to the prediction's shape
// (reshape_like) where MXNet does so.
//
// Common arguments (MXNet's Loss base class):
//   weight      global scalar weight multiplied into the loss (std::nullopt: none, MXNet's None)
//   batch_axis  the axis that holds the samples; the loss is averaged (or summed, KLDivLoss) over
//               every other axis, leaving shape (batch,)
// _apply_weighting: loss = broadcast_mul(loss, sample_weight) when given, then loss * weight.
//
// Output shapes differ where MXNet's do: TripletLoss (batch,), CosineEmbeddingLoss (batch, 1),
// PoissonNLLLoss (1,) (the mean over every element).
#pragma once

#include <optional>
#include <string>

#include "gluon/block.h"

namespace mxnet::gluon::loss {

class Loss : public HybridBlock {
 public:
  // (pred, label) or (pred, label, sample_weight); a none sample_weight is left out.
  NDArray operator()(const NDArray& pred, const NDArray& label,
                     const NDArray& sample_weight = NDArray());
  using Block::operator();
  NDArrayVec forward(const NDArrayVec& inputs) final;

  const std::optional<double>& weight() const { return weight_; }
  int batch_axis() const { return batch_axis_; }

 protected:
  // min_inputs..max_inputs: how many inputs forward accepts (checked with an error naming the
  // loss and the expected inputs, `signature`, e.g. "(pred, label[, sample_weight])").
  Loss(std::optional<double> weight, int batch_axis, int min_inputs, int max_inputs,
       std::string signature);
  // The loss of validated inputs.
  virtual NDArray Compute(const NDArrayVec& in) = 0;
  // "batch_axis=0, w=None" (MXNet's Loss.__repr__).
  std::string repr_args() const override;

  // MXNet's _apply_weighting (sample_weight may be none).
  static NDArray ApplyWeighting(NDArray loss, std::optional<double> weight,
                                const NDArray& sample_weight);
  // mean(loss, axis=batch_axis, exclude=True).
  NDArray MeanOverNonBatch(const NDArray& loss) const;
  // The input at i, or none when absent.
  static NDArray Opt(const NDArrayVec& in, size_t i) { return i < in.size() ? in[i] : NDArray(); }

  std::optional<double> weight_;
  int batch_axis_;

 private:
  int min_inputs_, max_inputs_;
  std::string signature_;
};

// Mean absolute error: mean(|label - pred|).
class L1Loss : public Loss {
 public:
  explicit L1Loss(std::optional<double> weight = std::nullopt, int batch_axis = 0);
  std::string class_name() const override { return "L1Loss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;
};

// Half the mean squared error: mean(0.5 * weight * (label - pred)^2) (weight default 1).
class L2Loss : public Loss {
 public:
  explicit L2Loss(double weight = 1.0, int batch_axis = 0);
  std::string class_name() const override { return "L2Loss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;
};

// Binary cross-entropy with a built-in sigmoid (numerically stable form
// relu(x) - x*z + log(1 + exp(-|x|))), or on probabilities when from_sigmoid
// (-(log(p + 1e-12) z + log(1 - p + 1e-12) (1 - z))). Inputs: (pred, label[, sample_weight
// [, pos_weight]]); pos_weight (broadcast to label) scales the positive term. To pass pos_weight
// without sample weights, use the typed call below (it passes a weight of ones).
class SigmoidBinaryCrossEntropyLoss : public Loss {
 public:
  explicit SigmoidBinaryCrossEntropyLoss(bool from_sigmoid = false,
                                         std::optional<double> weight = std::nullopt,
                                         int batch_axis = 0);
  using Loss::operator();
  NDArray operator()(const NDArray& pred, const NDArray& label, const NDArray& sample_weight,
                     const NDArray& pos_weight);
  std::string class_name() const override { return "SigmoidBinaryCrossEntropyLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  bool from_sigmoid_;
};
using SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss;

// Softmax cross-entropy along `axis`: -log_softmax(pred)[label] for sparse (class index) labels,
// -sum(log_softmax(pred) * label, axis) for dense ones (label reshaped to pred's shape).
// from_logits: pred already holds log-probabilities. Result averaged over non-batch axes.
class SoftmaxCrossEntropyLoss : public Loss {
 public:
  explicit SoftmaxCrossEntropyLoss(int axis = -1, bool sparse_label = true,
                                   bool from_logits = false,
                                   std::optional<double> weight = std::nullopt, int batch_axis = 0);
  std::string class_name() const override { return "SoftmaxCrossEntropyLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  int axis_;
  bool sparse_label_, from_logits_;
};
using SoftmaxCELoss = SoftmaxCrossEntropyLoss;

// Kullback-Leibler divergence: sum(label * (log(label + 1e-12) - pred)) over non-batch axes
// (MXNet 1.9.1 sums). from_logits (default true): pred holds log-probabilities; otherwise
// log_softmax is applied along `axis`.
class KLDivLoss : public Loss {
 public:
  explicit KLDivLoss(bool from_logits = true, int axis = -1,
                     std::optional<double> weight = std::nullopt, int batch_axis = 0);
  std::string class_name() const override { return "KLDivLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  bool from_logits_;
  int axis_;
};

// Smoothed L1: |d| - rho/2 where |d| > rho, else d^2 / (2 rho), with d = label - pred.
class HuberLoss : public Loss {
 public:
  explicit HuberLoss(double rho = 1, std::optional<double> weight = std::nullopt,
                     int batch_axis = 0);
  std::string class_name() const override { return "HuberLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  double rho_;
};

// max(0, margin - pred * label) for labels in {-1, 1}.
class HingeLoss : public Loss {
 public:
  explicit HingeLoss(double margin = 1, std::optional<double> weight = std::nullopt,
                     int batch_axis = 0);
  std::string class_name() const override { return "HingeLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  double margin_;
};

// max(0, margin - pred * label)^2.
class SquaredHingeLoss : public Loss {
 public:
  explicit SquaredHingeLoss(double margin = 1, std::optional<double> weight = std::nullopt,
                            int batch_axis = 0);
  std::string class_name() const override { return "SquaredHingeLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  double margin_;
};

// log(1 + exp(-pred * label)) in the stable form; label_format "signed" (labels -1/1, default)
// or "binary" (0/1). Any other format is kInvalidArgument.
class LogisticLoss : public Loss {
 public:
  explicit LogisticLoss(std::optional<double> weight = std::nullopt, int batch_axis = 0,
                        std::string label_format = "signed");
  std::string class_name() const override { return "LogisticLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  std::string label_format_;
};

// max(0, sum(|pos - pred|^2 - |neg - pred|^2 over non-batch axes) + margin). Inputs: (pred,
// positive, negative); no sample_weight (as MXNet). Output (batch,).
class TripletLoss : public Loss {
 public:
  explicit TripletLoss(double margin = 1, std::optional<double> weight = std::nullopt,
                       int batch_axis = 0);
  std::string class_name() const override { return "TripletLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  double margin_;
};

// Poisson negative log likelihood, averaged over every element (output (1,)):
// from_logits: exp(pred) - target * pred; else pred - target * log(pred + epsilon).
// compute_full adds Stirling's term target log target - target + log(2 pi target) / 2 where
// target > 1. (MXNet 1.9.1 multiplies the term by the mask, which gives NaN for target 0; here the
// term is computed on max(target, 1), so masked entries are exactly 0 and values match MXNet
// wherever MXNet's are finite.)
class PoissonNLLLoss : public Loss {
 public:
  explicit PoissonNLLLoss(std::optional<double> weight = std::nullopt, bool from_logits = true,
                          int batch_axis = 0, bool compute_full = false, double epsilon = 1e-08);
  std::string class_name() const override { return "PoissonNLLLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  bool from_logits_, compute_full_;
  double epsilon_;
};

// Cosine embedding loss on (input1, input2, label[, sample_weight]) with label 1 (similar) or -1
// (dissimilar): 1 - cos(x1, x2) for label 1, max(0, cos(x1, x2) - margin) for -1, 0 otherwise.
// cos along the last axis, with the norm product clamped to >= 1e-12. Output (batch, 1).
class CosineEmbeddingLoss : public Loss {
 public:
  explicit CosineEmbeddingLoss(std::optional<double> weight = std::nullopt, int batch_axis = 0,
                               double margin = 0);
  // (input1, input2, label[, sample_weight]).
  NDArray operator()(const NDArray& input1, const NDArray& input2, const NDArray& label,
                     const NDArray& sample_weight = NDArray());
  using Block::operator();
  std::string class_name() const override { return "CosineEmbeddingLoss"; }

 protected:
  NDArray Compute(const NDArrayVec& in) override;

 private:
  double margin_;
};

}  // namespace mxnet::gluon::loss
