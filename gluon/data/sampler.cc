#include "gluon/data/sampler.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "base/error.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data {

SequentialSampler::SequentialSampler(int64_t length, int64_t start)
    : length_(length), start_(start) {
  MX_REQUIRE(length >= 0, absl::StatusCode::kInvalidArgument,
             "SequentialSampler: length must be >= 0, got ", length);
}

std::vector<int64_t> SequentialSampler::Epoch() {
  std::vector<int64_t> out(length_);
  std::iota(out.begin(), out.end(), start_);
  return out;
}

RandomSampler::RandomSampler(int64_t length) : length_(length) {
  MX_REQUIRE(length >= 0, absl::StatusCode::kInvalidArgument,
             "RandomSampler: length must be >= 0, got ", length);
}

std::vector<int64_t> RandomSampler::Epoch() {
  std::vector<int64_t> out(length_);
  std::iota(out.begin(), out.end(), int64_t{0});
  random::GeneratorGuard g(cpu());
  std::shuffle(out.begin(), out.end(), g.gen());
  return out;
}

absl::StatusOr<LastBatch> ParseLastBatch(std::string_view s) {
  if (s == "keep") return LastBatch::kKeep;
  if (s == "discard") return LastBatch::kDiscard;
  if (s == "rollover") return LastBatch::kRollover;
  return absl::InvalidArgumentError(
      StrCat("last_batch must be one of 'keep', 'discard', or 'rollover', but got '", s, "'"));
}

std::string_view LastBatchName(LastBatch b) {
  switch (b) {
    case LastBatch::kKeep:
      return "keep";
    case LastBatch::kDiscard:
      return "discard";
    case LastBatch::kRollover:
      return "rollover";
  }
  return "?";
}

BatchSampler::BatchSampler(SamplerPtr sampler, int64_t batch_size, LastBatch last_batch)
    : sampler_(std::move(sampler)), batch_size_(batch_size), last_batch_(last_batch) {
  MX_REQUIRE(sampler_ != nullptr, absl::StatusCode::kInvalidArgument,
             "BatchSampler: sampler is null");
  MX_REQUIRE(batch_size >= 1, absl::StatusCode::kInvalidArgument,
             "BatchSampler: batch_size must be >= 1, got ", batch_size);
}

int64_t BatchSampler::size() const {
  MX_CHECK(sampler_ != nullptr, "a BatchSampler subclass must override size()");
  const int64_t n = sampler_->size();
  switch (last_batch_) {
    case LastBatch::kKeep:
      return (n + batch_size_ - 1) / batch_size_;
    case LastBatch::kDiscard:
      return n / batch_size_;
    case LastBatch::kRollover:
      return (static_cast<int64_t>(prev_.size()) + n) / batch_size_;
  }
  return 0;
}

std::vector<std::vector<int64_t>> BatchSampler::Epoch() {
  MX_CHECK(sampler_ != nullptr, "a BatchSampler subclass must override Epoch()");
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> batch = std::move(prev_);
  prev_.clear();
  batch.reserve(batch_size_);
  for (int64_t i : sampler_->Epoch()) {
    batch.push_back(i);
    if (static_cast<int64_t>(batch.size()) == batch_size_) {
      out.push_back(std::move(batch));
      batch = {};
      batch.reserve(batch_size_);
    }
  }
  if (!batch.empty()) {
    switch (last_batch_) {
      case LastBatch::kKeep:
        out.push_back(std::move(batch));
        break;
      case LastBatch::kDiscard:
        break;
      case LastBatch::kRollover:
        prev_ = std::move(batch);
        break;
    }
  }
  return out;
}

}  // namespace mxnet::gluon::data
