// mxc/gluon.h: model zoo, blocks, parameters.
#include <cstdlib>
#include <memory>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"
#include "c_api/src/ndarray_util.h"
#include "c_api/src/param_ref.h"
#include "gluon/block.h"
#include "gluon/init.h"
#include "gluon/symbol_block.h"
#include "modelzoo/vision.h"

namespace mxc {

namespace {

namespace gluon = mxnet::gluon;

// The initializer `init` names (NULL or "": none, the library's default).
gluon::InitializerPtr Init(const char* init) {
  if (!init) return nullptr;
  std::string spec(Str(init, "init"));
  return spec.empty() ? nullptr : gluon::init::Create(spec);
}

mxnet::GradReq ToGradReq(int32_t r) {
  if (r == MXC_GRAD_NULL) return mxnet::GradReq::kNull;
  if (r == MXC_GRAD_WRITE) return mxnet::GradReq::kWrite;
  if (r == MXC_GRAD_ADD) return mxnet::GradReq::kAdd;
  BadArgument("grad_req", "unknown grad_req ", r,
              " (MXC_GRAD_NULL 0, MXC_GRAD_WRITE 1, MXC_GRAD_ADD 2)");
}

// The parameter's copy on `device` ({0, 0}: its first device).
std::optional<mxnet::Device> OnDevice(mxc_device device) {
  if (device.type == 0 && device.id == 0) return std::nullopt;
  return ToDevice(device, "device");
}

}  // namespace
}  // namespace mxc

namespace gluon = mxnet::gluon;

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_block)
MXC_DEFINE_RETAIN_FREE(mxc_parameter)

MXC_API void mxc_parameter_array_free(mxc_parameter** params, size_t count) noexcept {
  if (!params) return;
  for (size_t i = 0; i < count; ++i) mxc_parameter_free(params[i]);
  std::free(params);
}

MXC_STATUS mxc_model_zoo_list(char*** names, size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(names, "names"), mxc::Out(count, "count");
    std::vector<std::string> v = gluon::model_zoo::vision::model_names();
    *names = mxc::NewStringArray(v);
    *count = v.size();
  });
}

MXC_STATUS mxc_model_zoo_get(const char* name, const mxc_model_options* options,
                             mxc_block** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string n(mxc::Str(name, "name"));
    mxc_model_options o = mxc::ReadOptions(options, "options");
    gluon::model_zoo::vision::ModelOptions mo;
    if (o.classes < 0) mxc::BadArgument("options.classes", "negative: ", o.classes);
    if (o.classes) mo.classes = o.classes;
    mo.pretrained = o.pretrained != 0;
    if (o.root) mo.root = std::string(mxc::Str(o.root, "options.root"));
    mo.device = mxc::ToDevice(o.device, "options.device");
    gluon::BlockPtr b = gluon::model_zoo::vision::get_model(n, mo);
    *out = mxc::New<mxc_block>(std::move(b));
  });
}

MXC_STATUS mxc_symbol_block_imports(const char* symbol_file, const char* const* input_names,
                                    size_t num_inputs, const char* param_file, mxc_device device,
                                    mxc_block** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string sym(mxc::Str(symbol_file, "symbol_file"));
    std::vector<std::string> inputs = mxc::Strs(input_names, num_inputs, "input_names");
    std::string params = param_file ? std::string(mxc::Str(param_file, "param_file")) : "";
    auto b = mxnet::ValueOrThrow(
        gluon::SymbolBlock::imports(sym, inputs, params, {mxc::ToDevice(device, "device")}));
    *out = mxc::New<mxc_block>(gluon::BlockPtr(std::move(b)));
  });
}

MXC_STATUS mxc_symbol_block_create(mxc_symbol* outputs, const char* const* input_names,
                                   size_t num_inputs, mxc_block** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto graph = mxc::Get(outputs, "outputs");
    std::vector<std::string> inputs = mxc::Strs(input_names, num_inputs, "input_names");
    auto b = std::make_shared<gluon::SymbolBlock>(*graph, std::move(inputs));
    *out = mxc::New<mxc_block>(gluon::BlockPtr(std::move(b)));
  });
}

