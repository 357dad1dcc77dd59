#include "modelzoo/model_store.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "base/strings.h"

namespace mxnet::gluon::model_zoo {
namespace {

namespace fs = std::filesystem;

// Streaming SHA-1 over OpenSSL's EVP interface (SHA1() itself is deprecated in OpenSSL 3).
class Sha1 {
 public:
  Sha1() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha1(), nullptr) != 1) ok_ = false;
  }
  void Update(const void* data, size_t n) {
    if (ok_ && n > 0 && EVP_DigestUpdate(ctx_.get(), data, n) != 1) ok_ = false;
  }
  // 40 lowercase hex digits, or "" if OpenSSL failed.
  std::string HexDigest() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!ok_ || EVP_DigestFinal_ex(ctx_.get(), md, &len) != 1) return "";
    static const char* kHex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += kHex[md[i] >> 4];
      out += kHex[md[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
  bool ok_ = true;
};

std::string ExpandUser(const std::string& path) {
  if (path.empty() || path[0] != '~' || (path.size() > 1 && path[1] != '/')) return path;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + path.substr(1);
}

std::string ResolveRoot(const std::string& root) {
  return ExpandUser(root.empty() ? default_root() : root);
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& model_sha1_table() {
  // MXNet 1.9.1 python/mxnet/gluon/model_zoo/model_store.py (_model_sha1), unchanged since 1.3.
  static const auto* table = new std::vector<std::pair<std::string, std::string>>{
      {"alexnet", "44335d1f0046b328243b32a26a4fbd62d9057b45"},
      {"densenet121", "f27dbf2dbd5ce9a80b102d89c7483342cd33cb31"},
      {"densenet161", "b6c8a95717e3e761bd88d145f4d0a214aaa515dc"},
      {"densenet169", "2603f878403c6aa5a71a124c4a3307143d6820e9"},
      {"densenet201", "1cdbc116bc3a1b65832b18cf53e1cb8e7da017eb"},
      {"inceptionv3", "ed47ec45a937b656fcc94dabde85495bbef5ba1f"},
      {"mobilenet0.25", "9f83e440996887baf91a6aff1cccc1c903a64274"},
      {"mobilenet0.5", "8e9d539cc66aa5efa71c4b6af983b936ab8701c3"},
      {"mobilenet0.75", "529b2c7f4934e6cb851155b22c96c9ab0a7c4dc2"},
      {"mobilenet1.0", "6b8c5106c730e8750bcd82ceb75220a3351157cd"},
      {"mobilenetv2_1.0", "36da4ff1867abccd32b29592d79fc753bca5a215"},
      {"mobilenetv2_0.75", "e2be7b72a79fe4a750d1dd415afedf01c3ea818d"},
      {"mobilenetv2_0.5", "aabd26cd335379fcb72ae6c8fac45a70eab11785"},
      {"mobilenetv2_0.25", "ae8f9392789b04822cbb1d98c27283fc5f8aa0a7"},
      {"resnet18_v1", "a0666292f0a30ff61f857b0b66efc0228eb6a54b"},
      {"resnet34_v1", "48216ba99a8b1005d75c0f3a0c422301a0473233"},
      {"resnet50_v1", "0aee57f96768c0a2d5b23a6ec91eb08dfb0a45ce"},
      {"resnet101_v1", "d988c13d6159779e907140a638c56f229634cb02"},
      {"resnet152_v1", "671c637a14387ab9e2654eafd0d493d86b1c8579"},
      {"resnet18_v2", "a81db45fd7b7a2d12ab97cd88ef0a5ac48b8f657"},
      {"resnet34_v2", "9d6b80bbc35169de6b6edecffdd6047c56fdd322"},
      {"resnet50_v2", "ecdde35339c1aadbec4f547857078e734a76fb49"},
      {"resnet101_v2", "18e93e4f48947e002547f50eabbcc9c83e516aa6"},
      {"resnet152_v2", "f2695542de38cf7e71ed58f02893d82bb409415e"},
      {"squeezenet1.0", "264ba4970a0cc87a4f15c96e25246a1307caf523"},
      {"squeezenet1.1", "33ba0f93753c83d86e1eb397f38a667eaf2e9376"},
      {"vgg11", "dd221b160977f36a53f464cb54648d227c707a05"},
      {"vgg11_bn", "ee79a8098a91fbe05b7a973fed2017a6117723a8"},
      {"vgg13", "6bc5de58a05a5e2e7f493e2d75a580d83efde38c"},
      {"vgg13_bn", "7d97a06c3c7a1aecc88b6e7385c2b373a249e95e"},
      {"vgg16", "e660d4569ccb679ec68f1fd3cce07a387252a90a"},
      {"vgg16_bn", "7f01cf050d357127a73826045c245041b0df7363"},
      {"vgg19", "ad2f660d101905472b83590b59708b71ea22b2e5"},
      {"vgg19_bn", "f360b758e856f1074a85abd5fd873ed1d98297c3"},
  };
  return *table;
}

namespace {
const std::string* FindSha1(std::string_view name) {
  for (const auto& [n, h] : model_sha1_table())
    if (n == name) return &h;
  return nullptr;
}
}  // namespace

absl::StatusOr<std::string> short_hash(std::string_view name) {
  const std::string* h = FindSha1(name);
  if (!h) return absl::NotFoundError(StrCat("Pretrained model for ", name, " is not available."));
  return h->substr(0, 8);
}

std::string default_root() {
  const char* home = std::getenv("MXNET_HOME");
  std::string base = home && *home ? std::string(home) : ExpandUser("~/.mxnet");
  return (fs::path(base) / "models").string();
}

std::string sha1_hex(std::string_view bytes) {
  Sha1 s;
  s.Update(bytes.data(), bytes.size());
  return s.HexDigest();
}

absl::StatusOr<std::string> sha1_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) {
    int e = errno;
    std::string msg = StrCat("cannot open '", path, "': ", std::strerror(e));
    if (e == ENOENT) return absl::NotFoundError(msg);
    if (e == EACCES) return absl::PermissionDeniedError(msg);
    return absl::InternalError(msg);
  }
  Sha1 s;
  std::vector<char> buf(1 << 16);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) s.Update(buf.data(), n);
  if (std::ferror(f.get())) return absl::DataLossError(StrCat("read error in '", path, "'"));
  std::string hex = s.HexDigest();
  if (hex.empty())
    return absl::InternalError(StrCat("SHA-1 of '", path, "': OpenSSL digest failed"));
  return hex;
}

