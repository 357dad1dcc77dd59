// Attaching a storage kernel (Op::set_storage_kernel, ndarray/op.h) to an op registered in
// another file. Defined in ndarray/op.cc next to the registry; declared here rather than in
// ndarray/op.h or ndarray/sparse.h so that adding it did not change a header every op depends on.
#pragma once

#include <string>

#include "ndarray/op.h"

namespace mxnet {

// Gives the op named `op_name` (canonical name or alias) the storage kernel `infer` / `kernel`,
// as Op::set_storage_kernel does: at once when the op is registered, else when it is (static
// initializers run in any order). Keeps MXNet's storage rules of the elementwise family in one
// place (ndarray/ops/sparse/sparse_elemwise.cc). A later attach to the same op replaces it.
void AttachStorageKernel(const std::string& op_name, FInferStorageType infer, FCompute kernel);

}  // namespace mxnet
