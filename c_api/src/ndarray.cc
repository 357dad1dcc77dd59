// mxc/ndarray.h: creation, properties, copies, views, synchronisation, files.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <utility>

#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"
#include "c_api/src/ndarray_util.h"
#include "ndarray/io.h"
#include "ndarray/storage.h"

namespace mxc {

size_t ByteSize(const mxnet::Shape& shape, mxnet::DType dtype, std::string_view arg) {
  auto n = static_cast<uint64_t>(shape.Size());
  size_t es = mxnet::DTypeSize(dtype);
  if (n && es > SIZE_MAX / n) BadArgument(arg, "the byte size overflows");
  return static_cast<size_t>(n) * es;
}

mxnet::NDArray WrapExternal(void* data, size_t nbytes, const mxnet::Shape& shape,
                            mxnet::DType dtype, mxnet::Device device, std::function<void()> release,
                            std::string_view arg) {
  size_t want = ByteSize(shape, dtype, "shape");
  if (nbytes != want)
    BadArgument("nbytes", nbytes, " bytes given, but shape ", shape.ToString(), " of ",
                mxnet::DTypeName(dtype), " needs ", want);
  if (!data && nbytes) BadArgument(arg, "NULL with ", nbytes, " bytes");
  if (reinterpret_cast<uintptr_t>(data) % mxnet::DTypeSize(dtype))
    BadArgument(arg, "the address is not aligned to the ", mxnet::DTypeSize(dtype),
                "-byte elements of ", mxnet::DTypeName(dtype));
  mxnet::GetDeviceBackend(device.type);  // kUnavailable for devices this build lacks
  return mxnet::NDArray::FromStorage(
      mxnet::Storage::WrapExternal(data, nbytes, device, std::move(release)), 0, shape, dtype);
}

// Writes a loaded file as the out-parameters of mxc_ndarray_load(_from_buffer).
void ReturnFile(const mxnet::nd::NDArrayFile& f, mxc_ndarray*** arrays, char*** names,
                size_t* count) {
  size_t n = f.size();
  auto** hs = static_cast<mxc_ndarray**>(std::calloc(n ? n : 1, sizeof(mxc_ndarray*)));
  if (!hs) throw std::bad_alloc();
  char** ns = nullptr;
  try {
    for (size_t i = 0; i < n; ++i)
      if (!f.arrays[i].is_none()) hs[i] = New<mxc_ndarray>(f.arrays[i]);
    if (f.is_dict) ns = NewStringArray(f.names);
  } catch (...) {
    mxc_ndarray_array_free(hs, n);
    throw;
  }
  *arrays = hs;
  *names = ns;
  *count = n;
}

mxnet::nd::LoadOptions ToLoadOptions(const mxc_ndarray_load_options* options) {
  mxc_ndarray_load_options o = ReadOptions(options, "options");
  mxnet::nd::LoadOptions lo;
  lo.device = ToDevice(o.device, "options.device");
  lo.allow_trailing_bytes = !o.reject_trailing_bytes;
  lo.densify_sparse = !o.keep_sparse;
  if (o.max_densified_bytes) lo.max_densified_bytes = o.max_densified_bytes;
  return lo;
}

mxnet::nd::SaveOptions ToSaveOptions(const mxc_ndarray_save_options* options) {
  mxc_ndarray_save_options o = ReadOptions(options, "options");
  mxnet::nd::SaveOptions so;
  switch (o.format) {
    case MXC_FORMAT_NDARRAY_LIST:
      so.format = mxnet::nd::FileFormat::kNDArrayList;
      break;
    case MXC_FORMAT_NPY:
      so.format = mxnet::nd::FileFormat::kNpy;
      break;
    case MXC_FORMAT_NPZ:
      so.format = mxnet::nd::FileFormat::kNpz;
      break;
    default:
      BadArgument("options.format", "unknown format ", o.format, " (MXC_FORMAT_*: 0, 1, 2)");
  }
  if (o.version == 0 || o.version == 2)
    so.version = mxnet::nd::RecordVersion::kV2;
  else if (o.version == 3)
    so.version = mxnet::nd::RecordVersion::kV3;
  else
    BadArgument("options.version", "unknown record version ", o.version, " (0, 2 or 3)");
  so.fsync = !o.no_fsync;
  return so;
}

// The arrays (and names) to save, checked.
struct ToSave {
  std::vector<mxnet::NDArray> arrays;
  std::vector<std::pair<std::string, mxnet::NDArray>> named;
  bool is_dict = false;
};
ToSave CollectToSave(mxc_ndarray* const* arrays, const char* const* names, size_t count) {
  ToSave t;
  GetAll(arrays, count, "arrays", &t.arrays);
  if (names) {
    t.is_dict = true;
    for (size_t i = 0; i < count; ++i)
      t.named.emplace_back(std::string(Str(names[i], Arg("names", i).str())), t.arrays[i]);
  }
  return t;
}

void ReturnArrays(std::span<mxnet::NDArray> arrays, mxc_ndarray** out, size_t max, size_t* count,
                  std::string_view what, std::string_view noun) {
  size_t n = arrays.size();
  if (n > max)
    MX_THROW(absl::StatusCode::kOutOfRange, what, " returns ", n, " ", noun, " but the ", noun,
             " buffer holds ", max);
  size_t made = 0;
  try {
    for (; made < n; ++made) out[made] = New<mxc_ndarray>(std::move(arrays[made]));
  } catch (...) {
    for (size_t i = 0; i < made; ++i) mxc_ndarray_free(out[i]);
    throw;
  }
  *count = n;
}

}  // namespace mxc

