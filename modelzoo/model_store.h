// The pretrained-model store (mxnet.gluon.model_zoo.model_store), offline.
//
// A pretrained model `name` lives in `<root>/<name>-<sha1[:8]>.params` (MXNet's save_parameters
// format, structured keys) where root defaults to $MXNET_HOME/models and MXNET_HOME to ~/.mxnet
// (docs/formats.md §5). The whole file's SHA-1 must equal the entry of MXNet's table (identical
// from 1.3 through 2.0). This build never downloads: a missing file is an error that names the
// file, the directory and the URL MXNet would fetch it from (`{repo}gluon/models/<file>.zip`,
// repo = $MXNET_GLUON_REPO or Apache's S3 bucket); a file whose checksum differs is an error too
// (MXNet would re-download it). Nothing here ever falls back to random weights.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mxnet::gluon::model_zoo {

// MXNet's table: (model name, full SHA-1 hex) for the 34 pretrained vision models, in the order
// of model_store.py.
const std::vector<std::pair<std::string, std::string>>& model_sha1_table();

// The first 8 hex digits of the model's SHA-1. kNotFound for a name without pretrained weights
// ("Pretrained model for X is not available.").
absl::StatusOr<std::string> short_hash(std::string_view name);

// $MXNET_HOME/models, with MXNET_HOME defaulting to ~/.mxnet (HOME's value for ~).
std::string default_root();

// The verified path of the pretrained parameters of `name` under `root` ("" = default_root();
// a leading ~ is expanded). Errors:
//   kNotFound         unknown model name; or the file is absent (the message names the file, the
//                     directory and the download URL);
//   kDataLoss         the file's SHA-1 differs from the table's (both hashes in the message);
//   kPermissionDenied / kInternal  the file cannot be read.
absl::StatusOr<std::string> get_model_file(std::string_view name, const std::string& root = "");

// Deletes every *.params file directly under `root` ("" = default_root()), like MXNet's purge.
// A missing directory is not an error.
absl::Status purge(const std::string& root = "");

// SHA-1 of bytes / of a whole file, as 40 lowercase hex digits (OpenSSL's libcrypto).
std::string sha1_hex(std::string_view bytes);
absl::StatusOr<std::string> sha1_file(const std::string& path);

namespace internal {
// get_model_file's lookup for a given expected SHA-1 (tests use it with files of their own).
absl::StatusOr<std::string> FindVerifiedFile(std::string_view name, std::string_view sha1,
                                             const std::string& root);
// The URL MXNet downloads `file_name` (without extension) from.
std::string DownloadUrl(std::string_view file_name);
}  // namespace internal

}  // namespace mxnet::gluon::model_zoo
