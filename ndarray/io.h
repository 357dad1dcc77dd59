// MXNet-compatible NDArray files (mx.nd.save / mx.nd.load, npx.save / npx.load): the binary
// NDArray-list format of docs/formats.md §2.1–§2.5 (`.params`, `.nd`) and the NumPy formats MXNet
// 2.x writes (§2.6 `.npy`, §2.7 `.npz`).
//
//   MX_ASSIGN_OR_RETURN(nd::NDArrayFile f, nd::load("resnet-0000.params"));
//   for (size_t i = 0; i < f.size(); ++i) use(f.names[i], f.arrays[i]);
//   MX_RETURN_IF_ERROR(nd::save("out.params", f.items()));
//
// Reading (format sniffed from the first bytes, §2.8):
//  - §2.1 container (magic 0x112) with every record kind of §2.2: legacy (≤0.10, u32 ndim and
//    u32 dims), V1 (0xF993FAC8), V2 (0xF993FAC9) and V3 (0xF993FACA, np-shape); all 13 dtype
//    flags of §2.3; every ctx of §2.3 (arrays are loaded to LoadOptions::device, the stored ctx
//    is reported in RecordInfo::saved_device); names section with 0 (list) or n_arrays (dict)
//    entries, any other count is an error.
//  - "none" (empty) arrays come back as NDArray() (is_none()): legacy/V1/V2 ndim 0, V3 ndim -1.
//    V2 records also treat ndim -1 or a dim of -1 as none (2.x, which loads V2 under global
//    np-shape, does so for a dim of -1; MXNet cannot read ndim -1 at all); V3 ndim 0 is a real
//    0-d scalar.
//  - Sparse V2 records (§2.5, row_sparse and csr) are DENSIFIED by default: the result is a
//    dense array of the record's shape with the stored values scattered in, and
//    RecordInfo::stype tells the stored storage type. With LoadOptions::keep_sparse they load as
//    csr / row_sparse arrays (ndarray/sparse.h), as MXNet's mx.nd.load does. Their indices are
//    validated either way (in range, csr indptr monotonic and ending at nnz). With
//    densify_sparse = false (and keep_sparse off) they give kUnimplemented naming the record.
//    Sparse arrays are saved as sparse V2 records (MXNet's layout; V3 refuses them).
//  - `.npy` (header versions 1.0, 2.0, 3.0; C order; little-endian or byte-order-free descrs of
//    the 13 dtypes) loads as a one-array list. fortran_order True, big-endian, structured and
//    object/string dtypes give kUnimplemented.
//  - `.npz` (zip, stored or deflated members, via libzip) loads as a dict in the zip's
//    directory order (= the writer's order for numpy and MXNet); member names lose `.npy`.
//    MXNet 2.x sparse groups (`<key>/data.npy`, ...) give kUnimplemented naming the key; a
//    member that is not `*.npy` is an error.
//
// Hostile input never crashes and never allocates more than the input can justify: every count
// and size is checked against the bytes that remain BEFORE anything is allocated (a record is at
// least 4 bytes, a name at least 8; dims products are overflow-checked; payloads must be present
// in full; npz members may not claim more than deflate's maximum ratio of their compressed size;
// densified sparse arrays are capped by LoadOptions::max_densified_bytes). Further limits: at
// most 32 dims (NumPy's limit; a legacy record's first u32 above 32 is "no record magic"), dims
// >= 0 (or -1 where it means "none"), dtype flags 0..12, dev_type 1/2/3/5 with dev_id >= 0,
// storage types 0..2 (V3: 0 only). Errors:
//   kDataLoss          corrupt or truncated content (the usual case)
//   kInvalidArgument   not a file of these formats (wrong magic), not a regular file
//   kUnimplemented     valid but unsupported content (see above)
//   kResourceExhausted a sparse record densifying beyond LoadOptions::max_densified_bytes
//   kNotFound / kPermissionDenied / kUnavailable   the file system (errno)
// Messages name the file, the record (or npz member) and the byte offsets involved:
//   "cifar.params: record 1 at byte 0x710: unknown dtype flag 42 at byte 0x72C (valid: 0..12)"
//   "m.params: names section at byte 0x10C960: name 5 at byte 0x10CA20: length 999 exceeds ..."
// Duplicate names in a file are kept as they are (NDArrayFile::find returns the last, like a
// Python dict built from the file).
//
// Trailing bytes: MXNet ignores anything after the names section, and so do we by default
// (NDArrayFile::trailing_bytes tells how many there were); LoadOptions::allow_trailing_bytes =
// false makes them a kDataLoss error. The same holds for bytes after a .npy's data.
//
// Writing: the §2.1 container with V2 records (what MXNet 1.x mx.nd.save writes; dense, stype 0,
// ctx = the array's device, data copied to the host), or V3 records (np-shape, what 1.x npx.save
// and 2.x mx.nd.save write) with SaveOptions::version; `.npy`/`.npz` with SaveOptions::format.
// Saving to a path is atomic: the bytes go to `<path>.tmp-XXXXXX` in the same directory, which is
// fsync'ed and renamed over `path`; on any error the temporary file is removed and `path` is
// untouched.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/device.h"
#include "ndarray/ndarray.h"

