// Fuzz target: NDArray files from memory (nd::load_from_buffer): .params/.nd (legacy, V1, V2 with
// sparse records, V3), .npy (1.0-3.0) and .npz (stored/deflated zip). Built twice with different
// seed corpora (ndarray_params_fuzzer, ndarray_npy_fuzzer); the format is sniffed from the bytes.
//
// Invariants checked on every input (a violation aborts = a finding):
//  - no crash, no exception escapes (load_from_buffer returns a Status), no hang, no allocation
//    beyond what the bytes justify: dense payloads must be present in the input, sparse records
//    densify to at most LoadOptions::max_densified_bytes (set to 16 MiB here);
//  - an error's message names the buffer ("fuzz-input");
//  - allow_trailing_bytes = false succeeds exactly when the lenient load reported no trailing
//    bytes;
//  - a loaded file saved again (V3 records, which represent every dtype, 0-d and none arrays)
//    loads back with the same names, shapes, dtypes and bytes.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ndarray/io.h"
#include "tools/fuzz/fuzz_check.h"

using mxnet::NDArray;
namespace nd = mxnet::nd;

namespace {

void CheckSame(const NDArray& a, const NDArray& b, size_t i) {
  FUZZ_CHECK(a.is_none() == b.is_none(), "array %zu: none-ness changed in the round trip", i);
  if (a.is_none()) return;
  FUZZ_CHECK(a.shape() == b.shape(), "array %zu: shape %s became %s", i,
             a.shape().ToString().c_str(), b.shape().ToString().c_str());
  FUZZ_CHECK(a.dtype() == b.dtype(), "array %zu: dtype changed", i);
  FUZZ_CHECK(a.nbytes() == b.nbytes(), "array %zu: nbytes changed", i);
  if (a.nbytes() > 0)
    FUZZ_CHECK(std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0,
               "array %zu: bytes changed in the round trip", i);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  nd::LoadOptions opts;
  // The cap an application reading untrusted files would set (the default, 1 GiB, lets a
  // 300-byte sparse record densify to 1 GiB of zeros: docs/reliability.md, findings).
  opts.max_densified_bytes = uint64_t{16} << 20;
  auto f = nd::load_from_buffer(bytes, opts, "fuzz-input");
  nd::LoadOptions strict = opts;
  strict.allow_trailing_bytes = false;
  auto g = nd::load_from_buffer(bytes, strict, "fuzz-input");
  if (!f.ok()) {
    FUZZ_CHECK(f.status().message().find("fuzz-input") != std::string_view::npos,
               "error does not name the buffer: %s", f.status().ToString().c_str());
    FUZZ_CHECK(!g.ok(), "strict load succeeded where the lenient one failed");
    return 0;
  }
  FUZZ_CHECK(f->arrays.size() == f->records.size(), "records/arrays size mismatch");
  FUZZ_CHECK(!f->is_dict || f->names.size() == f->arrays.size(), "names/arrays size mismatch");
  FUZZ_CHECK(f->bytes_consumed + f->trailing_bytes == size, "consumed %llu + trailing %llu != %zu",
             static_cast<unsigned long long>(f->bytes_consumed),
             static_cast<unsigned long long>(f->trailing_bytes), size);
  FUZZ_CHECK(g.ok() == (f->trailing_bytes == 0), "strict load: %s with %llu trailing bytes",
             g.ok() ? "OK" : g.status().ToString().c_str(),
             static_cast<unsigned long long>(f->trailing_bytes));

  // Round trip through the writer (V3 records).
  nd::SaveOptions so;
  so.version = nd::RecordVersion::kV3;
  absl::StatusOr<std::string> saved;
  if (f->is_dict) {
    saved = nd::save_to_buffer(f->items(), so);
    if (!saved.ok()) return 0;  // duplicate names cannot be written (documented)
  } else {
    saved = nd::save_to_buffer(f->arrays, so);
    FUZZ_CHECK(saved.ok(), "saving a loaded list failed: %s", saved.status().ToString().c_str());
  }
  auto r = nd::load_from_buffer(*saved, opts, "round-trip");
  FUZZ_CHECK(r.ok(), "reloading the saved bytes failed: %s", r.status().ToString().c_str());
  FUZZ_CHECK(r->arrays.size() == f->arrays.size(), "array count changed");
  // An empty dict is written as (and loads as) an empty list, as in MXNet.
  if (!f->arrays.empty()) FUZZ_CHECK(r->is_dict == f->is_dict, "dict-ness changed");
  for (size_t i = 0; i < f->arrays.size(); ++i) {
    if (f->is_dict) FUZZ_CHECK(r->names[i] == f->names[i], "name %zu changed", i);
    CheckSame(f->arrays[i], r->arrays[i], i);
  }
  return 0;
}
