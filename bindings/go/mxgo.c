/* C helpers of the Go binding; see mxgo.h. */
#include "mxgo.h"

#include <string.h>

#include "_cgo_export.h"

/* Points out[0..n) at the n packed strings of buf. */
static void split(const char* buf, size_t n, const char** out) {
  size_t i;
  for (i = 0; i < n; ++i) {
    out[i] = buf;
    buf += strlen(buf) + 1;
  }
}

/* Keys and values of n packed pairs: keys[i] = string 2i, values[i] = string 2i+1. */
static void split_pairs(const char* kv, size_t n, const char** keys, const char** values) {
  size_t i;
  for (i = 0; i < n; ++i) {
    keys[i] = kv;
    kv += strlen(kv) + 1;
    values[i] = kv;
    kv += strlen(kv) + 1;
  }
}

/* VLAs need a positive length. */
#define AT_LEAST_1(n) ((n) ? (n) : 1)

mxc_status* mxgo_invoke(void* ctx, void* op, mxc_ndarray* const* inputs, size_t num_inputs,
                        const char* kv, size_t num_attrs, mxc_ndarray** outputs, size_t max_outputs,
                        size_t* num_outputs) {
  const char* keys[AT_LEAST_1(num_attrs)];
  const char* values[AT_LEAST_1(num_attrs)];
  split_pairs(kv, num_attrs, keys, values);
  return mxc_invoke((mxc_ctx*)ctx, (mxc_op*)op, inputs, num_inputs, keys, values, num_attrs,
                    outputs, max_outputs, num_outputs);
}

mxc_status* mxgo_invoke_frame(uintptr_t ctx, uintptr_t op, mxgo_frame* f) {
  mxc_ndarray* in[MXGO_FRAME_IO];
  mxc_ndarray* out[MXGO_FRAME_IO] = {NULL};
  size_t i;
  mxc_status* s;
  for (i = 0; i < f->num_inputs && i < MXGO_FRAME_IO; ++i) in[i] = (mxc_ndarray*)f->inputs[i];
  s = mxgo_invoke((void*)ctx, (void*)op, in, f->num_inputs, f->kv, f->num_attrs, out,
                  f->max_outputs, &f->num_outputs);
  for (i = 0; !s && i < f->num_outputs && i < MXGO_FRAME_IO; ++i) f->outputs[i] = (uintptr_t)out[i];
  return s;
}

void mxgo_ndarray_free(uintptr_t array) { mxc_ndarray_free((mxc_ndarray*)array); }

mxc_status* mxgo_num_io(mxc_op* op, const char* kv, size_t num_attrs, size_t* num_inputs,
                        size_t* num_outputs) {
  const char* keys[AT_LEAST_1(num_attrs)];
  const char* values[AT_LEAST_1(num_attrs)];
  split_pairs(kv, num_attrs, keys, values);
  return mxc_op_num_io(op, keys, values, num_attrs, num_inputs, num_outputs);
}

mxc_status* mxgo_input_names(mxc_op* op, const char* kv, size_t num_attrs, char*** names,
                             size_t* count) {
  const char* keys[AT_LEAST_1(num_attrs)];
  const char* values[AT_LEAST_1(num_attrs)];
  split_pairs(kv, num_attrs, keys, values);
  return mxc_op_input_names(op, keys, values, num_attrs, names, count);
}

mxc_status* mxgo_symbol_create(mxc_op* op, mxc_symbol* const* inputs, size_t num_inputs,
                               const char* kv, size_t num_attrs, const char* name,
                               mxc_symbol** out) {
  const char* keys[AT_LEAST_1(num_attrs)];
  const char* values[AT_LEAST_1(num_attrs)];
  split_pairs(kv, num_attrs, keys, values);
  return mxc_symbol_create(op, inputs, num_inputs, keys, values, num_attrs, name, out);
}

mxc_status* mxgo_save(const char* path, mxc_ndarray* const* arrays, const char* names, size_t count,
                      const mxc_ndarray_save_options* options) {
  const char* n[AT_LEAST_1(count)];
  if (names) split(names, count, n);
  return mxc_ndarray_save(path, arrays, names ? n : NULL, count, options);
}

