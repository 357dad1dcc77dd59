#include "ndarray/io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/strings.h"

namespace mxnet::nd {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr uint32_t kV1 = 0xF993FAC8, kV2 = 0xF993FAC9, kV3 = 0xF993FACA;

std::string Msg(const absl::Status& s) {
  return std::string(s.message().data(), s.message().size());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runfiles-relative paths work because Bazel runs tests in the workspace's runfiles directory.
const char kMxDir[] = "ndarray/testdata/mx/";
const char kIoDir[] = "ndarray/testdata/io/";

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  std::string dir = StrCat(t ? t : "/tmp", "/io_test_", ::getpid());
  fs::create_directories(dir);
  return dir;
}

// The shared/ directory beside the workspace (real model files): $MXNET_SHARED_DIR, else
// <workspace>/../shared where the workspace comes from $BUILD_WORKSPACE_DIRECTORY or from
// resolving a runfile symlink back into the source tree, else /work/shared. "" if none exists.
std::string SharedDir() {
  std::vector<fs::path> candidates;
  if (const char* e = std::getenv("MXNET_SHARED_DIR")) candidates.emplace_back(e);
  if (const char* w = std::getenv("BUILD_WORKSPACE_DIRECTORY"))
    candidates.push_back(fs::path(w) / ".." / "shared");
  std::error_code ec;
  fs::path real = fs::canonical(StrCat(kMxDir, "manifest.json"), ec);
  if (!ec) {
    // <workspace>/ndarray/testdata/mx/manifest.json -> <workspace>
    fs::path ws = real.parent_path().parent_path().parent_path().parent_path();
    candidates.push_back(ws / ".." / "shared");
  }
  candidates.emplace_back("/work/shared");
  for (const auto& c : candidates)
    if (fs::is_directory(c, ec)) return fs::canonical(c, ec).string();
  return "";
}

// ---- Manifest comparison (tools/conformance/gen_ndarray_files.py, gen_npy_files.py). ----

bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

void ExpectArrayMatches(const json& want, const NDArray& a, const std::string& label) {
  SCOPED_TRACE(label);
  ASSERT_FALSE(a.is_none());
  ASSERT_EQ(std::string(DTypeName(a.dtype())), want["dtype"].get<std::string>());
  std::vector<int64_t> shape = want["shape"].get<std::vector<int64_t>>();
  ASSERT_EQ(a.shape(), Shape(shape));
  const json& vals = want["values"];
  ASSERT_EQ(static_cast<int64_t>(vals.size()), a.size());
  DType t = a.dtype();
  if (IsFloatingPoint(t)) {
    std::vector<double> got = a.ToVector<double>();
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(SameDouble(got[i], vals[i].get<double>()))
          << "element " << i << ": " << got[i] << " vs " << vals[i];
  } else if (t == DType::kUint8 || t == DType::kUint16 || t == DType::kUint32 ||
             t == DType::kUint64) {
    std::vector<uint64_t> got = a.ToVector<uint64_t>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], vals[i].get<uint64_t>()) << i;
  } else {  // signed ints and bool (0/1), compared as exact integers
    std::vector<int64_t> got = a.ToVector<int64_t>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], vals[i].get<int64_t>()) << i;
  }
  if (want.contains("bits")) {  // bfloat16: the raw words
    std::vector<uint16_t> raw(a.size());
    a.SyncCopyToCPU(raw.data(), a.nbytes());
    EXPECT_EQ(raw, want["bits"].get<std::vector<uint16_t>>());
  }
}

void ExpectFileMatches(const json& want, const NDArrayFile& f, const std::string& label) {
  SCOPED_TRACE(label);
  EXPECT_EQ(f.is_dict, want["kind"] == "dict");
  EXPECT_EQ(f.names, want["names"].get<std::vector<std::string>>());
  ASSERT_EQ(f.size(), want["arrays"].size());
  ASSERT_EQ(f.records.size(), f.size());
  for (size_t i = 0; i < f.size(); ++i)
    ExpectArrayMatches(want["arrays"][i], f.arrays[i], f.is_dict ? f.names[i] : StrCat("#", i));
}

json LoadManifest(const std::string& dir) { return json::parse(ReadFile(dir + "manifest.json")); }

// A sparse array's stored parts against the manifest (what MXNet's .data/.indices/.indptr give).
void ExpectSparsePartsMatch(const json& want, const NDArray& a, const std::string& label) {
  SCOPED_TRACE(label);
  ASSERT_EQ(std::string(StorageTypeName(a.stype())), want["stype"].get<std::string>());
  EXPECT_EQ(a.data().shape(), Shape(want["data_shape"].get<std::vector<int64_t>>()));
  std::vector<double> data = a.data().ToVector<double>();
  const json& wd = want["data"];
  ASSERT_EQ(data.size(), wd.size());
  for (size_t i = 0; i < data.size(); ++i) {
    EXPECT_TRUE(SameDouble(data[i], wd[i].get<double>())) << "data " << i;
  }
  EXPECT_EQ(a.indices().ToVector<int64_t>(), want["indices"].get<std::vector<int64_t>>());
  if (a.stype() == StorageType::kCSR) {
    EXPECT_EQ(a.indptr().ToVector<int64_t>(), want["indptr"].get<std::vector<int64_t>>());
  }
  for (int k = 0; k < a.num_aux(); ++k) {
    EXPECT_EQ(std::string(DTypeName(a.aux_type(k))), want["aux_dtypes"][k].get<std::string>());
  }
}

bool HasSparse(const json& file) {
  for (const auto& a : file["arrays"])
    if (a.contains("stype")) return true;
  return false;
}

// ---- Byte builders for hand-made files (docs/formats.md §2.1/§2.2). ----