MXC_STATUS mxc_block_initialize(mxc_ctx* ctx, mxc_block* block, const char* init, mxc_device device,
                                int32_t force_reinit) noexcept {
  return mxc::Call(__func__, [&] {
    gluon::BlockPtr b = mxc::Get(block, "block");
    gluon::InitializerPtr i = mxc::Init(init);
    mxnet::Device d = mxc::ToDevice(device, "device");
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    b->initialize(i, {d}, false, force_reinit != 0);
  });
}

MXC_STATUS mxc_block_call(mxc_ctx* ctx, mxc_block* block, mxc_ndarray* const* inputs,
                          size_t num_inputs, mxc_ndarray** outputs, size_t max_outputs,
                          size_t* num_outputs) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(num_outputs, "num_outputs");
    mxc::Array(outputs, max_outputs, "outputs");
    gluon::BlockPtr b = mxc::Get(block, "block");
    mxnet::NDArrayVec in;
    mxc::GetAll(inputs, num_inputs, "inputs", &in);
    auto c = mxc::GetCtx(ctx);
    mxnet::NDArrayVec outs;
    {
      mxc::CtxScope scope(c.get());
      outs = (*b)(in);
    }
    mxc::ReturnArrays(outs, outputs, max_outputs, num_outputs, b->class_name(), "outputs");
  });
}

MXC_STATUS mxc_block_hybridize(mxc_block* block, const mxc_hybridize_options* options) noexcept {
  return mxc::Call(__func__, [&] {
    gluon::BlockPtr b = mxc::Get(block, "block");
    mxc_hybridize_options o = mxc::ReadOptions(options, "options");
    gluon::HybridizeOptions ho;
    ho.static_alloc = o.static_alloc != 0;
    ho.static_shape = o.static_shape != 0;
    if (o.backend) ho.backend = std::string(mxc::Str(o.backend, "options.backend"));
    b->hybridize(!o.deactivate, ho);
  });
}

MXC_STATUS mxc_block_export(mxc_block* block, const char* path, int32_t epoch) noexcept {
  return mxc::Call(__func__, [&] {
    gluon::BlockPtr b = mxc::Get(block, "block");
    std::string p(mxc::Str(path, "path"));
    auto* h = dynamic_cast<gluon::HybridBlock*>(b.get());
    if (!h)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "a ", b->class_name(),
               " is not a HybridBlock and cannot be exported");
    if (epoch < 0) mxc::BadArgument("epoch", "negative: ", epoch);
    mxnet::ThrowIfError(h->export_model(p, epoch));
  });
}

MXC_STATUS mxc_block_save_parameters(mxc_block* block, const char* path) noexcept {
  return mxc::Call(__func__, [&] {
    gluon::BlockPtr b = mxc::Get(block, "block");
    mxnet::ThrowIfError(b->save_parameters(std::string(mxc::Str(path, "path"))));
  });
}

MXC_STATUS mxc_block_load_parameters(mxc_block* block, const char* path,
                                     const mxc_load_parameters_options* options) noexcept {
  return mxc::Call(__func__, [&] {
    gluon::BlockPtr b = mxc::Get(block, "block");
    std::string p(mxc::Str(path, "path"));
    mxc_load_parameters_options o = mxc::ReadOptions(options, "options");
    gluon::LoadParametersOptions lo;
    lo.devices = {mxc::ToDevice(o.device, "options.device")};
    lo.allow_missing = o.allow_missing != 0;
    lo.ignore_extra = o.ignore_extra != 0;
    lo.cast_dtype = o.cast_dtype != 0;
    mxnet::ThrowIfError(b->load_parameters(p, lo));
  });
}

MXC_STATUS mxc_block_collect_params(mxc_block* block, const char* select, mxc_parameter*** params,
                                    size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(params, "params"), mxc::Out(count, "count");
    gluon::BlockPtr b = mxc::Get(block, "block");
    std::string re = select ? std::string(mxc::Str(select, "select")) : "";
    gluon::ParameterDict d = b->collect_params(re);
    size_t n = d.size();
    auto** arr = static_cast<mxc_parameter**>(std::calloc(n ? n : 1, sizeof(mxc_parameter*)));
    if (!arr) throw std::bad_alloc();
    try {
      size_t i = 0;
      for (const auto& [name, p] : d.items())
        arr[i++] =
            mxc::New<mxc_parameter>(std::make_shared<const mxc::ParamRef>(mxc::ParamRef{name, p}));
    } catch (...) {
      mxc_parameter_array_free(arr, n);
      throw;
    }
    *params = arr;
    *count = n;
  });
}

