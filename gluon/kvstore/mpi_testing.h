// Test helper: runs a command under `mpirun -np N` on this machine (loopback TCP, as root too;
// `plm isolated`: no ssh needed) and collects its output, exit code and wall time. A hard
// `timeout` guards against hangs.
#pragma once

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

namespace mxnet::gluon::kvstore::testing {

struct MpiResult {
  int code;            // exit status; -1 when mpirun did not exit normally
  std::string output;  // stdout + stderr of every rank and of mpirun
  double seconds;
};

// The shell command RunMpi runs (without its output redirection).
// `env`: extra "-x NAME=VALUE" style exports, e.g. "-x MXNET_KVSTORE_TIMEOUT=2".
inline std::string MpiCommand(int np, const std::string& command, const std::string& env = "",
                              int limit_s = 240) {
  // The workers must not touch the outer test's premature-exit or XML files.
  return "env -u TEST_PREMATURE_EXIT_FILE -u XML_OUTPUT_FILE timeout -k 5 " +
         std::to_string(limit_s) +
         " mpirun --allow-run-as-root --oversubscribe --bind-to none -np " + std::to_string(np) +
         " --mca plm isolated --mca btl self,tcp --mca btl_tcp_if_include lo"
         " --mca oob_tcp_if_include lo --mca pml ob1 " +
         env + " " + command;
}

inline MpiResult RunMpi(int np, const std::string& command, const std::string& env = "",
                        int limit_s = 240) {
  const std::string cmd = MpiCommand(np, command, env, limit_s) + " 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed for: " + cmd, 0};
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, "$ " + cmd + "\n" + out, secs};
}

}  // namespace mxnet::gluon::kvstore::testing
