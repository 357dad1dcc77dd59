// MXNet-compatible NDArray files; see io.h and docs/formats.md §2.
#include "ndarray/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "base/error.h"
#include "base/strings.h"
#include "ndarray/sparse.h"
#include "ndarray/zip.h"

namespace mxnet::nd {

// Multi-byte fields and tensor payloads are little-endian on disk and copied as-is.
static_assert(std::endian::native == std::endian::little,
              "ndarray/io.cc assumes a little-endian host (the on-disk byte order)");

std::string_view FileFormatName(FileFormat f) {
  switch (f) {
    case FileFormat::kNDArrayList:
      return "ndarray-list";
    case FileFormat::kNpy:
      return "npy";
    case FileFormat::kNpz:
      return "npz";
  }
  return "unknown";
}

std::string_view RecordVersionName(RecordVersion v) {
  switch (v) {
    case RecordVersion::kLegacy:
      return "legacy";
    case RecordVersion::kV1:
      return "V1";
    case RecordVersion::kV2:
      return "V2";
    case RecordVersion::kV3:
      return "V3";
  }
  return "unknown";
}

const NDArray* NDArrayFile::find(std::string_view name) const {
  if (!is_dict) return nullptr;
  for (size_t i = names.size(); i-- > 0;)
    if (names[i] == name) return &arrays[i];
  return nullptr;
}

std::vector<std::pair<std::string, NDArray>> NDArrayFile::items() const {
  std::vector<std::pair<std::string, NDArray>> out;
  out.reserve(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i)
    out.emplace_back(is_dict && i < names.size() ? names[i] : std::string(), arrays[i]);
  return out;
}

namespace {

constexpr uint64_t kListMagic = 0x112;  // kMXAPINDArrayListMagic
constexpr uint32_t kV1Magic = 0xF993FAC8;
constexpr uint32_t kV2Magic = 0xF993FAC9;
constexpr uint32_t kV3Magic = 0xF993FACA;
// NumPy 1.x's NPY_MAXDIMS; no MXNet file has more.
constexpr int kMaxNdim = 32;
// The smallest record: a legacy "none" record is its u32 ndim (0) alone.
constexpr uint64_t kMinRecordBytes = 4;
constexpr char kNpyMagic[] = "\x93NUMPY";  // 6 bytes + NUL
constexpr size_t kNpyMagicLen = 6;
// Deflate cannot expand by more than about 1032:1; members claiming more are corrupt.
constexpr uint64_t kMaxDeflateRatio = 1100;

std::string Hex(uint64_t v) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  char buf[24];
  int n = 0;
  do {
    buf[n++] = kDigits[v & 15];
    v >>= 4;
  } while (v != 0);
  std::string out = "0x";
  while (n > 0) out += buf[--n];
  return out;
}

// Status messages are absl::string_view, which Debian's Abseil does not convert to std's.
std::string_view Msg(const absl::Status& s) {
  return std::string_view(s.message().data(), s.message().size());
}

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r returns the message pointer.
  return std::string(strerror_r(err, buf, sizeof buf));
}

absl::StatusCode CodeFromErrno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::StatusCode::kNotFound;
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::StatusCode::kPermissionDenied;
    case ENOSPC:
    case EDQUOT:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kUnavailable;
  }
}

// Element count of `dims` (all >= 0) times `elem_size`, or nullopt on overflow. The product of
// the non-zero dims must fit in int64 even when a dim is 0: Shape::Size() multiplies left to
// right, so (2^62, 4, 0) would overflow there although it has no elements.
std::optional<uint64_t> CheckedBytes(const std::vector<int64_t>& dims, uint64_t elem_size) {
  uint64_t n = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d == 0) {
      zero = true;
      continue;
    }
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return std::nullopt;
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  }
  if (zero) return 0;
  if (__builtin_mul_overflow(n, elem_size, &n)) return std::nullopt;
  return n;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) StrAppend(&s, i ? ", " : "", dims[i]);
  if (dims.size() == 1) s += ",";
  return s + ")";
}

// ---------------------------------------------------------------------------------------------
// Byte sources: a span in memory, a file descriptor (buffered), a zip member.

class Source {
 public:
  explicit Source(uint64_t size) : size_(size) {}
  virtual ~Source() = default;
  uint64_t size() const { return size_; }
  uint64_t offset() const { return offset_; }
  uint64_t remaining() const { return size_ - offset_; }
  // Reads exactly n bytes. Callers check n <= remaining() first (with a precise message); an
  // I/O failure or a source shorter than announced gives kDataLoss/kUnavailable.
  absl::Status Read(void* dst, size_t n) {
    if (n > remaining()) return absl::InternalError(StrCat("read of ", n, " bytes past the end"));
    if (n == 0) return absl::OkStatus();
    MX_RETURN_IF_ERROR(DoRead(dst, n));
    offset_ += n;
    return absl::OkStatus();
  }
  absl::Status Skip(uint64_t n) {
    char scratch[16384];
    while (n > 0) {
      size_t k = static_cast<size_t>(std::min<uint64_t>(n, sizeof scratch));
      MX_RETURN_IF_ERROR(Read(scratch, k));
      n -= k;
    }
    return absl::OkStatus();
  }

 protected:
  virtual absl::Status DoRead(void* dst, size_t n) = 0;

 private:
  uint64_t size_;
  uint64_t offset_ = 0;
};

class BufferSource final : public Source {
 public:
  explicit BufferSource(std::span<const uint8_t> bytes) : Source(bytes.size()), bytes_(bytes) {}

 protected:
  absl::Status DoRead(void* dst, size_t n) override {
    std::memcpy(dst, bytes_.data() + offset(), n);
    return absl::OkStatus();
  }

 private:
  std::span<const uint8_t> bytes_;
};

class FdSource final : public Source {
 public:
  FdSource(int fd, uint64_t size) : Source(size), fd_(fd), buf_(1 << 16) {}

 protected:
  absl::Status DoRead(void* dst, size_t n) override {
    char* out = static_cast<char*>(dst);
    size_t take = std::min(n, len_ - pos_);
    std::memcpy(out, buf_.data() + pos_, take);
    pos_ += take;
    out += take;
    n -= take;
    if (n == 0) return absl::OkStatus();
    if (n >= buf_.size()) return ReadFully(out, n);  // large payloads go straight to the array
    size_t want = static_cast<size_t>(
        std::min<uint64_t>(buf_.size(), remaining() - take));  // never read past the file
    MX_RETURN_IF_ERROR(ReadFully(buf_.data(), want));
    len_ = want;
    pos_ = 0;
    std::memcpy(out, buf_.data(), n);
    pos_ = n;
    return absl::OkStatus();
  }

 private:
  absl::Status ReadFully(char* p, size_t n) {
    while (n > 0) {
      ssize_t got = ::read(fd_, p, std::min<size_t>(n, size_t{1} << 30));
      if (got < 0) {
        if (errno == EINTR) continue;
        return absl::Status(absl::StatusCode::kDataLoss, StrCat("read error: ", ErrnoText(errno)));
      }
      if (got == 0)
        return absl::DataLossError("the file ended early (was it truncated while being read?)");
      p += got;
      n -= static_cast<size_t>(got);
    }
    return absl::OkStatus();
  }

  int fd_;
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
};

class ZipMemberSource final : public Source {
 public:
  ZipMemberSource(zip_internal::ZipMemberReader* r, uint64_t size) : Source(size), r_(r) {}

 protected:
  absl::Status DoRead(void* dst, size_t n) override { return r_->Read(dst, n); }

 private:
  zip_internal::ZipMemberReader* r_;
};

// ---------------------------------------------------------------------------------------------
// Reading with errors that name the file, the context (record, member) and the byte offset.

