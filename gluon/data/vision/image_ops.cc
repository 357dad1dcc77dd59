// _cvimdecode and _cvimread: MXNet 1.9.1's image decoding operators (src/io/image_io.cc) on the
// decoder of image_codec.cc. See image_ops.h.
#include "gluon/data/vision/image_ops.h"

#include <cstring>
#include <string_view>

#include "gluon/data/vision/image.h"
#include "ndarray/op.h"
#include "ndarray/params.h"

namespace mxnet::gluon::data::vision {
namespace {

// _cvimdecode (MXNet's ImdecodeParam).
struct CvImdecodeParam {
  int flag = 1;
  bool to_rgb = true;
  template <class D>
  static void Declare(D& d) {
    d.field("flag", &CvImdecodeParam::flag)
        .describe("Convert decoded image to grayscale (0) or color (1).");
    d.field("to_rgb", &CvImdecodeParam::to_rgb)
        .describe(
            "Whether to convert decoded image to mxnet's default RGB format (instead of opencv's "
            "default BGR).");
  }
  std::string Validate() const {
    return flag == 0 || flag == 1 ? ""
                                  : StrCat("flag must be 0 (grayscale) or 1 (color), got ", flag);
  }
};

// _cvimread (MXNet's ImreadParam).
struct CvImreadParam {
  std::string filename;  // required
  int flag = 1;
  bool to_rgb = true;
  template <class D>
  static void Declare(D& d) {
    d.field("filename", &CvImreadParam::filename)
        .required()
        .describe("Name of the image file to be loaded.");
    d.field("flag", &CvImreadParam::flag)
        .describe("Convert decoded image to grayscale (0) or color (1).");
    d.field("to_rgb", &CvImreadParam::to_rgb)
        .describe(
            "Whether to convert decoded image to mxnet's default RGB format (instead of opencv's "
            "default BGR).");
  }
  std::string Validate() const {
    return flag == 0 || flag == 1 ? ""
                                  : StrCat("flag must be 0 (grayscale) or 1 (color), got ", flag);
  }
};

// (height, width) from a JPEG's SOF segment or a PNG's IHDR without decoding; false if the
// header is not found (then the caller decodes).
bool HeaderSize(std::string_view b, int64_t* h, int64_t* w) {
  auto u = [&](size_t i) { return static_cast<int64_t>(static_cast<unsigned char>(b[i])); };
  static constexpr unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (b.size() >= 24 && std::memcmp(b.data(), kPng, 8) == 0) {
    *w = (u(16) << 24) | (u(17) << 16) | (u(18) << 8) | u(19);
    *h = (u(20) << 24) | (u(21) << 16) | (u(22) << 8) | u(23);
    return *w > 0 && *h > 0;
  }
  if (b.size() < 4 || u(0) != 0xFF || u(1) != 0xD8) return false;
  size_t i = 2;
  while (i + 4 <= b.size()) {
    if (u(i) != 0xFF) return false;
    const int64_t m = u(i + 1);
    if (m == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (m == 0x01 || (m >= 0xD0 && m <= 0xD8)) {  // markers without a length
      i += 2;
      continue;
    }
    const bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof) {
      if (i + 9 > b.size()) return false;
      *h = (u(i + 5) << 8) | u(i + 6);
      *w = (u(i + 7) << 8) | u(i + 8);
      return *w > 0 && *h > 0;
    }
    i += 2 + static_cast<size_t>((u(i + 2) << 8) | u(i + 3));
  }
  return false;
}

std::string_view Bytes(const NDArray& buf, std::string_view op) {
  if (buf.dtype() != DType::kUint8)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input buf must be uint8 bytes, got ",
             DTypeName(buf.dtype()));
  if (buf.size() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input buf cannot be an empty buffer");
  return {static_cast<const char*>(buf.data_ptr()), static_cast<size_t>(buf.size())};
}

NDArray Decode(std::string_view bytes, int flag, bool to_rgb, std::string_view op) {
  absl::StatusOr<NDArray> img = imdecode(bytes, flag, to_rgb);
  if (!img.ok()) MX_THROW(img.status().code(), op, ": ", img.status().message());
  return *std::move(img);
}

Shape OutShape(std::string_view bytes, int flag, bool to_rgb, std::string_view op) {
  int64_t h = 0, w = 0;
  if (HeaderSize(bytes, &h, &w)) return Shape{h, w, flag == 0 ? 1 : 3};
  return Decode(bytes, flag, to_rgb, op).shape();  // not JPEG/PNG: imdecode's error
}

void CopyDecoded(const NDArray& img, const NDArray& out, std::string_view op) {
  if (img.shape() != out.shape())
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": the image decodes to shape ",
             img.shape().ToString(), " but its header says ", out.shape().ToString());
  std::memcpy(out.data_ptr(), img.data_ptr(), img.nbytes());
}

std::string ReadFile(const std::string& path) {
  absl::StatusOr<std::string> b = ReadFileBytes(path);
  if (!b.ok()) MX_THROW(b.status().code(), "_cvimread: ", b.status().message());
  return *std::move(b);
}

void Uint8Out(const OpAttrs&, DTypeVec*, DTypeVec* out) {
  MergeType(&(*out)[0], static_cast<int>(DType::kUint8), "image decode: output");
}

MX_REGISTER_OP(_cvimdecode)
    .describe(
        "Decodes a JPEG or PNG file held in a 1-D uint8 array: (H, W, 3) uint8 RGB (flag=1; BGR "
        "with to_rgb=False) or (H, W, 1) grayscale (flag=0).")
    .add_alias("_npi_cvimdecode")
    .set_params<CvImdecodeParam>()
    .set_input_names(std::vector<std::string>{"buf"})
    .set_infer_shape([](const OpAttrs&, ShapeVec*, ShapeVec*) {})  // from the data
    .set_dynamic_output_shape([](const OpAttrs& a, std::span<const NDArray> in, ShapeVec* out) {
      const auto& p = a.get<CvImdecodeParam>();
      (*out)[0] = OutShape(Bytes(in[0], "_cvimdecode"), p.flag, p.to_rgb, "_cvimdecode");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] >= 0 && (*in)[0] != static_cast<int>(DType::kUint8))
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "_cvimdecode: input buf must be uint8 bytes, got ",
                 DTypeName(static_cast<DType>((*in)[0])));
      Uint8Out(a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<CvImdecodeParam>();
                  CopyDecoded(Decode(Bytes(in[0], "_cvimdecode"), p.flag, p.to_rgb, "_cvimdecode"),
                              out[0], "_cvimdecode");
                })
    .set_non_differentiable();

