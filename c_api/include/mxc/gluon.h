/* Gluon (mxnet.gluon): blocks from the model zoo or from exported files, calling them (one
 * hybridized block from many threads at once), hybridize, export, parameter files, and the
 * parameters themselves (collect_params with RE2 regular expressions).
 *
 * Threads: a block may be called from several threads at once once it is initialized (a
 * hybridized block runs an immutable cached graph with per-call state: safe, unlike MXNet);
 * hybridize, initialize, load_parameters and parameter setters change the block and must not
 * run while another thread uses it. Freeing is safe from any thread. */
#ifndef MXC_GLUON_H_
#define MXC_GLUON_H_

#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/ndarray.h"
#include "mxc/symbol.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_block mxc_block;
typedef struct mxc_parameter mxc_parameter;

/* ---- Model zoo (gluon.model_zoo.vision). ---- */

/* The names get_model accepts, sorted (resnet18_v1, ..., mobilenetv2_0.25); free *names with
 * mxc_string_array_free(*names, *count). Threads: any. */
MXC_STATUS mxc_model_zoo_list(char*** names, size_t* count) MXC_NOEXCEPT;

typedef struct mxc_model_options {
  size_t struct_size;
  /* Classes of the output layer; 0: 1000. */
  int64_t classes;
  /* Nonzero: load MXNet's published weights from the model store directory `root` (NULL or "":
   * $MXNET_HOME/models); never downloads (a missing file is MXC_NOT_FOUND). */
  int32_t pretrained;
  const char* root;
  /* Where pretrained weights are placed; {0, 0}: cpu(0). */
  mxc_device device;
} mxc_model_options;

/* A model-zoo net by MXNet's name (case-insensitive). Its parameters are uninitialized unless
 * pretrained (call mxc_block_initialize). Errors: an unknown name (listing the valid ones),
 * the model store's errors. Threads: any. */
MXC_STATUS mxc_model_zoo_get(const char* name, const mxc_model_options* options,
                             mxc_block** out) MXC_NOEXCEPT;

/* ---- Blocks. ---- */

/* +1 reference. Threads: any. */
MXC_STATUS mxc_block_retain(mxc_block* block) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored. Threads: any. */
MXC_API void mxc_block_free(mxc_block* block) MXC_NOEXCEPT;

/* A SymbolBlock from an exported `symbol_file` (-symbol.json) with data inputs
 * input_names[0..num_inputs) and, when param_file is not NULL, its parameters (arg:/aux: keys,
 * files of MXNet 1.x/2.x or ours) loaded onto `device` ({0, 0}: cpu(0)) (SymbolBlock.imports).
 * Errors: missing files, bad JSON, missing or extra parameters (naming them). Threads: any. */
MXC_STATUS mxc_symbol_block_imports(const char* symbol_file, const char* const* input_names,
                                    size_t num_inputs, const char* param_file, mxc_device device,
                                    mxc_block** out) MXC_NOEXCEPT;

/* A SymbolBlock over the graph `outputs` (a group for several outputs; see mxc/symbol.h) with
 * data inputs input_names[0..num_inputs) (SymbolBlock(outputs, inputs)): every other variable
 * becomes a parameter named after it (auxiliary states with grad_req null), uninitialized (call
 * mxc_block_initialize; shapes are inferred on the first call). This is how a C program builds a
 * network of its own. Errors: an input name that is no variable of the graph. Threads: any. */
MXC_STATUS mxc_symbol_block_create(mxc_symbol* outputs, const char* const* input_names,
                                   size_t num_inputs, mxc_block** out) MXC_NOEXCEPT;

/* Initializes every parameter not yet initialized (all with force_reinit) on `device` ({0, 0}:
 * cpu(0)). `init`: NULL or "" for MXNet's default Uniform(0.07), else an initializer as MXNet
 * writes __init__ ("xavier", "zeros", "[\"normal\", {\"sigma\": 0.02}]", ...). Shapes unknown
 * until the first call are initialized then (deferred initialization). Random draws use `ctx`'s
 * RNG stream. Threads: writes the block: no other thread may use it meanwhile. */
