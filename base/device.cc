#include "base/device.h"

#include "base/strings.h"

namespace mxnet {
namespace {
std::string_view TypeName(DeviceType t) {
  switch (t) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kGPU:
      return "gpu";
    case DeviceType::kCPUPinned:
      return "cpu_pinned";
    case DeviceType::kCPUShared:
      return "cpu_shared";
  }
  return "unknown";
}
}  // namespace

std::string Device::ToString() const { return StrCat(TypeName(type), "(", id, ")"); }

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.ToString(); }

absl::StatusOr<DeviceType> DeviceTypeFromInt(int32_t v) {
  switch (v) {
    case 1:
      return DeviceType::kCPU;
    case 2:
      return DeviceType::kGPU;
    case 3:
      return DeviceType::kCPUPinned;
    case 5:
      return DeviceType::kCPUShared;
  }
  return absl::InvalidArgumentError(
      StrCat("unknown device type ", v, " (expected 1 cpu, 2 gpu, 3 cpu_pinned, 5 cpu_shared)"));
}

absl::StatusOr<Device> ParseDevice(std::string_view text) {
  std::string t = AsciiToLower(StripWhitespace(text));
  std::string_view name = t;
  int64_t id = 0;
  if (auto open = t.find('('); open != std::string::npos) {
    if (t.back() != ')' ||
        !ParseInt64(std::string_view(t).substr(open + 1, t.size() - open - 2), &id) || id < 0)
      return absl::InvalidArgumentError(StrCat("cannot parse device '", text, "'"));
    name = std::string_view(t).substr(0, open);
  }
  for (DeviceType dt :
       {DeviceType::kCPU, DeviceType::kGPU, DeviceType::kCPUPinned, DeviceType::kCPUShared})
    if (name == TypeName(dt)) return Device{dt, static_cast<int32_t>(id)};
  return absl::InvalidArgumentError(
      StrCat("cannot parse device '", text,
             "' (expected cpu(N), gpu(N), cpu_pinned(N) or cpu_shared(N))"));
}

}  // namespace mxnet