struct Bytes {
  std::string b;
  template <typename T>
  Bytes& pod(T v) {
    b.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Bytes& u32(uint32_t v) { return pod(v); }
  Bytes& i32(int32_t v) { return pod(v); }
  Bytes& u64(uint64_t v) { return pod(v); }
  Bytes& i64(int64_t v) { return pod(v); }
  Bytes& raw(std::string_view s) {
    b.append(s);
    return *this;
  }
  Bytes& f32s(const std::vector<float>& v) {
    for (float x : v) pod(x);
    return *this;
  }
  Bytes& header(uint64_t n) { return u64(0x112).u64(0).u64(n); }
  Bytes& no_names() { return u64(0); }
  Bytes& names(const std::vector<std::string>& ns) {
    u64(ns.size());
    for (const auto& n : ns) u64(n.size()).raw(n);
    return *this;
  }
  // A dense V2/V3 record: magic, stype 0, shape, ctx, dtype flag, payload.
  Bytes& dense(uint32_t magic, const std::vector<int64_t>& dims, int32_t flag,
               std::string_view payload, int32_t dev_type = 1, int32_t dev_id = 0) {
    u32(magic).i32(0).i32(static_cast<int32_t>(dims.size()));
    for (int64_t d : dims) i64(d);
    return i32(dev_type).i32(dev_id).i32(flag).raw(payload);
  }
  size_t size() const { return b.size(); }
};

std::string F32Bytes(const std::vector<float>& v) { return Bytes().f32s(v).b; }

absl::StatusOr<NDArrayFile> Load(const std::string& bytes, const LoadOptions& o = {}) {
  return load_from_buffer(bytes, o, "t.params");
}

// ---- MXNet 1.9.1 reference files. ----

TEST(MxFiles, EveryFileMatchesTheManifest) {
  json man = LoadManifest(kMxDir);
  ASSERT_GE(man["files"].size(), 8u);
  for (const auto& [name, want] : man["files"].items()) {
    auto f = load(kMxDir + name);
    ASSERT_TRUE(f.ok()) << name << ": " << f.status();
    EXPECT_EQ(f->format, FileFormat::kNDArrayList);
    ExpectFileMatches(want, *f, name);
    EXPECT_EQ(f->bytes_consumed, want["size_bytes"].get<uint64_t>()) << name;
    EXPECT_EQ(f->trailing_bytes, 0u) << name;
    RecordVersion v = want["record_version"] == "V3" ? RecordVersion::kV3 : RecordVersion::kV2;
    for (size_t i = 0; i < f->size(); ++i) {
      EXPECT_EQ(f->records[i].version, v) << name << " #" << i;
      EXPECT_EQ(f->records[i].saved_device, cpu()) << name << " #" << i;
      std::string stype = want["arrays"][i].value("stype", "default");
      EXPECT_EQ(std::string(StorageTypeName(f->records[i].stype)), stype) << name << " #" << i;
    }
    EXPECT_EQ(f->records.empty() ? 0u : f->records[0].offset, f->records.empty() ? 0u : 24u);
  }
}

TEST(MxFiles, LoadFromBufferMatchesLoadFromPath) {
  for (const char* name : {"dict_v2.nd", "np_list_v3.nd", "sparse_v2.nd"}) {
    auto a = load(StrCat(kMxDir, name));
    auto b = load_from_buffer(ReadFile(StrCat(kMxDir, name)));
    ASSERT_TRUE(a.ok() && b.ok()) << name;
    ASSERT_EQ(a->size(), b->size());
    EXPECT_EQ(a->names, b->names);
    for (size_t i = 0; i < a->size(); ++i)
      EXPECT_EQ(a->arrays[i].ToVector<double>(), b->arrays[i].ToVector<double>());
  }
}

// Our writer reproduces MXNet's bytes exactly (same record kind, ctx, names), sparse records
// included (loaded with keep_sparse; docs/formats.md §2.5).
TEST(MxFiles, ResavingGivesByteIdenticalFiles) {
  json man = LoadManifest(kMxDir);
  LoadOptions keep;
  keep.keep_sparse = true;
  int sparse_files = 0;
  for (const auto& [name, want] : man["files"].items()) {
    sparse_files += HasSparse(want);
    std::string orig = ReadFile(kMxDir + name);
    auto f = load_from_buffer(orig, keep);
    ASSERT_TRUE(f.ok()) << f.status();
    SaveOptions o;
    o.version = want["record_version"] == "V3" ? RecordVersion::kV3 : RecordVersion::kV2;
    auto out = f->is_dict ? save_to_buffer(f->items(), o) : save_to_buffer(f->arrays, o);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(*out == orig) << name << ": " << out->size() << " vs " << orig.size() << " bytes";
  }
  EXPECT_EQ(sparse_files, 3);
}

// keep_sparse loads MXNet's sparse records as csr / row_sparse arrays with MXNet's stored parts.
TEST(MxFiles, SparseRecordsKeepMXNetsLayout) {
  json man = LoadManifest(kMxDir);
  LoadOptions keep;
  keep.keep_sparse = true;
  int checked = 0;
  for (const auto& [name, want] : man["files"].items()) {
    if (!HasSparse(want)) continue;
    auto f = load(kMxDir + name, keep);
    ASSERT_TRUE(f.ok()) << name << ": " << f.status();
    ExpectFileMatches(want, *f, name);  // logical dtype, shape and dense values
    for (size_t i = 0; i < f->size(); ++i) {
      const json& w = want["arrays"][i];
      if (!w.contains("stype")) continue;
      ExpectSparsePartsMatch(w, f->arrays[i], StrCat(name, " #", i));
      EXPECT_EQ(f->arrays[i].stype(), f->records[i].stype);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9);
}

// cast_storage (CastStorage) of the dense values gives the parts MXNet's tostype stored.
TEST(MxFiles, CastStorageMatchesMXNets) {
  json want = LoadManifest(kMxDir)["files"]["sparse_cast_v2.nd"];
  auto f = load(StrCat(kMxDir, "sparse_cast_v2.nd"));  // densified
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), 6u);
  for (size_t i = 0; i < f->size(); ++i) {
    const json& w = want["arrays"][i];
    ASSERT_EQ(f->arrays[i].stype(), StorageType::kDefault);
    StorageType st = ValueOrThrow(ParseStorageType(w["stype"].get<std::string>()));
    NDArray s = f->arrays[i].tostype(st);
    ExpectSparsePartsMatch(w, s, StrCat("cast #", i));
    ExpectArrayMatches(w, s.tostype(StorageType::kDefault), StrCat("back #", i));
  }
}

