#include "gluon/data/dataloader.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "ndarray/random.h"
#include "ndarray/runtime_context.h"

namespace mxnet::gluon::data {

// A fixed set of threads running queued tasks in FIFO order. Queued tasks that have not started
// when the pool is destroyed are dropped (their futures report broken_promise).
class DataLoader::WorkerPool {
 public:
  explicit WorkerPool(int n) {
    threads_.reserve(n);
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void Submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void Run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

namespace {

// Loads one batch: dataset.at(i) for its indices, then batchify. Errors name the sample index
// (or the batch for batchify errors) and keep the original status code.
Batch LoadBatch(const Dataset& dataset, const BatchifyFn& batchify,
                const std::vector<int64_t>& indices, int64_t batch_no) {
  std::vector<Sample> samples;
  samples.reserve(indices.size());
  for (int64_t idx : indices) {
    try {
      samples.push_back(dataset.at(idx));
    } catch (const Error& e) {
      MX_THROW(e.code(), "DataLoader: loading sample ", idx, " (batch ", batch_no,
               ") failed: ", e.what());
    } catch (const std::exception& e) {
      MX_THROW(absl::StatusCode::kInternal, "DataLoader: loading sample ", idx, " (batch ",
               batch_no, ") failed: ", e.what());
    } catch (...) {
      MX_THROW(absl::StatusCode::kInternal, "DataLoader: loading sample ", idx, " (batch ",
               batch_no, ") failed with an unknown exception");
    }
  }
  try {
    return batchify(samples);
  } catch (const Error& e) {
    MX_THROW(e.code(), "DataLoader: batchify of batch ", batch_no, " (samples ",
             StrJoin(indices, ", "), ") failed: ", e.what());
  } catch (const std::exception& e) {
    MX_THROW(absl::StatusCode::kInternal, "DataLoader: batchify of batch ", batch_no, " (samples ",
             StrJoin(indices, ", "), ") failed: ", e.what());
  }
}

// A worker's result. Errors travel as a code and a message and are rethrown as a new
// mxnet::Error on the consuming thread (no exception object is shared between threads).
struct LoadResult {
  Batch batch;
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string message;
};

LoadResult LoadBatchNoThrow(const Dataset& dataset, const BatchifyFn& batchify,
                            const std::vector<int64_t>& indices, int64_t batch_no) {
  LoadResult r;
  try {
    r.batch = LoadBatch(dataset, batchify, indices, batch_no);
  } catch (const Error& e) {
    r.code = e.code();
    r.message = e.what();
  } catch (const std::exception& e) {
    r.code = absl::StatusCode::kInternal;
    r.message = e.what();
  } catch (...) {
    r.code = absl::StatusCode::kInternal;
    r.message = StrCat("DataLoader: batch ", batch_no, " failed with an unknown exception");
  }
  return r;
}

}  // namespace

struct DataLoader::EpochState {
  DatasetPtr dataset;
  std::shared_ptr<const BatchifyFn> batchify;
  std::vector<std::vector<int64_t>> batches;
  std::shared_ptr<WorkerPool> pool;  // null: load on the consuming thread
  // Set when begin() ran under a RuntimeContext with its own generators and there are workers:
  // batch i is loaded under a fresh context seeded with worker_seed + i (repeatable whatever
  // worker loads it). Unset: workers use their threads' default contexts (process-wide
  // generators).
  std::optional<uint64_t> worker_seed;
  size_t prefetch = 1;
  // Set when the iterator is abandoned: queued tasks skip their work.
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  std::deque<std::future<LoadResult>> inflight;  // batches [pos, next_submit)
  size_t next_submit = 0;
  size_t pos = 0;  // index of `current`
  Batch current;
  bool done = false;

  void SubmitUpTo(size_t limit) {
    while (next_submit < batches.size() && next_submit < limit) {
      auto promise = std::make_shared<std::promise<LoadResult>>();
      inflight.push_back(promise->get_future());
      const int64_t batch_no = static_cast<int64_t>(next_submit);
      pool->Submit([promise, ds = dataset, fn = batchify, idx = batches[next_submit], batch_no,
                    cancelled = cancelled, seed = worker_seed] {
        if (cancelled->load()) {
          promise->set_value({});
          return;
        }
        if (!seed) {
          promise->set_value(LoadBatchNoThrow(*ds, *fn, idx, batch_no));
          return;
        }
        RuntimeContext rc;
        rc.seed(*seed + static_cast<uint64_t>(batch_no));
        ContextScope scope(rc);
        promise->set_value(LoadBatchNoThrow(*ds, *fn, idx, batch_no));
      });
      ++next_submit;
    }
  }

  // Makes batch `pos` current (or sets done).
  void Load() {
    if (pos >= batches.size()) {
      done = true;
      current.clear();
      return;
    }
    if (!pool) {
      current = LoadBatch(*dataset, *batchify, batches[pos], static_cast<int64_t>(pos));
      return;
    }
    SubmitUpTo(pos + prefetch);
    std::future<LoadResult> f = std::move(inflight.front());
    inflight.pop_front();
    LoadResult r = f.get();
    if (r.code != absl::StatusCode::kOk) {
      done = true;
      current.clear();
      throw Error(r.code, r.message);
    }
    current = std::move(r.batch);
    SubmitUpTo(pos + 1 + prefetch);
  }

  ~EpochState() { cancelled->store(true); }
};

DataLoader::DataLoader(DatasetPtr dataset, DataLoaderOptions o) : dataset_(std::move(dataset)) {
  MX_REQUIRE(dataset_ != nullptr, absl::StatusCode::kInvalidArgument,
             "DataLoader: dataset is null");
  MX_REQUIRE(o.num_workers >= 0, absl::StatusCode::kInvalidArgument,
             "DataLoader: num_workers must be >= 0, got ", o.num_workers);
  if (o.batch_sampler == nullptr) {
    MX_REQUIRE(o.batch_size >= 1, absl::StatusCode::kInvalidArgument,
               "DataLoader: batch_size must be specified (>= 1) unless batch_sampler is "
               "specified, got ",
               o.batch_size);
    SamplerPtr sampler = o.sampler;
    if (sampler == nullptr) {
      if (o.shuffle) {
        sampler = std::make_shared<RandomSampler>(dataset_->size());
      } else {
        sampler = std::make_shared<SequentialSampler>(dataset_->size());
      }
    } else {
      MX_REQUIRE(!o.shuffle, absl::StatusCode::kInvalidArgument,
                 "DataLoader: shuffle must not be specified if sampler is specified");
    }
    batch_sampler_ = std::make_shared<BatchSampler>(std::move(sampler), o.batch_size,
                                                    o.last_batch.value_or(LastBatch::kKeep));
  } else {
    MX_REQUIRE(o.batch_size == 0 && !o.shuffle && o.sampler == nullptr && !o.last_batch,
               absl::StatusCode::kInvalidArgument,
               "DataLoader: batch_size, shuffle, sampler and last_batch must not be specified "
               "if batch_sampler is specified");
    batch_sampler_ = std::move(o.batch_sampler);
  }
  MX_REQUIRE(o.pin_device_id >= 0, absl::StatusCode::kInvalidArgument,
             "DataLoader: pin_device_id must be >= 0, got ", o.pin_device_id);
  BatchifyFn batchify = o.batchify_fn ? std::move(o.batchify_fn) : BatchifyFn(Stack());
  if (o.pin_memory) {  // MXNet: batchify, then _as_in_context(batch, cpu_pinned(pin_device_id))
    batchify = [inner = std::move(batchify),
                pinned = cpu_pinned(o.pin_device_id)](const std::vector<Sample>& samples) {
      Batch b = inner(samples);
      for (NDArray& x : b) x = x.as_in_context(pinned);
      return b;
    };
  }
  batchify_ = std::make_shared<const BatchifyFn>(std::move(batchify));
  num_workers_ = o.num_workers;
  prefetch_ = o.prefetch < 0 ? 2 * num_workers_ : o.prefetch;
  if (prefetch_ < 1) prefetch_ = 1;
  if (num_workers_ > 0) pool_ = std::make_shared<WorkerPool>(num_workers_);
}

DataLoader::~DataLoader() = default;

int64_t DataLoader::size() const { return batch_sampler_->size(); }

DataLoader::Iterator DataLoader::begin() {
  auto st = std::make_unique<EpochState>();
  st->dataset = dataset_;
  st->batchify = batchify_;
  st->batches = batch_sampler_->Epoch();
  st->pool = pool_;
  if (pool_ && RuntimeContext::Current().generators()) {
    random::GeneratorGuard g(cpu());
    st->worker_seed = g.gen()();
  }
  st->prefetch = static_cast<size_t>(prefetch_);
  st->Load();
  return Iterator(std::move(st));
}

DataLoader::Iterator::Iterator(std::unique_ptr<EpochState> state) : state_(std::move(state)) {}
DataLoader::Iterator::Iterator(Iterator&&) noexcept = default;
DataLoader::Iterator& DataLoader::Iterator::operator=(Iterator&&) noexcept = default;
DataLoader::Iterator::~Iterator() = default;

bool DataLoader::Iterator::done() const { return state_ == nullptr || state_->done; }

const Batch* DataLoader::Iterator::operator->() const {
  MX_REQUIRE(!done(), absl::StatusCode::kOutOfRange,
             "DataLoader::Iterator: dereferencing the end of the epoch");
  return &state_->current;
}

Batch DataLoader::Iterator::operator*() const { return *operator->(); }

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  MX_REQUIRE(!done(), absl::StatusCode::kOutOfRange,
             "DataLoader::Iterator: advancing past the end of the epoch");
  ++state_->pos;
  try {
    state_->Load();
  } catch (...) {
    state_->done = true;
    throw;
  }
  return *this;
}

int64_t DataLoader::Iterator::batch_index() const {
  return state_ ? static_cast<int64_t>(state_->pos) : 0;
}

}  // namespace mxnet::gluon::data
