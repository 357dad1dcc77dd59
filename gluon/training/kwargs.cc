#include "gluon/training/kwargs.h"

#include <cmath>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon {
namespace {
[[noreturn]] void Bad(std::string_view what, const KwargValue& v, std::string_view want) {
  MX_THROW(absl::StatusCode::kInvalidArgument, what, ": expected ", want, ", got ", v.ToString());
}
}  // namespace

KwargValue::KwargValue(std::vector<int64_t> v) : v_(std::vector<double>(v.begin(), v.end())) {}

bool KwargValue::is_none() const {
  if (std::holds_alternative<NoneType>(v_)) return true;
  if (auto* s = std::get_if<std::string>(&v_)) return StripWhitespace(*s) == "None";
  return false;
}

double KwargValue::AsDouble(std::string_view what) const {
  if (auto* d = std::get_if<double>(&v_)) return *d;
  if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(&v_)) return *b ? 1.0 : 0.0;
  if (auto* s = std::get_if<std::string>(&v_)) {
    double d;
    if (ParseDouble(StripWhitespace(*s), &d)) return d;
  }
  Bad(what, *this, "a number");
}

int64_t KwargValue::AsInt(std::string_view what) const {
  if (auto* i = std::get_if<int64_t>(&v_)) return *i;
  if (auto* b = std::get_if<bool>(&v_)) return *b ? 1 : 0;
  double d = 0;
  bool ok = false;
  if (auto* x = std::get_if<double>(&v_)) d = *x, ok = true;
  if (auto* s = std::get_if<std::string>(&v_)) {
    int64_t i;
    if (ParseInt64(StripWhitespace(*s), &i)) return i;
    ok = ParseDouble(StripWhitespace(*s), &d);
  }
  if (ok && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
    return static_cast<int64_t>(d);
  Bad(what, *this, "an integer");
}

bool KwargValue::AsBool(std::string_view what) const {
  if (auto* b = std::get_if<bool>(&v_)) return *b;
  if (auto* i = std::get_if<int64_t>(&v_); i && (*i == 0 || *i == 1)) return *i == 1;
  if (auto* s = std::get_if<std::string>(&v_)) {
    std::string t = AsciiToLower(StripWhitespace(*s));
    if (t == "true" || t == "1") return true;
    if (t == "false" || t == "0") return false;
  }
  Bad(what, *this, "a boolean");
}

std::string KwargValue::AsString(std::string_view what) const {
  if (auto* s = std::get_if<std::string>(&v_)) return *s;
  Bad(what, *this, "a string");
}

std::vector<double> KwargValue::AsDoubleList(std::string_view what) const {
  if (auto* l = std::get_if<std::vector<double>>(&v_)) return *l;
  if (auto* s = std::get_if<std::string>(&v_)) {
    std::string_view t = StripWhitespace(*s);
    if (t.size() >= 2 &&
        ((t.front() == '[' && t.back() == ']') || (t.front() == '(' && t.back() == ')'))) {
      std::vector<double> out;
      std::string_view body = StripWhitespace(t.substr(1, t.size() - 2));
      bool ok = true;
      if (!body.empty()) {
        for (std::string_view piece : StrSplit(body, ',')) {
          piece = StripWhitespace(piece);
          if (piece.empty()) continue;  // trailing comma: "(3,)"
          double d;
          if (!ParseDouble(piece, &d)) {
            ok = false;
            break;
          }
          out.push_back(d);
        }
      }
      if (ok) return out;
    }
  }
  if (std::holds_alternative<double>(v_) || std::holds_alternative<int64_t>(v_))
    return {AsDouble(what)};
  Bad(what, *this, "a list of numbers");
}

LRSchedulerPtr KwargValue::AsScheduler(std::string_view what) const {
  if (is_none()) return nullptr;
  if (auto* p = std::get_if<LRSchedulerPtr>(&v_)) return *p;
  Bad(what, *this, "an LRScheduler");
}

std::string KwargValue::ToString() const {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, NoneType>) {
          return "None";
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "True" : "False";
        } else if constexpr (std::is_same_v<V, int64_t>) {
          return StrCat(v);
        } else if constexpr (std::is_same_v<V, double>) {
          return StrCat(v);
        } else if constexpr (std::is_same_v<V, std::string>) {
          return StrCat("'", v, "'");
        } else if constexpr (std::is_same_v<V, std::vector<double>>) {
          return StrCat("[", StrJoin(v, ", "), "]");
        } else {
          return v ? "<LRScheduler>" : "None";
        }
      },
      v_);
}

const KwargValue* KwargReader::Find(std::string_view key) {
  accepted_.emplace(key);
  auto it = kw_.find(key);
  return it == kw_.end() ? nullptr : &it->second;
}

std::string KwargReader::What(std::string_view key) const { return StrCat(owner_, ": ", key); }

bool KwargReader::Has(std::string_view key) const { return kw_.find(key) != kw_.end(); }

double KwargReader::Double(std::string_view key, double def) {
  const KwargValue* v = Find(key);
  return v ? v->AsDouble(What(key)) : def;
}

std::optional<double> KwargReader::OptDouble(std::string_view key, std::optional<double> def) {
  const KwargValue* v = Find(key);
  if (!v) return def;
  if (v->is_none()) return std::nullopt;
  return v->AsDouble(What(key));
}

int64_t KwargReader::Int(std::string_view key, int64_t def) {
  const KwargValue* v = Find(key);
  return v ? v->AsInt(What(key)) : def;
}

std::optional<int64_t> KwargReader::OptInt(std::string_view key, std::optional<int64_t> def) {
  const KwargValue* v = Find(key);
  if (!v) return def;
  if (v->is_none()) return std::nullopt;
  return v->AsInt(What(key));
}

bool KwargReader::Bool(std::string_view key, bool def) {
  const KwargValue* v = Find(key);
  return v ? v->AsBool(What(key)) : def;
}

std::string KwargReader::String(std::string_view key, std::string def) {
  const KwargValue* v = Find(key);
  return v ? v->AsString(What(key)) : def;
}

std::vector<double> KwargReader::DoubleList(std::string_view key, std::vector<double> def) {
  const KwargValue* v = Find(key);
  return v ? v->AsDoubleList(What(key)) : def;
}

LRSchedulerPtr KwargReader::Scheduler(std::string_view key) {
  const KwargValue* v = Find(key);
  return v ? v->AsScheduler(What(key)) : nullptr;
}

void KwargReader::Ignore(std::string_view key) { accepted_.emplace(key); }

void KwargReader::Finish() const {
  for (const auto& [k, v] : kw_)
    if (!accepted_.count(k))
      MX_THROW(absl::StatusCode::kInvalidArgument, owner_, ": unexpected keyword argument '", k,
               "' (accepted: ", StrJoin(accepted_, ", "), ")");
}

}  // namespace mxnet::gluon