class Reader {
 public:
  Reader(Source& src, std::string prefix, const LoadOptions& opt)
      : src_(src), prefix_(std::move(prefix)), opt_(opt) {}

  Source& src() { return src_; }
  void set_context(std::string ctx) { ctx_ = std::move(ctx); }

  absl::Status Error(absl::StatusCode code, std::string_view msg) const {
    return absl::Status(code, StrCat(prefix_, ctx_.empty() ? "" : ": ", ctx_, ": ", msg));
  }
  absl::Status Corrupt(std::string_view msg) const {
    return Error(absl::StatusCode::kDataLoss, msg);
  }
  // Prefixes an error from a Source or a helper with the file and context.
  absl::Status Wrap(const absl::Status& s) const { return s.ok() ? s : Error(s.code(), Msg(s)); }

  absl::Status Need(uint64_t n, std::string_view what) const {
    if (n <= src_.remaining()) return absl::OkStatus();
    return Corrupt(StrCat("truncated: ", what, " needs ", n, " bytes at byte ", Hex(src_.offset()),
                          " but only ", src_.remaining(), " remain"));
  }
  absl::Status ReadBytes(void* dst, uint64_t n, std::string_view what) {
    MX_RETURN_IF_ERROR(Need(n, what));
    return Wrap(src_.Read(dst, static_cast<size_t>(n)));
  }
  template <typename T>
  absl::Status ReadPod(T* v, std::string_view what) {
    return ReadBytes(v, sizeof(T), what);
  }

  // Allocates a host array of `dims`/`dtype` and fills it with the next `bytes` bytes, which the
  // caller has checked to be present.
  absl::StatusOr<NDArray> ReadArray(const std::vector<int64_t>& dims, DType dtype, uint64_t bytes,
                                    std::string_view what) {
    MX_RETURN_IF_ERROR(Need(bytes, what));
    NDArray a;
    absl::Status st = StatusFromCall([&] { a = NDArray(Shape(dims), cpu(), dtype); });
    if (!st.ok()) return Wrap(st);
    MX_RETURN_IF_ERROR(Wrap(src_.Read(a.data_ptr(), static_cast<size_t>(bytes))));
    a.mark_written();
    return a;
  }

 protected:
  Source& src_;
  std::string prefix_;
  std::string ctx_;
  const LoadOptions& opt_;
};

// ---- docs/formats.md §2.1/§2.2: the NDArray-list container. ----

struct RawShape {
  int64_t ndim = 0;  // -1 = unknown
  std::vector<int64_t> dims;
  bool unknown() const { return ndim < 0 || std::find(dims.begin(), dims.end(), -1) != dims.end(); }
};

class ListParser : public Reader {
 public:
  using Reader::Reader;

  absl::StatusOr<NDArrayFile> Parse() {
    NDArrayFile f;
    f.format = FileFormat::kNDArrayList;
    set_context("header");
    if (src_.size() < 24)
      return Corrupt(StrCat("truncated: the file is ", src_.size(),
                            " bytes, shorter than the 24-byte header (magic, reserved, count) "
                            "at byte 0x0"));
    uint64_t magic = 0, reserved = 0, n = 0;
    MX_RETURN_IF_ERROR(ReadPod(&magic, "magic"));
    if (magic != kListMagic)
      return Error(absl::StatusCode::kInvalidArgument,
                   StrCat("not an MXNet NDArray file: magic ", Hex(magic),
                          " at byte 0x0 (expected 0x112, an .npy or an .npz file)"));
    MX_RETURN_IF_ERROR(ReadPod(&reserved, "reserved field"));
    uint64_t count_at = src_.offset();
    MX_RETURN_IF_ERROR(ReadPod(&n, "array count"));
    // Each record takes at least 4 bytes and the names section at least 8.
    uint64_t room = src_.remaining() >= 8 ? src_.remaining() - 8 : 0;
    if (n > room / kMinRecordBytes)
      return Corrupt(StrCat("array count ", n, " at byte ", Hex(count_at),
                            " cannot fit in the remaining ", src_.remaining(),
                            " bytes (a record takes at least ", kMinRecordBytes,
                            " bytes, the names section 8)"));
    // Grow with the records actually parsed, not with what the count claims.
    f.arrays.reserve(static_cast<size_t>(std::min<uint64_t>(n, 4096)));
    f.records.reserve(static_cast<size_t>(std::min<uint64_t>(n, 4096)));
    for (uint64_t i = 0; i < n; ++i) {
      set_context(StrCat("record ", i, " at byte ", Hex(src_.offset())));
      MX_RETURN_IF_ERROR(ReadRecord(&f));
    }
    set_context(StrCat("names section at byte ", Hex(src_.offset())));
    uint64_t n_names = 0;
    uint64_t names_at = src_.offset();
    MX_RETURN_IF_ERROR(ReadPod(&n_names, "name count"));
    if (n_names != 0 && n_names != n)
      return Corrupt(StrCat("name count ", n_names, " at byte ", Hex(names_at), " for ", n,
                            " arrays (must be 0 for a list or ", n, " for a dict)"));
    f.is_dict = n_names != 0;
    f.names.reserve(static_cast<size_t>(std::min<uint64_t>(n_names, 4096)));
    for (uint64_t i = 0; i < n_names; ++i) {
      uint64_t len = 0;
      uint64_t at = src_.offset();
      MX_RETURN_IF_ERROR(ReadPod(&len, StrCat("length of name ", i)));
      if (len > src_.remaining())
        return Corrupt(StrCat("name ", i, " at byte ", Hex(at), ": length ", len,
                              " exceeds the remaining ", src_.remaining(), " bytes"));
      std::string name(static_cast<size_t>(len), '\0');
      MX_RETURN_IF_ERROR(ReadBytes(name.data(), len, StrCat("name ", i)));
      f.names.push_back(std::move(name));
    }
    f.bytes_consumed = src_.offset();
    f.trailing_bytes = src_.remaining();
    if (f.trailing_bytes > 0 && !opt_.allow_trailing_bytes) {
      set_context("");
      return Corrupt(StrCat(f.trailing_bytes, " unexpected bytes after the names section at byte ",
                            Hex(f.bytes_consumed)));
    }
    return f;
  }

 private:
  absl::StatusOr<RawShape> ReadShape64(std::string_view what) {
    RawShape s;
    int32_t ndim = 0;
    uint64_t at = src_.offset();
    MX_RETURN_IF_ERROR(ReadPod(&ndim, StrCat(what, " ndim")));
    if (ndim < -1) return Corrupt(StrCat(what, ": negative ndim ", ndim, " at byte ", Hex(at)));
    if (ndim > kMaxNdim)
      return Corrupt(StrCat(what, ": ndim ", ndim, " at byte ", Hex(at), " exceeds ", kMaxNdim));
    s.ndim = ndim;
    if (ndim <= 0) return s;
    at = src_.offset();
    s.dims.resize(static_cast<size_t>(ndim));
    MX_RETURN_IF_ERROR(ReadBytes(s.dims.data(), s.dims.size() * 8, StrCat(what, " dims")));
    for (int k = 0; k < ndim; ++k)
      if (s.dims[k] < -1)
        return Corrupt(StrCat(what, ": dim ", k, " is negative (", s.dims[k], ") at byte ",
                              Hex(at + 8 * static_cast<uint64_t>(k))));
    return s;
  }

  absl::StatusOr<Device> ReadCtx() {
    int32_t dev[2];
    uint64_t at = src_.offset();
    MX_RETURN_IF_ERROR(ReadBytes(dev, sizeof dev, "ctx (dev_type, dev_id)"));
    auto type = DeviceTypeFromInt(dev[0]);
    if (!type.ok())
      return Corrupt(StrCat("unknown ctx: device type ", dev[0], " at byte ", Hex(at),
                            " (expected 1 cpu, 2 gpu, 3 cpu_pinned, 5 cpu_shared)"));
    if (dev[1] < 0) return Corrupt(StrCat("negative device id ", dev[1], " at byte ", Hex(at + 4)));
    return Device{*type, dev[1]};
  }

