// mxc/training.h: losses by name and the Trainer.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"
#include "c_api/src/log.h"
#include "c_api/src/param_ref.h"
#include "gluon/loss/loss.h"
#include "gluon/training/kwargs.h"
#include "gluon/training/trainer.h"
#include "mxc/log.h"

namespace mxc {
namespace {

namespace gluon = mxnet::gluon;
namespace loss = mxnet::gluon::loss;

// keys[i] = values[i] as Kwargs whose values are strings (KwargValue parses them on request).
gluon::Kwargs ToKwargs(const char* const* keys, const char* const* values, size_t n) {
  gluon::Kwargs kw;
  for (auto& [k, v] : Attrs(keys, values, n)) kw.emplace(k, gluon::KwargValue(v));
  return kw;
}

using LossFactory = std::function<gluon::BlockPtr(gluon::KwargReader&)>;

// MXNet's loss classes by name (and the aliases gluon.loss defines), each reading its keyword
// arguments with MXNet's defaults.
const std::map<std::string, LossFactory>& Losses() {
  static const auto* m = [] {
    auto* r = new std::map<std::string, LossFactory>;
    auto& f = *r;
    f["L1Loss"] = [](gluon::KwargReader& k) {
      return std::make_shared<loss::L1Loss>(k.OptDouble("weight"), k.Int("batch_axis", 0));
    };
    f["L2Loss"] = [](gluon::KwargReader& k) {
      return std::make_shared<loss::L2Loss>(k.Double("weight", 1.0), k.Int("batch_axis", 0));
    };
    f["SigmoidBinaryCrossEntropyLoss"] = [](gluon::KwargReader& k) {
      bool from_sigmoid = k.Bool("from_sigmoid", false);
      return std::make_shared<loss::SigmoidBinaryCrossEntropyLoss>(
          from_sigmoid, k.OptDouble("weight"), k.Int("batch_axis", 0));
    };
    f["SigmoidBCELoss"] = f["SigmoidBinaryCrossEntropyLoss"];
    f["SoftmaxCrossEntropyLoss"] = [](gluon::KwargReader& k) {
      int axis = k.Int("axis", -1);
      bool sparse = k.Bool("sparse_label", true), from_logits = k.Bool("from_logits", false);
      return std::make_shared<loss::SoftmaxCrossEntropyLoss>(
          axis, sparse, from_logits, k.OptDouble("weight"), k.Int("batch_axis", 0));
    };
    f["SoftmaxCELoss"] = f["SoftmaxCrossEntropyLoss"];
    f["KLDivLoss"] = [](gluon::KwargReader& k) {
      bool from_logits = k.Bool("from_logits", true);
      int axis = k.Int("axis", -1);
      return std::make_shared<loss::KLDivLoss>(from_logits, axis, k.OptDouble("weight"),
                                               k.Int("batch_axis", 0));
    };
    f["HuberLoss"] = [](gluon::KwargReader& k) {
      double rho = k.Double("rho", 1);
      return std::make_shared<loss::HuberLoss>(rho, k.OptDouble("weight"), k.Int("batch_axis", 0));
    };
    f["HingeLoss"] = [](gluon::KwargReader& k) {
      double margin = k.Double("margin", 1);
      return std::make_shared<loss::HingeLoss>(margin, k.OptDouble("weight"),
                                               k.Int("batch_axis", 0));
    };
    f["SquaredHingeLoss"] = [](gluon::KwargReader& k) {
      double margin = k.Double("margin", 1);
      return std::make_shared<loss::SquaredHingeLoss>(margin, k.OptDouble("weight"),
                                                      k.Int("batch_axis", 0));
    };
    f["LogisticLoss"] = [](gluon::KwargReader& k) {
      auto weight = k.OptDouble("weight");
      int batch_axis = k.Int("batch_axis", 0);
      return std::make_shared<loss::LogisticLoss>(weight, batch_axis,
                                                  k.String("label_format", "signed"));
    };
    f["TripletLoss"] = [](gluon::KwargReader& k) {
      double margin = k.Double("margin", 1);
      return std::make_shared<loss::TripletLoss>(margin, k.OptDouble("weight"),
                                                 k.Int("batch_axis", 0));
    };
    f["PoissonNLLLoss"] = [](gluon::KwargReader& k) {
      auto weight = k.OptDouble("weight");
      bool from_logits = k.Bool("from_logits", true);
      int batch_axis = k.Int("batch_axis", 0);
      bool compute_full = k.Bool("compute_full", false);
      return std::make_shared<loss::PoissonNLLLoss>(weight, from_logits, batch_axis, compute_full,
                                                    k.Double("epsilon", 1e-08));
    };
    f["CosineEmbeddingLoss"] = [](gluon::KwargReader& k) {
      auto weight = k.OptDouble("weight");
      int batch_axis = k.Int("batch_axis", 0);
      return std::make_shared<loss::CosineEmbeddingLoss>(weight, batch_axis, k.Double("margin", 0));
    };
    return r;
  }();
  return *m;
}

std::vector<std::string> LossNames() {
  std::vector<std::string> names;
  for (const auto& [n, f] : Losses()) names.push_back(n);
  return names;
}

}  // namespace
}  // namespace mxc

