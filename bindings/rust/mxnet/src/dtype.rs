//! Element types ([`DType`], MXNet's type flags) and the Rust types that hold them
//! ([`Element`]).
use crate::error::{Code, Error, Result};
use mxc_sys as sys;
use std::ffi::CStr;

/// An element type, numbered as MXNet's type flags (`mxc_dtype`, the values stored in
/// `.params` files).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit float (`f32`), MXNet's default.
    Float32,
    /// 64-bit float (`f64`).
    Float64,
    /// IEEE half (no Rust type: use [`NDArray::from_bytes`](crate::NDArray::from_bytes)).
    Float16,
    /// `u8`.
    UInt8,
    /// `i32`.
    Int32,
    /// `i8`.
    Int8,
    /// `i64`.
    Int64,
    /// `bool` (one byte, 0 or 1).
    Bool,
    /// `i16`.
    Int16,
    /// `u16`.
    UInt16,
    /// `u32`.
    UInt32,
    /// `u64`.
    UInt64,
    /// bfloat16 (no Rust type: use [`NDArray::from_bytes`](crate::NDArray::from_bytes)).
    BFloat16,
}

const ALL: [DType; 13] = [
    DType::Float32,
    DType::Float64,
    DType::Float16,
    DType::UInt8,
    DType::Int32,
    DType::Int8,
    DType::Int64,
    DType::Bool,
    DType::Int16,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::BFloat16,
];

impl DType {
    /// The C ABI's value (`mxc_dtype`, MXNet's type flag).
    pub fn to_raw(self) -> i32 {
        ALL.iter().position(|d| *d == self).unwrap() as i32
    }

    /// The dtype of a C ABI value. Errors: `InvalidArgument` for an unknown value.
    pub fn from_raw(raw: i32) -> Result<DType> {
        usize::try_from(raw)
            .ok()
            .and_then(|i| ALL.get(i).copied())
            .ok_or_else(|| Error::new(Code::InvalidArgument, format!("unknown dtype value {raw}")))
    }

    /// MXNet/NumPy name ("float32", "bool", ...), as attribute strings use it.
    pub fn name(self) -> &'static str {
        // SAFETY: mxc_dtype_name returns a static string for every known value.
        unsafe { CStr::from_ptr(sys::mxc_dtype_name(self.to_raw())) }
            .to_str()
            .unwrap()
    }

    /// The dtype named `name` ("float32", ...). Errors: `InvalidArgument` for an unknown name.
    pub fn from_name(name: &str) -> Result<DType> {
        ALL.iter()
            .copied()
            .find(|d| d.name() == name)
            .ok_or_else(|| {
                Error::new(
                    Code::InvalidArgument,
                    format!("unknown dtype name '{name}'"),
                )
            })
    }

    /// Bytes per element (float32: 4, bool: 1).
    pub fn size(self) -> usize {
        // SAFETY: pure function of an integer.
        unsafe { sys::mxc_dtype_size(self.to_raw()) }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values are stored unchanged in an array of [`Element::DTYPE`]: `f32`,
/// `f64`, `u8`, `i8`, `i16`, `u16`, `i32`, `u32`, `i64`, `u64`, `bool`. Sealed.
pub trait Element: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// The matching dtype.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}

element! {
    f32 => Float32, f64 => Float64, u8 => UInt8, i8 => Int8, i16 => Int16, u16 => UInt16,
    i32 => Int32, u32 => UInt32, i64 => Int64, u64 => UInt64, bool => Bool,
}