  absl::StatusOr<DType> ReadDType(std::string_view what) {
    int32_t flag = 0;
    uint64_t at = src_.offset();
    MX_RETURN_IF_ERROR(ReadPod(&flag, what));
    auto t = DTypeFromFlag(flag);
    if (!t.ok())
      return Corrupt(StrCat("unknown ", what, " ", flag, " at byte ", Hex(at), " (valid: 0..12)"));
    return *t;
  }

  absl::StatusOr<uint64_t> PayloadBytes(const std::vector<int64_t>& dims, DType t,
                                        std::string_view what) {
    auto bytes = CheckedBytes(dims, DTypeSize(t));
    if (!bytes)
      return Corrupt(StrCat(what, ": shape ", DimsString(dims), " of ", DTypeName(t),
                            " overflows 64-bit byte counts"));
    MX_RETURN_IF_ERROR(
        Need(*bytes, StrCat(what, " of shape ", DimsString(dims), " ", DTypeName(t))));
    return *bytes;
  }

  absl::Status ReadRecord(NDArrayFile* f) {
    RecordInfo info;
    info.offset = src_.offset();
    uint32_t first = 0;
    MX_RETURN_IF_ERROR(ReadPod(&first, "record magic / ndim"));
    if (first == kV2Magic || first == kV3Magic) {
      info.version = first == kV2Magic ? RecordVersion::kV2 : RecordVersion::kV3;
      return ReadV2V3(f, info);
    }
    RawShape shape;
    if (first == kV1Magic) {
      info.version = RecordVersion::kV1;
      MX_ASSIGN_OR_RETURN(shape, ReadShape64("shape"));
      if (shape.ndim < 0) return Corrupt(StrCat("V1 record with negative ndim ", shape.ndim));
      for (int64_t d : shape.dims)
        if (d < 0)
          return Corrupt(StrCat("V1 record with negative dim in ", DimsString(shape.dims)));
    } else {
      // Legacy (≤0.10): the u32 is ndim, followed by u32 dims.
      info.version = RecordVersion::kLegacy;
      if (first > static_cast<uint32_t>(kMaxNdim))
        return Corrupt(StrCat("first u32 ", Hex(first), " at byte ", Hex(info.offset),
                              " is no record magic (V1 0xF993FAC8, V2 0xF993FAC9, V3 0xF993FACA) "
                              "and too large for a legacy ndim (at most ",
                              kMaxNdim, ")"));
      shape.ndim = first;
      std::vector<uint32_t> dims(first);
      MX_RETURN_IF_ERROR(ReadBytes(dims.data(), dims.size() * 4, "legacy dims"));
      shape.dims.assign(dims.begin(), dims.end());
    }
    if (shape.ndim == 0) {  // legacy/V1: ndim 0 is a none array; the record ends here
      f->arrays.emplace_back();
      f->records.push_back(info);
      return absl::OkStatus();
    }
    MX_ASSIGN_OR_RETURN(info.saved_device, ReadCtx());
    MX_ASSIGN_OR_RETURN(DType dtype, ReadDType("dtype flag"));
    MX_ASSIGN_OR_RETURN(uint64_t bytes, PayloadBytes(shape.dims, dtype, "data"));
    MX_ASSIGN_OR_RETURN(NDArray a, ReadArray(shape.dims, dtype, bytes, "data"));
    f->arrays.push_back(std::move(a));
    f->records.push_back(info);
    return absl::OkStatus();
  }

