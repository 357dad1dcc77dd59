// Evaluation metrics (mxnet.metric / gluon.metric in MXNet 1.9.1): Accuracy, TopKAccuracy, F1,
// MAE, MSE, RMSE, CrossEntropy, Perplexity, Loss and CompositeEvalMetric, with MXNet's names,
// defaults and accumulation rules.
//
//   metric::Accuracy acc;
//   acc.update({label}, {pred});           // lists of arrays, as MXNet (one pair per output)
//   auto [name, value] = acc.get()[0];     // ("accuracy", 0.75)
//
// get() returns (name, value) pairs: one pair for a simple metric, one per child for a
// composite (MXNet's get() returns a (name, value) tuple or two lists; get_name_value() pairs).
// A metric without data gives NaN. get_global()/reset_local() keep MXNet's global statistics
// (accumulated until reset(), while reset_local() clears only the local ones).
// Arrays may live on any device; they are read on the host (MXNet calls asnumpy()).
// Errors (mismatched numbers of labels and predictions or shapes, non-binary labels for F1, ...)
// throw mxnet::Error(kInvalidArgument) with MXNet's messages. Not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gluon/training/kwargs.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::metric {

using NameValue = std::pair<std::string, double>;

class EvalMetric {
 public:
  explicit EvalMetric(std::string name) : name_(std::move(name)) {}
  virtual ~EvalMetric() = default;

  const std::string& name() const { return name_; }
  // Accumulates one batch: labels[i] goes with preds[i].
  virtual void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) = 0;
  // One label/prediction pair.
  void update(const NDArray& label, const NDArray& pred) {
    update(std::vector<NDArray>{label}, std::vector<NDArray>{pred});
  }
  // Clears local and global statistics.
  virtual void reset();
  // Clears the local statistics only.
  virtual void reset_local();
  virtual std::vector<NameValue> get() const;
  virtual std::vector<NameValue> get_global() const;

  double num_inst() const { return num_inst_; }
  double sum_metric() const { return sum_metric_; }

 protected:
  std::string name_;
  double num_inst_ = 0, sum_metric_ = 0;
  double global_num_inst_ = 0, global_sum_metric_ = 0;
  // Adds to both local and global statistics.
  void Accumulate(double sum, double num) {
    sum_metric_ += sum, global_sum_metric_ += sum;
    num_inst_ += num, global_num_inst_ += num;
  }
};
using EvalMetricPtr = std::shared_ptr<EvalMetric>;

// "accuracy" (alias "acc"): predictions whose shape differs from the label's are reduced by
// argmax over `axis` (default 1); labels and predicted classes are compared as int32.
class Accuracy : public EvalMetric {
 public:
  explicit Accuracy(int axis = 1, std::string name = "accuracy");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;

 private:
  int axis_;
};

// "top_k_accuracy" ("top_k_acc"): a sample counts when its label is among the top_k scores of
// its (batch, classes) prediction row. top_k must be > 1 (use Accuracy otherwise). The name is
// "<name>_<top_k>" ("top_k_accuracy_5"). Ties are broken toward the lower class index (MXNet's
// numpy.argpartition leaves them unspecified). 1-D predictions are rejected.
class TopKAccuracy : public EvalMetric {
 public:
  explicit TopKAccuracy(int top_k = 1, std::string name = "top_k_accuracy");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;

 private:
  int top_k_;
};

// "f1": binary F1 of argmax(pred, axis 1) against labels (class 1 positive; more than two label
// values is an error). average "macro" (default): the mean of per-update F1 scores;
// "micro": F1 of the statistics pooled over all updates.
class F1 : public EvalMetric {
 public:
  explicit F1(std::string name = "f1", std::string average = "macro");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
  void reset() override;
  void reset_local() override;

 private:
  struct Counts {
    double tp = 0, fp = 0, fn = 0, tn = 0;
    double precision() const;
    double recall() const;
    double fscore() const;
    double total() const { return tp + fp + fn + tn; }
  };
  std::string average_;
  Counts local_, global_;
};

// "mae", "mse", "rmse": per update and per label/prediction pair, the mean absolute error, mean
// squared error or its square root over all elements (1-D arrays are treated as (n, 1) and the
// two are broadcast like NumPy); the metric is the mean of those per-pair values.
class MAE : public EvalMetric {
 public:
  explicit MAE(std::string name = "mae");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
};
class MSE : public EvalMetric {
 public:
  explicit MSE(std::string name = "mse");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
};
class RMSE : public EvalMetric {
 public:
  explicit RMSE(std::string name = "rmse");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
};

// "cross-entropy" (registered "crossentropy", alias "ce"): mean of -log(p[label] + eps) over
// samples, for (batch, classes) probabilities.
class CrossEntropy : public EvalMetric {
 public:
  explicit CrossEntropy(double eps = 1e-12, std::string name = "cross-entropy");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;

 private:
  double eps_;
};

// "perplexity": exp of the mean of -log(max(1e-10, p[label])) over samples whose label is not
// ignore_label (None: none ignored); p is picked along `axis` (default -1) with the label
// clipped to the valid class range, as mx.nd.pick.
class Perplexity : public EvalMetric {
 public:
  explicit Perplexity(std::optional<int64_t> ignore_label, int axis = -1,
                      std::string name = "perplexity");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
  std::vector<NameValue> get() const override;
  std::vector<NameValue> get_global() const override;

 private:
  std::optional<int64_t> ignore_label_;
  int axis_;
};

// "loss": the mean of the prediction elements (labels are ignored), e.g. of per-sample losses.
class Loss : public EvalMetric {
 public:
  explicit Loss(std::string name = "loss");
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
};

// "composite": runs several metrics on the same labels and predictions; get() concatenates
// their pairs.
class CompositeEvalMetric : public EvalMetric {
 public:
  explicit CompositeEvalMetric(std::vector<EvalMetricPtr> metrics = {},
                               std::string name = "composite");
  void add(EvalMetricPtr metric);
  // The child at `index` (kOutOfRange when there is none).
  EvalMetricPtr get_metric(size_t index) const;
  const std::vector<EvalMetricPtr>& metrics() const { return metrics_; }
  void update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  using EvalMetric::update;
  void reset() override;
  void reset_local() override;
  std::vector<NameValue> get() const override;
  std::vector<NameValue> get_global() const override;

 private:
  std::vector<EvalMetricPtr> metrics_;
};

// mx.metric.create: by registered name or alias, case-insensitive ("acc", "accuracy",
// "top_k_accuracy"/"top_k_acc"/"topkaccuracy", "f1", "mae", "mse", "rmse",
// "ce"/"crossentropy"/"cross-entropy", "perplexity", "loss", "composite"/"compositeevalmetric")
// with the class's keyword arguments (axis, top_k, average, eps, ignore_label, name).
// kNotFound for unknown names, kInvalidArgument for bad kwargs.
EvalMetricPtr Create(const std::string& name, const Kwargs& kwargs = {});

}  // namespace mxnet::gluon::metric
