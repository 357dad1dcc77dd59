// mxc/ops.h: the operator registry's metadata and mxc_invoke.
#include <memory>
#include <unordered_map>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"
#include "c_api/src/ndarray_util.h"
#include "c_api/src/ops_util.h"
#include "ndarray/op.h"

namespace mxc {
namespace {

// Everything mxc_op_get_info / mxc_op_attr_at return, built once from the registry; the C
// strings point into these vectors, which live as long as the process.
struct AttrMeta {
  std::string name, type, doc, default_value;
  bool has_default = false;
  int32_t kind = MXC_ATTR_STRING;
  bool optional = false, required = false;
  std::vector<std::string> choice_store;
  std::vector<const char*> choices;
};
struct OpMeta {
  const mxnet::Op* op = nullptr;
  std::vector<std::string> alias_store, input_store;
  std::vector<const char*> aliases, input_names;
  int32_t num_inputs = -1, num_outputs = -1;
  std::string variadic_attr;
  std::vector<AttrMeta> attrs;
};

int32_t KindOf(std::string_view type, bool* optional) {
  *optional = false;
  if (type.starts_with("optional<") && type.ends_with(">")) {
    *optional = true;
    type = type.substr(9, type.size() - 10);
  }
  static const std::pair<std::string_view, int32_t> kKinds[] = {
      {"boolean", MXC_ATTR_BOOL},
      {"int", MXC_ATTR_INT},
      {"long", MXC_ATTR_LONG},
      {"float", MXC_ATTR_FLOAT},
      {"double", MXC_ATTR_DOUBLE},
      {"Shape(tuple)", MXC_ATTR_SHAPE},
      {"tuple of float", MXC_ATTR_FLOAT_TUPLE},
      {"dtype", MXC_ATTR_DTYPE}};
  for (const auto& [name, kind] : kKinds)
    if (type == name) return kind;
  return MXC_ATTR_STRING;
}

std::vector<const char*> CStrs(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  for (const auto& s : v) out.push_back(s.c_str());
  return out;
}

OpMeta BuildMeta(const mxnet::Op& op) {
  OpMeta m;
  m.op = &op;
  m.alias_store = op.aliases;
  m.aliases = CStrs(m.alias_store);
  std::optional<mxnet::OpAttrs> defaults;
  try {
    defaults = mxnet::OpAttrs::Parse(op, {});
  } catch (...) {  // required attributes: the defaults do not make an instance
  }
  if (!op.num_inputs_fn) m.num_inputs = op.num_inputs_fixed;
  if (!op.num_outputs_fn && !op.num_visible_fn) m.num_outputs = op.num_outputs_fixed;
  try {
    if (defaults)
      m.input_store = op.InputNames(*defaults);
    else if (!op.num_inputs_fn && !op.input_names_fn)
      m.input_store = op.InputNames(mxnet::OpAttrs());
  } catch (...) {
  }
  m.input_names = CStrs(m.input_store);
  if (op.schema) {
    std::shared_ptr<void> dflt = op.schema->make_default();
    m.attrs.reserve(op.schema->fields.size());
    for (const auto& f : op.schema->fields) {
      AttrMeta a;
      a.name = f.name;
      a.type = f.type;
      a.doc = f.doc;
      a.required = f.required;
      a.kind = KindOf(f.type, &a.optional);
      if (!f.required) {
        a.default_value = f.print(dflt.get());
        a.has_default = true;
      }
      a.choice_store = f.choices;
      a.choices = CStrs(a.choice_store);
      if (op.num_inputs_fn && m.variadic_attr.empty() &&
          (f.name == "num_args" || f.name == "num_arrays"))
        m.variadic_attr = f.name;
      m.attrs.push_back(std::move(a));
    }
  }
  return m;
}

struct Registry {
  std::vector<OpMeta> ops;  // in mxnet::OpRegistry::List() order (by name)
  std::unordered_map<const mxnet::Op*, uint32_t> index;
};

const Registry& GetRegistry() {
  static const Registry* r = [] {
    auto* reg = new Registry();
    auto all = mxnet::OpRegistry::List();
    reg->ops.reserve(all.size());  // no reallocation: the C strings point into the elements
    for (const mxnet::Op* op : all) {
      reg->index[op] = static_cast<uint32_t>(reg->ops.size());
      reg->ops.push_back(BuildMeta(*op));  // moving vectors keeps their element buffers
    }
    return reg;
  }();
  return *r;
}

const OpMeta& MetaOf(mxc_op* h, const Arg& arg) {
  Decoded d = Decode(h, Tag::kOp, arg);
  const Registry& r = GetRegistry();
  if (d.gen != 0 || d.index >= r.ops.size()) BadArgument(arg.str(), "is not a valid mxc_op handle");
  return r.ops[d.index];
}

mxc_op* OpHandle(const mxnet::Op& op) {
  const Registry& r = GetRegistry();
  auto it = r.index.find(&op);
  if (it == r.index.end())
    MX_THROW(absl::StatusCode::kInternal, "operator '", op.name,
             "' was registered after the C ABI's snapshot of the registry");
  return static_cast<mxc_op*>(Encode(Tag::kOp, it->second, 0));
}

}  // namespace

const mxnet::Op& OpOf(mxc_op* h, const Arg& arg) { return *MetaOf(h, arg).op; }

}  // namespace mxc

using mxc::Arg;

