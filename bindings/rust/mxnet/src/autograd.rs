//! Automatic differentiation (`mxnet.autograd`). Recording and training flags are the calling
//! thread's [current context](crate::context)'s; scopes are guards:
//! ```
//! # fn main() -> mxnet::Result<()> {
//! use mxnet::{autograd, ops, GradReq, NDArray};
//! let mut x = NDArray::from_slice(&[1.0f32, 2.0], &[2])?;
//! x.attach_grad(GradReq::Write)?;
//! let y = {
//!     let _r = autograd::record();          // with autograd.record():
//!     ops::sum(&ops::elemwise_mul(&x, &x)?).call()?
//! };
//! y.backward()?;
//! assert_eq!(x.grad()?.to_vec::<f32>()?, [2.0, 4.0]);
//! # Ok(()) }
//! ```
//! The recorded history hangs off the arrays, so a graph recorded on one thread may be
//! differentiated on any thread; backward passes over disjoint graphs may run concurrently.
use crate::context::{current_raw, with_current};
use crate::error::{check, Code, Error, Result};
use crate::ndarray::NDArray;
use mxc_sys as sys;
use std::marker::PhantomData;
use std::ptr;

/// How backward writes a variable's gradient buffer (MXNet's `grad_req`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GradReq {
    /// No gradient.
    Null,
    /// Overwrite the buffer (the default).
    #[default]
    Write,
    /// Accumulate into the buffer.
    Add,
}

impl GradReq {
    pub(crate) fn from_raw(v: i32) -> Option<GradReq> {
        match v {
            sys::MXC_GRAD_NULL => Some(GradReq::Null),
            sys::MXC_GRAD_WRITE => Some(GradReq::Write),
            sys::MXC_GRAD_ADD => Some(GradReq::Add),
            _ => None,
        }
    }

    pub(crate) fn to_raw(self) -> i32 {
        match self {
            GradReq::Null => sys::MXC_GRAD_NULL,
            GradReq::Write => sys::MXC_GRAD_WRITE,
            GradReq::Add => sys::MXC_GRAD_ADD,
        }
    }
}

/// Restores the thread's recording and training flags when dropped. Not `Send`: it belongs to
/// the thread whose context it changed.
#[must_use = "the scope ends when the guard is dropped: bind it with `let _r = ...`"]
pub struct Guard {
    recording: Option<bool>,
    training: Option<bool>,
    _not_send: PhantomData<*const ()>,
}

fn scope(recording: Option<bool>, training: Option<bool>) -> Guard {
    // Setting a flag on the thread's live context cannot fail; the only possible error is
    // creating that context with an incompatible library, which every other call reports too.
    let prev = with_current(|c| {
        let r = recording.map(|on| c.set_recording(on).expect("mxc_autograd_set_recording"));
        let t = training.map(|on| c.set_training(on).expect("mxc_autograd_set_training"));
        (r, t)
    });
    let (recording, training) = prev.unwrap_or((None, None));
    Guard {
        recording,
        training,
        _not_send: PhantomData,
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let (r, t) = (self.recording, self.training);
        let _ = with_current(|c| {
            if let Some(t) = t {
                let _ = c.set_training(t);
            }
            if let Some(r) = r {
                let _ = c.set_recording(r);
            }
        });
    }
}

/// `with autograd.record():` recording on, training mode on, until the guard drops.
pub fn record() -> Guard {
    scope(Some(true), Some(true))
}

/// `autograd.record(train_mode=false)`: recording on, predict mode.
pub fn record_predict() -> Guard {
    scope(Some(true), Some(false))
}

/// `with autograd.pause():` recording off and predict mode (MXNet's `pause(train_mode=False)`)
/// until the guard drops.
pub fn pause() -> Guard {
    scope(Some(false), Some(false))
}

/// `with autograd.train_mode():` training behaviour (Dropout, BatchNorm) without recording.
pub fn train_mode() -> Guard {
    scope(None, Some(true))
}

/// `with autograd.predict_mode():` predict behaviour.
pub fn predict_mode() -> Guard {
    scope(None, Some(false))
}

/// Whether the thread's context is recording.
pub fn is_recording() -> Result<bool> {
    with_current(|c| c.is_recording())?
}

/// Whether the thread's context is in training mode.
pub fn is_training() -> Result<bool> {
    with_current(|c| c.is_training())?
}

fn handles(arrays: &[&NDArray]) -> Vec<*mut sys::mxc_ndarray> {
    arrays.iter().map(|a| a.as_raw()).collect()
}

fn head_grad_handles(
    heads: usize,
    head_grads: Option<&[Option<&NDArray>]>,
) -> Result<Option<Vec<*mut sys::mxc_ndarray>>> {
    match head_grads {
        None => Ok(None),
        Some(g) if g.len() != heads => Err(Error::new(
            Code::InvalidArgument,
            format!("autograd: {} head gradients for {heads} heads", g.len()),
        )),
        Some(g) => Ok(Some(
            g.iter()
                .map(|a| a.map_or(ptr::null_mut(), |a| a.as_raw()))
                .collect(),
        )),
    }
}

