//! Gluon (`mxnet.gluon`): [`Block`]s from the model zoo ([`model_zoo`]), from exported files
//! ([`Block::imports`]) or from a graph of your own ([`Block::from_symbol`]); calling,
//! hybridizing, exporting, parameter files, and their [`Parameter`]s ([`Block::collect_params`]
//! with an RE2 regular expression).
//!
//! Threads (`mxc/gluon.h`): an initialized block may be called from several threads at once
//! (`Block::call` takes `&self`; a hybridized block runs an immutable cached graph with per-call
//! state); `initialize`, `hybridize`, `load_parameters` and parameter setters change the block
//! and take `&mut self`. As with [`NDArray`], clones are further handles to the *same* block: a
//! `&mut` method must not run while another thread uses a clone. Any handle may be dropped on any
//! thread.
use crate::context::{current_raw, ensure_abi, Context};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{check, Code, Error, Result};
use crate::handle::handle_type;
use crate::util::{buffer_too_small, cstring, path_cstring, take_string, take_string_array};
use crate::{GradReq, NDArray, Symbol};
use mxc_sys as sys;
use std::ffi::{c_char, CString};
use std::path::Path;
use std::ptr;

handle_type!(
    /// A Gluon block (`mxc_block`): a model-zoo net, a `SymbolBlock`, a loss. `Clone` retains the
    /// same block, `Drop` releases it.
    ///
    /// Threads: `Send + Sync`; [`call`](Self::call) and the readers (`export`,
    /// `save_parameters`, `collect_params`) take `&self` and may run on many threads at once
    /// (each thread uses its own [`Context`]); the writers take `&mut self`.
    Block,
    mxc_block,
    mxc_block_retain,
    mxc_block_free
);

// SAFETY: the C ABI allows one initialized block to be called and read from many threads at once;
// everything that writes it takes `&mut self`.
unsafe impl Sync for Block {}

/// MXNet's `HybridBlock`: the C ABI has one block type; hybridizing is [`Block::hybridize`].
pub type HybridBlock = Block;
/// MXNet's `SymbolBlock` ([`Block::imports`], [`Block::from_symbol`]).
pub type SymbolBlock = Block;

/// Options of [`Block::hybridize`] (`HybridBlock.hybridize(active, static_alloc, static_shape,
/// backend)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HybridizeOptions {
    /// Turn hybridization off (back to imperative calls).
    pub deactivate: bool,
    /// MXNet's `static_alloc`.
    pub static_alloc: bool,
    /// MXNet's `static_shape`.
    pub static_shape: bool,
    /// Graph passes: None (the traced graph as is), "default", "onednn".
    pub backend: Option<String>,
}

/// Options of [`Block::load_parameters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadParametersOptions {
    /// Where the parameters go (default cpu(0)).
    pub device: Device,
    /// Parameters missing from the file keep their values / stay uninitialized.
    pub allow_missing: bool,
    /// Names in the file the block lacks are ignored.
    pub ignore_extra: bool,
    /// Cast loaded values to the parameters' dtypes.
    pub cast_dtype: bool,
}

/// The most outputs one [`Block::call`] takes before retrying with room for more.
const CALL_OUTPUTS: usize = 16;

impl Block {
    /// `SymbolBlock.imports(symbol_file, input_names, param_file, device)`: an exported
    /// `-symbol.json` with data inputs `input_names` and, if given, its parameters
    /// (`arg:`/`aux:` keys; MXNet 1.x/2.x files or ours). Errors: `NotFound` for missing
    /// files, bad JSON, missing or extra parameters (naming them).
    pub fn imports(
        symbol_file: impl AsRef<Path>,
        input_names: &[&str],
        param_file: Option<&Path>,
        device: Device,
    ) -> Result<Block> {
        ensure_abi()?;
        let sym = path_cstring(symbol_file.as_ref())?;
        let names = c_strings(input_names, "SymbolBlock::imports: input name")?;
        let np: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let params = param_file.map(path_cstring).transpose()?;
        Block::out(|o| unsafe {
            sys::mxc_symbol_block_imports(
                sym.as_ptr(),
                np.as_ptr(),
                np.len(),
                params.as_ref().map_or(ptr::null(), |p| p.as_ptr()),
                device.to_raw(),
                o,
            )
        })
    }