  absl::Status ReadV2V3(NDArrayFile* f, RecordInfo info) {
    const bool v3 = info.version == RecordVersion::kV3;
    int32_t stype_raw = 0;
    uint64_t at = src_.offset();
    MX_RETURN_IF_ERROR(ReadPod(&stype_raw, "storage type"));
    if (stype_raw < 0 || stype_raw > 2)
      return Corrupt(StrCat("unknown storage type ", stype_raw, " at byte ", Hex(at),
                            " (0 default, 1 row_sparse, 2 csr)"));
    info.stype = static_cast<StorageType>(stype_raw);
    if (v3 && info.stype != StorageType::kDefault)
      return Corrupt(StrCat("V3 record with storage type ", StorageTypeName(info.stype),
                            " at byte ", Hex(at), " (V3 records are always dense)"));
    const int n_aux = stype_raw;  // row_sparse 1 (indices), csr 2 (indptr, indices)
    RawShape sshape;
    if (n_aux > 0) {
      MX_ASSIGN_OR_RETURN(sshape, ReadShape64("storage shape"));
    }
    MX_ASSIGN_OR_RETURN(RawShape shape, ReadShape64("shape"));
    // Empty ("none") arrays: the writer stops after the shape (docs/formats.md §2.4).
    bool none = v3 ? shape.unknown() : (shape.ndim == 0 || shape.unknown());
    if (none) {
      f->arrays.emplace_back();
      f->records.push_back(info);
      return absl::OkStatus();
    }
    MX_ASSIGN_OR_RETURN(info.saved_device, ReadCtx());
    MX_ASSIGN_OR_RETURN(DType dtype, ReadDType("dtype flag"));
    if (n_aux == 0) {
      MX_ASSIGN_OR_RETURN(uint64_t bytes, PayloadBytes(shape.dims, dtype, "data"));
      MX_ASSIGN_OR_RETURN(NDArray a, ReadArray(shape.dims, dtype, bytes, "data"));
      f->arrays.push_back(std::move(a));
      f->records.push_back(info);
      return absl::OkStatus();
    }
    const bool keep = opt_.keep_sparse;
    if (!opt_.densify_sparse && !keep)
      return Error(absl::StatusCode::kUnimplemented,
                   StrCat("sparse storage type ", StorageTypeName(info.stype),
                          " is not supported (LoadOptions::densify_sparse is off)"));
    if (sshape.unknown())
      return Corrupt(StrCat("sparse record with unknown storage shape ", DimsString(sshape.dims)));
    DType aux_types[2] = {DType::kInt64, DType::kInt64};
    RawShape aux_shapes[2];
    for (int k = 0; k < n_aux; ++k) {
      MX_ASSIGN_OR_RETURN(aux_types[k], ReadDType(StrCat("aux ", k, " dtype flag")));
      MX_ASSIGN_OR_RETURN(aux_shapes[k], ReadShape64(StrCat("aux ", k, " shape")));
      if (aux_shapes[k].unknown()) return Corrupt(StrCat("aux ", k, " has an unknown shape"));
    }
    // MXNet's NDArray constructor replaces a storage shape of size 0 by the one the aux shapes
    // give (csr: indices; row_sparse: shape with dim 0 = number of indices), so its loader reads
    // the values by that shape.
    if (auto sbytes = CheckedBytes(sshape.dims, 1); sbytes && *sbytes == 0) {
      if (info.stype == StorageType::kCSR && n_aux == 2) {
        sshape.dims = aux_shapes[1].dims;
      } else if (info.stype == StorageType::kRowSparse && !shape.dims.empty() &&
                 !aux_shapes[0].dims.empty()) {
        sshape.dims = shape.dims;
        sshape.dims[0] = aux_shapes[0].dims[0];
      }
      sshape.ndim = static_cast<int64_t>(sshape.dims.size());
    }
    uint64_t values_at = src_.offset();
    MX_ASSIGN_OR_RETURN(uint64_t vbytes, PayloadBytes(sshape.dims, dtype, "sparse values"));
    std::vector<char> values(static_cast<size_t>(vbytes));
    MX_RETURN_IF_ERROR(ReadBytes(values.data(), vbytes, "sparse values"));
    std::vector<int64_t> aux[2];
    for (int k = 0; k < n_aux; ++k) {
      if (IsFloatingPoint(aux_types[k]) || aux_types[k] == DType::kBool)
        return Corrupt(StrCat("aux ", k, " has non-integer dtype ", DTypeName(aux_types[k])));
      MX_ASSIGN_OR_RETURN(uint64_t abytes, PayloadBytes(aux_shapes[k].dims, aux_types[k],
                                                        StrCat("aux ", k, " data")));
      std::vector<char> raw(static_cast<size_t>(abytes));
      MX_RETURN_IF_ERROR(ReadBytes(raw.data(), abytes, StrCat("aux ", k, " data")));
      size_t count = abytes / DTypeSize(aux_types[k]);
      aux[k].resize(count);
      if (aux_types[k] == DType::kUint64) {  // keep huge values out of range, not negative
        const auto* u = reinterpret_cast<const uint64_t*>(raw.data());
        for (size_t j = 0; j < count; ++j)
          aux[k][j] = u[j] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                          ? std::numeric_limits<int64_t>::max()
                          : static_cast<int64_t>(u[j]);
      } else if (count > 0) {
        ConvertElements(raw.data(), aux_types[k], aux[k].data(), DType::kInt64, count);
      }
    }
    auto dense_bytes = CheckedBytes(shape.dims, DTypeSize(dtype));
    if (!dense_bytes)
      return Corrupt(StrCat("sparse shape ", DimsString(shape.dims), " overflows byte counts"));
    if (!keep && *dense_bytes > opt_.max_densified_bytes)
      return Error(absl::StatusCode::kResourceExhausted,
                   StrCat(StorageTypeName(info.stype), " array of shape ", DimsString(shape.dims),
                          " would densify to ", *dense_bytes,
                          " bytes, more than LoadOptions::max_densified_bytes (",
                          opt_.max_densified_bytes, ")"));
    std::vector<char> dense(keep ? 0 : static_cast<size_t>(*dense_bytes), 0);
    const size_t es = DTypeSize(dtype);
    if (info.stype == StorageType::kRowSparse) {
      // storage shape (rows_stored, rest...) with rest == shape[1:]; indices (rows_stored,).
      if (shape.dims.size() < 1 || sshape.dims.size() != shape.dims.size() ||
          !std::equal(shape.dims.begin() + 1, shape.dims.end(), sshape.dims.begin() + 1))
        return Corrupt(StrCat("row_sparse storage shape ", DimsString(sshape.dims),
                              " does not match shape ", DimsString(shape.dims)));
      const int64_t rows_stored = sshape.dims[0];
      if (aux_shapes[0].dims != std::vector<int64_t>{rows_stored})
        return Corrupt(StrCat("row_sparse indices shape ", DimsString(aux_shapes[0].dims),
                              ", expected (", rows_stored, ",)"));
      const size_t row_bytes =
          rows_stored > 0 ? values.size() / static_cast<size_t>(rows_stored) : 0;
      for (int64_t r = 0; r < rows_stored; ++r) {
        int64_t row = aux[0][r];
        if (row < 0 || row >= shape.dims[0])
          return Corrupt(StrCat("row_sparse index ", r, " is ", row, ", outside [0, ",
                                shape.dims[0], ") (values at byte ", Hex(values_at), ")"));
        if (r > 0 && row <= aux[0][r - 1])
          return Corrupt(StrCat("row_sparse indices must be strictly ascending: index ", r, " is ",
                                row, " after ", aux[0][r - 1]));
        if (row_bytes > 0 && !keep)
          std::memcpy(dense.data() + static_cast<size_t>(row) * row_bytes,
                      values.data() + static_cast<size_t>(r) * row_bytes, row_bytes);
      }
    } else {
      // csr: shape (rows, cols); storage shape (nnz,); indptr (rows+1,); indices (nnz,).
      if (shape.dims.size() != 2 || sshape.dims.size() != 1)
        return Corrupt(StrCat("csr shape ", DimsString(shape.dims), " / storage shape ",
                              DimsString(sshape.dims), " (expected 2-D / 1-D)"));
      const int64_t rows = shape.dims[0], cols = shape.dims[1], nnz = sshape.dims[0];
      // (Compared as dims[0] - 1 == rows: rows + 1 could overflow.)
      if (aux_shapes[0].dims.size() != 1 || aux_shapes[0].dims[0] - 1 != rows ||
          aux_shapes[1].dims != std::vector<int64_t>{nnz})
        return Corrupt(StrCat("csr indptr shape ", DimsString(aux_shapes[0].dims),
                              " / indices shape ", DimsString(aux_shapes[1].dims),
                              ", expected (rows + 1,) = (", rows, " + 1,) / (", nnz, ",)"));
      const auto& indptr = aux[0];
      const auto& indices = aux[1];
      if (indptr[0] != 0 || indptr[rows] != nnz)
        return Corrupt(StrCat("csr indptr must start at 0 and end at nnz ", nnz, " (got ",
                              indptr[0], " .. ", indptr[rows], ")"));
      for (int64_t r = 0; r < rows; ++r)
        if (indptr[r + 1] < indptr[r]) return Corrupt(StrCat("csr indptr decreases at row ", r));
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = indptr[r]; j < indptr[r + 1]; ++j) {
          int64_t c = indices[j];
          if (c < 0 || c >= cols)
            return Corrupt(StrCat("csr column index ", j, " is ", c, ", outside [0, ", cols, ")"));
          if (!keep)
            std::memcpy(dense.data() + (static_cast<size_t>(r) * cols + c) * es,
                        values.data() + static_cast<size_t>(j) * es, es);
        }
      }
    }
    NDArray a;
    absl::Status st = StatusFromCall([&] {
      if (keep) {  // the stored parts as they are (aux as int64), checked above
        NDArray vals(Shape(sshape.dims), cpu(), dtype);
        if (!values.empty()) vals.SyncCopyFromCPU(values.data(), values.size());
        auto i64 = [](const std::vector<int64_t>& v) {
          return NDArray::FromVector<int64_t>(v, Shape({static_cast<int64_t>(v.size())}));
        };
        a = info.stype == StorageType::kCSR
                ? csr_matrix(vals, i64(aux[1]), i64(aux[0]), Shape(shape.dims))
                : row_sparse_array(vals, i64(aux[0]), Shape(shape.dims));
        return;
      }
      a = NDArray(Shape(shape.dims), cpu(), dtype);
      if (!dense.empty()) a.SyncCopyFromCPU(dense.data(), dense.size());
    });
    MX_RETURN_IF_ERROR(Wrap(st));
    f->arrays.push_back(std::move(a));
    f->records.push_back(info);
    return absl::OkStatus();
  }
};

// ---- docs/formats.md §2.6: .npy ----

// A Python literal as found in .npy headers: str, int, bool, None, tuple, list, dict.
struct PyValue {
  enum Kind { kStr, kInt, kBool, kNone, kTuple, kList, kDict } kind = kNone;
  std::string str;
  int64_t num = 0;
  bool flag = false;
  std::vector<PyValue> items;     // kTuple, kList; kDict: the values
  std::vector<std::string> keys;  // kDict: the keys (strings), one per value
  // (Parallel vectors: a vector of pair<string, PyValue> inside PyValue needs the incomplete
  // PyValue complete, which clang's libstdc++ C++20 checks reject.)
};

class PyLiteralParser {
 public:
  explicit PyLiteralParser(std::string_view text) : t_(text) {}

  // Parses the whole text as one value (surrounding whitespace allowed).
  bool Parse(PyValue* out) {
    if (!Value(out, 0)) return false;
    SkipSpace();
    if (pos_ != t_.size()) return Fail("unexpected text after the dict");
    return true;
  }
  const std::string& error() const { return err_; }