TEST(RoundTrip, SparseArraysOnlyGoToV2Records) {
  NDArray csr = NDArray::FromVector<float>({0, 1, 2, 0}, Shape({2, 2})).tostype(StorageType::kCSR);
  auto v2 = save_to_buffer(std::vector<NDArray>{csr});
  ASSERT_TRUE(v2.ok()) << v2.status();
  LoadOptions keep;
  keep.keep_sparse = true;
  auto back = load_from_buffer(*v2, keep);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->arrays[0].stype(), StorageType::kCSR);
  EXPECT_EQ(back->arrays[0].ToVector<float>(), (std::vector<float>{0, 1, 2, 0}));
  auto dense = load_from_buffer(*v2);  // default: densified, stype reported
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(dense->arrays[0].stype(), StorageType::kDefault);
  EXPECT_EQ(dense->records[0].stype, StorageType::kCSR);
  SaveOptions v3;
  v3.version = RecordVersion::kV3;
  auto r3 = save_to_buffer(std::vector<NDArray>{csr}, v3);
  ASSERT_FALSE(r3.ok());
  EXPECT_THAT(Msg(r3.status()), HasSubstr("array 0 is csr, which only V2 records"));
  SaveOptions npy;
  npy.format = FileFormat::kNpy;
  EXPECT_FALSE(save_to_buffer(std::vector<NDArray>{csr}, npy).ok());
}

TEST(MxFiles, SparseRecordsAreDensifiedOrRefused) {
  auto f = load(StrCat(kMxDir, "sparse_v2.nd"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->records[0].stype, StorageType::kCSR);
  EXPECT_EQ(f->records[1].stype, StorageType::kRowSparse);
  EXPECT_EQ(f->arrays[0].ToVector<float>(),
            (std::vector<float>{1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0}));
  LoadOptions o;
  o.densify_sparse = false;
  auto g = load(StrCat(kMxDir, "sparse_v2.nd"), o);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Msg(g.status()),
              HasSubstr("sparse_v2.nd: record 0 at byte 0x18: sparse storage type csr"));
}

// ---- The real GluonCV export. ----

class CifarParams : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string shared = SharedDir();
    if (shared.empty()) GTEST_SKIP() << "no shared/ directory (set MXNET_SHARED_DIR)";
    path_ = shared + "/data/models/cifar_resnet20_v1-0000.params";
    if (!fs::exists(path_)) GTEST_SKIP() << path_ << " is missing";
  }
  std::string path_;
};

TEST_F(CifarParams, LoadsAllArrays) {
  auto f = load(path_);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), 107u);
  ASSERT_TRUE(f->is_dict);
  EXPECT_EQ(f->names[0], "arg:cifarresnetv10_conv0_weight");
  EXPECT_EQ(f->arrays[0].shape(), Shape({16, 3, 3, 3}));
  EXPECT_EQ(f->arrays[0].dtype(), DType::kFloat32);
  int args = 0, auxs = 0;
  for (const auto& n : f->names) {
    args += StartsWith(n, "arg:");
    auxs += StartsWith(n, "aux:");
  }
  EXPECT_EQ(args, 65);
  EXPECT_EQ(auxs, 42);
  EXPECT_EQ(f->bytes_consumed, 1105597u);
  EXPECT_EQ(f->bytes_consumed, fs::file_size(path_));
  EXPECT_EQ(f->trailing_bytes, 0u);
  EXPECT_EQ(f->records[0].offset, 0x18u);
  EXPECT_EQ(f->records[1].offset, 0x710u);
  for (const auto& r : f->records) EXPECT_EQ(r.version, RecordVersion::kV2);
  ASSERT_NE(f->find("arg:cifarresnetv10_conv0_weight"), nullptr);
  EXPECT_EQ(f->find("nope"), nullptr);
  // Resaving (V2, cpu(0)) reproduces the file byte for byte.
  auto out = save_to_buffer(f->items());
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(*out == ReadFile(path_));
}

TEST_F(CifarParams, CorruptDtypeFlagNamesFileRecordAndOffset) {
  std::string b = ReadFile(path_);
  // Record 1 at 0x710: magic, stype, ndim 1, one dim, ctx, then the dtype flag at 0x72C.
  int32_t bad = 42;
  std::memcpy(&b[0x72C], &bad, 4);
  auto f = load_from_buffer(b, {}, "cifar.params");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      Msg(f.status()),
      "cifar.params: record 1 at byte 0x710: unknown dtype flag 42 at byte 0x72C (valid: 0..12)");
}

TEST_F(CifarParams, TruncationsFail) {
  std::string b = ReadFile(path_);
  for (size_t n = 0; n < b.size(); n += (n < 4096 ? 1 : 7919)) {
    auto f = load_from_buffer(std::string_view(b).substr(0, n), {}, "cifar.params");
    ASSERT_FALSE(f.ok()) << n;
    EXPECT_THAT(Msg(f.status()), HasSubstr("cifar.params: ")) << n;
  }
}

// ---- Round trips. ----

std::vector<DType> AllDTypes() {
  std::vector<DType> v;
  for (int i = 0; i < kNumDTypes; ++i) v.push_back(static_cast<DType>(i));
  return v;
}

NDArray Sample(DType t, const Shape& s, int seed) {
  std::vector<double> v(static_cast<size_t>(s.Size()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t == DType::kBool ? double((i + seed) % 2)
                             : double((int(i) * 3 + seed) % 50) -
                                   (IsSignedInteger(t) || IsFloatingPoint(t) ? 20 : 0);
  return NDArray::FromVector(v, s, cpu(), t);
}

std::string RawBytes(const NDArray& a) {
  std::string s(a.nbytes(), '\0');
  a.SyncCopyToCPU(s.data(), s.size());
  return s;
}

void ExpectSameArrays(const std::vector<NDArray>& a, const std::vector<NDArray>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].is_none(), b[i].is_none()) << i;
    if (a[i].is_none()) continue;
    EXPECT_EQ(a[i].dtype(), b[i].dtype()) << i;
    EXPECT_EQ(a[i].shape(), b[i].shape()) << i;
    EXPECT_TRUE(RawBytes(a[i]) == RawBytes(b[i])) << i;
  }
}

