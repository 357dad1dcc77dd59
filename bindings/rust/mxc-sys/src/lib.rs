//! Raw declarations of `libmxc.so.1`, the stable C ABI of mxnet-cpp (`c_api/include/mxc/*.h`,
//! ABI 1.0). One item per C declaration, same names, `core::ffi` types; the rules (errors as
//! owned `*mut mxc_status`, +1 handle references, out-parameters written only on success, the
//! threading contract) are those of `c_api/README.md` and `mxc/base.h`. The safe API is the
//! `mxnet` crate.
//!
//! `tests/header_check.rs` compiles these declarations, translated to C, against the headers
//! (function types, struct layouts and field types, constant values) and checks that every
//! function, struct, enumerator and macro constant of the headers is declared here, so the two
//! cannot drift.
//!
//! Style (the checker parses it): opaque types in `opaque_types!`, enums as `pub type X = c_uint`
//! plus `pub const`s, `#define`s as `pub const`s, one `extern "C"` block.
#![no_std]
#![allow(non_camel_case_types)]

pub use core::ffi::{c_char, c_int, c_uint, c_void};

macro_rules! opaque_types {
    ($($name:ident),* $(,)?) => {$(
        /// Opaque C type: only ever used behind a pointer (a handle), never dereferenced.
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
            _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
        }
    )*};
}

opaque_types! {
    mxc_status,
    mxc_ctx,
    mxc_ndarray,
    mxc_op,
    mxc_symbol,
    mxc_infer_result,
    DLManagedTensor,
}

// ---- base.h ----

pub const MXC_ABI_MAJOR: u32 = 1;
pub const MXC_ABI_MINOR: u32 = 0;
pub const MXC_ABI_VERSION: u32 = (MXC_ABI_MAJOR << 16) | MXC_ABI_MINOR;

/// Status codes (absl::StatusCode numbering).
pub type mxc_code = c_uint;
pub const MXC_OK: mxc_code = 0;
pub const MXC_CANCELLED: mxc_code = 1;
pub const MXC_UNKNOWN: mxc_code = 2;
pub const MXC_INVALID_ARGUMENT: mxc_code = 3;
pub const MXC_DEADLINE_EXCEEDED: mxc_code = 4;
pub const MXC_NOT_FOUND: mxc_code = 5;
pub const MXC_ALREADY_EXISTS: mxc_code = 6;
pub const MXC_PERMISSION_DENIED: mxc_code = 7;
pub const MXC_RESOURCE_EXHAUSTED: mxc_code = 8;
pub const MXC_FAILED_PRECONDITION: mxc_code = 9;
pub const MXC_ABORTED: mxc_code = 10;
pub const MXC_OUT_OF_RANGE: mxc_code = 11;
pub const MXC_UNIMPLEMENTED: mxc_code = 12;
pub const MXC_INTERNAL: mxc_code = 13;
pub const MXC_UNAVAILABLE: mxc_code = 14;
pub const MXC_DATA_LOSS: mxc_code = 15;
pub const MXC_UNAUTHENTICATED: mxc_code = 16;

pub const MXC_DEVICE_CPU: i32 = 1;
pub const MXC_DEVICE_GPU: i32 = 2;
pub const MXC_DEVICE_CPU_PINNED: i32 = 3;

/// A device: `{MXC_DEVICE_CPU, 0}` is cpu(0); `{0, 0}` means the default device.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mxc_device {
    pub r#type: i32,
    pub id: i32,
}

/// Element types (MXNet's type flags).
pub type mxc_dtype = c_uint;
pub const MXC_FLOAT32: mxc_dtype = 0;
pub const MXC_FLOAT64: mxc_dtype = 1;
pub const MXC_FLOAT16: mxc_dtype = 2;
pub const MXC_UINT8: mxc_dtype = 3;
pub const MXC_INT32: mxc_dtype = 4;
pub const MXC_INT8: mxc_dtype = 5;
pub const MXC_INT64: mxc_dtype = 6;
pub const MXC_BOOL: mxc_dtype = 7;
pub const MXC_INT16: mxc_dtype = 8;
pub const MXC_UINT16: mxc_dtype = 9;
pub const MXC_UINT32: mxc_dtype = 10;
pub const MXC_UINT64: mxc_dtype = 11;
pub const MXC_BFLOAT16: mxc_dtype = 12;

/// Handle accounting (`mxc_handle_stats_get`); set `struct_size` before the call.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_handle_stats {
    pub struct_size: usize,
    pub live: u64,
    pub bad_frees: u64,
}

// ---- ctx.h ----

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_ctx_options {
    pub struct_size: usize,
    pub device: mxc_device,
    pub has_seed: i32,
    pub seed: u64,
}

// ---- ndarray.h ----

/// Called once when the last array using external memory is gone (any thread).
pub type mxc_deleter = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

