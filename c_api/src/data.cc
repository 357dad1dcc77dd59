// mxc/data.h: images, transforms, datasets, the polling DataLoader.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"
#include "c_api/src/log.h"
#include "c_api/src/ndarray_util.h"
#include "gluon/data/dataloader.h"
#include "gluon/data/dataset.h"
#include "gluon/data/vision/datasets.h"
#include "gluon/data/vision/image.h"
#include "gluon/data/vision/transforms.h"
#include "mxc/data.h"
#include "mxc/log.h"

namespace mxc {

// What an mxc_dataloader holds: the loader and the epoch being read (none between epochs).
struct LoaderState {
  std::unique_ptr<mxnet::gluon::data::DataLoader> loader;
  std::optional<mxnet::gluon::data::DataLoader::Iterator> epoch;
  bool returned = false;  // the epoch's current batch was handed out
  int64_t index = 0;      // batches handed out in this epoch
};

namespace {

namespace data = mxnet::gluon::data;
namespace vision = mxnet::gluon::data::vision;
namespace tf = mxnet::gluon::data::vision::transforms;

vision::Interp ToInterp(int32_t interp, std::string_view arg) {
  auto r = vision::InterpFromInt(interp);
  if (!r.ok())
    BadArgument(arg, "unknown interpolation ", interp, " (0..4, MXC_INTERP_*, or 9, 10)");
  return *r;
}

void Positive(int64_t v, std::string_view arg) {
  if (v <= 0) BadArgument(arg, "must be > 0, got ", v);
}

// A transform calling a C function; frees the user data once, when the last copy is gone.
class CallbackTransform : public tf::Transform {
 public:
  // user_data is not owned until Own(): nothing frees it if a later step of the creation fails.
  CallbackTransform(mxc_transform_fn fn, void* user_data)
      : fn_(fn), user_(user_data, UserFree{nullptr}) {}
  void Own(mxc_user_data_free_fn free_fn) { std::get_deleter<UserFree>(user_)->fn = free_fn; }
  mxnet::NDArray Forward(const mxnet::NDArray& x) const override {
    mxc_ndarray* in = New<mxc_ndarray>(x);
    mxc_ndarray* out = nullptr;
    mxc_status* st = fn_(user_.get(), in, &out);
    mxc_ndarray_free(in);
    if (st) {
      mxc_code code = mxc_status_code(st);
      std::string msg = mxc_status_message(st);
      mxc_status_free(st);
      mxc_ndarray_free(out);
      MX_THROW(static_cast<absl::StatusCode>(code), "transform callback failed: ", msg);
    }
    if (!out) MX_THROW(absl::StatusCode::kInternal, "transform callback returned no array");
    mxnet::NDArray r = Get(out, "the callback's output");
    mxc_ndarray_free(out);
    return r;
  }
  std::string ToString() const override { return "<C callback>"; }

 private:
  struct UserFree {
    mxc_user_data_free_fn fn;
    void operator()(void* p) const {
      if (fn) fn(p);
    }
  };
  mxc_transform_fn fn_;
  std::shared_ptr<void> user_;
};

mxc_transform* NewTransform(std::shared_ptr<const tf::Transform> t) {
  return New<mxc_transform>(std::move(t));
}

mxc_dataset* NewDataset(data::DatasetPtr d) { return New<mxc_dataset>(std::move(d)); }

}  // namespace
}  // namespace mxc

namespace data = mxnet::gluon::data;
namespace vision = mxnet::gluon::data::vision;
namespace tf = mxnet::gluon::data::vision::transforms;

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_transform)
MXC_DEFINE_RETAIN_FREE(mxc_dataset)
MXC_DEFINE_RETAIN_FREE(mxc_dataloader)

// ---- Images. ----

MXC_STATUS mxc_image_decode(const void* bytes, size_t size, int32_t flag, int32_t to_rgb,
                            mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc::Array(static_cast<const char*>(bytes), size, "bytes");
    if (flag != 0 && flag != 1) mxc::BadArgument("flag", "must be 0 or 1, got ", flag);
    std::string_view b(static_cast<const char*>(bytes), size);
    *out = mxc::New<mxc_ndarray>(mxnet::ValueOrThrow(vision::imdecode(b, flag, to_rgb != 0)));
  });
}

MXC_STATUS mxc_image_read(const char* path, int32_t flag, int32_t to_rgb,
                          mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string p(mxc::Str(path, "path"));
    if (flag != 0 && flag != 1) mxc::BadArgument("flag", "must be 0 or 1, got ", flag);
    *out = mxc::New<mxc_ndarray>(mxnet::ValueOrThrow(vision::imread(p, flag, to_rgb != 0)));
  });
}

MXC_STATUS mxc_image_resize_short(mxc_ndarray* image, int64_t size, int32_t interp,
                                  int32_t round_long_side, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::NDArray img = mxc::Get(image, "image");
    mxc::Positive(size, "size");
    vision::Interp i = mxc::ToInterp(interp, "interp");
    if (img.shape().ndim() != 3)
      mxc::BadArgument("image", "expected an (H, W, C) image, got shape ", img.shape().ToString());
    *out = mxc::New<mxc_ndarray>(vision::resize_short(img, size, i, round_long_side != 0));
  });
}

