#include "ndarray/params.h"

#include <charconv>
#include <cmath>

#include "base/error.h"

namespace mxnet {
namespace {

template <typename F>
std::string PyRepr(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // e.g. "-1.2345e-05"
  bool neg = sci[0] == '-';
  std::string body = neg ? sci.substr(1) : sci;
  size_t e = body.find('e');
  int exp = std::stoi(body.substr(e + 1));
  std::string digits;
  for (char c : body.substr(0, e))
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (exp < 0) {
    out = "0." + std::string(-exp - 1, '0') + digits;
  } else {
    if (static_cast<int>(digits.size()) <= exp + 1) {
      out = digits + std::string(exp + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
    }
  }
  return neg ? "-" + out : out;
}

}  // namespace

std::string PyFloatRepr(double v) { return PyRepr(v); }
std::string PyFloatRepr(float v) { return PyRepr(v); }

bool ParseAttrValue(std::string_view s, bool* out) {
  std::string l = AsciiToLower(StripWhitespace(s));
  if (l == "true" || l == "1") return *out = true, true;
  if (l == "false" || l == "0") return *out = false, true;
  return false;
}

bool ParseAttrValue(std::string_view s, int64_t* out) {
  s = StripWhitespace(s);
  if (!s.empty() && (s.back() == 'L' || s.back() == 'l')) s.remove_suffix(1);
  return ParseInt64(s, out);
}

bool ParseAttrValue(std::string_view s, int* out) {
  int64_t v;
  if (!ParseAttrValue(s, &v) || v < INT32_MIN || v > INT32_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseAttrValue(std::string_view s, double* out) { return ParseDouble(s, out); }

bool ParseAttrValue(std::string_view s, float* out) {
  double d;
  if (!ParseDouble(s, &d)) return false;
  *out = static_cast<float>(d);
  return true;
}

bool ParseAttrValue(std::string_view s, std::string* out) {
  *out = std::string(s);
  return true;
}

bool ParseAttrValue(std::string_view s, Shape* out) {
  // "None" is Shape::Unknown() (MXNet's TShape parser takes it; it is how an unknown shape
  // prints, e.g. the default of _zeros' shape that the C ABI's metadata hands out). Not
  // ParseShape: attribute tuples may hold Reshape's special codes (-2, -3, -4).
  if (StripWhitespace(s) == "None") {
    *out = Shape::Unknown();
    return true;
  }
  auto v = ParseIntTuple(s);
  if (!v.ok()) return false;
  *out = Shape(*v);
  return true;
}

bool ParseAttrValue(std::string_view s, std::vector<double>* out) {
  std::string_view t = StripWhitespace(s);
  if (t.size() >= 2 &&
      ((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']')))
    t = t.substr(1, t.size() - 2);
  out->clear();
  if (StripWhitespace(t).empty()) return true;
  auto parts = StrSplit(t, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (StripWhitespace(parts[i]).empty() && i + 1 == parts.size() && i > 0) break;
    double d;
    if (!ParseDouble(parts[i], &d)) return false;
    out->push_back(d);
  }
  return true;
}

bool ParseAttrValue(std::string_view s, DType* out) {
  auto t = DTypeFromName(StripWhitespace(s));
  if (t.ok()) return *out = *t, true;
  int64_t flag;
  if (ParseInt64(s, &flag)) {
    auto f = DTypeFromFlag(flag);
    if (f.ok()) return *out = *f, true;
  }
  return false;
}

std::string PrintAttrValue(bool v) { return v ? "True" : "False"; }
std::string PrintAttrValue(int v) { return StrCat(v); }
std::string PrintAttrValue(int64_t v) { return StrCat(v); }
std::string PrintAttrValue(float v) { return PyFloatRepr(v); }
std::string PrintAttrValue(double v) { return PyFloatRepr(v); }
std::string PrintAttrValue(const std::string& v) { return v; }
std::string PrintAttrValue(const Shape& v) { return v.ToString(); }
std::string PrintAttrValue(const std::vector<double>& v) {
  std::string out = "(";
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&out, i ? ", " : "", PyFloatRepr(v[i]));
  if (v.size() == 1) out += ",";
  return out + ")";
}
std::string PrintAttrValue(DType v) { return std::string(DTypeName(v)); }

const FieldInfo* ParamSchema::Find(std::string_view name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

absl::StatusOr<std::shared_ptr<const void>> ParamSchema::Parse(std::string_view op,
                                                               const AttrDict& dict) const {
  std::shared_ptr<void> obj = make_default();
  for (const auto& [key, value] : dict) {
    const FieldInfo* f = Find(key);
    if (!f && extra) {
      (*extra(obj.get()))[key] = value;
      continue;
    }
    if (!f) {
      std::vector<std::string> names;
      for (const auto& fi : fields) names.push_back(fi.name);
      return absl::InvalidArgumentError(StrCat(op, ": unknown attribute '", key, "' (valid: ",
                                               names.empty() ? "none" : StrJoin(names, ", "), ")"));
    }
    if (!f->parse(obj.get(), value))
      return absl::InvalidArgumentError(
          StrCat(op, ": cannot parse attribute ", key, "='", value, "' as ", f->type));
    if (!f->choices.empty()) {
      std::string v = f->print(obj.get());
      bool ok = false;
      for (const auto& c : f->choices) ok |= c == v;
      if (!ok)
        return absl::InvalidArgumentError(StrCat(op, ": attribute ", key, "='", value,
                                                 "' is not one of {", StrJoin(f->choices, ", "),
                                                 "}"));
    }
  }
  for (const auto& f : fields)
    if (f.required && !dict.count(f.name))
      return absl::InvalidArgumentError(
          StrCat(op, ": required attribute '", f.name, "' (", f.type, ") is missing"));
  if (validate) {
    std::string err = validate(obj.get());
    if (!err.empty()) return absl::InvalidArgumentError(StrCat(op, ": ", err));
  }
  return std::shared_ptr<const void>(std::move(obj));
}

AttrDict ParamSchema::Print(const void* obj) const {
  AttrDict out;
  std::shared_ptr<void> def = make_default();
  for (const auto& f : fields)
    if (f.required || !f.equal(obj, def.get())) out[f.name] = f.print(obj);
  if (extra) {
    const AttrDict& more = *extra(const_cast<void*>(obj));
    out.insert(more.begin(), more.end());
  }
  return out;
}

bool ParamSchema::Equal(const void* a, const void* b) const {
  for (const auto& f : fields)
    if (!f.equal(a, b)) return false;
  return !extra || *extra(const_cast<void*>(a)) == *extra(const_cast<void*>(b));
}

}  // namespace mxnet