 private:
  static constexpr int kMaxDepth = 8;

  bool Fail(std::string_view what) {
    if (err_.empty()) err_ = StrCat(what, " at column ", pos_);
    return false;
  }
  void SkipSpace() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r'))
      ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Word(std::string_view w) {
    if (t_.substr(pos_, w.size()) != w) return false;
    size_t end = pos_ + w.size();
    if (end < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[end])) || t_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }
  bool String(std::string* out) {
    char q = t_[pos_++];
    while (pos_ < t_.size() && t_[pos_] != q) {
      if (t_[pos_] == '\\') {
        if (++pos_ >= t_.size()) break;
      }
      *out += t_[pos_++];
    }
    if (pos_ >= t_.size()) return Fail("unterminated string");
    ++pos_;
    return true;
  }
  bool Int(int64_t* out) {
    size_t start = pos_;
    bool neg = false;
    if (t_[pos_] == '-' || t_[pos_] == '+') neg = t_[pos_++] == '-';
    uint64_t v = 0;
    size_t digits = 0;
    while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') {
      if (__builtin_mul_overflow(v, 10u, &v) ||
          __builtin_add_overflow(v, uint64_t(t_[pos_] - '0'), &v) ||
          v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Fail("integer out of range");
      ++pos_;
      ++digits;
    }
    if (digits == 0) {
      pos_ = start;
      return Fail("expected a value");
    }
    if (pos_ < t_.size() && (t_[pos_] == 'L' || t_[pos_] == 'l')) ++pos_;  // Python 2 long
    *out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }
  bool Sequence(PyValue* out, char close, int depth) {
    while (true) {
      SkipSpace();
      if (Eat(close)) return true;
      PyValue v;
      if (!Value(&v, depth + 1)) return false;
      out->items.push_back(std::move(v));
      if (Eat(',')) continue;
      if (Eat(close)) return true;
      return Fail("expected ',' or a closing bracket");
    }
  }
  bool Value(PyValue* out, int depth) {
    if (depth > kMaxDepth) return Fail("nesting too deep");
    SkipSpace();
    if (pos_ >= t_.size()) return Fail("unexpected end of header");
    char c = t_[pos_];
    if (c == '\'' || c == '"') {
      out->kind = PyValue::kStr;
      return String(&out->str);
    }
    if (c == '(' || c == '[') {
      ++pos_;
      out->kind = c == '(' ? PyValue::kTuple : PyValue::kList;
      return Sequence(out, c == '(' ? ')' : ']', depth);
    }
    if (c == '{') {
      ++pos_;
      out->kind = PyValue::kDict;
      while (true) {
        SkipSpace();
        if (Eat('}')) return true;
        if (pos_ >= t_.size() || (t_[pos_] != '\'' && t_[pos_] != '"'))
          return Fail("expected a string key");
        std::string key;
        if (!String(&key)) return false;
        if (!Eat(':')) return Fail("expected ':'");
        PyValue v;
        if (!Value(&v, depth + 1)) return false;
        out->keys.push_back(std::move(key));
        out->items.push_back(std::move(v));
        if (Eat(',')) continue;
        if (Eat('}')) return true;
        return Fail("expected ',' or '}'");
      }
    }
    if (Word("True") || Word("False")) {
      out->kind = PyValue::kBool;
      out->flag = t_[pos_ - 1] == 'e' && t_[pos_ - 2] == 'u';  // "True", not "False"
      return true;
    }
    if (Word("None")) {
      out->kind = PyValue::kNone;
      return true;
    }
    out->kind = PyValue::kInt;
    return Int(&out->num);
  }

  std::string_view t_;
  size_t pos_ = 0;
  std::string err_;
};

// Printable excerpt of header text for error messages.
std::string Excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 160)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 160) out += "...";
  return out;
}

class NpyParser : public Reader {
 public:
  using Reader::Reader;

  // Parses one .npy array from the source's current position.
  absl::StatusOr<NDArray> Parse(RecordInfo* info) {
    info->version = RecordVersion::kV3;
    info->offset = src_.offset();
    char magic[kNpyMagicLen + 2];
    MX_RETURN_IF_ERROR(ReadBytes(magic, sizeof magic, ".npy magic and version"));
    if (std::memcmp(magic, kNpyMagic, kNpyMagicLen) != 0)
      return Error(absl::StatusCode::kInvalidArgument, "not a .npy array (no \\x93NUMPY magic)");
    const int major = static_cast<uint8_t>(magic[6]), minor = static_cast<uint8_t>(magic[7]);
    if (major < 1 || major > 3 || minor != 0)
      return Error(absl::StatusCode::kUnimplemented,
                   StrCat("unsupported .npy format version ", major, ".", minor,
                          " at byte 0x6 (supported: 1.0, 2.0, 3.0)"));
    uint64_t hlen = 0;
    if (major == 1) {
      uint16_t h16 = 0;
      MX_RETURN_IF_ERROR(ReadPod(&h16, ".npy header length"));
      hlen = h16;
    } else {
      uint32_t h32 = 0;
      MX_RETURN_IF_ERROR(ReadPod(&h32, ".npy header length"));
      hlen = h32;
    }
    const uint64_t header_at = src_.offset();
    if (hlen > src_.remaining())
      return Corrupt(StrCat("truncated: .npy header length ", hlen, " at byte ", Hex(header_at),
                            " exceeds the remaining ", src_.remaining(), " bytes"));
    std::string header(static_cast<size_t>(hlen), '\0');
    MX_RETURN_IF_ERROR(ReadBytes(header.data(), hlen, ".npy header"));
    PyValue dict;
    PyLiteralParser p(header);
    if (!p.Parse(&dict) || dict.kind != PyValue::kDict)
      return Corrupt(StrCat("malformed .npy header at byte ", Hex(header_at), ": ",
                            p.error().empty() ? "not a dict" : p.error(), ": '", Excerpt(header),
                            "'"));
    const PyValue* descr = nullptr;
    const PyValue* fortran = nullptr;
    const PyValue* shape = nullptr;
    for (size_t i = 0; i < dict.keys.size(); ++i) {
      const std::string& k = dict.keys[i];
      const PyValue& v = dict.items[i];
      if (k == "descr")
        descr = &v;
      else if (k == "fortran_order")
        fortran = &v;
      else if (k == "shape")
        shape = &v;
      else
        return Corrupt(StrCat(".npy header at byte ", Hex(header_at), " has unexpected key '",
                              Excerpt(k), "' (expected descr, fortran_order, shape)"));
    }
    if (!descr || !fortran || !shape || dict.keys.size() != 3)
      return Corrupt(StrCat(".npy header at byte ", Hex(header_at),
                            " must have exactly the keys descr, fortran_order and shape: '",
                            Excerpt(header), "'"));
    if (descr->kind != PyValue::kStr)
      return Error(absl::StatusCode::kUnimplemented,
                   StrCat(".npy header at byte ", Hex(header_at),
                          ": structured dtypes are not supported: '", Excerpt(header), "'"));
    auto dtype = DTypeFromNpyDescr(descr->str);
    if (!dtype.ok())
      return Error(absl::StatusCode::kUnimplemented,
                   StrCat(".npy header at byte ", Hex(header_at), ": ", Msg(dtype.status())));
    if (fortran->kind != PyValue::kBool)
      return Corrupt(
          StrCat(".npy header at byte ", Hex(header_at), ": fortran_order must be True or False"));
    if (fortran->flag)
      return Error(absl::StatusCode::kUnimplemented,
                   StrCat(".npy header at byte ", Hex(header_at),
                          ": fortran_order True (column-major data) is not supported; save a "
                          "C-contiguous array (numpy.ascontiguousarray)"));
    if (shape->kind != PyValue::kTuple && shape->kind != PyValue::kList)
      return Corrupt(StrCat(".npy header at byte ", Hex(header_at), ": shape must be a tuple"));
    if (shape->items.size() > static_cast<size_t>(kMaxNdim))
      return Corrupt(StrCat(".npy header at byte ", Hex(header_at), ": ", shape->items.size(),
                            " dims exceed ", kMaxNdim));
    std::vector<int64_t> dims;
    for (const PyValue& d : shape->items) {
      if (d.kind != PyValue::kInt || d.num < 0)
        return Corrupt(StrCat(".npy header at byte ", Hex(header_at),
                              ": shape dims must be non-negative integers: '", Excerpt(header),
                              "'"));
      dims.push_back(d.num);
    }
    auto bytes = CheckedBytes(dims, DTypeSize(*dtype));
    if (!bytes) return Corrupt(StrCat(".npy shape ", DimsString(dims), " overflows byte counts"));
    info->offset = src_.offset();
    return ReadArray(dims, *dtype, *bytes,
                     StrCat(".npy data of shape ", DimsString(dims), " ", DTypeName(*dtype)));
  }
};

