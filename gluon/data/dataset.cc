#include "gluon/data/dataset.h"

#include <algorithm>
#include <utility>

namespace mxnet::gluon::data {
namespace {

// Samples fn(source[i]) computed on access.
class LazyTransformDataset : public Dataset {
 public:
  LazyTransformDataset(DatasetPtr source, SampleFn fn)
      : source_(std::move(source)), fn_(std::move(fn)) {}
  int64_t size() const override { return source_->size(); }

 protected:
  Sample Get(int64_t index) const override { return fn_(source_->at(index)); }

 private:
  DatasetPtr source_;
  SampleFn fn_;
};

// source[indices[i]].
class IndexedDataset : public Dataset {
 public:
  IndexedDataset(DatasetPtr source, std::vector<int64_t> indices)
      : source_(std::move(source)), indices_(std::move(indices)) {}
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }

 protected:
  Sample Get(int64_t index) const override { return source_->at(indices_[index]); }

 private:
  DatasetPtr source_;
  std::vector<int64_t> indices_;
};

// source[start + i] for i < length.
class RangeDataset : public Dataset {
 public:
  RangeDataset(DatasetPtr source, int64_t start, int64_t length)
      : source_(std::move(source)), start_(start), length_(length) {}
  int64_t size() const override { return length_; }

 protected:
  Sample Get(int64_t index) const override { return source_->at(start_ + index); }

 private:
  DatasetPtr source_;
  int64_t start_;
  int64_t length_;
};

}  // namespace

Sample Dataset::at(int64_t index) const {
  const int64_t n = size();
  if (index < 0 || index >= n)
    MX_THROW(absl::StatusCode::kOutOfRange, "Dataset: index ", index, " is out of range for a ",
             "dataset of ", n, " samples");
  return Get(index);
}

DatasetPtr Dataset::ptr() const {
  try {
    return shared_from_this();
  } catch (const std::bad_weak_ptr&) {
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "Dataset: transform/filter/shard/take/sample need a dataset owned by a "
             "std::shared_ptr (create it with std::make_shared)");
  }
}

DatasetPtr Dataset::transform(SampleFn fn, bool lazy) const {
  MX_REQUIRE(fn != nullptr, absl::StatusCode::kInvalidArgument, "Dataset::transform: fn is empty");
  if (lazy) return std::make_shared<LazyTransformDataset>(ptr(), std::move(fn));
  const int64_t n = size();
  std::vector<Sample> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) out.push_back(fn(at(i)));
  return std::make_shared<SimpleDataset>(std::move(out));
}

DatasetPtr Dataset::transform_first(ArrayFn fn, bool lazy) const {
  MX_REQUIRE(fn != nullptr, absl::StatusCode::kInvalidArgument,
             "Dataset::transform_first: fn is empty");
  return transform(
      [fn = std::move(fn)](const Sample& s) {
        MX_REQUIRE(!s.empty(), absl::StatusCode::kInvalidArgument,
                   "Dataset::transform_first: the sample has no fields");
        Sample out = s;
        out[0] = fn(s[0]);
        return out;
      },
      lazy);
}

DatasetPtr Dataset::filter(const SamplePredicate& pred) const {
  MX_REQUIRE(pred != nullptr, absl::StatusCode::kInvalidArgument,
             "Dataset::filter: the predicate is empty");
  std::vector<int64_t> keep;
  const int64_t n = size();
  for (int64_t i = 0; i < n; ++i)
    if (pred(at(i))) keep.push_back(i);
  return std::make_shared<IndexedDataset>(ptr(), std::move(keep));
}

DatasetPtr Dataset::shard(int64_t num_shards, int64_t index) const {
  MX_REQUIRE(num_shards > 0, absl::StatusCode::kInvalidArgument,
             "Dataset::shard: num_shards must be greater than 0, got ", num_shards);
  MX_REQUIRE(index >= 0 && index < num_shards, absl::StatusCode::kInvalidArgument,
             "Dataset::shard: shard index out of bound: ", index, " out of ", num_shards);
  const int64_t length = size();
  const int64_t shard_len = length / num_shards;
  const int64_t rest = length % num_shards;
  // The first `rest` shards get one extra sample (MXNet's contiguous sharding).
  const int64_t start = shard_len * index + std::min(index, rest);
  const int64_t end = start + shard_len + (index < rest ? 1 : 0);
  return std::make_shared<RangeDataset>(ptr(), start, end - start);
}

DatasetPtr Dataset::take(int64_t count) const {
  const int64_t n = size();
  if (count < 0 || count > n) count = n;
  return std::make_shared<RangeDataset>(ptr(), 0, count);
}

DatasetPtr Dataset::sample(std::vector<int64_t> indices) const {
  const int64_t n = size();
  for (int64_t i : indices)
    MX_REQUIRE(i >= 0 && i < n, absl::StatusCode::kOutOfRange, "Dataset::sample: index ", i,
               " is out of range for a dataset of ", n, " samples");
  return std::make_shared<IndexedDataset>(ptr(), std::move(indices));
}

std::shared_ptr<SimpleDataset> SimpleDataset::FromArrays(const std::vector<NDArray>& items) {
  std::vector<Sample> samples;
  samples.reserve(items.size());
  for (const NDArray& a : items) samples.push_back({a});
  return std::make_shared<SimpleDataset>(std::move(samples));
}

ArrayDataset::ArrayDataset(std::vector<Column> columns) : columns_(std::move(columns)) {
  MX_REQUIRE(!columns_.empty(), absl::StatusCode::kInvalidArgument,
             "ArrayDataset: needs at least 1 array");
  for (size_t i = 0; i < columns_.size(); ++i) {
    int64_t len;
    if (const auto* a = std::get_if<NDArray>(&columns_[i])) {
      MX_REQUIRE(!a->is_none(), absl::StatusCode::kInvalidArgument, "ArrayDataset: array[", i,
                 "] is a none array");
      MX_REQUIRE(a->ndim() >= 1, absl::StatusCode::kInvalidArgument, "ArrayDataset: array[", i,
                 "] is a scalar of shape ", a->shape().ToString(),
                 "; each array needs a first (sample) axis");
      len = a->shape()[0];
    } else {
      len = static_cast<int64_t>(std::get<std::vector<NDArray>>(columns_[i]).size());
    }
    if (i == 0) {
      length_ = len;
    } else {
      MX_REQUIRE(len == length_, absl::StatusCode::kInvalidArgument,
                 "ArrayDataset: all arrays must have the same length; array[0] has length ",
                 length_, " while array[", i, "] has ", len, ".");
    }
  }
}

Sample ArrayDataset::Get(int64_t index) const {
  Sample out;
  out.reserve(columns_.size());
  for (const Column& c : columns_) {
    if (const auto* a = std::get_if<NDArray>(&c)) {
      out.push_back(a->at(index));
    } else {
      out.push_back(std::get<std::vector<NDArray>>(c)[index]);
    }
  }
  return out;
}

}  // namespace mxnet::gluon::data
