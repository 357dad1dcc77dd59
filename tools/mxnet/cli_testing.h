// Test helpers for the `mxnet` CLI's tests: run the tool as a user would (a subprocess from the
// test's runfiles root) and name scratch files.
#ifndef MXNET_TOOLS_MXNET_CLI_TESTING_H_
#define MXNET_TOOLS_MXNET_CLI_TESTING_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
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

}  // namespace mxnet::cli::testing

#endif  // MXNET_TOOLS_MXNET_CLI_TESTING_H_