namespace mxnet::nd {

// The container a file uses (docs/formats.md §2.1 vs §2.6, §2.7).
enum class FileFormat {
  kNDArrayList,  // §2.1: magic 0x112, records, names (.params / .nd)
  kNpy,          // §2.6: one NumPy array ("\x93NUMPY")
  kNpz,          // §2.7: zip of <name>.npy members ("PK\x03\x04" / "PK\x05\x06")
};
std::string_view FileFormatName(FileFormat f);  // "ndarray-list", "npy", "npz"

// The kind of one §2.2 record, decided by its first u32.
enum class RecordVersion {
  kLegacy = 0,  // ≤0.10: the u32 is ndim, then u32 dims
  kV1 = 1,      // 0xF993FAC8: int64 dims
  kV2 = 2,      // 0xF993FAC9: storage type (dense or sparse), what 1.x mx.nd.save writes
  kV3 = 3,      // 0xF993FACA: np-shape semantics, dense only
};
std::string_view RecordVersionName(RecordVersion v);  // "legacy", "V1", "V2", "V3"

// Storage type of a V2 record (§2.5): mxnet::StorageType (ndarray/ndarray.h).
using ::mxnet::StorageType;
using ::mxnet::StorageTypeName;

// Facts about one loaded array that the NDArray itself does not carry.
struct RecordInfo {
  // §2.1 files: the record's kind; npy/npz: kV3 (NumPy semantics: 0-d is a scalar).
  RecordVersion version = RecordVersion::kV2;
  // Byte offset of the record in the file (npz: of the member's data in the member).
  uint64_t offset = 0;
  // The ctx stored in the record (cpu(0) for none arrays and npy/npz).
  Device saved_device = cpu();
  // The stored storage type (sparse records are densified, see the top of this file).
  StorageType stype = StorageType::kDefault;
};

// The contents of an NDArray file: a list (names empty) or a dict (names[i] names arrays[i]),
// in file order.
struct NDArrayFile {
  FileFormat format = FileFormat::kNDArrayList;
  bool is_dict = false;
  std::vector<std::string> names;   // empty for a list; else one per array, file order
  std::vector<NDArray> arrays;      // none arrays (is_none()) are kept in place
  std::vector<RecordInfo> records;  // one per array
  uint64_t bytes_consumed = 0;      // bytes parsed (file size - trailing_bytes)
  uint64_t trailing_bytes = 0;      // ignored bytes after the names section / .npy data

