//! Raw declarations of `libmxc.so.1`, the stable C ABI of mxnet-cpp (`c_api/include/mxc/*.h`,
//! ABI 1.2). One item per C declaration, same names, `core::ffi` types; the rules (errors as
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
    mxc_block,
    mxc_parameter,
    mxc_trainer,
    mxc_transform,
    mxc_dataset,
    mxc_dataloader,
}

// ---- base.h ----

pub const MXC_ABI_MAJOR: u32 = 1;
pub const MXC_ABI_MINOR: u32 = 3;
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
    pub max_densified_bytes: u64,
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

// ---- gluon.h ----

/// Model-zoo options (`mxc_model_zoo_get`); zero fields mean the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mxc_model_options {
    pub struct_size: usize,
    pub classes: i64,
    pub pretrained: i32,
    pub root: *const c_char,
    pub device: mxc_device,
}

/// Hybridize options (`mxc_block_hybridize`); zero fields mean the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mxc_hybridize_options {
    pub struct_size: usize,
    pub deactivate: i32,
    pub static_alloc: i32,
    pub static_shape: i32,
    pub backend: *const c_char,
}

/// load_parameters options (`mxc_block_load_parameters`); zero fields mean the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_load_parameters_options {
    pub struct_size: usize,
    pub device: mxc_device,
    pub allow_missing: i32,
    pub ignore_extra: i32,
    pub cast_dtype: i32,
}

// ---- data.h ----

pub const MXC_INTERP_NEAREST: i32 = 0;
pub const MXC_INTERP_BILINEAR: i32 = 1;
pub const MXC_INTERP_BICUBIC: i32 = 2;
pub const MXC_INTERP_AREA: i32 = 3;
pub const MXC_INTERP_LANCZOS: i32 = 4;

/// A transform written by the caller: returns NULL and a +1 array in `*output`, or a status
/// made with `mxc_status_create`. Called on whichever thread applies the transform.
pub type mxc_transform_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        input: *mut mxc_ndarray,
        output: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status,
>;
/// Frees a callback's user data; called once, on the thread dropping the last reference.
pub type mxc_user_data_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

// ---- custom.h (ABI 1.1) ----

pub const MXC_MAX_NDIM: usize = 32;

/// Forward of a custom operator written in C (see `mxc/custom.h`).
pub type mxc_custom_forward_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        attr_keys: *const *const c_char,
        attr_values: *const *const c_char,
        num_attrs: usize,
        is_train: i32,
        in_data: *const *mut mxc_ndarray,
        num_inputs: usize,
        out_data: *const *mut mxc_ndarray,
        num_outputs: usize,
        aux: *const *mut mxc_ndarray,
        num_aux: usize,
    ) -> *mut mxc_status,
>;
/// Backward of a custom operator written in C.
pub type mxc_custom_backward_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        attr_keys: *const *const c_char,
        attr_values: *const *const c_char,
        num_attrs: usize,
        out_grad: *const *mut mxc_ndarray,
        out_data: *const *mut mxc_ndarray,
        num_outputs: usize,
        in_data: *const *mut mxc_ndarray,
        in_grad: *const *mut mxc_ndarray,
        num_inputs: usize,
        aux: *const *mut mxc_ndarray,
        num_aux: usize,
    ) -> *mut mxc_status,
>;
/// Shape inference of a custom operator (shapes at `dims[i * MXC_MAX_NDIM ..]`).
pub type mxc_custom_infer_shape_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        attr_keys: *const *const c_char,
        attr_values: *const *const c_char,
        num_attrs: usize,
        in_dims: *const i64,
        in_ndims: *const usize,
        num_inputs: usize,
        out_dims: *mut i64,
        out_ndims: *mut usize,
        num_outputs: usize,
        aux_dims: *mut i64,
        aux_ndims: *mut usize,
        num_aux: usize,
    ) -> *mut mxc_status,
>;
/// Type inference of a custom operator (mxc_dtype values).
pub type mxc_custom_infer_type_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        attr_keys: *const *const c_char,
        attr_values: *const *const c_char,
        num_attrs: usize,
        in_types: *const i32,
        num_inputs: usize,
        out_types: *mut i32,
        num_outputs: usize,
        aux_types: *mut i32,
        num_aux: usize,
    ) -> *mut mxc_status,
>;

/// A custom operator's names and callbacks (`mxc_custom_op_register`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mxc_custom_op_def {
    pub struct_size: usize,
    pub arguments: *const *const c_char,
    pub num_arguments: usize,
    pub outputs: *const *const c_char,
    pub num_outputs: usize,
    pub aux_states: *const *const c_char,
    pub num_aux_states: usize,
    pub no_top_grad: i32,
    pub forward: mxc_custom_forward_fn,
    pub backward: mxc_custom_backward_fn,
    pub infer_shape: mxc_custom_infer_shape_fn,
    pub infer_type: mxc_custom_infer_type_fn,
}

