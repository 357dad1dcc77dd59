// mxc/ndarray.h DLPack import/export (DLPack 0.6 structs, dlpack/dlpack.h from libdlpack-dev;
// bool uses kDLBool = 6 of DLPack 0.8, which 0.6 lacks).
#include <dlpack/dlpack.h>

#include <atomic>
#include <memory>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/handles.h"
#include "c_api/src/ndarray_util.h"

namespace mxc {
namespace {

constexpr uint8_t kDLBoolCode = 6;

DLDataType ToDL(mxnet::DType t) {
  using mxnet::DType;
  auto bits = static_cast<uint8_t>(mxnet::DTypeSize(t) * 8);
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
      return {kDLFloat, bits, 1};
    case DType::kBFloat16:
      return {kDLBfloat, bits, 1};
    case DType::kBool:
      return {kDLBoolCode, 8, 1};
    case DType::kUint8:
    case DType::kUint16:
    case DType::kUint32:
    case DType::kUint64:
      return {kDLUInt, bits, 1};
    default:
      return {kDLInt, bits, 1};
  }
}

mxnet::DType FromDL(DLDataType t) {
  using mxnet::DType;
  if (t.lanes != 1)
    MX_THROW(absl::StatusCode::kUnimplemented, "argument 'tensor': dtype.lanes ", t.lanes,
             " (only 1 is supported)");
  for (int f = 0; f < mxnet::kNumDTypes; ++f) {
    DLDataType d = ToDL(static_cast<DType>(f));
    if (d.code == t.code && d.bits == t.bits) return static_cast<DType>(f);
  }
  MX_THROW(absl::StatusCode::kUnimplemented, "argument 'tensor': DLPack dtype code ",
           static_cast<int>(t.code), " with ", static_cast<int>(t.bits), " bits has no mxc_dtype");
}

// What an exported DLManagedTensor owns.
struct Exported {
  DLManagedTensor tensor;
  mxnet::NDArray array;
  std::vector<int64_t> shape;
};

void DeleteExported(DLManagedTensor* t) { delete static_cast<Exported*>(t->manager_ctx); }

}  // namespace
}  // namespace mxc

extern "C" {

MXC_STATUS mxc_ndarray_to_dlpack(mxc_ndarray* array, DLManagedTensor** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto e = std::make_unique<mxc::Exported>();
    e->array = mxc::Get(array, "array");
    e->shape = e->array.shape().ToVector();
    mxnet::Device d = e->array.device();
    DLTensor& t = e->tensor.dl_tensor;
    t.data = e->array.data_ptr();
    e->array.storage()->mark_untracked_writes();  // the consumer may write it (Storage::version)
    t.device.device_type = d.is_gpu()                                ? kDLCUDA
                           : d.type == mxnet::DeviceType::kCPUPinned ? kDLCUDAHost
                                                                     : kDLCPU;
    t.device.device_id = d.id;
    t.ndim = static_cast<int>(e->shape.size());
    t.dtype = mxc::ToDL(e->array.dtype());
    t.shape = e->shape.data();
    t.strides = nullptr;  // row-major
    t.byte_offset = 0;
    e->tensor.manager_ctx = e.get();
    e->tensor.deleter = mxc::DeleteExported;
    *out = &e.release()->tensor;
  });
}

MXC_STATUS mxc_ndarray_from_dlpack(DLManagedTensor* tensor, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    if (!tensor) mxc::BadArgument("tensor", "NULL");
    const DLTensor& t = tensor->dl_tensor;
    if (t.ndim < 0) mxc::BadArgument("tensor", "negative ndim ", t.ndim);
    mxnet::Shape shape = mxc::ToShape(t.shape, static_cast<size_t>(t.ndim), "tensor.shape");
    mxnet::DType dtype = mxc::FromDL(t.dtype);
    if (t.strides) {  // must be row-major (strides of size-1 dims do not matter)
      int64_t expect = 1;
      for (int i = t.ndim - 1; i >= 0; --i) {
        if (t.shape[i] != 1 && t.strides[i] != expect)
          MX_THROW(absl::StatusCode::kUnimplemented, "argument 'tensor': strides[", i, "] is ",
                   t.strides[i], ", not the row-major ", expect,
                   " (only compact row-major tensors are supported)");
        expect *= t.shape[i];
      }
    }
    mxnet::Device dev;
    switch (t.device.device_type) {
      case kDLCPU:
        dev = mxnet::cpu(t.device.device_id);
        break;
      case kDLCUDA:
        dev = mxnet::gpu(t.device.device_id);
        break;
      case kDLCUDAHost:
        dev = mxnet::cpu_pinned(t.device.device_id);
        break;
      default:
        MX_THROW(absl::StatusCode::kUnimplemented, "argument 'tensor': DLPack device type ",
                 static_cast<int>(t.device.device_type), " is not supported (CPU, CUDA, CUDAHost)");
    }
    if (t.device.device_id < 0) mxc::BadArgument("tensor", "negative device_id");
    // The deleter runs only once the call succeeded: on error the caller keeps the tensor.
    struct Owner {
      DLManagedTensor* t;
      std::atomic<bool> armed{false};
    };
    auto owner = std::make_shared<Owner>();
    owner->t = tensor;
    void* data = t.data ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
    mxnet::NDArray a = mxc::WrapExternal(
        data, mxc::ByteSize(shape, dtype, "tensor.shape"), shape, dtype, dev,
        [owner] {
          if (owner->armed.load() && owner->t->deleter) owner->t->deleter(owner->t);
        },
        "tensor.data");
    mxc_ndarray* h = mxc::New<mxc_ndarray>(std::move(a));
    owner->armed = true;
    *out = h;
  });
}

}  // extern "C"