  size_t size() const { return arrays.size(); }
  bool empty() const { return arrays.empty(); }
  // The array named `name`, or nullptr (also for a list). Duplicate names are kept as the file
  // has them; like MXNet's Python dict, the last one wins here.
  const NDArray* find(std::string_view name) const;
  // (name, array) pairs in file order; names are "" for a list.
  std::vector<std::pair<std::string, NDArray>> items() const;
};

struct LoadOptions {
  // Where loaded arrays are placed (MXNet loads to CPU, then moves to its default device).
  Device device = cpu();
  // Sparse V2 records: keep_sparse loads them as csr / row_sparse arrays (MXNet's behaviour);
  // otherwise densify_sparse densifies them (default) or, false, makes them kUnimplemented.
  bool keep_sparse = false;
  bool densify_sparse = true;
  // Upper bound on the dense bytes one sparse record may expand to (kResourceExhausted above it):
  // the only place where a file could ask for much more memory than its own size.
  uint64_t max_densified_bytes = uint64_t{1} << 30;
  // Ignore bytes after the names section (MXNet does) / after a .npy's data.
  bool allow_trailing_bytes = true;
};

// Loads an NDArray file of any supported format (sniffed per docs/formats.md §2.8). `path` names
// the file in error messages. Errors as described at the top of this file; a missing file is
// kNotFound.
absl::StatusOr<NDArrayFile> load(const std::string& path, const LoadOptions& options = {});

// load() on bytes in memory. `display_name` names the buffer in error messages.
absl::StatusOr<NDArrayFile> load_from_buffer(std::span<const uint8_t> bytes,
                                             const LoadOptions& options = {},
                                             std::string_view display_name = "<buffer>");
absl::StatusOr<NDArrayFile> load_from_buffer(std::string_view bytes,
                                             const LoadOptions& options = {},
                                             std::string_view display_name = "<buffer>");

struct SaveOptions {
  FileFormat format = FileFormat::kNDArrayList;
  // For kNDArrayList: kV2 (MXNet 1.x mx.nd.save; default) or kV3 (np-shape: 1.x npx.save,
  // 2.x mx.nd.save). kLegacy/kV1 are not written (kInvalidArgument).
  // V2 cannot represent a 0-d array (V2 ndim 0 means "none"): saving one is kInvalidArgument
  // suggesting V3. A none array is written as an empty record (V2: ndim 0; V3: ndim -1).
  RecordVersion version = RecordVersion::kV2;
  // fsync the temporary file before renaming it over the target (save to a path only).
  bool fsync = true;
};

// Saves an unnamed list. kNDArrayList: n_names 0 (MXNet loads a list). kNpy: exactly one array
// (else kInvalidArgument). kNpz: members arr_0.npy, arr_1.npy, … (what 2.x npx.savez does).
// None arrays cannot be written to npy/npz (kInvalidArgument). Arrays on any device are copied to
// the host; their device is recorded as the ctx (§2.2).
absl::Status save(const std::string& path, const std::vector<NDArray>& arrays,
                  const SaveOptions& options = {});
// Saves named arrays in the given order (a dict). Names must be unique (kInvalidArgument
// otherwise). An empty dict is written with n_names 0 and therefore loads as an empty list, as
// in MXNet. kNpz: members <name>.npy; kNpy is refused for dicts.
absl::Status save(const std::string& path,
                  const std::vector<std::pair<std::string, NDArray>>& named_arrays,
                  const SaveOptions& options = {});
// Saves a loaded file back (list or dict as it was).
absl::Status save(const std::string& path, const NDArrayFile& file,
                  const SaveOptions& options = {});

// The bytes save() would write.
absl::StatusOr<std::string> save_to_buffer(const std::vector<NDArray>& arrays,
                                           const SaveOptions& options = {});
absl::StatusOr<std::string> save_to_buffer(
    const std::vector<std::pair<std::string, NDArray>>& named_arrays,
    const SaveOptions& options = {});

}  // namespace mxnet::nd
