#include "ndarray/zip.h"

#include <zip.h>

#include <cstring>
#include <ctime>

#include "base/strings.h"

namespace mxnet::nd::zip_internal {
namespace {

std::string ErrorText(zip_error_t* e) {
  const char* s = zip_error_strerror(e);
  return s ? std::string(s) : std::string("unknown libzip error");
}

class LibzipMember final : public ZipMemberReader {
 public:
  explicit LibzipMember(zip_file_t* f) : f_(f) {}
  ~LibzipMember() override { zip_fclose(f_); }
  absl::Status Read(void* dst, size_t n) override {
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      zip_int64_t got = zip_fread(f_, p, n);
      if (got < 0)
        return absl::DataLossError(
            StrCat("cannot read zip member: ", ErrorText(zip_file_get_error(f_))));
      if (got == 0) return absl::DataLossError("zip member ends early");
      p += got;
      n -= static_cast<size_t>(got);
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    char extra;
    zip_int64_t got = zip_fread(f_, &extra, 1);  // EOF makes libzip compare the CRC
    if (got < 0)
      return absl::DataLossError(
          StrCat("zip member is corrupt: ", ErrorText(zip_file_get_error(f_))));
    if (got > 0) return absl::DataLossError("zip member is longer than its declared size");
    return absl::OkStatus();
  }

 private:
  zip_file_t* f_;
};

class LibzipReader final : public ZipReader {
 public:
  explicit LibzipReader(zip_t* z) : z_(z) {}
  ~LibzipReader() override { zip_discard(z_); }

  size_t num_entries() const override {
    zip_int64_t n = zip_get_num_entries(z_, 0);
    return n < 0 ? 0 : static_cast<size_t>(n);
  }

  absl::StatusOr<ZipEntry> Stat(size_t index) override {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z_, index, 0, &st) != 0)
      return absl::DataLossError(
          StrCat("cannot read zip entry ", index, ": ", ErrorText(zip_get_error(z_))));
    constexpr zip_uint64_t kNeed =
        ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((st.valid & kNeed) != kNeed || st.name == nullptr)
      return absl::DataLossError(StrCat("zip entry ", index, " lacks its name or sizes"));
    ZipEntry e;
    e.name = st.name;
    e.size = st.size;
    e.comp_size = st.comp_size;
    e.method = st.comp_method;
    return e;
  }

  absl::StatusOr<std::unique_ptr<ZipMemberReader>> Open(size_t index) override {
    zip_file_t* f = zip_fopen_index(z_, index, 0);
    if (f == nullptr)
      return absl::DataLossError(
          StrCat("cannot open zip entry ", index, ": ", ErrorText(zip_get_error(z_))));
    return std::unique_ptr<ZipMemberReader>(new LibzipMember(f));
  }

 private:
  zip_t* z_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ZipReader>> ZipReader::Open(std::span<const uint8_t> bytes) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  if (src == nullptr) {
    std::string msg = ErrorText(&err);
    zip_error_fini(&err);
    return absl::ResourceExhaustedError(StrCat("cannot read zip archive: ", msg));
  }
  // ZIP_CHECKCONS: cross-check the central directory against the local headers.
  zip_t* z = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (z == nullptr) {
    std::string msg = ErrorText(&err);
    zip_error_fini(&err);
    zip_source_free(src);
    return absl::DataLossError(StrCat("not a consistent zip archive: ", msg));
  }
  zip_error_fini(&err);
  return std::unique_ptr<ZipReader>(new LibzipReader(z));
}

absl::StatusOr<std::string> WriteStoredZip(
    const std::vector<std::pair<std::string, std::string>>& members) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
  if (out == nullptr) {
    zip_error_fini(&err);
    return absl::ResourceExhaustedError("cannot create zip buffer");
  }
  zip_source_keep(out);  // survives zip_close, so the result can be read back
  zip_t* z = zip_open_from_source(out, ZIP_TRUNCATE, &err);
  if (z == nullptr) {
    std::string msg = ErrorText(&err);
    zip_error_fini(&err);
    zip_source_free(out);
    zip_source_free(out);
    return absl::InternalError(StrCat("cannot create zip archive: ", msg));
  }
  zip_error_fini(&err);
  auto fail = [&](std::string what) {
    std::string msg = StrCat(what, ": ", ErrorText(zip_get_error(z)));
    zip_discard(z);
    zip_source_free(out);
    return absl::InternalError(msg);
  };
  // 1980-01-01 00:00 local time: the smallest DOS timestamp, so the output is reproducible.
  std::tm tm{};
  tm.tm_year = 80;
  tm.tm_mon = 0;
  tm.tm_mday = 1;
  tm.tm_isdst = -1;
  time_t stamp = std::mktime(&tm);
  for (const auto& [name, data] : members) {
    zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
    if (s == nullptr) return fail(StrCat("cannot add zip member '", name, "'"));
    zip_int64_t idx = zip_file_add(z, name.c_str(), s, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(s);
      return fail(StrCat("cannot add zip member '", name, "'"));
    }
    if (zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_mtime(z, static_cast<zip_uint64_t>(idx), stamp, 0) != 0)
      return fail(StrCat("cannot set zip member '", name, "' options"));
  }
  if (zip_close(z) != 0) return fail("cannot write zip archive");
  // Read the finished archive back out of the buffer source.
  std::string result;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_source_stat(out, &st) != 0 || (st.valid & ZIP_STAT_SIZE) == 0 ||
      zip_source_open(out) != 0) {
    zip_source_free(out);
    return absl::InternalError("cannot read back the zip archive");
  }
  result.resize(st.size);
  size_t done = 0;
  while (done < result.size()) {
    zip_int64_t got = zip_source_read(out, result.data() + done, result.size() - done);
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  zip_source_close(out);
  zip_source_free(out);
  if (done != result.size()) return absl::InternalError("cannot read back the zip archive");
  return result;
}

}  // namespace mxnet::nd::zip_internal
