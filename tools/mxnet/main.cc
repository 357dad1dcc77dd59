// mxnet: train, evaluate, export and run MXNet-compatible models from the command line.
//   mxnet <command> [flags]      mxnet <command> --help
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "base/error.h"
#include "tools/mxnet/cli.h"

int main(int argc, char** argv) {
  using mxnet::cli::Commands;
  // Under `bazel run` the process starts in its runfiles tree; relative paths on the command line
  // mean the directory the user ran from (./bazelw runs Bazel from the repository root).
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd && *wd && chdir(wd) != 0) {
    std::cerr << "mxnet: error: cannot enter BUILD_WORKING_DIRECTORY " << wd << "\n";
    return 1;
  }
  // Progress and per-epoch lines must reach a log file or pipe as they happen, not at exit.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  auto usage = [] {
    std::string s = "usage: mxnet <command> [flags]\n\ncommands:\n";
    for (const auto& [name, c] : Commands())
      s +=
          "  " + name + std::string(12 - std::min<size_t>(name.size(), 11), ' ') + c.summary + "\n";
    return s + "\nRun 'mxnet <command> --help' for the flags of a command.\n";
  };
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    std::cout << usage();
    return argc < 2 ? 2 : 0;
  }
  auto it = Commands().find(argv[1]);
  if (it == Commands().end()) {
    std::cerr << "mxnet: error: unknown command '" << argv[1] << "'\n" << usage();
    return 2;
  }
  const mxnet::cli::Command& command = it->second;
  absl::Status st;
  try {
    bool help = false;
    auto plain =
        mxnet::cli::ParseFlags(command, std::vector<std::string>(argv + 2, argv + argc), &help);
    if (help) {
      std::cout << mxnet::cli::Help(command);
      return 0;
    }
    st = plain.ok() ? command.run(*plain) : plain.status();
  } catch (...) {
    st = mxnet::StatusFromCurrentException();
  }
  if (!st.ok()) {
    std::string msg(st.message());
    for (char& c : msg)
      if (c == '\n' || c == '\t') c = ' ';
    std::cerr << "mxnet " << argv[1] << ": error: " << msg << "\n";
    return 1;
  }
  return 0;
}