    /// MXNet's `mx.onnx.import_model` as a block: an ONNX model file read as a SymbolBlock whose
    /// inputs are the model's non-initializer graph inputs (in order) and whose parameters are
    /// its initializers, on `device`. Errors: `NotFound` for a missing file; `InvalidArgument`
    /// for a corrupt model, unknown operators (naming op and node), an opset outside 7..21,
    /// external data escaping the model's directory. (ABI 1.2)
    pub fn imports_onnx(path: impl AsRef<Path>, device: Device) -> Result<Block> {
        ensure_abi()?;
        let p = path_cstring(path.as_ref())?;
        Block::out(|o| unsafe {
            sys::mxc_symbol_block_imports_onnx(p.as_ptr(), device.to_raw(), o)
        })
    }

    /// As [`imports_onnx`](Self::imports_onnx) from the bytes of a serialized ONNX model (models
    /// with external data are refused).
    pub fn imports_onnx_bytes(bytes: &[u8], device: Device) -> Result<Block> {
        ensure_abi()?;
        Block::out(|o| unsafe {
            sys::mxc_symbol_block_imports_onnx_bytes(
                bytes.as_ptr().cast(),
                bytes.len(),
                device.to_raw(),
                o,
            )
        })
    }

    /// `SymbolBlock(outputs, inputs)`: a block over the graph `outputs` (a group for several)
    /// with data inputs `input_names`; every other variable becomes a parameter named after it
    /// (auxiliary states with grad_req null), uninitialized (call
    /// [`initialize`](Self::initialize); shapes are inferred on the first call). Errors: an
    /// input name that is no variable of the graph.
    pub fn from_symbol(outputs: &Symbol, input_names: &[&str]) -> Result<Block> {
        let names = c_strings(input_names, "SymbolBlock: input name")?;
        let np: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        Block::out(|o| unsafe {
            sys::mxc_symbol_block_create(outputs.as_raw(), np.as_ptr(), np.len(), o)
        })
    }

    /// Initializes every parameter not yet initialized (all with `force_reinit`) on `device`.
    /// `init`: None for MXNet's default `Uniform(0.07)`, else an initializer as MXNet writes
    /// `__init__` ("xavier", "zeros", `["normal", {"sigma": 0.02}]`). Shapes unknown until the
    /// first call are initialized then. Random draws use the thread's [`Context`] stream.
    pub fn initialize(
        &mut self,
        init: Option<&str>,
        device: Device,
        force_reinit: bool,
    ) -> Result<()> {
        initialize_with(
            sys::mxc_block_initialize,
            self.as_raw(),
            init,
            device,
            force_reinit,
        )
    }

    /// Calls the block on `inputs` (NCHW images for vision nets) under the thread's current
    /// [`Context`] (recorded when recording, training behaviour when training); returns its
    /// outputs, new arrays. Errors: uninitialized parameters, shape mismatches (naming the
    /// layer).
    pub fn call(&self, inputs: &[&NDArray]) -> Result<Vec<NDArray>> {
        let ctx = current_raw()?;
        self.call_raw(ctx, inputs)
    }

    /// As [`call`](Self::call) under an explicit context (for threads that keep their own).
    pub fn call_with(&self, ctx: &mut Context, inputs: &[&NDArray]) -> Result<Vec<NDArray>> {
        self.call_raw(ctx.as_raw(), inputs)
    }

