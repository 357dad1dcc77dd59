//! The Rust API of mxnet-cpp, over its stable C ABI (`libmxc.so.1`, the `mxc-sys` crate).
//!
//! ```
//! use mxnet::{autograd, ops, GradReq, NDArray};
//! # fn main() -> mxnet::Result<()> {
//! let x = NDArray::from_slice(&[-1.0f32, 2.0, -3.0, 4.0], &[2, 2])?;
//! let y = ops::relu(&x)?;                                     // a typed operator
//! let z = mxnet::invoke("_mul_scalar", &[&y], &[("scalar", "2")])?; // by name
//! assert_eq!(z[0].to_vec::<f32>()?, [0.0, 4.0, 0.0, 8.0]);
//! # Ok(()) }
//! ```
//!
//! # Conventions
//! - **Errors**: every fallible call returns [`Result<T>`]; [`Error`] carries the C ABI's
//!   [`Code`] and message (naming the function, what was wrong and where). Nothing panics on bad
//!   input.
//! - **Handles**: [`NDArray`] and [`Symbol`] are reference-counted handles: `Clone` retains the
//!   same object (no copy), `Drop` releases. [`Op`] is an immortal `Copy` handle.
//! - **Shapes** are `&[i64]` dims, outermost first, row-major (C-contiguous) data; layouts are
//!   those of the operators (NCHW for Convolution unless its `layout` says otherwise).
//! - **State**: autograd flags, the default device and the RNG stream live in the calling
//!   thread's [`Context`] (see [`context`]); [`autograd::record`] is a guard.
//!
//! # Threads (the C ABI's contract, `mxc/base.h`)
//! | type | `Send` | `Sync` | why |
//! |---|---|---|---|
//! | [`NDArray`] | yes | yes | distinct arrays run concurrently; one array may be read by many threads; writes take `&mut self` (aliases through clones/views remain the caller's responsibility, as in C) |
//! | [`Symbol`] | yes | yes | immutable |
//! | [`Op`] | yes | yes | immortal; the registry is thread-safe |
//! | [`Context`] | yes | no | a ctx is used by one thread at a time but may move; not `Clone` |
//! | [`autograd::Guard`] | no | no | restores the flags of the thread that made it |
//! | [`Block`] | yes | yes | an initialized (hybridized) block may be called from many threads at once; `initialize`, `hybridize`, `load_parameters` take `&mut self` |
//! | [`Parameter`] | yes | yes | getters read; setters take `&mut self` |
//! | [`Trainer`] | yes | no | one thread at a time |
//! | [`data::Transform`], [`data::Dataset`] | yes | yes | immutable |
//! | [`data::DataLoader`] | yes | no | one thread at a time |
//!
//! Any handle may be dropped on any thread.
//!
//! # Gluon, training, data
//! [`Block`] (model zoo: [`model_zoo::get_model`]; exports: [`Block::imports`]; graphs of your
//! own: [`Block::from_symbol`]), [`Parameter`]s from [`Block::collect_params`] (RE2),
//! [`Trainer`] and [`training::loss`], [`data::image`] decoding, [`data::Dataset`]
//! (Fashion-MNIST) and [`data::DataLoader`]; Rust closures as transforms
//! ([`data::Transform::from_fn`], panics caught at the C boundary).
#![warn(missing_docs)]

pub mod autograd;
pub mod context;
pub mod data;
mod device;
mod dtype;
mod error;
mod gluon;
mod handle;
mod ndarray;
mod op;
#[cfg(feature = "typed-ops")]
pub mod ops;
mod symbol;
pub mod training;
mod util;

pub use autograd::GradReq;
pub use context::Context;
pub use device::Device;
pub use dtype::{DType, Element};
pub use error::{Code, Error, Result};
pub use gluon::{
    model_zoo, Block, HybridBlock, HybridizeOptions, LoadParametersOptions, Parameter, SymbolBlock,
};
pub use ndarray::{FileFormat, LoadOptions, Loaded, NDArray};
pub use op::{invoke, AttrInfo, AttrKind, AttrValue, Op, OpInfo};
pub use symbol::{InferredShapes, InferredTypes, Symbol};
pub use training::Trainer;

/// Handle accounting of the library (`mxc_handle_stats_get`), for leak checks in tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleStats {
    /// Live handles of every type (each counted once, whatever its reference count).
    pub live: u64,
    /// Frees the library ignored because the handle was stale (double free), of the wrong type
    /// or not a handle.
    pub bad_frees: u64,
}

/// The library's handle accounting now. Threads: any.
pub fn handle_stats() -> Result<HandleStats> {
    let mut s = mxc_sys::mxc_handle_stats {
        struct_size: std::mem::size_of::<mxc_sys::mxc_handle_stats>(),
        ..Default::default()
    };
    // SAFETY: sized out-struct.
    error::check(unsafe { mxc_sys::mxc_handle_stats_get(&mut s) })?;
    Ok(HandleStats {
        live: s.live,
        bad_frees: s.bad_frees,
    })
}

pub use context::abi_version;

/// The example of `bindings/rust/README.md`, run as a doctest so it stays correct.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
/// The raw C ABI (`mxc-sys`), for what the safe API does not cover.
pub use mxc_sys as sys;
