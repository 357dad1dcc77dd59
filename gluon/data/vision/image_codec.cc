// imdecode/imread with libjpeg-turbo and libpng. Both libraries report fatal errors through a
// callback that must not return; we longjmp back to the decoding function (never exit(), never a
// C++ exception through C frames). The functions that call setjmp keep all their state in a job
// struct reached through a pointer, so nothing they read after a longjmp lives in a register, and
// no C++ object with a destructor is created between setjmp and a libjpeg/libpng call.
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

// jpeglib.h needs size_t and FILE declared first.
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

#include "base/error.h"
#include "base/strings.h"
#include "gluon/data/vision/image.h"

namespace mxnet::gluon::data::vision {
namespace {

// Largest decoded image we allocate (guards against corrupt headers claiming huge sizes).
constexpr uint64_t kMaxDecodedBytes = uint64_t{1} << 31;

// Decompression bombs: a header may claim any size; these bounds tie the image to the bytes
// that must hold it, checked right after the header, before anything is allocated.
//  - PNG: the pixel data is one deflate stream, and deflate expands at most 1032:1, so the raw
//    bits of w x h pixels (w * h * channels * bit depth / 8 bytes) need at least 1/1032 of that
//    in the file. Exact: no valid PNG is refused.
//  - JPEG, sequential Huffman (baseline): every 8x8 block of the full-resolution component costs
//    at least 2 bits (a DC code and an end-of-block code, each >= 1 bit), so a valid file holds
//    at most 256 pixels per byte. Exact: no valid baseline JPEG is refused.
//  - JPEG, progressive or arithmetic-coded: end-of-band runs can code many blocks in a few bits,
//    so no exact bound exists; encoders' first (DC) scan costs >= 1 bit per block (<= 512
//    pixels per byte): 8192 per byte are allowed, plus 2^20 pixels for tiny files.
constexpr uint64_t kDeflateMaxRatio = 1033;
constexpr uint64_t kJpegBaselinePixelsPerByte = 256;
constexpr uint64_t kJpegPixelsPerByte = 8192;
constexpr uint64_t kJpegFreePixels = uint64_t{1} << 20;

// Error messages are written by these out-of-line helpers, never inline in RunJpeg/RunPng: an
// inlined std::string assignment puts locals into the function that calls setjmp, which GCC 12's
// -Wclobbered rejects (-Werror) when UBSan instruments at -O1 (--config=asan_ubsan).
[[gnu::noinline]] void SetError(std::string* error, const char* msg) { *error = msg; }

[[gnu::noinline]] void SetSizeError(std::string* error, uint64_t w, uint64_t h) {
  *error = StrCat("unsupported image size ", w, "x", h);
}

[[gnu::noinline]] void SetBombError(std::string* error, uint64_t w, uint64_t h, uint64_t size,
                                    const char* why) {
  *error = StrCat("the header claims ", w, "x", h, " pixels, more than ", size,
                  " bytes of data can hold (", why, ")");
}

[[gnu::noinline]] void SetPngLayoutError(std::string* error, int color_type, int bit_depth) {
  *error =
      StrCat("unsupported PNG layout (color type ", color_type, ", bit depth ", bit_depth, ")");
}

// ---------------------------------------------------------------- JPEG

struct JpegError {
  jpeg_error_mgr pub;
  std::jmp_buf jmp;
  char msg[JMSG_LENGTH_MAX];
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->msg);
  std::longjmp(err->jmp, 1);
}

// Warnings are ignored (like OpenCV) except a premature end of data: a truncated file is an
// error rather than an image padded with gray.
void JpegEmitMessage(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) JpegErrorExit(cinfo);
}

struct JpegJob {
  const unsigned char* data = nullptr;
  unsigned long size = 0;
  int flag = 1;
  bool to_rgb = true;
  NDArray* out = nullptr;
  std::vector<unsigned char>* cmyk_row = nullptr;
  std::string* error = nullptr;  // set for errors found by our own checks
  JpegError err;
  jpeg_decompress_struct cinfo;
};

