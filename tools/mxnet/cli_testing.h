// Test helpers for the `mxnet` CLI's tests: run the tool as a user would (a subprocess from the
// test's runfiles root) and name scratch files.
#ifndef MXNET_TOOLS_MXNET_CLI_TESTING_H_
#define MXNET_TOOLS_MXNET_CLI_TESTING_H_

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

namespace mxnet::cli::testing {

struct Result {
  int code;            // exit status; -1 when the tool did not exit normally or could not start
  std::string output;  // stdout + stderr
};

// Runs `tools/mxnet/mxnet ARGS` through the shell (ARGS is shell text) and collects its output.
inline Result RunTool(const std::string& args) {
  const std::string cmd = "tools/mxnet/mxnet " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed for: " + cmd};
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// A path for scratch file `name` in $TEST_TMPDIR (Bazel's per-test directory), else /tmp.
inline std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp") + "/" + name;
}

// A tiny Fashion-MNIST in DIR for `mxnet train --data DIR`: n_train/n_test images in the idx
// format, uncompressed (read under the .gz names), whose pixels depend on the label (learnable)
// and on a fixed generator.
inline void WriteTinyFashionMnist(const std::string& dir, int n_train, int n_test) {
  auto write = [&](const std::string& prefix, int n, uint32_t seed) {
    std::mt19937 gen(seed);
    auto be32 = [](std::ofstream& f, uint32_t v) {
      const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
      f.write(b, 4);
    };
    std::ofstream img(dir + "/" + prefix + "-images-idx3-ubyte", std::ios::binary);
    std::ofstream lab(dir + "/" + prefix + "-labels-idx1-ubyte", std::ios::binary);
    be32(img, 0x803), be32(img, n), be32(img, 28), be32(img, 28);
    be32(lab, 0x801), be32(lab, n);
    for (int i = 0; i < n; ++i) {
      const int label = i % 10;
      lab.put(char(label));
      for (int p = 0; p < 784; ++p)
        img.put(char(std::min<int>(255, label * 20 + (p * (label + 1)) % 40 + gen() % 40)));
    }
  };
  write("train", n_train, 1);
  write("t10k", n_test, 2);
}

}  // namespace mxnet::cli::testing

#endif  // MXNET_TOOLS_MXNET_CLI_TESTING_H_
