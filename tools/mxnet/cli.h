// Shared pieces of the `mxnet` command-line tool: subcommand registry, flag parsing and the
// one-line error convention (exit code 1 for failures, 2 for usage errors).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mxnet::cli {

// Parsed `--name value` / `--name=value` / `--flag` arguments plus positionals.
class Args {
 public:
  // Parses argv (after the subcommand). `bool_flags` take no value. Unknown flags are errors
  // (listing the known ones).
  static absl::StatusOr<Args> Parse(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& value_flags,
                                    const std::vector<std::string>& bool_flags);
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& def = "") const;
  // All values of a repeatable flag (--image a.jpg --image b.jpg, or --image a.jpg b.jpg).
  std::vector<std::string> all(const std::string& name) const;
  absl::StatusOr<int64_t> get_int(const std::string& name, int64_t def) const;
  absl::StatusOr<double> get_double(const std::string& name, double def) const;
  // Comma-separated numbers ("0.485,0.456,0.406").
  absl::StatusOr<std::vector<double>> get_doubles(const std::string& name, std::vector<double> def) const;
  bool flag(const std::string& name) const;

 private:
  std::multimap<std::string, std::string> values_;
};

struct Command {
  std::string name;
  std::string summary;
  std::string usage;  // full --help text
  std::function<absl::Status(const std::vector<std::string>& argv)> run;
};

// Registers a subcommand (static initialization in each cmd_*.cc).
int RegisterCommand(Command c);
const std::map<std::string, Command>& Commands();

}  // namespace mxnet::cli
