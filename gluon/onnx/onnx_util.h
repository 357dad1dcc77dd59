// Internal helpers of gluon/onnx: dtype codes, TensorProto <-> NDArray, files. Not public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "ndarray/ndarray.h"
#include "onnx/onnx_pb.h"

namespace mxnet::gluon::onnx_internal {

// ONNX TensorProto.DataType of an MXNet dtype (FLOAT=1, UINT8=2, INT8=3, INT32=6, INT64=7,
// BOOL=9, FLOAT16=10, DOUBLE=11, ...); nullopt for none.
std::optional<int> OnnxType(DType t);
// The MXNet dtype of an ONNX element type; nullopt for types MXNet lacks (string, complex).
std::optional<DType> FromOnnxType(int onnx_type);

// An initializer/Constant tensor from `a` (raw little-endian data).
void ToTensorProto(const NDArray& a, const std::string& name, ::onnx::TensorProto* t);

// The values of `t` as a CPU NDArray. Checks dims (non-negative, product <= 2^34 elements, no
// overflow) against the data present (raw_data, the typed repeated field, or external data read
// from `base_dir`, which must contain the file; "" refuses external data). Errors
// (kInvalidArgument) name the tensor.
absl::StatusOr<NDArray> FromTensorProto(const ::onnx::TensorProto& t, const std::string& base_dir,
                                        std::string_view what);

// Writes `bytes` to `path` through `path`.tmp + rename.
absl::Status WriteFileAtomic(const std::string& path, const std::string& bytes);
// Reads a whole file (kNotFound when absent; kInvalidArgument above `max_bytes`).
absl::StatusOr<std::string> ReadFile(const std::string& path, uint64_t max_bytes);

}  // namespace mxnet::gluon::onnx_internal