MXC_STATUS mxc_block_initialize(mxc_ctx* ctx, mxc_block* block, const char* init, mxc_device device,
                                int32_t force_reinit) MXC_NOEXCEPT;

/* Calls the block on inputs[0..num_inputs) under `ctx` (recorded for autograd when it records;
 * training behaviour when it trains); the outputs, new arrays, go to outputs[0..*num_outputs).
 * Errors: uninitialized parameters, shape mismatches (naming the layer), max_outputs too small
 * (MXC_OUT_OF_RANGE). Threads: see the top of this file. */
MXC_STATUS mxc_block_call(mxc_ctx* ctx, mxc_block* block, mxc_ndarray* const* inputs,
                          size_t num_inputs, mxc_ndarray** outputs, size_t max_outputs,
                          size_t* num_outputs) MXC_NOEXCEPT;

typedef struct mxc_hybridize_options {
  size_t struct_size;
  /* Nonzero: turn hybridization off (back to imperative calls). */
  int32_t deactivate;
  int32_t static_alloc;
  int32_t static_shape;
  /* Graph passes: NULL or "" (the traced graph as is), "default", "onednn". */
  const char* backend;
} mxc_hybridize_options;

/* Hybridizes the block (recursively): the next call traces it into a graph run by the optimizing
 * executor afterwards. No effect on plain (non-hybrid) blocks. Threads: writes the block: no other
 * thread may use it meanwhile. */
MXC_STATUS mxc_block_hybridize(mxc_block* block, const mxc_hybridize_options* options) MXC_NOEXCEPT;

/* Writes path-symbol.json and path-NNNN.params (epoch NNNN) from the last traced graph (call the
 * hybridized block once first) (HybridBlock.export). Errors: not hybridized / never called.
 * Threads: reads the block (may run while other threads call it). */
MXC_STATUS mxc_block_export(mxc_block* block, const char* path, int32_t epoch) MXC_NOEXCEPT;

/* Parameters by structured name ("features.0.weight") in MXNet's format (save_parameters),
 * written to a temporary file renamed over `path`. Threads: reads the block. */
MXC_STATUS mxc_block_save_parameters(mxc_block* block, const char* path) MXC_NOEXCEPT;

typedef struct mxc_load_parameters_options {
  size_t struct_size;
  /* Where the parameters go; {0, 0}: cpu(0). */
  mxc_device device;
  /* Nonzero: parameters missing from the file keep their values / stay uninitialized. */
  int32_t allow_missing;
  /* Nonzero: names in the file the block lacks are ignored. */
  int32_t ignore_extra;
  /* Nonzero: cast loaded values to the parameters' dtypes. */
  int32_t cast_dtype;
} mxc_load_parameters_options;

/* Loads save_parameters files (ours, MXNet 1.x and 2.x; arg:/aux: prefixes stripped). Errors:
 * missing/extra names (naming them and the file) unless allowed, shape mismatches.
 * Threads: writes the block: no other thread may use it meanwhile. */
MXC_STATUS mxc_block_load_parameters(mxc_block* block, const char* path,
                                     const mxc_load_parameters_options* options) MXC_NOEXCEPT;

/* The block's parameters whose structured names match `select` (an RE2 regular expression that
 * must match at the start of the name, like Python's re.match; NULL or "": all), in
 * registration order; *params is freed with mxc_parameter_array_free(*params, *count). Errors: a
 * bad regular expression. Threads: reads the block. */
MXC_STATUS mxc_block_collect_params(mxc_block* block, const char* select, mxc_parameter*** params,
                                    size_t* count) MXC_NOEXCEPT;

/* Sets every parameter's gradient to zero. Threads: writes the block: no other thread may use it
 * meanwhile. */
MXC_STATUS mxc_block_zero_grad(mxc_block* block) MXC_NOEXCEPT;

/* The block tree as MXNet prints it; free with mxc_string_free. Threads: reads the block. */
MXC_STATUS mxc_block_to_string(mxc_block* block, char** text) MXC_NOEXCEPT;

/* ---- Parameters. ---- */

