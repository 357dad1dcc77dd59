#include "gluon/kvstore/mpi_kvstore.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon::kvstore::mpi {
namespace {

double g_timeout = -1;  // seconds; < 0: from MXNET_KVSTORE_TIMEOUT or 300
int g_rank = 0, g_size = 1;

// Async-signal-safe notice of a rank terminated by mpirun (another rank failed).
void OnTerminate(int sig) {
  char buf[200];
  int n = std::snprintf(buf, sizeof buf,
                        "mxnet kvstore mpi: rank %d of %d: terminated by signal %d (another rank "
                        "failed or the job was aborted)\n",
                        g_rank, g_size, sig);
  if (n > 0) (void)!write(2, buf, static_cast<size_t>(n));
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void FinalizeAtExit() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
}

std::string MpiErrorText(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

// Waits for `req` with the timeout; aborts the job with a clear message when it expires or MPI
// reports an error.
void Wait(MPI_Request& req, const std::string& what) {
  const double limit = timeout();
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    int done = 0;
    int rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) Abort(StrCat(what, " failed: ", MpiErrorText(rc)));
    if (done) return;
    // MPI progresses only inside MPI_Test: poll continuously for 50 ms (a large message's
    // pipeline needs every step driven, as a blocking MPI_Allreduce does), then every 0.2 ms
    // so that a rank waiting for a slow one leaves the core to others.
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > 0.05) std::this_thread::sleep_for(std::chrono::microseconds(200));
    if (waited > limit)
      Abort(StrCat(what, " did not complete within ", limit,
                   " s (another rank crashed, hangs, or made different kvstore calls; "
                   "MXNET_KVSTORE_TIMEOUT sets the limit); aborting the job"));
  }
}

void Check(int rc, const std::string& what) {
  if (rc != MPI_SUCCESS) Abort(StrCat(what, " failed: ", MpiErrorText(rc)));
}

MPI_Datatype MpiType(DType t, int key) {
  switch (t) {
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    default:
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore mpi: key ", key, " has dtype ",
               DTypeName(t), "; only float32 and float64 are summed across processes");
  }
}

