// Writes NDArray files with our writer (ndarray/io.h) for tools/conformance/check_ours.sh, which
// has real MXNet 1.9.1 (and numpy, for .npy/.npz) read them back and compare with manifests.
//
//   io_conformance_writer OUT_DIR MX_REF_DIR [PARAMS_FILE]
//
// OUT_DIR/resaved/<name>: every MXNet reference file of MX_REF_DIR (ndarray/testdata/mx) loaded
//   (sparse records kept sparse: LoadOptions::keep_sparse) and saved again by us with the same
//   record version (checked against MX_REF_DIR/manifest.json and MXNet's bytes).
// OUT_DIR/fresh/<name> + <name>.json: files made from scratch (every dtype MXNet 1.9.1 supports,
//   edge values, unsorted and non-ASCII names, zero-size and 0-d arrays; csr and row_sparse arrays
//   in ours_sparse_v2.params), V2 and V3, with a single-entry manifest each (check_read_ours.py
//   format).
// OUT_DIR/numpy/<name> + <name>.json: .npy/.npz files (numpy dtypes only) for check_npy_ours.py.
// OUT_DIR/params/<basename>: PARAMS_FILE (e.g. the real cifar_resnet20_v1-0000.params) resaved.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "ndarray/io.h"
#include "ndarray/sparse.h"

namespace {

using mxnet::DType;
using mxnet::NDArray;
using mxnet::Shape;
using mxnet::StrCat;
using json = nlohmann::json;
namespace fs = std::filesystem;
namespace nd = mxnet::nd;

json Describe(const NDArray& a) {
  json e;
  e["dtype"] = std::string(mxnet::DTypeName(a.dtype()));
  e["shape"] = a.shape().ToVector();
  DType t = a.dtype();
  if (mxnet::IsFloatingPoint(t)) {
    e["values"] = a.ToVector<double>();
  } else if (t == DType::kUint8 || t == DType::kUint16 || t == DType::kUint32 ||
             t == DType::kUint64) {
    e["values"] = a.ToVector<uint64_t>();
  } else {
    e["values"] = a.ToVector<int64_t>();
  }
  if (t == DType::kBFloat16) {
    std::vector<uint16_t> bits(static_cast<size_t>(a.size()));
    a.SyncCopyToCPU(bits.data(), a.nbytes());
    e["bits"] = bits;
  }
  if (a.is_sparse()) {  // the stored parts MXNet must read back
    e["stype"] = std::string(mxnet::StorageTypeName(a.stype()));
    e["data"] = Describe(a.data())["values"];
    e["indices"] = a.indices().ToVector<int64_t>();
    if (a.stype() == mxnet::StorageType::kCSR) e["indptr"] = a.indptr().ToVector<int64_t>();
  }
  return e;
}

json Manifest(const std::vector<std::pair<std::string, NDArray>>& items, bool dict,
              nd::RecordVersion v) {
  json m;
  m["kind"] = dict ? "dict" : "list";
  m["names"] = json::array();
  m["arrays"] = json::array();
  for (const auto& [n, a] : items) {
    if (dict) m["names"].push_back(n);
    m["arrays"].push_back(Describe(a));
  }
  if (v == nd::RecordVersion::kV2 || v == nd::RecordVersion::kV3)
    m["record_version"] = std::string(nd::RecordVersionName(v));
  return m;
}

template <typename T>
NDArray Make(const std::vector<T>& v, const Shape& s, DType t) {
  return NDArray::FromVector(v, s, mxnet::cpu(), t);
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "io_conformance_writer: %s\n", std::string(s.message()).c_str());
  return 1;
}

