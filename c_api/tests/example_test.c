/* The example of c_api/README.md (kept identical): y = sum(relu(x) * x) under autograd; its
 * gradient is 2x where x > 0, else 0. */
#include <stdio.h>

#include "mxc/mxc.h"

#define TRY(call)                                                 \
  do {                                                            \
    mxc_status* s_ = (call);                                      \
    if (s_) {                                                     \
      fprintf(stderr, "%s: %s\n", #call, mxc_status_message(s_)); \
      mxc_status_free(s_);                                        \
      return 1;                                                   \
    }                                                             \
  } while (0)

int main(void) {
  float x[4] = {-1, 2, -3, 4}, g[4];
  int64_t shape[1] = {4};
  mxc_device cpu = {MXC_DEVICE_CPU, 0};
  mxc_ctx* ctx;
  mxc_op *relu, *mul, *sum;
  mxc_ndarray *a, *r, *m, *y, *grad, *in[2];
  size_t n;
  TRY(mxc_abi_check(MXC_ABI_MAJOR, MXC_ABI_MINOR));
  TRY(mxc_ctx_create(NULL, &ctx));
  TRY(mxc_op_find("relu", &relu));
  TRY(mxc_op_find("elemwise_mul", &mul));
  TRY(mxc_op_find("sum", &sum));
  TRY(mxc_ndarray_from_host(x, sizeof x, shape, 1, MXC_FLOAT32, cpu, &a));
  TRY(mxc_ndarray_attach_grad(a, MXC_GRAD_WRITE));
  TRY(mxc_autograd_set_recording(ctx, 1, NULL)); /* with autograd.record(): */
  TRY(mxc_invoke(ctx, relu, &a, 1, NULL, NULL, 0, &r, 1, &n));
  in[0] = r, in[1] = a;
  TRY(mxc_invoke(ctx, mul, in, 2, NULL, NULL, 0, &m, 1, &n));
  TRY(mxc_invoke(ctx, sum, &m, 1, NULL, NULL, 0, &y, 1, &n));
  TRY(mxc_autograd_set_recording(ctx, 0, NULL));
  TRY(mxc_autograd_backward(ctx, &y, 1, NULL, 0, 1));
  TRY(mxc_ndarray_grad(a, &grad));
  TRY(mxc_ndarray_copy_to_host(grad, g, sizeof g));
  printf("grad = %g %g %g %g\n", g[0], g[1], g[2], g[3]); /* 0 4 0 8 */
  mxc_ndarray_free(grad), mxc_ndarray_free(y), mxc_ndarray_free(m);
  mxc_ndarray_free(r), mxc_ndarray_free(a), mxc_ctx_free(ctx);
  return !(g[0] == 0 && g[1] == 4 && g[2] == 0 && g[3] == 8);
}