// ---- log.h (ABI 1.1) ----

pub const MXC_LOG_PROGRESS: i32 = 0;
pub const MXC_LOG_INFO: i32 = 1;
pub const MXC_LOG_WARNING: i32 = 2;
pub const MXC_LOG_ERROR: i32 = 3;

/// The progress/log sink (`mxc_log_set_sink`).
pub type mxc_log_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        level: i32,
        source: *const c_char,
        message: *const c_char,
        done: i64,
        total: i64,
    ) -> *mut mxc_status,
>;

// ---- onnx.h (ABI 1.2) ----

/// ONNX export options (`mxc_block_export_onnx`); zero fields mean the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_onnx_export_options {
    pub struct_size: usize,
    pub opset: i32,
    pub static_batch: i32,
}

pub const MXC_LAST_BATCH_KEEP: i32 = 0;
pub const MXC_LAST_BATCH_DISCARD: i32 = 1;
pub const MXC_LAST_BATCH_ROLLOVER: i32 = 2;

/// DataLoader options (`mxc_dataloader_create`); batch_size is required.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mxc_dataloader_options {
    pub struct_size: usize,
    pub batch_size: i64,
    pub shuffle: i32,
    pub last_batch: i32,
    pub num_workers: i32,
    pub prefetch: i32,
}

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
    pub fn mxc_status_create(code: i32, message: *const c_char) -> *mut mxc_status;

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

    // ---- gluon.h ----
    pub fn mxc_model_zoo_list(names: *mut *mut *mut c_char, count: *mut usize) -> *mut mxc_status;
    pub fn mxc_model_zoo_get(
        name: *const c_char,
        options: *const mxc_model_options,
        out: *mut *mut mxc_block,
    ) -> *mut mxc_status;
    pub fn mxc_block_retain(block: *mut mxc_block) -> *mut mxc_status;
    pub fn mxc_block_free(block: *mut mxc_block);
    pub fn mxc_symbol_block_imports(
        symbol_file: *const c_char,
        input_names: *const *const c_char,
        num_inputs: usize,
        param_file: *const c_char,
        device: mxc_device,
        out: *mut *mut mxc_block,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_block_create(
        outputs: *mut mxc_symbol,
        input_names: *const *const c_char,
        num_inputs: usize,
        out: *mut *mut mxc_block,
    ) -> *mut mxc_status;
    pub fn mxc_block_initialize(
        ctx: *mut mxc_ctx,
        block: *mut mxc_block,
        init: *const c_char,
        device: mxc_device,
        force_reinit: i32,
    ) -> *mut mxc_status;
    pub fn mxc_block_call(
        ctx: *mut mxc_ctx,
        block: *mut mxc_block,
        inputs: *const *mut mxc_ndarray,
        num_inputs: usize,
        outputs: *mut *mut mxc_ndarray,
        max_outputs: usize,
        num_outputs: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_block_hybridize(
        block: *mut mxc_block,
        options: *const mxc_hybridize_options,
    ) -> *mut mxc_status;
    pub fn mxc_block_export(
        block: *mut mxc_block,
        path: *const c_char,
        epoch: i32,
    ) -> *mut mxc_status;
    pub fn mxc_block_save_parameters(block: *mut mxc_block, path: *const c_char)
        -> *mut mxc_status;
    pub fn mxc_block_load_parameters(
        block: *mut mxc_block,
        path: *const c_char,
        options: *const mxc_load_parameters_options,
    ) -> *mut mxc_status;
    pub fn mxc_block_collect_params(
        block: *mut mxc_block,
        select: *const c_char,
        params: *mut *mut *mut mxc_parameter,
        count: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_block_zero_grad(block: *mut mxc_block) -> *mut mxc_status;
    pub fn mxc_block_to_string(block: *mut mxc_block, text: *mut *mut c_char) -> *mut mxc_status;
    pub fn mxc_parameter_retain(param: *mut mxc_parameter) -> *mut mxc_status;
    pub fn mxc_parameter_free(param: *mut mxc_parameter);
    pub fn mxc_parameter_array_free(params: *mut *mut mxc_parameter, count: usize);
    pub fn mxc_parameter_name(param: *mut mxc_parameter, name: *mut *mut c_char)
        -> *mut mxc_status;
    pub fn mxc_parameter_shape(
        param: *mut mxc_parameter,
        dims: *mut i64,
        capacity: usize,
        ndim: *mut i32,
    ) -> *mut mxc_status;
    pub fn mxc_parameter_dtype(param: *mut mxc_parameter, dtype: *mut i32) -> *mut mxc_status;
    pub fn mxc_parameter_data(
        param: *mut mxc_parameter,
        device: mxc_device,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_parameter_grad(
        param: *mut mxc_parameter,
        device: mxc_device,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_parameter_set_data(
        param: *mut mxc_parameter,
        value: *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_parameter_initialize(
        ctx: *mut mxc_ctx,
        param: *mut mxc_parameter,
        init: *const c_char,
        device: mxc_device,
        force_reinit: i32,
    ) -> *mut mxc_status;
    pub fn mxc_parameter_zero_grad(param: *mut mxc_parameter) -> *mut mxc_status;
    pub fn mxc_parameter_grad_req(param: *mut mxc_parameter, grad_req: *mut i32)
        -> *mut mxc_status;
    pub fn mxc_parameter_set_grad_req(param: *mut mxc_parameter, grad_req: i32) -> *mut mxc_status;
    pub fn mxc_parameter_lr_mult(param: *mut mxc_parameter, out: *mut f64) -> *mut mxc_status;
    pub fn mxc_parameter_set_lr_mult(param: *mut mxc_parameter, value: f64) -> *mut mxc_status;
    pub fn mxc_parameter_wd_mult(param: *mut mxc_parameter, out: *mut f64) -> *mut mxc_status;
    pub fn mxc_parameter_set_wd_mult(param: *mut mxc_parameter, value: f64) -> *mut mxc_status;

    // ---- training.h ----
    pub fn mxc_loss_list(names: *mut *mut *mut c_char, count: *mut usize) -> *mut mxc_status;
    pub fn mxc_loss_create(
        name: *const c_char,
        keys: *const *const c_char,
        values: *const *const c_char,
        num_kwargs: usize,
        out: *mut *mut mxc_block,
    ) -> *mut mxc_status;
    pub fn mxc_trainer_create(
        params: *const *mut mxc_parameter,
        num_params: usize,
        optimizer: *const c_char,
        keys: *const *const c_char,
        values: *const *const c_char,
        num_kwargs: usize,
        out: *mut *mut mxc_trainer,
    ) -> *mut mxc_status;
    pub fn mxc_trainer_retain(trainer: *mut mxc_trainer) -> *mut mxc_status;
    pub fn mxc_trainer_free(trainer: *mut mxc_trainer);
    pub fn mxc_trainer_step(
        ctx: *mut mxc_ctx,
        trainer: *mut mxc_trainer,
        batch_size: f64,
        ignore_stale_grad: i32,
    ) -> *mut mxc_status;
    pub fn mxc_trainer_learning_rate(trainer: *mut mxc_trainer, out: *mut f64) -> *mut mxc_status;
    pub fn mxc_trainer_set_learning_rate(trainer: *mut mxc_trainer, lr: f64) -> *mut mxc_status;
    pub fn mxc_trainer_save_states(
        trainer: *mut mxc_trainer,
        path: *const c_char,
    ) -> *mut mxc_status;
    pub fn mxc_trainer_load_states(
        trainer: *mut mxc_trainer,
        path: *const c_char,
    ) -> *mut mxc_status;

    // ---- data.h ----
    pub fn mxc_image_decode(
        bytes: *const c_void,
        size: usize,
        flag: i32,
        to_rgb: i32,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_image_read(
        path: *const c_char,
        flag: i32,
        to_rgb: i32,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_image_resize_short(
        image: *mut mxc_ndarray,
        size: i64,
        interp: i32,
        round_long_side: i32,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_transform_to_tensor(out: *mut *mut mxc_transform) -> *mut mxc_status;
    pub fn mxc_transform_normalize(
        mean: *const f32,
        num_mean: usize,
        std: *const f32,
        num_std: usize,
        out: *mut *mut mxc_transform,
    ) -> *mut mxc_status;
    pub fn mxc_transform_resize(
        width: i64,
        height: i64,
        keep_ratio: i32,
        interp: i32,
        out: *mut *mut mxc_transform,
    ) -> *mut mxc_status;
    pub fn mxc_transform_center_crop(
        width: i64,
        height: i64,
        interp: i32,
        out: *mut *mut mxc_transform,
    ) -> *mut mxc_status;
    pub fn mxc_transform_cast(dtype: i32, out: *mut *mut mxc_transform) -> *mut mxc_status;
    pub fn mxc_transform_compose(
        steps: *const *mut mxc_transform,
        count: usize,
        out: *mut *mut mxc_transform,
    ) -> *mut mxc_status;
    pub fn mxc_transform_from_callback(
        fn_: mxc_transform_fn,
        user_data: *mut c_void,
        free_user_data: mxc_user_data_free_fn,
        out: *mut *mut mxc_transform,
    ) -> *mut mxc_status;
    pub fn mxc_transform_apply(
        transform: *mut mxc_transform,
        input: *mut mxc_ndarray,
        out: *mut *mut mxc_ndarray,
    ) -> *mut mxc_status;
    pub fn mxc_transform_to_string(
        transform: *mut mxc_transform,
        text: *mut *mut c_char,
    ) -> *mut mxc_status;
    pub fn mxc_transform_retain(transform: *mut mxc_transform) -> *mut mxc_status;
    pub fn mxc_transform_free(transform: *mut mxc_transform);
    pub fn mxc_dataset_fashion_mnist(
        root: *const c_char,
        train: i32,
        out: *mut *mut mxc_dataset,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_mnist(
        root: *const c_char,
        train: i32,
        out: *mut *mut mxc_dataset,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_from_arrays(
        columns: *const *mut mxc_ndarray,
        num_columns: usize,
        out: *mut *mut mxc_dataset,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_size(dataset: *mut mxc_dataset, out: *mut i64) -> *mut mxc_status;
    pub fn mxc_dataset_get(
        dataset: *mut mxc_dataset,
        index: i64,
        fields: *mut *mut mxc_ndarray,
        max_fields: usize,
        num_fields: *mut usize,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_take(
        dataset: *mut mxc_dataset,
        count: i64,
        out: *mut *mut mxc_dataset,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_shard(
        dataset: *mut mxc_dataset,
        num_shards: i64,
        index: i64,
        out: *mut *mut mxc_dataset,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_transform_first(
        dataset: *mut mxc_dataset,
        transform: *mut mxc_transform,
        lazy: i32,
        out: *mut *mut mxc_dataset,
    ) -> *mut mxc_status;
    pub fn mxc_dataset_retain(dataset: *mut mxc_dataset) -> *mut mxc_status;
    pub fn mxc_dataset_free(dataset: *mut mxc_dataset);
    pub fn mxc_dataloader_create(
        dataset: *mut mxc_dataset,
        options: *const mxc_dataloader_options,
        out: *mut *mut mxc_dataloader,
    ) -> *mut mxc_status;
    pub fn mxc_dataloader_size(loader: *mut mxc_dataloader, out: *mut i64) -> *mut mxc_status;
    pub fn mxc_dataloader_next(
        ctx: *mut mxc_ctx,
        loader: *mut mxc_dataloader,
        fields: *mut *mut mxc_ndarray,
        max_fields: usize,
        num_fields: *mut usize,
        has_batch: *mut i32,
    ) -> *mut mxc_status;
    pub fn mxc_dataloader_reset(loader: *mut mxc_dataloader) -> *mut mxc_status;
    pub fn mxc_dataloader_retain(loader: *mut mxc_dataloader) -> *mut mxc_status;
    pub fn mxc_dataloader_free(loader: *mut mxc_dataloader);

    // ---- custom.h (ABI 1.1) ----
    pub fn mxc_custom_op_register(
        op_type: *const c_char,
        def: *const mxc_custom_op_def,
        user_data: *mut c_void,
        free_user_data: mxc_user_data_free_fn,
    ) -> *mut mxc_status;
    pub fn mxc_custom_op_unregister(op_type: *const c_char) -> *mut mxc_status;

    // ---- log.h (ABI 1.1) ----
    pub fn mxc_log_set_sink(
        fn_: mxc_log_fn,
        user_data: *mut c_void,
        free_user_data: mxc_user_data_free_fn,
        min_level: i32,
    ) -> *mut mxc_status;
    pub fn mxc_log_message(
        level: i32,
        source: *const c_char,
        message: *const c_char,
        done: i64,
        total: i64,
    ) -> *mut mxc_status;

    // ---- onnx.h (ABI 1.2) ----
    pub fn mxc_onnx_opsets(
        export_min: *mut i32,
        export_max: *mut i32,
        import_min: *mut i32,
        import_max: *mut i32,
    );
    pub fn mxc_block_export_onnx(
        ctx: *mut mxc_ctx,
        block: *mut mxc_block,
        ndims: *const usize,
        dims: *const i64,
        num_inputs: usize,
        path: *const c_char,
        options: *const mxc_onnx_export_options,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_block_imports_onnx(
        path: *const c_char,
        device: mxc_device,
        out: *mut *mut mxc_block,
    ) -> *mut mxc_status;
    pub fn mxc_symbol_block_imports_onnx_bytes(
        data: *const c_void,
        nbytes: usize,
        device: mxc_device,
        out: *mut *mut mxc_block,
    ) -> *mut mxc_status;
}
