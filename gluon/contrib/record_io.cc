#include "gluon/contrib/record_io.h"

#include <cstdint>
#include <fstream>
#include <sstream>

#include "base/strings.h"
#include "gluon/contrib/crc32c.h"

namespace mxnet::gluon::contrib {
namespace {

void PutLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t GetLE(std::string_view s, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(s[pos + i])) << (8 * i);
  return v;
}

}  // namespace

std::string EncodeRecord(std::string_view data) {
  std::string out;
  out.reserve(data.size() + 16);
  PutLE(&out, data.size(), 8);
  PutLE(&out, MaskCrc(Crc32c(std::string_view(out.data(), 8))), 4);
  out.append(data);
  PutLE(&out, MaskCrc(Crc32c(data)), 4);
  return out;
}

absl::StatusOr<std::vector<std::string>> DecodeRecords(std::string_view bytes,
                                                       std::string_view source) {
  std::vector<std::string> records;
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t index = records.size();
    auto where = [&] { return StrCat(source, ": record ", index, " at byte ", pos); };
    if (bytes.size() - pos < 12)
      return absl::DataLossError(
          StrCat(where(), ": truncated header (", bytes.size() - pos, " of 12 bytes)"));
    const uint64_t len = GetLE(bytes, pos, 8);
    const uint32_t len_crc = static_cast<uint32_t>(GetLE(bytes, pos + 8, 4));
    if (MaskCrc(Crc32c(bytes.substr(pos, 8))) != len_crc)
      return absl::DataLossError(StrCat(where(), ": length CRC mismatch (corrupt file)"));
    if (len > bytes.size() - pos - 12 || bytes.size() - pos - 12 - len < 4)
      return absl::DataLossError(StrCat(where(), ": truncated record (length ", len, ", ",
                                        bytes.size() - pos - 12, " bytes left)"));
    std::string_view data = bytes.substr(pos + 12, len);
    const uint32_t data_crc = static_cast<uint32_t>(GetLE(bytes, pos + 12 + len, 4));
    if (MaskCrc(Crc32c(data)) != data_crc)
      return absl::DataLossError(StrCat(where(), ": data CRC mismatch (corrupt file)"));
    records.emplace_back(data);
    pos += 16 + len;
  }
  return records;
}

absl::StatusOr<std::vector<std::string>> ReadRecords(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(StrCat("cannot open ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return DecodeRecords(ss.str(), path);
}

}  // namespace mxnet::gluon::contrib