TEST(RoundTrip, EveryDtypeListAndDictV2AndV3) {
  std::vector<NDArray> arrays;
  std::vector<std::pair<std::string, NDArray>> named;
  int k = 0;
  for (DType t : AllDTypes()) {
    arrays.push_back(Sample(t, Shape{2, 3}, k));
    named.emplace_back(StrCat("p", k, ":", DTypeName(t)), Sample(t, Shape{3, 1, 2}, k));
    ++k;
  }
  arrays.push_back(NDArray(Shape{0, 4}, cpu(), DType::kInt32));  // zero-size
  arrays.push_back(NDArray());                                   // none
  named.emplace_back("", Sample(DType::kFloat32, Shape{1}, 0));  // empty name
  for (RecordVersion v : {RecordVersion::kV2, RecordVersion::kV3}) {
    SCOPED_TRACE(RecordVersionName(v));
    SaveOptions o;
    o.version = v;
    auto lb = save_to_buffer(arrays, o);
    ASSERT_TRUE(lb.ok()) << lb.status();
    auto l = load_from_buffer(*lb);
    ASSERT_TRUE(l.ok()) << l.status();
    EXPECT_FALSE(l->is_dict);
    EXPECT_TRUE(l->names.empty());
    ExpectSameArrays(arrays, l->arrays);
    for (const auto& r : l->records) EXPECT_EQ(r.version, v);

    auto db = save_to_buffer(named, o);
    ASSERT_TRUE(db.ok()) << db.status();
    auto d = load_from_buffer(*db);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_TRUE(d->is_dict);
    std::vector<NDArray> want;
    for (size_t i = 0; i < named.size(); ++i) {
      EXPECT_EQ(d->names[i], named[i].first);
      want.push_back(named[i].second);
    }
    ExpectSameArrays(want, d->arrays);
  }
}

TEST(RoundTrip, ScalarsNeedV3) {
  NDArray s = NDArray::FromVector(std::vector<double>{3.25}, Shape(), cpu(), DType::kFloat64);
  auto v2 = save_to_buffer(std::vector<NDArray>{s});
  ASSERT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(v2.status()), HasSubstr("0-d"));
  SaveOptions o;
  o.version = RecordVersion::kV3;
  auto v3 = save_to_buffer(std::vector<NDArray>{s}, o);
  ASSERT_TRUE(v3.ok());
  auto f = load_from_buffer(*v3);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->arrays[0].ndim(), 0);
  EXPECT_EQ(f->arrays[0].asscalar<double>(), 3.25);
}

TEST(RoundTrip, SaveRefusesBadRequests) {
  NDArray a = Sample(DType::kFloat32, Shape{2}, 0);
  auto dup = save_to_buffer({{"x", a}, {"x", a}});
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(dup.status()), HasSubstr("duplicate name 'x'"));
  SaveOptions o;
  o.version = RecordVersion::kV1;
  EXPECT_EQ(save_to_buffer(std::vector<NDArray>{a}, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = {};
  o.format = FileFormat::kNpy;
  EXPECT_EQ(save_to_buffer(std::vector<NDArray>{a, a}, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(save_to_buffer(std::vector<NDArray>{NDArray()}, o).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RoundTrip, EmptyDictLoadsAsEmptyList) {
  auto b = save_to_buffer(std::vector<std::pair<std::string, NDArray>>{});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->size(), 32u);
  auto f = load_from_buffer(*b);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->empty());
  EXPECT_FALSE(f->is_dict);
}

TEST(RoundTrip, NamedNpzAndListNpzAndNpy) {
  std::vector<std::pair<std::string, NDArray>> named;
  for (DType t : AllDTypes())
    named.emplace_back(StrCat("w_", DTypeName(t)), Sample(t, Shape{2, 2}, 1));
  named.emplace_back("scalar", Sample(DType::kFloat32, Shape(), 3));
  SaveOptions o;
  o.format = FileFormat::kNpz;
  auto z = save_to_buffer(named, o);
  ASSERT_TRUE(z.ok()) << z.status();
  auto f = load_from_buffer(*z);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->format, FileFormat::kNpz);
  ASSERT_EQ(f->size(), named.size());
  std::vector<NDArray> want;
  for (size_t i = 0; i < named.size(); ++i) {
    EXPECT_EQ(f->names[i], named[i].first);
    want.push_back(named[i].second);
  }
  ExpectSameArrays(want, f->arrays);

  auto zl = save_to_buffer(want, o);
  ASSERT_TRUE(zl.ok());
  auto fl = load_from_buffer(*zl);
  ASSERT_TRUE(fl.ok());
  EXPECT_EQ(fl->names[0], "arr_0");
  EXPECT_EQ(fl->names[13], "arr_13");

  o.format = FileFormat::kNpy;
  auto y = save_to_buffer(std::vector<NDArray>{want[4]}, o);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->size() % 64, want[4].nbytes() % 64);  // header padded to 64 bytes
  auto fy = load_from_buffer(*y);
  ASSERT_TRUE(fy.ok()) << fy.status();
  EXPECT_EQ(fy->format, FileFormat::kNpy);
  ExpectSameArrays({want[4]}, fy->arrays);
}

TEST(RoundTrip, ThroughFilesAtomically) {
  std::string dir = TmpDir() + "/atomic";
  fs::create_directories(dir);
  std::string path = dir + "/model.params";
  std::vector<NDArray> arrays = {Sample(DType::kFloat32, Shape{4, 4}, 0),
                                 Sample(DType::kInt64, Shape{3}, 1)};
  ASSERT_TRUE(save(path, arrays).ok());
  auto f = load(path);
  ASSERT_TRUE(f.ok()) << f.status();
  ExpectSameArrays(arrays, f->arrays);
  std::string before = ReadFile(path);
  // A failed save (0-d array in V2) leaves the old file and no temporary behind.
  NDArray scalar = Sample(DType::kFloat32, Shape(), 0);
  absl::Status s = save(path, std::vector<NDArray>{scalar});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(s), HasSubstr(path));
  EXPECT_TRUE(ReadFile(path) == before);
  // Overwrite with a dict; the NDArrayFile overload keeps the dict.
  ASSERT_TRUE(save(path, {{"a", arrays[0]}}).ok());
  auto g = load(path);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->is_dict);
  ASSERT_TRUE(save(path, *g).ok());
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "model.params");
  }
  EXPECT_EQ(entries, 1);
  // A directory that does not exist: kNotFound, nothing created.
  absl::Status nf = save(dir + "/missing/x.params", arrays);
  EXPECT_EQ(nf.code(), absl::StatusCode::kNotFound) << nf;
}

