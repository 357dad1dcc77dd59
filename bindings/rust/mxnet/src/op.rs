//! Operators: the registry ([`Op`], [`OpInfo`], [`AttrInfo`]) and the by-name call
//! ([`invoke`]). The typed functions of [`ops`](crate::ops) are generated from this metadata.
use crate::context::{current_raw, ensure_abi};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{check, Code, Error, Result};
use crate::ndarray::NDArray;
use crate::util::{cstring, static_str, static_strs, take_string_array, CAttrs};
use mxc_sys as sys;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

/// A registered operator (`mxc_op`). Operators are immortal: `Op` is `Copy`, needs no free, and
/// is `Send + Sync` (every registry function may be called from any thread).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Op {
    raw: NonNull<sys::mxc_op>,
}

// SAFETY: mxc_op handles are immortal and every ops.h function is thread-safe.
unsafe impl Send for Op {}
unsafe impl Sync for Op {}

/// An operator's metadata (`mxc_op_info`). Strings live as long as the process.
#[derive(Clone, Debug)]
pub struct OpInfo {
    /// Canonical name ("Convolution").
    pub name: &'static str,
    /// Description (may be empty).
    pub doc: &'static str,
    /// Inputs with the default attributes; `None` when their number depends on attributes.
    pub num_inputs: Option<usize>,
    /// Visible outputs with the default attributes; `None` when it depends on attributes.
    pub num_outputs: Option<usize>,
    /// Input names for the default attributes (empty when the defaults do not determine them).
    pub input_names: Vec<&'static str>,
    /// Other names the operator is found by.
    pub aliases: Vec<&'static str>,
    /// Number of attributes.
    pub num_attrs: usize,
    /// The attribute giving a variadic operator's input count ("num_args"), if any.
    pub variadic_attr: Option<&'static str>,
    /// Whether the operator has a gradient.
    pub differentiable: bool,
    /// Whether it creates arrays from attributes alone (zeros, random samplers).
    pub is_creation: bool,
}

/// The value kind of an attribute (`MXC_ATTR_*`); [`invoke`] takes every value in MXNet's
/// string form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttrKind {
    /// Any string.
    String,
    /// "True"/"False".
    Bool,
    /// 32-bit integer.
    Int,
    /// 64-bit integer.
    Long,
    /// 32-bit float.
    Float,
    /// 64-bit float.
    Double,
    /// A tuple of ints, "(3, 3)".
    Shape,
    /// A tuple of floats.
    FloatTuple,
    /// A dtype name, "float32".
    DType,
}

/// One attribute of an operator (`mxc_op_attr`). Strings live as long as the process.
#[derive(Clone, Debug)]
pub struct AttrInfo {
    /// Name ("kernel").
    pub name: &'static str,
    /// The C++ schema's type text (`"Shape(tuple)"`, `"optional<int>"`).
    pub type_name: &'static str,
    /// Value kind.
    pub kind: AttrKind,
    /// Whether "None" is accepted.
    pub optional: bool,
    /// Whether it must be given.
    pub required: bool,
    /// The default in string form (`None` when required).
    pub default: Option<&'static str>,
    /// Description.
    pub doc: &'static str,
    /// Allowed values of enum-like attributes (empty: any value of the kind).
    pub choices: Vec<&'static str>,
}

impl Op {
    /// The operator named `name` (canonical name or alias: "relu", "Convolution", "_plus").
    /// Errors: `NotFound` ("unknown operator 'X'"), a name with a NUL (`InvalidArgument`).
    pub fn find(name: &str) -> Result<Op> {
        ensure_abi()?;
        let c = cstring(name, "Op::find: name")?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        check(unsafe { sys::mxc_op_find(c.as_ptr(), &mut raw) })?;
        Ok(Op {
            raw: NonNull::new(raw).expect("mxc_op_find returned NULL"),
        })
    }

    /// Every registered operator, in name order (canonical names; aliases not repeated).
    pub fn list() -> Result<Vec<Op>> {
        ensure_abi()?;
        let mut n = 0;
        // SAFETY: valid out-pointer.
        check(unsafe { sys::mxc_op_count(&mut n) })?;
        (0..n)
            .map(|i| {
                let mut raw = ptr::null_mut();
                // SAFETY: i < count; valid out-pointer.
                check(unsafe { sys::mxc_op_at(i, &mut raw) })?;
                Ok(Op {
                    raw: NonNull::new(raw).expect("mxc_op_at returned NULL"),
                })
            })
            .collect()
    }