class MpiStore : public KVStore {
 public:
  explicit MpiStore(const std::string& type) : KVStore(type) {
    EnsureInitialized();
    rank_ = g_rank;
    size_ = g_size;
  }
  int rank() const override { return rank_; }
  int num_workers() const override { return size_; }
  bool is_capable(Capability c) const override {
    return type() != "horovod" && KVStore::is_capable(c);
  }
  void barrier() override {
    MPI_Request req;
    Check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "barrier");
    Wait(req, "barrier");
  }
  double sum_across_workers(double x) override {
    double out = 0;
    MPI_Request req;
    Check(MPI_Iallreduce(&x, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req),
          "allreduce of a scalar");
    Wait(req, "allreduce of a scalar (the batch size)");
    return out;
  }

 protected:
  bool CompressesLocally() const override { return false; }
  bool SupportsCompression() const override { return true; }

  void BroadcastFromRoot(int key, NDArray& value) override {
    if (size_ == 1) return;
    // Every rank must agree on the size first: a mismatch would corrupt memory.
    int64_t mine = static_cast<int64_t>(value.nbytes()), root = mine;
    MPI_Request req;
    Check(MPI_Ibcast(&root, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &req), "broadcast");
    Wait(req, StrCat("broadcast of key ", key));
    if (root != mine)
      Abort(StrCat("broadcast of key ", key, ": rank 0 has ", root, " bytes, this rank ", mine,
                   " (shape ", value.shape().ToString(), ", ", DTypeName(value.dtype()),
                   "): the processes build different models"));
    const int64_t kMax = int64_t{1} << 30;  // MPI counts are int: large arrays in pieces
    for (int64_t off = 0; off < mine; off += kMax) {
      Check(MPI_Ibcast(static_cast<char*>(value.data_ptr()) + off,
                       static_cast<int>(std::min(kMax, mine - off)), MPI_BYTE, 0, MPI_COMM_WORLD,
                       &req),
            "broadcast");
      Wait(req, StrCat("broadcast of key ", key));
    }
    value.mark_written();  // raw-pointer write (Storage::version)
  }

  void ReduceAcrossWorkers(const std::vector<int>& keys, std::vector<NDArray>& merged) override {
    if (size_ == 1) return;
    if (gradient_compression().active()) {
      for (size_t k = 0; k < keys.size(); ++k) ReduceCompressed(keys[k], merged[k]);
      return;
    }
    // Buckets of consecutive keys with one dtype, up to bucket_bytes() each.
    for (const auto& [k, end] : buckets(merged, bucket_bytes())) {
      const DType dt = merged[k].dtype();
      const MPI_Datatype mt = MpiType(dt, keys[k]);
      int64_t bytes = 0;
      for (size_t i = k; i < end; ++i) bytes += static_cast<int64_t>(merged[i].nbytes());
      const size_t es = DTypeSize(dt);
      std::string what = end - k == 1 ? StrCat("allreduce of key ", keys[k])
                                      : StrCat("allreduce of keys ", keys[k], "..", keys[end - 1]);
      if (end - k == 1) {
        Allreduce(merged[k].data_ptr(), merged[k].size(), mt, what);
        merged[k].mark_written();
      } else {
        buf_.resize(static_cast<size_t>(bytes));
        size_t off = 0;
        for (size_t i = k; i < end; ++i) {
          std::memcpy(buf_.data() + off, merged[i].data_ptr(), merged[i].nbytes());
          off += merged[i].nbytes();
        }
        Allreduce(buf_.data(), bytes / static_cast<int64_t>(es), mt, what);
        off = 0;
        for (size_t i = k; i < end; ++i) {
          std::memcpy(merged[i].data_ptr(), buf_.data() + off, merged[i].nbytes());
          merged[i].mark_written();
          off += merged[i].nbytes();
        }
      }
    }
  }

 public:
  bool supports_async_allreduce() const override { return size_ > 1; }

  int64_t start_allreduce(const std::vector<NDArray>& arrays, const std::string& what) override {
    if (size_ == 1 || arrays.empty()) return 0;
    Pending op;
    op.what = what;
    op.arrays = arrays;
    const DType dt = arrays[0].dtype();
    const MPI_Datatype mt = MpiType(dt, -1);
    int64_t bytes = 0;
    for (const NDArray& a : arrays) {
      if (a.dtype() != dt || !a.device().is_cpu())
        MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", type(), ": ", what,
                 ": the arrays of one bucket must be CPU arrays of one dtype");
      bytes += static_cast<int64_t>(a.nbytes());
    }
    op.buf.resize(static_cast<size_t>(bytes));
    size_t off = 0;
    for (const NDArray& a : arrays) {
      std::memcpy(op.buf.data() + off, a.data_ptr(), a.nbytes());
      off += a.nbytes();
    }
    const int64_t count = bytes / static_cast<int64_t>(DTypeSize(dt));
    const int64_t kMax = int64_t{1} << 30;  // MPI counts are int: large buckets in pieces
    const size_t es = DTypeSize(dt);
    for (int64_t o = 0; o < count; o += kMax) {
      MPI_Request req;
      Check(MPI_Iallreduce(MPI_IN_PLACE, op.buf.data() + o * es,
                           static_cast<int>(std::min(kMax, count - o)), mt, MPI_SUM, MPI_COMM_WORLD,
                           &req),
            what);
      op.reqs.push_back(req);
    }
    const int64_t ticket = next_ticket_++;
    pending_.emplace(ticket, std::move(op));
    return ticket;
  }

  void wait_allreduce(int64_t ticket, bool write_back) override {
    auto it = pending_.find(ticket);
    if (it == pending_.end()) {
      if (ticket == 0) return;
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", type(), ": no allreduce ticket ",
               ticket);
    }
    Pending& op = it->second;
    for (MPI_Request& r : op.reqs) Wait(r, op.what);
    if (write_back) {
      size_t off = 0;
      for (const NDArray& a : op.arrays) {
        std::memcpy(a.data_ptr(), op.buf.data() + off, a.nbytes());
        a.mark_written();
        off += a.nbytes();
      }
    }
    pending_.erase(it);
  }

  void progress() override {
    for (auto& [t, op] : pending_)
      for (MPI_Request& r : op.reqs) {
        if (r == MPI_REQUEST_NULL) continue;
        int done = 0;
        Check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), op.what);  // done: r becomes NULL
      }
  }

 private:
  void Allreduce(void* data, int64_t count, MPI_Datatype type, const std::string& what) {
    // MPI counts are int: large arrays go in pieces.
    const int64_t kMax = int64_t{1} << 30;
    int es = 0;
    MPI_Type_size(type, &es);
    for (int64_t off = 0; off < count; off += kMax) {
      const int n = static_cast<int>(std::min(kMax, count - off));
      MPI_Request req;
      Check(MPI_Iallreduce(MPI_IN_PLACE, static_cast<char*>(data) + off * es, n, type, MPI_SUM,
                           MPI_COMM_WORLD, &req),
            what);
      Wait(req, what);
    }
  }

  void ReduceCompressed(int key, NDArray& merged) {
    if (merged.dtype() != DType::kFloat32)
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", type(),
               ": gradient compression needs float32 values, key ", key, " has ",
               DTypeName(merged.dtype()));
    const GradientCompression& gc = gradient_compression();
    const int64_t n = merged.size(), words = gc.compressed_size(n);
    if (words > (int64_t{1} << 30) / size_)
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", type(), ": key ", key,
               " is too large for a compressed allgather (", n, " values)");
    std::vector<uint32_t> mine(static_cast<size_t>(words)), all(static_cast<size_t>(words * size_));
    gc.Quantize(merged.data<float>(), Residual(key, merged).data<float>(), n, mine.data());
    MPI_Request req;
    const std::string what = StrCat("compressed allgather of key ", key);
    Check(MPI_Iallgather(mine.data(), static_cast<int>(words), MPI_UINT32_T, all.data(),
                         static_cast<int>(words), MPI_UINT32_T, MPI_COMM_WORLD, &req),
          what);
    Wait(req, what);
    float* out = merged.data<float>();
    for (int r = 0; r < size_; ++r)
      gc.Dequantize(all.data() + static_cast<size_t>(r) * words, n, out, /*accumulate=*/r > 0);
    merged.mark_written();
  }

  struct Pending {
    std::string what;
    std::vector<NDArray> arrays;
    std::vector<char> buf;
    std::vector<MPI_Request> reqs;
  };
  int rank_ = 0, size_ = 1;
  std::vector<char> buf_;
  std::map<int64_t, Pending> pending_;
  int64_t next_ticket_ = 1;
};

