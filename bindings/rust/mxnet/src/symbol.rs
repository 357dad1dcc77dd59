//! [`Symbol`]: symbolic graphs (`mxnet.symbol`) in MXNet's JSON, with argument/output/auxiliary
//! lists, shape and type inference and composition.
use crate::context::ensure_abi;
use crate::dtype::DType;
use crate::error::{check, Result};
use crate::op::Op;
use crate::util::{cstring, path_cstring, take_string, take_string_array, CAttrs};
use mxc_sys as sys;
use std::ffi::c_char;
use std::path::Path;
use std::ptr::{self, NonNull};

/// A reference-counted handle to an immutable `mxc_symbol` (composing or grouping makes a new
/// one). `Clone` retains, `Drop` releases.
///
/// Threads: `Send + Sync`: symbols are immutable, so one symbol may be used by several threads
/// at once, and a handle may be dropped on any thread.
pub struct Symbol {
    raw: NonNull<sys::mxc_symbol>,
}

// SAFETY: immutable objects; the C ABI allows concurrent use and freeing from any thread.
unsafe impl Send for Symbol {}
unsafe impl Sync for Symbol {}

/// Shapes from [`Symbol::infer_shape`], in the order of the `list_*` methods. `None`: unknown
/// (partial inference); a known rank may still hold unknown dims as -1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferredShapes {
    /// One per [`Symbol::list_arguments`] entry.
    pub arguments: Vec<Option<Vec<i64>>>,
    /// One per [`Symbol::list_outputs`] entry.
    pub outputs: Vec<Option<Vec<i64>>>,
    /// One per [`Symbol::list_auxiliary_states`] entry.
    pub aux_states: Vec<Option<Vec<i64>>>,
}

/// Dtypes from [`Symbol::infer_type`] (`None`: unknown), ordered as [`InferredShapes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferredTypes {
    /// One per argument.
    pub arguments: Vec<Option<DType>>,
    /// One per output.
    pub outputs: Vec<Option<DType>>,
    /// One per auxiliary state.
    pub aux_states: Vec<Option<DType>>,
}

/// An owned `mxc_infer_result`, freed on drop.
struct InferResult(*mut sys::mxc_infer_result);

impl Drop for InferResult {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { sys::mxc_infer_result_free(self.0) }
    }
}

const WHICH: [i32; 3] = [
    sys::MXC_INFER_ARGUMENTS,
    sys::MXC_INFER_OUTPUTS,
    sys::MXC_INFER_AUX_STATES,
];

impl InferResult {
    fn count(&self, which: i32) -> Result<usize> {
        let mut n = 0;
        // SAFETY: live result, valid out-pointer.
        check(unsafe { sys::mxc_infer_result_count(self.0, which, &mut n) })?;
        Ok(n)
    }

    fn shapes(&self, which: i32) -> Result<Vec<Option<Vec<i64>>>> {
        (0..self.count(which)?)
            .map(|i| {
                let (mut dims, mut ndim) = (ptr::null(), 0);
                // SAFETY: i < count; dims valid while the result lives.
                check(unsafe {
                    sys::mxc_infer_result_shape(self.0, which, i, &mut dims, &mut ndim)
                })?;
                Ok(usize::try_from(ndim).ok().map(|n| {
                    if n == 0 {
                        Vec::new()
                    } else {
                        unsafe { std::slice::from_raw_parts(dims, n) }.to_vec()
                    }
                }))
            })
            .collect()
    }

    fn dtypes(&self, which: i32) -> Result<Vec<Option<DType>>> {
        (0..self.count(which)?)
            .map(|i| {
                let mut d = 0;
                // SAFETY: i < count; valid out-pointer.
                check(unsafe { sys::mxc_infer_result_dtype(self.0, which, i, &mut d) })?;
                if d < 0 {
                    Ok(None)
                } else {
                    DType::from_raw(d).map(Some)
                }
            })
            .collect()
    }
}

type Names = Result<Vec<String>>;

impl Symbol {
    /// Wraps a +1 `mxc_symbol` handle.
    ///
    /// # Safety
    /// `raw` must be a non-NULL handle the caller owns a reference to.
    pub unsafe fn from_raw(raw: *mut sys::mxc_symbol) -> Symbol {
        Symbol {
            raw: NonNull::new(raw).expect("Symbol::from_raw: NULL handle"),
        }
    }

    /// The raw handle, borrowed.
    pub fn as_raw(&self) -> *mut sys::mxc_symbol {
        self.raw.as_ptr()
    }

