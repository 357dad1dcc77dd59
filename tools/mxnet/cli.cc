#include "tools/mxnet/cli.h"

#include <algorithm>
#include <set>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/private_handle_accessor.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "base/strings.h"

// The flags several subcommands share. Their defaults here matter only where a subcommand gives
// none of its own (FlagUse::default_value).
ABSL_FLAG(std::string, model, "", "network name");
ABSL_FLAG(int64_t, batch_size, 1, "samples per batch");
ABSL_FLAG(std::string, device, "cpu", "cpu, cpu(0), gpu(0), ...");
ABSL_FLAG(int64_t, seed, 0, "random seed");
ABSL_FLAG(std::string, out, "", "output path");
ABSL_FLAG(std::string, symbol, "", "an exported F-symbol.json");
ABSL_FLAG(std::string, params, "", "the weights: an F-0000.params file");
ABSL_FLAG(std::string, onnx, "", "an ONNX model file (.onnx; gluon::imports_onnx)");
ABSL_FLAG(int64_t, classes, 1000, "outputs of the model-zoo net's last layer");
ABSL_FLAG(std::string, input_shape, "",
          "input shape N,C,H,W (NCHW; default: 1,3,224,224, 1,3,299,299 for inceptionv3)");
ABSL_FLAG(bool, hybridize, true,
          "run the cached graph with static_alloc/static_shape (--nohybridize: imperatively)");