TEST(RoundTrip, WriteFailureLeavesNoPartialFile) {
  std::string dir = TmpDir() + "/efbig";
  fs::create_directories(dir);
  std::string path = dir + "/big.params";
  WriteFile(path, "old contents");
  // Make write() fail with EFBIG beyond 64 KiB (SIGXFSZ ignored), then restore the limit.
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 1 << 16;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
  absl::Status s =
      save(path, std::vector<NDArray>{NDArray(Shape{1 << 16}, cpu(), DType::kFloat32)});
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(Msg(s), HasSubstr("write failed"));
  EXPECT_EQ(ReadFile(path), "old contents");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) ++entries, (void)e;
  EXPECT_EQ(entries, 1);
}

TEST(Load, FileSystemErrors) {
  auto m = load("/nonexistent/dir/x.params");
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Msg(m.status()), HasSubstr("/nonexistent/dir/x.params: cannot open"));
  auto d = load(TmpDir());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Load, DeviceWithoutBackendIsAnError) {
  LoadOptions o;
  o.device = gpu(0);
  if (HasDeviceBackend(DeviceType::kGPU)) GTEST_SKIP() << "a GPU backend is linked";
  auto f = load(StrCat(kMxDir, "list_v2.nd"), o);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(Msg(f.status()), HasSubstr("cannot move arrays to gpu(0)"));
}

// ---- Older record kinds, built byte by byte per docs/formats.md §2.2. ----

TEST(Legacy, MeanImageLikeRecord) {
  // mean_224.nd's layout: u32 ndim 3, u32 dims, cpu(0), float32, data; one name "mean_img".
  std::vector<float> vals(3 * 4 * 5);
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = 100.0f + static_cast<float>(i) / 4;
  Bytes b;
  b.header(1).u32(3).u32(3).u32(4).u32(5).i32(1).i32(0).i32(0).f32s(vals).names({"mean_img"});
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ(f->names[0], "mean_img");
  EXPECT_EQ(f->records[0].version, RecordVersion::kLegacy);
  EXPECT_EQ(f->arrays[0].shape(), Shape({3, 4, 5}));
  EXPECT_EQ(f->arrays[0].ToVector<float>(), vals);
}

TEST(Legacy, SixUnnamedRecordsLikeLegacyNdarrayV0) {
  Bytes b;
  b.header(6);
  for (int r = 0; r < 6; ++r) {
    std::vector<float> v(128, static_cast<float>(r));
    b.u32(1).u32(128).i32(1).i32(0).i32(0).f32s(v);
  }
  b.no_names();
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), 6u);
  EXPECT_FALSE(f->is_dict);
  EXPECT_EQ(f->arrays[5].ToVector<float>(), std::vector<float>(128, 5.0f));
}

TEST(Legacy, V1RecordAndNoneRecords) {
  Bytes b;
  b.header(5);
  b.u32(kV1).u32(2).i64(2).i64(2).i32(1).i32(0).i32(6).i64(-1).i64(2).i64(1LL << 40).i64(4);
  b.u32(0);                                 // legacy none (ndim 0)
  b.u32(kV2).i32(0).i32(0);                 // V2 none (ndim 0)
  b.u32(kV3).i32(0).i32(-1);                // V3 none (ndim -1)
  b.u32(kV3).i32(0).i32(2).i64(3).i64(-1);  // V3 none (a dim of -1)
  b.names({"v1", "l", "v2", "v3", "v3dim"});
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->records[0].version, RecordVersion::kV1);
  EXPECT_EQ(f->arrays[0].dtype(), DType::kInt64);
  EXPECT_EQ(f->arrays[0].ToVector<int64_t>(), (std::vector<int64_t>{-1, 2, 1LL << 40, 4}));
  for (size_t i = 1; i < 5; ++i) EXPECT_TRUE(f->arrays[i].is_none()) << i;
  EXPECT_EQ(f->records[1].version, RecordVersion::kLegacy);
  EXPECT_EQ(f->records[3].version, RecordVersion::kV3);
}

TEST(Legacy, V3ScalarAndSavedContexts) {
  Bytes b;
  b.header(3);
  b.dense(kV3, {}, 0, F32Bytes({7.5f}));         // 0-d scalar
  b.dense(kV2, {2}, 0, F32Bytes({1, 2}), 2, 1);  // saved on gpu(1)
  b.dense(kV2, {1}, 0, F32Bytes({3}), 3, 0);     // cpu_pinned(0)
  b.no_names();
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->arrays[0].ndim(), 0);
  EXPECT_EQ(f->arrays[0].asscalar<float>(), 7.5f);
  EXPECT_EQ(f->records[1].saved_device, gpu(1));
  EXPECT_EQ(f->arrays[1].device(), cpu());
  EXPECT_EQ(f->records[2].saved_device, cpu_pinned(0));
}

TEST(Legacy, TrailingBytesPolicy) {
  Bytes b;
  b.header(1).dense(kV2, {1}, 0, F32Bytes({1})).no_names().raw("junk");
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->trailing_bytes, 4u);
  EXPECT_EQ(f->bytes_consumed, b.size() - 4);
  LoadOptions strict;
  strict.allow_trailing_bytes = false;
  auto g = Load(b.b, strict);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(Msg(g.status()), "t.params: 4 unexpected bytes after the names section at byte 0x44");
}

