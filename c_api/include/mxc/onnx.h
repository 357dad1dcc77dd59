/* ONNX (MXNet 1.9's mx.onnx.export_model / import_model; ABI 1.2): a block written as an ONNX
 * model that ONNX Runtime runs, and ONNX models (ours, PyTorch's torch.onnx, MXNet's exporter)
 * read back as SymbolBlocks that run, hybridize and train like any block. The operators and
 * opsets covered are listed in docs/onnx.md. */
#ifndef MXC_ONNX_H_
#define MXC_ONNX_H_

#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/gluon.h"

MXC_EXTERN_C_BEGIN

/* The opsets (ai.onnx domain) export writes (13..17) and import reads (7..21). Any out-parameter
 * may be NULL. Threads: any. */
MXC_API void mxc_onnx_opsets(int32_t* export_min, int32_t* export_max, int32_t* import_min,
                             int32_t* import_max) MXC_NOEXCEPT;

typedef struct mxc_onnx_export_options {
  size_t struct_size;
  /* The opset to write; 0: 13 (MXNet 1.9's exporter). */
  int32_t opset;
  /* Nonzero: every input dim is fixed to the given shapes'. 0: dim 0 of the inputs (and of
   * outputs whose dim 0 is the batch) is the symbolic "N", so the model runs with any batch. */
  int32_t static_batch;
} mxc_onnx_export_options;

/* Writes `block` (a HybridBlock: a model-zoo net, a SymbolBlock) as an ONNX model to `path` (a
 * temporary file renamed into place) with its parameters as initializers. Data inputs: input i
 * has shape dims[sum(ndims[0..i)) .. +ndims[i]) (NCHW for images; dim 0 the batch) and is
 * named "data" (one input) or "data0".."dataN-1". A block never called is hybridized and run
 * once on zeros of those shapes under `ctx` (NULL: predict mode, cpu(0)), which leaves it
 * hybridized. Dropout becomes Identity; BatchNorm uses its running statistics.
 * Errors: MXC_INVALID_ARGUMENT for an operator without an ONNX mapping or attributes ONNX cannot
 * express (naming the node and operator), an opset outside 13..17, a negative dim, no inputs;
 * MXC_FAILED_PRECONDITION for a block that is not a HybridBlock or has uninitialized
 * parameters; write errors. Threads: writes the block when it must trace it first; otherwise
 * reads it. */
MXC_STATUS mxc_block_export_onnx(mxc_ctx* ctx, mxc_block* block, const size_t* ndims,
                                 const int64_t* dims, size_t num_inputs, const char* path,
                                 const mxc_onnx_export_options* options) MXC_NOEXCEPT;

/* An ONNX model file read as a SymbolBlock (SymbolBlock.imports for .onnx): its inputs are the
 * model's graph inputs that are not initializers (in order, names kept), its parameters the
 * initializers (names kept), placed on `device` ({0, 0}: cpu(0)). External tensor data is read
 * relative to the model's directory and may not leave it.
 * Errors: MXC_NOT_FOUND for a missing file; MXC_INVALID_ARGUMENT for a file that is not an ONNX
 * model (truncated or corrupt), bad tensors (negative or overflowing dims, data not matching
 * them), unknown operators or domains (naming the op and node), unsupported attributes, cyclic
 * graphs, an opset outside 7..21, external data paths that are absolute or escape the model's
 * directory. Threads: any. */
MXC_STATUS mxc_symbol_block_imports_onnx(const char* path, mxc_device device,
                                         mxc_block** out) MXC_NOEXCEPT;

/* The same from the `nbytes` bytes of a serialized ONNX ModelProto at `data` (copied; the
 * caller keeps its buffer). Models with external data are refused. Errors as above (data NULL
 * with nbytes > 0: MXC_INVALID_ARGUMENT). Threads: any. */
MXC_STATUS mxc_symbol_block_imports_onnx_bytes(const void* data, size_t nbytes, mxc_device device,
                                               mxc_block** out) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_ONNX_H_ */
