// Minimal zip archive access for .npz files (docs/formats.md §2.7), over Debian's libzip. Internal
// to ndarray/io.cc; errors carry no file name (the caller adds it).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mxnet::nd::zip_internal {

struct ZipEntry {
  std::string name;
  uint64_t size = 0;       // uncompressed bytes
  uint64_t comp_size = 0;  // bytes in the archive
  uint16_t method = 0;     // 0 stored, 8 deflated, ...
};

// A member opened for sequential reading.
class ZipMemberReader {
 public:
  virtual ~ZipMemberReader() = default;
  // Reads exactly n bytes; kDataLoss when the member ends early, fails its CRC or cannot be
  // decompressed.
  virtual absl::Status Read(void* dst, size_t n) = 0;
  // After the last byte: checks that the member ends there and that its CRC matches
  // (kDataLoss otherwise).
  virtual absl::Status Finish() = 0;
};

// A read-only archive over bytes the caller keeps alive.
class ZipReader {
 public:
  // kInvalidArgument/kDataLoss when `bytes` is not a consistent zip archive.
  static absl::StatusOr<std::unique_ptr<ZipReader>> Open(std::span<const uint8_t> bytes);
  virtual ~ZipReader() = default;
  virtual size_t num_entries() const = 0;
  virtual absl::StatusOr<ZipEntry> Stat(size_t index) = 0;
  // Opens member `index`. Stored and deflated members are supported; encrypted ones are not.
  virtual absl::StatusOr<std::unique_ptr<ZipMemberReader>> Open(size_t index) = 0;
};

// A zip archive of stored (uncompressed) members with a fixed timestamp (1980-01-01), in the
// given order: the layout numpy's savez and MXNet 2.x's npz writer produce.
absl::StatusOr<std::string> WriteStoredZip(
    const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace mxnet::nd::zip_internal