// ---- Sniffing and top-level parsing. ----

enum class Sniffed { kList, kNpy, kNpz };

Sniffed Sniff(std::span<const uint8_t> head) {
  auto starts = [&](std::string_view m, size_t min_len) {
    if (head.size() < min_len) return false;
    size_t n = std::min(head.size(), m.size());
    return std::memcmp(head.data(), m.data(), n) == 0;
  };
  if (starts(std::string_view("PK\x03\x04", 4), 4) || starts(std::string_view("PK\x05\x06", 4), 4))
    return Sniffed::kNpz;
  // A (possibly truncated) "\x93NUMPY": the NDArray-list magic starts with 0x12, never 0x93.
  if (starts(std::string_view(kNpyMagic, kNpyMagicLen), 1)) return Sniffed::kNpy;
  return Sniffed::kList;
}

absl::StatusOr<NDArrayFile> ParseNpy(Source& src, std::string_view file, const LoadOptions& opt) {
  NpyParser p(src, std::string(file), opt);
  NDArrayFile f;
  f.format = FileFormat::kNpy;
  RecordInfo info;
  MX_ASSIGN_OR_RETURN(NDArray a, p.Parse(&info));
  f.arrays.push_back(std::move(a));
  f.records.push_back(info);
  f.bytes_consumed = src.offset();
  f.trailing_bytes = src.remaining();
  if (f.trailing_bytes > 0 && !opt.allow_trailing_bytes)
    return p.Corrupt(StrCat(f.trailing_bytes, " unexpected bytes after the .npy data at byte ",
                            Hex(f.bytes_consumed)));
  return f;
}

absl::StatusOr<NDArrayFile> ParseNpz(std::span<const uint8_t> bytes, std::string_view file,
                                     const LoadOptions& opt) {
  auto zr = zip_internal::ZipReader::Open(bytes);
  if (!zr.ok()) return absl::Status(zr.status().code(), StrCat(file, ": ", Msg(zr.status())));
  zip_internal::ZipReader& z = **zr;
  NDArrayFile f;
  f.format = FileFormat::kNpz;
  f.is_dict = true;
  const size_t n = z.num_entries();
  for (size_t i = 0; i < n; ++i) {
    auto st = z.Stat(i);
    if (!st.ok()) return absl::Status(st.status().code(), StrCat(file, ": ", Msg(st.status())));
    const zip_internal::ZipEntry& e = *st;
    std::string where = StrCat(file, ": member '", Excerpt(e.name), "' (entry ", i, ")");
    if (e.name.find('/') != std::string::npos)
      return absl::UnimplementedError(
          StrCat(where, ": MXNet 2.x sparse arrays (stored as the folder '",
                 Excerpt(e.name.substr(0, e.name.find('/') + 1)), "') are not supported"));
    if (!EndsWith(e.name, ".npy"))
      return absl::InvalidArgumentError(StrCat(where, ": not a .npy member"));
    if (e.method != 0 && e.method != 8)
      return absl::UnimplementedError(
          StrCat(where, ": compression method ", e.method, " (only stored and deflated)"));
    if (e.comp_size > bytes.size() || (e.method == 0 && e.size != e.comp_size) ||
        (e.method == 8 && e.size / kMaxDeflateRatio > e.comp_size + 1))
      return absl::DataLossError(StrCat(where, ": implausible sizes: ", e.size, " bytes from ",
                                        e.comp_size, " compressed bytes"));
    auto member = z.Open(i);
    if (!member.ok())
      return absl::Status(member.status().code(), StrCat(where, ": ", Msg(member.status())));
    ZipMemberSource src(member->get(), e.size);
    NpyParser p(src, where, opt);
    RecordInfo info;
    MX_ASSIGN_OR_RETURN(NDArray a, p.Parse(&info));
    if (src.remaining() > 0 && !opt.allow_trailing_bytes)
      return p.Corrupt(StrCat(src.remaining(), " unexpected bytes after the .npy data at byte ",
                              Hex(src.offset())));
    // Read to the end so that libzip verifies the member's CRC.
    MX_RETURN_IF_ERROR(p.Wrap(src.Skip(src.remaining())));
    absl::Status fin = (*member)->Finish();
    if (!fin.ok()) return absl::Status(fin.code(), StrCat(where, ": ", Msg(fin)));
    f.names.push_back(e.name.substr(0, e.name.size() - 4));
    f.arrays.push_back(std::move(a));
    f.records.push_back(info);
  }
  f.bytes_consumed = bytes.size();
  return f;
}

// Moves loaded (host) arrays to the requested device.
absl::Status PlaceArrays(NDArrayFile* f, const LoadOptions& opt, std::string_view file) {
  if (opt.device == cpu()) return absl::OkStatus();
  absl::Status st = StatusFromCall([&] {
    for (NDArray& a : f->arrays)
      if (!a.is_none()) a = a.as_in_context(opt.device);
  });
  if (!st.ok())
    return absl::Status(
        st.code(), StrCat(file, ": cannot move arrays to ", opt.device.ToString(), ": ", Msg(st)));
  return absl::OkStatus();
}

absl::StatusOr<NDArrayFile> LoadFromSource(
    Source& src, std::span<const uint8_t> head, std::string_view file, const LoadOptions& opt,
    const std::function<absl::StatusOr<std::span<const uint8_t>>()>& whole) {
  absl::StatusOr<NDArrayFile> f;
  switch (Sniff(head)) {
    case Sniffed::kNpz: {
      MX_ASSIGN_OR_RETURN(std::span<const uint8_t> all, whole());
      f = ParseNpz(all, file, opt);
      break;
    }
    case Sniffed::kNpy:
      f = ParseNpy(src, file, opt);
      break;
    case Sniffed::kList:
      f = ListParser(src, std::string(file), opt).Parse();
      break;
  }
  if (!f.ok()) return f.status();
  MX_RETURN_IF_ERROR(PlaceArrays(&*f, opt, file));
  return f;
}

// ---------------------------------------------------------------------------------------------
// Writing.

class Sink {
 public:
  virtual ~Sink() = default;
  virtual absl::Status Write(const void* p, size_t n) = 0;
  template <typename T>
  absl::Status Pod(const T& v) {
    return Write(&v, sizeof v);
  }
};

class StringSink final : public Sink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  absl::Status Write(const void* p, size_t n) override {
    out_->append(static_cast<const char*>(p), n);
    return absl::OkStatus();
  }

 private:
  std::string* out_;
};

