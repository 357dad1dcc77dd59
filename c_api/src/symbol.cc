// mxc/symbol.h: symbolic graphs.
#include <map>
#include <memory>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/handles.h"
#include "c_api/src/ops_util.h"
#include "symbol/symbol.h"

namespace mxc {

// What an mxc_infer_result holds.
struct InferResult {
  bool is_shape = true;
  mxnet::sym::InferResult<mxnet::Shape> shapes;
  mxnet::sym::InferResult<int> types;
  // dims of every shape, flattened per list (the pointers mxc_infer_result_shape returns).
  std::vector<std::vector<int64_t>> dims[3];
};

namespace {

using SymbolPtr = std::shared_ptr<const mxnet::sym::Symbol>;

mxc_symbol* NewSymbol(mxnet::sym::Symbol s) {
  return New<mxc_symbol>(std::make_shared<const mxnet::sym::Symbol>(std::move(s)));
}

void ReturnNames(const std::vector<std::string>& v, char*** names, size_t* count) {
  char** arr = NewStringArray(v);
  *names = arr;
  *count = v.size();
}

std::vector<mxnet::sym::Symbol> Symbols(mxc_symbol* const* hs, size_t n, std::string_view arg) {
  std::vector<SymbolPtr> ps;
  GetAll(hs, n, arg, &ps);
  std::vector<mxnet::sym::Symbol> out;
  for (const auto& p : ps) out.push_back(*p);
  return out;
}

template <typename T>
const std::vector<T>& List(const mxnet::sym::InferResult<T>& r, int32_t which) {
  switch (which) {
    case MXC_INFER_ARGUMENTS:
      return r.arg;
    case MXC_INFER_OUTPUTS:
      return r.out;
    case MXC_INFER_AUX_STATES:
      return r.aux;
  }
  BadArgument("which", "unknown list ", which,
              " (MXC_INFER_ARGUMENTS 0, MXC_INFER_OUTPUTS 1, MXC_INFER_AUX_STATES 2)");
}

}  // namespace
}  // namespace mxc

using mxc::Arg;

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_symbol)
MXC_DEFINE_RETAIN_FREE(mxc_infer_result)

MXC_STATUS mxc_symbol_from_json(const char* json, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out =
        mxc::NewSymbol(mxnet::ValueOrThrow(mxnet::sym::Symbol::fromjson(mxc::Str(json, "json"))));
  });
}

MXC_STATUS mxc_symbol_load(const char* path, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewSymbol(
        mxnet::ValueOrThrow(mxnet::sym::Symbol::load(std::string(mxc::Str(path, "path")))));
  });
}

MXC_STATUS mxc_symbol_to_json(mxc_symbol* symbol, char** json) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(json, "json");
    *json = mxc::NewString(mxc::Get(symbol, "symbol")->tojson());
  });
}

MXC_STATUS mxc_symbol_save(mxc_symbol* symbol, const char* path) noexcept {
  return mxc::Call(__func__, [&] {
    auto s = mxc::Get(symbol, "symbol");
    mxnet::ThrowIfError(s->save(std::string(mxc::Str(path, "path"))));
  });
}

MXC_STATUS mxc_symbol_variable(const char* name, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    std::string n(mxc::Str(name, "name"));
    if (n.empty()) mxc::BadArgument("name", "empty variable name");
    *out = mxc::NewSymbol(mxnet::sym::Symbol::Variable(n));
  });
}

MXC_STATUS mxc_symbol_create(mxc_op* op, mxc_symbol* const* inputs, size_t num_inputs,
                             const char* const* keys, const char* const* values, size_t num_attrs,
                             const char* name, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    const mxnet::Op& o = mxc::OpOf(op, "op");
    std::vector<mxnet::sym::Symbol> in = mxc::Symbols(inputs, num_inputs, "inputs");
    mxnet::AttrDict attrs = mxc::Attrs(keys, values, num_attrs);
    std::string n = name ? std::string(mxc::Str(name, "name")) : std::string();
    *out = mxc::NewSymbol(mxnet::sym::Symbol::Create(o.name, in, attrs, n));
  });
}

MXC_STATUS mxc_symbol_group(mxc_symbol* const* symbols, size_t count, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewSymbol(mxnet::sym::Symbol::Group(mxc::Symbols(symbols, count, "symbols")));
  });
}

MXC_STATUS mxc_symbol_output(mxc_symbol* symbol, size_t index, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto s = mxc::Get(symbol, "symbol");
    if (index >= s->num_outputs())
      MX_THROW(absl::StatusCode::kOutOfRange, "output index ", index, " is out of range (",
               s->num_outputs(), " outputs)");
    *out = mxc::NewSymbol((*s)[index]);
  });
}

MXC_STATUS mxc_symbol_get_internals(mxc_symbol* symbol, mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::NewSymbol(mxc::Get(symbol, "symbol")->get_internals());
  });
}

MXC_STATUS mxc_symbol_compose(mxc_symbol* symbol, const char* const* names,
                              mxc_symbol* const* substitutes, size_t count,
                              mxc_symbol** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto s = mxc::Get(symbol, "symbol");
    mxc::Array(names, count, "names");
    std::vector<mxnet::sym::Symbol> subs = mxc::Symbols(substitutes, count, "substitutes");
    std::map<std::string, mxnet::sym::Symbol> m;
    for (size_t i = 0; i < count; ++i) {
      std::string n(mxc::Str(names[i], Arg("names", static_cast<int64_t>(i)).str()));
      if (!m.emplace(n, subs[i]).second)
        mxc::BadArgument(Arg("names", static_cast<int64_t>(i)).str(), "duplicate name '", n, "'");
    }
    *out = mxc::NewSymbol(s->compose(m));
  });
}