namespace gluon = mxnet::gluon;

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_trainer)

MXC_STATUS mxc_loss_list(char*** names, size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(names, "names"), mxc::Out(count, "count");
    std::vector<std::string> v = mxc::LossNames();
    *names = mxc::NewStringArray(v);
    *count = v.size();
  });
}

MXC_STATUS mxc_loss_create(const char* name, const char* const* keys, const char* const* values,
                           size_t num_kwargs, mxc_block** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string n(mxc::Str(name, "name"));
    gluon::Kwargs kw = mxc::ToKwargs(keys, values, num_kwargs);
    auto it = mxc::Losses().find(n);
    if (it == mxc::Losses().end())
      mxc::BadArgument("name", "unknown loss '", n, "' (", mxnet::StrJoin(mxc::LossNames(), ", "),
                       ")");
    gluon::KwargReader reader(n, kw);
    gluon::BlockPtr b = it->second(reader);
    reader.Finish();
    *out = mxc::New<mxc_block>(std::move(b));
  });
}

MXC_STATUS mxc_trainer_create(mxc_parameter* const* params, size_t num_params,
                              const char* optimizer, const char* const* keys,
                              const char* const* values, size_t num_kwargs,
                              mxc_trainer** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc::Array(params, num_params, "params");
    std::vector<gluon::ParameterPtr> ps;
    for (size_t i = 0; i < num_params; ++i)
      ps.push_back(mxc::Get(params[i], mxc::Arg("params", static_cast<int64_t>(i)))->param);
    std::string opt(mxc::Str(optimizer, "optimizer"));
    gluon::Kwargs kw = mxc::ToKwargs(keys, values, num_kwargs);
    auto t = std::make_shared<gluon::Trainer>(std::move(ps), opt, kw);
    *out = mxc::New<mxc_trainer>(std::move(t));
  });
}

MXC_STATUS mxc_trainer_step(mxc_ctx* ctx, mxc_trainer* trainer, double batch_size,
                            int32_t ignore_stale_grad) noexcept {
  return mxc::Call(__func__, [&] {
    auto t = mxc::Get(trainer, "trainer");
    if (!(batch_size > 0)) mxc::BadArgument("batch_size", "must be > 0, got ", batch_size);
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    t->step(batch_size, ignore_stale_grad != 0);
    if (mxc::LogEnabled(MXC_LOG_PROGRESS)) {
      int64_t n = t->optimizer().num_update();
      mxc::Log(MXC_LOG_PROGRESS, "mxc_trainer_step", mxnet::StrCat("step ", n), n, -1);
    }
  });
}

MXC_STATUS mxc_trainer_learning_rate(mxc_trainer* trainer, double* out) noexcept {
  return mxc::Getter(__func__, trainer, "trainer", out,
                     [](const auto& t) { return t->learning_rate(); });
}

MXC_STATUS mxc_trainer_set_learning_rate(mxc_trainer* trainer, double lr) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(trainer, "trainer")->set_learning_rate(lr); });
}

MXC_STATUS mxc_trainer_save_states(mxc_trainer* trainer, const char* path) noexcept {
  return mxc::Call(__func__, [&] {
    auto t = mxc::Get(trainer, "trainer");
    mxnet::ThrowIfError(t->save_states(std::string(mxc::Str(path, "path"))));
  });
}

MXC_STATUS mxc_trainer_load_states(mxc_trainer* trainer, const char* path) noexcept {
  return mxc::Call(__func__, [&] {
    auto t = mxc::Get(trainer, "trainer");
    mxnet::ThrowIfError(t->load_states(std::string(mxc::Str(path, "path"))));
  });
}

}  // extern "C"