pub const MXC_FORMAT_NDARRAY_LIST: i32 = 0;
pub const MXC_FORMAT_NPY: i32 = 1;
pub const MXC_FORMAT_NPZ: i32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_ndarray_load_options {
    pub struct_size: usize,
    pub device: mxc_device,
    pub reject_trailing_bytes: i32,
    pub keep_sparse: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_ndarray_save_options {
    pub struct_size: usize,
    pub format: i32,
    pub version: i32,
    pub no_fsync: i32,
}

// ---- ops.h ----

pub const MXC_ATTR_STRING: i32 = 0;
pub const MXC_ATTR_BOOL: i32 = 1;
pub const MXC_ATTR_INT: i32 = 2;
pub const MXC_ATTR_LONG: i32 = 3;
pub const MXC_ATTR_FLOAT: i32 = 4;
pub const MXC_ATTR_DOUBLE: i32 = 5;
pub const MXC_ATTR_SHAPE: i32 = 6;
pub const MXC_ATTR_FLOAT_TUPLE: i32 = 7;
pub const MXC_ATTR_DTYPE: i32 = 8;

/// Operator metadata (`mxc_op_get_info`); strings live as long as the process.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mxc_op_info {
    pub struct_size: usize,
    pub name: *const c_char,
    pub doc: *const c_char,
    pub num_inputs: i32,
    pub num_outputs: i32,
    pub num_input_names: usize,
    pub input_names: *const *const c_char,
    pub num_aliases: usize,
    pub aliases: *const *const c_char,
    pub num_attrs: usize,
    pub variadic_attr: *const c_char,
    pub differentiable: i32,
    pub is_creation: i32,
}

/// One operator attribute (`mxc_op_attr_at`); strings live as long as the process.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mxc_op_attr {
    pub struct_size: usize,
    pub name: *const c_char,
    pub r#type: *const c_char,
    pub kind: i32,
    pub optional: i32,
    pub required: i32,
    pub default_value: *const c_char,
    pub doc: *const c_char,
    pub num_choices: usize,
    pub choices: *const *const c_char,
}

// ---- autograd.h ----

pub const MXC_GRAD_NULL: i32 = 0;
pub const MXC_GRAD_WRITE: i32 = 1;
pub const MXC_GRAD_ADD: i32 = 2;

// ---- symbol.h ----

pub const MXC_INFER_ARGUMENTS: i32 = 0;
pub const MXC_INFER_OUTPUTS: i32 = 1;
pub const MXC_INFER_AUX_STATES: i32 = 2;

