// A small stand-in for libFuzzer's main, linked into the fuzz targets when they are built with the
// project's normal toolchain (g++; no -fsanitize=fuzzer). It gives `./bazelw test //...` a short,
// deterministic fuzz run of every target without clang:
//
//   <target> [-flags] PATH...       PATH: a file, or a directory read recursively
//
// 1. Replays every input file (the seed corpus and the crash reproducers).
// 2. With -max_total_time=S (or -runs=N), mutates the inputs at random (bit flips, interesting
//    integers, truncation, insertion, deletion, duplication, splicing two inputs) and runs each
//    mutant, for S seconds (or N runs).
// Flags (libFuzzer's names and meaning): -max_total_time, -runs, -seed (default 1), -max_len
// (mutants are cut to this; default 1 MiB), -timeout (seconds per input, default 1),
// -malloc_limit_mb (largest single malloc/new, default 512; not enforced under ASan, which has
// its own allocator: use the clang build for that). The timeout counts the CPU time of the
// calling thread (wall time x20 for a blocked one), so a loaded machine does not fake a hang.
// A crash, a timeout or an allocation over the limit prints the input's size and a hex dump of its
// first bytes, writes it to $TEST_UNDECLARED_OUTPUTS_DIR (or the current directory) as
// crash-<hash>, and aborts: the exit status is non-zero and the test fails.
// Without mutation flags a single file argument is simply replayed (reproducing a crash).
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

