// Metrics vs real MXNet 1.9.1 (testdata/metrics.json: values after each update on fixed
// predictions, global values, registered names), plus formulas and errors.
#include "gluon/training/metric.h"

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/error.h"

namespace mxnet::gluon::metric {
namespace {

using json = nlohmann::json;

NDArray FromJson(const json& j) {
  std::vector<int64_t> dims = j["shape"].get<std::vector<int64_t>>();
  DType t = ValueOrThrow(DTypeFromName(j["dtype"].get<std::string>()));
  return NDArray::FromVector(j["data"].get<std::vector<double>>(), Shape(dims), cpu(), t);
}

Kwargs ToKwargs(const json& kw) {
  Kwargs out;
  for (auto& [k, v] : kw.items()) {
    if (v.is_null())
      out.emplace(k, None);
    else if (v.is_string())
      out.emplace(k, v.get<std::string>());
    else if (v.is_number_integer())
      out.emplace(k, v.get<int64_t>());
    else
      out.emplace(k, v.get<double>());
  }
  return out;
}

void ExpectValues(const std::vector<NameValue>& got, const json& want) {
  ASSERT_EQ(got.size(), want["names"].size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want["names"][i].get<std::string>());
    double w = want["values"][i].get<double>();
    EXPECT_NEAR(got[i].second, w, 2e-6 * (1 + std::fabs(w))) << got[i].first;
  }
}

TEST(MetricConformance, ValuesMatchMxnet) {
  std::ifstream f("gluon/training/testdata/metrics.json");
  ASSERT_TRUE(f.good()) << "missing gluon/training/testdata/metrics.json";
  json doc = json::parse(f);
  int n = 0;
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    EvalMetricPtr m;
    if (c["metric"] == "CompositeEvalMetric") {
      auto comp = std::make_shared<CompositeEvalMetric>();
      comp->add(Create("accuracy"));
      comp->add(Create("top_k_accuracy", {{"top_k", 2}}));
      comp->add(Create("ce"));
      m = comp;
    } else {
      m = Create(AsciiToLower(c["metric"].get<std::string>()), ToKwargs(c["kwargs"]));
    }
    for (size_t b = 0; b < c["batches"].size(); ++b) {
      std::vector<NDArray> labels, preds;
      for (const json& j : c["batches"][b]["labels"]) labels.push_back(FromJson(j));
      for (const json& j : c["batches"][b]["preds"]) preds.push_back(FromJson(j));
      m->update(labels, preds);
      ExpectValues(m->get(), c["values"][b]);
    }
    if (c.contains("global")) ExpectValues(m->get_global(), c["global"]);
    ++n;
  }
  EXPECT_GE(n, 15);
  for (auto& [name, want] : doc["names"].items()) {
    Kwargs kw;
    if (name == "top_k_accuracy") kw.emplace("top_k", 5);
    if (name == "top_k_acc") kw.emplace("top_k", 2);
    if (name == "perplexity") kw.emplace("ignore_label", None);
    EXPECT_EQ(Create(name, kw)->name(), want.get<std::string>()) << name;
  }
}

NDArray F(std::vector<float> v, Shape s) { return NDArray::FromVector(v, s); }

TEST(Metric, AccuracyResetAndGlobal) {
  Accuracy acc;
  EXPECT_TRUE(std::isnan(acc.get()[0].second));
  acc.update(F({0, 1}, {2}), F({0.9f, 0.1f, 0.2f, 0.8f}, {2, 2}));
  EXPECT_DOUBLE_EQ(acc.get()[0].second, 1.0);
  acc.reset_local();
  acc.update(F({0, 1}, {2}), F({0.1f, 0.9f, 0.2f, 0.8f}, {2, 2}));
  EXPECT_DOUBLE_EQ(acc.get()[0].second, 0.5);
  EXPECT_DOUBLE_EQ(acc.get_global()[0].second, 0.75);
  acc.reset();
  EXPECT_TRUE(std::isnan(acc.get_global()[0].second));
}

TEST(Metric, F1MacroVsMicro) {
  // Batch 1: tp 1, fp 1, fn 0 -> F1 2/3; batch 2: tp 1, fn 1 -> F1 2/3; pooled: tp 2, fp 1, fn 1.
  F1 macro, micro("f1", "micro");
  for (EvalMetric* m : std::vector<EvalMetric*>{&macro, &micro}) {
    m->update(F({1, 0}, {2}), F({0.1f, 0.9f, 0.2f, 0.8f}, {2, 2}));
    m->update(F({1, 1}, {2}), F({0.1f, 0.9f, 0.8f, 0.2f}, {2, 2}));
  }
  EXPECT_NEAR(macro.get()[0].second, 2.0 / 3, 1e-12);
  EXPECT_NEAR(micro.get()[0].second, 2.0 / 3, 1e-12);
  EXPECT_THROW(macro.update(F({0, 1, 2}, {3}), F({1, 0, 0, 1, 1, 0}, {3, 2})), Error);
  EXPECT_THROW(F1("f1", "weighted"), Error);
}

TEST(Metric, PerplexityIgnoresLabel) {
  Perplexity p(/*ignore_label=*/0);
  p.update(F({0, 1}, {2}), F({0.5f, 0.5f, 0.75f, 0.25f}, {2, 2}));
  EXPECT_NEAR(p.get()[0].second, 4.0, 1e-6);  // only the second sample: exp(-log 0.25)
}

TEST(Metric, RegressionBroadcastsLikeNumpy) {
  MSE mse;
  mse.update(F({1, 2}, {2}), F({0, 0, 0, 0, 0, 0}, {2, 3}));  // (2,1) vs (2,3)
  EXPECT_NEAR(mse.get()[0].second, (3 * 1 + 3 * 4) / 6.0, 1e-12);
  EXPECT_THROW(mse.update(F({1, 2, 3}, {3}), F({1, 2}, {2})), Error);
}

TEST(Metric, ErrorsAndFactory) {
  Accuracy acc;
  EXPECT_THROW(acc.update(std::vector<NDArray>{F({1}, {1})}, std::vector<NDArray>{}), Error);
  EXPECT_THROW(TopKAccuracy(1), Error);
  EXPECT_THROW(Create("perplexity"), Error);  // ignore_label is required, as in MXNet
  try {
    Create("auc");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kNotFound);
  }
  EXPECT_THROW(Create("acc", {{"topk", 3}}), Error);
  EXPECT_EQ(Create("ACC")->name(), "accuracy");
  CompositeEvalMetric comp;
  EXPECT_THROW(comp.get_metric(0), Error);
  Loss loss;
  loss.update({}, {F({1, 2, 3}, {3})});
  EXPECT_DOUBLE_EQ(loss.get()[0].second, 2.0);
}

}  // namespace
}  // namespace mxnet::gluon::metric
