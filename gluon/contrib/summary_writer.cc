#include "gluon/contrib/summary_writer.h"

#include <fcntl.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <filesystem>

#include "base/error.h"
#include "base/strings.h"
#include "gluon/contrib/record_io.h"
#include "gluon/contrib/viz.h"

namespace mxnet::gluon::contrib {
namespace {

double WallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

// ---- PNG encoding (libpng writes into a std::string through a callback; errors longjmp back).
struct PngOut {
  std::string* bytes;
  char error[200];
};

void PngWrite(png_structp png, png_bytep data, png_size_t n) {
  auto* out = static_cast<PngOut*>(png_get_io_ptr(png));
  out->bytes->append(reinterpret_cast<const char*>(data), n);
}
void PngFlush(png_structp) {}
void PngError(png_structp png, png_const_charp msg) {
  auto* out = static_cast<PngOut*>(png_get_error_ptr(png));
  std::snprintf(out->error, sizeof out->error, "%s", msg);
  png_longjmp(png, 1);
}
void PngWarning(png_structp, png_const_charp) {}

// Returns false with out->error set on failure. No C++ object with a destructor lives between
// setjmp and the libpng calls.
bool PngEncode(PngOut* out, png_bytep* rows, int h, int w, int color_type) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, out, PngError, PngWarning);
  if (png == nullptr) {
    std::snprintf(out->error, sizeof out->error, "png_create_write_struct failed");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(out->error, sizeof out->error, "png_create_info_struct failed");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, out, PngWrite, PngFlush);
  png_set_IHDR(png, info, w, h, 8, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// A (tag, value) summary event.
tensorboard::Event SummaryEvent(int64_t step, tensorboard::Summary::Value value) {
  tensorboard::Event e;
  e.set_step(step);
  *e.mutable_summary()->add_value() = std::move(value);
  return e;
}

absl::Status CheckTag(const std::string& tag) {
  if (tag.empty()) return absl::InvalidArgumentError("SummaryWriter: the tag must not be empty");
  return absl::OkStatus();
}

}  // namespace

// ---- histograms ----

const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double> limits = [] {
    std::vector<double> pos, neg;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) {
      pos.push_back(v);
      neg.push_back(-v);
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    std::reverse(neg.begin(), neg.end());
    std::vector<double> all = neg;
    all.push_back(0.0);
    all.insert(all.end(), pos.begin(), pos.end());
    return all;
  }();
  return limits;
}

absl::StatusOr<tensorboard::HistogramProto> MakeHistogram(const std::vector<double>& values,
                                                          int64_t bins) {
  if (values.empty()) return absl::InvalidArgumentError("histogram of an empty array");
  if (bins < 0)
    return absl::InvalidArgumentError(StrCat("histogram bins must be >= 0, got ", bins));
  tensorboard::HistogramProto h;
  double lo = values[0], hi = values[0], sum = 0, sum_sq = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!std::isfinite(v))
      return absl::InvalidArgumentError(
          StrCat("histogram values must be finite; element ", i, " is ", v));
    lo = std::min(lo, v), hi = std::max(hi, v);
    sum += v, sum_sq += v * v;
  }
  h.set_min(lo);
  h.set_max(hi);
  h.set_num(static_cast<double>(values.size()));
  h.set_sum(sum);
  h.set_sum_squares(sum_sq);
  if (bins == 0) {
    const std::vector<double>& limits = DefaultBucketLimits();
    std::vector<double> counts(limits.size(), 0.0);
    for (double v : values)
      counts[std::upper_bound(limits.begin(), limits.end(), v) - limits.begin()] += 1;
    for (size_t i = 0; i < counts.size();) {
      double end = limits[i], count = counts[i];
      ++i;
      if (count <= 0) {  // a run of empty buckets becomes one
        while (i < counts.size() && counts[i] <= 0) end = limits[i], count = counts[i], ++i;
      }
      h.add_bucket_limit(end);
      h.add_bucket(count);
    }
    return h;
  }
  // numpy.histogram's equal-width bins: edges first + i * width, the last edge exactly `last`;
  // index floor((v - first) * (bins / (last - first))), corrected against the edges.
  double first = lo, last = hi;
  if (first == last) first -= 0.5, last += 0.5;
  const double width = (last - first) / static_cast<double>(bins);
  std::vector<double> edges(bins + 1);
  for (int64_t i = 0; i < bins; ++i) edges[i] = static_cast<double>(i) * width + first;
  edges[bins] = last;
  const double norm = static_cast<double>(bins) / (last - first);
  std::vector<double> counts(bins, 0.0);
  for (double v : values) {
    int64_t b = std::clamp<int64_t>(static_cast<int64_t>((v - first) * norm), 0, bins - 1);
    if (v < edges[b])
      --b;
    else if (b != bins - 1 && v >= edges[b + 1])
      ++b;
    counts[b] += 1;
  }
  // Like tensorboardX: only the buckets from the first to the last non-empty one, after an empty
  // bucket whose limit is the first one's left edge (TensorBoard keeps right edges only).
  int64_t start = 0, end = bins;
  while (counts[start] == 0) ++start;
  while (counts[end - 1] == 0) --end;
  h.add_bucket_limit(edges[start]);
  h.add_bucket(0);
  for (int64_t i = start; i < end; ++i) {
    h.add_bucket_limit(edges[i + 1]);
    h.add_bucket(counts[i]);
  }
  return h;
}

