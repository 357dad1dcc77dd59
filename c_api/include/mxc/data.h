/* Data (mxnet.image, mxnet.gluon.data): image decoding and resizing, vision transforms, datasets
 * (Fashion-MNIST, MNIST, arrays) and a DataLoader read by polling (mxc_dataloader_next), enough
 * for a binding to train.
 *
 * Callbacks: a transform may be a C function (mxc_transform_from_callback) with a void* user_data
 * and a function that frees it. Bindings that cannot hand C function pointers to a library (Go's
 * cgo) use the built-in transforms, or read raw batches with mxc_dataloader_next and transform
 * them with mxc_invoke: nothing in this family requires a callback.
 *
 * Threads: transforms and datasets are immutable once made: any thread may use them at once. A
 * dataloader is used by one thread at a time. Freeing is safe from any thread. */
#ifndef MXC_DATA_H_
#define MXC_DATA_H_

#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/ndarray.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_transform mxc_transform;
typedef struct mxc_dataset mxc_dataset;
typedef struct mxc_dataloader mxc_dataloader;

/* ---- Images (mx.image). ---- */

/* Interpolation codes (OpenCV's, as mx.image): nearest 0, bilinear 1, bicubic 2, area 3,
 * lanczos 4; MXNet's 9 and 10 ("auto", "random") are taken as bilinear. Others are
 * MXC_INVALID_ARGUMENT. */
#define MXC_INTERP_NEAREST 0
#define MXC_INTERP_BILINEAR 1
#define MXC_INTERP_BICUBIC 2
#define MXC_INTERP_AREA 3
#define MXC_INTERP_LANCZOS 4

/* Decodes a JPEG or PNG held in bytes[0..size) (mx.image.imdecode) to an (H, W, C) uint8 array:
 * flag 1: 3 channels (RGB when to_rgb, else BGR), flag 0: 1 channel (grayscale).
 * Errors: MXC_INVALID_ARGUMENT / MXC_DATA_LOSS for data that is no (complete) JPEG/PNG.
 * Threads: any. */
MXC_STATUS mxc_image_decode(const void* bytes, size_t size, int32_t flag, int32_t to_rgb,
                            mxc_ndarray** out) MXC_NOEXCEPT;
/* mxc_image_decode of a file's contents (mx.image.imread). Errors: MXC_NOT_FOUND naming the
 * path, as mxc_image_decode. Threads: any. */
MXC_STATUS mxc_image_read(const char* path, int32_t flag, int32_t to_rgb,
                          mxc_ndarray** out) MXC_NOEXCEPT;
/* Resizes an (H, W, C) uint8/float32 image so its shorter side is `size` (mx.image.resize_short),
 * antialiased; the long side is floor(long * size / short), or rounded to the nearest pixel
 * when round_long_side is nonzero (what the classify preprocessing uses). interp: MXC_INTERP_*.
 * Errors: rank != 3, size <= 0, an unknown interp. Threads: any. */
MXC_STATUS mxc_image_resize_short(mxc_ndarray* image, int64_t size, int32_t interp,
                                  int32_t round_long_side, mxc_ndarray** out) MXC_NOEXCEPT;

/* ---- Transforms (gluon.data.vision.transforms). ---- */

/* A transform written in C. `input` is borrowed (valid during the call); on success the function
 * stores a new array (a +1 handle the library takes over) in *output and returns NULL; on error
 * it returns a status (made with mxc_status_create; the library frees it and reports its code
 * and message, naming the transform). It is called on whichever thread applies the transform: the
 * calling thread, or a DataLoader worker thread when num_workers > 0 (then concurrently). */
typedef mxc_status* (*mxc_transform_fn)(void* user_data, mxc_ndarray* input, mxc_ndarray** output);
/* Frees user_data; called once, on whichever thread drops the last reference. */
typedef void (*mxc_user_data_free_fn)(void* user_data);

/* HWC [0, 255] image (uint8 or any numeric dtype) -> CHW float32 x / 255; NHWC -> NCHW
 * (ToTensor). Threads: any. */
MXC_STATUS mxc_transform_to_tensor(mxc_transform** out) MXC_NOEXCEPT;
/* (x - mean[c]) / std[c] per channel of a CHW / NCHW float tensor (Normalize); mean and std have
 * 1 or C entries. Errors: empty mean/std, a zero std. Threads: any. */
MXC_STATUS mxc_transform_normalize(const float* mean, size_t num_mean, const float* std,
                                   size_t num_std, mxc_transform** out) MXC_NOEXCEPT;
