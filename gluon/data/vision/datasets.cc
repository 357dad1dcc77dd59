#include "gluon/data/vision/datasets.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/error.h"
#include "base/strings.h"
#include "gluon/data/vision/image.h"

namespace mxnet::gluon::data::vision {
namespace {

namespace fs = std::filesystem;

std::string Join(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

// Reads a whole gzip file (zlib's gz* API; a plain file is read as is). If `path` does not exist
// and ends in ".gz", the same name without ".gz" is tried.
absl::StatusOr<std::string> ReadGzipFile(const std::string& path, std::string* used_path) {
  std::string p = path;
  std::error_code ec;
  if (!fs::exists(p, ec) && EndsWith(p, ".gz")) {
    const std::string plain = p.substr(0, p.size() - 3);
    if (fs::exists(plain, ec)) p = plain;
  }
  *used_path = p;
  if (!fs::exists(p, ec)) return absl::NotFoundError(StrCat("file not found: '", path, "'"));
  gzFile f = gzopen(p.c_str(), "rb");
  if (f == nullptr)
    return absl::UnavailableError(StrCat("cannot open '", p, "': ", std::strerror(errno)));
  gzbuffer(f, 1 << 17);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int errnum = 0;
      const std::string msg = gzerror(f, &errnum);
      gzclose(f);
      return absl::DataLossError(StrCat("error decompressing '", p, "': ", msg));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  // gzread reports a truncated stream through gzerror at EOF.
  int errnum = 0;
  const std::string msg = gzerror(f, &errnum);
  gzclose(f);
  if (errnum != Z_OK && errnum != Z_STREAM_END)
    return absl::DataLossError(StrCat("error decompressing '", p, "': ", msg));
  return out;
}

uint32_t BigEndian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

// Parses an IDX file of unsigned bytes with `ndim` dimensions (magic 0x0000 08 ndim).
absl::StatusOr<std::vector<int64_t>> ParseIdxHeader(const std::string& bytes, int ndim,
                                                    const std::string& path) {
  const size_t header = 4 + 4 * static_cast<size_t>(ndim);
  if (bytes.size() < header)
    return absl::DataLossError(StrCat("'", path, "' is truncated: ", bytes.size(),
                                      " bytes, shorter than the IDX header (", header, " bytes)"));
  const uint32_t magic = BigEndian32(bytes.data());
  const uint32_t expected = 0x00000800u | static_cast<uint32_t>(ndim);
  if (magic != expected)
    return absl::InvalidArgumentError(
        StrCat("'", path, "' has the wrong magic number ", magic, " (expected ", expected,
               ": an IDX file of unsigned bytes with ", ndim, " dimensions)"));
  std::vector<int64_t> dims;
  int64_t total = 1;
  for (int i = 0; i < ndim; ++i) {
    dims.push_back(BigEndian32(bytes.data() + 4 + 4 * i));
    total *= dims.back();
  }
  const size_t have = bytes.size() - header;
  if (have < static_cast<size_t>(total))
    return absl::DataLossError(StrCat("'", path, "' is truncated: the header promises ", total,
                                      " bytes of data, found ", have));
  if (have > static_cast<size_t>(total))
    return absl::InvalidArgumentError(StrCat("'", path, "' has ", have - total,
                                             " unexpected bytes after its ", total,
                                             " bytes of data"));
  return dims;
}

template <typename T>
absl::StatusOr<std::shared_ptr<T>> LoadMnist(const std::string& root, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string images_path = Join(root, prefix + "-images-idx3-ubyte.gz");
  const std::string labels_path = Join(root, prefix + "-labels-idx1-ubyte.gz");
  std::string used_labels, used_images;
  MX_ASSIGN_OR_RETURN(std::string labels, ReadGzipFile(labels_path, &used_labels));
  MX_ASSIGN_OR_RETURN(std::vector<int64_t> ldims, ParseIdxHeader(labels, 1, used_labels));
  MX_ASSIGN_OR_RETURN(std::string images, ReadGzipFile(images_path, &used_images));
  MX_ASSIGN_OR_RETURN(std::vector<int64_t> idims, ParseIdxHeader(images, 3, used_images));
  if (idims[0] != ldims[0])
    return absl::InvalidArgumentError(StrCat("'", used_images, "' has ", idims[0], " images but '",
                                             used_labels, "' has ", ldims[0], " labels"));
  const int64_t n = ldims[0];
  NDArray data(Shape{n, idims[1], idims[2], 1}, cpu(), DType::kUint8);
  if (data.nbytes()) std::memcpy(data.data_ptr(), images.data() + 16, data.nbytes());
  NDArray label(Shape{n}, cpu(), DType::kInt32);
  int32_t* l = label.data<int32_t>();
  for (int64_t i = 0; i < n; ++i) l[i] = static_cast<unsigned char>(labels[8 + i]);
  return std::make_shared<T>(std::move(data), std::move(label), train);
}

// Reads CIFAR binary batches: records of `label_bytes` label bytes + 3x32x32 CHW pixels.
absl::Status ReadCifarFiles(const std::string& root, const std::vector<std::string>& names,
                            int label_bytes, int label_index, int num_classes, NDArray* data,
                            NDArray* label) {
  constexpr int64_t kPixels = 3 * 32 * 32;
  const int64_t record = label_bytes + kPixels;
  std::vector<std::string> contents;
  int64_t n = 0;
  for (const std::string& name : names) {
    const std::string path = Join(root, name);
    MX_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
    if (bytes.empty() || bytes.size() % record != 0)
      return absl::DataLossError(StrCat("'", path, "' has ", bytes.size(),
                                        " bytes, not a positive multiple of the ", record,
                                        "-byte CIFAR record (truncated or not a CIFAR",
                                        label_bytes == 1 ? "-10" : "-100", " batch file)"));
    n += static_cast<int64_t>(bytes.size()) / record;
    contents.push_back(std::move(bytes));
  }
  *data = NDArray(Shape{n, 32, 32, 3}, cpu(), DType::kUint8);
  *label = NDArray(Shape{n}, cpu(), DType::kInt32);
  uint8_t* d = data->data<uint8_t>();
  int32_t* l = label->data<int32_t>();
  int64_t i = 0;
  for (size_t f = 0; f < contents.size(); ++f) {
    const std::string& bytes = contents[f];
    const int64_t count = static_cast<int64_t>(bytes.size()) / record;
    for (int64_t r = 0; r < count; ++r, ++i) {
      const auto* rec = reinterpret_cast<const unsigned char*>(bytes.data()) + r * record;
      const int lab = rec[label_index];
      if (lab >= num_classes)
        return absl::InvalidArgumentError(StrCat("'", Join(root, names[f]), "': record ", r,
                                                 " has label ", lab, ", outside [0, ", num_classes,
                                                 ")"));
      l[i] = lab;
      const unsigned char* px = rec + label_bytes;
      uint8_t* out = d + i * kPixels;
      for (int c = 0; c < 3; ++c)
        for (int p = 0; p < 32 * 32; ++p) out[p * 3 + c] = px[c * 32 * 32 + p];
    }
  }
  return absl::OkStatus();
}

bool IsImageFile(const fs::path& p) {
  const std::string ext = AsciiToLower(p.extension().string());
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

}  // namespace

std::string DefaultRoot(const std::string& name) {
  const char* home = std::getenv("MXNET_HOME");
  std::string base;
  if (home != nullptr && *home != '\0') {
    base = home;
  } else {
    const char* h = std::getenv("HOME");
    base = Join(h != nullptr ? h : ".", ".mxnet");
  }
  return Join(Join(base, "datasets"), name);
}

InMemoryImageDataset::InMemoryImageDataset(NDArray data, NDArray label)
    : data_(std::move(data)), label_(std::move(label)) {
  MX_REQUIRE(!data_.is_none() && data_.ndim() == 4, absl::StatusCode::kInvalidArgument,
             "InMemoryImageDataset: data must have shape (N, H, W, C)");
  MX_REQUIRE(!label_.is_none() && label_.ndim() >= 1 && label_.shape()[0] == data_.shape()[0],
             absl::StatusCode::kInvalidArgument, "InMemoryImageDataset: ", data_.shape()[0],
             " images but labels of shape ",
             label_.is_none() ? std::string("none") : label_.shape().ToString());
}

absl::StatusOr<std::shared_ptr<MNIST>> MNIST::Create(const std::string& root, bool train) {
  return LoadMnist<MNIST>(root, train);
}

absl::StatusOr<std::shared_ptr<FashionMNIST>> FashionMNIST::Create(const std::string& root,
                                                                   bool train) {
  return LoadMnist<FashionMNIST>(root, train);
}

absl::StatusOr<std::shared_ptr<CIFAR10>> CIFAR10::Create(const std::string& root, bool train) {
  std::vector<std::string> names;
  if (train) {
    for (int i = 1; i <= 5; ++i) names.push_back(StrCat("data_batch_", i, ".bin"));
  } else {
    names.push_back("test_batch.bin");
  }
  NDArray data, label;
  MX_RETURN_IF_ERROR(ReadCifarFiles(root, names, 1, 0, 10, &data, &label));
  return std::make_shared<CIFAR10>(std::move(data), std::move(label));
}

absl::StatusOr<std::shared_ptr<CIFAR100>> CIFAR100::Create(const std::string& root, bool fine_label,
                                                           bool train) {
  NDArray data, label;
  MX_RETURN_IF_ERROR(ReadCifarFiles(root, {train ? "train.bin" : "test.bin"}, 2, fine_label ? 1 : 0,
                                    fine_label ? 100 : 20, &data, &label));
  return std::make_shared<CIFAR100>(std::move(data), std::move(label));
}

absl::StatusOr<std::shared_ptr<ImageFolderDataset>> ImageFolderDataset::Create(
    const std::string& root, int flag) {
  if (flag != 0 && flag != 1)
    return absl::InvalidArgumentError(
        StrCat("ImageFolderDataset: flag must be 0 (grayscale) or 1 (color), got ", flag));
  std::error_code ec;
  if (!fs::exists(root, ec))
    return absl::NotFoundError(StrCat("ImageFolderDataset: root '", root, "' does not exist"));
  if (!fs::is_directory(root, ec))
    return absl::InvalidArgumentError(
        StrCat("ImageFolderDataset: root '", root, "' is not a directory"));
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) folders.push_back(it->path());
  if (ec)
    return absl::UnavailableError(
        StrCat("ImageFolderDataset: cannot list '", root, "': ", ec.message()));
  std::sort(folders.begin(), folders.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::vector<std::string> synsets;
  std::vector<std::pair<std::string, int>> items;
  for (const fs::path& folder : folders) {
    const int label = static_cast<int>(synsets.size());
    synsets.push_back(folder.filename().string());
    std::vector<fs::path> files;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
      if (IsImageFile(it->path()) && !it->is_directory(ec)) files.push_back(it->path());
    if (ec)
      return absl::UnavailableError(
          StrCat("ImageFolderDataset: cannot list '", folder.string(), "': ", ec.message()));
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) items.emplace_back(f.string(), label);
  }
  return std::make_shared<ImageFolderDataset>(std::move(synsets), std::move(items), flag);
}

Sample ImageFolderDataset::Get(int64_t index) const {
  const auto& [path, label] = items_[index];
  NDArray img = ValueOrThrow(imread(path, flag_));
  return {img, NDArray::FromVector(std::vector<int32_t>{label}, Shape(), cpu(), DType::kInt32)};
}

}  // namespace mxnet::gluon::data::vision