class FdSink final : public Sink {
 public:
  explicit FdSink(int fd) : fd_(fd) { buf_.reserve(kBuf); }
  absl::Status Write(const void* p, size_t n) override {
    if (buf_.size() + n <= kBuf) {
      buf_.append(static_cast<const char*>(p), n);
      return absl::OkStatus();
    }
    MX_RETURN_IF_ERROR(Flush());
    if (n >= kBuf) return WriteFully(static_cast<const char*>(p), n);
    buf_.append(static_cast<const char*>(p), n);
    return absl::OkStatus();
  }
  absl::Status Flush() {
    absl::Status s = WriteFully(buf_.data(), buf_.size());
    buf_.clear();
    return s;
  }

 private:
  static constexpr size_t kBuf = 1 << 16;
  absl::Status WriteFully(const char* p, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_, p, std::min<size_t>(n, size_t{1} << 30));
      if (w < 0) {
        if (errno == EINTR) continue;
        return absl::Status(CodeFromErrno(errno), StrCat("write failed: ", ErrnoText(errno)));
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return absl::OkStatus();
  }
  int fd_;
  std::string buf_;
};

struct Item {
  const std::string* name;  // nullptr for a list
  const NDArray* array;
};

std::string ItemLabel(const std::vector<Item>& items, size_t i) {
  return items[i].name ? StrCat("array ", i, " ('", *items[i].name, "')") : StrCat("array ", i);
}

// Checks everything that could fail before a byte is written (so no file is created for it).
absl::Status Validate(const std::vector<Item>& items, bool named, const SaveOptions& opt) {
  if (opt.format == FileFormat::kNDArrayList && opt.version != RecordVersion::kV2 &&
      opt.version != RecordVersion::kV3)
    return absl::InvalidArgumentError(StrCat("save: record version ",
                                             RecordVersionName(opt.version),
                                             " cannot be written (use V2 or V3)"));
  if (opt.format == FileFormat::kNpy && (named || items.size() != 1))
    return absl::InvalidArgumentError(
        StrCat("save: .npy holds exactly one unnamed array (got ", items.size(),
               named ? " named arrays)" : " arrays); use FileFormat::kNpz"));
  if (named) {
    std::set<std::string_view> seen;
    for (size_t i = 0; i < items.size(); ++i)
      if (!seen.insert(*items[i].name).second)
        return absl::InvalidArgumentError(
            StrCat("save: duplicate name '", *items[i].name, "' (", ItemLabel(items, i), ")"));
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const NDArray& a = *items[i].array;
    if (a.is_none()) {
      if (opt.format != FileFormat::kNDArrayList)
        return absl::InvalidArgumentError(StrCat("save: ", ItemLabel(items, i),
                                                 " is a none array, which ",
                                                 FileFormatName(opt.format), " files cannot hold"));
      continue;
    }
    if (a.is_sparse() &&
        (opt.format != FileFormat::kNDArrayList || opt.version != RecordVersion::kV2))
      return absl::InvalidArgumentError(
          StrCat("save: ", ItemLabel(items, i), " is ", StorageTypeName(a.stype()),
                 ", which only V2 records of .params/.nd files hold (MXNet 1.x's sparse layout)"));
    if (opt.format == FileFormat::kNDArrayList && opt.version == RecordVersion::kV2 &&
        a.ndim() == 0)
      return absl::InvalidArgumentError(
          StrCat("save: ", ItemLabel(items, i),
                 " is 0-d, which V2 records cannot hold (V2 ndim 0 means 'none'); save with "
                 "SaveOptions::version = RecordVersion::kV3"));
    if (a.ndim() > kMaxNdim)
      return absl::InvalidArgumentError(StrCat("save: ", ItemLabel(items, i), " has ", a.ndim(),
                                               " dims (at most ", kMaxNdim, ")"));
  }
  return absl::OkStatus();
}

// Writes the array's bytes (copied to the host when needed).
absl::Status WritePayload(Sink& sink, const NDArray& a) {
  size_t n = a.nbytes();
  if (n == 0) return absl::OkStatus();
  if (a.device().is_cpu()) {
    a.wait_to_read();
    return sink.Write(a.data_ptr(), n);
  }
  std::vector<char> host(n);
  a.SyncCopyToCPU(host.data(), n);
  return sink.Write(host.data(), n);
}

absl::Status WriteList(Sink& sink, const std::vector<Item>& items, bool named,
                       const SaveOptions& opt) {
  const bool v3 = opt.version == RecordVersion::kV3;
  MX_RETURN_IF_ERROR(sink.Pod(kListMagic));
  MX_RETURN_IF_ERROR(sink.Pod(uint64_t{0}));
  MX_RETURN_IF_ERROR(sink.Pod(static_cast<uint64_t>(items.size())));
  for (const Item& it : items) {
    const NDArray& a = *it.array;
    MX_RETURN_IF_ERROR(sink.Pod(v3 ? kV3Magic : kV2Magic));
    MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(a.stype())));  // 0 dense, 1 rsp, 2 csr
    if (a.is_none()) {  // the shape alone: V2 ndim 0, V3 ndim -1 (unknown)
      MX_RETURN_IF_ERROR(sink.Pod(int32_t{v3 ? -1 : 0}));
      continue;
    }
    if (a.is_sparse()) {  // storage shape before the shape (docs/formats.md §2.2, §2.5)
      const Shape ss = a.data().shape();
      MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(ss.ndim())));
      for (int64_t d : ss) MX_RETURN_IF_ERROR(sink.Pod(d));
    }
    MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(a.ndim())));
    for (int64_t d : a.shape()) MX_RETURN_IF_ERROR(sink.Pod(d));
    Device dev = a.device();
    MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(dev.type)));
    MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(dev.id)));
    MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(DTypeFlag(a.dtype()))));
    if (!a.is_sparse()) {
      MX_RETURN_IF_ERROR(WritePayload(sink, a));
      continue;
    }
    for (int k = 0; k < a.num_aux(); ++k) {  // aux (dtype flag, shape), then values, then aux data
      MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(DTypeFlag(a.aux_type(k)))));
      const Shape as = a.aux_shape(k);
      MX_RETURN_IF_ERROR(sink.Pod(static_cast<int32_t>(as.ndim())));
      for (int64_t d : as) MX_RETURN_IF_ERROR(sink.Pod(d));
    }
    MX_RETURN_IF_ERROR(WritePayload(sink, a.data()));
    for (int k = 0; k < a.num_aux(); ++k) MX_RETURN_IF_ERROR(WritePayload(sink, a.aux_data(k)));
  }
  MX_RETURN_IF_ERROR(sink.Pod(static_cast<uint64_t>(named ? items.size() : 0)));
  if (named) {
    for (const Item& it : items) {
      MX_RETURN_IF_ERROR(sink.Pod(static_cast<uint64_t>(it.name->size())));
      MX_RETURN_IF_ERROR(sink.Write(it.name->data(), it.name->size()));
    }
  }
  return absl::OkStatus();
}

// The .npy header numpy 1.23's np.save writes (format 1.0; 2.0 if it does not fit in 64 KiB):
// sorted keys with repr() values, then 1..64 spaces and '\n' so that the data starts at a
// multiple of 64 bytes. (numpy >= 1.24 also reserves spaces for growing axis 0; readers accept
// both.)
std::string NpyHeader(const NDArray& a) {
  std::string shape = "(";
  for (int i = 0; i < a.ndim(); ++i) StrAppend(&shape, i ? ", " : "", a.shape()[i]);
  if (a.ndim() == 1) shape += ",";
  shape += ")";
  const std::string dict = StrCat("{'descr': '", DTypeNpyDescr(a.dtype()),
                                  "', 'fortran_order': False, 'shape': ", shape, ", }");
  for (int major : {1, 2}) {
    const size_t prefix = kNpyMagicLen + 2 + (major == 1 ? 2 : 4);
    const size_t pad = 64 - (prefix + dict.size() + 1) % 64;
    const size_t hlen = dict.size() + 1 + pad;
    if (major == 1 && hlen > 0xFFFF) continue;
    std::string out(kNpyMagic, kNpyMagicLen);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t b = 0; b < (major == 1 ? 2u : 4u); ++b)
      out += static_cast<char>((hlen >> (8 * b)) & 0xFF);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
  }
  return {};  // unreachable: 32 dims always fit in format 1.0
}

