#include "gluon/init.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "ndarray/params.h"
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

class XavierInit : public Initializer {
 public:
  XavierInit(std::string r, std::string f, double m)
      : rnd_(std::move(r)), factor_(std::move(f)), mag_(m) {
    if (rnd_ != "uniform" && rnd_ != "gaussian")
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "Xavier: rnd_type must be 'uniform' or 'gaussian', got '", rnd_, "'");
    if (factor_ != "avg" && factor_ != "in" && factor_ != "out")
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "Xavier: factor_type must be 'avg', 'in' or 'out', got '", factor_, "'");
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
    if (rnd_ == "uniform")
      FillRandom(arr, std::uniform_real_distribution<double>(-scale, scale));
    else
      FillRandom(arr, std::normal_distribution<double>(0, scale));
  }
  std::string dumps() const override {
    return StrCat("[\"xavier\", {\"rnd_type\": \"", rnd_, "\", \"factor_type\": \"", factor_,
                  "\", \"magnitude\": ", mag_, "}]");
  }

 private:
  std::string rnd_, factor_;
  double mag_;
};

class MSRAPreluInit final : public XavierInit {
 public:
  MSRAPreluInit(std::string f, double slope)
      : XavierInit("gaussian", f, 2.0 / (1 + slope * slope)),
        factor_(std::move(f)),
        slope_(slope) {}
  std::string dumps() const override {
    return StrCat("[\"msraprelu\", {\"factor_type\": \"", factor_,
                  "\", \"slope\": ", PyFloatRepr(slope_), "}]");
  }

 private:
  std::string factor_;
  double slope_;
};

// Orthonormalizes the columns of the column-major m x n matrix `a` (m >= n) in place by one-sided
// Jacobi rotations: at convergence a = U diag(s), and the normalized columns are the left
// singular vectors U of the input (Hestenes 1958; Demmel & Veselic 1992).
void OrthonormalColumns(std::vector<double>& a, int64_t m, int64_t n) {
  auto col = [&](int64_t j) { return a.data() + j * m; };
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double* x = col(p);
        double* y = col(q);
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += x[i] * x[i];
          beta += y[i] * y[i];
          gamma += x[i] * y[i];
        }
        if (alpha == 0 || beta == 0) continue;
        double c_rel = std::abs(gamma) / std::sqrt(alpha * beta);
        off = std::max(off, c_rel);
        if (c_rel < 1e-15) continue;
        double zeta = (beta - alpha) / (2 * gamma);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (int64_t i = 0; i < m; ++i) {
          double xi = x[i], yi = y[i];
          x[i] = c * xi - s * yi;
          y[i] = s * xi + c * yi;
        }
      }
    }
    if (off < 1e-14) break;
  }
  for (int64_t j = 0; j < n; ++j) {
    double* x = col(j);
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += x[i] * x[i];
    norm = std::sqrt(norm);
    if (norm > 0)
      for (int64_t i = 0; i < m; ++i) x[i] /= norm;
  }
}

