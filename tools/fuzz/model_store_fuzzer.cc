// Fuzz target: the model store's SHA-1 check (model_zoo::sha1_hex, sha1_file and the lookup
// internal::FindVerifiedFile behind get_model_file). The input is the content of a parameter
// file (and, for the lookup, its first bytes also give a claimed hash string).
//
// Invariants checked on every input:
//  - sha1_hex(bytes) equals an independent SHA-1 written here from FIPS 180-4 (differential);
//  - sha1_file of the bytes written to a file gives the same hash;
//  - the lookup accepts the file under its true hash, refuses it with kDataLoss naming both
//    hashes when one hex digit after the 8th differs, and never crashes for an arbitrary claimed
//    hash string (too short, not hex, with NULs or '/').
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "modelzoo/model_store.h"
#include "tools/fuzz/fuzz_check.h"

namespace mz = mxnet::gluon::model_zoo;

namespace {

// FIPS 180-4 §6.1, written from the standard (independent of OpenSSL).
std::string RefSha1(std::string_view msg) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string m(msg);
  const uint64_t bits = static_cast<uint64_t>(msg.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>(bits >> (8 * i)));
  auto rotl = [](uint32_t x, int n) { return (x << n) | (x >> (32 - n)); };
  for (size_t blk = 0; blk < m.size(); blk += 64) {
    uint32_t w[80];
    for (int t = 0; t < 16; ++t)
      w[t] = (uint32_t{static_cast<uint8_t>(m[blk + 4 * t])} << 24) |
             (uint32_t{static_cast<uint8_t>(m[blk + 4 * t + 1])} << 16) |
             (uint32_t{static_cast<uint8_t>(m[blk + 4 * t + 2])} << 8) |
             uint32_t{static_cast<uint8_t>(m[blk + 4 * t + 3])};
    for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; ++t) {
      uint32_t f, k;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6;
      }
      uint32_t tmp = rotl(a, 5) + f + e + k + w[t];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  std::string hex;
  char buf[9];
  for (uint32_t v : h) {
    std::snprintf(buf, sizeof buf, "%08x", v);
    hex += buf;
  }
  return hex;
}

std::string g_root;  // a private temporary directory

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = getenv("TEST_TMPDIR");
  if (!tmp || !*tmp) tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/model_store_fuzz.XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  FUZZ_CHECK(dir != nullptr, "mkdtemp failed");
  g_root = dir;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string ref = RefSha1(bytes);
  const std::string got = mz::sha1_hex(bytes);
  FUZZ_CHECK(got == ref, "sha1_hex %s, reference %s", got.c_str(), ref.c_str());

  // The file as the store keeps it: <root>/<name>-<sha1[:8]>.params.
  const std::string name = "fuzznet";
  const std::string path = g_root + "/" + name + "-" + ref.substr(0, 8) + ".params";
  FILE* f = std::fopen(path.c_str(), "wb");
  FUZZ_CHECK(f != nullptr, "cannot write %s", path.c_str());
  FUZZ_CHECK(std::fwrite(data, 1, size, f) == size, "short write");
  std::fclose(f);
  auto file_hash = mz::sha1_file(path);
  FUZZ_CHECK(file_hash.ok() && *file_hash == ref, "sha1_file differs");
  auto ok = mz::internal::FindVerifiedFile(name, ref, g_root);
  FUZZ_CHECK(ok.ok() && *ok == path, "the true hash is refused: %s",
             ok.status().ToString().c_str());
  std::string wrong = ref;
  const size_t at = 8 + size % 32;
  wrong[at] = wrong[at] == '0' ? '1' : '0';
  auto bad = mz::internal::FindVerifiedFile(name, wrong, g_root);
  FUZZ_CHECK(!bad.ok() && bad.status().code() == absl::StatusCode::kDataLoss &&
                 bad.status().message().find(ref) != std::string_view::npos &&
                 bad.status().message().find(wrong) != std::string_view::npos,
             "a wrong hash is not kDataLoss naming both: %s", bad.status().ToString().c_str());
  // An arbitrary claimed hash string (the input's first bytes).
  std::string_view claimed = bytes.substr(0, std::min<size_t>(size, 48));
  auto any = mz::internal::FindVerifiedFile(name, claimed, g_root);
  if (any.ok()) FUZZ_CHECK(claimed == ref, "accepted a hash that is not the file's");
  std::remove(path.c_str());
  return 0;
}
