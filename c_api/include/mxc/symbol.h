/* mxc_symbol: symbolic graphs (mxnet.symbol) in MXNet's JSON (-symbol.json), with the argument /
 * output / auxiliary-state lists, shape and type inference and composition. A symbol is
 * immutable: composing or grouping makes a new one.
 *
 * Threads: symbols are immutable, so one symbol may be used by several threads at once; freeing
 * is safe from any thread. */
#ifndef MXC_SYMBOL_H_
#define MXC_SYMBOL_H_

#include "mxc/base.h"
#include "mxc/ops.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_symbol mxc_symbol;
/* The result of shape/type inference: shapes and dtypes of arguments, outputs and auxiliary
 * states (immutable). */
typedef struct mxc_infer_result mxc_infer_result;

/* +1 reference. Threads: any. */
MXC_STATUS mxc_symbol_retain(mxc_symbol* symbol) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored.
 * Threads: any (also the thread that did not create it). */
MXC_API void mxc_symbol_free(mxc_symbol* symbol) MXC_NOEXCEPT;

/* ---- JSON. ---- */

/* Parses MXNet symbol JSON (any version MXNet wrote, legacy ones included). Errors:
 * MXC_INVALID_ARGUMENT / MXC_DATA_LOSS naming the node and field.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_from_json(const char* json, mxc_symbol** out) MXC_NOEXCEPT;
/* Loads a -symbol.json file. Errors: MXC_NOT_FOUND, as mxc_symbol_from_json.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_load(const char* path, mxc_symbol** out) MXC_NOEXCEPT;
/* The JSON MXNet 1.9 loads; *json is freed with mxc_string_free.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_to_json(mxc_symbol* symbol, char** json) MXC_NOEXCEPT;
/* Writes the JSON to `path` (temporary file + rename).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_save(mxc_symbol* symbol, const char* path) MXC_NOEXCEPT;

/* ---- Construction. ---- */

/* A variable (mx.sym.var).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_variable(const char* name, mxc_symbol** out) MXC_NOEXCEPT;
/* Applies `op` to inputs[0..num_inputs) with string attributes (as mxc_invoke); missing trailing
 * inputs (weight, bias) become variables "<name>_<input>". `name` NULL or "": an automatic name
 * ("convolution0"). Errors: bad attributes, too many inputs.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_create(mxc_op* op, mxc_symbol* const* inputs, size_t num_inputs,
                             const char* const* keys, const char* const* values, size_t num_attrs,
                             const char* name, mxc_symbol** out) MXC_NOEXCEPT;
/* Groups the outputs of several symbols into one (mx.sym.Group).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_group(mxc_symbol* const* symbols, size_t count,
                            mxc_symbol** out) MXC_NOEXCEPT;
/* Output `index` as its own symbol. Errors: index out of range.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_output(mxc_symbol* symbol, size_t index, mxc_symbol** out) MXC_NOEXCEPT;
/* Every node output of the graph (mx.sym.get_internals).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_get_internals(mxc_symbol* symbol, mxc_symbol** out) MXC_NOEXCEPT;
/* A new graph with the variables named names[i] replaced by substitutes[i] (mx.sym compose /
 * __call__). Errors: a name that is no variable of the graph.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_compose(mxc_symbol* symbol, const char* const* names,
                              mxc_symbol* const* substitutes, size_t count,
                              mxc_symbol** out) MXC_NOEXCEPT;

/* ---- Lists (each *names freed with mxc_string_array_free(*names, *count)). ---- */

/* The head node's name ("" for a group); free with mxc_string_free.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_name(mxc_symbol* symbol, char** name) MXC_NOEXCEPT;
/* Arguments (variables that are not auxiliary states), in MXNet's DFS order.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_list_arguments(mxc_symbol* symbol, char*** names, size_t* count) MXC_NOEXCEPT;
/* Outputs ("<node>_output", ...).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_list_outputs(mxc_symbol* symbol, char*** names, size_t* count) MXC_NOEXCEPT;
/* Auxiliary states (inputs operators mutate: BatchNorm's moving_mean / moving_var).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_list_auxiliary_states(mxc_symbol* symbol, char*** names,
                                            size_t* count) MXC_NOEXCEPT;
/* All inputs (arguments and auxiliary states) in DFS order.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_list_inputs(mxc_symbol* symbol, char*** names, size_t* count) MXC_NOEXCEPT;

/* ---- Inference. ---- */

/* Shape inference from the shapes of some inputs: input names[i] has ndims[i] dims, stored one
 * input after the other in dims (sum(ndims) values). partial = 0: every shape must come out
 * known (else MXC_INVALID_ARGUMENT naming the nodes); partial != 0: unknown shapes are returned as
 * ndim -1 / dims -1. Errors: an unknown name, contradicting shapes (naming the node).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_infer_shape(mxc_symbol* symbol, const char* const* names, const size_t* ndims,
                                  const int64_t* dims, size_t count, int32_t partial,
                                  mxc_infer_result** out) MXC_NOEXCEPT;
/* Type inference from the dtypes of some inputs (names[i] has dtypes[i], an mxc_dtype); unknown
 * dtypes are returned as -1.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_symbol_infer_type(mxc_symbol* symbol, const char* const* names,
                                 const int32_t* dtypes, size_t count,
                                 mxc_infer_result** out) MXC_NOEXCEPT;

/* Which list of an mxc_infer_result. */
#define MXC_INFER_ARGUMENTS 0
#define MXC_INFER_OUTPUTS 1
#define MXC_INFER_AUX_STATES 2

/* Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_infer_result_count(mxc_infer_result* result, int32_t which,
                                  size_t* count) MXC_NOEXCEPT;
/* Entry `index` of list `which` (order of list_arguments / list_outputs /
 * list_auxiliary_states): *ndim (-1 unknown) and *dims (ndim values, -1 for unknown dims; valid
 * while the result lives). Errors: a type-inference result, index out of range.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_infer_result_shape(mxc_infer_result* result, int32_t which, size_t index,
                                  const int64_t** dims, int32_t* ndim) MXC_NOEXCEPT;
/* Entry `index`'s dtype (an mxc_dtype, -1 unknown). Errors: a shape-inference result, index out
 * of range. Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_infer_result_dtype(mxc_infer_result* result, int32_t which, size_t index,
                                  int32_t* dtype) MXC_NOEXCEPT;
/* +1 reference. Threads: any. */
MXC_STATUS mxc_infer_result_retain(mxc_infer_result* result) MXC_NOEXCEPT;
/* Threads: any (also the thread that did not create it). */
MXC_API void mxc_infer_result_free(mxc_infer_result* result) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_SYMBOL_H_ */
