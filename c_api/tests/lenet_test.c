/* End to end through the C API alone (issue 16): the CLI's default LeNet (tools/mxnet/cmd_train.cc:
 * conv 5x5 16 pad 2 + relu, max pool 2, conv 5x5 32 + relu, max pool 2, dense 128 + relu,
 * dense 10) built from symbols, hybridized, trained on a 12,000-image Fashion-MNIST subset
 * (Debian's dataset-fashion-mnist) with Adam for 2 epochs, > 83 % on 2,000 test images; then
 * exported and imported again as a SymbolBlock with identical outputs. */
#include "check.h"

static const char* kFashion = "/usr/share/datasets/fashion-mnist";

static mxc_symbol* layer(const char* op_name, mxc_symbol* in, const char* const* keys,
                         const char* const* values, size_t n, const char* name) {
  mxc_op* op = NULL;
  mxc_symbol* out = NULL;
  CHECK_OK(mxc_op_find(op_name, &op));
  CHECK_OK(mxc_symbol_create(op, &in, 1, keys, values, n, name, &out));
  mxc_symbol_free(in);
  return out;
}

static mxc_block* lenet(void) {
  const char* conv_k[4] = {"kernel", "num_filter", "pad", "no_bias"};
  const char* conv1_v[4] = {"(5, 5)", "16", "(2, 2)", "False"};
  const char* conv2_v[4] = {"(5, 5)", "32", "(0, 0)", "False"};
  const char* relu_k[1] = {"act_type"};
  const char* relu_v[1] = {"relu"};
  const char* pool_k[3] = {"kernel", "stride", "pool_type"};
  const char* pool_v[3] = {"(2, 2)", "(2, 2)", "max"};
  const char* fc_k[1] = {"num_hidden"};
  const char* fc1_v[1] = {"128"};
  const char* fc2_v[1] = {"10"};
  const char* data_name[1] = {"data"};
  mxc_symbol* s = NULL;
  mxc_block* b = NULL;
  CHECK_OK(mxc_symbol_variable("data", &s));
  s = layer("Convolution", s, conv_k, conv1_v, 4, "conv0");
  s = layer("Activation", s, relu_k, relu_v, 1, "relu0");
  s = layer("Pooling", s, pool_k, pool_v, 3, "pool0");
  s = layer("Convolution", s, conv_k, conv2_v, 4, "conv1");
  s = layer("Activation", s, relu_k, relu_v, 1, "relu1");
  s = layer("Pooling", s, pool_k, pool_v, 3, "pool1");
  s = layer("Flatten", s, NULL, NULL, 0, "flatten0");
  s = layer("FullyConnected", s, fc_k, fc1_v, 1, "dense0");
  s = layer("Activation", s, relu_k, relu_v, 1, "relu2");
  s = layer("FullyConnected", s, fc_k, fc2_v, 1, "dense1");
  CHECK_OK(mxc_symbol_block_create(s, data_name, 1, &b));
  mxc_symbol_free(s);
  return b;
}

static mxc_dataset* fashion(int train, int64_t take) {
  float mean[1] = {0.286f}, sd[1] = {0.353f};
  mxc_transform *steps[2], *tf = NULL;
  mxc_dataset *all = NULL, *sub = NULL, *out = NULL;
  CHECK_OK(mxc_dataset_fashion_mnist(kFashion, train, &all));
  CHECK_OK(mxc_dataset_take(all, take, &sub));
  CHECK_OK(mxc_transform_to_tensor(&steps[0]));
  CHECK_OK(mxc_transform_normalize(mean, 1, sd, 1, &steps[1]));
  CHECK_OK(mxc_transform_compose(steps, 2, &tf));
  CHECK_OK(mxc_dataset_transform_first(sub, tf, 0, &out)); /* applied once, now */
  mxc_transform_free(steps[0]);
  mxc_transform_free(steps[1]);
  mxc_transform_free(tf);
  mxc_dataset_free(all);
  mxc_dataset_free(sub);
  return out;
}

static mxc_ndarray* call1(mxc_ctx* ctx, mxc_block* b, mxc_ndarray* x) {
  mxc_ndarray* y = NULL;
  size_t n = 0;
  CHECK_OK(mxc_block_call(ctx, b, &x, 1, &y, 1, &n));
  return y;
}

/* Correct predictions of `net` over the loader; the first batch's logits go to first[0..1280). */
static int evaluate(mxc_block* net, mxc_dataloader* dl, int* total, float* first) {
  int correct = 0, batch = 0;
  float* p = (float*)malloc(500 * 10 * sizeof(float));
  *total = 0;
  for (;;) {
    mxc_ndarray *f[2], *y;
    size_t n = 0, j, c;
    int32_t has = 0, lab[500];
    int64_t d[4];
    size_t nd = 0;
    CHECK_OK(mxc_dataloader_next(NULL, dl, f, 2, &n, &has));
    if (!has) break;
    y = call1(NULL, net, f[0]);
    CHECK_OK(mxc_ndarray_shape(f[1], d, 4, &nd));
    read_f32(y, p, (size_t)d[0] * 10);
    CHECK_OK(mxc_ndarray_copy_to_host(f[1], lab, (size_t)d[0] * 4));
    if (batch++ == 0 && first) memcpy(first, p, 1280 * sizeof(float));
    for (j = 0; j < (size_t)d[0]; ++j) {
      size_t best = 0;
      for (c = 1; c < 10; ++c) best = p[j * 10 + c] > p[j * 10 + best] ? c : best;
      correct += (int32_t)best == lab[j];
      ++*total;
    }
    mxc_ndarray_free(f[0]);
    mxc_ndarray_free(f[1]);
    mxc_ndarray_free(y);
  }
  free(p);
  return correct;
}

