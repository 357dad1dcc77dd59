// Datasets (mxnet.gluon.data.Dataset, SimpleDataset, ArrayDataset).
//
// A dataset is a random-access collection of samples. A sample is a small tuple of NDArrays
// (`Sample`, e.g. {image, label}); a dataset with one field has one-element samples. Datasets are
// immutable and shared: they are created with std::make_shared (or a Create() factory) and held
// by `DatasetPtr`; the operations transform/filter/shard/take return new datasets that keep their
// source alive. at() must be safe to call from several threads at once (DataLoader workers do).
//
// Errors (compute API): mxnet::Error with kOutOfRange for a bad index, kInvalidArgument for bad
// arguments (message names the function, the argument and the values).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ndarray/ndarray.h"

namespace mxnet::gluon::data {

// One sample: its fields in order (MXNet's tuple `(data, label)` is {data, label}).
using Sample = std::vector<NDArray>;

class Dataset;
using DatasetPtr = std::shared_ptr<const Dataset>;

// A function of a whole sample (Dataset::transform) and of its first field (transform_first).
using SampleFn = std::function<Sample(const Sample&)>;
using ArrayFn = std::function<NDArray(const NDArray&)>;
using SamplePredicate = std::function<bool(const Sample&)>;

class Dataset : public std::enable_shared_from_this<Dataset> {
 public:
  virtual ~Dataset() = default;

  // Number of samples (len(dataset)).
  virtual int64_t size() const = 0;
  // Sample `index` (0 <= index < size(); negative indices are not accepted). Thread-safe.
  // Throws kOutOfRange naming the index and the size.
  Sample at(int64_t index) const;
  Sample operator[](int64_t index) const { return at(index); }

  // A dataset whose samples are fn(sample) (Dataset.transform). lazy=true applies fn on every
  // at(); lazy=false applies it to every sample now and returns a SimpleDataset of the results.
  DatasetPtr transform(SampleFn fn, bool lazy = true) const;
  // Applies fn to the first field of each sample only; other fields pass through
  // (Dataset.transform_first).
  DatasetPtr transform_first(ArrayFn fn, bool lazy = true) const;
  // The samples for which pred(sample) is true, in order (Dataset.filter). Evaluates pred on every
  // sample now.
  DatasetPtr filter(const SamplePredicate& pred) const;
  // Shard `index` of `num_shards` contiguous shards (Dataset.shard): the first size() % num_shards
  // shards have one sample more. Errors: kInvalidArgument unless num_shards > 0 and
  // 0 <= index < num_shards.
  DatasetPtr shard(int64_t num_shards, int64_t index) const;
  // The first min(count, size()) samples (Dataset.take); count < 0 means all (Python's None).
  DatasetPtr take(int64_t count) const;
  // The samples at `indices` (any order, repeats allowed; Dataset.sample with a sampler's
  // indices). Errors: kOutOfRange for an index outside [0, size()).
  DatasetPtr sample(std::vector<int64_t> indices) const;

  // This dataset as a shared pointer (it must have been created by std::make_shared).
  DatasetPtr ptr() const;

 protected:
  // Implementations: `index` is already checked against size().
  virtual Sample Get(int64_t index) const = 0;
};

// A dataset over a list of samples held in memory (mxnet.gluon.data.SimpleDataset).
class SimpleDataset : public Dataset {
 public:
  explicit SimpleDataset(std::vector<Sample> samples) : samples_(std::move(samples)) {}
  // One single-field sample per array.
  static std::shared_ptr<SimpleDataset> FromArrays(const std::vector<NDArray>& items);
  int64_t size() const override { return static_cast<int64_t>(samples_.size()); }

 protected:
  Sample Get(int64_t index) const override { return samples_[index]; }

 private:
  std::vector<Sample> samples_;
};

// Several columns of equal length zipped into samples (mxnet.gluon.data.ArrayDataset): sample i is
// {column0[i], column1[i], ...}. A column is either an NDArray, indexed along axis 0 (a row view
// without copying; a 1-D array gives scalar-shaped () items, like MXNet, which converts 1-D arrays
// to NumPy so its items are scalars), or a list of arrays.
class ArrayDataset : public Dataset {
 public:
  using Column = std::variant<NDArray, std::vector<NDArray>>;
  // Errors: kInvalidArgument for no columns, a scalar (0-d) NDArray column, or columns of
  // different lengths ("All arrays must have the same length; array[0] has length 10 while
  // array[2] has 9.").
  explicit ArrayDataset(std::vector<Column> columns);
  int64_t size() const override { return length_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }

 protected:
  Sample Get(int64_t index) const override;

 private:
  std::vector<Column> columns_;
  int64_t length_ = 0;
};

}  // namespace mxnet::gluon::data
