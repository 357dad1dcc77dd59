/* The public headers compile as strict C (this file is built with -std=c99 and -std=c11,
 * -pedantic-errors -Werror) and agree with the library's version. */
#include "mxc/mxc.h"

#include <stdio.h>

int main(void) {
  mxc_status* s = mxc_abi_check(MXC_ABI_MAJOR, MXC_ABI_MINOR);
  int ok = s == NULL && mxc_abi_version() == MXC_ABI_VERSION;
  mxc_status_free(s);
  printf("%d passed, %d failed\n", ok, !ok);
  return !ok;
}