// ---- images ----

absl::StatusOr<std::string> EncodePng(const std::vector<uint8_t>& hwc, int height, int width,
                                      int channels) {
  if (height < 1 || width < 1 || channels < 1 || channels > 4)
    return absl::InvalidArgumentError(StrCat("EncodePng: bad image size ", height, "x", width, "x",
                                             channels, " (H, W >= 1, 1 to 4 channels)"));
  if (hwc.size() != static_cast<size_t>(height) * width * channels)
    return absl::InvalidArgumentError(StrCat("EncodePng: ", hwc.size(), " bytes for a ", height,
                                             "x", width, "x", channels, " image"));
  static const int kColor[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                               PNG_COLOR_TYPE_RGB_ALPHA};
  std::string bytes;
  std::vector<png_bytep> rows(height);
  for (int r = 0; r < height; ++r)
    rows[r] = const_cast<png_bytep>(hwc.data()) + static_cast<size_t>(r) * width * channels;
  PngOut out{&bytes, {}};
  if (!PngEncode(&out, rows.data(), height, width, kColor[channels - 1]))
    return absl::InternalError(StrCat("PNG encoding failed: ", out.error));
  return bytes;
}

// ---- graphs ----

absl::StatusOr<tensorboard::GraphDef> ToGraphDef(const sym::Symbol& graph,
                                                 const std::map<std::string, Shape>& shapes) {
  MX_ASSIGN_OR_RETURN(auto entry_shapes, viz::EntryShapes(graph, shapes));
  tensorboard::GraphDef g;
  for (const auto& np : graph.TopoNodes()) {
    const sym::Node& n = *np;
    tensorboard::NodeDef* nd = g.add_node();
    nd->set_name(n.name);
    nd->set_op(n.is_variable() ? "null" : n.op->name);
    for (const auto& in : n.inputs)
      nd->add_input(in.index == 0 ? in.node->name : StrCat(in.node->name, ":", in.index));
    auto& attrs = *nd->mutable_attr();
    for (const auto& [k, v] : n.params) attrs[k].set_s(v);
    auto* list = attrs["_output_shapes"].mutable_list();
    for (int i = 0; i < n.num_outputs(); ++i) {
      auto it = entry_shapes.find({&n, i});
      tensorboard::TensorShapeProto* sp = list->add_shape();
      if (it == entry_shapes.end() || !it->second.ndim_known()) {
        sp->set_unknown_rank(true);
        continue;
      }
      for (int64_t d : it->second) sp->add_dim()->set_size(d);
    }
  }
  return g;
}

// ---- the writer ----

