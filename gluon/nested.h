// Nested block inputs and outputs: an array, None, or a list of nested values, as Gluon's
// forward(x, *args) takes and returns them (MXNet 1.9 gluon/block.py: _flatten / _regroup).
//
//   Nested args = Nested::List({x, Nested::List({h, c}), Nested()});  // x, [h, c], None
//   auto [flat, fmt] = Flatten(args.list());  // flat {x, h, c}; fmt "[0, [0, 0], -1]"
//   Nested back = Regroup(flat, fmt);         // the same structure again
//
// Formats print like MXNet's: 0 an array, -1 None, [...] a list. Flat vectors leave None out (the
// cached graph of a hybridized block has no None inputs).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ndarray/ndarray.h"
#include "ndarray/op.h"  // NDArrayVec

namespace mxnet::gluon {

class Nested {
 public:
  // None.
  Nested() = default;
  // An array (an empty NDArray() is an array too; use Nested() for None).
  Nested(NDArray a);  // NOLINT(google-explicit-constructor): arrays stand where values do
  // A list of values.
  static Nested List(std::vector<Nested> items);
  static Nested List(std::initializer_list<Nested> items) {
    return List(std::vector<Nested>(items));
  }

  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_list() const { return kind_ == Kind::kList; }
  // The array; kInvalidArgument naming what this is otherwise.
  const NDArray& array() const;
  // The list's items; kInvalidArgument naming what this is otherwise.
  const std::vector<Nested>& list() const;
  // Item i of a list; kInvalidArgument when this is no list, kOutOfRange past its end.
  const Nested& operator[](size_t i) const;
  // The structure as MXNet prints it: "0", "-1", "[0, [0, 0], -1]".
  std::string format() const;

 private:
  enum class Kind { kNone, kArray, kList };
  Kind kind_ = Kind::kNone;
  NDArray array_;
  std::vector<Nested> items_;
};

// Flattens positional arguments (each an array, None or a list) in order: the arrays (None left
// out) and the arguments' format, a list of each argument's format ("[0, -1, [0, 0]]").
std::pair<NDArrayVec, std::string> Flatten(const std::vector<Nested>& args);

// Rebuilds the structure `format` (as Flatten or Nested::format print it) from `flat`, taking the
// arrays in order and None where the format has -1. Errors (kInvalidArgument): a malformed
// format, fewer or more arrays than the format holds.
Nested Regroup(const NDArrayVec& flat, const std::string& format);

}  // namespace mxnet::gluon
