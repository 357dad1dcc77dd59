// TFRecord framing, the container of TensorBoard event files (TensorFlow's
// core/lib/io/record_writer.cc format). Each record is
//   uint64 length (little-endian) | uint32 MaskCrc(Crc32c(length bytes)) |
//   data[length] | uint32 MaskCrc(Crc32c(data))
// with all integers little-endian.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace mxnet::gluon::contrib {

// The framed bytes of one record holding `data`.
std::string EncodeRecord(std::string_view data);

// The records of a whole TFRecord byte string. Errors (kDataLoss) name `source`, the record's
// index and byte offset: a truncated header or body, a length CRC or data CRC mismatch.
absl::StatusOr<std::vector<std::string>> DecodeRecords(std::string_view bytes,
                                                       std::string_view source = "records");

// DecodeRecords of the file at `path`; kNotFound if it cannot be read.
absl::StatusOr<std::vector<std::string>> ReadRecords(const std::string& path);

}  // namespace mxnet::gluon::contrib
