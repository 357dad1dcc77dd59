// Devices ("contexts" in MXNet 1.x): cpu(0), gpu(1), cpu_pinned(0). The numbering of DeviceType is
// MXNet's dev_type as stored in .params files (docs/formats.md §2.3).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace mxnet {

enum class DeviceType : int32_t { kCPU = 1, kGPU = 2, kCPUPinned = 3, kCPUShared = 5 };

struct Device {
  DeviceType type = DeviceType::kCPU;
  int32_t id = 0;

  bool is_cpu() const { return type != DeviceType::kGPU; }
  bool is_gpu() const { return type == DeviceType::kGPU; }
  // "cpu(0)", "gpu(1)", "cpu_pinned(0)", "cpu_shared(0)" as MXNet prints contexts.
  std::string ToString() const;
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  template <typename H>
  friend H AbslHashValue(H h, const Device& d) {
    return H::combine(std::move(h), static_cast<int32_t>(d.type), d.id);
  }
};

// MXNet 1.x calls devices contexts.
using Context = Device;

inline Device cpu(int id = 0) { return {DeviceType::kCPU, id}; }
inline Device gpu(int id = 0) { return {DeviceType::kGPU, id}; }
inline Device cpu_pinned(int id = 0) { return {DeviceType::kCPUPinned, id}; }

// Parses "cpu", "cpu(0)", "gpu(1)", "cpu_pinned(0)". Error: kInvalidArgument naming the text.
absl::StatusOr<Device> ParseDevice(std::string_view text);
// Maps a stored dev_type (1, 2, 3, 5). Error: kInvalidArgument for other values.
absl::StatusOr<DeviceType> DeviceTypeFromInt(int32_t v);

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace mxnet
