#include "gluon/training/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "base/error.h"
#include "base/strings.h"
#include "ndarray/io.h"
#include "ndarray/random.h"

namespace mxnet::gluon {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
constexpr char kMetaName[] = "__checkpoint__";
constexpr char kFormat[] = "mxnet-cc-checkpoint";
constexpr char kParamPrefix[] = "param:";
constexpr char kTrainerPrefix[] = "trainer:";

absl::Status ErrnoStatus(const std::string& what) {
  const int e = errno;
  absl::StatusCode code = e == ENOENT   ? absl::StatusCode::kNotFound
                          : e == EACCES ? absl::StatusCode::kPermissionDenied
                          : e == ENOSPC ? absl::StatusCode::kResourceExhausted
                                        : absl::StatusCode::kUnavailable;
  return absl::Status(code, StrCat(what, ": ", std::strerror(e)));
}

// MXNET_CHECKPOINT_TEST_PAUSE_MS (see the header); 0 when unset or not a positive number.
int TestPauseMs() {
  const char* v = std::getenv("MXNET_CHECKPOINT_TEST_PAUSE_MS");
  if (!v) return 0;
  const int ms = std::atoi(v);
  return ms > 0 ? ms : 0;
}

void Pause(int ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

absl::Status WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write failed");
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

std::mt19937_64 ParseGenerator(const std::string& text) {
  std::mt19937_64 g;
  std::istringstream in(text);
  in >> g;
  if (in.fail())
    MX_THROW(absl::StatusCode::kInvalidArgument, "not a std::mt19937_64 state (", text.size(),
             " characters)");
  return g;
}

}  // namespace

std::string random_state(Device device) {
  random::GeneratorGuard g(device);
  std::ostringstream out;
  out << g.gen();
  return out.str();
}

void set_random_state(Device device, const std::string& state) {
  std::mt19937_64 parsed = ParseGenerator(state);
  random::GeneratorGuard g(device);
  g.gen() = parsed;
}

absl::Status write_file_durably(const std::string& path, std::string_view bytes) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp-";
    for (int k = 0; k < 6; ++k) tmp += kAlnum[rng() % (sizeof kAlnum - 1)];
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return ErrnoStatus(StrCat(path, ": cannot create ", tmp));
  }
  if (fd < 0) return absl::AlreadyExistsError(StrCat(path, ": cannot pick a temporary name"));
  auto fail = [&](const absl::Status& s) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return absl::Status(s.code(), StrCat(path, ": ", s.message()));
  };
  const int pause = TestPauseMs();
  const size_t half = bytes.size() / 2;
  absl::Status s = WriteAll(fd, bytes.data(), half);
  Pause(pause);
  if (s.ok()) s = WriteAll(fd, bytes.data() + half, bytes.size() - half);
  if (!s.ok()) return fail(s);
  if (::fsync(fd) != 0) return fail(ErrnoStatus("fsync failed"));
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) return fail(ErrnoStatus("close failed"));
  Pause(pause);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(ErrnoStatus(StrCat("cannot rename ", tmp, " to it")));
  // The rename is durable once the directory entry is on disk.
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return ErrnoStatus(StrCat(path, ": cannot open its directory to fsync it"));
  const int drc = ::fsync(dfd);
  ::close(dfd);
  if (drc != 0) return ErrnoStatus(StrCat(path, ": fsync of its directory failed"));
  return absl::OkStatus();
}

int remove_stale_temporaries(const std::string& path) {
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const std::string prefix = p.filename().string() + ".tmp-";
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0) {
      std::error_code rm;
      if (fs::remove(it->path(), rm)) ++n;
    }
  }
  return n;
}

absl::Status save_checkpoint(const std::string& path, const Block& net, const Trainer& trainer,
                             const CheckpointOptions& options) {
  std::vector<std::pair<std::string, NDArray>> records;
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    json meta = json::parse(options.meta, nullptr, /*allow_exceptions=*/false);
    if (meta.is_discarded() || !meta.is_object())
      MX_THROW(absl::StatusCode::kInvalidArgument, "save_checkpoint(", path,
               "): meta is not a JSON object");
    for (const auto& [name, p] : net.collect_params()) {
      if (!p->is_initialized())
        MX_THROW(absl::StatusCode::kFailedPrecondition, "save_checkpoint(", path, "): parameter '",
                 name, "' is not initialized");
      records.emplace_back(kParamPrefix + name, p->data());
    }
    json rng = json::array();
    for (const Device& d : options.rng_devices)
      rng.push_back(
          {{"dev_type", static_cast<int>(d.type)}, {"dev_id", d.id}, {"state", random_state(d)}});
    json head = {{"format", kFormat}, {"version", 1}, {"rng", rng}, {"meta", meta}};
    const std::string text = head.dump();
    records.emplace_back(
        kMetaName,
        NDArray::FromVector(std::vector<uint8_t>(text.begin(), text.end()),
                            Shape{static_cast<int64_t>(text.size())}, cpu(), DType::kUint8));
  }));
  MX_ASSIGN_OR_RETURN(auto states, trainer.states_records());
  for (auto& [name, a] : states) records.emplace_back(kTrainerPrefix + name, std::move(a));
  MX_ASSIGN_OR_RETURN(std::string bytes, nd::save_to_buffer(records));
  return write_file_durably(path, bytes);
}