using mxc::Arg;

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_ndarray)

MXC_API void mxc_ndarray_array_free(mxc_ndarray** arrays, size_t count) noexcept {
  if (!arrays) return;
  for (size_t i = 0; i < count; ++i) mxc_ndarray_free(arrays[i]);
  std::free(arrays);
}

MXC_STATUS mxc_ndarray_create(const int64_t* shape, size_t ndim, int32_t dtype, mxc_device device,
                              mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::NDArray a(mxc::ToShape(shape, ndim, "shape"), mxc::ToDevice(device, "device"),
                     mxc::ToDType(dtype, "dtype"));
    a.Fill(0);
    *out = mxc::New<mxc_ndarray>(std::move(a));
  });
}

MXC_STATUS mxc_ndarray_from_host(const void* data, size_t nbytes, const int64_t* shape, size_t ndim,
                                 int32_t dtype, mxc_device device, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::Shape s = mxc::ToShape(shape, ndim, "shape");
    mxnet::DType t = mxc::ToDType(dtype, "dtype");
    size_t want = mxc::ByteSize(s, t, "shape");
    if (nbytes != want)
      mxc::BadArgument("nbytes", nbytes, " bytes given, but shape ", s.ToString(), " of ",
                       mxnet::DTypeName(t), " needs ", want);
    if (!data && nbytes) mxc::BadArgument("data", "NULL with ", nbytes, " bytes");
    mxnet::NDArray a(s, mxc::ToDevice(device, "device"), t);
    if (nbytes) a.SyncCopyFromCPU(data, nbytes);
    *out = mxc::New<mxc_ndarray>(std::move(a));
  });
}

MXC_STATUS mxc_ndarray_from_external(void* data, size_t nbytes, const int64_t* shape, size_t ndim,
                                     int32_t dtype, mxc_device device, mxc_deleter deleter,
                                     void* user_data, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    // The deleter runs only once the call has succeeded (armed): on error the caller keeps it.
    struct Owner {
      mxc_deleter fn;
      void* user_data;
      std::atomic<bool> armed{false};
      void Fire() {
        if (armed.load() && fn) fn(user_data);
      }
    };
    auto owner = std::make_shared<Owner>();
    owner->fn = deleter;
    owner->user_data = user_data;
    mxnet::NDArray a = mxc::WrapExternal(
        data, nbytes, mxc::ToShape(shape, ndim, "shape"), mxc::ToDType(dtype, "dtype"),
        mxc::ToDevice(device, "device"), [owner] { owner->Fire(); }, "data");
    mxc_ndarray* h = mxc::New<mxc_ndarray>(std::move(a));
    owner->armed = true;
    *out = h;
  });
}

