#include "gluon/training/metric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon::metric {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void CheckCounts(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  if (labels.size() != preds.size())
    MX_THROW(kInvalid, "Shape of labels ", labels.size(), " does not match shape of predictions ",
             preds.size());
}

void CheckLength(int64_t label_len, int64_t pred_len) {
  if (label_len != pred_len)
    MX_THROW(kInvalid, "Shape of labels ", label_len, " does not match shape of predictions ",
             pred_len);
}

// Host values as double.
std::vector<double> Values(const NDArray& a, const char* what) {
  if (a.is_none()) MX_THROW(kInvalid, what, " is an empty NDArray");
  return a.ToVector<double>();
}

// numpy astype('int32') of a float: truncation toward zero.
int64_t ToInt(double v) { return static_cast<int64_t>(static_cast<int32_t>(v)); }

// argmax over `axis` (first maximum), as mx.nd.argmax.
std::vector<double> ArgMax(const NDArray& a, int axis) {
  const Shape& s = a.shape();
  int nd = s.ndim();
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd)
    MX_THROW(kInvalid, "argmax: axis ", axis, " is out of range for shape ", s.ToString());
  int64_t outer = 1, inner = 1, n = s[axis];
  for (int i = 0; i < axis; ++i) outer *= s[i];
  for (int i = axis + 1; i < nd; ++i) inner *= s[i];
  std::vector<double> v = Values(a, "prediction");
  std::vector<double> out(outer * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t best = 0;
      double bv = v[o * n * inner + in];
      for (int64_t k = 1; k < n; ++k) {
        double x = v[(o * n + k) * inner + in];
        if (x > bv) bv = x, best = k;
      }
      out[o * inner + in] = static_cast<double>(best);
    }
  return out;
}

// NumPy broadcasting of a and b (right-aligned); calls f(a_value, b_value) per output element.
template <typename F>
void Broadcast2(const std::vector<double>& a, Shape sa, const std::vector<double>& b, Shape sb,
                F f) {
  int nd = std::max(sa.ndim(), sb.ndim());
  std::vector<int64_t> da(nd, 1), db(nd, 1), out(nd);
  for (int i = 0; i < sa.ndim(); ++i) da[nd - sa.ndim() + i] = sa[i];
  for (int i = 0; i < sb.ndim(); ++i) db[nd - sb.ndim() + i] = sb[i];
  int64_t total = 1;
  for (int i = 0; i < nd; ++i) {
    if (da[i] != db[i] && da[i] != 1 && db[i] != 1)
      MX_THROW(kInvalid, "operands could not be broadcast together with shapes ", sa.ToString(),
               " ", sb.ToString());
    out[i] = std::max(da[i], db[i]);
    total *= out[i];
  }
  for (int64_t idx = 0; idx < total; ++idx) {
    int64_t rem = idx, ia = 0, ib = 0, sta = 1, stb = 1;
    for (int i = nd - 1; i >= 0; --i) {
      int64_t c = rem % out[i];
      rem /= out[i];
      if (da[i] != 1) ia += c * sta;
      if (db[i] != 1) ib += c * stb;
      sta *= da[i];
      stb *= db[i];
    }
    f(a[ia], b[ib]);
  }
}

// MAE/MSE/RMSE: per-pair mean of g(label - pred) over the broadcast elements.
template <typename G>
double PairMean(const NDArray& label, const NDArray& pred, G g) {
  Shape sl = label.shape(), sp = pred.shape();
  if (sl.ndim() == 1) sl = Shape{sl[0], 1};
  if (sp.ndim() == 1) sp = Shape{sp[0], 1};
  std::vector<double> l = Values(label, "label"), p = Values(pred, "prediction");
  double sum = 0;
  int64_t n = 0;
  Broadcast2(l, sl, p, sp, [&](double a, double b) {
    sum += g(a - b);
    ++n;
  });
  return n ? sum / static_cast<double>(n) : kNaN;
}

}  // namespace

// ---- EvalMetric ----
void EvalMetric::reset() { num_inst_ = sum_metric_ = global_num_inst_ = global_sum_metric_ = 0; }
void EvalMetric::reset_local() { num_inst_ = sum_metric_ = 0; }
std::vector<NameValue> EvalMetric::get() const {
  return {{name_, num_inst_ == 0 ? kNaN : sum_metric_ / num_inst_}};
}
std::vector<NameValue> EvalMetric::get_global() const {
  return {{name_, global_num_inst_ == 0 ? kNaN : global_sum_metric_ / global_num_inst_}};
}

