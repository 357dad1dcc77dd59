#include "c_api/src/api.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#include "base/strings.h"

namespace mxc {
namespace {
// Returned when even a status cannot be allocated; mxc_status_free ignores it.
StatusImpl g_out_of_memory{MXC_RESOURCE_EXHAUSTED, "out of memory (while reporting an error)"};
}  // namespace

bool IsStaticStatus(const mxc_status* s) { return FromC(s) == &g_out_of_memory; }

mxc_status* MakeStatus(absl::StatusCode code, std::string_view fn,
                       std::string_view message) noexcept {
  try {
    auto* s = new StatusImpl;
    s->code =
        static_cast<mxc_code>(code == absl::StatusCode::kOk ? absl::StatusCode::kUnknown : code);
    s->message.reserve(fn.size() + 2 + message.size());
    s->message.append(fn).append(": ").append(message);
    return ToC(s);
  } catch (...) {
    return ToC(&g_out_of_memory);
  }
}

mxc_status* StatusFromCurrentException(const char* fn) noexcept {
  try {
    absl::Status st = mxnet::StatusFromCurrentException();
    return MakeStatus(st.code(), fn, std::string_view(st.message().data(), st.message().size()));
  } catch (...) {
    return ToC(&g_out_of_memory);
  }
}

void CheckUtf8(std::string_view s, std::string_view arg) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned c = p[i];
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      BadArgument(arg, "invalid UTF-8: byte ", hex, " at offset ", i);
    }
    if (i + len > n) BadArgument(arg, "invalid UTF-8: truncated sequence at offset ", i);
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80)
        BadArgument(arg, "invalid UTF-8: bad continuation byte at offset ", i + k);
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      BadArgument(arg, "invalid UTF-8: overlong, surrogate or out-of-range sequence at offset ", i);
    i += len;
  }
}

std::string_view Str(const char* s, std::string_view arg) {
  if (!s) BadArgument(arg, "the string is NULL");
  std::string_view v(s);
  CheckUtf8(v, arg);
  return v;
}

std::vector<std::string> Strs(const char* const* strs, size_t n, std::string_view arg) {
  Array(strs, n, arg);
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.emplace_back(Str(strs[i], mxnet::StrCat(arg, "[", i, "]")));
  return out;
}

std::map<std::string, std::string> Attrs(const char* const* keys, const char* const* values,
                                         size_t n) {
  Array(keys, n, "keys");
  Array(values, n, "values");
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string k(Str(keys[i], mxnet::StrCat("keys[", i, "]")));
    std::string v(Str(values[i], mxnet::StrCat("values[", i, "]")));
    if (!out.emplace(std::move(k), std::move(v)).second)
      BadArgument(mxnet::StrCat("keys[", i, "]"), "duplicate attribute '", keys[i], "'");
  }
  return out;
}

mxnet::Shape ToShape(const int64_t* dims, size_t ndim, std::string_view arg) {
  Array(dims, ndim, arg);
  if (ndim > 32) BadArgument(arg, ndim, " dims (at most 32)");
  mxnet::Shape::Dims d(dims, dims + ndim);
  int64_t total = 1;
  for (size_t i = 0; i < ndim; ++i) {
    if (d[i] < 0) BadArgument(arg, "dim ", i, " is ", d[i], " (dims must be >= 0)");
    if (d[i] && total > INT64_MAX / d[i]) BadArgument(arg, "the element count overflows int64");
    total *= d[i];
  }
  return mxnet::Shape(std::move(d));
}

mxnet::DType ToDType(int32_t dtype, std::string_view arg) {
  auto t = mxnet::DTypeFromFlag(dtype);
  if (!t.ok()) BadArgument(arg, "unknown dtype ", dtype, " (valid: mxc_dtype values 0..12)");
  return *t;
}

mxnet::Device ToDevice(mxc_device d, std::string_view arg, mxnet::Device dflt) {
  if (d.type == 0 && d.id == 0) return dflt;
  if (d.type != MXC_DEVICE_CPU && d.type != MXC_DEVICE_GPU && d.type != MXC_DEVICE_CPU_PINNED)
    BadArgument(arg, "unknown device type ", d.type,
                " (valid: MXC_DEVICE_CPU 1, MXC_DEVICE_GPU 2, MXC_DEVICE_CPU_PINNED 3)");
  if (d.id < 0) BadArgument(arg, "negative device id ", d.id);
  return {static_cast<mxnet::DeviceType>(d.type), d.id};
}

mxc_device FromDevice(mxnet::Device d) { return {static_cast<int32_t>(d.type), d.id}; }

char* NewString(std::string_view s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

char** NewStringArray(const std::vector<std::string>& strs) {
  char** arr = static_cast<char**>(std::calloc(strs.empty() ? 1 : strs.size(), sizeof(char*)));
  if (!arr) throw std::bad_alloc();
  try {
    for (size_t i = 0; i < strs.size(); ++i) arr[i] = NewString(strs[i]);
  } catch (...) {
    FreeStringArray(arr, strs.size());
    throw;
  }
  return arr;
}

void FreeStringArray(char** strs, size_t n) noexcept {
  if (!strs) return;
  for (size_t i = 0; i < n; ++i) std::free(strs[i]);
  std::free(strs);
}

}  // namespace mxc
