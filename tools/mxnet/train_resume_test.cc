// mxnet train --resume under SIGKILL: `mxnet train` is killed at 100 random moments (from a
// fixed seed; MXNET_CHECKPOINT_TEST_PAUSE_MS stretches every checkpoint write so that some
// kills land inside one). After every kill the last checkpoint must be a complete file that
// loads, and must not be older than the one before; the run is then resumed (and maybe killed
// again). Every run that reaches its end must have exactly the parameters of an uninterrupted
// run with the same seed (bit-identical: --threads 1).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gluon/training/checkpoint.h"
#include "ndarray/io.h"
#include "tools/mxnet/cli_testing.h"

namespace mxnet::cli {
namespace {

namespace fs = std::filesystem;
using testing::Tmp;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Starts tools/mxnet/mxnet with `args`, output to `log`, the checkpoint pause in its
// environment.
pid_t Start(const std::vector<std::string>& args, const std::string& log, int pause_ms) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    setenv("MXNET_CHECKPOINT_TEST_PAUSE_MS", std::to_string(pause_ms).c_str(), 1);
    std::vector<char*> argv = {const_cast<char*>("tools/mxnet/mxnet")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Waits up to `ms` for the process; returns its wait status, or -1 if it is still running.
int WaitFor(pid_t pid, double ms) {
  const auto end = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(ms * 1000));
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    if (Clock::now() >= end) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(TrainResume, HundredKillsThenResumeGiveTheUninterruptedRunsParameters) {
  const std::string data = Tmp("tiny_fashion_mnist");
  fs::create_directories(data);
  testing::WriteTinyFashionMnist(data, 64, 16);
  const std::vector<std::string> run = {
      "train", "--data",       data, "--epochs", "2",    "--batch-size",
      "8",     "--save-every", "2",  "--seed",   "11",   "--threads",
      "1",     "--workers",    "0",  "--model",  "lenet"};
  const int kPauseMs = 15;  // per checkpoint write, twice (mid-write and before the rename)

  // The uninterrupted run, timed: kill moments are drawn from [0, its duration].
  const std::string ref = Tmp("ref");
  std::vector<std::string> args = run;
  args.insert(args.end(), {"--out", ref});
  auto t0 = Clock::now();
  pid_t pid = Start(args, Tmp("ref.log"), kPauseMs);
  int status = WaitFor(pid, 120000);
  const double run_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ASSERT_TRUE(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << ReadFile(Tmp("ref.log"));
  const std::string ref_params = ReadFile(ref + "/model-0000.params");
  ASSERT_FALSE(ref_params.empty());

  std::mt19937 gen(20261128);
  std::uniform_real_distribution<double> when(0.0, run_ms);
  const std::string dir = Tmp("killed");
  int kills = 0, completed = 0, resumes = 0, inside_writes = 0, inside_save_parameters = 0,
      no_checkpoint_yet = 0;
  int64_t last_position = -1;  // epochs_done * 1000 + batches_done of the last checkpoint seen
  auto check_dir = [&](int kill) {
    const std::string state = dir + "/train-state.params";
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.starts_with("train-state.params.tmp-")) ++inside_writes;
      if (name.starts_with("checkpoint.params.tmp-")) ++inside_save_parameters;
    }
    if (!fs::exists(state)) {
      EXPECT_EQ(last_position, -1) << "kill " << kill << ": the checkpoint disappeared";
      ++no_checkpoint_yet;
      return;
    }
    // The last checkpoint is complete (a truncated or torn file is an error here).
    absl::StatusOr<std::string> meta = gluon::read_checkpoint_meta(state);
    ASSERT_TRUE(meta.ok()) << "kill " << kill << ": " << meta.status();
    auto j = nlohmann::json::parse(*meta);
    const int64_t pos = j["epochs_done"].get<int64_t>() * 1000 + j["batches_done"].get<int64_t>();
    EXPECT_GE(pos, last_position) << "kill " << kill << ": the checkpoint went back";
    last_position = pos;
    if (fs::exists(dir + "/checkpoint.params")) {
      EXPECT_TRUE(nd::load(dir + "/checkpoint.params").ok()) << "kill " << kill;
    }
  };
  auto finished = [&](int st, const std::string& log) {
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << ReadFile(log);
    EXPECT_TRUE(ReadFile(dir + "/model-0000.params") == ref_params)
        << "run " << completed << " ended with other parameters than the uninterrupted run\n"
        << ReadFile(log);
    ++completed;
    fs::remove_all(dir);
    last_position = -1;
  };
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string log = Tmp("killed.log");
  auto start = [&] {
    std::vector<std::string> a;
    if (fs::exists(dir + "/train-state.params")) {
      a = {"train", "--resume", dir};
      ++resumes;
    } else {
      a = run;
      a.insert(a.end(), {"--out", dir});
    }
    return Start(a, log, kPauseMs);
  };
  while (kills < 100) {
    fs::create_directories(dir);
    pid = start();
    status = WaitFor(pid, when(gen));
    if (status >= 0) {  // ended before its kill moment
      finished(status, log);
      continue;
    }
    ::kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ++kills;
    check_dir(kills);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The last interrupted run, resumed to its end.
  fs::create_directories(dir);
  pid = start();
  status = WaitFor(pid, 120000);
  ASSERT_GE(status, 0);
  finished(status, log);
  std::printf(
      "%d kills in %d runs (uninterrupted: %.0f ms): %d resumes, %d runs completed with the "
      "reference's parameters, %d kills inside a checkpoint write and %d inside save_parameters "
      "(temporary file left), %d before the first checkpoint\n",
      kills, kills + completed, run_ms, resumes, completed, inside_writes, inside_save_parameters,
      no_checkpoint_yet);
  // Loose bounds (the machine's load varies): three runs gave 59-78 resumes and 24-28 kills
  // inside checkpoint writes.
  EXPECT_GE(completed, 2);
  EXPECT_GE(resumes, 20);
  EXPECT_GE(inside_writes, 3);
}

TEST(TrainResume, FlagsComeFromTheCheckpointAndMustAgree) {
  const std::string data = Tmp("tiny_fashion_mnist_flags");
  fs::create_directories(data);
  testing::WriteTinyFashionMnist(data, 16, 8);
  const std::string dir = Tmp("flags_run");
  using testing::RunTool;
  testing::Result r = RunTool("train --data " + data +
                              " --epochs 1 --batch-size 8 --threads 1 --workers 0 --out " + dir);
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_TRUE(fs::exists(dir + "/train-state.params"));

  r = RunTool("train --resume " + dir + " --epochs 3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--resume " + dir +
                          ": --epochs 3 differs from the checkpoint's 1 (a resumed run keeps the "
                          "settings it was started with)"),
            std::string::npos)
      << r.output;
  r = RunTool("train --resume " + dir + " --out " + dir + "2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--out " + dir + "2 differs"), std::string::npos) << r.output;
  fs::create_directories(Tmp("empty_run"));
  r = RunTool("train --resume " + Tmp("empty_run"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("no checkpoint " + Tmp("empty_run") + "/train-state.params"),
            std::string::npos)
      << r.output;
  // A parameters file is not a resume state.
  fs::create_directories(Tmp("params_only"));
  fs::copy_file(dir + "/checkpoint.params", Tmp("params_only") + "/train-state.params");
  r = RunTool("train --resume " + Tmp("params_only"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("not a complete training checkpoint: no '__checkpoint__' record"),
            std::string::npos)
      << r.output;
  // The same flags, --data included, and --workers changed: fine; the run was complete, so it
  // only exports again, with the same parameters.
  const std::string params = ReadFile(dir + "/model-0000.params");
  fs::remove(dir + "/model-0000.params");
  r = RunTool("train --resume " + dir + " --epochs 1 --data " + data + " --workers 2");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("all 1 epochs were done; exporting"), std::string::npos) << r.output;
  EXPECT_TRUE(ReadFile(dir + "/model-0000.params") == params);
}

}  // namespace
}  // namespace mxnet::cli