absl::StatusOr<std::unique_ptr<SummaryWriter>> SummaryWriter::Create(const std::string& logdir,
                                                                     SummaryWriterOptions options) {
  if (logdir.empty()) return absl::InvalidArgumentError("SummaryWriter: logdir must not be empty");
  if (options.max_queue < 1)
    return absl::InvalidArgumentError(
        StrCat("SummaryWriter: max_queue must be >= 1, got ", options.max_queue));
  if (!(options.flush_secs > 0))
    return absl::InvalidArgumentError(
        StrCat("SummaryWriter: flush_secs must be > 0, got ", options.flush_secs));
  if (options.filename_suffix.find('/') != std::string::npos)
    return absl::InvalidArgumentError(StrCat("SummaryWriter: filename_suffix '",
                                             options.filename_suffix, "' must not contain '/'"));
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec || !std::filesystem::is_directory(logdir))
    return absl::PermissionDeniedError(StrCat("SummaryWriter: cannot create logdir ", logdir,
                                              ec ? ": " + ec.message() : " (not a directory)"));
  std::unique_ptr<SummaryWriter> w(new SummaryWriter());
  w->logdir_ = logdir;
  w->options_ = options;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%010lld", static_cast<long long>(WallTime()));
  const std::string base =
      StrCat(logdir, "/events.out.tfevents.", secs, ".", HostName(), options.filename_suffix);
  int fd = -1;
  for (int n = 0; n < 1000 && fd < 0; ++n) {
    w->path_ = n == 0 ? base : StrCat(base, ".", n);
    fd = ::open(w->path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0)
    return absl::PermissionDeniedError(
        StrCat("SummaryWriter: cannot create ", w->path_, ": ", std::strerror(errno)));
  w->file_ = fdopen(fd, "wb");
  if (w->file_ == nullptr) {
    ::close(fd);
    return absl::InternalError(StrCat("SummaryWriter: fdopen failed for ", w->path_));
  }
  tensorboard::Event version;
  version.set_file_version("brain.Event:2");
  std::lock_guard<std::mutex> l(w->mu_);
  version.set_wall_time(WallTime());
  w->pending_.push_back(EncodeRecord(version.SerializeAsString()));
  MX_RETURN_IF_ERROR(w->FlushLocked());
  return w;
}

SummaryWriter::~SummaryWriter() { (void)close(); }

absl::Status SummaryWriter::Add(tensorboard::Event event) {
  std::lock_guard<std::mutex> l(mu_);
  if (file_ == nullptr)
    return absl::FailedPreconditionError(StrCat("SummaryWriter for ", logdir_, " is closed"));
  event.set_wall_time(WallTime());
  pending_.push_back(EncodeRecord(event.SerializeAsString()));
  const double since =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - last_flush_).count();
  if (static_cast<int>(pending_.size()) >= options_.max_queue || since >= options_.flush_secs)
    return FlushLocked();
  return absl::OkStatus();
}

absl::Status SummaryWriter::FlushLocked() {
  last_flush_ = std::chrono::steady_clock::now();
  if (file_ == nullptr) return absl::OkStatus();
  for (const std::string& r : pending_) {
    if (std::fwrite(r.data(), 1, r.size(), file_) != r.size())
      return absl::DataLossError(
          StrCat("SummaryWriter: writing ", path_, " failed: ", std::strerror(errno)));
  }
  pending_.clear();
  if (std::fflush(file_) != 0)
    return absl::DataLossError(
        StrCat("SummaryWriter: flushing ", path_, " failed: ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status SummaryWriter::flush() {
  std::lock_guard<std::mutex> l(mu_);
  return FlushLocked();
}

absl::Status SummaryWriter::close() {
  std::lock_guard<std::mutex> l(mu_);
  if (file_ == nullptr) return absl::OkStatus();
  absl::Status s = FlushLocked();
  if (std::fclose(file_) != 0 && s.ok())
    s = absl::DataLossError(StrCat("SummaryWriter: closing ", path_, " failed"));
  file_ = nullptr;
  return s;
}

absl::Status SummaryWriter::add_scalar(const std::string& tag, double value, int64_t global_step) {
  MX_RETURN_IF_ERROR(CheckTag(tag));
  tensorboard::Summary::Value v;
  v.set_tag(tag);
  v.set_simple_value(static_cast<float>(value));
  return Add(SummaryEvent(global_step, std::move(v)));
}

absl::Status SummaryWriter::add_histogram(const std::string& tag, const NDArray& values,
                                          int64_t global_step) {
  return add_histogram(tag, values, global_step, 0);
}

absl::Status SummaryWriter::add_histogram(const std::string& tag, const NDArray& values,
                                          int64_t global_step, int64_t bins) {
  MX_RETURN_IF_ERROR(CheckTag(tag));
  if (bins < 0)
    return absl::InvalidArgumentError(StrCat("add_histogram(", tag, "): bins must be >= 1"));
  std::vector<double> data;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { data = values.ToVector<double>(); }));
  auto h = MakeHistogram(data, bins);
  if (!h.ok())
    return absl::InvalidArgumentError(StrCat("add_histogram(", tag, "): ", h.status().message()));
  tensorboard::Summary::Value v;
  v.set_tag(tag);
  *v.mutable_histo() = *std::move(h);
  return Add(SummaryEvent(global_step, std::move(v)));
}

