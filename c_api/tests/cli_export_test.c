/* A model built, initialized, hybridized and exported through the C API alone, read back by the
 * C++ CLI (`mxnet predict`, //tools/mxnet) on inputs saved through the C API: the CLI's outputs
 * equal the C API's own outputs (same kernels and graph: exact up to 1e-6). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check.h"

int main(void) {
  enum { B = 4, D = 5, O = 3 };
  float xv[B * D], want[B * O], got[B * O];
  int64_t sx[2] = {B, D};
  char prefix[1024], sym[1100], params[1100], in_path[1100], out_path[1100], cmd[16384];
  const char* tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  const char* data_name[1] = {"data"};
  mxc_ctx_options co;
  mxc_ctx* ctx = NULL;
  mxc_block* net;
  mxc_hybridize_options ho;
  mxc_ndarray *x, *y = NULL, **loaded = NULL;
  char** names = NULL;
  size_t n = 0, count = 0;
  int i, rc;
  uint64_t live0 = live_handles();
  net = make_mlp("8", "3");
  for (i = 0; i < B * D; ++i) xv[i] = (float)((i * 13) % 7) / 3 - 1;
  x = make_f32(xv, sx, 2);
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.has_seed = 1;
  co.seed = 5;
  CHECK_OK(mxc_ctx_create(&co, &ctx));
  CHECK_OK(mxc_block_initialize(ctx, net, "xavier", cpu0(), 0));
  memset(&ho, 0, sizeof ho);
  ho.struct_size = sizeof ho;
  CHECK_OK(mxc_block_hybridize(net, &ho));
  CHECK_OK(mxc_block_call(ctx, net, &x, 1, &y, 1, &n));
  read_f32(y, want, B * O);
  mxc_ndarray_free(y);

  snprintf(prefix, sizeof prefix, "%s/capi_mlp", tmp);
  snprintf(sym, sizeof sym, "%s-symbol.json", prefix);
  snprintf(params, sizeof params, "%s-0000.params", prefix);
  snprintf(in_path, sizeof in_path, "%s/capi_in.nd", tmp);
  snprintf(out_path, sizeof out_path, "%s/capi_out.nd", tmp);
  CHECK_OK(mxc_block_export(net, prefix, 0));
  CHECK_OK(mxc_ndarray_save(in_path, &x, data_name, 1, NULL));
  snprintf(cmd, sizeof cmd,
           "'%stools/mxnet/mxnet' predict --symbol '%s' --params '%s' --input '%s' --output '%s'",
           data_dir(), sym, params, in_path, out_path);
  rc = system(cmd);
  CHECK(rc == 0);
  CHECK_OK(mxc_ndarray_load(out_path, NULL, &loaded, &names, &count));
  CHECK(count == 1 && names != NULL);
  if (count == 1) {
    int64_t dims[4];
    size_t nd = 0;
    CHECK_OK(mxc_ndarray_shape(loaded[0], dims, 4, &nd));
    CHECK(nd == 2 && dims[0] == B && dims[1] == O);
    read_f32(loaded[0], got, B * O);
    for (i = 0; i < B * O; ++i) CHECK_NEAR(got[i], want[i], 1e-6);
  }
  mxc_ndarray_array_free(loaded, count);
  if (names) mxc_string_array_free(names, count);
  mxc_ndarray_free(x);
  mxc_block_free(net);
  mxc_ctx_free(ctx);
  CHECK(live_handles() == live0);
  return check_summary();
}
