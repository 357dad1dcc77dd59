/* Custom operators written in C (mx.operator.CustomOp / CustomOpProp / mx.operator.register):
 * register an op_type with forward, backward and shape/type inference callbacks; it then runs as
 * the operator "Custom" with the attribute op_type=<name> (and any other string attributes, handed
 * to the callbacks): through mxc_invoke, under autograd (its gradient calls `backward`), and in
 * symbol graphs and hybridized blocks ({"op": "Custom", "attrs": {"op_type": ...}}).
 *
 * Callbacks are plain C functions taking the registration's user_data first, then handles and
 * integers only, so bindings that cannot call C function pointers (Go's cgo) can export
 * trampolines. They return NULL on success or a status made with mxc_status_create; the library
 * frees that status and the calling mxc_ function fails with its code and a message naming the
 * op_type and the callback ("Custom: error in my_op.forward: callback: <message>").
 *
 * Which thread: a callback runs on the thread that runs the operator: the caller of mxc_invoke,
 * mxc_block_call, mxc_symbol_* executor calls, or mxc_autograd_backward / mxc_autograd_grad (for
 * `backward`); several threads may run the same op at once, so callbacks must be thread-safe
 * (user_data is shared). Inside a callback autograd does not record and hybridize does not trace;
 * the callback may call mxc_ functions (mxc_invoke with a NULL ctx, mxc_ndarray_copy_from_host,
 * ...) but must not wait for another thread that runs operators with the same ctx.
 *
 * Array handles passed to callbacks are borrowed: valid during the call only (retain one to keep
 * it). Outputs and input gradients are preallocated (inferred shape and dtype, zero-filled) and
 * are written in place (mxc_ndarray_copy_from_host, or through mxc_ndarray_data). */
#ifndef MXC_CUSTOM_H_
#define MXC_CUSTOM_H_

#include "mxc/base.h"
#include "mxc/data.h" /* mxc_user_data_free_fn */
#include "mxc/ndarray.h"

MXC_EXTERN_C_BEGIN

/* Dimensions per shape in the shape-inference buffers (the library's maximum rank). */
#define MXC_MAX_NDIM 32

/* Every callback gets the op instance's attributes other than op_type as attr_keys[i] =
 * attr_values[i], i < num_attrs (MXNet's string form, as given to mxc_invoke or in the JSON). */

/* Fills out_data[0..num_outputs) from in_data[0..num_inputs) (the arguments) and
 * aux[0..num_aux) (aux states, may be updated in place). is_train: the ctx's training flag. */
typedef mxc_status* (*mxc_custom_forward_fn)(void* user_data, const char* const* attr_keys,
                                             const char* const* attr_values, size_t num_attrs,
                                             int32_t is_train, mxc_ndarray* const* in_data,
                                             size_t num_inputs, mxc_ndarray* const* out_data,
                                             size_t num_outputs, mxc_ndarray* const* aux,
                                             size_t num_aux);
/* Fills in_grad[i] (the gradient of the loss with respect to argument i; preallocated, zeros)
 * from out_grad[j] (the gradient with respect to output j; zeros when no_top_grad is set),
 * in_data, out_data and aux. */
typedef mxc_status* (*mxc_custom_backward_fn)(void* user_data, const char* const* attr_keys,
                                              const char* const* attr_values, size_t num_attrs,
                                              mxc_ndarray* const* out_grad,
                                              mxc_ndarray* const* out_data, size_t num_outputs,
                                              mxc_ndarray* const* in_data,
                                              mxc_ndarray* const* in_grad, size_t num_inputs,
                                              mxc_ndarray* const* aux, size_t num_aux);
/* Shape inference from the argument shapes: shape i of a list has ndims[i] dimensions stored at
 * dims[i * MXC_MAX_NDIM ...]. in_dims/in_ndims are the (known) argument shapes; out_* and aux_*
 * arrive filled with argument 0's shape and the callback overwrites what differs (ndims <=
 * MXC_MAX_NDIM, dims >= 0). */
typedef mxc_status* (*mxc_custom_infer_shape_fn)(
    void* user_data, const char* const* attr_keys, const char* const* attr_values, size_t num_attrs,
    const int64_t* in_dims, const size_t* in_ndims, size_t num_inputs, int64_t* out_dims,
    size_t* out_ndims, size_t num_outputs, int64_t* aux_dims, size_t* aux_ndims, size_t num_aux);
/* Type inference from the argument dtypes (mxc_dtype values): out_types and aux_types arrive
 * filled with in_types[0]; the callback overwrites what differs. */
typedef mxc_status* (*mxc_custom_infer_type_fn)(void* user_data, const char* const* attr_keys,
                                                const char* const* attr_values, size_t num_attrs,
                                                const int32_t* in_types, size_t num_inputs,
                                                int32_t* out_types, size_t num_outputs,
                                                int32_t* aux_types, size_t num_aux);

typedef struct mxc_custom_op_def {
  size_t struct_size;
  /* Argument (input) names, list_arguments(); NULL/0: {"data"}. */
  const char* const* arguments;
  size_t num_arguments;
  /* Output names, list_outputs(); NULL/0: {"output"}. */
  const char* const* outputs;
  size_t num_outputs;
  /* Auxiliary state names (inputs after the arguments, not differentiated); NULL/0: none. */
  const char* const* aux_states;
  size_t num_aux_states;
  /* Nonzero: backward does not read out_grad (loss layers; need_top_grad() false). */
  int32_t no_top_grad;
  /* Required. */
  mxc_custom_forward_fn forward;
  /* NULL: taking the gradient is an MXC_UNIMPLEMENTED error naming the op. */
  mxc_custom_backward_fn backward;
  /* NULL: every output has argument 0's shape (then num_aux_states must be 0). */
  mxc_custom_infer_shape_fn infer_shape;
  /* NULL: every output and aux state has argument 0's dtype. */
  mxc_custom_infer_type_fn infer_type;
} mxc_custom_op_def;

/* Registers `op_type` (mx.operator.register). The names and callbacks are copied. On success the
 * library owns user_data and calls free_user_data(user_data) (if not NULL) exactly once, after
 * mxc_custom_op_unregister when no operator instance (a recorded autograd node, a bound graph)
 * uses the registration any more, on the thread that drops the last use; never if this call
 * fails (nor at process exit for a registration never unregistered).
 * Errors: NULL/empty/invalid op_type, an op_type registered already (MXC_ALREADY_EXISTS; also a
 * C++ registration), def NULL or forward NULL, aux states without infer_shape, NULL or duplicate
 * names. Threads: any. */
MXC_STATUS mxc_custom_op_register(const char* op_type, const mxc_custom_op_def* def,
                                  void* user_data,
                                  mxc_user_data_free_fn free_user_data) MXC_NOEXCEPT;
/* Removes a registration made by mxc_custom_op_register: new uses of op_type fail with
 * MXC_NOT_FOUND ("custom operator '<op_type>' was unregistered"); instances already made
 * (recorded nodes, bound graphs) keep working until released. The name may be registered again.
 * Errors: op_type not registered through this function (MXC_NOT_FOUND). Threads: any. */
MXC_STATUS mxc_custom_op_unregister(const char* op_type) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_CUSTOM_H_ */