MXC_STATUS mxc_block_zero_grad(mxc_block* block) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(block, "block")->zero_grad(); });
}

MXC_STATUS mxc_block_to_string(mxc_block* block, char** text) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(text, "text");
    *text = mxc::NewString(mxc::Get(block, "block")->ToString());
  });
}

// ---- Parameters. ----

MXC_STATUS mxc_parameter_name(mxc_parameter* param, char** name) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(name, "name");
    *name = mxc::NewString(mxc::Get(param, "param")->name);
  });
}

MXC_STATUS mxc_parameter_shape(mxc_parameter* param, int64_t* dims, size_t capacity,
                               int32_t* ndim) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(ndim, "ndim");
    mxnet::Shape s = mxc::Get(param, "param")->param->shape();
    int n = s.ndim();
    if (n > 0 && capacity < static_cast<size_t>(n))
      MX_THROW(absl::StatusCode::kOutOfRange, "the parameter has ", n, " dims but dims holds ",
               capacity);
    if (n > 0) mxc::Array(dims, static_cast<size_t>(n), "dims");
    for (int i = 0; i < n; ++i) dims[i] = s[i];
    *ndim = n;
  });
}

MXC_STATUS mxc_parameter_dtype(mxc_parameter* param, int32_t* dtype) noexcept {
  return mxc::Getter(__func__, param, "param", dtype, [](const auto& p) {
    return static_cast<int32_t>(mxnet::DTypeFlag(p->param->dtype()));
  });
}

MXC_STATUS mxc_parameter_data(mxc_parameter* param, mxc_device device, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto p = mxc::Get(param, "param");
    *out = mxc::New<mxc_ndarray>(p->param->data(mxc::OnDevice(device)));
  });
}

MXC_STATUS mxc_parameter_grad(mxc_parameter* param, mxc_device device, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto p = mxc::Get(param, "param");
    *out = mxc::New<mxc_ndarray>(p->param->grad(mxc::OnDevice(device)));
  });
}

MXC_STATUS mxc_parameter_set_data(mxc_parameter* param, mxc_ndarray* value) noexcept {
  return mxc::Call(__func__, [&] {
    auto p = mxc::Get(param, "param");
    p->param->set_data(mxc::Get(value, "value"));
  });
}

MXC_STATUS mxc_parameter_initialize(mxc_ctx* ctx, mxc_parameter* param, const char* init,
                                    mxc_device device, int32_t force_reinit) noexcept {
  return mxc::Call(__func__, [&] {
    auto p = mxc::Get(param, "param");
    gluon::InitializerPtr i = mxc::Init(init);
    mxnet::Device d = mxc::ToDevice(device, "device");
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    p->param->initialize(i, {d}, nullptr, force_reinit != 0);
  });
}

MXC_STATUS mxc_parameter_zero_grad(mxc_parameter* param) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(param, "param")->param->zero_grad(); });
}

MXC_STATUS mxc_parameter_grad_req(mxc_parameter* param, int32_t* grad_req) noexcept {
  return mxc::Getter(__func__, param, "param", grad_req,
                     [](const auto& p) { return static_cast<int32_t>(p->param->grad_req()); });
}

MXC_STATUS mxc_parameter_set_grad_req(mxc_parameter* param, int32_t grad_req) noexcept {
  return mxc::Call(__func__, [&] {
    auto p = mxc::Get(param, "param");
    p->param->set_grad_req(mxc::ToGradReq(grad_req));
  });
}

MXC_STATUS mxc_parameter_lr_mult(mxc_parameter* param, double* out) noexcept {
  return mxc::Getter(__func__, param, "param", out,
                     [](const auto& p) { return p->param->lr_mult(); });
}

MXC_STATUS mxc_parameter_set_lr_mult(mxc_parameter* param, double value) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(param, "param")->param->set_lr_mult(value); });
}

MXC_STATUS mxc_parameter_wd_mult(mxc_parameter* param, double* out) noexcept {
  return mxc::Getter(__func__, param, "param", out,
                     [](const auto& p) { return p->param->wd_mult(); });
}

MXC_STATUS mxc_parameter_set_wd_mult(mxc_parameter* param, double value) noexcept {
  return mxc::Call(__func__, [&] { mxc::Get(param, "param")->param->set_wd_mult(value); });
}

}  // extern "C"