// ---- Transforms. ----

MXC_STATUS mxc_transform_to_tensor(mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewTransform(std::make_shared<tf::ToTensor>());
  });
}

MXC_STATUS mxc_transform_normalize(const float* mean, size_t num_mean, const float* std,
                                   size_t num_std, mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc::Array(mean, num_mean, "mean"), mxc::Array(std, num_std, "std");
    if (!num_mean) mxc::BadArgument("mean", "empty");
    if (!num_std) mxc::BadArgument("std", "empty");
    *out = mxc::NewTransform(std::make_shared<tf::Normalize>(
        std::vector<float>(mean, mean + num_mean), std::vector<float>(std, std + num_std)));
  });
}

MXC_STATUS mxc_transform_resize(int64_t width, int64_t height, int32_t keep_ratio, int32_t interp,
                                mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc::Positive(width, "width");
    vision::Interp i = mxc::ToInterp(interp, "interp");
    if (keep_ratio) {
      if (height != 0) mxc::BadArgument("height", "must be 0 with keep_ratio, got ", height);
      *out = mxc::NewTransform(std::make_shared<tf::Resize>(tf::Size2(width), true, i));
    } else {
      mxc::Positive(height, "height");
      *out = mxc::NewTransform(std::make_shared<tf::Resize>(tf::Size2(width, height), false, i));
    }
  });
}

MXC_STATUS mxc_transform_center_crop(int64_t width, int64_t height, int32_t interp,
                                     mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc::Positive(width, "width"), mxc::Positive(height, "height");
    vision::Interp i = mxc::ToInterp(interp, "interp");
    *out = mxc::NewTransform(std::make_shared<tf::CenterCrop>(tf::Size2(width, height), i));
  });
}

MXC_STATUS mxc_transform_cast(int32_t dtype, mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewTransform(std::make_shared<tf::Cast>(mxc::ToDType(dtype, "dtype")));
  });
}

MXC_STATUS mxc_transform_compose(mxc_transform* const* steps, size_t count,
                                 mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::vector<std::shared_ptr<const tf::Transform>> ts;
    mxc::GetAll(steps, count, "steps", &ts);
    if (ts.empty()) mxc::BadArgument("steps", "no steps");
    std::vector<tf::Compose::Step> s;
    for (auto& t : ts) s.emplace_back(t);
    *out = mxc::NewTransform(std::make_shared<tf::Compose>(std::move(s)));
  });
}

MXC_STATUS mxc_transform_from_callback(mxc_transform_fn fn, void* user_data,
                                       mxc_user_data_free_fn free_user_data,
                                       mxc_transform** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    if (!fn) mxc::BadArgument("fn", "the function pointer is NULL");
    auto t = std::make_shared<mxc::CallbackTransform>(fn, user_data);
    *out = mxc::NewTransform(t);
    t->Own(free_user_data);  // cannot fail
  });
}

MXC_STATUS mxc_transform_apply(mxc_transform* transform, mxc_ndarray* input,
                               mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto t = mxc::Get(transform, "transform");
    mxnet::NDArray x = mxc::Get(input, "input");
    *out = mxc::New<mxc_ndarray>((*t)(x));
  });
}

MXC_STATUS mxc_transform_to_string(mxc_transform* transform, char** text) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(text, "text");
    *text = mxc::NewString(mxc::Get(transform, "transform")->ToString());
  });
}

// ---- Datasets. ----

MXC_STATUS mxc_dataset_fashion_mnist(const char* root, int32_t train, mxc_dataset** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string r = root ? std::string(mxc::Str(root, "root")) : "";
    if (r.empty()) r = vision::DefaultRoot("fashion-mnist");
    *out = mxc::NewDataset(mxnet::ValueOrThrow(vision::FashionMNIST::Create(r, train != 0)));
  });
}

MXC_STATUS mxc_dataset_mnist(const char* root, int32_t train, mxc_dataset** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string r = root ? std::string(mxc::Str(root, "root")) : "";
    if (r.empty()) r = vision::DefaultRoot("mnist");
    *out = mxc::NewDataset(mxnet::ValueOrThrow(vision::MNIST::Create(r, train != 0)));
  });
}

MXC_STATUS mxc_dataset_from_arrays(mxc_ndarray* const* columns, size_t num_columns,
                                   mxc_dataset** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::vector<mxnet::NDArray> arrays;
    mxc::GetAll(columns, num_columns, "columns", &arrays);
    std::vector<data::ArrayDataset::Column> cols(arrays.begin(), arrays.end());
    *out = mxc::NewDataset(std::make_shared<data::ArrayDataset>(std::move(cols)));
  });
}

MXC_STATUS mxc_dataset_size(mxc_dataset* dataset, int64_t* out) noexcept {
  return mxc::Getter(__func__, dataset, "dataset", out, [](const auto& d) { return d->size(); });
}