    /// The raw handle (immortal).
    pub fn as_raw(self) -> *mut sys::mxc_op {
        self.raw.as_ptr()
    }

    fn raw_info(self) -> Result<sys::mxc_op_info> {
        // SAFETY: mxc_op_info is plain data; zero is a valid bit pattern (NULL pointers).
        let mut info: sys::mxc_op_info = unsafe { std::mem::zeroed() };
        info.struct_size = std::mem::size_of::<sys::mxc_op_info>();
        // SAFETY: immortal handle, sized out-struct.
        check(unsafe { sys::mxc_op_get_info(self.as_raw(), &mut info) })?;
        Ok(info)
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        self.raw_info().map(|i| static_str(i.name)).unwrap_or("")
    }

    /// The operator's metadata.
    pub fn info(self) -> Result<OpInfo> {
        let i = self.raw_info()?;
        Ok(OpInfo {
            name: static_str(i.name),
            doc: static_str(i.doc),
            num_inputs: usize::try_from(i.num_inputs).ok(),
            num_outputs: usize::try_from(i.num_outputs).ok(),
            input_names: static_strs(i.input_names, i.num_input_names),
            aliases: static_strs(i.aliases, i.num_aliases),
            num_attrs: i.num_attrs,
            variadic_attr: (!i.variadic_attr.is_null()).then(|| static_str(i.variadic_attr)),
            differentiable: i.differentiable != 0,
            is_creation: i.is_creation != 0,
        })
    }

    /// Every attribute, in the registry's order.
    pub fn attrs(self) -> Result<Vec<AttrInfo>> {
        let n = self.raw_info()?.num_attrs;
        (0..n)
            .map(|j| {
                // SAFETY: plain data; zero is valid.
                let mut a: sys::mxc_op_attr = unsafe { std::mem::zeroed() };
                a.struct_size = std::mem::size_of::<sys::mxc_op_attr>();
                // SAFETY: j < num_attrs; sized out-struct.
                check(unsafe { sys::mxc_op_attr_at(self.as_raw(), j, &mut a) })?;
                let kind = match a.kind {
                    sys::MXC_ATTR_STRING => AttrKind::String,
                    sys::MXC_ATTR_BOOL => AttrKind::Bool,
                    sys::MXC_ATTR_INT => AttrKind::Int,
                    sys::MXC_ATTR_LONG => AttrKind::Long,
                    sys::MXC_ATTR_FLOAT => AttrKind::Float,
                    sys::MXC_ATTR_DOUBLE => AttrKind::Double,
                    sys::MXC_ATTR_SHAPE => AttrKind::Shape,
                    sys::MXC_ATTR_FLOAT_TUPLE => AttrKind::FloatTuple,
                    sys::MXC_ATTR_DTYPE => AttrKind::DType,
                    k => {
                        return Err(Error::new(
                            Code::Internal,
                            format!("unknown attribute kind {k}"),
                        ))
                    }
                };
                Ok(AttrInfo {
                    name: static_str(a.name),
                    type_name: static_str(a.r#type),
                    kind,
                    optional: a.optional != 0,
                    required: a.required != 0,
                    default: (!a.default_value.is_null()).then(|| static_str(a.default_value)),
                    doc: static_str(a.doc),
                    choices: static_strs(a.choices, a.num_choices),
                })
            })
            .collect()
    }

    /// Input count and visible output count for the given attributes (string form).
    /// Errors: bad attributes (naming the op and attribute).
    pub fn num_io(self, attrs: &[(&str, &str)]) -> Result<(usize, usize)> {
        let a = CAttrs::new(attrs, "Op::num_io: attribute")?;
        let (mut ni, mut no) = (0, 0);
        // SAFETY: a.len() keys and values; valid out-pointers.
        check(unsafe {
            sys::mxc_op_num_io(
                self.as_raw(),
                a.keys_ptr(),
                a.values_ptr(),
                a.len(),
                &mut ni,
                &mut no,
            )
        })?;
        Ok((ni, no))
    }

    /// Input names for the given attributes (Convolution with no_bias "True": data, weight).
    /// Errors: bad attributes.
    pub fn input_names(self, attrs: &[(&str, &str)]) -> Result<Vec<String>> {
        let a = CAttrs::new(attrs, "Op::input_names: attribute")?;
        let (mut names, mut count) = (ptr::null_mut(), 0);
        // SAFETY: as num_io.
        check(unsafe {
            sys::mxc_op_input_names(
                self.as_raw(),
                a.keys_ptr(),
                a.values_ptr(),
                a.len(),
                &mut names,
                &mut count,
            )
        })?;
        Ok(unsafe { take_string_array(names, count) })
    }

    /// Runs the operator on `inputs` with string attributes (MXNet's string form, as in
    /// `-symbol.json`: "True", "(3, 3)", "float32") under the thread's current context (recorded
    /// when recording, training behaviour when training, its RNG stream). Returns the visible
    /// outputs, new arrays. Errors (`InvalidArgument` unless noted): bad attribute values (naming
    /// attribute and value), wrong input count, shapes or dtypes (naming the op and input), mixed
    /// devices.
    ///
    /// Some operators write inputs in place, as in MXNet: optimizer updates (`adam_update`'s
    /// `mean` and `var`, `sgd_mom_update`'s `mom`) and BatchNorm's moving statistics in training
    /// mode. Such an input is written, not read: no other thread may use it during the call (see
    /// [`NDArray`]'s threading notes).
    pub fn invoke(self, inputs: &[&NDArray], attrs: &[(&str, &str)]) -> Result<Vec<NDArray>> {
        let a = CAttrs::new(attrs, "invoke: attribute")?;
        invoke_c(self, inputs, &a)
    }
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op({})", self.name())
    }
}

