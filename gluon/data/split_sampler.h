// Sharding the data of a multi-process (data-parallel) job by rank.
//
// SplitSampler (the SplitSampler of MXNet's distributed-training example, cifar10_dist.py):
// part part_index of num_parts equal contiguous parts of [0, length): part_len = length /
// num_parts (the remainder is left out), indices [part_index * part_len, (part_index + 1) *
// part_len), shuffled each epoch when `shuffle` (global generator, mxnet::random).
//
// SplitBatchSampler: every process runs the same global BatchSampler (same seed: same order),
// cuts each global batch into num_parts contiguous slices (sizes differ by at most one, the
// first slices larger) and yields slice part_index. N processes with global batch N*B thus see
// together exactly the batches one process with batch N*B sees, which makes a multi-process
// run reproduce a single-process run (the Trainer normalizes by the global batch). A global
// batch with fewer than num_parts samples (a tiny last batch) is dropped by every process.
#pragma once

#include <cstdint>
#include <vector>

#include "gluon/data/sampler.h"

namespace mxnet::gluon::data {

class SplitSampler : public Sampler {
 public:
  // Errors: kInvalidArgument if length < 0, num_parts < 1 or part_index outside
  // [0, num_parts).
  SplitSampler(int64_t length, int64_t num_parts = 1, int64_t part_index = 0, bool shuffle = false);
  int64_t size() const override { return part_len_; }
  std::vector<int64_t> Epoch() override;

 private:
  int64_t part_len_, start_;
  bool shuffle_;
};

class SplitBatchSampler : public BatchSampler {
 public:
  // The global batches: BatchSampler(sampler, global_batch_size, last_batch). Errors:
  // kInvalidArgument for a null sampler, global_batch_size < 1, num_parts < 1 or part_index
  // outside [0, num_parts).
  SplitBatchSampler(SamplerPtr sampler, int64_t global_batch_size, LastBatch last_batch,
                    int64_t num_parts, int64_t part_index);
  // Batches per epoch (the global sampler's, less a last batch too small to split).
  int64_t size() const override;
  std::vector<std::vector<int64_t>> Epoch() override;

 private:
  SamplerPtr sampler_;
  BatchSamplerPtr global_;
  int64_t num_parts_, part_index_;
};

}  // namespace mxnet::gluon::data