class OrthogonalInit final : public Initializer {
 public:
  OrthogonalInit(double scale, std::string rand_type) : scale_(scale), rand_(std::move(rand_type)) {
    if (rand_ != "uniform" && rand_ != "normal")
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "Orthogonal: rand_type must be 'uniform' or 'normal', got '", rand_, "'");
  }
  void InitWeight(const std::string& name, const NDArray& arr) const override {
    const Shape& s = arr.shape();
    if (s.ndim() < 2)
      MX_THROW(absl::StatusCode::kInvalidArgument, "Orthogonal initializer cannot initialize '",
               name, "' of shape ", s.ToString(), ": it needs at least 2 dimensions");
    int64_t nout = s[0], nin = s.ProdRange(1, s.ndim());
    // tmp (nout, nin) row-major, as MXNet draws it.
    std::vector<double> tmp(static_cast<size_t>(nout * nin));
    {
      random::GeneratorGuard g(arr.device());
      if (rand_ == "uniform") {
        std::uniform_real_distribution<double> d(-1.0, 1.0);
        for (auto& x : tmp) x = d(g.gen());
      } else {
        std::normal_distribution<double> d(0.0, 1.0);
        for (auto& x : tmp) x = d(g.gen());
      }
    }
    // The factor of tmp's shape: U (nout, nin) when nout >= nin, else V^T (nout, nin). Both are
    // the orthonormalized columns of the tall one of tmp / tmp^T. Column-major tall m x n:
    bool tall = nout >= nin;
    int64_t m = tall ? nout : nin, n = tall ? nin : nout;
    std::vector<double> a(tmp.size());
    for (int64_t r = 0; r < nout; ++r)
      for (int64_t c = 0; c < nin; ++c) {
        double v = tmp[r * nin + c];
        if (tall)
          a[c * m + r] = v;  // column c of tmp
        else
          a[r * m + c] = v;  // column r of tmp^T
      }
    OrthonormalColumns(a, m, n);
    std::vector<double> out(tmp.size());
    for (int64_t r = 0; r < nout; ++r)
      for (int64_t c = 0; c < nin; ++c)
        out[r * nin + c] = scale_ * (tall ? a[c * m + r] : a[r * m + c]);
    FillWith(arr, out);
  }
  std::string dumps() const override {
    return StrCat("[\"orthogonal\", {\"scale\": ", PyFloatRepr(scale_), ", \"rand_type\": \"",
                  rand_, "\"}]");
  }

 private:
  double scale_;
  std::string rand_;
};

class BilinearInit final : public Initializer {
 public:
  void InitWeight(const std::string& name, const NDArray& arr) const override {
    const Shape& s = arr.shape();
    if (s.ndim() != 4)
      MX_THROW(absl::StatusCode::kInvalidArgument, "Bilinear initializer cannot initialize '", name,
               "' of shape ", s.ToString(), ": it needs 4 dimensions (C, 1, H, W)");
    std::vector<double> w(static_cast<size_t>(s.Size()));
    // MXNet's float arithmetic: f = ceil(W / 2.), c = (2f - 1 - f % 2) / (2f), in float64, then
    // stored as float32.
    double f = std::ceil(s[3] / 2.0);
    double c = (2 * f - 1 - std::fmod(f, 2.0)) / (2.0 * f);
    for (int64_t i = 0; i < static_cast<int64_t>(w.size()); ++i) {
      double x = static_cast<double>(i % s[3]);
      double y = static_cast<double>((i / s[3]) % s[2]);
      w[i] = static_cast<float>((1 - std::abs(x / f - c)) * (1 - std::abs(y / f - c)));
    }
    FillWith(arr, w);
  }
  std::string dumps() const override { return "[\"bilinear\", {}]"; }
};

class MixedInit final : public Initializer {
 public:
  MixedInit(const std::vector<std::string>& patterns, const std::vector<InitializerPtr>& inits) {
    if (patterns.size() != inits.size())
      MX_THROW(absl::StatusCode::kInvalidArgument, "Mixed: got ", patterns.size(), " patterns but ",
               inits.size(), " initializers; they must pair up");
    for (size_t i = 0; i < patterns.size(); ++i) {
      auto re = std::make_shared<RE2>(patterns[i], RE2::Quiet);
      if (!re->ok())
        MX_THROW(absl::StatusCode::kInvalidArgument, "Mixed: bad regular expression '", patterns[i],
                 "': ", re->error());
      if (!inits[i])
        MX_THROW(absl::StatusCode::kInvalidArgument, "Mixed: initializer ", i, " (for '",
                 patterns[i], "') is null");
      map_.push_back({patterns[i], std::move(re), inits[i]});
    }
  }
  void operator()(const std::string& name, const NDArray& arr) const override {
    (*Pick(name))(name, arr);
  }
  void InitWeight(const std::string& name, const NDArray& arr) const override {
    Pick(name)->InitWeight(name, arr);
  }
  std::string dumps() const override {
    nlohmann::json pats = nlohmann::json::array(), inits = nlohmann::json::array();
    for (const auto& e : map_) {
      pats.push_back(e.pattern);
      nlohmann::json j = nlohmann::json::parse(e.init->dumps(), nullptr, false);
      inits.push_back(j.is_discarded() ? nlohmann::json(e.init->dumps()) : j);
    }
    return nlohmann::json::array({"mixed", {{"patterns", pats}, {"initializers", inits}}}).dump();
  }

