// Gluon parameters (mxnet.gluon.Parameter / Constant): a named tensor with one copy per device,
// its gradient buffers, and deferred initialization for shapes known only at the first forward.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gluon/init.h"
#include "ndarray/ndarray.h"
#include "symbol/symbol.h"

namespace mxnet::gluon {

struct ParameterOptions {
  Shape shape = Shape::Unknown();  // -1 dims (or unknown rank) = inferred at the first forward
  DType dtype = DType::kFloat32;
  InitializerPtr init;  // the parameter's own initializer (overrides Block::initialize's)
  GradReq grad_req = GradReq::kWrite;
  double lr_mult = 1.0, wd_mult = 1.0;
  bool allow_deferred_init = true;
  bool differentiable = true;  // false: grad_req is forced to null
  // Storage of the gradient buffers (Gluon's Parameter(grad_stype=...)): kDefault, or
  // kRowSparse for ops with row_sparse gradients (Embedding with sparse_grad). csr: error.
  StorageType grad_stype = StorageType::kDefault;
};

class Parameter {
 public:
  // `name` is the leaf name ("weight"); Blocks give it a structured name ("dense0.weight").
  explicit Parameter(std::string name, ParameterOptions options = {});
  virtual ~Parameter();

  const std::string& name() const { return name_; }
  const Shape& shape() const { return shape_; }
  // Sets or completes the shape; known dims must agree (kInvalidArgument otherwise).
  void set_shape(const Shape& shape);
  DType dtype() const { return dtype_; }
  GradReq grad_req() const { return grad_req_; }
  // "write"/"add"/"null"; changing it re-creates or drops the gradient buffers.
  void set_grad_req(GradReq req);
  double lr_mult() const { return lr_mult_; }
  double wd_mult() const { return wd_mult_; }
  void set_lr_mult(double v) { lr_mult_ = v; }
  void set_wd_mult(double v) { wd_mult_ = v; }
  const InitializerPtr& init() const { return init_; }
  void set_init(InitializerPtr init) { init_ = std::move(init); }
  bool allow_deferred_init() const { return allow_deferred_init_; }
  bool differentiable() const { return differentiable_; }
  StorageType grad_stype() const { return grad_stype_; }

  // Allocates and fills one copy per device (default: cpu()). The parameter's own init wins,
  // then `init`, then `default_init` (Uniform(0.07) when null). If the shape is not known yet
  // and deferred init is allowed, the work is postponed until the shape is set
  // (finish_deferred_init). Initializing twice without force_reinit keeps the data.
  void initialize(InitializerPtr init = nullptr, std::vector<Device> devices = {cpu()},
                  InitializerPtr default_init = nullptr, bool force_reinit = false);
  bool is_initialized() const { return !data_.empty(); }
  bool has_deferred_init() const { return deferred_.has_value(); }
  // How many live parameters in the process have a postponed initialize() (0: no block needs to
  // look for deferred initialization before a forward).
  static int64_t num_deferred_inits();
  // Completes a postponed initialize() once the shape is fully known.
  void finish_deferred_init();

  // The copy on `device` (default: the first). Errors: not initialized (naming the parameter and
  // saying whether initialization is deferred), or no copy on that device.
  NDArray data(std::optional<Device> device = std::nullopt) const;
  std::vector<NDArray> list_data() const;
  // Gradient buffer on `device`; kFailedPrecondition when grad_req is null.
  NDArray grad(std::optional<Device> device = std::nullopt) const;
  std::vector<NDArray> list_grad() const;
  std::vector<Device> list_device() const;
  // Sets the value on every device (shape must match; initializes an uninitialized parameter
  // on cpu() or its deferred devices).
  void set_data(const NDArray& data);
  void zero_grad();
  // Converts data and gradients to `dtype`.
  void cast(DType dtype);
  // Moves the copies to `devices` (data preserved).
  void reset_device(const std::vector<Device>& devices);
  // A variable for this parameter in symbolic graphs (name = `name`, with __shape__, __dtype__,
  // __lr_mult__, __wd_mult__, __init__ attributes).
  sym::Symbol var(const std::string& name) const;
  // A placeholder (no data) of the current, possibly partial, shape for shape inference.
  NDArray placeholder() const;
  // Forgets the stand-in data() returns in shape-only dispatch before initialization, and the
  // shape ops inferred into it (a symbolic call's trace must not fix the parameter's shape).
  void clear_placeholder() const { placeholder_ = NDArray(); }

 protected:
  void AllocateGrads();

  std::string name_;
  Shape shape_;
  DType dtype_;
  InitializerPtr init_;
  GradReq grad_req_;
  double lr_mult_, wd_mult_;
  bool allow_deferred_init_, differentiable_;
  StorageType grad_stype_ = StorageType::kDefault;
  std::vector<NDArray> data_, grad_;
  struct Deferred {
    InitializerPtr init, default_init;
    std::vector<Device> devices;
  };
  // Set and cleared only through SetDeferred (it keeps num_deferred_inits() in step).
  std::optional<Deferred> deferred_;
  void SetDeferred(std::optional<Deferred> d);
  // Stand-in returned by data() during a shape-only pass before initialization; the ops write
  // the inferred shape into it.
  mutable NDArray placeholder_;
};
using ParameterPtr = std::shared_ptr<Parameter>;

// A parameter with a fixed value and no gradient (gluon.Constant).
class Constant : public Parameter {
 public:
  Constant(std::string name, const NDArray& value);
};

// Structured name -> parameter, in registration order (gluon's ParameterDict / 2.x dict).
class ParameterDict {
 public:
  void add(const std::string& name, ParameterPtr p);
  ParameterPtr get(const std::string& name) const;  // nullptr when absent
  const std::vector<std::pair<std::string, ParameterPtr>>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

  void initialize(InitializerPtr init = nullptr, std::vector<Device> devices = {cpu()},
                  bool verbose = false, bool force_reinit = false);
  void zero_grad();
  // Sets an attribute on every parameter: "grad_req" ("write"/"add"/"null"), "lr_mult",
  // "wd_mult" (numbers). Throws kInvalidArgument for other names or bad values.
  void setattr(const std::string& name, const std::string& value);
  void reset_device(const std::vector<Device>& devices);
  // Adds every item of `other` not present by name (MXNet's ParameterDict.update; a different
  // parameter under an existing name is kInvalidArgument, naming it).
  void update(const ParameterDict& other);

  // MXNet 1.x ParameterDict.save: a named NDArray file of every initialized parameter's data
  // (first device), keys = names with `strip_prefix` removed; a name not starting with a
  // non-empty strip_prefix is kInvalidArgument (naming it and the prefix). Written atomically.
  absl::Status save(const std::string& filename, const std::string& strip_prefix = "") const;
  // MXNet 1.x ParameterDict.load: keys (arg:/aux: stripped) prefixed with `restore_prefix` are
  // matched to names; missing parameters (kNotFound) and extra keys (kInvalidArgument) are
  // errors unless allowed; dtype/shape rules and cast_dtype/dtype_source as
  // Block::load_parameters; uninitialized parameters are initialized on `devices`.
  absl::Status load(const std::string& filename, const std::vector<Device>& devices = {cpu()},
                    bool allow_missing = false, bool ignore_extra = false,
                    const std::string& restore_prefix = "", bool cast_dtype = false,
                    const std::string& dtype_source = "current");

 private:
  std::vector<std::pair<std::string, ParameterPtr>> items_;
  std::map<std::string, size_t> index_;
};

}  // namespace mxnet::gluon