absl::Status WriteNpy(Sink& sink, const NDArray& a) {
  std::string h = NpyHeader(a);
  MX_RETURN_IF_ERROR(sink.Write(h.data(), h.size()));
  return WritePayload(sink, a);
}

absl::Status WriteNpz(Sink& sink, const std::vector<Item>& items) {
  std::vector<std::pair<std::string, std::string>> members;
  members.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    std::string data;
    StringSink s(&data);
    MX_RETURN_IF_ERROR(WriteNpy(s, *items[i].array));
    members.emplace_back(StrCat(items[i].name ? *items[i].name : StrCat("arr_", i), ".npy"),
                         std::move(data));
  }
  MX_ASSIGN_OR_RETURN(std::string zip, zip_internal::WriteStoredZip(members));
  return sink.Write(zip.data(), zip.size());
}

absl::Status WriteAll(Sink& sink, const std::vector<Item>& items, bool named,
                      const SaveOptions& opt) {
  return StatusFromCall([&] {
    absl::Status s;
    switch (opt.format) {
      case FileFormat::kNDArrayList:
        s = WriteList(sink, items, named, opt);
        break;
      case FileFormat::kNpy:
        s = WriteNpy(sink, *items[0].array);
        break;
      case FileFormat::kNpz:
        s = WriteNpz(sink, items);
        break;
    }
    ThrowIfError(s);
  });
}

// Writes to "<path>.tmp-XXXXXX" in the same directory, fsyncs, renames over `path`.
absl::Status WriteFileAtomically(const std::string& path, bool do_fsync,
                                 const std::function<absl::Status(Sink&)>& body) {
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp-";
    for (int k = 0; k < 6; ++k) tmp += kAlnum[rng() % (sizeof kAlnum - 1)];
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return absl::Status(CodeFromErrno(errno),
                          StrCat(path, ": cannot create ", tmp, ": ", ErrnoText(errno)));
  }
  if (fd < 0) return absl::AlreadyExistsError(StrCat(path, ": cannot pick a temporary file name"));
  auto fail = [&](const absl::Status& s) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return absl::Status(s.code(), StrCat(path, ": ", Msg(s)));
  };
  FdSink sink(fd);
  absl::Status s = body(sink);
  if (s.ok()) s = sink.Flush();
  if (!s.ok()) return fail(s);
  if (do_fsync && ::fsync(fd) != 0)
    return fail(absl::Status(CodeFromErrno(errno), StrCat("fsync failed: ", ErrnoText(errno))));
  int rc = ::close(fd);
  fd = -1;
  if (rc != 0)
    return fail(absl::Status(CodeFromErrno(errno), StrCat("close failed: ", ErrnoText(errno))));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(absl::Status(CodeFromErrno(errno),
                             StrCat("cannot rename ", tmp, " to it: ", ErrnoText(errno))));
  return absl::OkStatus();
}

std::vector<Item> ItemsOf(const std::vector<NDArray>& arrays) {
  std::vector<Item> items;
  items.reserve(arrays.size());
  for (const NDArray& a : arrays) items.push_back({nullptr, &a});
  return items;
}

std::vector<Item> ItemsOf(const std::vector<std::pair<std::string, NDArray>>& named) {
  std::vector<Item> items;
  items.reserve(named.size());
  for (const auto& [n, a] : named) items.push_back({&n, &a});
  return items;
}

absl::Status SaveItems(const std::string& path, const std::vector<Item>& items, bool named,
                       const SaveOptions& opt) {
  absl::Status v = Validate(items, named, opt);
  if (!v.ok()) return absl::Status(v.code(), StrCat(path, ": ", Msg(v)));
  return WriteFileAtomically(path, opt.fsync,
                             [&](Sink& sink) { return WriteAll(sink, items, named, opt); });
}

absl::StatusOr<std::string> SaveItemsToBuffer(const std::vector<Item>& items, bool named,
                                              const SaveOptions& opt) {
  MX_RETURN_IF_ERROR(Validate(items, named, opt));
  std::string out;
  if (opt.format == FileFormat::kNDArrayList) {  // exact size: no reallocation while writing
    size_t total = 32;
    for (const Item& it : items) {
      total += 12 + (it.name ? 8 + it.name->size() : 0);
      if (!it.array->is_none()) total += 12 + 8 * it.array->ndim() + it.array->nbytes();
    }
    out.reserve(total);
  }
  StringSink sink(&out);
  MX_RETURN_IF_ERROR(WriteAll(sink, items, named, opt));
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public entry points.

absl::StatusOr<NDArrayFile> load_from_buffer(std::span<const uint8_t> bytes,
                                             const LoadOptions& options,
                                             std::string_view display_name) {
  BufferSource src(bytes);
  return LoadFromSource(src, bytes.first(std::min<size_t>(bytes.size(), 8)), display_name, options,
                        [&]() -> absl::StatusOr<std::span<const uint8_t>> { return bytes; });
}

absl::StatusOr<NDArrayFile> load_from_buffer(std::string_view bytes, const LoadOptions& options,
                                             std::string_view display_name) {
  return load_from_buffer(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
      options, display_name);
}

absl::StatusOr<NDArrayFile> load(const std::string& path, const LoadOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::Status(CodeFromErrno(errno), StrCat(path, ": cannot open: ", ErrnoText(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return absl::Status(CodeFromErrno(errno), StrCat(path, ": cannot stat: ", ErrnoText(errno)));
  if (!S_ISREG(st.st_mode)) return absl::InvalidArgumentError(StrCat(path, ": not a regular file"));
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  uint8_t head[8] = {};
  size_t head_len = static_cast<size_t>(std::min<uint64_t>(size, sizeof head));
  if (head_len > 0) {
    ssize_t got = ::pread(fd, head, head_len, 0);
    if (got != static_cast<ssize_t>(head_len))
      return absl::DataLossError(StrCat(path, ": cannot read the first bytes"));
  }
  FdSource src(fd, size);
  std::string whole;
  return LoadFromSource(src, std::span<const uint8_t>(head, head_len), path, options,
                        [&]() -> absl::StatusOr<std::span<const uint8_t>> {
                          whole.resize(static_cast<size_t>(size));
                          absl::Status s = src.Read(whole.data(), whole.size());
                          if (!s.ok()) return absl::Status(s.code(), StrCat(path, ": ", Msg(s)));
                          return std::span<const uint8_t>(
                              reinterpret_cast<const uint8_t*>(whole.data()), whole.size());
                        });
}

absl::Status save(const std::string& path, const std::vector<NDArray>& arrays,
                  const SaveOptions& options) {
  return SaveItems(path, ItemsOf(arrays), false, options);
}

absl::Status save(const std::string& path,
                  const std::vector<std::pair<std::string, NDArray>>& named_arrays,
                  const SaveOptions& options) {
  return SaveItems(path, ItemsOf(named_arrays), true, options);
}

absl::Status save(const std::string& path, const NDArrayFile& file, const SaveOptions& options) {
  if (file.is_dict) return save(path, file.items(), options);
  return save(path, file.arrays, options);
}

absl::StatusOr<std::string> save_to_buffer(const std::vector<NDArray>& arrays,
                                           const SaveOptions& options) {
  return SaveItemsToBuffer(ItemsOf(arrays), false, options);
}

absl::StatusOr<std::string> save_to_buffer(
    const std::vector<std::pair<std::string, NDArray>>& named_arrays, const SaveOptions& options) {
  return SaveItemsToBuffer(ItemsOf(named_arrays), true, options);
}

}  // namespace mxnet::nd
