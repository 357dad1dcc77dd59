// Small string helpers on std::string_view. (Debian's Abseil is built with its own
// absl::string_view, which does not accept std::string_view, so absl's string utilities do not
// mix with C++20 code; these cover what the project needs.)
#pragma once

#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mxnet {

namespace strings_internal {
template <typename T>
void AppendPiece(std::string& out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char>) {
    out += v;
  } else if constexpr (std::is_integral_v<T>) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
    out.append(buf, r.ptr);
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out += std::string_view(v);
  } else if constexpr (std::is_enum_v<T>) {
    AppendPiece(out, static_cast<std::underlying_type_t<T>>(v));
  } else {
    std::ostringstream os;
    os << v;
    out += os.str();
  }
}
}  // namespace strings_internal

// Concatenates strings, string_views, numbers (shortest round-trip form) and anything with an
// operator<< (Shape, Device, ...). StrCat("shape ", s, " vs ", 3) == "shape (2, 3) vs 3".
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (strings_internal::AppendPiece(out, args), ...);
  return out;
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (strings_internal::AppendPiece(*out, args), ...);
}

// Joins items (anything StrCat accepts) with `sep`.
template <typename Range>
std::string StrJoin(const Range& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& it : items) {
    if (!first) out += sep;
    first = false;
    strings_internal::AppendPiece(out, it);
  }
  return out;
}

// Splits on every occurrence of `sep` (empty pieces kept): Split("a,,b", ',') == {"a","","b"}.
std::vector<std::string_view> StrSplit(std::string_view s, char sep);
// Without leading/trailing ASCII whitespace.
std::string_view StripWhitespace(std::string_view s);
std::string AsciiToLower(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
// Whole-string number parsing (surrounding whitespace allowed); false on any junk or overflow.
bool ParseInt64(std::string_view s, int64_t* out);
bool ParseDouble(std::string_view s, double* out);  // also "inf", "-inf", "nan"

}  // namespace mxnet