TEST(Legacy, SparseRowSparseAndCsrHandBuilt) {
  Bytes b;
  b.header(2);
  // row_sparse 4x2, rows 1 and 3 stored, int64 indices.
  b.u32(kV2).i32(1).i32(2).i64(2).i64(2).i32(2).i64(4).i64(2).i32(1).i32(0).i32(0);
  b.i32(6).i32(1).i64(2);  // aux 0: int64, shape (2,)
  b.f32s({1, 2, 3, 4}).i64(1).i64(3);
  // csr 2x3 with int32 indptr/indices: [[0, 5, 0], [6, 0, 7]].
  b.u32(kV2).i32(2).i32(1).i64(3).i32(2).i64(2).i64(3).i32(1).i32(0).i32(0);
  b.i32(4).i32(1).i64(3).i32(4).i32(1).i64(3);
  b.f32s({5, 6, 7}).i32(0).i32(1).i32(3).i32(1).i32(0).i32(2);
  b.no_names();
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->arrays[0].ToVector<float>(), (std::vector<float>{0, 0, 1, 2, 0, 0, 3, 4}));
  EXPECT_EQ(f->arrays[1].ToVector<float>(), (std::vector<float>{0, 5, 0, 6, 0, 7}));
  // keep_sparse: int32 aux arrays become int64, values and positions as stored.
  LoadOptions keep;
  keep.keep_sparse = true;
  auto k = Load(b.b, keep);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->arrays[1].stype(), StorageType::kCSR);
  EXPECT_EQ(k->arrays[1].indptr().ToVector<int64_t>(), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(k->arrays[1].indices().ToVector<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(k->arrays[1].indices().dtype(), DType::kInt64);
  EXPECT_EQ(k->arrays[0].stype(), StorageType::kRowSparse);
  EXPECT_EQ(k->arrays[0].data().ToVector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

// A storage shape of size 0 with values present (MXNet's save can write one while the array's
// producer still runs, see tools/conformance/gen_ndarray_files.py): the storage shape comes from
// the aux shapes, as MXNet's loader takes it.
TEST(Legacy, SparseZeroStorageShapeTakesTheAuxShapes) {
  Bytes b;
  b.header(2);
  // csr 2x2 [[0, 3], [-4, 0]] int32 values, storage shape written as (0,).
  b.u32(kV2).i32(2).i32(1).i64(0).i32(2).i64(2).i64(2).i32(1).i32(0).i32(4);
  b.i32(6).i32(1).i64(3).i32(6).i32(1).i64(2);
  b.i32(3).i32(-4).i64(0).i64(1).i64(2).i64(1).i64(0);
  // row_sparse 3x2, storage shape written as (0, 2), one row stored.
  b.u32(kV2).i32(1).i32(2).i64(0).i64(2).i32(2).i64(3).i64(2).i32(1).i32(0).i32(0);
  b.i32(6).i32(1).i64(1);
  b.f32s({8, 9}).i64(2);
  b.no_names();
  auto f = Load(b.b);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->arrays[0].ToVector<int32_t>(), (std::vector<int32_t>{0, 3, -4, 0}));
  EXPECT_EQ(f->arrays[1].ToVector<float>(), (std::vector<float>{0, 0, 0, 0, 8, 9}));
  EXPECT_EQ(f->bytes_consumed, b.size());
}

// ---- Hostile, truncated and corrupt inputs. ----

struct BadCase {
  std::string name;
  std::string bytes;
  absl::StatusCode code;
  std::string expect;  // substring of the message
  LoadOptions options = {};
};

std::vector<BadCase> BadCases() {
  std::vector<BadCase> v;
  auto add = [&](std::string name, const Bytes& b, absl::StatusCode c, std::string expect,
                 LoadOptions o = {}) {
    v.push_back({std::move(name), b.b, c, std::move(expect), o});
  };
  const auto kLoss = absl::StatusCode::kDataLoss;
  const std::string one = F32Bytes({1});
  add("empty", Bytes(), kLoss, "t.params: header: truncated: the file is 0 bytes");
  add("short header", Bytes().u64(0x112).u64(0), kLoss, "shorter than the 24-byte header");
  add("wrong magic", Bytes().u64(0x113).u64(0).u64(0).u64(0), absl::StatusCode::kInvalidArgument,
      "not an MXNet NDArray file: magic 0x113 at byte 0x0");
  add("huge count", Bytes().header(uint64_t{1} << 60).no_names(), kLoss,
      "array count 1152921504606846976 at byte 0x10 cannot fit in the remaining 8 bytes");
  add("count vs remaining", Bytes().header(20).dense(kV2, {1}, 0, one).no_names(), kLoss,
      "array count 20 at byte 0x10 cannot fit in the remaining 44 bytes");
  add("missing record", Bytes().header(2).dense(kV2, {1}, 0, one), kLoss,
      "record 1 at byte 0x3C: truncated: record magic / ndim needs 4 bytes at byte 0x3C");
  add("negative ndim", Bytes().header(1).u32(kV2).i32(0).i32(-5).u64(0).u64(0), kLoss,
      "record 0 at byte 0x18: shape: negative ndim -5 at byte 0x20");
  add("ndim too large", Bytes().header(1).u32(kV2).i32(0).i32(33).u64(0).u64(0), kLoss,
      "shape: ndim 33 at byte 0x20 exceeds 32");
  add("negative dim", Bytes().header(1).dense(kV2, {2, -2}, 0, "").no_names(), kLoss,
      "shape: dim 1 is negative (-2) at byte 0x2C");
  add("dims overflow",
      Bytes().header(1).dense(kV2, {1LL << 40, 1LL << 40, 1LL << 40}, 0, "").no_names(), kLoss,
      "overflows 64-bit byte counts");
  add("zero-size dims overflow", Bytes().header(1).dense(kV2, {1LL << 62, 4, 0}, 0, "").no_names(),
      kLoss, "overflows 64-bit byte counts");
  add("dims exceed file", Bytes().header(1).dense(kV2, {1LL << 40, 1LL << 20}, 0, "").no_names(),
      kLoss,
      "truncated: data of shape (1099511627776, 1048576) float32 needs 4611686018427387904 bytes");
  add("unknown dtype", Bytes().header(1).dense(kV2, {1}, 42, one).no_names(), kLoss,
      "record 0 at byte 0x18: unknown dtype flag 42 at byte 0x34");
  add("negative dtype", Bytes().header(1).dense(kV2, {1}, -1, one).no_names(), kLoss,
      "unknown dtype flag -1");
  add("unknown ctx", Bytes().header(1).dense(kV2, {1}, 0, one, 4, 0).no_names(), kLoss,
      "unknown ctx: device type 4 at byte 0x2C");
  add("negative dev id", Bytes().header(1).dense(kV2, {1}, 0, one, 1, -3).no_names(), kLoss,
      "negative device id -3 at byte 0x30");
  add("short payload", Bytes().header(1).dense(kV2, {4}, 0, one).no_names(), kLoss,
      "truncated: data of shape (4,) float32 needs 16 bytes at byte 0x38 but only 12 remain");
  add("unknown stype", Bytes().header(1).u32(kV2).i32(7).u64(0).u64(0), kLoss,
      "unknown storage type 7 at byte 0x1C");
  add("sparse V3", Bytes().header(1).u32(kV3).i32(1).u64(0).u64(0), kLoss,
      "V3 record with storage type row_sparse");
  add("legacy ndim too big", Bytes().header(1).u32(0x12345678).u64(0), kLoss,
      "first u32 0x12345678 at byte 0x18 is no record magic");
  add("legacy dims cut", Bytes().header(1).u32(3).u32(1).u32(2), kLoss,
      "truncated: legacy dims needs 12 bytes at byte 0x1C but only 8 remain");
  add("missing names", Bytes().header(1).dense(kV2, {1}, 0, one), kLoss,
      "names section at byte 0x3C: truncated: name count needs 8 bytes");
  add("bad name count", Bytes().header(1).dense(kV2, {1}, 0, one).u64(2).u64(1).raw("a"), kLoss,
      "name count 2 at byte 0x3C for 1 arrays (must be 0 for a list or 1 for a dict)");
  add("name too long", Bytes().header(1).dense(kV2, {1}, 0, one).u64(1).u64(1000).raw("ab"), kLoss,
      "name 0 at byte 0x44: length 1000 exceeds the remaining 2 bytes");
  add("huge name length", Bytes().header(1).dense(kV2, {1}, 0, one).u64(1).u64(~0ull), kLoss,
      "length 18446744073709551615 exceeds the remaining 0 bytes");
  add("name cut", Bytes().header(1).dense(kV2, {1}, 0, one).u64(1).u32(5), kLoss,
      "truncated: length of name 0 needs 8 bytes");
  // Sparse records with inconsistent parts.
  {
    Bytes b;  // row_sparse with an index outside the rows
    b.header(1).u32(kV2).i32(1).i32(2).i64(1).i64(2).i32(2).i64(4).i64(2).i32(1).i32(0).i32(0);
    b.i32(6).i32(1).i64(1).f32s({1, 2}).i64(9).no_names();
    add("row_sparse index", b, kLoss, "row_sparse index 0 is 9, outside [0, 4)");
  }
  {
    Bytes b;  // csr with a decreasing indptr whose middle entry points past nnz
    b.header(1).u32(kV2).i32(2).i32(1).i64(1).i32(2).i64(2).i64(3).i32(1).i32(0).i32(0);
    b.i32(6).i32(1).i64(3).i32(6).i32(1).i64(1).f32s({1}).i64(0).i64(50).i64(1).i64(0).no_names();
    add("csr indptr", b, kLoss, "csr indptr decreases at row 1");
  }
  {
    Bytes b;  // row_sparse claiming a 2^40 x 2^10 dense shape with no rows stored
    b.header(1).u32(kV2).i32(1).i32(2).i64(0).i64(1024).i32(2).i64(1LL << 40).i64(1024);
    b.i32(1).i32(0).i32(0).i32(6).i32(1).i64(0).no_names();
    add("densify bomb", b, absl::StatusCode::kResourceExhausted,
        "would densify to 4503599627370496 bytes");
  }
  {
    LoadOptions strict;
    strict.allow_trailing_bytes = false;
    add("trailing (strict)", Bytes().header(0).no_names().raw("x"), kLoss,
        "1 unexpected bytes after the names section at byte 0x20", strict);
  }
  // .npy
  const std::string npy_ok_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  auto npy = [](int major, int minor, std::string_view header, std::string_view data = "") {
    Bytes b;
    b.raw(std::string("\x93NUMPY", 6))
        .raw(std::string(1, char(major)))
        .raw(std::string(1, char(minor)));
    if (major == 1)
      b.pod(static_cast<uint16_t>(header.size()));
    else
      b.u32(static_cast<uint32_t>(header.size()));
    return b.raw(header).raw(data);
  };
  add("npy version", npy(4, 0, npy_ok_header), absl::StatusCode::kUnimplemented,
      "unsupported .npy format version 4.0");
  add("npy header length", Bytes().raw(std::string("\x93NUMPY\x01\x00\xff\xff", 10)).raw("{}"),
      kLoss, "truncated: .npy header length 65535 at byte 0xA exceeds the remaining 2 bytes");
  add("npy malformed", npy(1, 0, "{'descr': '<f4' 'shape': ()}"), kLoss,
      "malformed .npy header at byte 0xA: expected ',' or '}' at column 16");
  add("npy missing key", npy(1, 0, "{'descr': '<f4', 'shape': (2,)}"), kLoss,
      "must have exactly the keys descr, fortran_order and shape");
  add("npy extra key", npy(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
      kLoss, "unexpected key 'x'");
  add("npy negative dim", npy(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"),
      kLoss, "shape dims must be non-negative integers");
  add("npy nesting", npy(2, 0, std::string(5000, '(')), kLoss, "nesting too deep");
  add("npy short data", npy(1, 0, npy_ok_header, "abc"), kLoss,
      "truncated: .npy data of shape (2,) float32 needs 8 bytes at byte 0x44 but only 3 remain");
  add("npy dims overflow",
      npy(1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"),
      kLoss, "overflows byte counts");
  add("npy huge int",
      npy(1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }"),
      kLoss, "integer out of range");
  add("npy unterminated", npy(1, 0, "{'descr': '<f8"), kLoss, "unterminated string");
  add("npy truncated magic", Bytes().raw("\x93NUM"), kLoss,
      "truncated: .npy magic and version needs 8 bytes");
  // .npz
  add("npz garbage", Bytes().raw(std::string("PK\x03\x04", 4)).raw(std::string(100, 'x')), kLoss,
      "t.params: not a consistent zip archive");
  return v;
}

TEST(Hostile, TableOfBadInputs) {
  for (const BadCase& c : BadCases()) {
    SCOPED_TRACE(c.name);
    auto f = load_from_buffer(c.bytes, c.options, "t.params");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), c.code) << f.status();
    EXPECT_THAT(Msg(f.status()), HasSubstr(c.expect));
    EXPECT_TRUE(StartsWith(Msg(f.status()), "t.params: ")) << f.status();
  }
}

// Found by //tools/fuzz:ndarray_params_fuzzer (slow inputs, > 1 s with ASan): a 314-byte file
// whose CSR record 0 declares a (3, 3801092) float32 array: the reader densified 45.6 MB of zeros
// before finding record 1 corrupt. LoadOptions::max_densified_bytes is what bounds this (the
// fuzzer uses 16 MiB; the default is 1 GiB, docs/reliability.md).
TEST(Hostile, FuzzFoundSparseRecordIsBoundedByMaxDensifiedBytes) {
  const std::string b = ReadFile("ndarray/testdata/fuzz/csr_densifies_46mb_314_bytes.params");
  ASSERT_EQ(b.size(), 314u);
  auto f = load_from_buffer(b, {}, "t.params");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss) << f.status();
  EXPECT_THAT(Msg(f.status()), HasSubstr("t.params: record 1 at byte 0xB0"));
  LoadOptions capped;
  capped.max_densified_bytes = uint64_t{16} << 20;
  auto g = load_from_buffer(b, capped, "t.params");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kResourceExhausted) << g.status();
  EXPECT_THAT(Msg(g.status()), HasSubstr("t.params: record 0 at byte 0x18"));
}

TEST(Hostile, EveryPrefixOfEveryReferenceFileFailsWithAnOffset) {
  json man = LoadManifest(kMxDir);
  std::vector<std::string> paths;
  for (const auto& [name, want] : man["files"].items()) paths.push_back(kMxDir + name);
  for (const char* n : {"f32_v1.npy", "i64_v2.npy", "u8_v3.npy", "scalar_f64.npy", "u64_4d.npy"})
    paths.push_back(StrCat(kIoDir, n));
  for (const auto& p : paths) {
    std::string b = ReadFile(p);
    ASSERT_FALSE(b.empty()) << p;
    for (size_t n = 0; n < b.size(); ++n) {
      auto f = load_from_buffer(std::string_view(b).substr(0, n), {}, "t.params");
      ASSERT_FALSE(f.ok()) << p << " prefix " << n;
      EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss)
          << p << " prefix " << n << ": " << f.status();
      if (n > 0) {
        EXPECT_THAT(Msg(f.status()), HasSubstr("byte 0x")) << p << " prefix " << n;
      }
    }
  }
}