extern "C" {

MXC_STATUS mxc_op_count(size_t* out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::GetRegistry().ops.size();
  });
}

MXC_STATUS mxc_op_at(size_t index, mxc_op** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    const auto& ops = mxc::GetRegistry().ops;
    if (index >= ops.size())
      MX_THROW(absl::StatusCode::kOutOfRange, "index ", index, " is out of range (", ops.size(),
               " operators)");
    *out = mxc::OpHandle(*ops[index].op);
  });
}

MXC_STATUS mxc_op_find(const char* name, mxc_op** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::OpHandle(mxnet::OpRegistry::Get(mxc::Str(name, "name")));
  });
}

MXC_STATUS mxc_op_get_info(mxc_op* op, mxc_op_info* info) noexcept {
  return mxc::Call(__func__, [&] {
    const mxc::OpMeta& m = mxc::MetaOf(op, "op");
    mxc_op_info i{};
    i.name = m.op->name.c_str();
    i.doc = m.op->doc.c_str();
    i.num_inputs = m.num_inputs;
    i.num_outputs = m.num_outputs;
    i.num_input_names = m.input_names.size();
    i.input_names = m.input_names.data();
    i.num_aliases = m.aliases.size();
    i.aliases = m.aliases.data();
    i.num_attrs = m.attrs.size();
    i.variadic_attr = m.variadic_attr.empty() ? nullptr : m.variadic_attr.c_str();
    i.differentiable = m.op->differentiable();
    i.is_creation = m.num_inputs == 0;
    mxc::WriteStruct(info, i, "info");
  });
}

MXC_STATUS mxc_op_attr_at(mxc_op* op, size_t index, mxc_op_attr* attr) noexcept {
  return mxc::Call(__func__, [&] {
    const mxc::OpMeta& m = mxc::MetaOf(op, "op");
    if (index >= m.attrs.size())
      MX_THROW(absl::StatusCode::kOutOfRange, m.op->name, ": attribute index ", index,
               " is out of range (", m.attrs.size(), " attributes)");
    const mxc::AttrMeta& a = m.attrs[index];
    mxc_op_attr r{};
    r.name = a.name.c_str();
    r.type = a.type.c_str();
    r.kind = a.kind;
    r.optional = a.optional;
    r.required = a.required;
    r.default_value = a.has_default ? a.default_value.c_str() : nullptr;
    r.doc = a.doc.c_str();
    r.num_choices = a.choices.size();
    r.choices = a.choices.data();
    mxc::WriteStruct(attr, r, "attr");
  });
}

MXC_STATUS mxc_op_num_io(mxc_op* op, const char* const* keys, const char* const* values,
                         size_t num_attrs, size_t* num_inputs, size_t* num_outputs) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(num_inputs, "num_inputs"), mxc::Out(num_outputs, "num_outputs");
    const mxnet::Op& o = mxc::OpOf(op, "op");
    auto attrs = mxc::Attrs(keys, values, num_attrs);
    attrs.erase("ctx");
    mxnet::OpAttrs parsed = mxnet::OpAttrs::Parse(o, attrs);
    size_t ni = static_cast<size_t>(o.NumInputs(parsed));
    size_t no = static_cast<size_t>(o.NumVisibleOutputs(parsed));
    *num_inputs = ni;
    *num_outputs = no;
  });
}

MXC_STATUS mxc_op_input_names(mxc_op* op, const char* const* keys, const char* const* values,
                              size_t num_attrs, char*** names, size_t* count) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(names, "names"), mxc::Out(count, "count");
    const mxnet::Op& o = mxc::OpOf(op, "op");
    auto attrs = mxc::Attrs(keys, values, num_attrs);
    attrs.erase("ctx");
    std::vector<std::string> v = o.InputNames(mxnet::OpAttrs::Parse(o, attrs));
    *names = mxc::NewStringArray(v);
    *count = v.size();
  });
}

MXC_STATUS mxc_invoke(mxc_ctx* ctx, mxc_op* op, mxc_ndarray* const* inputs, size_t num_inputs,
                      const char* const* keys, const char* const* values, size_t num_attrs,
                      mxc_ndarray** outputs, size_t max_outputs, size_t* num_outputs) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(num_outputs, "num_outputs");
    mxc::Array(outputs, max_outputs, "outputs");
    const mxnet::Op& o = mxc::OpOf(op, "op");
    mxnet::NDArrayVec in;
    mxc::GetAll(inputs, num_inputs, "inputs", &in);
    auto c = mxc::GetCtx(ctx);
    mxnet::AttrDict attrs;
    if (num_attrs) attrs = mxc::Attrs(keys, values, num_attrs);
    mxc::CtxScope scope(c.get());
    std::optional<mxnet::Device> dev;
    if (auto it = attrs.find("ctx"); it != attrs.end() && !it->second.empty())
      dev = mxnet::ValueOrThrow(mxnet::ParseDevice(it->second));
    else if (in.empty())
      dev = scope.device();
    mxnet::OpAttrs parsed = mxnet::OpAttrs::Parse(o, attrs);
    mxnet::NDArrayVec outs = mxnet::Invoke(o, parsed, in, dev);
    size_t n = static_cast<size_t>(o.NumVisibleOutputs(parsed));
    mxc::ReturnArrays(std::span(outs).first(n), outputs, max_outputs, num_outputs, o.name,
                      "outputs");
  });
}

}  // extern "C"