    /// [`call`](Self::call) on one input, for blocks with one output (nets, losses). Errors:
    /// as `call`; `InvalidArgument` when the block gives several outputs.
    pub fn forward(&self, input: &NDArray) -> Result<NDArray> {
        one_output(self.call(&[input])?)
    }

    fn call_raw(&self, ctx: *mut sys::mxc_ctx, inputs: &[&NDArray]) -> Result<Vec<NDArray>> {
        let h: Vec<*mut sys::mxc_ndarray> = inputs.iter().map(|a| a.as_raw()).collect();
        let mut cap = CALL_OUTPUTS;
        loop {
            let mut outs = vec![ptr::null_mut(); cap];
            let mut n = 0;
            let s = unsafe {
                sys::mxc_block_call(
                    ctx,
                    self.as_raw(),
                    h.as_ptr(),
                    h.len(),
                    outs.as_mut_ptr(),
                    cap,
                    &mut n,
                )
            };
            match check(s) {
                Ok(()) => {
                    // SAFETY: n +1 handles.
                    return Ok(outs[..n]
                        .iter()
                        .map(|&p| unsafe { NDArray::from_raw(p) })
                        .collect());
                }
                // Too many outputs for the buffer: call again with room for them (the block runs
                // twice; this needs over CALL_OUTPUTS outputs).
                Err(e) if buffer_too_small(&e) && cap < 4096 => cap *= 16,
                Err(e) => return Err(e),
            }
        }
    }

    /// Hybridizes the block (recursively): the next call traces it into a graph run by the
    /// optimizing executor. No effect on plain blocks.
    pub fn hybridize(&mut self, options: &HybridizeOptions) -> Result<()> {
        let backend = options
            .backend
            .as_deref()
            .map(|b| cstring(b, "Block::hybridize: backend"))
            .transpose()?;
        let o = sys::mxc_hybridize_options {
            struct_size: std::mem::size_of::<sys::mxc_hybridize_options>(),
            deactivate: options.deactivate as i32,
            static_alloc: options.static_alloc as i32,
            static_shape: options.static_shape as i32,
            backend: backend.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
        };
        check(unsafe { sys::mxc_block_hybridize(self.as_raw(), &o) })
    }