MXC_STATUS mxc_ndarray_ndim(mxc_ndarray* array, size_t* out) noexcept {
  return mxc::Getter(__func__, array, "array", out,
                     [](const mxnet::NDArray& a) { return static_cast<size_t>(a.ndim()); });
}

MXC_STATUS mxc_ndarray_shape(mxc_ndarray* array, int64_t* dims, size_t capacity,
                             size_t* ndim) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(ndim, "ndim");
    mxnet::NDArray a = mxc::Get(array, "array");
    const mxnet::Shape& s = a.shape();
    size_t n = static_cast<size_t>(s.ndim());
    if (capacity < n)
      MX_THROW(absl::StatusCode::kOutOfRange, "the array has ", n, " dims but dims holds ",
               capacity);
    mxc::Array(dims, n, "dims");
    for (size_t i = 0; i < n; ++i) dims[i] = s[static_cast<int>(i)];
    *ndim = n;
  });
}

MXC_STATUS mxc_ndarray_size(mxc_ndarray* array, int64_t* out) noexcept {
  return mxc::Getter(__func__, array, "array", out,
                     [](const mxnet::NDArray& a) { return a.size(); });
}

MXC_STATUS mxc_ndarray_nbytes(mxc_ndarray* array, size_t* out) noexcept {
  return mxc::Getter(__func__, array, "array", out,
                     [](const mxnet::NDArray& a) { return a.nbytes(); });
}

MXC_STATUS mxc_ndarray_dtype(mxc_ndarray* array, int32_t* out) noexcept {
  return mxc::Getter(__func__, array, "array", out, [](const mxnet::NDArray& a) {
    return static_cast<int32_t>(mxnet::DTypeFlag(a.dtype()));
  });
}

MXC_STATUS mxc_ndarray_device(mxc_ndarray* array, mxc_device* out) noexcept {
  return mxc::Getter(__func__, array, "array", out,
                     [](const mxnet::NDArray& a) { return mxc::FromDevice(a.device()); });
}

MXC_STATUS mxc_ndarray_data(mxc_ndarray* array, void** out) noexcept {
  return mxc::Getter(__func__, array, "array", out, [](const mxnet::NDArray& a) {
    void* p = a.data_ptr();
    // The caller may write through p at any time: caches compare this block's contents from now
    // on (Storage::untracked_writes).
    a.storage()->mark_untracked_writes();
    return p;
  });
}

MXC_STATUS mxc_ndarray_copy_to_host(mxc_ndarray* array, void* dst, size_t nbytes) noexcept {
  return mxc::Call(__func__, [&] {
    mxnet::NDArray a = mxc::Get(array, "array");
    if (nbytes != a.nbytes())
      mxc::BadArgument("nbytes", nbytes, " bytes given for an array of ", a.nbytes(),
                       " bytes (shape ", a.shape().ToString(), ", ", mxnet::DTypeName(a.dtype()),
                       ")");
    if (!dst && nbytes) mxc::BadArgument("dst", "NULL with ", nbytes, " bytes");
    if (nbytes) a.SyncCopyToCPU(dst, nbytes);
  });
}

MXC_STATUS mxc_ndarray_copy_from_host(mxc_ndarray* array, const void* src, size_t nbytes) noexcept {
  return mxc::Call(__func__, [&] {
    mxnet::NDArray a = mxc::Get(array, "array");
    if (nbytes != a.nbytes())
      mxc::BadArgument("nbytes", nbytes, " bytes given for an array of ", a.nbytes(),
                       " bytes (shape ", a.shape().ToString(), ", ", mxnet::DTypeName(a.dtype()),
                       ")");
    if (!src && nbytes) mxc::BadArgument("src", "NULL with ", nbytes, " bytes");
    if (nbytes) a.SyncCopyFromCPU(src, nbytes);
  });
}