/// Back-propagates from `heads` into the variables' gradient buffers (`autograd.backward`).
/// `head_grads`: `None` (ones) or one entry per head (`None` = ones, else an array of the head's
/// shape). `retain_graph` keeps the history for another backward; `train_mode` runs the
/// backward in training mode (MXNet's default is true). Errors: a head without recorded history,
/// a second backward over a freed graph, shape mismatches.
pub fn backward(
    heads: &[&NDArray],
    head_grads: Option<&[Option<&NDArray>]>,
    retain_graph: bool,
    train_mode: bool,
) -> Result<()> {
    let h = handles(heads);
    let g = head_grad_handles(heads.len(), head_grads)?;
    let ctx = current_raw()?;
    // SAFETY: h and g hold heads.len() handles (g may be NULL).
    check(unsafe {
        sys::mxc_autograd_backward(
            ctx,
            h.as_ptr(),
            h.len(),
            g.as_ref().map_or(ptr::null(), |g| g.as_ptr()),
            retain_graph as i32,
            train_mode as i32,
        )
    })
}

/// Options of [`grad`] (`autograd.grad`'s keyword arguments).
#[derive(Clone, Copy, Debug)]
pub struct GradOptions<'a> {
    /// `None` (ones) or one entry per head.
    pub head_grads: Option<&'a [Option<&'a NDArray>]>,
    /// Keep the history for another backward (implied by `create_graph`).
    pub retain_graph: bool,
    /// Record the gradient computation, so the results can be differentiated again.
    pub create_graph: bool,
    /// Run in training mode (default true).
    pub train_mode: bool,
}

impl Default for GradOptions<'_> {
    fn default() -> Self {
        GradOptions {
            head_grads: None,
            retain_graph: false,
            create_graph: false,
            train_mode: true,
        }
    }
}

/// Gradients of `heads` w.r.t. `variables` as new arrays (`autograd.grad`; zeros for a variable
/// the heads do not depend on), without touching the variables' buffers. With
/// `create_graph` the gradients are themselves recorded (higher-order derivatives). Errors: as
/// [`backward`]; a variable that is neither marked nor recorded.
pub fn grad(
    heads: &[&NDArray],
    variables: &[&NDArray],
    opts: GradOptions<'_>,
) -> Result<Vec<NDArray>> {
    let h = handles(heads);
    let v = handles(variables);
    let g = head_grad_handles(heads.len(), opts.head_grads)?;
    let mut out = vec![ptr::null_mut(); variables.len()];
    let ctx = current_raw()?;
    // SAFETY: all arrays valid for their lengths; out has one slot per variable.
    check(unsafe {
        sys::mxc_autograd_grad(
            ctx,
            h.as_ptr(),
            h.len(),
            g.as_ref().map_or(ptr::null(), |g| g.as_ptr()),
            v.as_ptr(),
            v.len(),
            opts.retain_graph as i32,
            opts.create_graph as i32,
            opts.train_mode as i32,
            out.as_mut_ptr(),
        )
    })?;
    // SAFETY: one +1 handle per variable.
    Ok(out
        .into_iter()
        .map(|h| unsafe { NDArray::from_raw(h) })
        .collect())
}

/// Marks `variables[i]` as a variable whose gradient goes to `gradients[i]` (same shape) with
/// request `reqs[i]` (`autograd.mark_variables`). Errors: different lengths, shape mismatch.
/// Writes the variables (see [`NDArray`]'s threading notes).
pub fn mark_variables(
    variables: &[&NDArray],
    gradients: &[&NDArray],
    reqs: &[GradReq],
) -> Result<()> {
    if gradients.len() != variables.len() || reqs.len() != variables.len() {
        return Err(Error::new(
            Code::InvalidArgument,
            format!(
                "autograd::mark_variables: {} variables, {} gradients, {} requests",
                variables.len(),
                gradients.len(),
                reqs.len()
            ),
        ));
    }
    let v = handles(variables);
    let g = handles(gradients);
    let r: Vec<i32> = reqs.iter().map(|r| r.to_raw()).collect();
    // SAFETY: equal lengths checked above.
    check(unsafe { sys::mxc_autograd_mark_variables(v.as_ptr(), g.as_ptr(), r.as_ptr(), v.len()) })
}

impl NDArray {
    /// Makes this array a variable with a zero gradient buffer of its shape and dtype
    /// (`attach_grad`). Writes the array.
    pub fn attach_grad(&mut self, req: GradReq) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::mxc_ndarray_attach_grad(self.as_raw(), req.to_raw()) })
    }

    /// The gradient buffer (the buffer itself, not a copy: backward updates what it shows).
    /// Errors: `FailedPrecondition` when the array is no variable.
    pub fn grad(&self) -> Result<NDArray> {
        let mut out = ptr::null_mut();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_grad(self.as_raw(), &mut out) })?;
        // SAFETY: a +1 handle.
        Ok(unsafe { NDArray::from_raw(out) })
    }

    /// `y.backward()`: [`backward`] from this array with ones as head gradient, in training
    /// mode, freeing the graph.
    pub fn backward(&self) -> Result<()> {
        backward(&[self], None, false, true)
    }
}