void CmykRowToRgb(const unsigned char* cmyk, unsigned char* out, int64_t width, bool inverted,
                  bool to_rgb) {
  for (int64_t x = 0; x < width; ++x) {
    int c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    const unsigned char r = static_cast<unsigned char>((c * k + 127) / 255);
    const unsigned char g = static_cast<unsigned char>((m * k + 127) / 255);
    const unsigned char b = static_cast<unsigned char>((y * k + 127) / 255);
    out[3 * x] = to_rgb ? r : b;
    out[3 * x + 1] = g;
    out[3 * x + 2] = to_rgb ? b : r;
  }
}

// Returns false on a libjpeg error (message in job->err.msg) or our own (job->error).
bool RunJpeg(JpegJob* job) {
  job->cinfo.err = jpeg_std_error(&job->err.pub);
  job->err.pub.error_exit = JpegErrorExit;
  job->err.pub.emit_message = JpegEmitMessage;
  job->err.msg[0] = '\0';
  if (setjmp(job->err.jmp)) {
    jpeg_destroy_decompress(&job->cinfo);
    return false;
  }
  jpeg_create_decompress(&job->cinfo);
  jpeg_mem_src(&job->cinfo, job->data, job->size);
  jpeg_read_header(&job->cinfo, TRUE);
  if (const bool dense = job->cinfo.progressive_mode || job->cinfo.arith_code;
      uint64_t{job->cinfo.image_width} * job->cinfo.image_height >
      (dense ? kJpegFreePixels + kJpegPixelsPerByte * job->size
             : kJpegBaselinePixelsPerByte * job->size)) {
    SetBombError(job->error, job->cinfo.image_width, job->cinfo.image_height, job->size,
                 dense ? "8192 pixels per byte are allowed for progressive/arithmetic JPEGs"
                       : "a baseline JPEG holds at most 256 pixels per byte");
    jpeg_destroy_decompress(&job->cinfo);
    return false;
  }
  const bool cmyk =
      job->cinfo.jpeg_color_space == JCS_CMYK || job->cinfo.jpeg_color_space == JCS_YCCK;
  if (job->flag == 0) {
    if (cmyk) {
      SetError(job->error, "grayscale decoding of CMYK JPEGs is not supported");
      jpeg_destroy_decompress(&job->cinfo);
      return false;
    }
    job->cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (cmyk) {
    job->cinfo.out_color_space = JCS_CMYK;
  } else {
    job->cinfo.out_color_space = job->to_rgb ? JCS_RGB : JCS_EXT_BGR;
  }
  jpeg_start_decompress(&job->cinfo);
  const uint64_t w = job->cinfo.output_width, h = job->cinfo.output_height;
  const uint64_t c = job->flag == 0 ? 1 : 3;
  if (w == 0 || h == 0 || w * h * c > kMaxDecodedBytes) {
    SetSizeError(job->error, w, h);
    jpeg_destroy_decompress(&job->cinfo);
    return false;
  }
  try {
    *job->out =
        NDArray(Shape{static_cast<int64_t>(h), static_cast<int64_t>(w), static_cast<int64_t>(c)},
                cpu(), DType::kUint8);
    if (cmyk) job->cmyk_row->resize(w * 4);
  } catch (...) {
    jpeg_destroy_decompress(&job->cinfo);
    throw;
  }
  unsigned char* base = static_cast<unsigned char*>(job->out->data_ptr());
  const bool inverted = job->cinfo.saw_Adobe_marker;
  while (job->cinfo.output_scanline < job->cinfo.output_height) {
    unsigned char* row = base + static_cast<size_t>(job->cinfo.output_scanline) * w * c;
    if (cmyk) {
      JSAMPROW r = job->cmyk_row->data();
      jpeg_read_scanlines(&job->cinfo, &r, 1);
      CmykRowToRgb(job->cmyk_row->data(), row, static_cast<int64_t>(w), inverted, job->to_rgb);
    } else {
      JSAMPROW r = row;
      jpeg_read_scanlines(&job->cinfo, &r, 1);
    }
  }
  jpeg_finish_decompress(&job->cinfo);
  jpeg_destroy_decompress(&job->cinfo);
  return true;
}

absl::StatusOr<NDArray> DecodeJpeg(std::string_view bytes, int flag, bool to_rgb) {
  NDArray out;
  std::vector<unsigned char> cmyk_row;
  std::string error;
  auto job = std::make_unique<JpegJob>();
  job->data = reinterpret_cast<const unsigned char*>(bytes.data());
  job->size = static_cast<unsigned long>(bytes.size());
  job->flag = flag;
  job->to_rgb = to_rgb;
  job->out = &out;
  job->cmyk_row = &cmyk_row;
  job->error = &error;
  if (!RunJpeg(job.get())) {
    return absl::InvalidArgumentError(StrCat("imdecode: corrupt or unsupported JPEG data: ",
                                             error.empty() ? job->err.msg : error));
  }
  return out;
}

// ---------------------------------------------------------------- PNG

struct PngJob {
  const unsigned char* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  int flag = 1;
  bool to_rgb = true;
  NDArray* out = nullptr;
  std::vector<png_bytep>* rows = nullptr;
  std::string* error = nullptr;
  char msg[256] = {0};
  png_structp png = nullptr;
  png_infop info = nullptr;
};

void PngErrorFn(png_structp png, png_const_charp msg) {
  auto* job = static_cast<PngJob*>(png_get_error_ptr(png));
  std::snprintf(job->msg, sizeof job->msg, "%s", msg);
  png_longjmp(png, 1);
}

void PngWarningFn(png_structp, png_const_charp) {}

void PngReadFn(png_structp png, png_bytep dst, png_size_t n) {
  auto* job = static_cast<PngJob*>(png_get_io_ptr(png));
  if (job->size - job->pos < n) png_error(png, "unexpected end of data (truncated file)");
  std::memcpy(dst, job->data + job->pos, n);
  job->pos += n;
}

bool RunPng(PngJob* job) {
  job->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job, PngErrorFn, PngWarningFn);
  if (job->png == nullptr) {
    SetError(job->error, "png_create_read_struct failed");
    return false;
  }
  job->info = png_create_info_struct(job->png);
  if (job->info == nullptr) {
    png_destroy_read_struct(&job->png, nullptr, nullptr);
    SetError(job->error, "png_create_info_struct failed");
    return false;
  }
  if (setjmp(png_jmpbuf(job->png))) {
    png_destroy_read_struct(&job->png, &job->info, nullptr);
    return false;
  }
  png_set_read_fn(job->png, job, PngReadFn);
  png_read_info(job->png, job->info);
  {
    const uint64_t w0 = png_get_image_width(job->png, job->info);
    const uint64_t h0 = png_get_image_height(job->png, job->info);
    const uint64_t bits =
        uint64_t{png_get_channels(job->png, job->info)} * png_get_bit_depth(job->png, job->info);
    const unsigned __int128 raw_bytes = static_cast<unsigned __int128>(w0) * h0 * bits / 8;
    if (raw_bytes > static_cast<unsigned __int128>(kDeflateMaxRatio) * job->size) {
      SetBombError(job->error, w0, h0, job->size, "deflate expands at most 1032:1");
      png_destroy_read_struct(&job->png, &job->info, nullptr);
      return false;
    }
  }
  const int bit_depth = png_get_bit_depth(job->png, job->info);
  const int color_type = png_get_color_type(job->png, job->info);
  if (bit_depth == 16) png_set_strip_16(job->png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(job->png);
  if ((color_type & PNG_COLOR_MASK_COLOR) == 0 && bit_depth < 8)
    png_set_expand_gray_1_2_4_to_8(job->png);
  if ((color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
      png_get_valid(job->png, job->info, PNG_INFO_tRNS) != 0)
    png_set_strip_alpha(job->png);
  const bool is_color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
  if (job->flag == 0) {
    // OpenCV's conversion: BT.601 weights, no gamma handling.
    if (is_color) png_set_rgb_to_gray_fixed(job->png, 1, 29900, 58700);
  } else {
    if (!is_color) png_set_gray_to_rgb(job->png);
    if (!job->to_rgb) png_set_bgr(job->png);
  }
  png_set_interlace_handling(job->png);
  png_read_update_info(job->png, job->info);
  const uint64_t w = png_get_image_width(job->png, job->info);
  const uint64_t h = png_get_image_height(job->png, job->info);
  const uint64_t c = job->flag == 0 ? 1 : 3;
  if (png_get_channels(job->png, job->info) != c || png_get_bit_depth(job->png, job->info) != 8) {
    SetPngLayoutError(job->error, color_type, bit_depth);
    png_destroy_read_struct(&job->png, &job->info, nullptr);
    return false;
  }
  if (w == 0 || h == 0 || w * h * c > kMaxDecodedBytes) {
    SetSizeError(job->error, w, h);
    png_destroy_read_struct(&job->png, &job->info, nullptr);
    return false;
  }
  try {
    *job->out =
        NDArray(Shape{static_cast<int64_t>(h), static_cast<int64_t>(w), static_cast<int64_t>(c)},
                cpu(), DType::kUint8);
    job->rows->resize(h);
  } catch (...) {
    png_destroy_read_struct(&job->png, &job->info, nullptr);
    throw;
  }
  auto* base = static_cast<png_bytep>(job->out->data_ptr());
  for (uint64_t y = 0; y < h; ++y) (*job->rows)[y] = base + y * w * c;
  png_read_image(job->png, job->rows->data());
  png_read_end(job->png, nullptr);
  png_destroy_read_struct(&job->png, &job->info, nullptr);
  return true;
}

absl::StatusOr<NDArray> DecodePng(std::string_view bytes, int flag, bool to_rgb) {
  NDArray out;
  std::vector<png_bytep> rows;
  std::string error;
  auto job = std::make_unique<PngJob>();
  job->data = reinterpret_cast<const unsigned char*>(bytes.data());
  job->size = bytes.size();
  job->flag = flag;
  job->to_rgb = to_rgb;
  job->out = &out;
  job->rows = &rows;
  job->error = &error;
  if (!RunPng(job.get())) {
    return absl::InvalidArgumentError(
        StrCat("imdecode: corrupt or unsupported PNG data: ", error.empty() ? job->msg : error));
  }
  return out;
}

}  // namespace

absl::StatusOr<NDArray> imdecode(std::string_view bytes, int flag, bool to_rgb) {
  if (flag != 0 && flag != 1)
    return absl::InvalidArgumentError(
        StrCat("imdecode: flag must be 0 (grayscale) or 1 (color), got ", flag));
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
      static_cast<unsigned char>(bytes[1]) == 0xD8 && static_cast<unsigned char>(bytes[2]) == 0xFF)
    return DecodeJpeg(bytes, flag, to_rgb);
  static constexpr unsigned char kPngSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPngSig, 8) == 0)
    return DecodePng(bytes, flag, to_rgb);
  return absl::InvalidArgumentError(StrCat("imdecode: unknown image format (", bytes.size(),
                                           " bytes; expected JPEG or PNG data)"));
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int e = errno;
    const std::string why = std::strerror(e);
    if (e == ENOENT) return absl::NotFoundError(StrCat("cannot open '", path, "': ", why));
    if (e == EACCES) return absl::PermissionDeniedError(StrCat("cannot open '", path, "': ", why));
    return absl::UnavailableError(StrCat("cannot open '", path, "': ", why));
  }
  std::string out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return absl::DataLossError(StrCat("error reading '", path, "'"));
  return out;
}

absl::StatusOr<NDArray> imread(const std::string& path, int flag, bool to_rgb) {
  MX_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  absl::StatusOr<NDArray> img = imdecode(bytes, flag, to_rgb);
  if (!img.ok())
    return absl::Status(img.status().code(),
                        StrCat("imread '", path, "': ", img.status().message()));
  return img;
}

}  // namespace mxnet::gluon::data::vision