// ---- Accuracy ----
Accuracy::Accuracy(int axis, std::string name) : EvalMetric(std::move(name)), axis_(axis) {}

void Accuracy::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    std::vector<double> pred = preds[i].shape() != labels[i].shape()
                                   ? ArgMax(preds[i], axis_)
                                   : Values(preds[i], "prediction");
    std::vector<double> label = Values(labels[i], "label");
    CheckLength(static_cast<int64_t>(label.size()), static_cast<int64_t>(pred.size()));
    double correct = 0;
    for (size_t k = 0; k < label.size(); ++k) correct += ToInt(pred[k]) == ToInt(label[k]);
    Accumulate(correct, static_cast<double>(pred.size()));
  }
}

// ---- TopKAccuracy ----
TopKAccuracy::TopKAccuracy(int top_k, std::string name)
    : EvalMetric(StrCat(name, "_", top_k)), top_k_(top_k) {
  if (top_k_ <= 1)
    MX_THROW(kInvalid, "Please use Accuracy if top_k is no more than 1 (got top_k=", top_k, ")");
}

void TopKAccuracy::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    const Shape& s = preds[i].shape();
    if (s.ndim() > 2) MX_THROW(kInvalid, "Predictions should be no more than 2 dims");
    if (s.ndim() != 2)
      MX_THROW(kInvalid, name_, ": predictions must be (batch, classes), got shape ", s.ToString());
    int64_t rows = s[0], classes = s[1];
    std::vector<double> label = Values(labels[i], "label");
    CheckLength(static_cast<int64_t>(label.size()), rows);
    // MXNet reads the scores as float32.
    std::vector<float> p = preds[i].ToVector<float>();
    int64_t k = std::min<int64_t>(classes, top_k_);
    double correct = 0;
    std::vector<int64_t> order(classes);
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = p.data() + r * classes;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return row[a] > row[b]; });
      int64_t want = ToInt(label[r]);
      for (int64_t j = 0; j < k; ++j) correct += order[j] == want;
    }
    Accumulate(correct, static_cast<double>(rows));
  }
}

// ---- F1 ----
double F1::Counts::precision() const { return tp + fp > 0 ? tp / (tp + fp) : 0.0; }
double F1::Counts::recall() const { return tp + fn > 0 ? tp / (tp + fn) : 0.0; }
double F1::Counts::fscore() const {
  double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

F1::F1(std::string name, std::string average)
    : EvalMetric(std::move(name)), average_(std::move(average)) {
  if (average_ != "macro" && average_ != "micro")
    MX_THROW(kInvalid, "F1: average must be 'macro' or 'micro', got '", average_, "'");
}

void F1::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    if (preds[i].ndim() != 2)
      MX_THROW(kInvalid, "F1: predictions must be (batch, classes), got shape ",
               preds[i].shape().ToString());
    std::vector<double> pred = ArgMax(preds[i], 1);
    std::vector<double> label = Values(labels[i], "label");
    CheckLength(static_cast<int64_t>(label.size()), preds[i].shape()[0]);
    std::set<int64_t> distinct;
    for (double l : label) distinct.insert(ToInt(l));
    if (distinct.size() > 2)
      MX_THROW(kInvalid, "F1 currently only supports binary classification.");
    Counts c;
    for (size_t k = 0; k < label.size(); ++k) {
      bool pt = static_cast<int64_t>(pred[k]) == 1, lt = ToInt(label[k]) == 1;
      c.tp += pt && lt;
      c.fp += pt && !lt;
      c.fn += !pt && lt;
      c.tn += !pt && !lt;
    }
    for (Counts* t : {&local_, &global_})
      t->tp += c.tp, t->fp += c.fp, t->fn += c.fn, t->tn += c.tn;
  }
  if (average_ == "macro") {
    sum_metric_ += local_.fscore();
    global_sum_metric_ += global_.fscore();
    num_inst_ += 1;
    global_num_inst_ += 1;
    local_ = Counts{};
    global_ = Counts{};  // MXNet's reset_stats() clears both after a macro update
  } else {
    sum_metric_ = local_.fscore() * local_.total();
    global_sum_metric_ = global_.fscore() * global_.total();
    num_inst_ = local_.total();
    global_num_inst_ = global_.total();
  }
}

void F1::reset() {
  EvalMetric::reset();
  local_ = global_ = Counts{};
}