    fn out(f: impl FnOnce(*mut *mut sys::mxc_symbol) -> *mut sys::mxc_status) -> Result<Symbol> {
        let mut out = ptr::null_mut();
        check(f(&mut out))?;
        // SAFETY: a +1 handle written on success.
        Ok(unsafe { Symbol::from_raw(out) })
    }

    /// Parses MXNet symbol JSON (any version MXNet wrote). Errors: `InvalidArgument` /
    /// `DataLoss` naming the node and field.
    pub fn from_json(json: &str) -> Result<Symbol> {
        ensure_abi()?;
        let c = cstring(json, "Symbol::from_json")?;
        Symbol::out(|o| unsafe { sys::mxc_symbol_from_json(c.as_ptr(), o) })
    }

    /// Loads a `-symbol.json` file. Errors: `NotFound`, as [`from_json`](Self::from_json).
    pub fn load(path: impl AsRef<Path>) -> Result<Symbol> {
        ensure_abi()?;
        let c = path_cstring(path.as_ref())?;
        Symbol::out(|o| unsafe { sys::mxc_symbol_load(c.as_ptr(), o) })
    }

    /// The JSON MXNet 1.9 loads.
    pub fn to_json(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_symbol_to_json(self.as_raw(), &mut s) })?;
        Ok(unsafe { take_string(s) })
    }

    /// Writes the JSON to `path` (temporary file + rename).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let c = path_cstring(path.as_ref())?;
        // SAFETY: live handle, valid string.
        check(unsafe { sys::mxc_symbol_save(self.as_raw(), c.as_ptr()) })
    }

    /// A variable (`mx.sym.var(name)`).
    pub fn variable(name: &str) -> Result<Symbol> {
        ensure_abi()?;
        let c = cstring(name, "Symbol::variable")?;
        Symbol::out(|o| unsafe { sys::mxc_symbol_variable(c.as_ptr(), o) })
    }

    /// Applies the operator `op` (name or alias) to `inputs` with string attributes (as
    /// [`invoke`](crate::invoke)); missing trailing inputs (weight, bias) become variables
    /// "`name`_weight". `name` None: an automatic name ("convolution0"). Errors: unknown
    /// operator (`NotFound`), bad attributes, too many inputs.
    pub fn create(
        op: &str,
        inputs: &[&Symbol],
        attrs: &[(&str, &str)],
        name: Option<&str>,
    ) -> Result<Symbol> {
        let op = Op::find(op)?;
        let a = CAttrs::new(attrs, "Symbol::create: attribute")?;
        let n = name
            .map(|n| cstring(n, "Symbol::create: name"))
            .transpose()?;
        let h: Vec<_> = inputs.iter().map(|s| s.as_raw()).collect();
        Symbol::out(|o| unsafe {
            sys::mxc_symbol_create(
                op.as_raw(),
                h.as_ptr(),
                h.len(),
                a.keys_ptr(),
                a.values_ptr(),
                a.len(),
                n.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
                o,
            )
        })
    }

    /// Groups the outputs of several symbols into one (`mx.sym.Group`).
    pub fn group(symbols: &[&Symbol]) -> Result<Symbol> {
        let h: Vec<_> = symbols.iter().map(|s| s.as_raw()).collect();
        Symbol::out(|o| unsafe { sys::mxc_symbol_group(h.as_ptr(), h.len(), o) })
    }

    /// Output `index` as its own symbol. Errors: `OutOfRange`.
    pub fn output(&self, index: usize) -> Result<Symbol> {
        Symbol::out(|o| unsafe { sys::mxc_symbol_output(self.as_raw(), index, o) })
    }

    /// Every node output of the graph (`get_internals`).
    pub fn get_internals(&self) -> Result<Symbol> {
        Symbol::out(|o| unsafe { sys::mxc_symbol_get_internals(self.as_raw(), o) })
    }

    /// A new graph with the variables named `subs[i].0` replaced by `subs[i].1` (compose /
    /// `__call__`). Errors: a name that is no variable of the graph.
    pub fn compose(&self, subs: &[(&str, &Symbol)]) -> Result<Symbol> {
        let names = subs
            .iter()
            .map(|(n, _)| cstring(n, "Symbol::compose: name"))
            .collect::<Result<Vec<_>>>()?;
        let np: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let h: Vec<_> = subs.iter().map(|(_, s)| s.as_raw()).collect();
        Symbol::out(|o| unsafe {
            sys::mxc_symbol_compose(self.as_raw(), np.as_ptr(), h.as_ptr(), h.len(), o)
        })
    }

    /// The head node's name ("" for a group).
    pub fn name(&self) -> Result<String> {
        let mut s = ptr::null_mut();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_symbol_name(self.as_raw(), &mut s) })?;
        Ok(unsafe { take_string(s) })
    }

    fn list(
        &self,
        f: unsafe extern "C" fn(
            *mut sys::mxc_symbol,
            *mut *mut *mut c_char,
            *mut usize,
        ) -> *mut sys::mxc_status,
    ) -> Names {
        let (mut names, mut count) = (ptr::null_mut(), 0);
        // SAFETY: live handle, valid out-pointers.
        check(unsafe { f(self.as_raw(), &mut names, &mut count) })?;
        Ok(unsafe { take_string_array(names, count) })
    }

    /// Arguments (variables that are not auxiliary states), in MXNet's DFS order.
    pub fn list_arguments(&self) -> Names {
        self.list(sys::mxc_symbol_list_arguments)
    }

    /// Outputs ("fc1_output", ...).
    pub fn list_outputs(&self) -> Names {
        self.list(sys::mxc_symbol_list_outputs)
    }

    /// Auxiliary states (BatchNorm's moving_mean / moving_var).
    pub fn list_auxiliary_states(&self) -> Names {
        self.list(sys::mxc_symbol_list_auxiliary_states)
    }

    /// All inputs (arguments and auxiliary states) in DFS order.
    pub fn list_inputs(&self) -> Names {
        self.list(sys::mxc_symbol_list_inputs)
    }

    /// Shape inference from the shapes of some inputs (`infer_shape` / `infer_shape_partial`).
    /// `partial` false: every shape must come out known (else `InvalidArgument` naming the
    /// nodes). Errors: an unknown input name, contradicting shapes (naming the node).
    pub fn infer_shape(&self, known: &[(&str, &[i64])], partial: bool) -> Result<InferredShapes> {
        let names = known
            .iter()
            .map(|(n, _)| cstring(n, "Symbol::infer_shape: name"))
            .collect::<Result<Vec<_>>>()?;
        let np: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let ndims: Vec<usize> = known.iter().map(|(_, s)| s.len()).collect();
        let dims: Vec<i64> = known.iter().flat_map(|(_, s)| s.iter().copied()).collect();
        let mut out = ptr::null_mut();
        // SAFETY: count entries in np/ndims; sum(ndims) dims.
        check(unsafe {
            sys::mxc_symbol_infer_shape(
                self.as_raw(),
                np.as_ptr(),
                ndims.as_ptr(),
                dims.as_ptr(),
                np.len(),
                partial as i32,
                &mut out,
            )
        })?;
        let r = InferResult(out);
        Ok(InferredShapes {
            arguments: r.shapes(WHICH[0])?,
            outputs: r.shapes(WHICH[1])?,
            aux_states: r.shapes(WHICH[2])?,
        })
    }

    /// Type inference from the dtypes of some inputs. Errors: an unknown name, contradicting
    /// dtypes.
    pub fn infer_type(&self, known: &[(&str, DType)]) -> Result<InferredTypes> {
        let names = known
            .iter()
            .map(|(n, _)| cstring(n, "Symbol::infer_type: name"))
            .collect::<Result<Vec<_>>>()?;
        let np: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let dt: Vec<i32> = known.iter().map(|(_, d)| d.to_raw()).collect();
        let mut out = ptr::null_mut();
        // SAFETY: count entries in np/dt.
        check(unsafe {
            sys::mxc_symbol_infer_type(self.as_raw(), np.as_ptr(), dt.as_ptr(), np.len(), &mut out)
        })?;
        let r = InferResult(out);
        Ok(InferredTypes {
            arguments: r.dtypes(WHICH[0])?,
            outputs: r.dtypes(WHICH[1])?,
            aux_states: r.dtypes(WHICH[2])?,
        })
    }
}

impl Clone for Symbol {
    /// Another handle to the same (immutable) symbol.
    fn clone(&self) -> Symbol {
        // SAFETY: live handle; retain cannot fail on it.
        check(unsafe { sys::mxc_symbol_retain(self.as_raw()) })
            .expect("mxc_symbol_retain on a live handle");
        Symbol { raw: self.raw }
    }
}

impl Drop for Symbol {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { sys::mxc_symbol_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Symbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Symbol({:?})", self.name().unwrap_or_default())
    }
}