TEST(Hostile, EveryPrefixOfAnNpzFails) {
  for (const char* n : {"dtypes_stored.npz", "dtypes_deflated.npz", "list.npz"}) {
    std::string b = ReadFile(StrCat(kIoDir, n));
    for (size_t k = 0; k < b.size(); ++k) {
      auto f = load_from_buffer(std::string_view(b).substr(0, k), {}, "t.npz");
      ASSERT_FALSE(f.ok()) << n << " prefix " << k;
    }
  }
}

TEST(Hostile, NpzCorruptMembers) {
  std::string b = ReadFile(StrCat(kIoDir, "list.npz"));
  // Flip one byte of arr_0's data (stored member, so the CRC no longer matches).
  std::string bad = b;
  // Local header: 30 bytes, name, extra field; then the member: 128-byte npy header, data.
  size_t lh = bad.find("PK\x03\x04");
  ASSERT_EQ(lh, 0u);
  auto u16 = [&](size_t at) {
    return static_cast<uint8_t>(bad[at]) | static_cast<uint8_t>(bad[at + 1]) << 8;
  };
  size_t data_at = lh + 30 + u16(lh + 26) + u16(lh + 28) + 128 + 4;
  ASSERT_LT(data_at, bad.size());
  bad[data_at] ^= 0x5A;
  auto f = load_from_buffer(bad, {}, "t.npz");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Msg(f.status()), HasSubstr("t.npz: member 'arr_0.npy' (entry 0)"));

  // Members that are not plain .npy arrays.
  std::vector<NDArray> one = {Sample(DType::kFloat32, Shape{2}, 0)};
  SaveOptions o;
  o.format = FileFormat::kNpz;
  auto sparse = save_to_buffer({{"w/data", one[0]}}, o);
  ASSERT_TRUE(sparse.ok());
  auto g = load_from_buffer(*sparse, {}, "t.npz");
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Msg(g.status()), HasSubstr("sparse arrays (stored as the folder 'w/')"));
}