extern "C" {
    // ---- base.h ----
    pub fn mxc_abi_version() -> u32;
    pub fn mxc_status_code(status: *const mxc_status) -> mxc_code;
    pub fn mxc_status_message(status: *const mxc_status) -> *const c_char;
    pub fn mxc_status_free(status: *mut mxc_status);
    pub fn mxc_code_name(code: i32) -> *const c_char;
    pub fn mxc_abi_check(major: u32, minor: u32) -> *mut mxc_status;
    pub fn mxc_dtype_size(dtype: i32) -> usize;
    pub fn mxc_dtype_name(dtype: i32) -> *const c_char;
    pub fn mxc_string_free(str: *mut c_char);
    pub fn mxc_string_array_free(strs: *mut *mut c_char, count: usize);
    pub fn mxc_bytes_free(bytes: *mut c_void);
    pub fn mxc_handle_stats_get(stats: *mut mxc_handle_stats) -> *mut mxc_status;

    // ---- ctx.h ----
    pub fn mxc_ctx_create(
        options: *const mxc_ctx_options,
        out: *mut *mut mxc_ctx,
    ) -> *mut mxc_status;
    pub fn mxc_ctx_retain(ctx: *mut mxc_ctx) -> *mut mxc_status;
    pub fn mxc_ctx_free(ctx: *mut mxc_ctx);
    pub fn mxc_ctx_device(ctx: *mut mxc_ctx, out: *mut mxc_device) -> *mut mxc_status;
    pub fn mxc_ctx_set_device(
        ctx: *mut mxc_ctx,
        device: mxc_device,
        previous: *mut mxc_device,
    ) -> *mut mxc_status;
    pub fn mxc_ctx_seed(ctx: *mut mxc_ctx, seed: u64) -> *mut mxc_status;
    pub fn mxc_random_seed(seed: u64) -> *mut mxc_status;

    // ---- ndarray.h ----
    pub fn mxc_ndarray_create(
        shape: *const i64,
        ndim: usize,
        dtype: i32,
        device: mxc_device,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_from_host(
        data: *const c_void,
        nbytes: usize,
        shape: *const i64,
        ndim: usize,
        dtype: i32,
        device: mxc_device,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_from_external(
        data: *mut c_void,
        nbytes: usize,
        shape: *const i64,
        ndim: usize,
        dtype: i32,
        device: mxc_device,
        deleter: mxc_deleter,
        user_data: *mut c_void,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_retain(array: *mut mxc_ndarray) -> *mut mxc_status;
    pub fn mxc_ndarray_free(array: *mut mxc_ndarray);
    pub fn mxc_ndarray_array_free(arrays: *mut *mut mxc_ndarray, count: usize);
    pub fn mxc_ndarray_ndim(array: *mut mxc_ndarray, out: *mut usize) -> *mut mxc_status;
    pub fn mxc_ndarray_shape(
        array: *mut mxc_ndarray,
        dims: *mut i64,
        capacity: usize,
        ndim: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_size(array: *mut mxc_ndarray, out: *mut i64) -> *mut mxc_status;
    pub fn mxc_ndarray_nbytes(array: *mut mxc_ndarray, out: *mut usize) -> *mut mxc_status;
    pub fn mxc_ndarray_dtype(array: *mut mxc_ndarray, out: *mut i32) -> *mut mxc_status;
    pub fn mxc_ndarray_device(array: *mut mxc_ndarray, out: *mut mxc_device) -> *mut mxc_status;
    pub fn mxc_ndarray_data(array: *mut mxc_ndarray, out: *mut *mut c_void) -> *mut mxc_status;
    pub fn mxc_ndarray_copy_to_host(
        array: *mut mxc_ndarray,
        dst: *mut c_void,
        nbytes: usize,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_copy_from_host(
        array: *mut mxc_ndarray,
        src: *const c_void,
        nbytes: usize,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_copy(
        array: *mut mxc_ndarray,
        device: mxc_device,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_reshape(
        ctx: *mut mxc_ctx,
        array: *mut mxc_ndarray,
        shape: *const i64,
        ndim: usize,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_slice(
        ctx: *mut mxc_ctx,
        array: *mut mxc_ndarray,
        begin: i64,
        end: i64,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_wait(array: *mut mxc_ndarray) -> *mut mxc_status;
    pub fn mxc_ndarray_waitall() -> *mut mxc_status;
    pub fn mxc_ndarray_load(
        path: *const c_char,
        options: *const mxc_ndarray_load_options,
        arrays: *mut *mut *mut mxc_ndarray,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_load_from_buffer(
        data: *const c_void,
        size: usize,
        options: *const mxc_ndarray_load_options,
        arrays: *mut *mut *mut mxc_ndarray,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_save(
        path: *const c_char,
        arrays: *const *mut mxc_ndarray,
        names: *const *const c_char,
        count: usize,
        options: *const mxc_ndarray_save_options,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_save_to_buffer(
        arrays: *const *mut mxc_ndarray,
        names: *const *const c_char,
        count: usize,
        options: *const mxc_ndarray_save_options,
        data: *mut *mut c_void,
        size: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_to_dlpack(
        array: *mut mxc_ndarray,
        out: *mut *mut DLManagedTensor,
    ) -> *mut mxc_status;
    pub fn mxc_ndarray_from_dlpack(
        tensor: *mut DLManagedTensor,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;

    // ---- ops.h ----
    pub fn mxc_op_count(out: *mut usize) -> *mut mxc_status;
    pub fn mxc_op_at(index: usize, out: *mut *mut mxc_op) -> *mut mxc_status;
    pub fn mxc_op_find(name: *const c_char, out: *mut *mut mxc_op) -> *mut mxc_status;
    pub fn mxc_op_get_info(op: *mut mxc_op, info: *mut mxc_op_info) -> *mut mxc_status;
    pub fn mxc_op_attr_at(op: *mut mxc_op, index: usize, attr: *mut mxc_op_attr)
        -> *mut mxc_status;
    pub fn mxc_op_num_io(
        op: *mut mxc_op,
        keys: *const *const c_char,
        values: *const *const c_char,
        num_attrs: usize,
        num_inputs: *mut usize,
        num_outputs: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_op_input_names(
        op: *mut mxc_op,
        keys: *const *const c_char,
        values: *const *const c_char,
        num_attrs: usize,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_invoke(
        ctx: *mut mxc_ctx,
        op: *mut mxc_op,
        inputs: *const *mut mxc_ndarray,
        num_inputs: usize,
        keys: *const *const c_char,
        values: *const *const c_char,
        num_attrs: usize,
        outputs: *mut *mut mxc_ndarray,
        max_outputs: usize,
        num_outputs: *mut usize,
    ) -> *mut mxc_status;

    // ---- autograd.h ----
    pub fn mxc_autograd_set_recording(
        ctx: *mut mxc_ctx,
        recording: i32,
        previous: *mut i32,
    ) -> *mut mxc_status;
    pub fn mxc_autograd_set_training(
        ctx: *mut mxc_ctx,
        training: i32,
        previous: *mut i32,
    ) -> *mut mxc_status;
    pub fn mxc_autograd_is_recording(ctx: *mut mxc_ctx, out: *mut i32) -> *mut mxc_status;
    pub fn mxc_autograd_is_training(ctx: *mut mxc_ctx, out: *mut i32) -> *mut mxc_status;
    pub fn mxc_ndarray_attach_grad(array: *mut mxc_ndarray, grad_req: i32) -> *mut mxc_status;
    pub fn mxc_ndarray_grad(array: *mut mxc_ndarray, out: *mut *mut mxc_ndarray)
        -> *mut mxc_status;
    pub fn mxc_autograd_mark_variables(
        variables: *const *mut mxc_ndarray,
        gradients: *const *mut mxc_ndarray,
        grad_reqs: *const i32,
        count: usize,
    ) -> *mut mxc_status;
    pub fn mxc_autograd_backward(
        ctx: *mut mxc_ctx,
        heads: *const *mut mxc_ndarray,
        num_heads: usize,
        head_grads: *const *mut mxc_ndarray,
        retain_graph: i32,
        train_mode: i32,
    ) -> *mut mxc_status;
    pub fn mxc_autograd_grad(
        ctx: *mut mxc_ctx,
        heads: *const *mut mxc_ndarray,
        num_heads: usize,
        head_grads: *const *mut mxc_ndarray,
        variables: *const *mut mxc_ndarray,
        num_variables: usize,
        retain_graph: i32,
        create_graph: i32,
        train_mode: i32,
        gradients: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;

    // ---- symbol.h ----
    pub fn mxc_symbol_retain(symbol: *mut mxc_symbol) -> *mut mxc_status;
    pub fn mxc_symbol_free(symbol: *mut mxc_symbol);
    pub fn mxc_symbol_from_json(json: *const c_char, out: *mut *mut mxc_symbol) -> *mut mxc_status;
    pub fn mxc_symbol_load(path: *const c_char, out: *mut *mut mxc_symbol) -> *mut mxc_status;
    pub fn mxc_symbol_to_json(symbol: *mut mxc_symbol, json: *mut *mut c_char) -> *mut mxc_status;
    pub fn mxc_symbol_save(symbol: *mut mxc_symbol, path: *const c_char) -> *mut mxc_status;
    pub fn mxc_symbol_variable(name: *const c_char, out: *mut *mut mxc_symbol) -> *mut mxc_status;
    pub fn mxc_symbol_create(
        op: *mut mxc_op,
        inputs: *const *mut mxc_symbol,
        num_inputs: usize,
        keys: *const *const c_char,
        values: *const *const c_char,
        num_attrs: usize,
        name: *const c_char,
        out: *mut *mut mxc_symbol,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_group(
        symbols: *const *mut mxc_symbol,
        count: usize,
        out: *mut *mut mxc_symbol,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_output(
        symbol: *mut mxc_symbol,
        index: usize,
        out: *mut *mut mxc_symbol,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_get_internals(
        symbol: *mut mxc_symbol,
        out: *mut *mut mxc_symbol,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_compose(
        symbol: *mut mxc_symbol,
        names: *const *const c_char,
        substitutes: *const *mut mxc_symbol,
        count: usize,
        out: *mut *mut mxc_symbol,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_name(symbol: *mut mxc_symbol, name: *mut *mut c_char) -> *mut mxc_status;
    pub fn mxc_symbol_list_arguments(
        symbol: *mut mxc_symbol,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_list_outputs(
        symbol: *mut mxc_symbol,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_list_auxiliary_states(
        symbol: *mut mxc_symbol,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_list_inputs(
        symbol: *mut mxc_symbol,
        names: *mut *mut *mut c_char,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_infer_shape(
        symbol: *mut mxc_symbol,
        names: *const *const c_char,
        ndims: *const usize,
        dims: *const i64,
        count: usize,
        partial: i32,
        out: *mut *mut mxc_infer_result,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_infer_type(
        symbol: *mut mxc_symbol,
        names: *const *const c_char,
        dtypes: *const i32,
        count: usize,
        out: *mut *mut mxc_infer_result,
    ) -> *mut mxc_status;
    pub fn mxc_infer_result_count(
        result: *mut mxc_infer_result,
        which: i32,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_infer_result_shape(
        result: *mut mxc_infer_result,
        which: i32,
        index: usize,
        dims: *mut *const i64,
        ndim: *mut i32,
    ) -> *mut mxc_status;
    pub fn mxc_infer_result_dtype(
        result: *mut mxc_infer_result,
        which: i32,
        index: usize,
        dtype: *mut i32,
    ) -> *mut mxc_status;
    pub fn mxc_infer_result_retain(result: *mut mxc_infer_result) -> *mut mxc_status;
    pub fn mxc_infer_result_free(result: *mut mxc_infer_result);
}