int main(void) {
  uint64_t live0 = live_handles();
  mxc_dataset *train = fashion(1, 12000), *test = fashion(0, 2000);
  mxc_dataloader *dl = NULL, *tl = NULL;
  mxc_dataloader_options o;
  mxc_ctx* ctx = NULL;
  mxc_ctx_options co;
  mxc_block *net = lenet(), *ce = NULL, *imported = NULL;
  mxc_hybridize_options ho;
  mxc_parameter** ps = NULL;
  mxc_trainer* tr = NULL;
  size_t np = 0, i;
  const char* k[1] = {"learning_rate"};
  const char* v[1] = {"0.002"};
  const char* data_name[1] = {"data"};
  char prefix[512], sym[600], params[600];
  static float out1[1280], out2[1280];
  int ep, correct, total = 0, steps = 0;

  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.batch_size = 128;
  o.shuffle = 1;
  CHECK_OK(mxc_dataloader_create(train, &o, &dl));
  o.batch_size = 500;
  o.shuffle = 0;
  CHECK_OK(mxc_dataloader_create(test, &o, &tl));
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.has_seed = 1;
  co.seed = 42;
  CHECK_OK(mxc_ctx_create(&co, &ctx));
  CHECK_OK(mxc_block_initialize(ctx, net, "xavier", cpu0(), 0));
  memset(&ho, 0, sizeof ho);
  ho.struct_size = sizeof ho;
  ho.static_alloc = 1;
  CHECK_OK(mxc_block_hybridize(net, &ho));
  CHECK_OK(mxc_loss_create("SoftmaxCrossEntropyLoss", NULL, NULL, 0, &ce));
  for (ep = 0; ep < 2; ++ep) {
    for (;;) {
      mxc_ndarray *f[2], *pred, *l = NULL, *in[2];
      size_t n = 0;
      int32_t has = 0;
      CHECK_OK(mxc_dataloader_next(ctx, dl, f, 2, &n, &has));
      if (!has) break;
      CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
      CHECK_OK(mxc_autograd_set_training(ctx, 1, NULL));
      pred = call1(ctx, net, f[0]);
      if (!tr) { /* parameter shapes are known after the first call */
        CHECK_OK(mxc_block_collect_params(net, NULL, &ps, &np));
        CHECK_OK(mxc_trainer_create(ps, np, "adam", k, v, 1, &tr));
      }
      in[0] = pred;
      in[1] = f[1];
      CHECK_OK(mxc_block_call(ctx, ce, in, 2, &l, 1, &n));
      CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
      CHECK_OK(mxc_autograd_set_training(ctx, 0, NULL));
      CHECK_OK(mxc_autograd_backward(ctx, &l, 1, NULL, 0, 1));
      {
        int64_t d[4];
        size_t nd = 0;
        CHECK_OK(mxc_ndarray_shape(f[1], d, 4, &nd));
        CHECK_OK(mxc_trainer_step(ctx, tr, (double)d[0], 0));
      }
      ++steps;
      mxc_ndarray_free(f[0]);
      mxc_ndarray_free(f[1]);
      mxc_ndarray_free(pred);
      mxc_ndarray_free(l);
    }
  }
  correct = evaluate(net, tl, &total, out1);
  printf("LeNet: %d steps on 12,000 images; test accuracy %d/%d = %.4f\n", steps, correct, total,
         (double)correct / total);
  CHECK(total == 2000 && correct > 0.83 * 2000);

  /* Export and import: the same outputs. */
  snprintf(prefix, sizeof prefix, "%s/lenet",
           getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
  snprintf(sym, sizeof sym, "%s-symbol.json", prefix);
  snprintf(params, sizeof params, "%s-0002.params", prefix);
  CHECK_OK(mxc_block_export(net, prefix, 2));
  CHECK_OK(mxc_symbol_block_imports(sym, data_name, 1, params, cpu0(), &imported));
  CHECK(evaluate(imported, tl, &total, out2) == correct);
  for (i = 0; i < 1280; ++i) CHECK_NEAR(out1[i], out2[i], 1e-5);

  mxc_trainer_free(tr);
  mxc_parameter_array_free(ps, np);
  mxc_block_free(net);
  mxc_block_free(imported);
  mxc_block_free(ce);
  mxc_dataloader_free(dl);
  mxc_dataloader_free(tl);
  mxc_dataset_free(train);
  mxc_dataset_free(test);
  mxc_ctx_free(ctx);
  CHECK(live_handles() == live0);
  return check_summary();
}
