#include "gluon/onnx/onnx_util.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon::onnx_internal {

namespace fs = std::filesystem;
using ::onnx::TensorProto;

std::optional<int> OnnxType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return TensorProto::FLOAT;
    case DType::kFloat64:
      return TensorProto::DOUBLE;
    case DType::kFloat16:
      return TensorProto::FLOAT16;
    case DType::kBFloat16:
      return TensorProto::BFLOAT16;
    case DType::kUint8:
      return TensorProto::UINT8;
    case DType::kInt8:
      return TensorProto::INT8;
    case DType::kInt16:
      return TensorProto::INT16;
    case DType::kUint16:
      return TensorProto::UINT16;
    case DType::kInt32:
      return TensorProto::INT32;
    case DType::kUint32:
      return TensorProto::UINT32;
    case DType::kInt64:
      return TensorProto::INT64;
    case DType::kUint64:
      return TensorProto::UINT64;
    case DType::kBool:
      return TensorProto::BOOL;
  }
  return std::nullopt;
}

std::optional<DType> FromOnnxType(int t) {
  switch (t) {
    case TensorProto::FLOAT:
      return DType::kFloat32;
    case TensorProto::DOUBLE:
      return DType::kFloat64;
    case TensorProto::FLOAT16:
      return DType::kFloat16;
    case TensorProto::BFLOAT16:
      return DType::kBFloat16;
    case TensorProto::UINT8:
      return DType::kUint8;
    case TensorProto::INT8:
      return DType::kInt8;
    case TensorProto::INT16:
      return DType::kInt16;
    case TensorProto::UINT16:
      return DType::kUint16;
    case TensorProto::INT32:
      return DType::kInt32;
    case TensorProto::UINT32:
      return DType::kUint32;
    case TensorProto::INT64:
      return DType::kInt64;
    case TensorProto::UINT64:
      return DType::kUint64;
    case TensorProto::BOOL:
      return DType::kBool;
    default:
      return std::nullopt;
  }
}

void ToTensorProto(const NDArray& a, const std::string& name, TensorProto* t) {
  t->set_name(name);
  auto type = OnnxType(a.dtype());
  MX_REQUIRE(type.has_value(), absl::StatusCode::kInvalidArgument, "ONNX export: tensor ", name,
             " has dtype ", DTypeName(a.dtype()), " which ONNX has no type for");
  t->set_data_type(*type);
  for (int64_t d : a.shape()) t->add_dims(d);
  std::string raw(a.nbytes(), '\0');
  if (!raw.empty()) a.SyncCopyToCPU(raw.data(), raw.size());
  t->set_raw_data(std::move(raw));
}

namespace {

// Bytes of the tensor's external data, read from base_dir/location[offset, offset+length).
absl::StatusOr<std::string> ReadExternal(const TensorProto& t, const std::string& base_dir,
                                         std::string_view what, uint64_t want) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v;
      if (!ParseInt64(kv.value(), &v) || v < 0)
        return absl::InvalidArgumentError(StrCat(what, ": external data ", kv.key(), " '",
                                                 kv.value(), "' is not a non-negative integer"));
      if (kv.key() == "offset")
        offset = static_cast<uint64_t>(v);
      else
        length = static_cast<uint64_t>(v);
    }
  }
  if (location.empty())
    return absl::InvalidArgumentError(StrCat(what, ": external data without a location"));
  if (base_dir.empty())
    return absl::InvalidArgumentError(StrCat(what, ": external data '", location,
                                             "' needs the model's directory (load from a file)"));
  fs::path rel(location);
  if (rel.is_absolute() || location.find('\0') != std::string::npos)
    return absl::InvalidArgumentError(
        StrCat(what, ": external data location '", location, "' must be a relative path"));
  for (const auto& part : rel)
    if (part == "..")
      return absl::InvalidArgumentError(
          StrCat(what, ": external data location '", location, "' leaves the model's directory"));
  std::error_code ec;
  fs::path dir = fs::canonical(fs::path(base_dir), ec);
  if (ec) return absl::NotFoundError(StrCat(what, ": model directory ", base_dir, " not found"));
  fs::path full = fs::weakly_canonical(dir / rel, ec);
  if (ec) return absl::NotFoundError(StrCat(what, ": external data ", location, " not found"));
  auto [end, _] = std::mismatch(dir.begin(), dir.end(), full.begin(), full.end());
  if (end != dir.end())  // a symlink out of the directory
    return absl::InvalidArgumentError(StrCat(what, ": external data location '", location,
                                             "' resolves outside the model's directory"));
  if (length && *length != want)
    return absl::InvalidArgumentError(StrCat(what, ": external data length ", *length,
                                             " differs from the ", want, " bytes its dims need"));
  uint64_t size = fs::file_size(full, ec);
  if (ec) return absl::NotFoundError(StrCat(what, ": cannot read external data ", full.string()));
  if (offset > size || size - offset < want)
    return absl::InvalidArgumentError(StrCat(what, ": external data ", location, " has ", size,
                                             " bytes, fewer than offset ", offset, " + ", want));
  std::ifstream f(full, std::ios::binary);
  std::string bytes(want, '\0');
  f.seekg(static_cast<std::streamoff>(offset));
  f.read(bytes.data(), static_cast<std::streamsize>(want));
  if (!f) return absl::DataLossError(StrCat(what, ": reading external data ", location, " failed"));
  return bytes;
}

}  // namespace