mxc_status* mxgo_save_to_buffer(mxc_ndarray* const* arrays, const char* names, size_t count,
                                const mxc_ndarray_save_options* options, void** data,
                                size_t* size) {
  const char* n[AT_LEAST_1(count)];
  if (names) split(names, count, n);
  return mxc_ndarray_save_to_buffer(arrays, names ? n : NULL, count, options, data, size);
}

mxc_status* mxgo_symbol_compose(mxc_symbol* symbol, const char* names,
                                mxc_symbol* const* substitutes, size_t count, mxc_symbol** out) {
  const char* n[AT_LEAST_1(count)];
  split(names, count, n);
  return mxc_symbol_compose(symbol, n, substitutes, count, out);
}

mxc_status* mxgo_symbol_infer_shape(mxc_symbol* symbol, const char* names, const size_t* ndims,
                                    const int64_t* dims, size_t count, int32_t partial,
                                    mxc_infer_result** out) {
  const char* n[AT_LEAST_1(count)];
  split(names, count, n);
  return mxc_symbol_infer_shape(symbol, n, ndims, dims, count, partial, out);
}

mxc_status* mxgo_symbol_infer_type(mxc_symbol* symbol, const char* names, const int32_t* dtypes,
                                   size_t count, mxc_infer_result** out) {
  const char* n[AT_LEAST_1(count)];
  split(names, count, n);
  return mxc_symbol_infer_type(symbol, n, dtypes, count, out);
}

static void release_trampoline(void* user_data) { mxgoRelease((uintptr_t)user_data); }

mxc_status* mxgo_from_external(void* data, size_t nbytes, const int64_t* shape, size_t ndim,
                               int32_t dtype, mxc_device device, uintptr_t release,
                               mxc_ndarray** out) {
  return mxc_ndarray_from_external(data, nbytes, shape, ndim, dtype, device, release_trampoline,
                                   (void*)release, out);
}

mxc_status* mxgo_symbol_block_imports(const char* symbol_file, const char* names, size_t count,
                                      const char* param_file, mxc_device device, mxc_block** out) {
  const char* n[AT_LEAST_1(count)];
  split(names, count, n);
  return mxc_symbol_block_imports(symbol_file, n, count, param_file, device, out);
}

mxc_status* mxgo_symbol_block_create(mxc_symbol* outputs, const char* names, size_t count,
                                     mxc_block** out) {
  const char* n[AT_LEAST_1(count)];
  split(names, count, n);
  return mxc_symbol_block_create(outputs, n, count, out);
}

mxc_status* mxgo_loss_create(const char* name, const char* kv, size_t num_kwargs, mxc_block** out) {
  const char* keys[AT_LEAST_1(num_kwargs)];
  const char* values[AT_LEAST_1(num_kwargs)];
  split_pairs(kv, num_kwargs, keys, values);
  return mxc_loss_create(name, keys, values, num_kwargs, out);
}

mxc_status* mxgo_trainer_create(mxc_parameter* const* params, size_t num_params,
                                const char* optimizer, const char* kv, size_t num_kwargs,
                                mxc_trainer** out) {
  const char* keys[AT_LEAST_1(num_kwargs)];
  const char* values[AT_LEAST_1(num_kwargs)];
  split_pairs(kv, num_kwargs, keys, values);
  return mxc_trainer_create(params, num_params, optimizer, keys, values, num_kwargs, out);
}

static mxc_status* transform_trampoline(void* user_data, mxc_ndarray* input,
                                        mxc_ndarray** output) {
  return mxgoTransformCall((uintptr_t)user_data, input, output);
}

static void transform_free(void* user_data) { mxgoDeleteHandle((uintptr_t)user_data); }

mxc_status* mxgo_transform_from_callback(uintptr_t fn, mxc_transform** out) {
  return mxc_transform_from_callback(transform_trampoline, (void*)fn, transform_free, out);
}