    /// `HybridBlock.export(path, epoch)`: writes `path-symbol.json` and `path-NNNN.params` from
    /// the last traced graph (hybridize and call the block once first). Errors:
    /// `FailedPrecondition` when not hybridized or never called; I/O errors.
    pub fn export(&self, path: impl AsRef<Path>, epoch: i32) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::mxc_block_export(self.as_raw(), p.as_ptr(), epoch) })
    }

    /// `HybridBlock.export` to ONNX (`mx.onnx.export_model`): writes the block with its
    /// parameters as an ONNX model at `opset` (13..=17) whose data inputs have `input_shapes`
    /// (NCHW for images; named "data" or "data0".."); dim 0 is the symbolic batch unless
    /// `static_batch`. A block never called is hybridized and run once on zeros under the
    /// thread's [`Context`]. Errors: `InvalidArgument` naming an operator without an ONNX
    /// mapping, a bad opset or shape; `FailedPrecondition` for uninitialized parameters. (ABI 1.2)
    pub fn export_onnx(
        &self,
        input_shapes: &[&[i64]],
        path: impl AsRef<Path>,
        opset: i32,
        static_batch: bool,
    ) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        let ndims: Vec<usize> = input_shapes.iter().map(|s| s.len()).collect();
        let dims: Vec<i64> = input_shapes
            .iter()
            .flat_map(|s| s.iter().copied())
            .collect();
        let o = sys::mxc_onnx_export_options {
            struct_size: std::mem::size_of::<sys::mxc_onnx_export_options>(),
            opset,
            static_batch: static_batch as i32,
        };
        let ctx = current_raw()?;
        check(unsafe {
            sys::mxc_block_export_onnx(
                ctx,
                self.as_raw(),
                ndims.as_ptr(),
                dims.as_ptr(),
                ndims.len(),
                p.as_ptr(),
                &o,
            )
        })
    }

    /// `save_parameters(path)`: parameters by structured name ("features.0.weight") in MXNet's
    /// format, written to a temporary file renamed over `path`.
    pub fn save_parameters(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::mxc_block_save_parameters(self.as_raw(), p.as_ptr()) })
    }

    /// `load_parameters(path, ...)`: save_parameters files (ours, MXNet 1.x and 2.x). Errors:
    /// `NotFound`, missing/extra names (naming them and the file) unless allowed, shape
    /// mismatches.
    pub fn load_parameters(
        &mut self,
        path: impl AsRef<Path>,
        options: &LoadParametersOptions,
    ) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        let o = sys::mxc_load_parameters_options {
            struct_size: std::mem::size_of::<sys::mxc_load_parameters_options>(),
            device: options.device.to_raw(),
            allow_missing: options.allow_missing as i32,
            ignore_extra: options.ignore_extra as i32,
            cast_dtype: options.cast_dtype as i32,
        };
        check(unsafe { sys::mxc_block_load_parameters(self.as_raw(), p.as_ptr(), &o) })
    }

    /// `collect_params(select)`: the parameters whose structured names match `select`, an RE2
    /// regular expression matched at the start of the name (Python's `re.match`; "" or ".*":
    /// all), in registration order. Errors: `InvalidArgument` for a bad regular expression.
    pub fn collect_params(&self, select: &str) -> Result<Vec<Parameter>> {
        let s = cstring(select, "Block::collect_params: select")?;
        let (mut arr, mut count) = (ptr::null_mut(), 0usize);
        check(unsafe {
            sys::mxc_block_collect_params(self.as_raw(), s.as_ptr(), &mut arr, &mut count)
        })?;
        let mut v = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: count +1 handles; we take a reference of each before the array (and its
            // references) is freed.
            let p = unsafe { *arr.add(i) };
            check(unsafe { sys::mxc_parameter_retain(p) })?;
            v.push(unsafe { Parameter::from_raw(p) });
        }
        unsafe { sys::mxc_parameter_array_free(arr, count) };
        Ok(v)
    }

    /// Sets every parameter's gradient to zero.
    pub fn zero_grad(&mut self) -> Result<()> {
        check(unsafe { sys::mxc_block_zero_grad(self.as_raw()) })
    }
}

impl std::fmt::Display for Block {
    /// The block tree as MXNet prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = ptr::null_mut();
        match check(unsafe { sys::mxc_block_to_string(self.as_raw(), &mut s) }) {
            Ok(()) => f.write_str(&unsafe { take_string(s) }),
            Err(e) => write!(f, "<block: {e}>"),
        }
    }
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Runs `mxc_block_initialize` / `mxc_parameter_initialize` on `raw` under the thread's context.
fn initialize_with<T>(
    f: unsafe extern "C" fn(
        *mut sys::mxc_ctx,
        *mut T,
        *const c_char,
        sys::mxc_device,
        i32,
    ) -> *mut sys::mxc_status,
    raw: *mut T,
    init: Option<&str>,
    device: Device,
    force_reinit: bool,
) -> Result<()> {
    let init = init.map(|s| cstring(s, "initialize: init")).transpose()?;
    let ctx = current_raw()?;
    // SAFETY: live handle (borrowed from its owner), valid or NULL string.
    check(unsafe {
        f(
            ctx,
            raw,
            init.as_ref().map_or(ptr::null(), |c| c.as_ptr()),
            device.to_raw(),
            force_reinit as i32,
        )
    })
}

pub(crate) fn one_output(mut v: Vec<NDArray>) -> Result<NDArray> {
    if v.len() != 1 {
        return Err(Error::new(
            Code::InvalidArgument,
            format!(
                "Block::forward: the block gave {} outputs, expected 1",
                v.len()
            ),
        ));
    }
    Ok(v.pop().unwrap())
}