// ---- NumPy files made by numpy 1.23.5 (tools/conformance/gen_npy_files.py). ----

TEST(NumPyFiles, EveryFileMatchesTheManifestOrIsRefused) {
  json man = LoadManifest(kIoDir);
  ASSERT_GE(man["files"].size(), 10u);
  for (const auto& [name, want] : man["files"].items()) {
    SCOPED_TRACE(name);
    auto f = load(kIoDir + name);
    if (want.contains("error")) {
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.status().code(), absl::StatusCode::kUnimplemented) << f.status();
      EXPECT_THAT(Msg(f.status()), HasSubstr(want["error"].get<std::string>()));
      EXPECT_THAT(Msg(f.status()), HasSubstr(kIoDir + name + ": .npy header at byte 0xA"));
      continue;
    }
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->format, EndsWith(name, ".npz") ? FileFormat::kNpz : FileFormat::kNpy);
    ExpectFileMatches(want, *f, name);
    EXPECT_EQ(f->trailing_bytes, 0u);
  }
}

TEST(NumPyFiles, OurNpyIsByteIdenticalToNumpys) {
  for (const char* name :
       {"f32_v1.npy", "scalar_f64.npy", "empty_f32.npy", "bool.npy", "u64_4d.npy"}) {
    std::string orig = ReadFile(StrCat(kIoDir, name));
    auto f = load_from_buffer(orig);
    ASSERT_TRUE(f.ok()) << name << f.status();
    SaveOptions o;
    o.format = FileFormat::kNpy;
    auto out = save_to_buffer(f->arrays, o);
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(*out == orig) << name;
  }
}

}  // namespace
}  // namespace mxnet::nd