/* +1 reference. Threads: any. */
MXC_STATUS mxc_parameter_retain(mxc_parameter* param) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored. Threads: any. */
MXC_API void mxc_parameter_free(mxc_parameter* param) MXC_NOEXCEPT;
/* Frees each handle of params[0..count) and the array (as mxc_block_collect_params returns);
 * NULL is ignored. Threads: any. */
MXC_API void mxc_parameter_array_free(mxc_parameter** params, size_t count) MXC_NOEXCEPT;

/* The structured name ("features.0.weight") it was collected under; free with mxc_string_free.
 * Threads: any. */
MXC_STATUS mxc_parameter_name(mxc_parameter* param, char** name) MXC_NOEXCEPT;
/* Its shape: *ndim (-1 while unknown) and dims[0..ndim) (-1 for dims still unknown). Errors:
 * capacity < ndim (MXC_OUT_OF_RANGE). Threads: reads the parameter. */
MXC_STATUS mxc_parameter_shape(mxc_parameter* param, int64_t* dims, size_t capacity,
                               int32_t* ndim) MXC_NOEXCEPT;
/* Its dtype (an mxc_dtype). Threads: reads the parameter. */
MXC_STATUS mxc_parameter_dtype(mxc_parameter* param, int32_t* dtype) MXC_NOEXCEPT;
/* The value on `device` ({0, 0}: its first device) — the parameter's own array (writes are
 * seen by the block). Errors: not initialized (MXC_FAILED_PRECONDITION), no copy there.
 * Threads: reads the parameter. */
MXC_STATUS mxc_parameter_data(mxc_parameter* param, mxc_device device,
                              mxc_ndarray** out) MXC_NOEXCEPT;
/* The gradient buffer on `device` ({0, 0}: the first; the buffer itself, which backward writes).
 * Errors: grad_req null, not initialized. Threads: reads the parameter. */
MXC_STATUS mxc_parameter_grad(mxc_parameter* param, mxc_device device,
                              mxc_ndarray** out) MXC_NOEXCEPT;
/* Copies `value` (same shape) into the parameter on every device (initializing it on cpu(0)
 * when it was not). Errors: a shape mismatch. Threads: writes the parameter: no other thread may
 * use it (or its block) meanwhile. */
MXC_STATUS mxc_parameter_set_data(mxc_parameter* param, mxc_ndarray* value) MXC_NOEXCEPT;
/* Initializes the parameter (init as mxc_block_initialize; NULL: its own or Uniform(0.07)).
 * Threads: writes the parameter: no other thread may use it (or its block) meanwhile. */
MXC_STATUS mxc_parameter_initialize(mxc_ctx* ctx, mxc_parameter* param, const char* init,
                                    mxc_device device, int32_t force_reinit) MXC_NOEXCEPT;
/* Sets the gradient to zero. Threads: writes the parameter: no other thread may use it (or its
 * block) meanwhile. */
MXC_STATUS mxc_parameter_zero_grad(mxc_parameter* param) MXC_NOEXCEPT;
/* grad_req is MXC_GRAD_NULL / WRITE / ADD (mxc/autograd.h values); setting it to null drops the
 * gradient buffers, to write/add (re)creates them. Errors: an unknown value.
 * Getters: Threads: reads the parameter. Setters: Threads: writes the parameter: no other thread
 * may use it (or its block) meanwhile. */
MXC_STATUS mxc_parameter_grad_req(mxc_parameter* param, int32_t* grad_req) MXC_NOEXCEPT;
MXC_STATUS mxc_parameter_set_grad_req(mxc_parameter* param, int32_t grad_req) MXC_NOEXCEPT;
/* The learning-rate and weight-decay multipliers the Trainer applies (default 1). Getters:
 * Threads: reads the parameter. Setters: Threads: writes the parameter: no other thread may use it
 * (or its block) meanwhile. */
MXC_STATUS mxc_parameter_lr_mult(mxc_parameter* param, double* out) MXC_NOEXCEPT;
MXC_STATUS mxc_parameter_set_lr_mult(mxc_parameter* param, double value) MXC_NOEXCEPT;
MXC_STATUS mxc_parameter_wd_mult(mxc_parameter* param, double* out) MXC_NOEXCEPT;
MXC_STATUS mxc_parameter_set_wd_mult(mxc_parameter* param, double value) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_GLUON_H_ */
