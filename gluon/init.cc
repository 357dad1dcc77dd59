#include "gluon/init.h"

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "ndarray/random.h"

namespace mxnet::gluon {
namespace {

void FillWith(const NDArray& arr, const std::vector<double>& v) {
  NDArray tmp = NDArray::FromVector(v, arr.shape(), cpu(), arr.dtype());
  tmp.copyto(arr);
}

template <typename Dist>
void FillRandom(const NDArray& arr, Dist dist) {
  std::vector<double> v(arr.size());
  {
    random::GeneratorGuard g(arr.device());
    for (auto& x : v) x = dist(g.gen());
  }
  FillWith(arr, v);
}

class ConstantInit final : public Initializer {
 public:
  ConstantInit(double v, std::string name) : v_(v), name_(std::move(name)) {}
  void InitWeight(const std::string&, const NDArray& arr) const override { arr.Fill(v_); }
  std::string dumps() const override {
    if (name_ == "constant") return StrCat("[\"constant\", {\"value\": ", v_, "}]");
    return StrCat("[\"", name_, "\", {}]");
  }

 private:
  double v_;
  std::string name_;
};

class UniformInit final : public Initializer {
 public:
  explicit UniformInit(double s) : s_(s) {}
  void InitWeight(const std::string&, const NDArray& arr) const override {
    FillRandom(arr, std::uniform_real_distribution<double>(-s_, s_));
  }
  std::string dumps() const override { return StrCat("[\"uniform\", {\"scale\": ", s_, "}]"); }

 private:
  double s_;
};

class NormalInit final : public Initializer {
 public:
  explicit NormalInit(double s) : s_(s) {}
  void InitWeight(const std::string&, const NDArray& arr) const override {
    FillRandom(arr, std::normal_distribution<double>(0, s_));
  }
  std::string dumps() const override { return StrCat("[\"normal\", {\"sigma\": ", s_, "}]"); }

 private:
  double s_;
};

class XavierInit final : public Initializer {
 public:
  XavierInit(std::string r, std::string f, double m) : rnd_(std::move(r)), factor_(std::move(f)), mag_(m) {
    if (rnd_ != "uniform" && rnd_ != "gaussian")
      MX_THROW(absl::StatusCode::kInvalidArgument, "Xavier: rnd_type must be 'uniform' or 'gaussian', got '",
               rnd_, "'");
    if (factor_ != "avg" && factor_ != "in" && factor_ != "out")
      MX_THROW(absl::StatusCode::kInvalidArgument, "Xavier: factor_type must be 'avg', 'in' or 'out', got '",
               factor_, "'");
  }
  void InitWeight(const std::string& name, const NDArray& arr) const override {
    const Shape& s = arr.shape();
    if (s.ndim() < 2)
      MX_THROW(absl::StatusCode::kInvalidArgument, "Xavier initializer cannot initialize '", name,
               "' of shape ", s.ToString(), ": it needs at least 2 dimensions");
    double hw = static_cast<double>(s.ProdRange(2, s.ndim()));
    double fan_in = s[1] * hw, fan_out = s[0] * hw;
    double factor = factor_ == "avg" ? (fan_in + fan_out) / 2 : factor_ == "in" ? fan_in : fan_out;
    double scale = std::sqrt(mag_ / factor);
    if (rnd_ == "uniform") FillRandom(arr, std::uniform_real_distribution<double>(-scale, scale));
    else FillRandom(arr, std::normal_distribution<double>(0, scale));
  }
  std::string dumps() const override {
    return StrCat("[\"xavier\", {\"rnd_type\": \"", rnd_, "\", \"factor_type\": \"", factor_,
                  "\", \"magnitude\": ", mag_, "}]");
  }

 private:
  std::string rnd_, factor_;
  double mag_;
};

}  // namespace

void Initializer::operator()(const std::string& name, const NDArray& arr) const {
  auto ends = [&](const char* s) { return EndsWith(name, s); };
  if (ends("bias") || ends("beta") || ends("running_mean") || ends("moving_mean")) {
    arr.Fill(0);
  } else if (ends("gamma") || ends("running_var") || ends("moving_var")) {
    arr.Fill(1);
  } else {
    InitWeight(name, arr);
  }
}

namespace init {
InitializerPtr Zero() { return std::make_shared<ConstantInit>(0, "zero"); }
InitializerPtr One() { return std::make_shared<ConstantInit>(1, "one"); }
InitializerPtr Constant(double v) { return std::make_shared<ConstantInit>(v, "constant"); }
InitializerPtr Uniform(double scale) { return std::make_shared<UniformInit>(scale); }
InitializerPtr Normal(double sigma) { return std::make_shared<NormalInit>(sigma); }
InitializerPtr Xavier(const std::string& r, const std::string& f, double m) {
  return std::make_shared<XavierInit>(r, f, m);
}

InitializerPtr Create(const std::string& spec) {
  std::string name = AsciiToLower(spec);
  nlohmann::json args = nlohmann::json::object();
  if (!spec.empty() && spec[0] == '[') {
    nlohmann::json j = nlohmann::json::parse(spec, nullptr, false);
    if (j.is_discarded() || !j.is_array() || j.empty() || !j[0].is_string())
      MX_THROW(absl::StatusCode::kInvalidArgument, "cannot parse initializer '", spec, "'");
    name = AsciiToLower(j[0].get<std::string>());
    if (j.size() > 1 && j[1].is_object()) args = j[1];
  }
  auto num = [&](const char* k, double d) { return args.contains(k) && args[k].is_number() ? args[k].get<double>() : d; };
  auto str = [&](const char* k, const char* d) { return args.contains(k) && args[k].is_string() ? args[k].get<std::string>() : std::string(d); };
  if (name == "zeros" || name == "zero") return Zero();
  if (name == "ones" || name == "one") return One();
  if (name == "constant") return Constant(num("value", 0));
  if (name == "uniform") return Uniform(num("scale", 0.07));
  if (name == "normal") return Normal(num("sigma", 0.01));
  if (name == "xavier") return Xavier(str("rnd_type", "uniform"), str("factor_type", "avg"), num("magnitude", 3));
  MX_THROW(absl::StatusCode::kInvalidArgument, "unknown initializer '", spec,
           "' (known: zeros, ones, constant, uniform, normal, xavier)");
}
}  // namespace init

}  // namespace mxnet::gluon