MXC_STATUS mxc_ndarray_copy(mxc_ndarray* array, mxc_device device, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::NDArray a = mxc::Get(array, "array");
    *out = mxc::New<mxc_ndarray>(a.copyto(mxc::ToDevice(device, "device", a.device())));
  });
}

MXC_STATUS mxc_ndarray_reshape(mxc_ctx* ctx, mxc_ndarray* array, const int64_t* shape, size_t ndim,
                               mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::NDArray a = mxc::Get(array, "array");
    mxc::Array(shape, ndim, "shape");
    std::vector<int64_t> spec(shape, shape + ndim);
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    *out = mxc::New<mxc_ndarray>(a.reshape(spec));
  });
}

MXC_STATUS mxc_ndarray_slice(mxc_ctx* ctx, mxc_ndarray* array, int64_t begin, int64_t end,
                             mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::NDArray a = mxc::Get(array, "array");
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    *out = mxc::New<mxc_ndarray>(a.slice(begin, end));
  });
}

MXC_STATUS mxc_ndarray_wait(mxc_ndarray* array) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(array, "array").wait_to_read(); });
}

MXC_STATUS mxc_ndarray_waitall(void) noexcept {
  return mxc::Call(__func__, [&] { mxnet::waitall(); });
}

MXC_STATUS mxc_ndarray_load(const char* path, const mxc_ndarray_load_options* options,
                            mxc_ndarray*** arrays, char*** names, size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(arrays, "arrays"), mxc::Out(names, "names"), mxc::Out(count, "count");
    std::string p(mxc::Str(path, "path"));
    auto f = mxnet::ValueOrThrow(mxnet::nd::load(p, mxc::ToLoadOptions(options)));
    mxc::ReturnFile(f, arrays, names, count);
  });
}

MXC_STATUS mxc_ndarray_load_from_buffer(const void* data, size_t size,
                                        const mxc_ndarray_load_options* options,
                                        mxc_ndarray*** arrays, char*** names,
                                        size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(arrays, "arrays"), mxc::Out(names, "names"), mxc::Out(count, "count");
    mxc::Array(static_cast<const uint8_t*>(data), size, "data");
    std::span<const uint8_t> bytes(static_cast<const uint8_t*>(data), size);
    auto f = mxnet::ValueOrThrow(mxnet::nd::load_from_buffer(bytes, mxc::ToLoadOptions(options)));
    mxc::ReturnFile(f, arrays, names, count);
  });
}

MXC_STATUS mxc_ndarray_save(const char* path, mxc_ndarray* const* arrays, const char* const* names,
                            size_t count, const mxc_ndarray_save_options* options) noexcept {
  return mxc::Call(__func__, [&] {
    std::string p(mxc::Str(path, "path"));
    mxnet::nd::SaveOptions so = mxc::ToSaveOptions(options);
    mxc::ToSave t = mxc::CollectToSave(arrays, names, count);
    mxnet::ThrowIfError(t.is_dict ? mxnet::nd::save(p, t.named, so)
                                  : mxnet::nd::save(p, t.arrays, so));
  });
}

MXC_STATUS mxc_ndarray_save_to_buffer(mxc_ndarray* const* arrays, const char* const* names,
                                      size_t count, const mxc_ndarray_save_options* options,
                                      void** data, size_t* size) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(data, "data"), mxc::Out(size, "size");
    mxnet::nd::SaveOptions so = mxc::ToSaveOptions(options);
    mxc::ToSave t = mxc::CollectToSave(arrays, names, count);
    std::string bytes = mxnet::ValueOrThrow(t.is_dict ? mxnet::nd::save_to_buffer(t.named, so)
                                                      : mxnet::nd::save_to_buffer(t.arrays, so));
    void* p = std::malloc(bytes.empty() ? 1 : bytes.size());
    if (!p) throw std::bad_alloc();
    std::memcpy(p, bytes.data(), bytes.size());
    *data = p;
    *size = bytes.size();
  });
}

}  // extern "C"
