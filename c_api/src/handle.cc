#include "c_api/src/handle.h"

#include <sys/mman.h>

#include <cinttypes>
#include <cstdio>

#include "base/strings.h"

namespace mxc {
namespace {

static_assert(sizeof(void*) == 8, "mxc handles need a 64-bit address space");
constexpr int kSpaceBits = kTagBits + kGenBits + kIndexBits;  // 38: 256 GiB of address space
constexpr uintptr_t kSpaceSize = uintptr_t{1} << kSpaceBits;

// The reserved range handles live in: PROT_NONE, never committed, never touched, never unmapped.
// 0 when the reservation failed (then no handle can be made).
uintptr_t SpaceBase() {
  static const uintptr_t base = [] {
    void* p =
        mmap(nullptr, kSpaceSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? uintptr_t{0} : reinterpret_cast<uintptr_t>(p);
  }();
  return base;
}

constexpr const char* kTagNames[64] = {
    "no type",   "mxc_ctx",       "mxc_ndarray", "mxc_op",        "mxc_symbol",  "mxc_infer_result",
    "mxc_block", "mxc_parameter", "mxc_trainer", "mxc_transform", "mxc_dataset", "mxc_dataloader",
};

}  // namespace

const char* TagName(Tag tag) {
  auto i = static_cast<size_t>(tag);
  return i < 64 && kTagNames[i] ? kTagNames[i] : "unknown handle type";
}

std::string Arg::str() const {
  return index < 0 ? std::string(name) : mxnet::StrCat(name, "[", index, "]");
}

bool TryDecode(const void* h, Tag tag, Decoded* out) noexcept {
  uintptr_t v = reinterpret_cast<uintptr_t>(h), base = SpaceBase();
  if (!h || !base || v < base || v - base >= kSpaceSize) return false;
  uintptr_t off = v - base;
  if ((off & ((1u << kTagBits) - 1)) != static_cast<uintptr_t>(tag)) return false;
  out->gen = static_cast<uint32_t>((off >> kTagBits) & kGenMask);
  out->index = static_cast<uint32_t>(off >> (kTagBits + kGenBits));
  return true;
}

Decoded Decode(const void* h, Tag tag, const Arg& arg) {
  Decoded d;
  if (TryDecode(h, tag, &d)) return d;
  auto fail = [&](const auto&... what) {
    MX_THROW(absl::StatusCode::kInvalidArgument, "argument '", arg.str(), "' ", what...);
  };
  if (!h) fail("is NULL (expected an ", TagName(tag), " handle)");
  uintptr_t v = reinterpret_cast<uintptr_t>(h), base = SpaceBase();
  if (!base || v < base || v - base >= kSpaceSize) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, v);
    fail("(", hex, ") is not an mxc handle (expected an ", TagName(tag), ")");
  }
  fail("is an ", TagName(static_cast<Tag>((v - base) & ((1u << kTagBits) - 1))),
       " handle, expected ", TagName(tag));
  MX_CHECK(false, "unreachable");
  return d;
}

void* Encode(Tag tag, uint32_t index, uint32_t gen) {
  uintptr_t base = SpaceBase();
  if (!base)
    MX_THROW(absl::StatusCode::kResourceExhausted,
             "cannot reserve the address range for mxc handles (mmap failed)");
  uintptr_t off = (uintptr_t{index} << (kTagBits + kGenBits)) |
                  (uintptr_t{gen & kGenMask} << kTagBits) | static_cast<uintptr_t>(tag);
  return reinterpret_cast<void*>(base + off);
}

std::atomic<uint64_t>& LiveHandles() {
  static std::atomic<uint64_t> n{0};
  return n;
}
std::atomic<uint64_t>& BadFrees() {
  static std::atomic<uint64_t> n{0};
  return n;
}

void ThrowStale(Tag tag, const Arg& arg) {
  MX_THROW(absl::StatusCode::kInvalidArgument, "argument '", arg.str(), "' is a freed ",
           TagName(tag), " handle (used after its last _free, or freed twice)");
}

void ThrowTableFull(Tag tag) {
  MX_THROW(absl::StatusCode::kResourceExhausted, "too many live ", TagName(tag), " handles (",
           kMaxSlots, ")");
}

void ThrowRefOverflow(Tag tag, const Arg& arg) {
  MX_THROW(absl::StatusCode::kResourceExhausted, "argument '", arg.str(),
           "': the reference count of this ", TagName(tag), " overflows");
}

}  // namespace mxc
