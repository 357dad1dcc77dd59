// Fuzz target: the C ABI's NDArray-file entry point (mxc_ndarray_load_from_buffer, .params/.nd,
// .npy, .npz sniffed), with trailing bytes allowed and refused and sparse records densifying to at
// most 16 MiB (max_densified_bytes, ABI 1.3; finding #6 of docs/reliability.md); a loaded file is
// saved again with mxc_ndarray_save_to_buffer (V3 records) and reloaded with the same count, shapes
// and bytes. Every handle, name array and buffer is freed (LeakSanitizer checks it in the clang
// build).
#include <cstdint>
#include <cstring>
#include <vector>

#include "tools/fuzz/c_api_fuzz_util.h"

namespace {

std::vector<uint8_t> Bytes(mxc_ndarray* a) {
  size_t n = 0;
  FUZZ_CHECK(MxcOk(mxc_ndarray_nbytes(a, &n), "mxc_ndarray_nbytes"), "nbytes failed");
  std::vector<uint8_t> out(n);
  FUZZ_CHECK(MxcOk(mxc_ndarray_copy_to_host(a, out.data(), n), "mxc_ndarray_copy_to_host"),
             "copy_to_host failed");
  return out;
}

std::vector<int64_t> Dims(mxc_ndarray* a) {
  int64_t dims[64];
  size_t ndim = 0;
  FUZZ_CHECK(MxcOk(mxc_ndarray_shape(a, dims, 64, &ndim), "mxc_ndarray_shape"), "shape failed");
  return std::vector<int64_t>(dims, dims + ndim);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mxc_ndarray_load_options opts;
  std::memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.reject_trailing_bytes = static_cast<int32_t>(size & 1);
  opts.max_densified_bytes = uint64_t{16} << 20;
  mxc_ndarray** arrays = nullptr;
  char** names = nullptr;
  size_t count = 0;
  if (!MxcOk(mxc_ndarray_load_from_buffer(data, size, &opts, &arrays, &names, &count),
             "mxc_ndarray_load_from_buffer"))
    return 0;
  bool none = false;
  for (size_t i = 0; i < count; ++i) none |= arrays[i] == nullptr;
  if (!none) {  // none arrays cannot be passed back (NULL handles are refused)
    mxc_ndarray_save_options so;
    std::memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    so.version = 3;
    void* buf = nullptr;
    size_t buf_size = 0;
    if (MxcOk(mxc_ndarray_save_to_buffer(arrays, names, count, &so, &buf, &buf_size),
              "mxc_ndarray_save_to_buffer")) {
      mxc_ndarray** again = nullptr;
      char** again_names = nullptr;
      size_t again_count = 0;
      FUZZ_CHECK(MxcOk(mxc_ndarray_load_from_buffer(buf, buf_size, nullptr, &again, &again_names,
                                                    &again_count),
                       "reload"),
                 "the saved bytes do not load");
      FUZZ_CHECK(again_count == count, "count %zu became %zu", count, again_count);
      for (size_t i = 0; i < count; ++i) {
        FUZZ_CHECK(Dims(arrays[i]) == Dims(again[i]), "array %zu: shape changed", i);
        FUZZ_CHECK(Bytes(arrays[i]) == Bytes(again[i]), "array %zu: bytes changed", i);
      }
      mxc_ndarray_array_free(again, again_count);
      if (again_names) mxc_string_array_free(again_names, again_count);
      mxc_bytes_free(buf);
    } else {
      FUZZ_CHECK(names != nullptr, "saving a loaded list failed");  // dicts: duplicate names
    }
  }
  mxc_ndarray_array_free(arrays, count);
  if (names) mxc_string_array_free(names, count);
  return 0;
}
