// Internals shared by every family of the C ABI: the status object, the one catch-all wrapper
// every entry point runs its body in, and argument marshalling (strings, shapes, devices,
// dtypes, options structs, out-parameters). Each family (ndarray.cc, ops.cc, ...) includes this
// and handle.h; nothing here knows any family.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "base/device.h"
#include "base/dtype.h"
#include "base/error.h"
#include "base/shape.h"
#include "mxc/base.h"

namespace mxc {

// What an mxc_status* points to. The C type stays incomplete inside the library too, so the ABI
// (and abidiff's view of it) holds no C++ types.
struct StatusImpl {
  mxc_code code;
  std::string message;
};
inline mxc_status* ToC(StatusImpl* s) { return reinterpret_cast<mxc_status*>(s); }
inline const StatusImpl* FromC(const mxc_status* s) {
  return reinterpret_cast<const StatusImpl*>(s);
}

// A new status "<fn>: <message>" (never NULL: a static out-of-memory status if allocation fails).
mxc_status* MakeStatus(absl::StatusCode code, std::string_view fn,
                       std::string_view message) noexcept;
// The exception being handled (call only inside a catch block) as a status prefixed with `fn`.
mxc_status* StatusFromCurrentException(const char* fn) noexcept;

// Runs body(); NULL if it returns normally, otherwise the status of whatever it threw. Every
// entry point returning mxc_status* is `return mxc::Call(__func__, [&] { ... });`, so no C++
// exception crosses the boundary.
template <typename Body>
mxc_status* Call(const char* fn, Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return nullptr;
  } catch (...) {
    return StatusFromCurrentException(fn);
  }
}

// Throws kInvalidArgument "argument '<arg>': <msg...>".
template <typename... Args>
[[noreturn]] void BadArgument(std::string_view arg, const Args&... msg) {
  MX_THROW(absl::StatusCode::kInvalidArgument, "argument '", arg, "': ", msg...);
}

// An out-parameter: checked non-NULL up front, written only once the call has succeeded.
template <typename T>
T* Out(T* p, std::string_view arg) {
  if (!p) BadArgument(arg, "the out-parameter is NULL");
  return p;
}

// `count` elements at `p`; p may be NULL only when count is 0.
template <typename T>
const T* Array(const T* p, size_t count, std::string_view arg) {
  if (!p && count) BadArgument(arg, "NULL with ", count, " elements");
  return p;
}

// A NUL-terminated UTF-8 string argument. Errors: NULL, invalid UTF-8 (naming the byte offset).
std::string_view Str(const char* s, std::string_view arg);
// Throws unless `s` is valid UTF-8 (overlongs, surrogates and code points > U+10FFFF are not).
void CheckUtf8(std::string_view s, std::string_view arg);

// strs[0..n) as strings. Errors: a NULL array (n > 0) or string ("argument 'arg[i]'"), bad UTF-8.
std::vector<std::string> Strs(const char* const* strs, size_t n, std::string_view arg);

// String attributes keys[i] = values[i] as an AttrDict. Errors: NULL arrays/strings, bad UTF-8,
// duplicate keys.
std::map<std::string, std::string> Attrs(const char* const* keys, const char* const* values,
                                         size_t n);

// A known shape from `ndim` dims (each >= 0; at most 32; element count must fit in int64).
mxnet::Shape ToShape(const int64_t* dims, size_t ndim, std::string_view arg);
// A dtype flag (mxc_dtype). Errors: unknown values.
mxnet::DType ToDType(int32_t dtype, std::string_view arg);
// A device; {0, 0} gives `dflt`. Errors: unknown types, negative ids.
mxnet::Device ToDevice(mxc_device d, std::string_view arg, mxnet::Device dflt = mxnet::cpu());
mxc_device FromDevice(mxnet::Device d);

// Malloc'd copies the caller frees with mxc_string_free / mxc_string_array_free.
char* NewString(std::string_view s);
char** NewStringArray(const std::vector<std::string>& strs);
// Frees what the two above return (on error paths).
void FreeStringArray(char** strs, size_t n) noexcept;

// Reads an options struct (see mxc/base.h): NULL gives zero-filled defaults; a smaller
// struct_size (an older caller) zero-fills the missing fields; a larger one (a newer caller) is
// accepted when the fields this library does not know are zero.
template <typename T>
T ReadOptions(const T* in, std::string_view arg) {
  T out;
  std::memset(&out, 0, sizeof(T));
  out.struct_size = sizeof(T);
  if (!in) return out;
  size_t n = in->struct_size;
  if (n < sizeof(size_t)) BadArgument(arg, "struct_size ", n, " is too small");
  if (n > sizeof(T)) {
    const unsigned char* extra = reinterpret_cast<const unsigned char*>(in) + sizeof(T);
    for (size_t i = 0; i < n - sizeof(T); ++i)
      if (extra[i])
        BadArgument(arg, "struct_size ", n, " is larger than this library's (", sizeof(T), ", ABI ",
                    MXC_ABI_MAJOR, ".", MXC_ABI_MINOR, ") and sets fields it does not know");
    n = sizeof(T);
  }
  std::memcpy(&out, in, n);
  out.struct_size = sizeof(T);
  return out;
}

// Writes an output struct: the first dst->struct_size bytes of `src` (an older caller's smaller
// struct gets the fields it knows). Errors: NULL, struct_size too small.
template <typename T>
void WriteStruct(T* dst, const T& src, std::string_view arg) {
  if (!dst) BadArgument(arg, "the out-parameter is NULL");
  size_t n = dst->struct_size;
  if (n < sizeof(size_t)) BadArgument(arg, "struct_size ", n, " is too small");
  if (n > sizeof(T)) n = sizeof(T);
  std::memcpy(reinterpret_cast<unsigned char*>(dst) + sizeof(size_t),
              reinterpret_cast<const unsigned char*>(&src) + sizeof(size_t), n - sizeof(size_t));
}

}  // namespace mxc