const bool kRegistered = [] {
  for (const char* name : {"mpi", "horovod", "dist_sync", "dist_sync_device"})
    RegisterKVStore(name, [](const std::string& n) { return std::make_shared<MpiStore>(n); });
  return true;
}();

}  // namespace

void EnsureInitialized() {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      MX_THROW(absl::StatusCode::kInternal, "kvstore mpi: MPI_Init_thread failed");
    std::atexit(FinalizeAtExit);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_size > 1) {
      std::signal(SIGTERM, OnTerminate);
      std::signal(SIGINT, OnTerminate);
    }
  }
}

int WorldRank() {
  EnsureInitialized();
  return g_rank;
}

int WorldSize() {
  EnsureInitialized();
  return g_size;
}

void Abort(const std::string& why, int code) {
  std::fprintf(stderr, "mxnet kvstore mpi: rank %d of %d: %s\n", g_rank, g_size, why.c_str());
  std::fflush(stderr);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void set_timeout(double seconds) {
  if (!(seconds > 0))
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore mpi: timeout must be > 0 s, got ",
             seconds);
  g_timeout = seconds;
}

double timeout() {
  if (g_timeout > 0) return g_timeout;
  const char* e = std::getenv("MXNET_KVSTORE_TIMEOUT");
  double v = e ? std::atof(e) : 0;
  return v > 0 ? v : 300.0;
}

}  // namespace mxnet::gluon::kvstore::mpi
