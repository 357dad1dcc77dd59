// Test-only helpers for the committed MXNet 1.9.1 reference files (ndarray/ops/testdata/**.json,
// written by tools/conformance/gen_*_refs.py): load a file, turn a case's {shape, dtype,
// data|values} objects into NDArrays, read its attrs/inputs/head gradients, compare with a
// dtype check and rtol/atol.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/op.h"

namespace mxnet::testing {

// Parses a reference file; `path` is relative to the workspace root
// ("ndarray/ops/testdata/nn/rnn.json"). A missing file is a test failure and gives
// {"cases": []} so that callers' case counts fail too.
nlohmann::json LoadRefJson(const std::string& path);

// A JSON number, or one of the strings "nan", "inf", "-inf" (how the generators write them).
double RefNumber(const nlohmann::json& x);

// {shape, dtype, data} or {shape, dtype, values} -> a CPU NDArray of that dtype (or `dtype`).
NDArray RefArray(const nlohmann::json& a);
NDArray RefArray(const nlohmann::json& a, DType dtype);

// A case's "attrs" object (string values) as an AttrDict.
AttrDict RefAttrs(const nlohmann::json& c);

// A case's "inputs" list as NDArrays.
std::vector<NDArray> RefInputs(const nlohmann::json& c);

// Output gradients for a backward pass: c["head_grads"][k] for the `visible` outputs, zeros
// for the hidden ones.
std::vector<NDArray> RefHeadGrads(const nlohmann::json& c, const NDArrayVec& outs, int visible);

// Same dtype, then AllClose(got, want, rtol, atol).
::testing::AssertionResult SameDTypeAllClose(const NDArray& got, const NDArray& want, double rtol,
                                             double atol);

// One case of a reduce-family reference file ({op, attrs, inputs, outputs[, head_grads, grads]}):
// runs the op, checks each output's shape then `match(got, want)`, and where the case has
// "grads" the input gradients (head gradients cast to the output dtype, missing ones zero;
// null grads skipped). Counts the case in *n, and in *with_grads when it has gradients;
// adds the op's name to *ops when given.
using RefMatcher = std::function<::testing::AssertionResult(const NDArray&, const NDArray&)>;
void CheckRefCase(const nlohmann::json& c, const RefMatcher& match, int* n, int* with_grads,
                  std::set<std::string>* ops = nullptr);

// By the expected dtype: float32 within (rtol32, atol32), float64 within (1e-12, 1e-13), every
// other dtype exact; the dtypes must agree (SameDTypeAllClose).
RefMatcher DTypeTolerance(double rtol32, double atol32);

// CheckRefCase over every case of a reference file `doc` (whose mxnet_version must be 1.9.1).
struct RefFileCounts {
  int cases = 0, with_grads = 0;
  std::set<std::string> ops;  // canonical names of the ops the cases ran
};
RefFileCounts CheckRefFile(const nlohmann::json& doc, const RefMatcher& match);

// Every case of doc["errors"] ({op, attrs, inputs}: calls MXNet rejects) is rejected with an
// invalid-argument error naming the op. Returns how many cases there were.
size_t CheckRefErrors(const nlohmann::json& doc);

// One op of a registry file ({names, inputs, attrs: [[name, "type, default=..."]]}): the op
// and its aliases are registered, input names, attribute names, required attributes,
// defaults (MXNet's default parses to ours, with `required` set) and enumeration choices.
void CheckRegistryEntry(const std::string& name, const nlohmann::json& info,
                        const AttrDict& required);

// The message of the mxnet::Error `f` throws ("" if it throws none).
std::string ErrorOf(const std::function<void()>& f);

// `f` throws an invalid-argument mxnet::Error whose message contains each of `parts`.
void ExpectInvalidArgument(const std::function<void()>& f, const std::vector<std::string>& parts);

// Deep copies (ops that update their inputs in place, e.g. aux states).
std::vector<NDArray> CopyAll(const std::vector<NDArray>& in);

// Sets the current context's autograd flags (is_training, is_recording) for a scope.
class ModeScope : public DispatchStateScope {
 public:
  ModeScope(bool train, bool record) {
    state().is_training = train;
    state().is_recording = record;
  }
};

}  // namespace mxnet::testing
