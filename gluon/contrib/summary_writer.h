// TensorBoard event files from C++ (mxboard's mxboard.SummaryWriter for Gluon): scalars,
// histograms, images, text and the graph of a hybridized block, written as TFRecord-framed
// `Event` protocol buffers (record_io.h, tensorboard.proto) that TensorBoard reads.
//
//   auto w = gluon::contrib::SummaryWriter::Create("logs/run1").value();
//   w->add_scalar("loss", 0.25, step);
//   w->add_histogram("dense0.weight", param->data(), epoch);
//   w->close();
//
// Files: <logdir>/events.out.tfevents.<10-digit Unix seconds>.<hostname><suffix> (TensorFlow's
// name; ".1", ".2", ... appended when that name exists). The first record is the file-version
// event "brain.Event:2". Event files are appended to while TensorBoard reads them (it retries
// incomplete records), so they are written in place, not to a temporary name; every flush writes
// whole records only.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/shape.h"
#include "gluon/block.h"
#include "gluon/contrib/tensorboard.pb.h"
#include "ndarray/ndarray.h"
#include "symbol/symbol.h"

namespace mxnet::gluon::contrib {

struct SummaryWriterOptions {
  // Events buffered in memory before they are written (mxboard's max_queue); >= 1.
  int max_queue = 10;
  // Buffered events are also written by an add that comes this many seconds after the last
  // write (mxboard's flush_secs; there is no background thread); > 0.
  double flush_secs = 120;
  // Appended to the file name (mxboard's filename_suffix).
  std::string filename_suffix;
};

class SummaryWriter {
 public:
  // Creates `logdir` (and parents) if needed and a new event file in it holding the
  // file-version event. Errors: kInvalidArgument for bad options or an empty logdir,
  // kPermissionDenied when the directory or file cannot be created.
  static absl::StatusOr<std::unique_ptr<SummaryWriter>> Create(const std::string& logdir,
                                                               SummaryWriterOptions options = {});
  ~SummaryWriter();  // closes (errors are dropped: call close() to see them)
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  const std::string& get_logdir() const { return logdir_; }
  // The event file's path.
  const std::string& path() const { return path_; }

  // Every add_* is safe to call from several threads. Errors: kFailedPrecondition after
  // close(), kInvalidArgument for a bad argument (naming it), kDataLoss when writing fails.

  // A scalar (Summary.Value.simple_value, float32) at `global_step`. Empty tags are errors.
  absl::Status add_scalar(const std::string& tag, double value, int64_t global_step = 0);

  // A histogram of `values` (any shape and dtype, converted to float64) with TensorFlow's default
  // buckets (DefaultBucketLimits; mxboard's bins="default"): runs of empty buckets collapse into
  // one. Errors: an empty array, NaN or infinity (naming the first index).
  absl::Status add_histogram(const std::string& tag, const NDArray& values,
                             int64_t global_step = 0);
  // The same with `bins` equal-width buckets over [min, max] (numpy.histogram(values, bins):
  // the last bucket includes max; [min-0.5, max+0.5] when all values are equal), written as
  // tensorboardX does: the buckets from the first to the last non-empty one, after an empty
  // bucket whose limit is the first one's left edge. bins >= 1.
  absl::Status add_histogram(const std::string& tag, const NDArray& values, int64_t global_step,
                             int64_t bins);

  // A PNG image. `image`: (C, H, W), (N, C, H, W) or (H, W) (C = 1), C in {1 gray, 3 RGB,
  // 4 RGBA}. uint8 values are used as they are; floating-point values are taken as [0, 1],
  // clipped and scaled by 255 (rounded); other dtypes are errors. N images are tiled into one
  // grid, 8 per row with 2 black pixels around each (torchvision's make_grid, as mxboard);
  // N = 1 gives the image itself.
  absl::Status add_image(const std::string& tag, const NDArray& image, int64_t global_step = 0);

  // A text summary under the tag "<tag>/text_summary" (as mxboard and tensorboardX name it):
  // TensorBoard's text plugin, a DT_STRING tensor of shape (1,) with plugin "text"; TensorBoard
  // renders it as Markdown.
  absl::Status add_text(const std::string& tag, const std::string& text, int64_t global_step = 0);

  // The graph of a hybridized block as TensorBoard's GraphDef (ToGraphDef). `net` must have been
  // called hybridized (kFailedPrecondition otherwise); `input_shapes` (one per input, e.g.
  // {{128, 1, 28, 28}}) give the shapes shown on the edges; without them only parameter-derived
  // shapes are known.
  absl::Status add_graph(const HybridBlock& net, const std::vector<Shape>& input_shapes = {});
  // A symbol's graph; `shapes`: known input shapes by variable name.
  absl::Status add_graph(const sym::Symbol& graph, const std::map<std::string, Shape>& shapes = {});

  // Writes the buffered events and flushes the file.
  absl::Status flush();
  // Flushes and closes the file; later adds fail. Calling it again does nothing.
  absl::Status close();

 private:
  SummaryWriter() = default;
  absl::Status Add(tensorboard::Event event);  // sets wall_time, queues, writes when due
  absl::Status FlushLocked();

  std::mutex mu_;
  std::string logdir_, path_;
  SummaryWriterOptions options_;
  std::FILE* file_ = nullptr;
  std::vector<std::string> pending_;  // framed records not yet written
  std::chrono::steady_clock::time_point last_flush_;
};

// The bucket right edges TensorFlow's histograms use by default: -DBL_MAX, then -1e20 < ... <
// -1e-12 growing by 10% per bucket, 0, 1e-12, ..., DBL_MAX (1551 limits).
const std::vector<double>& DefaultBucketLimits();

// HistogramProto of `values`: bins == 0 uses DefaultBucketLimits (a value v falls in the bucket
// with limit[i-1] <= v < limit[i]; runs of empty buckets collapse into one, as TensorFlow's
// Histogram::EncodeToProto does); bins >= 1 equal-width buckets as numpy.histogram. min, max,
// num, sum and sum_squares are of all values; bins >= 1 keeps the non-empty range as
// add_histogram says. Errors: empty values, non-finite values, bins < 0.
absl::StatusOr<tensorboard::HistogramProto> MakeHistogram(const std::vector<double>& values,
                                                          int64_t bins = 0);

// PNG bytes (8-bit, colour type by `channels`: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA) of an
// image stored row-major as (height, width, channels) bytes. Errors: bad sizes.
absl::StatusOr<std::string> EncodePng(const std::vector<uint8_t>& hwc, int height, int width,
                                      int channels);

// TensorBoard's GraphDef of `graph`: one NodeDef per node in topological order, named as the
// node, op = the MXNet op name ("null" for variables, as in MXNet's JSON), inputs "name" or
// "name:k" for output k, every operator attribute as a string AttrValue (MXNet's text, e.g.
// kernel "(3, 3)"), and "_output_shapes" (a list of TensorShapeProto, unknown dims -1: the
// attribute TensorBoard draws edge shapes from) inferred from `shapes`. Errors: shapes that
// disagree.
absl::StatusOr<tensorboard::GraphDef> ToGraphDef(const sym::Symbol& graph,
                                                 const std::map<std::string, Shape>& shapes = {});

}  // namespace mxnet::gluon::contrib