namespace mxnet::cli {
namespace {

std::map<std::string, Command>& Registry() {
  static auto* m = new std::map<std::string, Command>();
  return *m;
}

// "--batch-size" for Abseil's batch_size.
std::string Shown(const absl::CommandLineFlag& f) {
  std::string s = "--" + std::string(f.Name());
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

const FlagUse* Find(const Command& c, const std::string& abseil_name) {
  for (const FlagUse& u : c.flags)
    if (std::string(u.flag->Name()) == abseil_name) return &u;
  return nullptr;
}

// One line: which subcommands take the flag, or the flags `c` takes.
absl::Status UnknownFlag(const Command& c, const std::string& typed,
                         const std::string& abseil_name) {
  std::vector<std::string> owners, own;
  for (const auto& [name, other] : Commands())
    if (Find(other, abseil_name)) owners.push_back("mxnet " + name);
  if (!owners.empty())
    return absl::InvalidArgumentError(StrCat("flag ", typed, " belongs to ", StrJoin(owners, ", "),
                                             ", not to mxnet ", c.name, " (see mxnet ", c.name,
                                             " --help)"));
  for (const FlagUse& u : c.flags) own.push_back(Shown(*u.flag));
  return absl::InvalidArgumentError(
      StrCat("unknown flag ", typed, " (mxnet ", c.name, " flags: ", StrJoin(own, ", "), ")"));
}

// What a value of f's type looks like, for "--epochs must be an integer, got 'abc'".
std::string Expected(const absl::CommandLineFlag& f) {
  if (f.IsOfType<bool>()) return "true or false";
  if (f.IsOfType<int64_t>()) return "an integer";
  if (f.IsOfType<double>()) return "a number";
  return "a valid value";
}

// Appends `text` to `out` wrapped at 100 columns, continuation lines indented by `indent`.
void AppendWrapped(std::string* out, const std::string& text, size_t indent, size_t col) {
  for (auto word : StrSplit(text, ' ')) {
    if (col > indent && col + 1 + word.size() > 100) {
      StrAppend(out, "\n", std::string(indent, ' '));
      col = indent;
    } else if (col > indent) {
      *out += ' ';
      ++col;
    }
    *out += word;
    col += word.size();
  }
}

}  // namespace

bool Given(const absl::CommandLineFlag& flag) {
  return absl::flags_internal::WasPresentOnCommandLine(flag.Name());
}

int RegisterCommand(Command c) {
  Registry()[c.name] = std::move(c);
  return 0;
}

const std::map<std::string, Command>& Commands() { return Registry(); }

std::string Help(const Command& c) {
  std::string s = c.usage + "\nflags:\n";
  std::vector<std::string> names;
  size_t width = 0;
  for (const FlagUse& u : c.flags) {
    std::string n = Shown(*u.flag);
    if (u.flag->IsOfType<bool>()) n = "--[no]" + n.substr(2);
    width = std::max(width, n.size());
    names.push_back(n);
  }
  width = std::min<size_t>(width, 20) + 4;
  for (size_t i = 0; i < c.flags.size(); ++i) {
    const FlagUse& u = c.flags[i];
    std::string help = u.help.empty() ? u.flag->Help() : u.help;
    // Help texts that explain their own default ("default: ...") get none appended.
    const std::string def = u.default_value ? u.default_value : u.flag->DefaultValue();
    if (u.required)
      help += " (required)";
    else if (help.find("default") == std::string::npos && !def.empty())
      StrAppend(&help, " (default: ", def, ")");
    std::string line = "  " + names[i];
    if (line.size() + 2 > width) {
      line += "\n";
      line += std::string(width, ' ');
    } else {
      line += std::string(width - line.size(), ' ');
    }
    s += line;
    AppendWrapped(&s, help, width, width);
    s += "\n";
  }
  if (!c.positionals.empty()) StrAppend(&s, "plain arguments: ", c.positionals, "\n");
  return s;
}

absl::StatusOr<std::vector<std::string>> ParseFlags(const Command& c,
                                                    const std::vector<std::string>& args,
                                                    bool* help) {
  *help = false;
  // Translates the arguments into Abseil's spelling (--batch_size=128) after checking each flag
  // against c's list and its value against the flag's type, so every error is one line naming
  // the subcommand; Abseil then sets the flags and records which were given.
  std::vector<std::string> abseil_args = {"mxnet " + c.name}, plain;
  std::set<const absl::CommandLineFlag*> seen;
  for (const std::string& arg : args) {  // --help anywhere wins over errors elsewhere
    if (arg == "--") break;
    for (const char* h :
         {"-h", "--h", "-help", "--help", "-helpfull", "--helpfull", "-helpshort", "--helpshort"})
      if (arg == h) {
        *help = true;
        return plain;
      }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {  // the rest are plain arguments
      plain.insert(plain.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      plain.push_back(arg);
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1), value;
    const bool has_value = name.find('=') != std::string::npos;
    if (has_value) {
      value = name.substr(name.find('=') + 1);
      name = name.substr(0, name.find('='));
    }
    const std::string typed = "--" + name;
    std::replace(name.begin(), name.end(), '-', '_');
    const FlagUse* use = Find(c, name);
    bool negative = false;
    if (!use && StartsWith(name, "no") && (use = Find(c, name.substr(2)))) {
      if (!use->flag->IsOfType<bool>())
        return absl::InvalidArgumentError(StrCat(typed, ": ", Shown(*use->flag),
                                                 " is not a boolean flag, so it has no --no form"));
      negative = true;
    }
    if (!use) return UnknownFlag(c, typed, name);
    const absl::CommandLineFlag& f = *use->flag;
    if (f.IsOfType<bool>()) {
      if (negative && has_value)
        return absl::InvalidArgumentError(
            StrCat(typed, " takes no value (write ", Shown(f), "=false)"));
      if (!has_value) value = negative ? "false" : "true";
    } else if (!has_value) {
      if (i + 1 >= args.size())
        return absl::InvalidArgumentError(StrCat("flag ", typed, " needs a value"));
      value = args[++i];
    }
    if (!absl::flags_internal::PrivateHandleAccessor::ValidateInputValue(f, value))
      return absl::InvalidArgumentError(
          StrCat(Shown(f), " must be ", Expected(f), ", got '", value, "'"));
    if (!seen.insert(&f).second && use->repeatable) {
      plain.push_back(value);
      continue;
    }
    abseil_args.push_back(StrCat("--", std::string(f.Name()), "=", value));
  }
  if (!plain.empty() && c.positionals.empty())
    return absl::InvalidArgumentError(StrCat("unexpected argument '", plain[0], "' (mxnet ", c.name,
                                             " takes only flags; see mxnet ", c.name, " --help)"));
  // Cannot fail now (every flag is c's and its value parses), so Abseil's own error path, which
  // prints and exits, is never taken.
  std::vector<char*> argv;
  for (std::string& s : abseil_args) argv.push_back(s.data());
  absl::ParseCommandLine(static_cast<int>(argv.size()), argv.data());
  for (const FlagUse& u : c.flags) {
    if (Given(*u.flag)) continue;
    if (u.required)
      return absl::InvalidArgumentError(
          StrCat(Shown(*u.flag), " is required (see mxnet ", c.name, " --help)"));
    if (u.default_value) {
      std::string error;
      absl::CommandLineFlag* f = absl::FindCommandLineFlag(u.flag->Name());
      if (f == nullptr || !f->ParseFrom(u.default_value, &error))
        return absl::InternalError(
            StrCat("bad default '", u.default_value, "' for ", Shown(*u.flag), ": ", error));
    }
  }
  return plain;
}

absl::StatusOr<std::vector<double>> ParseDoubles(const std::string& name, const std::string& text) {
  std::vector<double> out;
  for (auto part : StrSplit(text, ',')) {
    double v;
    if (!ParseDouble(part, &v))
      return absl::InvalidArgumentError(
          StrCat("--", name, " must be comma-separated numbers, got '", text, "'"));
    out.push_back(v);
  }
  return out;
}

}  // namespace mxnet::cli
