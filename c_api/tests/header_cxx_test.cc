// The public headers compile as C++ (extern "C", noexcept declarations).
#include <cstdio>
#include <type_traits>

#include "mxc/mxc.h"

static_assert(noexcept(mxc_abi_version()), "mxc functions are noexcept in C++");
static_assert(std::is_standard_layout_v<mxc_op_info>, "public structs are plain C structs");

int main() {
  mxc_status* s = mxc_abi_check(MXC_ABI_MAJOR, MXC_ABI_MINOR);
  bool ok = s == nullptr && mxc_abi_version() == MXC_ABI_VERSION;
  mxc_status_free(s);
  std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
  return ok ? 0 : 1;
}