void F1::reset_local() {
  EvalMetric::reset_local();
  local_ = Counts{};
}

// ---- MAE / MSE / RMSE ----
MAE::MAE(std::string name) : EvalMetric(std::move(name)) {}
MSE::MSE(std::string name) : EvalMetric(std::move(name)) {}
RMSE::RMSE(std::string name) : EvalMetric(std::move(name)) {}

void MAE::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i)
    Accumulate(PairMean(labels[i], preds[i], [](double d) { return std::fabs(d); }), 1);
}
void MSE::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i)
    Accumulate(PairMean(labels[i], preds[i], [](double d) { return d * d; }), 1);
}
void RMSE::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i)
    Accumulate(std::sqrt(PairMean(labels[i], preds[i], [](double d) { return d * d; })), 1);
}

// ---- CrossEntropy ----
CrossEntropy::CrossEntropy(double eps, std::string name) : EvalMetric(std::move(name)), eps_(eps) {}

void CrossEntropy::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckCounts(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    std::vector<double> label = Values(labels[i], "label");
    const Shape& s = preds[i].shape();
    if (s.ndim() != 2 || s[0] != static_cast<int64_t>(label.size()))
      MX_THROW(kInvalid, name_, ": predictions must be (", label.size(), ", classes) for ",
               label.size(), " labels, got shape ", s.ToString());
    std::vector<double> p = Values(preds[i], "prediction");
    double ce = 0;
    for (size_t r = 0; r < label.size(); ++r) {
      int64_t c = static_cast<int64_t>(label[r]);
      if (c < 0 || c >= s[1])
        MX_THROW(absl::StatusCode::kOutOfRange, name_, ": label ", label[r], " at ", r,
                 " is out of range for ", s[1], " classes");
      ce += -std::log(p[r * s[1] + c] + eps_);
    }
    Accumulate(ce, static_cast<double>(label.size()));
  }
}

// ---- Perplexity ----
Perplexity::Perplexity(std::optional<int64_t> ignore_label, int axis, std::string name)
    : EvalMetric(std::move(name)), ignore_label_(ignore_label), axis_(axis) {}

void Perplexity::update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  if (labels.size() != preds.size())
    MX_THROW(kInvalid, "Perplexity: ", labels.size(), " labels for ", preds.size(), " predictions");
  double loss = 0, num = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const Shape& s = preds[i].shape();
    if (s.ndim() < 1 || labels[i].size() * s[s.ndim() - 1] != preds[i].size())
      MX_THROW(kInvalid, "shape mismatch: ", labels[i].shape().ToString(), " vs. ", s.ToString());
    int axis = axis_ < 0 ? axis_ + s.ndim() : axis_;
    if (axis < 0 || axis >= s.ndim())
      MX_THROW(kInvalid, "Perplexity: axis ", axis_, " is out of range for shape ", s.ToString());
    int64_t outer = 1, inner = 1, n = s[axis];
    for (int d = 0; d < axis; ++d) outer *= s[d];
    for (int d = axis + 1; d < s.ndim(); ++d) inner *= s[d];
    std::vector<double> label = Values(labels[i], "label");
    std::vector<double> p = Values(preds[i], "prediction");
    if (static_cast<int64_t>(label.size()) != outer * inner)
      MX_THROW(kInvalid, "shape mismatch: ", labels[i].shape().ToString(), " vs. ", s.ToString());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        double l = label[o * inner + in];
        int64_t c = std::clamp<int64_t>(ToInt(l), 0, n - 1);  // pick's mode 'clip'
        double prob = p[(o * n + c) * inner + in];
        if (ignore_label_ && l == static_cast<double>(*ignore_label_)) {
          num -= 1;
          prob = 1.0;
        }
        loss -= std::log(std::max(1e-10, prob));
        num += 1;
      }
  }
  Accumulate(loss, num);
}

std::vector<NameValue> Perplexity::get() const {
  return {{name_, num_inst_ == 0 ? kNaN : std::exp(sum_metric_ / num_inst_)}};
}
std::vector<NameValue> Perplexity::get_global() const {
  return {{name_, global_num_inst_ == 0 ? kNaN : std::exp(global_sum_metric_ / global_num_inst_)}};
}

// ---- Loss ----
Loss::Loss(std::string name) : EvalMetric(std::move(name)) {}

void Loss::update(const std::vector<NDArray>&, const std::vector<NDArray>& preds) {
  for (const NDArray& p : preds) {
    std::vector<double> v = Values(p, "prediction");
    Accumulate(std::accumulate(v.begin(), v.end(), 0.0), static_cast<double>(v.size()));
  }
}