/// Runs the operator named `name` (canonical or alias) by name: [`Op::find`] then
/// [`Op::invoke`]. Errors: `NotFound` for an unknown operator; as [`Op::invoke`].
/// ```
/// # fn main() -> mxnet::Result<()> {
/// let x = mxnet::NDArray::from_slice(&[-1.0f32, 2.0], &[2])?;
/// let y = mxnet::invoke("Activation", &[&x], &[("act_type", "relu")])?;
/// assert_eq!(y[0].to_vec::<f32>()?, [0.0, 2.0]);
/// # Ok(()) }
/// ```
pub fn invoke(name: &str, inputs: &[&NDArray], attrs: &[(&str, &str)]) -> Result<Vec<NDArray>> {
    Op::find(name)?.invoke(inputs, attrs)
}

/// Up to this many inputs/outputs are marshalled on the stack.
const STACK: usize = 8;

/// mxc_invoke into `outs`; returns the output count.
fn invoke_into(
    op: Op,
    inputs: &[&NDArray],
    attrs: &CAttrs,
    outs: &mut [*mut sys::mxc_ndarray],
) -> Result<usize> {
    let ctx = current_raw()?;
    let mut stack = [ptr::null_mut(); STACK];
    let heap: Vec<*mut sys::mxc_ndarray>;
    let handles: &[*mut sys::mxc_ndarray] = if inputs.len() <= STACK {
        for (s, a) in stack.iter_mut().zip(inputs) {
            *s = a.as_raw();
        }
        &stack[..inputs.len()]
    } else {
        heap = inputs.iter().map(|a| a.as_raw()).collect();
        &heap
    };
    let mut n = 0;
    // SAFETY: handles/attrs valid for their lengths; outs has outs.len() slots.
    check(unsafe {
        sys::mxc_invoke(
            ctx,
            op.as_raw(),
            handles.as_ptr(),
            handles.len(),
            attrs.keys_ptr(),
            attrs.values_ptr(),
            attrs.len(),
            outs.as_mut_ptr(),
            outs.len(),
            &mut n,
        )
    })?;
    Ok(n)
}