MXC_STATUS mxc_symbol_name(mxc_symbol* symbol, char** name) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(name, "name");
    *name = mxc::NewString(mxc::Get(symbol, "symbol")->name());
  });
}

#define MXC_SYMBOL_LIST(fn, method)                                          \
  MXC_STATUS fn(mxc_symbol* symbol, char*** names, size_t* count) noexcept { \
    return mxc::Call(__func__, [&] {                                         \
      mxc::Out(names, "names"), mxc::Out(count, "count");                    \
      mxc::ReturnNames(mxc::Get(symbol, "symbol")->method(), names, count);  \
    });                                                                      \
  }
MXC_SYMBOL_LIST(mxc_symbol_list_arguments, list_arguments)
MXC_SYMBOL_LIST(mxc_symbol_list_outputs, list_outputs)
MXC_SYMBOL_LIST(mxc_symbol_list_auxiliary_states, list_auxiliary_states)
MXC_SYMBOL_LIST(mxc_symbol_list_inputs, list_inputs)
#undef MXC_SYMBOL_LIST

MXC_STATUS mxc_symbol_infer_shape(mxc_symbol* symbol, const char* const* names, const size_t* ndims,
                                  const int64_t* dims, size_t count, int32_t partial,
                                  mxc_infer_result** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto s = mxc::Get(symbol, "symbol");
    mxc::Array(names, count, "names");
    mxc::Array(ndims, count, "ndims");
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += ndims[i];
    mxc::Array(dims, total, "dims");
    std::map<std::string, mxnet::Shape> known;
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
      Arg a("names", static_cast<int64_t>(i));
      std::string n(mxc::Str(names[i], a.str()));
      mxnet::Shape sh =
          mxc::ToShape(dims + at, ndims[i], Arg("ndims", static_cast<int64_t>(i)).str());
      at += ndims[i];
      if (!known.emplace(n, sh).second) mxc::BadArgument(a.str(), "duplicate name '", n, "'");
    }
    auto r = std::make_shared<mxc::InferResult>();
    r->shapes = partial ? s->infer_shape_partial(known) : s->infer_shape(known);
    const std::vector<mxnet::Shape>* lists[3] = {&r->shapes.arg, &r->shapes.out, &r->shapes.aux};
    for (int l = 0; l < 3; ++l)
      for (const auto& sh : *lists[l]) r->dims[l].push_back(sh.ToVector());
    *out = mxc::New<mxc_infer_result>(std::move(r));
  });
}

MXC_STATUS mxc_symbol_infer_type(mxc_symbol* symbol, const char* const* names,
                                 const int32_t* dtypes, size_t count,
                                 mxc_infer_result** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    auto s = mxc::Get(symbol, "symbol");
    mxc::Array(names, count, "names");
    mxc::Array(dtypes, count, "dtypes");
    std::map<std::string, mxnet::DType> known;
    for (size_t i = 0; i < count; ++i) {
      Arg a("names", static_cast<int64_t>(i));
      std::string n(mxc::Str(names[i], a.str()));
      mxnet::DType t = mxc::ToDType(dtypes[i], Arg("dtypes", static_cast<int64_t>(i)).str());
      if (!known.emplace(n, t).second) mxc::BadArgument(a.str(), "duplicate name '", n, "'");
    }
    auto r = std::make_shared<mxc::InferResult>();
    r->is_shape = false;
    r->types = s->infer_type(known);
    *out = mxc::New<mxc_infer_result>(std::move(r));
  });
}

MXC_STATUS mxc_infer_result_count(mxc_infer_result* result, int32_t which, size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(count, "count");
    auto r = mxc::Get(result, "result");
    *count = r->is_shape ? mxc::List(r->shapes, which).size() : mxc::List(r->types, which).size();
  });
}

MXC_STATUS mxc_infer_result_shape(mxc_infer_result* result, int32_t which, size_t index,
                                  const int64_t** dims, int32_t* ndim) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(dims, "dims"), mxc::Out(ndim, "ndim");
    auto r = mxc::Get(result, "result");
    if (!r->is_shape)
      MX_THROW(absl::StatusCode::kFailedPrecondition,
               "the result comes from mxc_symbol_infer_type and holds no shapes");
    const auto& l = mxc::List(r->shapes, which);
    if (index >= l.size())
      MX_THROW(absl::StatusCode::kOutOfRange, "index ", index, " is out of range (", l.size(),
               " entries)");
    *dims = r->dims[which][index].data();
    *ndim = l[index].ndim();
  });
}

MXC_STATUS mxc_infer_result_dtype(mxc_infer_result* result, int32_t which, size_t index,
                                  int32_t* dtype) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(dtype, "dtype");
    auto r = mxc::Get(result, "result");
    if (r->is_shape)
      MX_THROW(absl::StatusCode::kFailedPrecondition,
               "the result comes from mxc_symbol_infer_shape and holds no dtypes");
    const auto& l = mxc::List(r->types, which);
    if (index >= l.size())
      MX_THROW(absl::StatusCode::kOutOfRange, "index ", index, " is out of range (", l.size(),
               " entries)");
    *dtype = l[index];
  });
}

}  // extern "C"
