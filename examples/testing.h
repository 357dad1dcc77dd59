// Test helpers for the example programs: run a program as a user would and locate ../shared.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

namespace mxnet::examples {

struct ProgramRun {
  int code;            // exit status (-1 if it did not exit normally)
  std::string output;  // stdout + stderr
};

// Runs examples/<program> with `args` (already shell-quoted) in the test's working directory.
inline ProgramRun RunProgram(const std::string& program, const std::string& args) {
  std::string cmd = "examples/" + program + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed: " + cmd};
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// A path in the test's private temporary directory.
inline std::string TmpPath(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp") + "/" + name;
}

// ../shared (bazelw passes MXNET_SHARED_DIR) if it holds `file`, with a trailing '/'; else "".
inline std::string SharedDir(const std::string& file) {
  for (const char* base : std::initializer_list<const char*>{std::getenv("MXNET_SHARED_DIR"),
                                                             "../shared", "/work/shared"}) {
    if (!base) continue;
    std::string d = std::string(base) + "/";
    if (FILE* f = std::fopen((d + file).c_str(), "r")) {
      std::fclose(f);
      return d;
    }
  }
  return "";
}

// The lines of `text` that start with `prefix` (after leading spaces), prefix included.
inline std::vector<std::string> LinesStartingWith(const std::string& text,
                                                  const std::string& prefix) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    line.erase(0, line.find_first_not_of(' ') == std::string::npos ? line.size()
                                                                   : line.find_first_not_of(' '));
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    pos = end + 1;
  }
  return out;
}

}  // namespace mxnet::examples