namespace internal {

std::string DownloadUrl(std::string_view file_name) {
  const char* env = std::getenv("MXNET_GLUON_REPO");
  std::string repo =
      env && *env ? env : "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/";
  if (repo.back() != '/') repo += '/';
  return StrCat(repo, "gluon/models/", file_name, ".zip");
}

absl::StatusOr<std::string> FindVerifiedFile(std::string_view name, std::string_view sha1,
                                             const std::string& root) {
  std::string dir = ResolveRoot(root);
  std::string file_name = StrCat(name, "-", sha1.substr(0, 8));
  std::string path = (fs::path(dir) / (file_name + ".params")).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return absl::NotFoundError(
        StrCat("Pretrained weights for model '", name, "' not found: expected file '", file_name,
               ".params' in directory '", dir, "'. This build does not download; fetch ",
               DownloadUrl(file_name),
               ", unzip it into that directory (or pass another root), and retry."));
  }
  auto actual = sha1_file(path);
  if (!actual.ok()) return actual.status();
  if (*actual != sha1) {
    return absl::DataLossError(
        StrCat("Pretrained weights for model '", name, "': '", path, "' has SHA-1 ", *actual,
               " but MXNet's model store expects ", sha1,
               " (the file is corrupt or not the published one); delete it and "
               "download it again from ",
               DownloadUrl(file_name)));
  }
  return path;
}

}  // namespace internal

absl::StatusOr<std::string> get_model_file(std::string_view name, const std::string& root) {
  const std::string* h = FindSha1(name);
  if (!h) return absl::NotFoundError(StrCat("Pretrained model for ", name, " is not available."));
  return internal::FindVerifiedFile(name, *h, root);
}

absl::Status purge(const std::string& root) {
  std::string dir = ResolveRoot(root);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::OkStatus();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".params") continue;
    std::error_code rm;
    fs::remove(entry.path(), rm);
    if (rm)
      return absl::InternalError(
          StrCat("purge: cannot delete '", entry.path().string(), "': ", rm.message()));
  }
  if (ec) return absl::InternalError(StrCat("purge: cannot list '", dir, "': ", ec.message()));
  return absl::OkStatus();
}

}  // namespace mxnet::gluon::model_zoo
