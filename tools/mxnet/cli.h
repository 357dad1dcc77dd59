// Shared pieces of the `mxnet` command-line tool: the subcommand registry, Abseil-flags parsing
// per subcommand, --help tables, and the one-line error convention (exit code 1 for failures and
// flag errors, 2 for a missing or unknown subcommand).
//
// Flags are Abseil flags (ABSL_FLAG at global scope): a subcommand's own flags live in its
// cmd_*.cc, flags several subcommands share (--model, --batch-size, --device, ...) are defined
// once in cli.cc and declared below. Abseil flags are process-global, so each Command lists the
// flags it accepts (any other flag is an error naming the subcommand) and, for shared flags, its
// own default and help text. Abseil names use underscores (batch_size); the command line spells
// them with dashes (--batch-size), and both spellings are accepted.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Flags shared by several subcommands (defined in cli.cc; each Command gives its own default).
ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(int64_t, batch_size);
ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(int64_t, seed);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, symbol);
ABSL_DECLARE_FLAG(std::string, params);
ABSL_DECLARE_FLAG(std::string, onnx);
ABSL_DECLARE_FLAG(int64_t, classes);
ABSL_DECLARE_FLAG(std::string, input_shape);
ABSL_DECLARE_FLAG(bool, hybridize);

namespace mxnet::cli {

// One flag as a subcommand uses it.
struct FlagUse {
  const absl::CommandLineFlag* flag = nullptr;
  // This subcommand's help text; empty: the ABSL_FLAG's own.
  std::string help;
  // This subcommand's default (Abseil flag syntax, e.g. "128", "true"), set before the command
  // runs when the flag is not on the command line; null: the ABSL_FLAG's own default.
  const char* default_value = nullptr;
  // Missing -> "--NAME is required (see mxnet CMD --help)" before the command runs.
  bool required = false;
  // May be given again (--image a.jpg --image b.jpg): values after the first are passed on as
  // plain arguments, in order (the command takes them as more values).
  bool repeatable = false;
};

// The reflection handle of FLAGS_x, for FlagUse::flag.
template <typename T>
const absl::CommandLineFlag* Ref(const absl::Flag<T>& f) {
  return &absl::GetFlagReflectionHandle(f);
}

// Whether FLAGS_x was given on the command line (defaults applied by FlagUse do not count).
bool Given(const absl::CommandLineFlag& flag);
template <typename T>
bool Given(const absl::Flag<T>& f) {
  return Given(absl::GetFlagReflectionHandle(f));
}

struct Command {
  std::string name;
  std::string summary;
  std::string usage;  // synopsis and description; --help adds the table of `flags`
  std::vector<FlagUse> flags;
  // What plain (non-flag) arguments mean, for --help ("IMG: more images"); empty: none accepted.
  std::string positionals;
  // Runs with the flags set; gets the plain arguments.
  std::function<absl::Status(const std::vector<std::string>& positionals)> run;
};

// Registers a subcommand (static initialization in each cmd_*.cc).
int RegisterCommand(Command c);
const std::map<std::string, Command>& Commands();

// `mxnet NAME --help`: the usage text, then one line per flag (name, help, default).
std::string Help(const Command& c);

// Parses `args` (the arguments after the subcommand word) as c's flags with
// absl::ParseCommandLine: --name=value, --name value, --flag / --noflag / --flag=false for
// booleans, "--" ends the flags. Applies c's per-command defaults and checks required flags.
// Returns the plain arguments, or sets *help for --help / -h / --helpfull. Errors
// (kInvalidArgument, one line): a flag unknown or belonging to another subcommand, a bad or
// missing value, an unexpected plain argument, a missing required flag.
absl::StatusOr<std::vector<std::string>> ParseFlags(const Command& c,
                                                    const std::vector<std::string>& args,
                                                    bool* help);

// Comma-separated numbers ("0.485,0.456,0.406") from flag `name`'s text. Errors name the flag.
absl::StatusOr<std::vector<double>> ParseDoubles(const std::string& name, const std::string& text);

}  // namespace mxnet::cli
