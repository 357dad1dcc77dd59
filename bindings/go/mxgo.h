/* C helpers of the Go binding (package mxnet): calls whose string or handle arrays must be built
 * on the C side, because cgo forbids passing Go memory that holds pointers to Go memory.
 *
 * Strings arrive packed in one Go byte buffer, each NUL-terminated, in order ("k0\0v0\0k1\0...").
 * The helpers split them into pointer arrays on the C stack for the duration of the call; the
 * library never keeps them (the C ABI copies what it keeps), so no Go pointer outlives a call. */
#ifndef MXGO_H_
#define MXGO_H_

#include <stdint.h>
#include <stdlib.h>

#include "mxc/mxc.h"

/* mxc_invoke with attributes packed as key/value pairs (2 * num_attrs strings in kv). The ctx
 * and op handles come as void*: cgo boxes (allocates) a pointer to an incomplete C struct when it
 * checks a call's arguments, and this is the hot path. */
mxc_status* mxgo_invoke(void* ctx, void* op, mxc_ndarray* const* inputs, size_t num_inputs,
                        const char* kv, size_t num_attrs, mxc_ndarray** outputs, size_t max_outputs,
                        size_t* num_outputs);
/* The operands of one small mxc_invoke in one object, so cgo checks one pointer argument instead
 * of four: up to MXGO_FRAME_IO inputs and outputs, and the packed attributes when they fit in
 * MXGO_FRAME_KV bytes. Allocated by Go. The handles are stored as uintptr_t so that the object
 * has no pointer words: cgo's argument check then need not look at each of them. */
#define MXGO_FRAME_IO 4
#define MXGO_FRAME_KV 240
typedef struct mxgo_frame {
  size_t num_inputs;
  size_t num_attrs;
  size_t max_outputs;
  size_t num_outputs;
  uintptr_t inputs[MXGO_FRAME_IO];  /* mxc_ndarray* */
  uintptr_t outputs[MXGO_FRAME_IO]; /* mxc_ndarray* */
  char kv[MXGO_FRAME_KV];
} mxgo_frame;
/* mxc_invoke on a frame's operands; ctx and op are handles as integers (cgo checks pointer
 * arguments, and these are never Go pointers). */
mxc_status* mxgo_invoke_frame(uintptr_t ctx, uintptr_t op, mxgo_frame* frame);

/* mxc_ndarray_free taking the handle as an integer (as mxgo_invoke_frame, for NDArray.Close). */
void mxgo_ndarray_free(uintptr_t array);
/* mxc_op_num_io with packed attributes. */
mxc_status* mxgo_num_io(mxc_op* op, const char* kv, size_t num_attrs, size_t* num_inputs,
                        size_t* num_outputs);
/* mxc_op_input_names with packed attributes. */
mxc_status* mxgo_input_names(mxc_op* op, const char* kv, size_t num_attrs, char*** names,
                             size_t* count);
/* mxc_symbol_create with packed attributes. */
mxc_status* mxgo_symbol_create(mxc_op* op, mxc_symbol* const* inputs, size_t num_inputs,
                               const char* kv, size_t num_attrs, const char* name,
                               mxc_symbol** out);
/* mxc_ndarray_save / _save_to_buffer with `count` packed names (names NULL: a list). */
mxc_status* mxgo_save(const char* path, mxc_ndarray* const* arrays, const char* names, size_t count,
                      const mxc_ndarray_save_options* options);
mxc_status* mxgo_save_to_buffer(mxc_ndarray* const* arrays, const char* names, size_t count,
                                const mxc_ndarray_save_options* options, void** data, size_t* size);
/* mxc_symbol_compose / _infer_shape / _infer_type with `count` packed names. */
mxc_status* mxgo_symbol_compose(mxc_symbol* symbol, const char* names,
                                mxc_symbol* const* substitutes, size_t count, mxc_symbol** out);
mxc_status* mxgo_symbol_infer_shape(mxc_symbol* symbol, const char* names, const size_t* ndims,
                                    const int64_t* dims, size_t count, int32_t partial,
                                    mxc_infer_result** out);
mxc_status* mxgo_symbol_infer_type(mxc_symbol* symbol, const char* names, const int32_t* dtypes,
                                   size_t count, mxc_infer_result** out);

/* mxc_ndarray_from_external whose deleter releases the Go value behind the runtime/cgo.Handle
 * `release` (mxgoRelease, exported by release.go). */
mxc_status* mxgo_from_external(void* data, size_t nbytes, const int64_t* shape, size_t ndim,
                               int32_t dtype, mxc_device device, uintptr_t release,
                               mxc_ndarray** out);

/* The element at `index` of a C string array (cgo cannot index C arrays). */
static inline const char* mxgo_str_at(char** strs, size_t index) { return strs[index]; }
static inline const char* mxgo_cstr_at(const char* const* strs, size_t index) {
  return strs[index];
}
static inline mxc_ndarray* mxgo_nd_at(mxc_ndarray** arrays, size_t index) { return arrays[index]; }

/* Gluon, training and data calls whose string arrays arrive packed (see the top of this file). */
mxc_status* mxgo_symbol_block_imports(const char* symbol_file, const char* names, size_t count,
                                      const char* param_file, mxc_device device, mxc_block** out);
mxc_status* mxgo_symbol_block_create(mxc_symbol* outputs, const char* names, size_t count,
                                     mxc_block** out);
mxc_status* mxgo_loss_create(const char* name, const char* kv, size_t num_kwargs, mxc_block** out);
mxc_status* mxgo_trainer_create(mxc_parameter* const* params, size_t num_params,
                                const char* optimizer, const char* kv, size_t num_kwargs,
                                mxc_trainer** out);
/* mxc_transform_from_callback with a C trampoline calling the Go function behind the
 * runtime/cgo.Handle `fn` (mxgoTransformCall, data.go); the handle is deleted
 * (mxgoDeleteHandle) when the library drops the transform. The library never sees a Go pointer:
 * user_data is the handle's integer value. */
mxc_status* mxgo_transform_from_callback(uintptr_t fn, mxc_transform** out);

static inline mxc_parameter* mxgo_param_at(mxc_parameter** params, size_t index) {
  return params[index];
}

#endif /* MXGO_H_ */