/* Resize to (width, height) (Resize((w, h))), or with keep_ratio nonzero the shorter side to
 * `width` keeping the aspect ratio (Resize(w, keep_ratio=True); height must be 0). HWC/NHWC uint8
 * or float32. Errors: sizes <= 0, an unknown interp. Threads: any. */
MXC_STATUS mxc_transform_resize(int64_t width, int64_t height, int32_t keep_ratio, int32_t interp,
                                mxc_transform** out) MXC_NOEXCEPT;
/* Crops the (width, height) center (CenterCrop), resizing first with `interp` when the image is
 * smaller. Errors: sizes <= 0. Threads: any. */
MXC_STATUS mxc_transform_center_crop(int64_t width, int64_t height, int32_t interp,
                                     mxc_transform** out) MXC_NOEXCEPT;
/* Casts to `dtype` (Cast). Threads: any. */
MXC_STATUS mxc_transform_cast(int32_t dtype, mxc_transform** out) MXC_NOEXCEPT;
/* steps[0], then steps[1], ... (Compose); the steps are retained. Errors: no steps, invalid
 * handles. Threads: any. */
MXC_STATUS mxc_transform_compose(mxc_transform* const* steps, size_t count,
                                 mxc_transform** out) MXC_NOEXCEPT;
/* A transform calling fn(user_data, ...) (see mxc_transform_fn). On success the library owns
 * user_data and calls free_user_data(user_data) (if not NULL) once when the last reference is
 * gone; on error it never does. Errors: fn NULL. Threads: any. */
MXC_STATUS mxc_transform_from_callback(mxc_transform_fn fn, void* user_data,
                                       mxc_user_data_free_fn free_user_data,
                                       mxc_transform** out) MXC_NOEXCEPT;
/* Applies the transform to `input`; *out is a new array. Errors: the transform's. Threads: any. */
MXC_STATUS mxc_transform_apply(mxc_transform* transform, mxc_ndarray* input,
                               mxc_ndarray** out) MXC_NOEXCEPT;
/* The transform as MXNet prints it ("Compose(ToTensor(), Normalize(...))"); free with
 * mxc_string_free. Threads: any. */
MXC_STATUS mxc_transform_to_string(mxc_transform* transform, char** text) MXC_NOEXCEPT;
/* +1 reference. Threads: any. */
MXC_STATUS mxc_transform_retain(mxc_transform* transform) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored. Threads: any. */
MXC_API void mxc_transform_free(mxc_transform* transform) MXC_NOEXCEPT;

/* ---- Datasets (gluon.data). Samples are lists of arrays ("fields"): {image, label}. ---- */

/* Fashion-MNIST / MNIST from `root` ({train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]; NULL or
 * "": $MXNET_HOME/datasets/fashion-mnist resp. mnist; Debian's dataset-fashion-mnist package
 * installs /usr/share/datasets/fashion-mnist). train nonzero: the 60,000 training images, else
 * the 10,000 test images. Samples: {(28, 28, 1) uint8 image, () int32 label}. Nothing is
 * downloaded. Errors: MXC_NOT_FOUND naming the missing file, MXC_DATA_LOSS for truncated files.
 * Threads: any. */
MXC_STATUS mxc_dataset_fashion_mnist(const char* root, int32_t train,
                                     mxc_dataset** out) MXC_NOEXCEPT;
MXC_STATUS mxc_dataset_mnist(const char* root, int32_t train, mxc_dataset** out) MXC_NOEXCEPT;
/* A dataset over columns[0..num_columns) (ArrayDataset): sample i is {columns[0][i], ...}. The
 * arrays are shared, not copied. Errors: no columns, 0-d arrays, different lengths.
 * Threads: any. */
MXC_STATUS mxc_dataset_from_arrays(mxc_ndarray* const* columns, size_t num_columns,
                                   mxc_dataset** out) MXC_NOEXCEPT;
/* Number of samples. Threads: any. */
MXC_STATUS mxc_dataset_size(mxc_dataset* dataset, int64_t* out) MXC_NOEXCEPT;
/* Sample `index`: its fields (new handles) to fields[0..*num_fields). Errors: index out of range
 * (MXC_OUT_OF_RANGE), max_fields too small (MXC_OUT_OF_RANGE), a transform's error. Threads: any.
 */
MXC_STATUS mxc_dataset_get(mxc_dataset* dataset, int64_t index, mxc_ndarray** fields,
                           size_t max_fields, size_t* num_fields) MXC_NOEXCEPT;