pub(crate) fn c_strings(names: &[&str], what: &str) -> Result<Vec<CString>> {
    names.iter().map(|n| cstring(n, what)).collect()
}

handle_type!(
    /// One parameter of a block (`mxc_parameter`, `gluon.Parameter`), as
    /// [`Block::collect_params`] returns it. `Clone` retains, `Drop` releases (the block keeps
    /// its parameters alive independently).
    ///
    /// Threads: `Send + Sync`; getters take `&self`; setters take `&mut self` and must not run
    /// while another thread uses the parameter or its block (clones included).
    Parameter,
    mxc_parameter,
    mxc_parameter_retain,
    mxc_parameter_free
);

// SAFETY: readers may run concurrently; writers take `&mut self`.
unsafe impl Sync for Parameter {}

impl Parameter {
    /// The structured name it was collected under ("features.0.weight").
    pub fn name(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        check(unsafe { sys::mxc_parameter_name(self.as_raw(), &mut s) })?;
        Ok(unsafe { take_string(s) })
    }

    /// Its shape (outermost first; the layer's layout, e.g. (out, in, kh, kw) for Conv2D
    /// weights); None while unknown (deferred initialization); dims still unknown are -1.
    pub fn shape(&self) -> Result<Option<Vec<i64>>> {
        let mut dims = [0i64; 16];
        let mut ndim = 0i32;
        check(unsafe {
            sys::mxc_parameter_shape(self.as_raw(), dims.as_mut_ptr(), dims.len(), &mut ndim)
        })?;
        Ok((ndim >= 0).then(|| dims[..ndim as usize].to_vec()))
    }

    /// Its dtype.
    pub fn dtype(&self) -> Result<DType> {
        let mut d = 0i32;
        check(unsafe { sys::mxc_parameter_dtype(self.as_raw(), &mut d) })?;
        DType::from_raw(d)
    }

    /// The value on its first device: the parameter's own array (writes through it are seen by
    /// the block). Errors: `FailedPrecondition` when not initialized.
    pub fn data(&self) -> Result<NDArray> {
        self.data_on(None)
    }

    /// The value on `device` (None: its first device). Errors: not initialized, no copy there.
    pub fn data_on(&self, device: Option<Device>) -> Result<NDArray> {
        let d = device.map_or(sys::mxc_device::default(), Device::to_raw);
        let mut out = ptr::null_mut();
        check(unsafe { sys::mxc_parameter_data(self.as_raw(), d, &mut out) })?;
        Ok(unsafe { NDArray::from_raw(out) })
    }

