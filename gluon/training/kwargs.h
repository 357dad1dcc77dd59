// Python-style keyword arguments for the training stack's factories (optimizer::Create,
// metric::Create, Trainer): MXNet passes its options as **kwargs, and so do we, with values that
// keep their type.
//
//   optimizer::Create("sgd", {{"learning_rate", 0.1}, {"momentum", 0.9},
//                             {"multi_precision", true}, {"clip_gradient", None}});
//
// A value is None, a bool, an integer, a float, a string, a list of numbers or an LR scheduler.
// Strings are parsed on request, so the C ABI and bindings can pass every value as text
// ("0.9", "True", "None", "[10, 20]"). Readers throw mxnet::Error(kInvalidArgument) naming the
// owner, the key and the value when a value has the wrong type, and list the accepted keys when
// a key is unknown.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace mxnet::gluon {

namespace lr_scheduler {
class LRScheduler;
}
using LRSchedulerPtr = std::shared_ptr<lr_scheduler::LRScheduler>;

// Python's None as a keyword value.
struct NoneType {
  bool operator==(const NoneType&) const = default;
};
inline constexpr NoneType None{};

class KwargValue {
 public:
  KwargValue(NoneType) {}        // NOLINT(runtime/explicit): kwargs read like Python
  KwargValue(std::nullopt_t) {}  // NOLINT
  KwargValue(bool v) : v_(v) {}  // NOLINT
  // Any integer type (stored as int64_t) and any floating-point type (stored as double).
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  KwargValue(I v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  template <typename F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  KwargValue(F v) : v_(static_cast<double>(v)) {}          // NOLINT
  KwargValue(const char* v) : v_(std::string(v)) {}        // NOLINT
  KwargValue(std::string v) : v_(std::move(v)) {}          // NOLINT
  KwargValue(std::vector<double> v) : v_(std::move(v)) {}  // NOLINT
  KwargValue(std::vector<int64_t> v);                      // NOLINT
  // Any scheduler (shared_ptr<FactorScheduler> etc.).
  template <typename S,
            typename = std::enable_if_t<std::is_convertible_v<S*, lr_scheduler::LRScheduler*>>>
  KwargValue(std::shared_ptr<S> v) : v_(LRSchedulerPtr(std::move(v))) {}  // NOLINT

  // None, or the string "None".
  bool is_none() const;
  // Conversions; `what` names the owner and key in errors ("sgd: momentum").
  double AsDouble(std::string_view what) const;  // numbers, bools, numeric strings
  int64_t AsInt(std::string_view what) const;    // integers, integral floats/strings
  bool AsBool(std::string_view what) const;      // bools, 0/1, "True"/"False"/"true"/"1"/...
  std::string AsString(std::string_view what) const;
  std::vector<double> AsDoubleList(std::string_view what) const;  // list or "[1, 2]"/"(1, 2)"
  LRSchedulerPtr AsScheduler(std::string_view what) const;        // a scheduler or None
  // Python-like text: None, True, 0.9, 'adam', [1.0, 2.0], <LRScheduler>.
  std::string ToString() const;

 private:
  std::variant<NoneType, bool, int64_t, double, std::string, std::vector<double>, LRSchedulerPtr>
      v_;
};

using Kwargs = std::map<std::string, KwargValue, std::less<>>;

// Reads typed values out of Kwargs for `owner` and checks that every key was used.
class KwargReader {
 public:
  KwargReader(std::string owner, const Kwargs& kwargs) : owner_(std::move(owner)), kw_(kwargs) {}
  bool Has(std::string_view key) const;  // present (None counts as present)
  double Double(std::string_view key, double def);
  // Absent or None -> nullopt.
  std::optional<double> OptDouble(std::string_view key, std::optional<double> def = std::nullopt);
  int64_t Int(std::string_view key, int64_t def);
  std::optional<int64_t> OptInt(std::string_view key, std::optional<int64_t> def = std::nullopt);
  bool Bool(std::string_view key, bool def);
  std::string String(std::string_view key, std::string def);
  std::vector<double> DoubleList(std::string_view key, std::vector<double> def);
  LRSchedulerPtr Scheduler(std::string_view key);
  // Marks a key as accepted without reading it (options kept for compatibility, e.g.
  // lazy_update).
  void Ignore(std::string_view key);
  // Throws kInvalidArgument if a key was never read: "<owner>: unexpected keyword argument 'x'
  // (accepted: a, b, c)".
  void Finish() const;
  const std::string& owner() const { return owner_; }

 private:
  const KwargValue* Find(std::string_view key);
  std::string What(std::string_view key) const;
  std::string owner_;
  const Kwargs& kw_;
  std::set<std::string, std::less<>> accepted_;
};

}  // namespace mxnet::gluon
