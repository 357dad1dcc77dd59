//! Typed operator functions, generated from the C ABI's operator metadata by `mxnet-opgen`
//! (`generated.rs`, checked in; `cargo run -p mxnet-opgen` rewrites it and its test fails when
//! the checked-in file differs from a fresh generation).
//!
//! Naming: an operator's canonical name in snake case (`FullyConnected` → `fully_connected`);
//! internal prefixes become modules (`_contrib_X` → `contrib::x`, `_random_X` → `random::x`,
//! `_sample_X` → `random::sample_x`, `_linalg_X` → `linalg::x`, `_image_X` → `image::x`,
//! `_np_X` → `np::x`, `_npi_X` → `npi::x`, `_npx_X` → `npx::x`, any other `_X` → `internal::x`);
//! `_backward_*` operators are left out (autograd runs them).
//!
//! Signatures: inputs as `&NDArray` (variadic operators take `&[&NDArray]` and set their count
//! attribute; operators whose inputs depend on attributes in ways the metadata does not show
//! take `&[&NDArray]`), then the required attributes typed by kind (bool, i32, i64, f32, f64,
//! `&[i64]` tuples, `&[f64]` tuples, [`DType`], `&str`). Inputs that a boolean
//! attribute switches off (Convolution's `bias` by `no_bias`) are `Option<&NDArray>` and set that
//! attribute. Operators without optional attributes run at once and return
//! `Result<NDArray>` (one output) or `Result<Vec<NDArray>>`; the others return a builder with
//! one method per optional attribute and `.call()`. Errors: as [`invoke`](crate::invoke).
#![allow(clippy::too_many_arguments, clippy::new_ret_no_self)]
use crate::op::{call, call1, AttrValue, OpCell};
use crate::{DType, Device, NDArray, Result};

include!("generated.rs");

/// Sets (or replaces) one attribute of a builder.
fn set_attr(attrs: &mut Vec<(&'static str, String)>, key: &'static str, value: String) {
    match attrs.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => attrs.push((key, value)),
    }
}
