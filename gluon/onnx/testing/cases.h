// Small graphs covering the exported operators, shared by the ONNX tests and the generator of
// their ONNX Runtime references (gen_onnx_cases; gluon/onnx/testdata/gen_ort_refs.py).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ndarray/ndarray.h"
#include "symbol/symbol.h"

namespace mxnet::gluon::onnx_testing {

struct Case {
  std::string name;
  sym::Symbol graph;
  std::map<std::string, NDArray> params;              // deterministic values (an LCG, not our RNG)
  std::vector<std::pair<std::string, Shape>> inputs;  // export shapes (batch 2)
};

// Every case; input shapes use batch 2 for export, references run batch 3 (dynamic batch).
std::vector<Case> AllCases();

// Deterministic values in [lo, hi) of `shape` from `seed` (a 64-bit LCG): reproducible on every
// machine without depending on the library's random generators.
NDArray Lcg(const Shape& shape, uint64_t seed, double lo = -1.0, double hi = 1.0);

// The case's input with batch `batch` (seeded by the case name).
NDArrayVec CaseInputs(const Case& c, int64_t batch);

// Our forward of the case graph on `inputs` (a SymbolBlock holding the params).
NDArrayVec Forward(const Case& c, const NDArrayVec& inputs);

}  // namespace mxnet::gluon::onnx_testing
