/* Operators: the registry (names, inputs, typed attributes with defaults and docs, enough for a
 * binding to generate typed wrappers) and mxc_invoke, which runs any registered operator.
 *
 * mxc_op handles are immortal (the registry lives as long as the library): they need no free,
 * and their strings (names, docs, defaults) stay valid for the life of the process.
 * Threads: every function here may be called from any thread concurrently. */
#ifndef MXC_OPS_H_
#define MXC_OPS_H_

#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/ndarray.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_op mxc_op;

/* Number of registered operators (canonical names; aliases not counted).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_count(size_t* out) MXC_NOEXCEPT;
/* Operator `index` in name order (0 <= index < mxc_op_count). Errors: index out of range.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_at(size_t index, mxc_op** out) MXC_NOEXCEPT;
/* The operator named `name` (canonical name or alias, e.g. "relu", "Convolution", "_plus").
 * Errors: MXC_NOT_FOUND "unknown operator 'X'".
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_find(const char* name, mxc_op** out) MXC_NOEXCEPT;

/* Attribute value kinds (mxc_op_attr.kind). The string form is what mxc_invoke takes: bool
 * "True"/"False"/"1"/"0"; ints/floats in decimal; shapes and tuples "(3, 3)"; dtypes "float32";
 * strings as they are; optional values also "None". */
#define MXC_ATTR_STRING 0
#define MXC_ATTR_BOOL 1
#define MXC_ATTR_INT 2         /* 32-bit */
#define MXC_ATTR_LONG 3        /* 64-bit */
#define MXC_ATTR_FLOAT 4       /* 32-bit */
#define MXC_ATTR_DOUBLE 5      /* 64-bit */
#define MXC_ATTR_SHAPE 6       /* tuple of ints */
#define MXC_ATTR_FLOAT_TUPLE 7 /* tuple of floats */
#define MXC_ATTR_DTYPE 8       /* a dtype name */

typedef struct mxc_op_info {
  size_t struct_size;
  const char* name; /* canonical name */
  const char* doc;  /* description (may be "") */
  /* Inputs with the default attributes; -1 when their number depends on attributes. */
  int32_t num_inputs;
  /* Visible outputs (what mxc_invoke returns) with the default attributes; -1 when it depends on
   * attributes (use mxc_op_num_io). */
  int32_t num_outputs;
  /* Input names for the default attributes (num_input_names of them; 0 when the defaults do not
   * determine them). */
  size_t num_input_names;
  const char* const* input_names;
  size_t num_aliases;
  const char* const* aliases;
  /* Number of attributes (mxc_op_attr_at). */
  size_t num_attrs;
  /* The attribute that gives the number of inputs of a variadic operator ("num_args",
   * "num_arrays"), or NULL. */
  const char* variadic_attr;
  /* Nonzero when the operator has a gradient. */
  int32_t differentiable;
  /* Nonzero for operators that create arrays from attributes alone (no inputs: zeros, random
   * samplers); they run on the ctx's default device unless a "ctx" attribute is given. */
  int32_t is_creation;
} mxc_op_info;

typedef struct mxc_op_attr {
  size_t struct_size;
  const char* name;
  /* The C++ schema's type text: "Shape(tuple)", "float", "optional<int>", ... */
  const char* type;
  int32_t kind;     /* MXC_ATTR_* */
  int32_t optional; /* nonzero: "None" is accepted */
  int32_t required; /* nonzero: must be given */
  /* The default in string form (NULL when required). */
  const char* default_value;
  const char* doc;
  /* Allowed values of enum-like attributes (num_choices 0: any value of the kind). */
  size_t num_choices;
  const char* const* choices;
} mxc_op_attr;

/* Fills `info` (struct_size set by the caller; fields past it are not written).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_get_info(mxc_op* op, mxc_op_info* info) MXC_NOEXCEPT;
/* Fills `attr` for attribute `index` (< mxc_op_info.num_attrs).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_attr_at(mxc_op* op, size_t index, mxc_op_attr* attr) MXC_NOEXCEPT;
/* Input count and visible output count for the given attributes (string form, as mxc_invoke).
 * Errors: bad attributes (naming the op and attribute).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_num_io(mxc_op* op, const char* const* keys, const char* const* values,
                         size_t num_attrs, size_t* num_inputs, size_t* num_outputs) MXC_NOEXCEPT;

/* Input names for the given attributes (e.g. Convolution with no_bias "True": data, weight);
 * *names is freed with mxc_string_array_free(*names, *count). Errors: bad attributes.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_op_input_names(mxc_op* op, const char* const* keys, const char* const* values,
                              size_t num_attrs, char*** names, size_t* count) MXC_NOEXCEPT;

/* Runs `op` on `inputs` with attributes keys[i] = values[i] (MXNet's string form; "ctx" selects
 * the device of creation operators, else the ctx's default device), under `ctx`'s state (NULL:
 * defaults): recorded for autograd when the ctx is recording, training behaviour (Dropout,
 * BatchNorm) when it is training, random operators drawing from its RNG stream. Writes the
 * visible outputs, new arrays, to outputs[0..*num_outputs) (+1 references). Errors (nothing
 * written): invalid handles, bad attributes (naming the attribute and value), wrong input count,
 * shapes or dtypes (naming the op and input), mixed devices, max_outputs smaller than the output
 * count (MXC_OUT_OF_RANGE naming both; see mxc_op_num_io).
 * Threads: concurrent calls on distinct ctxs (or NULL) are safe, also on shared inputs. */
MXC_STATUS mxc_invoke(mxc_ctx* ctx, mxc_op* op, mxc_ndarray* const* inputs, size_t num_inputs,
                      const char* const* keys, const char* const* values, size_t num_attrs,
                      mxc_ndarray** outputs, size_t max_outputs, size_t* num_outputs) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_OPS_H_ */
