// mxc/onnx.h: ONNX export of blocks and import as SymbolBlocks (ABI 1.2), over gluon/onnx.
#include "mxc/onnx.h"

#include <string>
#include <string_view>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"
#include "gluon/block.h"
#include "gluon/onnx/onnx.h"

namespace gluon = mxnet::gluon;

extern "C" {

MXC_API void mxc_onnx_opsets(int32_t* export_min, int32_t* export_max, int32_t* import_min,
                             int32_t* import_max) noexcept {
  if (export_min) *export_min = gluon::kOnnxMinExportOpset;
  if (export_max) *export_max = gluon::kOnnxMaxExportOpset;
  if (import_min) *import_min = gluon::kOnnxMinImportOpset;
  if (import_max) *import_max = gluon::kOnnxMaxImportOpset;
}

MXC_STATUS mxc_block_export_onnx(mxc_ctx* ctx, mxc_block* block, const size_t* ndims,
                                 const int64_t* dims, size_t num_inputs, const char* path,
                                 const mxc_onnx_export_options* options) noexcept {
  return mxc::Call(__func__, [&] {
    gluon::BlockPtr b = mxc::Get(block, "block");
    std::string p(mxc::Str(path, "path"));
    mxc_onnx_export_options o = mxc::ReadOptions(options, "options");
    if (num_inputs == 0) mxc::BadArgument("num_inputs", "a block needs at least one input");
    mxc::Array(ndims, num_inputs, "ndims");
    std::vector<mxnet::Shape> shapes;
    size_t offset = 0;
    for (size_t i = 0; i < num_inputs; ++i) {
      std::string arg = "dims (input " + std::to_string(i) + ")";
      mxc::Array(dims, offset + ndims[i], arg);
      shapes.push_back(mxc::ToShape(dims + offset, ndims[i], arg));
      offset += ndims[i];
    }
    int opset = o.opset == 0 ? gluon::kOnnxMinExportOpset : o.opset;
    auto* h = dynamic_cast<gluon::HybridBlock*>(b.get());
    if (!h)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "a ", b->class_name(),
               " is not a HybridBlock and cannot be exported to ONNX");
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    mxnet::ThrowIfError(gluon::export_onnx(*h, shapes, p, opset, o.static_batch == 0));
  });
}

MXC_STATUS mxc_symbol_block_imports_onnx(const char* path, mxc_device device,
                                         mxc_block** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string p(mxc::Str(path, "path"));
    auto b = mxnet::ValueOrThrow(gluon::imports_onnx(p, {mxc::ToDevice(device, "device")}));
    *out = mxc::New<mxc_block>(gluon::BlockPtr(std::move(b)));
  });
}

MXC_STATUS mxc_symbol_block_imports_onnx_bytes(const void* data, size_t nbytes, mxc_device device,
                                               mxc_block** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    const char* d = mxc::Array(static_cast<const char*>(data), nbytes, "data");
    auto b = mxnet::ValueOrThrow(gluon::imports_onnx_from_string(
        std::string_view(d ? d : "", nbytes), "", {mxc::ToDevice(device, "device")}));
    *out = mxc::New<mxc_block>(gluon::BlockPtr(std::move(b)));
  });
}

}  // extern "C"