namespace {

[[noreturn]] void Bad(const std::string& path, const std::string& what) {
  MX_THROW(absl::StatusCode::kInvalidArgument, path,
           ": not a complete training checkpoint: ", what);
}

// The "__checkpoint__" record's JSON, checked for format and version.
json ReadHead(const nd::NDArrayFile& file, const std::string& path) {
  const NDArray* head_arr = file.find(kMetaName);
  if (!head_arr || head_arr->dtype() != DType::kUint8)
    Bad(path, StrCat("no '", kMetaName, "' record"));
  std::vector<uint8_t> bytes = head_arr->ToVector<uint8_t>();
  json head = json::parse(std::string(bytes.begin(), bytes.end()), nullptr, false);
  if (head.is_discarded() || !head.is_object() || head.value("format", "") != kFormat ||
      !head.contains("meta") || !head["meta"].is_object())
    Bad(path, StrCat("malformed '", kMetaName, "' record"));
  if (head.value("version", 0) != 1)
    MX_THROW(absl::StatusCode::kUnimplemented, path, ": checkpoint version ",
             head.value("version", 0), " is not supported (expected 1)");
  return head;
}

}  // namespace

absl::StatusOr<std::string> read_checkpoint_meta(const std::string& path) {
  MX_ASSIGN_OR_RETURN(nd::NDArrayFile file, nd::load(path, {.allow_trailing_bytes = false}));
  std::string meta;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { meta = ReadHead(file, path)["meta"].dump(); }));
  return meta;
}

absl::StatusOr<std::string> load_checkpoint(const std::string& path, Block& net, Trainer& trainer) {
  MX_ASSIGN_OR_RETURN(nd::NDArrayFile file, nd::load(path, {.allow_trailing_bytes = false}));
  std::string meta_text;
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    auto bad = [&](auto&&... what) { Bad(path, StrCat(what...)); };
    json head = ReadHead(file, path);
    // Everything is checked before anything is changed.
    std::vector<std::pair<Device, std::mt19937_64>> gens;
    try {
      for (const json& r : head.at("rng")) {
        absl::StatusOr<DeviceType> type = DeviceTypeFromInt(r.at("dev_type").get<int>());
        if (!type.ok()) bad("random state: ", type.status().message());
        const Device d{*type, r.at("dev_id").get<int>()};
        std::mt19937_64 g;
        try {
          g = ParseGenerator(r.at("state").get<std::string>());
        } catch (const Error& e) {
          bad("random state of ", d.ToString(), ": ", e.what());
        }
        gens.emplace_back(d, g);
      }
      meta_text = head.at("meta").dump();
    } catch (const json::exception& e) {
      bad(e.what());
    }
    std::vector<std::pair<std::string, NDArray>> params, states;
    for (const auto& [name, a] : file.items()) {
      if (name.starts_with(kParamPrefix)) params.emplace_back(name.substr(6), a);
      if (name.starts_with(kTrainerPrefix)) states.emplace_back(name.substr(8), a);
    }
    ParameterDict own = net.collect_params();
    std::map<std::string, NDArray> by_name(params.begin(), params.end());
    for (const auto& [name, p] : own) {
      auto it = by_name.find(name);
      if (it == by_name.end()) bad("parameter '", name, "' is missing");
      if (!p->is_initialized()) bad("the net's parameter '", name, "' is not initialized");
      const NDArray& a = it->second;
      if (a.shape() != p->shape() || a.dtype() != p->data().dtype())
        bad("parameter '", name, "' is ", a.shape().ToString(), " ", DTypeName(a.dtype()),
            ", the net's is ", p->shape().ToString(), " ", DTypeName(p->data().dtype()));
    }
    if (by_name.size() != own.size()) {
      for (const auto& [name, a] : by_name)
        if (!own.get(name)) bad("parameter '", name, "' is not in the net");
    }
    ThrowIfError(trainer.load_states_records(states, path));
    // From here on nothing fails for a checked file.
    for (const auto& [name, p] : own)
      for (const NDArray& d : p->list_data()) by_name.at(name).copyto(d);
    for (const auto& [d, g] : gens) {
      random::GeneratorGuard guard(d);
      guard.gen() = g;
    }
  }));
  return meta_text;
}

}  // namespace mxnet::gluon
