// Samplers (mxnet.gluon.data.sampler): the order in which a DataLoader visits sample indices.
//
// A Sampler yields one epoch of indices per call to Epoch(); a BatchSampler groups a sampler's
// indices into mini-batches. Samplers are used from the consuming thread only (not thread-safe).
// RandomSampler draws from the global generator (mxnet::random), so random::seed(s) makes the
// order repeatable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace mxnet::gluon::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // Number of indices per epoch (len(sampler)).
  virtual int64_t size() const = 0;
  // The indices of the next epoch.
  virtual std::vector<int64_t> Epoch() = 0;
};
using SamplerPtr = std::shared_ptr<Sampler>;

// start, start+1, ..., start+length-1 (SequentialSampler(length, start)).
class SequentialSampler : public Sampler {
 public:
  // Errors: kInvalidArgument if length < 0.
  explicit SequentialSampler(int64_t length, int64_t start = 0);
  int64_t size() const override { return length_; }
  std::vector<int64_t> Epoch() override;

 private:
  int64_t length_;
  int64_t start_;
};

// A random permutation of [0, length) per epoch, without replacement (RandomSampler), drawn from
// the global CPU generator.
class RandomSampler : public Sampler {
 public:
  // Errors: kInvalidArgument if length < 0.
  explicit RandomSampler(int64_t length);
  int64_t size() const override { return length_; }
  std::vector<int64_t> Epoch() override;

 private:
  int64_t length_;
};

// How a BatchSampler treats a last batch smaller than batch_size:
//  kKeep: yield it short; kDiscard: drop it; kRollover: carry its indices to the front of the
//  next epoch's first batch.
enum class LastBatch { kKeep, kDiscard, kRollover };
// "keep", "discard", "rollover". Error: kInvalidArgument naming the text.
absl::StatusOr<LastBatch> ParseLastBatch(std::string_view s);
std::string_view LastBatchName(LastBatch b);

// Groups a sampler's indices into batches of batch_size (BatchSampler). Subclass it (overriding
// size() and Epoch()) for custom batching; DataLoader accepts any BatchSampler.
class BatchSampler {
 public:
  // Errors: kInvalidArgument for a null sampler or batch_size < 1.
  BatchSampler(SamplerPtr sampler, int64_t batch_size, LastBatch last_batch = LastBatch::kKeep);
  virtual ~BatchSampler() = default;
  // Number of batches the next epoch yields (len(batch_sampler); with kRollover it counts the
  // indices carried over from the previous epoch).
  virtual int64_t size() const;
  // The batches of the next epoch. With kRollover the incomplete tail is kept for the next call.
  virtual std::vector<std::vector<int64_t>> Epoch();

  int64_t batch_size() const { return batch_size_; }
  LastBatch last_batch() const { return last_batch_; }

 protected:
  BatchSampler() = default;

 private:
  SamplerPtr sampler_;
  int64_t batch_size_ = 1;
  LastBatch last_batch_ = LastBatch::kKeep;
  std::vector<int64_t> prev_;  // rollover remainder
};
using BatchSamplerPtr = std::shared_ptr<BatchSampler>;

}  // namespace mxnet::gluon::data