/// Runs `op`, returning every visible output.
fn invoke_c(op: Op, inputs: &[&NDArray], attrs: &CAttrs) -> Result<Vec<NDArray>> {
    let mut outs = [ptr::null_mut(); STACK];
    let n = match invoke_into(op, inputs, attrs, &mut outs) {
        Ok(n) => n,
        Err(e) if e.code() == Code::OutOfRange => {
            // More outputs than the stack buffer holds: ask how many and run again.
            let (mut ni, mut no) = (0, 0);
            // SAFETY: as Op::num_io.
            check(unsafe {
                sys::mxc_op_num_io(
                    op.as_raw(),
                    attrs.keys_ptr(),
                    attrs.values_ptr(),
                    attrs.len(),
                    &mut ni,
                    &mut no,
                )
            })?;
            if no <= STACK {
                return Err(e);
            }
            let mut big = vec![ptr::null_mut(); no];
            let n = invoke_into(op, inputs, attrs, &mut big)?;
            // SAFETY: n +1 handles.
            return Ok(big[..n]
                .iter()
                .map(|&h| unsafe { NDArray::from_raw(h) })
                .collect());
        }
        Err(e) => return Err(e),
    };
    // SAFETY: n +1 handles.
    Ok(outs[..n]
        .iter()
        .map(|&h| unsafe { NDArray::from_raw(h) })
        .collect())
}

// ---- What the generated typed functions use. ----

/// An operator looked up by name once (the generated functions keep one per operator).
#[cfg_attr(not(feature = "typed-ops"), allow(dead_code))]
pub(crate) struct OpCell {
    name: &'static str,
    op: OnceLock<Op>,
}

#[cfg_attr(not(feature = "typed-ops"), allow(dead_code))]
impl OpCell {
    pub(crate) const fn new(name: &'static str) -> OpCell {
        OpCell {
            name,
            op: OnceLock::new(),
        }
    }

    #[inline]
    fn get(&self) -> Result<Op> {
        if let Some(op) = self.op.get() {
            return Ok(*op);
        }
        let op = Op::find(self.name)?;
        Ok(*self.op.get_or_init(|| op))
    }
}

/// Runs a generated operator with typed attributes already in string form; all outputs.
#[cfg_attr(not(feature = "typed-ops"), allow(dead_code))]
pub(crate) fn call(
    cell: &OpCell,
    inputs: &[&NDArray],
    attrs: &[(&str, String)],
) -> Result<Vec<NDArray>> {
    let a = CAttrs::new(attrs, cell.name)?;
    invoke_c(cell.get()?, inputs, &a)
}

/// As [`call`], for operators with exactly one visible output.
#[cfg_attr(not(feature = "typed-ops"), allow(dead_code))]
pub(crate) fn call1(
    cell: &OpCell,
    inputs: &[&NDArray],
    attrs: &[(&str, String)],
) -> Result<NDArray> {
    let a = CAttrs::new(attrs, cell.name)?;
    let mut outs = [ptr::null_mut(); 1];
    let n = invoke_into(cell.get()?, inputs, &a, &mut outs)?;
    debug_assert_eq!(n, 1);
    // SAFETY: one +1 handle.
    Ok(unsafe { NDArray::from_raw(outs[0]) })
}

/// A typed attribute value in MXNet's string form (what [`invoke`] takes).
pub trait AttrValue {
    /// The string form: bool "True"/"False", numbers in decimal, tuples "(3, 3)" / "(3,)",
    /// dtypes by name, devices "cpu(0)".
    fn attr_string(&self) -> String;
}

impl AttrValue for bool {
    fn attr_string(&self) -> String {
        if *self { "True" } else { "False" }.to_string()
    }
}

macro_rules! display_attr {
    ($($t:ty),*) => {$(
        impl AttrValue for $t {
            fn attr_string(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
display_attr!(i32, i64, f32, f64, str, DType);

impl AttrValue for Device {
    fn attr_string(&self) -> String {
        Device::attr_string(*self)
    }
}

fn tuple<T: std::fmt::Display>(v: &[T]) -> String {
    match v {
        [x] => format!("({x},)"),
        _ => format!(
            "({})",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl AttrValue for [i64] {
    fn attr_string(&self) -> String {
        tuple(self)
    }
}

impl AttrValue for [f64] {
    fn attr_string(&self) -> String {
        tuple(self)
    }
}

impl<T: AttrValue + ?Sized> AttrValue for &T {
    fn attr_string(&self) -> String {
        (**self).attr_string()
    }
}
