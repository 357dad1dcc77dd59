/* mxc/data.h: image decode/resize + the classify preprocessing with the real GluonCV CIFAR-10
 * ResNet-20 export (cat.jpg -> cat, dog.jpg -> dog), transforms (closed forms), Fashion-MNIST
 * (Debian's dataset-fashion-mnist) through the polling DataLoader (shapes, dtypes, epochs,
 * same batches with workers and with the same seed), C callbacks with user data (called,
 * freed once, errors propagated) and misuse. */
#include "check.h"

static const char* kFashion = "/usr/share/datasets/fashion-mnist";

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* b;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = (char*)malloc((size_t)n);
  *size = fread(b, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static void shape_of(mxc_ndarray* a, int64_t* dims, size_t* ndim) {
  CHECK_OK(mxc_ndarray_shape(a, dims, 8, ndim));
}

static int32_t dtype_of(mxc_ndarray* a) {
  int32_t d = -1;
  CHECK_OK(mxc_ndarray_dtype(a, &d));
  return d;
}

/* The classify preprocessing (examples/classify_image.cc with --size 32 and CIFAR's mean/std):
 * short side to 32 (rounded), center crop 32, ToTensor, Normalize, a batch of one. */
static mxc_ndarray* preprocess(const char* path) {
  static const float mean[3] = {0.4914f, 0.4822f, 0.4465f}, sd[3] = {0.2023f, 0.1994f, 0.2010f};
  mxc_ndarray *img = NULL, *small = NULL, *t = NULL, *x = NULL;
  mxc_transform *steps[3], *all = NULL;
  int64_t s4[4] = {1, 3, 32, 32};
  size_t i;
  CHECK_OK(mxc_image_read(path, 1, 1, &img));
  CHECK_OK(mxc_image_resize_short(img, 32, MXC_INTERP_BILINEAR, 1, &small));
  CHECK_OK(mxc_transform_center_crop(32, 32, MXC_INTERP_BILINEAR, &steps[0]));
  CHECK_OK(mxc_transform_to_tensor(&steps[1]));
  CHECK_OK(mxc_transform_normalize(mean, 3, sd, 3, &steps[2]));
  CHECK_OK(mxc_transform_compose(steps, 3, &all));
  for (i = 0; i < 3; ++i) mxc_transform_free(steps[i]);
  CHECK_OK(mxc_transform_apply(all, small, &t));
  CHECK_OK(mxc_ndarray_reshape(NULL, t, s4, 4, &x));
  mxc_transform_free(all);
  mxc_ndarray_free(img);
  mxc_ndarray_free(small);
  mxc_ndarray_free(t);
  return x;
}

static void test_images(void) {
  const char* shared = getenv("MXNET_SHARED_DIR");
  char path[4200], sym[4200], params[4200];
  const char* data_name[1] = {"data"};
  mxc_ndarray *a = NULL, *b = NULL, *r = NULL;
  mxc_block* net = NULL;
  int64_t d[8];
  size_t nd = 0, size = 0;
  char* bytes;
  const char* names[2] = {"cat.jpg", "dog.jpg"};
  const int want[2] = {3, 5}; /* CIFAR-10: cat 3, dog 5 */
  int k;
  if (!shared) {
    printf("MXNET_SHARED_DIR unset: skipping the images\n");
    return;
  }
  snprintf(path, sizeof path, "%s/data/images/cat.jpg", shared);
  bytes = read_file(path, &size);
  CHECK(bytes != NULL && size > 1000);
  CHECK_OK(mxc_image_decode(bytes, size, 1, 1, &a));
  CHECK_OK(mxc_image_read(path, 1, 1, &b));
  shape_of(a, d, &nd);
  CHECK(nd == 3 && d[2] == 3 && d[0] > 32 && d[1] > 32 && dtype_of(a) == MXC_UINT8);
  {
    size_t n = (size_t)(d[0] * d[1] * d[2]);
    unsigned char *x = (unsigned char*)malloc(n), *y = (unsigned char*)malloc(n);
    CHECK_OK(mxc_ndarray_copy_to_host(a, x, n));
    CHECK_OK(mxc_ndarray_copy_to_host(b, y, n));
    CHECK(memcmp(x, y, n) == 0);
    free(x);
    free(y);
  }
  /* Short side 32, the long side scaled by the same factor (rounded). */
  {
    int64_t h = d[0], w = d[1], e[8];
    CHECK_OK(mxc_image_resize_short(a, 32, MXC_INTERP_BILINEAR, 1, &r));
    shape_of(r, e, &nd);
    if (h <= w)
      CHECK(e[0] == 32 && e[1] == (int64_t)((double)w * 32.0 / (double)h + 0.5));
    else
      CHECK(e[1] == 32 && e[0] == (int64_t)((double)h * 32.0 / (double)w + 0.5));
    mxc_ndarray_free(r);
  }
  /* Grayscale: one channel. */
  CHECK_OK(mxc_image_decode(bytes, size, 0, 1, &r));
  shape_of(r, d, &nd);
  CHECK(nd == 3 && d[2] == 1);
  mxc_ndarray_free(r);
  r = NULL;
  /* Misuse: truncated data, no image, bad flag, bad interp, wrong rank, missing file. */
  CHECK_FAILS(mxc_image_decode(bytes, 100, 1, 1, &r));
  CHECK_FAILS(mxc_image_decode("not an image", 12, 1, 1, &r));
  CHECK_ERR(mxc_image_decode(bytes, size, 2, 1, &r), MXC_INVALID_ARGUMENT, "flag");
  CHECK_ERR(mxc_image_decode(NULL, 5, 1, 1, &r), MXC_INVALID_ARGUMENT, "bytes");
  CHECK_ERR(mxc_image_resize_short(a, 32, 7, 1, &r), MXC_INVALID_ARGUMENT, "interp");
  CHECK_ERR(mxc_image_resize_short(a, 0, 1, 1, &r), MXC_INVALID_ARGUMENT, "size");
  CHECK_ERR(mxc_image_read("/no/such/image.jpg", 1, 1, &r), MXC_NOT_FOUND, "/no/such/image.jpg");
  CHECK(r == NULL);
  free(bytes);
  mxc_ndarray_free(a);
  mxc_ndarray_free(b);

  /* Classify with the real export: cat and dog, probability > 0.9. */
  snprintf(sym, sizeof sym, "%s/data/models/cifar_resnet20_v1-symbol.json", shared);
  snprintf(params, sizeof params, "%s/data/models/cifar_resnet20_v1-0000.params", shared);
  CHECK_OK(mxc_symbol_block_imports(sym, data_name, 1, params, cpu0(), &net));
  for (k = 0; k < 2; ++k) {
    mxc_ndarray *x, *y = NULL, *p;
    size_t n = 0;
    float prob[10];
    int i, best = 0;
    snprintf(path, sizeof path, "%s/data/images/%s", shared, names[k]);
    x = preprocess(path);
    CHECK_OK(mxc_block_call(NULL, net, &x, 1, &y, 1, &n));
    p = run1(NULL, "softmax", &y, 1, NULL, NULL, 0);
    read_f32(p, prob, 10);
    for (i = 1; i < 10; ++i) best = prob[i] > prob[best] ? i : best;
    printf("%s: class %d, p = %.4f\n", names[k], best, prob[best]);
    CHECK(best == want[k] && prob[best] > 0.9f);
    mxc_ndarray_free(x);
    mxc_ndarray_free(y);
    mxc_ndarray_free(p);
  }
  mxc_block_free(net);
}

static void test_transforms(void) {
  unsigned char px[2 * 2 * 3] = {0, 51, 255, 102, 0, 0, 0, 0, 0, 255, 255, 255};
  int64_t s[3] = {2, 2, 3}, d[8];
  size_t nd = 0;
  float mean[1] = {0.5f}, sd[1] = {0.5f}, out[12];
  mxc_ndarray *img = NULL, *t = NULL;
  mxc_transform *tt = NULL, *norm = NULL, *both = NULL, *steps[2], *bad = NULL;
  char* text = NULL;
  CHECK_OK(mxc_ndarray_from_host(px, sizeof px, s, 3, MXC_UINT8, cpu0(), &img));
  CHECK_OK(mxc_transform_to_tensor(&tt));
  CHECK_OK(mxc_transform_normalize(mean, 1, sd, 1, &norm));
  steps[0] = tt;
  steps[1] = norm;
  CHECK_OK(mxc_transform_compose(steps, 2, &both));
  CHECK_OK(mxc_transform_apply(both, img, &t));
  shape_of(t, d, &nd);
  CHECK(nd == 3 && d[0] == 3 && d[1] == 2 && d[2] == 2 && dtype_of(t) == MXC_FLOAT32);
  read_f32(t, out, 12);
  /* CHW: channel 0 = pixels' R = {0, 102, 0, 255} -> (x / 255 - 0.5) / 0.5. */
  CHECK_NEAR(out[0], -1.0, 1e-6);
  CHECK_NEAR(out[1], 102.0 / 255 * 2 - 1, 1e-6);
  CHECK_NEAR(out[3], 1.0, 1e-6);
  CHECK_NEAR(out[4], 51.0 / 255 * 2 - 1, 1e-6); /* channel 1, pixel 0 */
  CHECK_NEAR(out[8], 1.0, 1e-6);                /* channel 2, pixel 0 */
  CHECK_OK(mxc_transform_to_string(both, &text));
  CHECK(strstr(text, "ToTensor") != NULL && strstr(text, "Normalize") != NULL);
  mxc_string_free(text);
  mxc_ndarray_free(t);
  /* Resize to (3, 1): shape (1, 3, 3). */
  CHECK_OK(mxc_transform_resize(3, 1, 0, MXC_INTERP_NEAREST, &bad));
  CHECK_OK(mxc_transform_apply(bad, img, &t));
  shape_of(t, d, &nd);
  CHECK(nd == 3 && d[0] == 1 && d[1] == 3 && d[2] == 3);
  mxc_ndarray_free(t);
  mxc_transform_free(bad);
  bad = NULL;
  /* Misuse. */
  CHECK_ERR(mxc_transform_normalize(mean, 0, sd, 1, &bad), MXC_INVALID_ARGUMENT, "mean");
  CHECK_ERR(mxc_transform_resize(0, 3, 0, 1, &bad), MXC_INVALID_ARGUMENT, "width");
  CHECK_ERR(mxc_transform_resize(3, 3, 1, 1, &bad), MXC_INVALID_ARGUMENT, "height");
  CHECK_ERR(mxc_transform_center_crop(3, 3, 7, &bad), MXC_INVALID_ARGUMENT, "interp");
  CHECK_ERR(mxc_transform_cast(99, &bad), MXC_INVALID_ARGUMENT, "dtype");
  CHECK_ERR(mxc_transform_compose(steps, 0, &bad), MXC_INVALID_ARGUMENT, "steps");
  steps[1] = (mxc_transform*)(void*)img;
  CHECK_ERR(mxc_transform_compose(steps, 2, &bad), MXC_INVALID_ARGUMENT,
            "argument 'steps[1]' is an mxc_ndarray handle, expected mxc_transform");
  CHECK_ERR(mxc_transform_from_callback(NULL, NULL, NULL, &bad), MXC_INVALID_ARGUMENT, "fn");
  CHECK(bad == NULL);
  CHECK_FAILS(mxc_transform_apply(norm, img, &t)); /* Normalize of a uint8 HWC image */
  mxc_transform_free(tt);
  mxc_transform_free(norm);
  mxc_transform_free(both);
  CHECK_ERR(mxc_transform_apply(both, img, &t), MXC_INVALID_ARGUMENT, "freed mxc_transform");
  mxc_ndarray_free(img);
}

/* A C callback: x * factor through mxc_invoke; counts calls; "fail" mode returns an error. */
typedef struct {
  float factor;
  int calls, fail, *freed;
} Scale;

static mxc_status* scale_fn(void* user, mxc_ndarray* in, mxc_ndarray** out) {
  Scale* s = (Scale*)user;
  char v[32];
  const char* k[1] = {"scalar"};
  const char* vals[1];
  mxc_op* op = NULL;
  size_t n = 0;
  mxc_status* st;
  s->calls++;
  if (s->fail) return mxc_status_create(MXC_OUT_OF_RANGE, "boom");
  snprintf(v, sizeof v, "%g", s->factor);
  vals[0] = v;
  st = mxc_op_find("_mul_scalar", &op);
  if (!st) st = mxc_invoke(NULL, op, &in, 1, k, vals, 1, out, 1, &n);
  return st;
}

static void free_scale(void* user) { (*((Scale*)user)->freed)++; }

static void test_callback(void) {
  float v[4] = {1, 2, 3, 4}, got[4];
  int64_t s[1] = {4};
  mxc_ndarray *x = make_f32(v, s, 1), *y = NULL;
  int freed = 0;
  Scale sc;
  mxc_transform* t = NULL;
  mxc_dataset *ds = NULL, *dt = NULL;
  mxc_ndarray* f[2];
  size_t n = 0;
  memset(&sc, 0, sizeof sc);
  sc.factor = 3;
  sc.freed = &freed;
  CHECK_OK(mxc_transform_from_callback(scale_fn, &sc, free_scale, &t));
  CHECK_OK(mxc_transform_apply(t, x, &y));
  read_f32(y, got, 4);
  CHECK(got[0] == 3 && got[3] == 12 && sc.calls == 1);
  mxc_ndarray_free(y);
  /* Through a dataset (the transform is retained by it). */
  CHECK_OK(mxc_dataset_from_arrays(&x, 1, &ds));
  CHECK_OK(mxc_dataset_transform_first(ds, t, 1, &dt));
  mxc_transform_free(t);
  CHECK(freed == 0);
  CHECK_OK(mxc_dataset_get(dt, 2, f, 2, &n));
  CHECK(n == 1);
  read_f32(f[0], got, 1);
  CHECK(got[0] == 9 && sc.calls == 2);
  mxc_ndarray_free(f[0]);
  /* The callback's error comes back with its code and message. */
  sc.fail = 1;
  CHECK_ERR(mxc_dataset_get(dt, 0, f, 2, &n), MXC_OUT_OF_RANGE, "boom");
  mxc_dataset_free(dt);
  CHECK(freed == 1); /* the last reference: user data freed once */
  mxc_dataset_free(ds);
  CHECK(freed == 1);
  mxc_ndarray_free(x);
}

/* Reads a whole epoch; returns the number of batches and the sum of labels of the first one. */
static int64_t epoch(mxc_ctx* ctx, mxc_dataloader* dl, int64_t* first_labels, int64_t* last_n) {
  int64_t batches = 0;
  for (;;) {
    mxc_ndarray* f[2];
    size_t n = 0;
    int32_t has = -1;
    int64_t d[8];
    size_t nd = 0;
    CHECK_OK(mxc_dataloader_next(ctx, dl, f, 2, &n, &has));
    if (!has) {
      CHECK(n == 0);
      break;
    }
    CHECK(n == 2);
    shape_of(f[0], d, &nd);
    CHECK(nd == 4 && d[1] == 1 && d[2] == 28 && d[3] == 28 && dtype_of(f[0]) == MXC_FLOAT32);
    CHECK(dtype_of(f[1]) == MXC_INT32);
    *last_n = d[0];
    if (batches == 0) {
      int32_t lab[32];
      int i;
      CHECK_OK(mxc_ndarray_copy_to_host(f[1], lab, (size_t)d[0] * 4));
      *first_labels = 0;
      for (i = 0; i < d[0]; ++i) *first_labels = *first_labels * 7 + lab[i];
    }
    mxc_ndarray_free(f[0]);
    mxc_ndarray_free(f[1]);
    ++batches;
  }
  return batches;
}

/* ToTensor then Normalize with Fashion-MNIST's mean and std (the CLI's training transform). */
static mxc_transform* fashion_transform(void) {
  float mean[1] = {0.286f}, sd[1] = {0.353f};
  mxc_transform *steps[2], *tf = NULL;
  CHECK_OK(mxc_transform_to_tensor(&steps[0]));
  CHECK_OK(mxc_transform_normalize(mean, 1, sd, 1, &steps[1]));
  CHECK_OK(mxc_transform_compose(steps, 2, &tf));
  mxc_transform_free(steps[0]);
  mxc_transform_free(steps[1]);
  return tf;
}

static void test_fashion_mnist(void) {
  mxc_dataset *test = NULL, *sub = NULL, *ds = NULL, *bad = NULL;
  mxc_transform* tf = NULL;
  mxc_dataloader *dl = NULL, *dl2 = NULL, *bad_dl = NULL;
  mxc_dataloader_options o;
  mxc_ctx *c1 = NULL, *c2 = NULL;
  mxc_ctx_options co;
  int64_t size = 0, nb = 0, l0 = 0, l1 = 0, l2 = 0, last = 0, d[8];
  mxc_ndarray* f[2];
  size_t n = 0, nd = 0;
  int32_t label = -1, has = 0;
  CHECK_OK(mxc_dataset_fashion_mnist(kFashion, 0, &test));
  CHECK_OK(mxc_dataset_size(test, &size));
  CHECK(size == 10000);
  CHECK_OK(mxc_dataset_get(test, 0, f, 2, &n));
  CHECK(n == 2);
  shape_of(f[0], d, &nd);
  CHECK(nd == 3 && d[0] == 28 && d[1] == 28 && d[2] == 1 && dtype_of(f[0]) == MXC_UINT8);
  shape_of(f[1], d, &nd);
  CHECK(nd == 0);
  CHECK_OK(mxc_ndarray_copy_to_host(f[1], &label, 4));
  CHECK(label == 9); /* the first test image is an ankle boot */
  mxc_ndarray_free(f[0]);
  mxc_ndarray_free(f[1]);

  CHECK_OK(mxc_dataset_take(test, 100, &sub));
  tf = fashion_transform();
  CHECK_OK(mxc_dataset_transform_first(sub, tf, 1, &ds));
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.batch_size = 32;
  CHECK_OK(mxc_dataloader_create(ds, &o, &dl));
  CHECK_OK(mxc_dataloader_size(dl, &nb));
  CHECK(nb == 4);
  CHECK(epoch(NULL, dl, &l0, &last) == 4 && last == 4);
  CHECK(epoch(NULL, dl, &l1, &last) == 4 && l1 == l0); /* a new epoch, same order */
  /* max_fields too small: an error, the batch stays for the next call. */
  CHECK_ERR(mxc_dataloader_next(NULL, dl, f, 1, &n, &has), MXC_OUT_OF_RANGE, "holds 1");
  CHECK_OK(mxc_dataloader_next(NULL, dl, f, 2, &n, &has));
  CHECK(has == 1 && n == 2);
  {
    int32_t lab[32];
    int i;
    CHECK_OK(mxc_ndarray_copy_to_host(f[1], lab, sizeof lab));
    for (l2 = 0, i = 0; i < 32; ++i) l2 = l2 * 7 + lab[i];
    CHECK(l2 == l0);
  }
  mxc_ndarray_free(f[0]);
  mxc_ndarray_free(f[1]);
  CHECK_OK(mxc_dataloader_reset(dl));
  CHECK(epoch(NULL, dl, &l1, &last) == 4 && l1 == l0);
  mxc_dataloader_free(dl);

  /* Shuffled, discard the last batch, 2 workers: the same seed gives the same order. */
  o.shuffle = 1;
  o.last_batch = MXC_LAST_BATCH_DISCARD;
  o.num_workers = 2;
  CHECK_OK(mxc_dataloader_create(ds, &o, &dl));
  o.num_workers = 0;
  CHECK_OK(mxc_dataloader_create(ds, &o, &dl2));
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.has_seed = 1;
  co.seed = 42;
  CHECK_OK(mxc_ctx_create(&co, &c1));
  CHECK_OK(mxc_ctx_create(&co, &c2));
  CHECK(epoch(c1, dl, &l1, &last) == 3 && last == 32);
  CHECK(epoch(c2, dl2, &l2, &last) == 3);
  CHECK(l1 == l2 && l1 != l0);
  CHECK(epoch(c1, dl, &l2, &last) == 3 && l2 != l1); /* the next epoch: another order */

  /* Misuse. */
  o.batch_size = 0;
  CHECK_ERR(mxc_dataloader_create(ds, &o, &bad_dl), MXC_INVALID_ARGUMENT, "batch_size");
  o.batch_size = 4;
  o.last_batch = 5;
  CHECK_ERR(mxc_dataloader_create(ds, &o, &bad_dl), MXC_INVALID_ARGUMENT, "last_batch");
  o.last_batch = 0;
  o.num_workers = -1;
  CHECK_ERR(mxc_dataloader_create(ds, &o, &bad_dl), MXC_INVALID_ARGUMENT, "num_workers");
  CHECK_ERR(mxc_dataloader_create((mxc_dataset*)(void*)tf, &o, &bad_dl), MXC_INVALID_ARGUMENT,
            "expected mxc_dataset");
  CHECK(bad_dl == NULL);
  CHECK_ERR(mxc_dataloader_next(NULL, dl, f, 2, NULL, &has), MXC_INVALID_ARGUMENT, "num_fields");
  CHECK_ERR(mxc_dataset_get(test, 10000, f, 2, &n), MXC_OUT_OF_RANGE, "10000");
  CHECK_ERR(mxc_dataset_shard(test, 0, 0, &bad), MXC_INVALID_ARGUMENT, "");
  CHECK_ERR(mxc_dataset_fashion_mnist("/no/such/dir", 1, &bad), MXC_NOT_FOUND, "/no/such/dir");
  CHECK(bad == NULL);
  mxc_dataloader_free(dl2);
  CHECK_ERR(mxc_dataloader_size(dl2, &nb), MXC_INVALID_ARGUMENT, "freed mxc_dataloader");
  mxc_dataloader_free(dl2); /* double free: ignored */

  mxc_dataloader_free(dl);
  mxc_transform_free(tf);
  mxc_dataset_free(test);
  mxc_dataset_free(sub);
  mxc_dataset_free(ds);
  mxc_ctx_free(c1);
  mxc_ctx_free(c2);
}

/* The whole pipeline through the C API: Fashion-MNIST -> transforms -> shuffled DataLoader with a
 * worker -> MLP -> SoftmaxCrossEntropyLoss -> backward -> SGD, 2 epochs of 20 batches; the mean
 * loss of the last 5 batches is well below that of the first 5, and accuracy on 1,000 test images
 * beats chance (10 %) by far. */
static void test_train_fashion_mnist(void) {
  mxc_dataset *train = NULL, *sub = NULL, *ds = NULL, *test = NULL, *tsub = NULL, *tds = NULL;
  mxc_transform* tf = NULL;
  mxc_dataloader *dl = NULL, *tl = NULL;
  mxc_dataloader_options o;
  mxc_ctx* ctx = NULL;
  mxc_ctx_options co;
  mxc_block *net = make_mlp("64", "10"), *ce = NULL;
  mxc_parameter** ps = NULL;
  mxc_trainer* tr = NULL;
  size_t np = 0;
  float losses[64], first = 0, last = 0;
  const char* k[2] = {"learning_rate", "momentum"};
  const char* v[2] = {"0.1", "0.9"};
  int step = 0, ep, i, correct = 0, total = 0;
  CHECK_OK(mxc_dataset_fashion_mnist(kFashion, 1, &train));
  CHECK_OK(mxc_dataset_take(train, 1280, &sub));
  tf = fashion_transform();
  CHECK_OK(mxc_dataset_transform_first(sub, tf, 1, &ds));
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.batch_size = 64;
  o.shuffle = 1;
  o.num_workers = 1;
  CHECK_OK(mxc_dataloader_create(ds, &o, &dl));
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.has_seed = 1;
  co.seed = 7;
  CHECK_OK(mxc_ctx_create(&co, &ctx));
  CHECK_OK(mxc_block_initialize(ctx, net, "xavier", cpu0(), 0));
  CHECK_OK(mxc_loss_create("SoftmaxCrossEntropyLoss", NULL, NULL, 0, &ce));
  CHECK_OK(mxc_block_collect_params(net, NULL, &ps, &np));
  CHECK_OK(mxc_trainer_create(ps, np, "sgd", k, v, 2, &tr));
  for (ep = 0; ep < 2; ++ep) {
    for (;;) {
      mxc_ndarray *b[2], *pred = NULL, *l = NULL, *in[2];
      size_t n = 0;
      int32_t has = 0;
      float lv[64], sum = 0;
      CHECK_OK(mxc_dataloader_next(ctx, dl, b, 2, &n, &has));
      if (!has) break;
      CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
      CHECK_OK(mxc_autograd_set_training(ctx, 1, NULL));
      CHECK_OK(mxc_block_call(ctx, net, &b[0], 1, &pred, 1, &n));
      in[0] = pred;
      in[1] = b[1];
      CHECK_OK(mxc_block_call(ctx, ce, in, 2, &l, 1, &n));
      CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
      CHECK_OK(mxc_autograd_set_training(ctx, 0, NULL));
      CHECK_OK(mxc_autograd_backward(ctx, &l, 1, NULL, 0, 1));
      CHECK_OK(mxc_trainer_step(ctx, tr, 64, 0));
      read_f32(l, lv, 64);
      for (i = 0; i < 64; ++i) sum += lv[i];
      losses[step++] = sum / 64;
      mxc_ndarray_free(b[0]);
      mxc_ndarray_free(b[1]);
      mxc_ndarray_free(pred);
      mxc_ndarray_free(l);
    }
  }
  CHECK(step == 40);
  for (i = 0; i < 5; ++i) first += losses[i] / 5, last += losses[step - 5 + i] / 5;
  /* Accuracy on the first 1,000 test images. */
  CHECK_OK(mxc_dataset_fashion_mnist(kFashion, 0, &test));
  CHECK_OK(mxc_dataset_take(test, 1000, &tsub));
  CHECK_OK(mxc_dataset_transform_first(tsub, tf, 1, &tds));
  o.shuffle = 0;
  o.batch_size = 250;
  CHECK_OK(mxc_dataloader_create(tds, &o, &tl));
  for (;;) {
    mxc_ndarray *b[2], *pred = NULL;
    size_t n = 0, j, c;
    int32_t has = 0, lab[250];
    float* p = (float*)malloc(250 * 10 * sizeof(float));
    CHECK_OK(mxc_dataloader_next(NULL, tl, b, 2, &n, &has));
    if (!has) {
      free(p);
      break;
    }
    CHECK_OK(mxc_block_call(NULL, net, &b[0], 1, &pred, 1, &n));
    read_f32(pred, p, 2500);
    CHECK_OK(mxc_ndarray_copy_to_host(b[1], lab, sizeof lab));
    for (j = 0; j < 250; ++j) {
      size_t best = 0;
      for (c = 1; c < 10; ++c) best = p[j * 10 + c] > p[j * 10 + best] ? c : best;
      correct += (int32_t)best == lab[j];
      ++total;
    }
    free(p);
    mxc_ndarray_free(b[0]);
    mxc_ndarray_free(b[1]);
    mxc_ndarray_free(pred);
  }
  printf("Fashion-MNIST MLP: loss %.3f -> %.3f over %d steps; test accuracy %d/%d\n", first, last,
         step, correct, total);
  CHECK(last < 0.6f * first);
  CHECK(total == 1000 && correct > 500);
  mxc_dataloader_free(dl);
  mxc_dataloader_free(tl);
  mxc_trainer_free(tr);
  mxc_parameter_array_free(ps, np);
  mxc_block_free(net);
  mxc_block_free(ce);
  mxc_transform_free(tf);
  mxc_dataset_free(train);
  mxc_dataset_free(sub);
  mxc_dataset_free(ds);
  mxc_dataset_free(test);
  mxc_dataset_free(tsub);
  mxc_dataset_free(tds);
  mxc_ctx_free(ctx);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_transforms();
  test_callback();
  test_images();
  test_fashion_mnist();
  test_train_fashion_mnist();
  CHECK(live_handles() == live0);
  return check_summary();
}
