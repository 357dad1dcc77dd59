// Test helpers of //modelzoo: reference JSON, shape-only inference, closeness.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gluon/block.h"
#include "modelzoo/testing/deterministic_weights.h"
#include "modelzoo/vision.h"

namespace mxnet::gluon::model_zoo::testing {

// Parses a JSON file (paths relative to the workspace root, as tests run there).
nlohmann::json ReadJson(const std::string& path);

// Runs a shape-only pass of `net` on an input of `input` shape (no computation, no parameter
// allocation) and gives every parameter its inferred shape. Returns the output shape.
Shape InferShapes(Block& net, const Shape& input);

// float32 array from a JSON list of numbers.
NDArray ArrayFromJson(const nlohmann::json& values, const Shape& shape);
Shape ShapeFromJson(const nlohmann::json& dims);

// max |actual - expected| / max |expected| (shapes must match).
double MaxRelError(const NDArray& actual, const NDArray& expected);

// Passes when the shapes match and MaxRelError < tol.
::testing::AssertionResult CloseTo(const NDArray& actual, const NDArray& expected,
                                   double tol = 1e-4);

// The small nets of testdata/load by case name (gen_modelzoo_refs.py's LOAD_CASES: e.g.
// "resnet_v1b_tiny", "densenet_tiny"), uninitialized; an unknown name fails the test (nullptr).
std::shared_ptr<HybridBlock> BuildLoadCase(const std::string& name);

// A fresh empty directory under TEST_TMPDIR (or /tmp).
std::string MakeTempDir(const std::string& name);

}  // namespace mxnet::gluon::model_zoo::testing
