// Typed operator attributes that parse from and print to MXNet's attribute strings
// (docs/formats.md §3.4): tuples "(3, 3)", bools "True"/"False", floats like Python's repr
// ("1e-05", "0.9", "1.0"), optional values "None", dtypes by name. Defaults are the C++ defaults
// of the op (the struct's member initializers), applied for every key the string form leaves out.
//
//   struct PoolingParam {
//     Shape kernel;
//     std::string pool_type = "max";
//     template <class D> static void Declare(D& d) {
//       d.field("kernel", &PoolingParam::kernel).describe("window (h, w)");
//       d.field("pool_type", &PoolingParam::pool_type).choices({"max", "avg", "sum", "lp"});
//     }
//   };
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/strings.h"

namespace mxnet {

// An op's attributes in string form, sorted by key (as newer MXNet writers sort them).
using AttrDict = std::map<std::string, std::string>;

// ---- Value formats. ----
// Python-repr float text: shortest round trip, ".0" for integral values, e-notation outside
// [1e-4, 1e16): 1e-05 -> "1e-05", 0.9 -> "0.9", 1 -> "1.0", 1e16 -> "1e+16".
std::string PyFloatRepr(double v);
std::string PyFloatRepr(float v);

bool ParseAttrValue(std::string_view s, bool* out);  // true/false/1/0, any case
bool ParseAttrValue(std::string_view s, int* out);
bool ParseAttrValue(std::string_view s, int64_t* out);
bool ParseAttrValue(std::string_view s, float* out);
bool ParseAttrValue(std::string_view s, double* out);
bool ParseAttrValue(std::string_view s, std::string* out);
bool ParseAttrValue(std::string_view s, Shape* out);  // any tuple form of ParseIntTuple
bool ParseAttrValue(std::string_view s, std::vector<double>* out);  // "(0.5, 1.0)"
bool ParseAttrValue(std::string_view s, DType* out);                // "float32" or a type flag "0"
template <typename T>
bool ParseAttrValue(std::string_view s, std::optional<T>* out) {
  if (StripWhitespace(s) == "None") {
    out->reset();
    return true;
  }
  T v;
  if (!ParseAttrValue(s, &v)) return false;
  *out = v;
  return true;
}

std::string PrintAttrValue(bool v);  // "True" / "False"
std::string PrintAttrValue(int v);
std::string PrintAttrValue(int64_t v);
std::string PrintAttrValue(float v);
std::string PrintAttrValue(double v);
std::string PrintAttrValue(const std::string& v);
std::string PrintAttrValue(const Shape& v);  // "(3, 3)", "(3,)", "()"
std::string PrintAttrValue(const std::vector<double>& v);
std::string PrintAttrValue(DType v);
template <typename T>
std::string PrintAttrValue(const std::optional<T>& v) {
  return v ? PrintAttrValue(*v) : std::string("None");
}

// ---- Schemas. ----
struct FieldInfo {
  std::string name;
  std::string type;  // "Shape", "float", "int", "boolean", "string", "optional<...>", ...
  std::string doc;
  bool required = false;
  std::vector<std::string> choices;  // allowed strings for enum-like fields
  std::function<bool(void* obj, std::string_view text)> parse;
  std::function<std::string(const void* obj)> print;
  std::function<bool(const void* a, const void* b)> equal;
};

class ParamSchema {
 public:
  std::vector<FieldInfo> fields;
  std::function<std::shared_ptr<void>()> make_default;
  // Extra validation after parsing (ranges, combinations); returns an error message or "".
  std::function<std::string(const void* obj)> validate;
  // Keys no field declares are rejected, unless this is set (ParamDeclarer::extra_keys): then
  // they are kept as strings in the struct's AttrDict member it returns, printed and compared
  // with the fields (the `Custom` op hands any kwargs to its registered prop).
  std::function<AttrDict*(void* obj)> extra;

  const FieldInfo* Find(std::string_view name) const;
  // Parses `dict` over the defaults. Errors (kInvalidArgument) name `op`, the key and the
  // value: unknown keys (listing the valid ones), unparsable values, values outside `choices`,
  // missing required keys.
  absl::StatusOr<std::shared_ptr<const void>> Parse(std::string_view op,
                                                    const AttrDict& dict) const;
  // The string form: required fields and every field that differs from the default.
  AttrDict Print(const void* obj) const;
  bool Equal(const void* a, const void* b) const;
};

namespace params_internal {
template <typename T>
std::string TypeName();
template <>
inline std::string TypeName<bool>() {
  return "boolean";
}
template <>
inline std::string TypeName<int>() {
  return "int";
}
template <>
inline std::string TypeName<int64_t>() {
  return "long";
}
template <>
inline std::string TypeName<float>() {
  return "float";
}
template <>
inline std::string TypeName<double>() {
  return "double";
}
template <>
inline std::string TypeName<std::string>() {
  return "string";
}
template <>
inline std::string TypeName<Shape>() {
  return "Shape(tuple)";
}
template <>
inline std::string TypeName<std::vector<double>>() {
  return "tuple of float";
}
template <>
inline std::string TypeName<DType>() {
  return "dtype";
}
template <typename T>
struct OptName {
  static std::string Get() { return TypeName<T>(); }
};
template <typename T>
struct OptName<std::optional<T>> {
  static std::string Get() { return "optional<" + TypeName<T>() + ">"; }
};
}  // namespace params_internal

// Declares the fields of a parameter struct P (used by P::Declare).
template <typename P>
class ParamDeclarer {
 public:
  class Field {
   public:
    explicit Field(FieldInfo* f) : f_(f) {}
    Field& describe(std::string doc) {
      f_->doc = std::move(doc);
      return *this;
    }
    Field& required() {
      f_->required = true;
      return *this;
    }
    Field& choices(std::vector<std::string> c) {
      f_->choices = std::move(c);
      return *this;
    }

   private:
    FieldInfo* f_;
  };

  explicit ParamDeclarer(ParamSchema* schema) : schema_(schema) {}

  template <typename T>
  Field field(const char* name, T P::*member) {
    FieldInfo f;
    f.name = name;
    f.type = params_internal::OptName<T>::Get();
    f.parse = [member](void* obj, std::string_view s) {
      return ParseAttrValue(s, &(static_cast<P*>(obj)->*member));
    };
    f.print = [member](const void* obj) {
      return PrintAttrValue(static_cast<const P*>(obj)->*member);
    };
    f.equal = [member](const void* a, const void* b) {
      return static_cast<const P*>(a)->*member == static_cast<const P*>(b)->*member;
    };
    schema_->fields.push_back(std::move(f));
    return Field(&schema_->fields.back());
  }
  // Keeps undeclared keys as strings in `member` instead of rejecting them.
  void extra_keys(AttrDict P::*member) {
    schema_->extra = [member](void* obj) { return &(static_cast<P*>(obj)->*member); };
  }

 private:
  ParamSchema* schema_;
};

// The schema of P, built once from P::Declare. P may define
// `std::string Validate() const` returning "" or an error message.
template <typename P>
const ParamSchema& SchemaOf() {
  static const ParamSchema* schema = [] {
    auto* s = new ParamSchema();
    s->fields.reserve(64);  // Field handles point into the vector while declaring
    ParamDeclarer<P> d(s);
    P::Declare(d);
    s->make_default = [] { return std::make_shared<P>(); };
    if constexpr (requires(const P& p) { p.Validate(); }) {
      s->validate = [](const void* obj) { return static_cast<const P*>(obj)->Validate(); };
    }
    return s;
  }();
  return *schema;
}

}  // namespace mxnet