absl::Status SummaryWriter::add_image(const std::string& tag, const NDArray& image,
                                      int64_t global_step) {
  MX_RETURN_IF_ERROR(CheckTag(tag));
  const Shape s = image.shape();
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        StrCat("add_image(", tag, "): ", why, "; got shape ", s.ToString(), " dtype ",
               DTypeName(image.dtype()),
               " (expected (C, H, W), (N, C, H, W) or (H, W) with C in "
               "1, 3, 4; uint8 or floating point)"));
  };
  int64_t n = 1, c = 1, h, w;
  if (s.ndim() == 2) {
    h = s[0], w = s[1];
  } else if (s.ndim() == 3) {
    c = s[0], h = s[1], w = s[2];
  } else if (s.ndim() == 4) {
    n = s[0], c = s[1], h = s[2], w = s[3];
  } else {
    return bad("bad rank");
  }
  if (c != 1 && c != 3 && c != 4) return bad(StrCat(c, " channels"));
  if (n < 1 || h < 1 || w < 1) return bad("an empty image");
  const DType dt = image.dtype();
  const bool is_float = dt == DType::kFloat16 || dt == DType::kFloat32 || dt == DType::kFloat64 ||
                        dt == DType::kBFloat16;
  if (dt != DType::kUint8 && !is_float) return bad("unsupported dtype");
  std::vector<double> v;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { v = image.ToVector<double>(); }));
  // Grid of n images, 8 per row, 2-pixel black borders (no border for one image).
  const int64_t cols = std::min<int64_t>(n, 8), rows = (n + cols - 1) / cols;
  const int64_t pad = n == 1 ? 0 : 2;
  const int64_t gh = rows * (h + pad) + pad, gw = cols * (w + pad) + pad;
  if (gh > (1 << 24) || gw > (1 << 24) || gh * gw * c > (int64_t{1} << 31))
    return bad("image too large");
  std::vector<uint8_t> grid(static_cast<size_t>(gh * gw * c), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t y0 = pad + (k / cols) * (h + pad), x0 = pad + (k % cols) * (w + pad);
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
          double val = v[((k * c + ch) * h + y) * w + x];
          if (is_float) val = std::isnan(val) ? 0.0 : std::clamp(val, 0.0, 1.0) * 255.0;
          grid[((y0 + y) * gw + (x0 + x)) * c + ch] =
              static_cast<uint8_t>(std::lround(std::clamp(val, 0.0, 255.0)));
        }
  }
  MX_ASSIGN_OR_RETURN(std::string png, EncodePng(grid, static_cast<int>(gh), static_cast<int>(gw),
                                                 static_cast<int>(c)));
  tensorboard::Summary::Value val;
  val.set_tag(tag);
  auto* img = val.mutable_image();
  img->set_height(static_cast<int>(gh));
  img->set_width(static_cast<int>(gw));
  img->set_colorspace(static_cast<int>(c));
  img->set_encoded_image_string(std::move(png));
  return Add(SummaryEvent(global_step, std::move(val)));
}

absl::Status SummaryWriter::add_text(const std::string& tag, const std::string& text,
                                     int64_t global_step) {
  MX_RETURN_IF_ERROR(CheckTag(tag));
  tensorboard::Summary::Value v;
  v.set_tag(tag + "/text_summary");
  v.mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
  tensorboard::TensorProto* t = v.mutable_tensor();
  t->set_dtype(tensorboard::DT_STRING);
  t->mutable_tensor_shape()->add_dim()->set_size(1);
  t->add_string_val(text);
  return Add(SummaryEvent(global_step, std::move(v)));
}

absl::Status SummaryWriter::add_graph(const sym::Symbol& graph,
                                      const std::map<std::string, Shape>& shapes) {
  if (graph.outputs().empty())
    return absl::InvalidArgumentError("add_graph: the symbol has no outputs");
  MX_ASSIGN_OR_RETURN(tensorboard::GraphDef g, ToGraphDef(graph, shapes));
  tensorboard::Event e;
  e.set_graph_def(g.SerializeAsString());
  return Add(std::move(e));
}

absl::Status SummaryWriter::add_graph(const HybridBlock& net,
                                      const std::vector<Shape>& input_shapes) {
  sym::Symbol graph = net.cached_graph();
  if (graph.outputs().empty())
    return absl::FailedPreconditionError(
        StrCat("add_graph: ", net.class_name(),
               " has no traced graph; hybridize() it and call it once before add_graph"));
  return add_graph(graph, viz::GraphInputShapes(net, input_shapes));
}

}  // namespace mxnet::gluon::contrib