absl::StatusOr<NDArray> FromTensorProto(const TensorProto& t, const std::string& base_dir,
                                        std::string_view what) {
  auto dtype = FromOnnxType(t.data_type());
  if (!dtype)
    return absl::InvalidArgumentError(
        StrCat(what, ": unsupported ONNX tensor element type ", t.data_type()));
  constexpr int64_t kMaxElements = int64_t{1} << 34;
  int64_t n = 1;
  std::vector<int64_t> dims;
  for (int64_t d : t.dims()) {
    if (d < 0) return absl::InvalidArgumentError(StrCat(what, ": negative dim ", d));
    if (d > 0 && n > kMaxElements / d)
      return absl::InvalidArgumentError(StrCat(what, ": dims [", StrJoin(t.dims(), ", "),
                                               "] are too large (over 2^34 elements)"));
    n *= d;
    dims.push_back(d);
  }
  if (t.dims_size() > 32) return absl::InvalidArgumentError(StrCat(what, ": rank above 32"));
  if (t.has_segment()) return absl::InvalidArgumentError(StrCat(what, ": segmented tensors"));
  const size_t esize = DTypeSize(*dtype);
  const uint64_t want = static_cast<uint64_t>(n) * esize;
  NDArray a(Shape(dims), cpu(), *dtype);
  auto mismatch = [&](uint64_t have, std::string_view field) {
    return absl::InvalidArgumentError(StrCat(what, ": dims [", StrJoin(t.dims(), ", "), "] need ",
                                             n, " elements but ", field, " has ", have));
  };
  if (t.data_location() == TensorProto::EXTERNAL) {
    MX_ASSIGN_OR_RETURN(std::string bytes, ReadExternal(t, base_dir, what, want));
    if (want) a.SyncCopyFromCPU(bytes.data(), bytes.size());
    return a;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != want) return mismatch(t.raw_data().size() / esize, "raw_data");
    if (want) a.SyncCopyFromCPU(t.raw_data().data(), want);
    return a;
  }
  auto copy = [&](const auto& field, DType src, std::string_view fname) -> absl::Status {
    if (static_cast<int64_t>(field.size()) != n) return mismatch(field.size(), fname);
    if (n == 0) return absl::OkStatus();
    std::vector<char> buf(want);
    ConvertElements(field.data(), src, buf.data(), *dtype, static_cast<size_t>(n));
    a.SyncCopyFromCPU(buf.data(), buf.size());
    return absl::OkStatus();
  };
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      MX_RETURN_IF_ERROR(copy(t.float_data(), DType::kFloat32, "float_data"));
      break;
    case TensorProto::DOUBLE:
      MX_RETURN_IF_ERROR(copy(t.double_data(), DType::kFloat64, "double_data"));
      break;
    case TensorProto::INT64:
      MX_RETURN_IF_ERROR(copy(t.int64_data(), DType::kInt64, "int64_data"));
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      MX_RETURN_IF_ERROR(copy(t.uint64_data(), DType::kUint64, "uint64_data"));
      break;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: {
      // 16-bit values are stored one per int32 entry (their bit pattern).
      if (t.int32_data_size() != n) return mismatch(t.int32_data_size(), "int32_data");
      std::vector<uint16_t> bits(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        bits[i] = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
      if (n) a.SyncCopyFromCPU(bits.data(), want);
      break;
    }
    default:
      MX_RETURN_IF_ERROR(copy(t.int32_data(), DType::kInt32, "int32_data"));
      break;
  }
  return a;
}

absl::Status WriteFileAtomic(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return absl::PermissionDeniedError(StrCat("cannot write ", tmp));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      return absl::DataLossError(StrCat("writing ", tmp, " failed"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return absl::NotFoundError(StrCat("cannot open ", path));
  uint64_t size = fs::file_size(path, ec);
  if (ec) return absl::NotFoundError(StrCat("cannot read ", path));
  if (size > max_bytes)
    return absl::InvalidArgumentError(
        StrCat(path, " has ", size, " bytes, more than the ", max_bytes, " a protobuf may hold"));
  std::ifstream f(path, std::ios::binary);
  std::string bytes(size, '\0');
  f.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!f) return absl::DataLossError(StrCat("reading ", path, " failed"));
  return bytes;
}

}  // namespace mxnet::gluon::onnx_internal
