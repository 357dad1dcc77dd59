// Test helpers of //modelzoo: reference JSON, shape-only inference, closeness.
#pragma once

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

// A fresh empty directory under TEST_TMPDIR (or /tmp).
std::string MakeTempDir(const std::string& name);

}  // namespace mxnet::gluon::model_zoo::testing