MXC_STATUS mxc_dataset_get(mxc_dataset* dataset, int64_t index, mxc_ndarray** fields,
                           size_t max_fields, size_t* num_fields) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(num_fields, "num_fields");
    mxc::Array(fields, max_fields, "fields");
    auto d = mxc::Get(dataset, "dataset");
    if (index < 0 || index >= d->size())
      MX_THROW(absl::StatusCode::kOutOfRange, "index ", index, " is out of range for a dataset of ",
               d->size(), " samples");
    mxnet::gluon::data::Sample sample = d->at(index);
    mxc::ReturnArrays(sample, fields, max_fields, num_fields, "the sample", "fields");
  });
}

MXC_STATUS mxc_dataset_take(mxc_dataset* dataset, int64_t count, mxc_dataset** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewDataset(mxc::Get(dataset, "dataset")->take(count));
  });
}

MXC_STATUS mxc_dataset_shard(mxc_dataset* dataset, int64_t num_shards, int64_t index,
                             mxc_dataset** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewDataset(mxc::Get(dataset, "dataset")->shard(num_shards, index));
  });
}

MXC_STATUS mxc_dataset_transform_first(mxc_dataset* dataset, mxc_transform* transform, int32_t lazy,
                                       mxc_dataset** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto d = mxc::Get(dataset, "dataset");
    std::shared_ptr<const tf::Transform> t = mxc::Get(transform, "transform");
    auto fn = [t](const mxnet::NDArray& x) { return (*t)(x); };
    *out = mxc::NewDataset(d->transform_first(fn, lazy != 0));
  });
}

// ---- DataLoader. ----

MXC_STATUS mxc_dataloader_create(mxc_dataset* dataset, const mxc_dataloader_options* options,
                                 mxc_dataloader** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto d = mxc::Get(dataset, "dataset");
    mxc_dataloader_options o = mxc::ReadOptions(options, "options");
    if (o.batch_size < 1)
      mxc::BadArgument("options.batch_size", "must be >= 1, got ", o.batch_size);
    if (o.num_workers < 0) mxc::BadArgument("options.num_workers", "negative: ", o.num_workers);
    if (o.prefetch < 0) mxc::BadArgument("options.prefetch", "negative: ", o.prefetch);
    data::DataLoaderOptions lo;
    lo.batch_size = o.batch_size;
    lo.shuffle = o.shuffle != 0;
    switch (o.last_batch) {
      case MXC_LAST_BATCH_KEEP:
        lo.last_batch = data::LastBatch::kKeep;
        break;
      case MXC_LAST_BATCH_DISCARD:
        lo.last_batch = data::LastBatch::kDiscard;
        break;
      case MXC_LAST_BATCH_ROLLOVER:
        lo.last_batch = data::LastBatch::kRollover;
        break;
      default:
        mxc::BadArgument("options.last_batch", "unknown value ", o.last_batch,
                         " (MXC_LAST_BATCH_KEEP 0, _DISCARD 1, _ROLLOVER 2)");
    }
    lo.num_workers = o.num_workers;
    lo.prefetch = o.prefetch ? o.prefetch : -1;
    auto s = std::make_shared<mxc::LoaderState>();
    s->loader = std::make_unique<data::DataLoader>(d, lo);
    *out = mxc::New<mxc_dataloader>(std::move(s));
  });
}

MXC_STATUS mxc_dataloader_size(mxc_dataloader* loader, int64_t* out) noexcept {
  return mxc::Getter(__func__, loader, "loader", out,
                     [](const auto& s) { return s->loader->size(); });
}

MXC_STATUS mxc_dataloader_next(mxc_ctx* ctx, mxc_dataloader* loader, mxc_ndarray** fields,
                               size_t max_fields, size_t* num_fields, int32_t* has_batch) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(num_fields, "num_fields"), mxc::Out(has_batch, "has_batch");
    mxc::Array(fields, max_fields, "fields");
    auto s = mxc::Get(loader, "loader");
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    try {
      if (!s->epoch) {
        s->epoch.emplace(s->loader->begin());  // the order is drawn here
        s->index = 0;
      } else if (s->returned) {
        ++*s->epoch;
      }
      s->returned = false;
    } catch (...) {
      s->epoch.reset();  // a loading error ends the epoch
      throw;
    }
    if (*s->epoch == std::default_sentinel) {
      s->epoch.reset();
      *num_fields = 0;
      *has_batch = 0;
      return;
    }
    data::Batch batch = **s->epoch;  // a copy of a few handles: the batch stays if this fails
    mxc::ReturnArrays(batch, fields, max_fields, num_fields, "the batch", "fields");
    s->returned = true;
    *has_batch = 1;
    ++s->index;
    if (mxc::LogEnabled(MXC_LOG_PROGRESS)) {
      int64_t total = s->loader->size();
      mxc::Log(MXC_LOG_PROGRESS, "mxc_dataloader_next",
               mxnet::StrCat("batch ", s->index, "/", total), s->index, total);
    }
  });
}

MXC_STATUS mxc_dataloader_reset(mxc_dataloader* loader) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(loader, "loader")->epoch.reset(); });
}

}  // extern "C"
