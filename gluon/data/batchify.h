// Batchify functions: how a DataLoader merges samples into a batch (MXNet's default_batchify_fn,
// and mxnet.gluon.data.batchify.Stack/Pad/Group of MXNet 2).
//
// A batchify function maps the samples of one batch (each a Sample = fields) to a Batch = one or
// more arrays. Field-level functions (FieldBatchifyFn) map the values of one field across the
// batch to arrays; Group applies one per field. Output arrays live on the CPU; inputs may live
// on any device. All functions are thread-safe (DataLoader workers call them concurrently).
//
// Errors: mxnet::Error(kInvalidArgument) naming the function, the field and the offending sample
// with expected vs actual shape/dtype.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "gluon/data/dataset.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::data {

// One batch: for the default Stack, one array per sample field, each of shape (B, ...).
using Batch = std::vector<NDArray>;
using BatchifyFn = std::function<Batch(const std::vector<Sample>& samples)>;
using FieldBatchifyFn = std::function<Batch(const std::vector<NDArray>& items)>;

// Stacks equally shaped arrays of one dtype along a new axis 0: n arrays of shape S give one of
// shape (n, S...) (nd.stack). Errors: empty input, or a shape/dtype differing from items[0].
NDArray StackArrays(const std::vector<NDArray>& items);

// Pads arrays of one rank and dtype to the largest size along every axis and stacks them: n arrays
// give (n, max_0, max_1, ...), the padding filled with `pad_val`; the result has `dtype` if given
// (values converted), else the items' dtype. If `lengths` is not null it receives each item's
// size along axis 0 (0 for scalars). Errors: empty input, ranks or dtypes differing.
NDArray PadArrays(const std::vector<NDArray>& items, double pad_val = 0,
                  std::optional<DType> dtype = std::nullopt,
                  std::vector<int64_t>* lengths = nullptr);

// Stack (the default): every field stacked, giving one (B, ...) array per field.
class Stack {
 public:
  Batch operator()(const std::vector<Sample>& samples) const;
  // One field: {StackArrays(items)}.
  Batch operator()(const std::vector<NDArray>& items) const;
};

// Pad: every field padded with PadArrays (variable-length sequences). With ret_length each
// padded field is followed by an int32 array (B,) of the items' original lengths along axis 0.
class Pad {
 public:
  explicit Pad(double val = 0, std::optional<DType> dtype = std::nullopt, bool ret_length = false)
      : val_(val), dtype_(dtype), ret_length_(ret_length) {}
  Batch operator()(const std::vector<Sample>& samples) const;
  Batch operator()(const std::vector<NDArray>& items) const;

 private:
  double val_;
  std::optional<DType> dtype_;
  bool ret_length_;
};

// Group (MXNet 2's batchify.Group/Tuple): field j of the samples is merged by fns[j]; the outputs
// are concatenated in field order, e.g. Group({Pad(0, {}, true), Stack()}) gives
// {padded data, data lengths, stacked labels}. Errors: a sample's field count differs from
// fns.size().
class Group {
 public:
  explicit Group(std::vector<FieldBatchifyFn> fns);
  Batch operator()(const std::vector<Sample>& samples) const;

 private:
  std::vector<FieldBatchifyFn> fns_;
};

}  // namespace mxnet::gluon::data
