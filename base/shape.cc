#include "base/shape.h"

#include "base/error.h"
#include "base/strings.h"

namespace mxnet {

Shape Shape::Filled(int ndim, int64_t value) {
  Shape s;
  s.dims_.assign(ndim, value);
  return s;
}

Shape Shape::Unknown() {
  Shape s;
  s.known_ndim_ = false;
  return s;
}

Shape Shape::FromLegacy(const Shape& legacy) {
  if (!legacy.known_ndim_ || legacy.dims_.empty()) return Unknown();
  Shape s = legacy;
  for (auto& d : s.dims_)
    if (d == 0) d = kUnknownDim;
  return s;
}

bool Shape::is_known() const {
  if (!known_ndim_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t Shape::Size() const {
  if (!is_known()) return -1;
  for (int64_t d : dims_)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (__builtin_mul_overflow(n, d, &n))
      MX_THROW(absl::StatusCode::kInvalidArgument, "shape ", ToString(),
               " has more elements than fit in int64");
  }
  return n;
}

int64_t Shape::ProdRange(int begin, int end) const {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= dims_[i];
  return n;
}

int64_t Shape::dim(int i) const { return dims_[NormalizeAxis(i, ndim(), "Shape::dim")]; }

namespace {
std::string Format(const Shape::Dims& dims, bool legacy) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    int64_t d = dims[i];
    StrAppend(&out, legacy && d < 0 ? 0 : d);
  }
  if (dims.size() == 1) out += ",";
  out += ")";
  return out;
}
}  // namespace

std::string Shape::ToString() const { return known_ndim_ ? Format(dims_, false) : "None"; }
std::string Shape::ToLegacyString() const { return known_ndim_ ? Format(dims_, true) : "()"; }

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.ToString(); }

absl::StatusOr<std::vector<int64_t>> ParseIntTuple(std::string_view text) {
  std::string_view t = StripWhitespace(text);
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        StrCat("cannot parse '", text, "' as an integer tuple: ", why));
  };
  if (t.empty()) return bad("empty text");
  bool bracketed = false;
  if ((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']')) {
    t = t.substr(1, t.size() - 2);
    bracketed = true;
  } else if (t.front() == '(' || t.front() == '[' || t.back() == ')' || t.back() == ']') {
    return bad("unbalanced brackets");
  }
  std::vector<int64_t> out;
  std::vector<std::string_view> parts = StrSplit(t, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view p = StripWhitespace(parts[i]);
    if (p.empty()) {
      // "()" and a trailing comma "(2,)" are fine; an empty element elsewhere is not.
      if ((parts.size() == 1 && bracketed) || (i + 1 == parts.size() && i > 0)) continue;
      return bad("empty element");
    }
    if (p.back() == 'L' || p.back() == 'l') p.remove_suffix(1);
    int64_t v;
    if (!ParseInt64(p, &v)) return bad(StrCat("'", p, "' is not an integer"));
    out.push_back(v);
  }
  return out;
}

absl::StatusOr<Shape> ParseShape(std::string_view text) {
  if (StripWhitespace(text) == "None") return Shape::Unknown();
  MX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ParseIntTuple(text));
  for (int64_t d : dims)
    if (d < -1)
      return absl::InvalidArgumentError(
          StrCat("invalid shape '", text, "': dimension ", d, " is negative"));
  return Shape(dims);
}

int NormalizeAxis(int64_t axis, int ndim, std::string_view what) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    MX_THROW(absl::StatusCode::kInvalidArgument, what, ": axis ", axis,
             " is out of range for ndim ", ndim);
  return static_cast<int>(a);
}

}  // namespace mxnet
