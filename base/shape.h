// Tensor shapes with int64 dims and MXNet's unknown-dimension conventions.
//
// Internally we use NumPy semantics (MXNet's np-shape mode): ndim -1 means "shape unknown",
// a dim of -1 means "this dimension unknown", ndim 0 is a scalar with one element, and a dim
// of 0 is a real zero-size dimension. MXNet 1.x's legacy convention (ndim 0 = unknown, dim 0 =
// unknown) is converted at the boundaries with FromLegacy()/ToLegacyString().
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"

namespace mxnet {

class Shape {
 public:
  using Dims = absl::InlinedVector<int64_t, 6>;
  static constexpr int64_t kUnknownDim = -1;

  // A scalar shape `()` (ndim 0, one element).
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims), known_ndim_(true) {}
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims.begin(), dims.end()) {}
  explicit Shape(Dims dims) : dims_(std::move(dims)) {}
  // ndim dims all equal to `value` (kUnknownDim for an unknown shape of known rank).
  static Shape Filled(int ndim, int64_t value);
  // A shape whose rank is not known (prints "None").
  static Shape Unknown();
  // From MXNet 1.x legacy semantics: ndim 0 -> unknown shape, dim 0 -> unknown dim.
  static Shape FromLegacy(const Shape& legacy);

  // Rank, or -1 when unknown.
  int ndim() const { return known_ndim_ ? static_cast<int>(dims_.size()) : -1; }
  bool ndim_known() const { return known_ndim_; }
  // True when the rank and every dim are known.
  bool is_known() const;
  // Product of dims (1 for a scalar); -1 if anything is unknown.
  int64_t Size() const;
  // Product of dims [begin, end).
  int64_t ProdRange(int begin, int end) const;

  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  // dim(i) with Python-style negative i; throws mxnet::Error(kOutOfRange) if out of range.
  int64_t dim(int i) const;
  const Dims& dims() const { return dims_; }
  std::vector<int64_t> ToVector() const { return {dims_.begin(), dims_.end()}; }
  auto begin() const { return dims_.begin(); }
  auto end() const { return dims_.end(); }
  void push_back(int64_t d) {
    dims_.push_back(d);
    known_ndim_ = true;
  }

  bool operator==(const Shape& o) const { return known_ndim_ == o.known_ndim_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }

  // Python tuple formatting like MXNet: "(2, 3)", "(5,)", "()", unknown dims as -1, "None" when
  // the rank is unknown.
  std::string ToString() const;
  // MXNet 1.x `__shape__` formatting: unknown dims as 0.
  std::string ToLegacyString() const;

 private:
  Dims dims_;
  bool known_ndim_ = true;
};

std::ostream& operator<<(std::ostream& os, const Shape& s);

// Parses MXNet/Python tuple text into int64 values: "(2, 3)", "[2,3]", "(2,)", "()", a bare
// "3", trailing 'L' suffixes ("2L"). Errors: kInvalidArgument naming the text.
absl::StatusOr<std::vector<int64_t>> ParseIntTuple(std::string_view text);
// ParseIntTuple as a Shape; "None" gives Shape::Unknown().
absl::StatusOr<Shape> ParseShape(std::string_view text);

// Normalizes a possibly negative axis for rank `ndim` (-1 is the last). Throws
// mxnet::Error(kInvalidArgument) "<what>: axis 3 is out of range for ndim 2" otherwise.
int NormalizeAxis(int64_t axis, int ndim, std::string_view what = "axis");

}  // namespace mxnet