// The input being run, for the crash/timeout report (set before each call).
const uint8_t* g_cur_data = nullptr;
std::atomic<size_t> g_cur_size{0};
std::atomic<int64_t> g_cur_start_ns{0};  // 0: not inside a call
std::atomic<size_t> g_malloc_limit{size_t{512} << 20};
std::atomic<bool> g_in_report{false};
clockid_t g_cpu_clock = CLOCK_PROCESS_CPUTIME_ID;
std::atomic<int64_t> g_cur_start_cpu_ns{0};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t CpuNs() {
  timespec ts;
  clock_gettime(g_cpu_clock, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// FNV-1a of the input (names the reproducer file).
uint64_t Hash(const uint8_t* d, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

// Async-signal-safe enough: write(2) and open(2) only, no allocation.
void WriteStr(const char* s) { (void)!write(2, s, strlen(s)); }

void WriteHex(uint64_t v) {
  char buf[17];
  for (int i = 15; i >= 0; --i, v >>= 4) buf[i] = "0123456789abcdef"[v & 15];
  buf[16] = 0;
  WriteStr(buf);
}

void ReportCurrentInput(const char* why) {
  if (g_in_report.exchange(true)) return;
  const uint8_t* d = g_cur_data;
  size_t n = g_cur_size.load();
  WriteStr("\n==driver== ");
  WriteStr(why);
  WriteStr(" on an input of 0x");
  WriteHex(n);
  WriteStr(" bytes\n==driver== first bytes:");
  for (size_t i = 0; d && i < n && i < 64; ++i) {
    char b[4] = {' ', "0123456789abcdef"[d[i] >> 4], "0123456789abcdef"[d[i] & 15], 0};
    WriteStr(b);
  }
  WriteStr("\n");
  if (!d) return;
  char path[512];
  const char* dir = getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (!dir || !*dir) dir = ".";
  size_t len = strlen(dir);
  if (len > 400) return;
  memcpy(path, dir, len);
  memcpy(path + len, "/crash-", 7);
  uint64_t h = Hash(d, n);
  for (int i = 15; i >= 0; --i, h >>= 4) path[len + 7 + i] = "0123456789abcdef"[h & 15];
  path[len + 7 + 16] = 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!write(fd, d, n);
    close(fd);
    WriteStr("==driver== reproducer written to ");
    WriteStr(path);
    WriteStr("\n");
  }
}

void OnSignal(int sig) {
  ReportCurrentInput(sig == SIGSEGV  ? "SIGSEGV"
                     : sig == SIGBUS ? "SIGBUS"
                     : sig == SIGFPE ? "SIGFPE"
                     : sig == SIGILL ? "SIGILL"
                                     : "SIGABRT");
  signal(sig, SIG_DFL);
  raise(sig);
}

void OnTerminate() {
  ReportCurrentInput("uncaught C++ exception (std::terminate)");
  signal(SIGABRT, SIG_DFL);
  abort();
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
void CheckMalloc(size_t n) {
  if (n > g_malloc_limit.load(std::memory_order_relaxed) && g_cur_start_ns.load() != 0) {
    g_malloc_limit.store(SIZE_MAX);  // the report itself may allocate
    WriteStr("\n==driver== malloc(0x");
    WriteHex(n);
    WriteStr(") exceeds -malloc_limit_mb\n");
    ReportCurrentInput("out-of-memory (malloc limit)");
    signal(SIGABRT, SIG_DFL);
    abort();
  }
}
#endif

struct Options {
  int64_t max_total_time = 0;
  int64_t runs = -1;
  uint64_t seed = 1;
  size_t max_len = size_t{1} << 20;
  double timeout_s = 1;
};

void CollectFiles(const std::string& path, std::vector<std::string>* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    fprintf(stderr, "==driver== cannot stat %s (skipped)\n", path.c_str());
    return;
  }
  if (S_ISREG(st.st_mode)) {
    out->push_back(path);
    return;
  }
  if (!S_ISDIR(st.st_mode)) return;
  DIR* d = opendir(path.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) CollectFiles(path + "/" + n, out);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void RunOne(const std::string& input, const Options& opt) {
  // A heap copy of exactly the input's size, so an overread is caught by ASan (as in libFuzzer).
  std::unique_ptr<uint8_t[]> copy(new uint8_t[input.size() + (input.empty() ? 1 : 0)]);
  memcpy(copy.get(), input.data(), input.size());
  g_cur_data = copy.get();
  g_cur_size = input.size();
  g_cur_start_cpu_ns = CpuNs();
  g_cur_start_ns = NowNs();
  LLVMFuzzerTestOneInput(copy.get(), input.size());
  g_cur_start_ns = 0;
}

// One random edit of `s` (libFuzzer's basic mutations).
void MutateOnce(std::string& s, const std::vector<std::string>& corpus, std::mt19937_64& rng,
                size_t max_len) {
  auto pos = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  static const uint64_t kInteresting[] = {
      0,          1,      0x7F,       0x80,       0xFF,       0x100,      0x7FFF,
      0x8000,     0xFFFF, 0x10000,    0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, ~0ull,
      1ull << 62, 0x112,  0xF993FAC9, 0xF993FACA, 0xF993FAC8, 33};
  switch (rng() % 9) {
    case 0:  // flip a bit
      if (!s.empty()) s[pos(s.size())] ^= static_cast<char>(1 << (rng() % 8));
      break;
    case 1:  // random byte
      if (!s.empty()) s[pos(s.size())] = static_cast<char>(rng());
      break;
    case 2: {  // interesting integer, 1/2/4/8 bytes, little-endian
      uint64_t v = kInteresting[rng() % (sizeof kInteresting / sizeof kInteresting[0])];
      size_t w = size_t{1} << (rng() % 4);
      if (s.size() >= w) memcpy(&s[pos(s.size() - w + 1)], &v, w);
      break;
    }
    case 3:  // truncate
      s.resize(pos(s.size() + 1));
      break;
    case 4: {  // insert random bytes
      size_t n = 1 + rng() % 8;
      std::string ins(n, '\0');
      for (auto& c : ins) c = static_cast<char>(rng());
      s.insert(pos(s.size() + 1), ins);
      break;
    }
    case 5: {  // delete a range
      if (s.empty()) break;
      size_t at = pos(s.size());
      s.erase(at, 1 + pos(std::min<size_t>(64, s.size() - at)));
      break;
    }
    case 6: {  // duplicate a range
      if (s.empty()) break;
      size_t at = pos(s.size());
      size_t n = 1 + pos(std::min<size_t>(256, s.size() - at));
      s.insert(pos(s.size() + 1), s.substr(at, n));
      break;
    }
    case 7: {  // splice with another input
      const std::string& o = corpus[pos(corpus.size())];
      if (o.empty()) break;
      size_t from = pos(o.size());
      s = s.substr(0, pos(s.size() + 1)) + o.substr(from);
      break;
    }
    case 8: {  // ASCII digit run (text formats: JSON numbers)
      if (s.empty()) break;
      static const char* kTokens[] = {
          "-1", "0", "2147483648", "99999999999999999999", "1e308", "\"", "[", "{", "}",
          "]",  ",", "null",       "-9223372036854775809"};
      const char* t = kTokens[rng() % (sizeof kTokens / sizeof kTokens[0])];
      size_t at = pos(s.size());
      s.replace(at, std::min<size_t>(s.size() - at, rng() % 4), t);
      break;
    }
  }
  if (s.size() > max_len) s.resize(max_len);
}

bool ParseFlag(const char* arg, const char* name, std::string* value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// The -malloc_limit_mb check for the g++ build: glibc's allocator, with a size check in front.
extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* __libc_memalign(size_t, size_t);
extern "C" void* malloc(size_t n) {
  CheckMalloc(n);
  return __libc_malloc(n);
}
extern "C" void* calloc(size_t a, size_t b) {
  if (b != 0 && a > SIZE_MAX / b) return nullptr;
  CheckMalloc(a * b);
  return __libc_calloc(a, b);
}
extern "C" void* realloc(void* p, size_t n) {
  CheckMalloc(n);
  return __libc_realloc(p, n);
}
extern "C" void* memalign(size_t align, size_t n) {
  CheckMalloc(n);
  return __libc_memalign(align, n);
}
extern "C" void* aligned_alloc(size_t align, size_t n) {
  CheckMalloc(n);
  return __libc_memalign(align, n);
}
extern "C" int posix_memalign(void** out, size_t align, size_t n) {
  CheckMalloc(n);
  void* p = __libc_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
#endif

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  Options opt;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (ParseFlag(argv[i], "-max_total_time", &v)) {
      opt.max_total_time = std::stoll(v);
    } else if (ParseFlag(argv[i], "-runs", &v)) {
      opt.runs = std::stoll(v);
    } else if (ParseFlag(argv[i], "-seed", &v)) {
      opt.seed = std::stoull(v);
    } else if (ParseFlag(argv[i], "-max_len", &v)) {
      opt.max_len = std::stoull(v);
    } else if (ParseFlag(argv[i], "-timeout", &v)) {
      opt.timeout_s = std::stod(v);
    } else if (ParseFlag(argv[i], "-malloc_limit_mb", &v)) {
      g_malloc_limit = static_cast<size_t>(std::stoull(v)) << 20;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "==driver== ignoring flag %s\n", argv[i]);
    } else {
      paths.push_back(argv[i]);
    }
  }
  // The handlers run on their own stack, so a stack overflow is reported too.
  static char alt_stack[1 << 16];
  stack_t ss = {};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction sa = {};
    sa.sa_handler = OnSignal;
    sa.sa_flags = SA_ONSTACK;
    sigaction(sig, &sa, nullptr);
  }
  std::set_terminate(OnTerminate);

  // Timeout watchdog: reports and aborts when one input uses more than -timeout seconds of the
  // main thread's CPU time (not wall time: this machine is shared, a descheduled run is no hang),
  // or 20 times that in wall time (a blocked thread).
  clockid_t cpu_clock;
  if (pthread_getcpuclockid(pthread_self(), &cpu_clock) != 0) cpu_clock = CLOCK_PROCESS_CPUTIME_ID;
  g_cpu_clock = cpu_clock;
  std::thread([timeout_ns = static_cast<int64_t>(opt.timeout_s * 1e9)] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      int64_t start = g_cur_start_ns.load();
      if (start == 0) continue;
      int64_t cpu = CpuNs() - g_cur_start_cpu_ns.load();
      if (g_cur_start_ns.load() != start) continue;  // a new input started meanwhile
      if (cpu > timeout_ns || NowNs() - start > 20 * timeout_ns) {
        ReportCurrentInput("timeout (-timeout)");
        _exit(70);
      }
    }
  }).detach();

  std::vector<std::string> files;
  for (const auto& p : paths) CollectFiles(p, &files);
  std::vector<std::string> corpus;
  for (const auto& f : files) corpus.push_back(ReadFile(f));
  auto t0 = std::chrono::steady_clock::now();
  size_t replayed_bytes = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    RunOne(corpus[i], opt);
    replayed_bytes += corpus[i].size();
  }
  fprintf(stderr, "==driver== replayed %zu inputs (%zu bytes) without a finding\n", corpus.size(),
          replayed_bytes);
  if (opt.max_total_time <= 0 && opt.runs < 0) return 0;

  // Mutation: seeds cut to max_len (large files make slow mutants).
  if (corpus.empty()) corpus.push_back("");
  for (auto& c : corpus)
    if (c.size() > opt.max_len) c.resize(opt.max_len);
  std::mt19937_64 rng(opt.seed);
  const auto deadline =
      t0 + std::chrono::seconds(opt.max_total_time > 0 ? opt.max_total_time : int64_t{1} << 30);
  int64_t runs = 0;
  while ((opt.runs < 0 || runs < opt.runs) && std::chrono::steady_clock::now() < deadline) {
    std::string s = corpus[rng() % corpus.size()];
    int n = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) MutateOnce(s, corpus, rng, opt.max_len);
    RunOne(s, opt);
    ++runs;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fprintf(stderr, "==driver== %lld mutated inputs in %.1f s (seed %llu) without a finding\n",
          static_cast<long long>(runs), secs, static_cast<unsigned long long>(opt.seed));
  return 0;
}