    /// The gradient buffer on its first device (the buffer backward writes). Errors:
    /// grad_req null, not initialized.
    pub fn grad(&self) -> Result<NDArray> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::mxc_parameter_grad(self.as_raw(), sys::mxc_device::default(), &mut out)
        })?;
        Ok(unsafe { NDArray::from_raw(out) })
    }

    /// Copies `value` (same shape) into the parameter on every device (initializing it on
    /// cpu(0) when it was not). Errors: a shape mismatch.
    pub fn set_data(&mut self, value: &NDArray) -> Result<()> {
        check(unsafe { sys::mxc_parameter_set_data(self.as_raw(), value.as_raw()) })
    }

    /// Initializes it (`init` as [`Block::initialize`]; None: its own or Uniform(0.07)).
    pub fn initialize(
        &mut self,
        init: Option<&str>,
        device: Device,
        force_reinit: bool,
    ) -> Result<()> {
        initialize_with(
            sys::mxc_parameter_initialize,
            self.as_raw(),
            init,
            device,
            force_reinit,
        )
    }

    /// Sets the gradient to zero.
    pub fn zero_grad(&mut self) -> Result<()> {
        check(unsafe { sys::mxc_parameter_zero_grad(self.as_raw()) })
    }

    /// Its `grad_req`.
    pub fn grad_req(&self) -> Result<GradReq> {
        let mut v = 0;
        check(unsafe { sys::mxc_parameter_grad_req(self.as_raw(), &mut v) })?;
        GradReq::from_raw(v)
            .ok_or_else(|| Error::new(Code::Internal, format!("unknown grad_req {v}")))
    }

    /// Sets `grad_req`: `Null` drops the gradient buffers, `Write`/`Add` (re)create them.
    pub fn set_grad_req(&mut self, req: GradReq) -> Result<()> {
        check(unsafe { sys::mxc_parameter_set_grad_req(self.as_raw(), req.to_raw()) })
    }

    /// The learning-rate multiplier the Trainer applies (default 1).
    pub fn lr_mult(&self) -> Result<f64> {
        let mut v = 0.0;
        check(unsafe { sys::mxc_parameter_lr_mult(self.as_raw(), &mut v) })?;
        Ok(v)
    }

    /// Sets the learning-rate multiplier.
    pub fn set_lr_mult(&mut self, value: f64) -> Result<()> {
        check(unsafe { sys::mxc_parameter_set_lr_mult(self.as_raw(), value) })
    }

    /// The weight-decay multiplier the Trainer applies (default 1).
    pub fn wd_mult(&self) -> Result<f64> {
        let mut v = 0.0;
        check(unsafe { sys::mxc_parameter_wd_mult(self.as_raw(), &mut v) })?;
        Ok(v)
    }

    /// Sets the weight-decay multiplier.
    pub fn set_wd_mult(&mut self, value: f64) -> Result<()> {
        check(unsafe { sys::mxc_parameter_set_wd_mult(self.as_raw(), value) })
    }
}

impl std::fmt::Debug for Parameter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parameter")
            .field("name", &self.name().ok())
            .field("shape", &self.shape().ok().flatten())
            .finish()
    }
}

/// `gluon.model_zoo.vision`: MXNet's vision models by name.
pub mod model_zoo {
    use super::*;

    /// Options of [`get_model`]. `Default`: 1000 classes, not pretrained.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct ModelOptions {
        /// Classes of the output layer (0: 1000).
        pub classes: i64,
        /// Load MXNet's published weights from the model store `root` (None:
        /// `$MXNET_HOME/models`); never downloads.
        pub pretrained: bool,
        /// The model store directory.
        pub root: Option<std::path::PathBuf>,
        /// Where pretrained weights go (default cpu(0)).
        pub device: Device,
    }

    /// The names [`get_model`] accepts, sorted ("alexnet", ..., "resnet18_v1", ...).
    pub fn list_models() -> Result<Vec<String>> {
        ensure_abi()?;
        let (mut names, mut count) = (ptr::null_mut(), 0);
        check(unsafe { sys::mxc_model_zoo_list(&mut names, &mut count) })?;
        Ok(unsafe { take_string_array(names, count) })
    }

    /// `get_model(name, classes=..., pretrained=...)` (case-insensitive name). Parameters are
    /// uninitialized unless pretrained ([`Block::initialize`]). Errors: `InvalidArgument` /
    /// `NotFound` for an unknown name (listing the valid ones) or a missing weights file.
    pub fn get_model(name: &str, options: &ModelOptions) -> Result<Block> {
        ensure_abi()?;
        let n = cstring(name, "model_zoo::get_model: name")?;
        let root = options.root.as_deref().map(path_cstring).transpose()?;
        let o = sys::mxc_model_options {
            struct_size: std::mem::size_of::<sys::mxc_model_options>(),
            classes: options.classes,
            pretrained: options.pretrained as i32,
            root: root.as_ref().map_or(ptr::null(), |r| r.as_ptr()),
            device: options.device.to_raw(),
        };
        Block::out(|out| unsafe { sys::mxc_model_zoo_get(n.as_ptr(), &o, out) })
    }
}
