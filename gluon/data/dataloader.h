// DataLoader (mxnet.gluon.data.DataLoader): mini-batches of a dataset.
//
//   auto ds = vision::FashionMNIST::Create(root).value()->transform_first(tf);
//   DataLoader loader(ds, {.batch_size = 128, .shuffle = true, .num_workers = 2});
//   for (const Batch& b : loader) { /* b[0]: (128, 1, 28, 28) float32, b[1]: (128,) int32 */ }
//
// Each `for` over the loader is one epoch: begin() asks the batch sampler for the epoch's batches
// (on the calling thread, so shuffling follows mxnet::random::seed), then loads them in order.
// With num_workers == 0 batches are loaded on the calling thread when needed. With
// num_workers > 0 a pool of std::threads (kept for the loader's lifetime) loads whole batches
// (dataset.at() for each index, then batchify_fn) with up to `prefetch` batches in flight; batches
// are still yielded in the sampler's order, so the result is the same with or without workers
// (for deterministic transforms). Random transforms in workers: when begin() runs under a
// RuntimeContext with its own generators (RuntimeContext::seed, a seeded C ABI mxc_ctx), batch i
// is loaded under a fresh context seeded from one draw of those generators plus i, so an epoch is
// repeatable whatever worker loads which batch; otherwise workers draw from the process-wide
// generators in a thread-dependent order. An exception while loading surfaces on the consuming
// thread, from begin()/operator++, as mxnet::Error with the original code and a message naming
// the sample index and batch number.
//
// Not thread-safe: iterate one loader from one thread at a time. Datasets, batchify functions and
// transforms must be thread-safe when num_workers > 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "gluon/data/batchify.h"
#include "gluon/data/dataset.h"
#include "gluon/data/sampler.h"

namespace mxnet::gluon::data {

struct DataLoaderOptions {
  // Samples per batch; required (>= 1) unless batch_sampler is given.
  int64_t batch_size = 0;
  // Visit samples in a random order each epoch (RandomSampler). Not with `sampler`.
  bool shuffle = false;
  // Custom index order. Not with shuffle.
  SamplerPtr sampler;
  // Incomplete last batch policy; default kKeep.
  std::optional<LastBatch> last_batch;
  // Custom batching; excludes batch_size, shuffle, sampler and last_batch.
  BatchSamplerPtr batch_sampler;
  // Merges samples into a batch; default Stack().
  BatchifyFn batchify_fn;
  // Worker threads (0: load on the calling thread).
  int num_workers = 0;
  // Batches in flight with workers; default (< 0) 2 * num_workers, at least 1.
  int prefetch = -1;
  // MXNet's pin_memory: every array of a batch is moved to cpu_pinned(pin_device_id) after
  // batchify (by the worker that loaded it), so host->GPU copies of batches can run at full speed
  // (as_in_context(gpu(n))). cpu_pinned memory is page-locked (cudaHostAlloc) only in a CUDA build
  // linking //ndarray/backends/cuda:gpu_storage on a machine with a GPU; otherwise it is ordinary
  // host memory and pinning only costs the copy. Pinned arrays are CPU arrays for every op, but on
  // another device than cpu(): move them (as_in_context) before mixing them with cpu() arrays.
  bool pin_memory = false;
  // The N of cpu_pinned(N) (MXNet's pin_device_id; >= 0).
  int pin_device_id = 0;
};

class DataLoader {
 public:
  // Errors: kInvalidArgument for a null dataset or a bad option combination (MXNet's rules:
  // batch_size needed unless batch_sampler; shuffle excludes sampler; batch_sampler excludes
  // batch_size/shuffle/sampler/last_batch; num_workers >= 0).
  DataLoader(DatasetPtr dataset, DataLoaderOptions options);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Batches in the next epoch (len(loader)).
  int64_t size() const;
  const DatasetPtr& dataset() const { return dataset_; }
  const BatchSamplerPtr& batch_sampler() const { return batch_sampler_; }

  struct EpochState;
  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::input_iterator_tag;

    Iterator(Iterator&&) noexcept;
    Iterator& operator=(Iterator&&) noexcept;
    ~Iterator();  // abandons (and lets workers skip) batches not yet consumed

    // The current batch (returned by value, a few array handles, so `const Batch& b =
    // *loader.begin()` stays valid after the iterator is gone).
    Batch operator*() const;
    const Batch* operator->() const;
    // Loads the next batch; throws the loading error, if any.
    Iterator& operator++();
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator& it, std::default_sentinel_t) { return it.done(); }
    // Index of the current batch within the epoch.
    int64_t batch_index() const;

   private:
    friend class DataLoader;
    explicit Iterator(std::unique_ptr<EpochState> state);
    bool done() const;
    std::unique_ptr<EpochState> state_;
  };

  // Starts an epoch and loads its first batch (throws its loading error, if any).
  Iterator begin();
  std::default_sentinel_t end() const { return {}; }

  class WorkerPool;

 private:
  DatasetPtr dataset_;
  BatchSamplerPtr batch_sampler_;
  std::shared_ptr<const BatchifyFn> batchify_;
  int num_workers_;
  int prefetch_;
  std::shared_ptr<WorkerPool> pool_;
};

}  // namespace mxnet::gluon::data
