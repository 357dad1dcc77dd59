// Vision datasets (mxnet.gluon.data.vision.datasets) read from local files. Nothing is downloaded:
// `root` must hold the dataset's files under MXNet's names (DefaultRoot gives MXNet's default
// location, $MXNET_HOME/datasets/<name>, MXNET_HOME defaulting to ~/.mxnet).
//
// Samples are {image, label}: the image is an (H, W, C) uint8 HWC array, the label an int32
// scalar array of shape () (MXNet returns a numpy.int32 / Python int), so the default Stack
// batchify gives (B, H, W, C) uint8 and (B,) int32 batches.
//
// Loading errors are absl::Status values naming the file: kNotFound (missing file),
// kInvalidArgument (wrong magic number, inconsistent sizes, labels out of range), kDataLoss
// (truncated or corrupt data).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gluon/data/dataset.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::data::vision {

// $MXNET_HOME/datasets/<name> (MXNET_HOME defaults to $HOME/.mxnet).
std::string DefaultRoot(const std::string& name);

// Images and labels held in memory: data (N, H, W, C) uint8 and label (N,) int32; sample i is
// {data[i] (a view), label[i] (shape ())}.
class InMemoryImageDataset : public Dataset {
 public:
  InMemoryImageDataset(NDArray data, NDArray label);
  int64_t size() const override { return data_.shape()[0]; }
  const NDArray& data() const { return data_; }
  const NDArray& label() const { return label_; }

 protected:
  Sample Get(int64_t index) const override { return {data_.at(index), label_.at(index)}; }

 private:
  NDArray data_, label_;
};

// MNIST handwritten digits: 28x28x1 images. Reads `root`/{train,t10k}-images-idx3-ubyte.gz and
// -labels-idx1-ubyte.gz (gzip via zlib; the same names without .gz are read if the .gz files are
// absent). train: 60000 samples, test: 10000.
class MNIST : public InMemoryImageDataset {
 public:
  static absl::StatusOr<std::shared_ptr<MNIST>> Create(
      const std::string& root = DefaultRoot("mnist"), bool train = true);
  bool train() const { return train_; }

  MNIST(NDArray data, NDArray label, bool train)
      : InMemoryImageDataset(std::move(data), std::move(label)), train_(train) {}

 private:
  bool train_;
};

// Fashion-MNIST (Zalando's article images): the MNIST file format and names, 10 classes.
class FashionMNIST : public MNIST {
 public:
  static absl::StatusOr<std::shared_ptr<FashionMNIST>> Create(
      const std::string& root = DefaultRoot("fashion-mnist"), bool train = true);
  using MNIST::MNIST;
};

// CIFAR-10: 32x32x3 images from the binary version's `root`/data_batch_{1..5}.bin (train) or
// test_batch.bin (test); each record is 1 label byte + 3072 bytes of CHW pixels (stored HWC here).
class CIFAR10 : public InMemoryImageDataset {
 public:
  static absl::StatusOr<std::shared_ptr<CIFAR10>> Create(
      const std::string& root = DefaultRoot("cifar10"), bool train = true);
  using InMemoryImageDataset::InMemoryImageDataset;
};

// CIFAR-100: `root`/train.bin or test.bin; records are coarse label, fine label, 3072 pixels.
// fine_label selects the 100 fine classes instead of the 20 coarse ones.
class CIFAR100 : public InMemoryImageDataset {
 public:
  static absl::StatusOr<std::shared_ptr<CIFAR100>> Create(
      const std::string& root = DefaultRoot("cifar100"), bool fine_label = false,
      bool train = true);
  using InMemoryImageDataset::InMemoryImageDataset;
};

// Images in class folders (ImageFolderDataset): root/<class>/<file>.{jpg,jpeg,png} (extension
// case-insensitive; other files and non-directories at the top level are skipped). Classes are
// the sorted folder names (synsets()[label]); items are sorted by file name within a class.
// flag 1 decodes to (H, W, 3) RGB, flag 0 to (H, W, 1) grayscale. Images are decoded on access;
// a file that fails to decode throws mxnet::Error from at() with the decoder's error and the path.
class ImageFolderDataset : public Dataset {
 public:
  // Errors: kNotFound / kInvalidArgument if root is not a readable directory; kInvalidArgument
  // for a flag other than 0/1.
  static absl::StatusOr<std::shared_ptr<ImageFolderDataset>> Create(const std::string& root,
                                                                    int flag = 1);
  int64_t size() const override { return static_cast<int64_t>(items_.size()); }
  const std::vector<std::string>& synsets() const { return synsets_; }
  // (path, label) per sample.
  const std::vector<std::pair<std::string, int>>& items() const { return items_; }

  ImageFolderDataset(std::vector<std::string> synsets,
                     std::vector<std::pair<std::string, int>> items, int flag)
      : synsets_(std::move(synsets)), items_(std::move(items)), flag_(flag) {}

 protected:
  Sample Get(int64_t index) const override;

 private:
  std::vector<std::string> synsets_;
  std::vector<std::pair<std::string, int>> items_;
  int flag_;
};

}  // namespace mxnet::gluon::data::vision