void WriteJson(const fs::path& p, const json& j) { std::ofstream(p) << j.dump(1) << "\n"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT_DIR MX_REF_DIR [PARAMS_FILE]\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1], ref = argv[2];
  for (const char* sub : {"resaved", "fresh", "numpy", "params"}) fs::create_directories(out / sub);
  int written = 0;

  // 1. MXNet's own files, loaded and saved again.
  json man = json::parse(std::ifstream(ref / "manifest.json"));
  nd::LoadOptions keep;
  keep.keep_sparse = true;
  for (const auto& [name, want] : man["files"].items()) {
    auto f = nd::load((ref / name).string(), keep);
    if (!f.ok()) return Fail(f.status());
    nd::SaveOptions o;
    o.version = want["record_version"] == "V3" ? nd::RecordVersion::kV3 : nd::RecordVersion::kV2;
    absl::Status s = nd::save((out / "resaved" / name).string(), *f, o);
    if (!s.ok()) return Fail(s);
    ++written;
  }

  // 2. Fresh files. Names deliberately unsorted, one empty-ish, one non-ASCII.
  const float fmax = std::numeric_limits<float>::max();
  const int64_t i64min = std::numeric_limits<int64_t>::min(),
                i64max = std::numeric_limits<int64_t>::max();
  std::vector<std::pair<std::string, NDArray>> items = {
      {"zeta", Make<float>({0.0f, -0.0f, 1.0f, -2.5f, fmax, 1.17549435e-38f, 1e-45f, 3.14159f},
                           Shape{2, 4}, DType::kFloat32)},
      {"arg:conv0_weight",
       Make<float>({0.5f, -1.25f, 2.0f, 7.0f, -3.0f, 0.1f}, Shape{1, 2, 1, 3}, DType::kFloat32)},
      {"aux:bn_moving_var", Make<double>({0.0, -0.0, 0.1, -1e300, 5e-324, 3.141592653589793},
                                         Shape{3, 2}, DType::kFloat64)},
      {"half", Make<double>({0.0, -0.0, 65504.0, -65504.0, 6.103515625e-05, 5.960464477539063e-08},
                            Shape{6}, DType::kFloat16)},
      {"bytes", Make<int64_t>({0, 255, 1, 128}, Shape{2, 2}, DType::kUint8)},
      {"idx32", Make<int64_t>({std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max(), 0, -1},
                              Shape{4}, DType::kInt32)},
      {"small", Make<int64_t>({-128, 127, 0, -1}, Shape{4}, DType::kInt8)},
      {"idx64",
       Make<int64_t>({i64min, i64max, (int64_t{1} << 53) + 1, -1}, Shape{2, 2}, DType::kInt64)},
      {"mask", Make<bool>({true, false, false, true, true, false}, Shape{2, 3}, DType::kBool)},
      {"brain",
       Make<float>({0.0f, 1.0f, -2.0f, 0.1f, 3.0e38f, -1.0e-38f}, Shape{6}, DType::kBFloat16)},
      {"zero_rows", NDArray(Shape{0, 3}, mxnet::cpu(), DType::kFloat32)},
      {"a", Make<float>({-7.5f}, Shape{1}, DType::kFloat32)},
      {"unicode_\xc3\xa9", Make<float>({1.0f, 2.0f}, Shape{2}, DType::kFloat32)},
  };
  auto write = [&](const std::string& name, const std::vector<std::pair<std::string, NDArray>>& its,
                   bool dict, nd::SaveOptions o) -> absl::Status {
    fs::path p = out / (o.format == nd::FileFormat::kNDArrayList ? "fresh" : "numpy") / name;
    absl::Status s;
    if (dict) {
      s = nd::save(p.string(), its, o);
    } else {
      std::vector<NDArray> arrays;
      for (const auto& it : its) arrays.push_back(it.second);
      s = nd::save(p.string(), arrays, o);
    }
    if (!s.ok()) return s;
    json m =
        Manifest(its, dict,
                 o.format == nd::FileFormat::kNDArrayList ? o.version : nd::RecordVersion::kLegacy);
    if (o.format == nd::FileFormat::kNpz && !dict) {  // numpy's savez(*arrays) names
      m["kind"] = "dict";
      for (size_t i = 0; i < its.size(); ++i) m["names"].push_back(StrCat("arr_", i));
    }
    WriteJson(p.string() + ".json", m);
    ++written;
    return absl::OkStatus();
  };
  nd::SaveOptions v2, v3;
  v3.version = nd::RecordVersion::kV3;
  absl::Status s;
  if (!(s = write("ours_dict_v2.params", items, true, v2)).ok()) return Fail(s);
  if (!(s = write("ours_list_v2.nd", items, false, v2)).ok()) return Fail(s);
  auto items3 = items;
  items3.insert(items3.begin() + 1, {"scalar", Make<float>({3.25f}, Shape(), DType::kFloat32)});
  items3.push_back({"scalar_i64", Make<int64_t>({-7}, Shape(), DType::kInt64)});
  if (!(s = write("ours_dict_v3.params", items3, true, v3)).ok()) return Fail(s);
  if (!(s = write("ours_list_v3.nd", items3, false, v3)).ok()) return Fail(s);
  // Sparse (V2 only): from parts, from dense by cast_storage, all-zero, other dtypes, 3-d.
  using mxnet::StorageType;
  auto i64 = [](std::vector<int64_t> v) {
    return Make<int64_t>(v, Shape{static_cast<int64_t>(v.size())}, DType::kInt64);
  };
  std::vector<std::pair<std::string, NDArray>> sparse = {
      {"csr", mxnet::csr_matrix(Make<float>({1.5f, -0.0f, 3.0f, 1e-45f}, Shape{4}, DType::kFloat32),
                                i64({4, 0, 2, 3}), i64({0, 1, 1, 4}), Shape{3, 5})},
      {"rsp",
       mxnet::row_sparse_array(Make<double>({1, 2, 3, 4, 5, 6}, Shape{2, 3}, DType::kFloat64),
                               i64({0, 6}), Shape{7, 3})},
      {"cast_csr",
       Make<int64_t>({0, 9, 0, -8, 0, 0}, Shape{2, 3}, DType::kInt32).tostype(StorageType::kCSR)},
      {"cast_rsp3", Make<float>({0, 0, 0, 0, 0.25f, 0, 0, 0}, Shape{4, 1, 2}, DType::kFloat32)
                        .tostype(StorageType::kRowSparse)},
      {"zero_csr", mxnet::sparse_zeros(StorageType::kCSR, Shape{3, 2})},
      {"zero_rsp",
       mxnet::sparse_zeros(StorageType::kRowSparse, Shape{2, 4}, mxnet::cpu(), DType::kFloat16)},
      {"dense", Make<float>({1, 2}, Shape{2}, DType::kFloat32)},
  };
  if (!(s = write("ours_sparse_v2.params", sparse, true, v2)).ok()) return Fail(s);
  if (!(s = write("ours_sparse_list_v2.nd", sparse, false, v2)).ok()) return Fail(s);

  // 3. NumPy formats (numpy has no bfloat16: leave it out).
  std::vector<std::pair<std::string, NDArray>> np_items;
  for (const auto& it : items3)
    if (it.second.dtype() != DType::kBFloat16) np_items.push_back(it);
  np_items.push_back({"u16", Make<int64_t>({0, 65535, 7}, Shape{3}, DType::kUint16)});
  np_items.push_back(
      {"u64", Make<uint64_t>({0, std::numeric_limits<uint64_t>::max()}, Shape{2}, DType::kUint64)});
  np_items.push_back({"i16", Make<int64_t>({-32768, 32767}, Shape{1, 2}, DType::kInt16)});
  nd::SaveOptions npz, npy;
  npz.format = nd::FileFormat::kNpz;
  npy.format = nd::FileFormat::kNpy;
  if (!(s = write("ours_dict.npz", np_items, true, npz)).ok()) return Fail(s);
  if (!(s = write("ours_list.npz", np_items, false, npz)).ok()) return Fail(s);
  if (!(s = write("ours_f64.npy", {np_items[3]}, false, npy)).ok()) return Fail(s);
  if (!(s = write("ours_scalar.npy", {np_items[1]}, false, npy)).ok()) return Fail(s);

  // 4. A real params file, resaved.
  if (argc > 3) {
    auto f = nd::load(argv[3]);
    if (!f.ok()) return Fail(f.status());
    s = nd::save((out / "params" / fs::path(argv[3]).filename()).string(), *f);
    if (!s.ok()) return Fail(s);
    ++written;
  }
  std::printf("io_conformance_writer: wrote %d files under %s\n", written, out.c_str());
  return 0;
}
