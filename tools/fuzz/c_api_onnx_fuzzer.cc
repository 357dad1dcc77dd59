// Fuzz target: the C ABI's ONNX buffer entry point (mxc_symbol_block_imports_onnx_bytes). Every
// handle is freed (LeakSanitizer checks it in the clang build). Errors must be documented codes
// with a message, never MXC_INTERNAL/MXC_UNKNOWN; the out-parameter is written only on success.
#include <cstdint>

#include "tools/fuzz/c_api_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mxc_block* b = nullptr;
  mxc_device cpu = {MXC_DEVICE_CPU, 0};
  if (!MxcOk(mxc_symbol_block_imports_onnx_bytes(data, size, cpu, &b),
             "mxc_symbol_block_imports_onnx_bytes")) {
    FUZZ_CHECK(b == nullptr, "out-parameter written on error");
    return 0;
  }
  FUZZ_CHECK(b != nullptr, "no block on success");
  mxc_block_free(b);
  return 0;
}
