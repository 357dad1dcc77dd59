#include "tools/mxnet/cli.h"

#include <algorithm>

#include "base/strings.h"

namespace mxnet::cli {

absl::StatusOr<Args> Args::Parse(const std::vector<std::string>& argv, const std::vector<std::string>& value_flags,
                                 const std::vector<std::string>& bool_flags) {
  Args a;
  auto known = [&](const std::string& n, bool* is_bool) {
    *is_bool = std::find(bool_flags.begin(), bool_flags.end(), n) != bool_flags.end();
    return *is_bool || std::find(value_flags.begin(), value_flags.end(), n) != value_flags.end();
  };
  std::string last_value_flag;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (StartsWith(s, "--")) {
      std::string name = s.substr(2), value;
      bool has_value = false;
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_value = true;
      }
      bool is_bool = false;
      if (StartsWith(name, "no") && !known(name, &is_bool) && known(name.substr(2), &is_bool) && is_bool) {
        a.values_.emplace(name.substr(2), "false");
        last_value_flag.clear();
        continue;
      }
      if (!known(name, &is_bool)) {
        std::vector<std::string> all = value_flags;
        all.insert(all.end(), bool_flags.begin(), bool_flags.end());
        for (auto& f : all) f = "--" + f;
        return absl::InvalidArgumentError(StrCat("unknown flag --", name, " (known: ", StrJoin(all, ", "), ")"));
      }
      if (is_bool) {
        a.values_.emplace(name, has_value ? value : "true");
        last_value_flag.clear();
        continue;
      }
      if (!has_value) {
        if (i + 1 >= argv.size()) return absl::InvalidArgumentError(StrCat("flag --", name, " needs a value"));
        value = argv[++i];
      }
      a.values_.emplace(name, value);
      last_value_flag = name;
    } else if (!last_value_flag.empty()) {
      a.values_.emplace(last_value_flag, s);  // extra values of a repeatable flag
    } else {
      return absl::InvalidArgumentError(StrCat("unexpected argument '", s, "'"));
    }
  }
  return a;
}

std::string Args::get(const std::string& name, const std::string& def) const {
  auto it = values_.find(name);
  return it == values_.end() ? def : it->second;
}

std::vector<std::string> Args::all(const std::string& name) const {
  std::vector<std::string> out;
  auto [b, e] = values_.equal_range(name);
  for (auto it = b; it != e; ++it) out.push_back(it->second);
  return out;
}

absl::StatusOr<int64_t> Args::get_int(const std::string& name, int64_t def) const {
  if (!has(name)) return def;
  int64_t v;
  if (!ParseInt64(get(name), &v)) return absl::InvalidArgumentError(StrCat("--", name, " must be an integer, got '", get(name), "'"));
  return v;
}

absl::StatusOr<double> Args::get_double(const std::string& name, double def) const {
  if (!has(name)) return def;
  double v;
  if (!ParseDouble(get(name), &v)) return absl::InvalidArgumentError(StrCat("--", name, " must be a number, got '", get(name), "'"));
  return v;
}

absl::StatusOr<std::vector<double>> Args::get_doubles(const std::string& name, std::vector<double> def) const {
  if (!has(name)) return def;
  std::vector<double> out;
  const std::string text = get(name);  // the split views must not outlive it
  for (auto part : StrSplit(text, ',')) {
    double v;
    if (!ParseDouble(part, &v))
      return absl::InvalidArgumentError(StrCat("--", name, " must be comma-separated numbers, got '", get(name), "'"));
    out.push_back(v);
  }
  return out;
}

bool Args::flag(const std::string& name) const {
  std::string v = AsciiToLower(get(name, "false"));
  return v == "true" || v == "1" || v == "yes";
}

namespace {
std::map<std::string, Command>& Registry() {
  static auto* m = new std::map<std::string, Command>();
  return *m;
}
}  // namespace

int RegisterCommand(Command c) {
  Registry()[c.name] = std::move(c);
  return 0;
}

const std::map<std::string, Command>& Commands() { return Registry(); }

}  // namespace mxnet::cli
