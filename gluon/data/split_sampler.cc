#include "gluon/data/split_sampler.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data {
namespace {

void CheckPart(const char* who, int64_t num_parts, int64_t part_index) {
  if (num_parts < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, who, ": num_parts must be >= 1, got ", num_parts);
  if (part_index < 0 || part_index >= num_parts)
    MX_THROW(absl::StatusCode::kInvalidArgument, who, ": part_index ", part_index,
             " is outside [0, ", num_parts, ")");
}

}  // namespace

SplitSampler::SplitSampler(int64_t length, int64_t num_parts, int64_t part_index, bool shuffle)
    : shuffle_(shuffle) {
  if (length < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "SplitSampler: length must be >= 0, got ", length);
  CheckPart("SplitSampler", num_parts, part_index);
  part_len_ = length / num_parts;
  start_ = part_len_ * part_index;
}

std::vector<int64_t> SplitSampler::Epoch() {
  std::vector<int64_t> out(static_cast<size_t>(part_len_));
  std::iota(out.begin(), out.end(), start_);
  if (shuffle_) {
    random::GeneratorGuard g(cpu());
    std::shuffle(out.begin(), out.end(), g.gen());
  }
  return out;
}

SplitBatchSampler::SplitBatchSampler(SamplerPtr sampler, int64_t global_batch_size,
                                     LastBatch last_batch, int64_t num_parts, int64_t part_index)
    : sampler_(sampler),
      global_(std::make_shared<BatchSampler>(std::move(sampler), global_batch_size, last_batch)),
      num_parts_(num_parts),
      part_index_(part_index) {
  CheckPart("SplitBatchSampler", num_parts, part_index);
}

int64_t SplitBatchSampler::size() const {
  if (global_->last_batch() != LastBatch::kKeep) return global_->size();  // full batches only
  const int64_t n = sampler_->size(), b = global_->batch_size();
  return n / b + (n % b >= num_parts_ ? 1 : 0);
}

std::vector<std::vector<int64_t>> SplitBatchSampler::Epoch() {
  std::vector<std::vector<int64_t>> out;
  for (std::vector<int64_t>& b : global_->Epoch()) {
    const int64_t n = static_cast<int64_t>(b.size());
    if (n < num_parts_) continue;
    const int64_t base = n / num_parts_, extra = n % num_parts_;
    const int64_t begin = part_index_ * base + std::min(part_index_, extra);
    const int64_t len = base + (part_index_ < extra ? 1 : 0);
    out.emplace_back(b.begin() + begin, b.begin() + begin + len);
  }
  return out;
}

}  // namespace mxnet::gluon::data
