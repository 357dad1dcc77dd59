// Deterministic mutation testing of the NDArray file readers: every reference file (MXNet 1.9.1's
// .nd files, numpy's .npy/.npz) is mutated thousands of times (bit flips, overwritten fields with
// extreme values, truncations, insertions, deletions, splices). Each mutant must either load or
// give an error naming the buffer; never crash, hang or allocate absurd memory. Most useful under
// --config=asan.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ndarray/io.h"

namespace mxnet::nd {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Corpus() {
  std::vector<std::string> files;
  for (const char* dir : {"ndarray/testdata/mx", "ndarray/testdata/io"})
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() != ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string Mutate(const std::string& in, std::mt19937_64& rng) {
  std::string s = in;
  auto pos = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  const int n_mut = 1 + static_cast<int>(rng() % 4);
  for (int m = 0; m < n_mut; ++m) {
    switch (rng() % 7) {
      case 0:  // flip a bit
        if (!s.empty()) s[pos(s.size())] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1: {  // overwrite 4 or 8 aligned bytes with an extreme value
        static const uint64_t kValues[] = {
            0,          1,          0xFFFFFFFFull, 0x7FFFFFFFull, 0x80000000, ~0ull,
            1ull << 62, 0xF993FAC9, 0xF993FACA,    0xF993FAC8,    33,         0xFFFFFFFEull};
        uint64_t v = kValues[rng() % (sizeof kValues / sizeof kValues[0])];
        size_t w = rng() % 2 ? 4 : 8;
        if (s.size() >= w) {
          size_t at = pos(s.size() - w + 1) & ~size_t{3};
          std::memcpy(&s[at], &v, w);
        }
        break;
      }
      case 2:  // truncate
        s.resize(pos(s.size() + 1));
        break;
      case 3: {  // insert random bytes
        std::string ins(1 + rng() % 16, '\0');
        for (char& c : ins) c = static_cast<char>(rng());
        s.insert(pos(s.size() + 1), ins);
        break;
      }
      case 4:  // delete a range
        if (!s.empty()) {
          size_t at = pos(s.size());
          s.erase(at, 1 + rng() % 16);
        }
        break;
      case 5: {  // duplicate a range elsewhere (splice)
        if (s.size() > 8) {
          size_t at = pos(s.size() - 8), len = 1 + rng() % 8;
          s.insert(pos(s.size()), s.substr(at, len));
        }
        break;
      }
      case 6:  // random byte
        if (!s.empty()) s[pos(s.size())] = static_cast<char>(rng());
        break;
    }
  }
  return s;
}

TEST(IoFuzz, MutantsLoadOrFailCleanly) {
  const int kPerFile =
      std::getenv("IO_FUZZ_ITERATIONS") ? std::atoi(std::getenv("IO_FUZZ_ITERATIONS")) : 4000;
  LoadOptions opt;
  opt.max_densified_bytes = 1 << 20;
  int ok = 0, failed = 0;
  for (const std::string& path : Corpus()) {
    const std::string orig = ReadFile(path);
    ASSERT_FALSE(orig.empty()) << path;
    std::mt19937_64 rng(std::hash<std::string>{}(fs::path(path).filename().string()));
    for (int i = 0; i < kPerFile; ++i) {
      std::string m = Mutate(orig, rng);
      auto f = load_from_buffer(m, opt, "fuzz");
      if (f.ok()) {
        ++ok;
        ASSERT_EQ(f->arrays.size(), f->records.size());
        ASSERT_TRUE(f->names.empty() || f->names.size() == f->arrays.size());
        ASSERT_LE(f->bytes_consumed + f->trailing_bytes, m.size());
        // Whatever loaded must be readable and re-savable.
        for (const NDArray& a : f->arrays)
          if (!a.is_none()) {
            std::vector<char> host(a.nbytes());
            a.SyncCopyToCPU(host.data(), host.size());
          }
      } else {
        ++failed;
        std::string msg(f.status().message().data(), f.status().message().size());
        ASSERT_EQ(msg.rfind("fuzz: ", 0), 0u) << path << " mutant " << i << ": " << msg;
      }
    }
  }
  std::printf("mutants: %d loaded, %d refused\n", ok, failed);
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace mxnet::nd