// ---- CompositeEvalMetric ----
CompositeEvalMetric::CompositeEvalMetric(std::vector<EvalMetricPtr> metrics, std::string name)
    : EvalMetric(std::move(name)) {
  for (auto& m : metrics) add(std::move(m));
}

void CompositeEvalMetric::add(EvalMetricPtr metric) {
  if (!metric) MX_THROW(kInvalid, "CompositeEvalMetric::add: null metric");
  metrics_.push_back(std::move(metric));
}

EvalMetricPtr CompositeEvalMetric::get_metric(size_t index) const {
  if (index >= metrics_.size())
    MX_THROW(absl::StatusCode::kOutOfRange, "Metric index ", index, " is out of range 0 and ",
             metrics_.size());
  return metrics_[index];
}

void CompositeEvalMetric::update(const std::vector<NDArray>& labels,
                                 const std::vector<NDArray>& preds) {
  for (auto& m : metrics_) m->update(labels, preds);
}
void CompositeEvalMetric::reset() {
  EvalMetric::reset();
  for (auto& m : metrics_) m->reset();
}
void CompositeEvalMetric::reset_local() {
  EvalMetric::reset_local();
  for (auto& m : metrics_) m->reset_local();
}
std::vector<NameValue> CompositeEvalMetric::get() const {
  std::vector<NameValue> out;
  for (const auto& m : metrics_)
    for (auto& nv : m->get()) out.push_back(std::move(nv));
  return out;
}
std::vector<NameValue> CompositeEvalMetric::get_global() const {
  std::vector<NameValue> out;
  for (const auto& m : metrics_)
    for (auto& nv : m->get_global()) out.push_back(std::move(nv));
  return out;
}

// ---- Create ----
EvalMetricPtr Create(const std::string& name, const Kwargs& kwargs) {
  std::string n = AsciiToLower(name);
  KwargReader kw(StrCat("metric '", name, "'"), kwargs);
  kw.Ignore("output_names");
  kw.Ignore("label_names");
  EvalMetricPtr m;
  if (n == "acc" || n == "accuracy") {
    int axis = static_cast<int>(kw.Int("axis", 1));
    m = std::make_shared<Accuracy>(axis, kw.String("name", "accuracy"));
  } else if (n == "top_k_accuracy" || n == "top_k_acc" || n == "topkaccuracy") {
    int k = static_cast<int>(kw.Int("top_k", 1));
    m = std::make_shared<TopKAccuracy>(k, kw.String("name", "top_k_accuracy"));
  } else if (n == "f1") {
    std::string nm = kw.String("name", "f1");
    m = std::make_shared<F1>(nm, kw.String("average", "macro"));
  } else if (n == "mae") {
    m = std::make_shared<MAE>(kw.String("name", "mae"));
  } else if (n == "mse") {
    m = std::make_shared<MSE>(kw.String("name", "mse"));
  } else if (n == "rmse") {
    m = std::make_shared<RMSE>(kw.String("name", "rmse"));
  } else if (n == "ce" || n == "crossentropy" || n == "cross-entropy") {
    double eps = kw.Double("eps", 1e-12);
    m = std::make_shared<CrossEntropy>(eps, kw.String("name", "cross-entropy"));
  } else if (n == "perplexity") {
    if (!kw.Has("ignore_label"))
      MX_THROW(kInvalid, "metric 'perplexity': missing required keyword argument 'ignore_label'");
    std::optional<int64_t> ignore = kw.OptInt("ignore_label");
    int axis = static_cast<int>(kw.Int("axis", -1));
    m = std::make_shared<Perplexity>(ignore, axis, kw.String("name", "perplexity"));
  } else if (n == "loss") {
    m = std::make_shared<Loss>(kw.String("name", "loss"));
  } else if (n == "composite" || n == "compositeevalmetric") {
    m = std::make_shared<CompositeEvalMetric>(std::vector<EvalMetricPtr>{},
                                              kw.String("name", "composite"));
  } else {
    MX_THROW(absl::StatusCode::kNotFound, "Metric '", name,
             "' is not registered (known: accuracy/acc, top_k_accuracy/top_k_acc, f1, mae, "
             "mse, rmse, cross-entropy/ce, perplexity, loss, composite)");
  }
  kw.Finish();
  return m;
}

}  // namespace mxnet::gluon::metric