MX_REGISTER_OP(_cvimread)
    .describe(
        "Reads and decodes the JPEG or PNG file `filename`: (H, W, 3) uint8 RGB (flag=1; BGR "
        "with to_rgb=False) or (H, W, 1) grayscale (flag=0).")
    .add_alias("_npi_cvimread")
    .set_params<CvImreadParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs&, ShapeVec*, ShapeVec*) {})  // from the file
    .set_dynamic_output_shape([](const OpAttrs& a, std::span<const NDArray>, ShapeVec* out) {
      const auto& p = a.get<CvImreadParam>();
      (*out)[0] = OutShape(ReadFile(p.filename), p.flag, p.to_rgb, "_cvimread");
    })
    .set_infer_type(Uint8Out)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<CvImreadParam>();
                  CopyDecoded(Decode(ReadFile(p.filename), p.flag, p.to_rgb,
                                     StrCat("_cvimread '", p.filename, "'")),
                              out[0], "_cvimread");
                })
    .set_non_differentiable();

}  // namespace

NDArray cvimdecode(const NDArray& buf, int flag, bool to_rgb) {
  const Op& op = OpRegistry::Get("_cvimdecode");
  CvImdecodeParam p;
  p.flag = flag;
  p.to_rgb = to_rgb;
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{buf})[0];
}

NDArray cvimread(const std::string& filename, int flag, bool to_rgb) {
  const Op& op = OpRegistry::Get("_cvimread");
  CvImreadParam p;
  p.filename = filename;
  p.flag = flag;
  p.to_rgb = to_rgb;
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{})[0];
}

}  // namespace mxnet::gluon::data::vision