/* The first min(count, size) samples (Dataset.take; count < 0: all). Threads: any. */
MXC_STATUS mxc_dataset_take(mxc_dataset* dataset, int64_t count, mxc_dataset** out) MXC_NOEXCEPT;
/* Contiguous shard `index` of `num_shards` (Dataset.shard). Errors: bad num_shards/index.
 * Threads: any. */
MXC_STATUS mxc_dataset_shard(mxc_dataset* dataset, int64_t num_shards, int64_t index,
                             mxc_dataset** out) MXC_NOEXCEPT;
/* A dataset whose first field is transform(field) (Dataset.transform_first; lazy nonzero: applied
 * on every read, else applied to every sample now). Threads: any. */
MXC_STATUS mxc_dataset_transform_first(mxc_dataset* dataset, mxc_transform* transform, int32_t lazy,
                                       mxc_dataset** out) MXC_NOEXCEPT;
/* +1 reference. Threads: any. */
MXC_STATUS mxc_dataset_retain(mxc_dataset* dataset) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored. Threads: any. */
MXC_API void mxc_dataset_free(mxc_dataset* dataset) MXC_NOEXCEPT;

/* ---- DataLoader (gluon.data.DataLoader), read by polling. ---- */

#define MXC_LAST_BATCH_KEEP 0
#define MXC_LAST_BATCH_DISCARD 1
#define MXC_LAST_BATCH_ROLLOVER 2

typedef struct mxc_dataloader_options {
  size_t struct_size;
  /* Samples per batch (>= 1, required). */
  int64_t batch_size;
  /* Nonzero: a new random order each epoch, drawn from the ctx given to the epoch's first
   * mxc_dataloader_next (NULL: the global generator). */
  int32_t shuffle;
  /* MXC_LAST_BATCH_*: the incomplete last batch is kept (0, default), dropped, or rolled over
   * into the next epoch. */
  int32_t last_batch;
  /* Worker threads loading batches ahead (0: load on the calling thread). With workers and a
   * ctx that has its own RNG stream (seeded), batch i of an epoch is transformed under
   * generators seeded from one draw of the ctx's stream (at the epoch's first
   * mxc_dataloader_next) plus i: random transforms give the same epoch under the same seed,
   * whichever worker loads which batch. */
  int32_t num_workers;
  /* Batches in flight with workers; 0: 2 * num_workers. */
  int32_t prefetch;
} mxc_dataloader_options;

/* A loader batching `dataset` with the default batchify (stack: fields of shape S become
 * (batch, S); Fashion-MNIST with ToTensor gives (B, 1, 28, 28) float32 and (B,) int32).
 * Errors: batch_size < 1, negative num_workers/prefetch, an unknown last_batch. Threads: any. */
MXC_STATUS mxc_dataloader_create(mxc_dataset* dataset, const mxc_dataloader_options* options,
                                 mxc_dataloader** out) MXC_NOEXCEPT;
/* Batches in one epoch (len(loader)). Threads: one thread at a time per loader. */
MXC_STATUS mxc_dataloader_size(mxc_dataloader* loader, int64_t* out) MXC_NOEXCEPT;
/* The next batch of the current epoch: its fields (new handles) to fields[0..*num_fields) and
 * *has_batch = 1; at the end of the epoch *has_batch = 0 and *num_fields = 0, and the next call
 * starts a new epoch (a new order when shuffling, drawn under `ctx`). Errors: a loading error
 * naming the sample and batch (the epoch is then over), max_fields too small (MXC_OUT_OF_RANGE;
 * the batch is not consumed). Threads: one thread at a time per loader. */
MXC_STATUS mxc_dataloader_next(mxc_ctx* ctx, mxc_dataloader* loader, mxc_ndarray** fields,
                               size_t max_fields, size_t* num_fields,
                               int32_t* has_batch) MXC_NOEXCEPT;
/* Ends the current epoch early; the next mxc_dataloader_next starts a new one.
 * Threads: one thread at a time per loader. */
MXC_STATUS mxc_dataloader_reset(mxc_dataloader* loader) MXC_NOEXCEPT;
/* +1 reference. Threads: any. */
MXC_STATUS mxc_dataloader_retain(mxc_dataloader* loader) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored; stops the workers. Threads: any. */
MXC_API void mxc_dataloader_free(mxc_dataloader* loader) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_DATA_H_ */