 private:
  const InitializerPtr& Pick(const std::string& name) const {
    for (const auto& e : map_)
      if (e.re->Match(name, 0, name.size(), RE2::ANCHOR_START, nullptr, 0)) return e.init;
    MX_THROW(
        absl::StatusCode::kInvalidArgument, "Mixed: parameter name '", name,
        "' did not match any pattern; add a \".*\" pattern at the end with a default initializer");
  }
  struct Entry {
    std::string pattern;
    std::shared_ptr<RE2> re;
    InitializerPtr init;
  };
  std::vector<Entry> map_;
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

InitializerPtr Orthogonal(double scale, const std::string& rand_type) {
  return std::make_shared<OrthogonalInit>(scale, rand_type);
}
InitializerPtr MSRAPrelu(const std::string& factor_type, double slope) {
  return std::make_shared<MSRAPreluInit>(factor_type, slope);
}
InitializerPtr Bilinear() { return std::make_shared<BilinearInit>(); }
InitializerPtr Mixed(const std::vector<std::string>& patterns,
                     const std::vector<InitializerPtr>& initializers) {
  return std::make_shared<MixedInit>(patterns, initializers);
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
  auto num = [&](const char* k, double d) {
    return args.contains(k) && args[k].is_number() ? args[k].get<double>() : d;
  };
  auto str = [&](const char* k, const char* d) {
    return args.contains(k) && args[k].is_string() ? args[k].get<std::string>() : std::string(d);
  };
  if (name == "zeros" || name == "zero") return Zero();
  if (name == "ones" || name == "one") return One();
  if (name == "constant") return Constant(num("value", 0));
  if (name == "uniform") return Uniform(num("scale", 0.07));
  if (name == "normal") return Normal(num("sigma", 0.01));
  if (name == "xavier")
    return Xavier(str("rnd_type", "uniform"), str("factor_type", "avg"), num("magnitude", 3));
  if (name == "orthogonal") return Orthogonal(num("scale", 1.414), str("rand_type", "uniform"));
  if (name == "msraprelu") return MSRAPrelu(str("factor_type", "avg"), num("slope", 0.25));
  if (name == "bilinear") return Bilinear();
  if (name == "mixed") {
    const nlohmann::json& pats = args.contains("patterns") ? args["patterns"] : nlohmann::json();
    const nlohmann::json& inits =
        args.contains("initializers") ? args["initializers"] : nlohmann::json();
    if (!pats.is_array() || !inits.is_array())
      MX_THROW(absl::StatusCode::kInvalidArgument, "initializer '", spec,
               "': mixed needs \"patterns\" and \"initializers\" lists");
    std::vector<std::string> p;
    std::vector<InitializerPtr> in;
    for (const auto& x : pats) {
      if (!x.is_string())
        MX_THROW(absl::StatusCode::kInvalidArgument, "initializer '", spec,
                 "': patterns must be strings");
      p.push_back(x.get<std::string>());
    }
    for (const auto& x : inits)
      in.push_back(Create(x.is_string() ? x.get<std::string>() : x.dump()));
    return Mixed(p, in);
  }
  MX_THROW(absl::StatusCode::kInvalidArgument, "unknown initializer '", spec,
           "' (known: zeros, ones, constant, uniform, normal, xavier, orthogonal, msraprelu, "
           "bilinear, mixed)");
}
}  // namespace init

}  // namespace mxnet::gluon
