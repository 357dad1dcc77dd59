//! Training (`mxnet.gluon.loss`, `mxnet.gluon.Trainer`): losses by name ([`loss`]: they are
//! [`Block`]s, called on `(pred, label[, sample_weight])`) and the [`Trainer`] that applies an
//! optimizer to parameters after [`NDArray::backward`](crate::NDArray::backward).
//!
//! Keyword arguments are strings in Python's spelling (`("learning_rate", "0.001")`,
//! `("sparse_label", "True")`, `("weight", "None")`); unknown keys and badly typed values are
//! `InvalidArgument` errors naming the owner, the key and the value (and listing the accepted
//! keys).
use crate::context::{current_raw, ensure_abi};
use crate::error::{check, Result};
use crate::gluon::{Block, Parameter};
use crate::handle::handle_type;
use crate::util::{cstring, path_cstring, take_string_array, CAttrs};
use mxc_sys as sys;
use std::path::Path;
use std::ptr;

/// The loss names [`loss`] accepts, sorted (MXNet's class names and aliases: "L1Loss",
/// "L2Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", ...).
pub fn loss_names() -> Result<Vec<String>> {
    ensure_abi()?;
    let (mut names, mut count) = (ptr::null_mut(), 0);
    check(unsafe { sys::mxc_loss_list(&mut names, &mut count) })?;
    Ok(unsafe { take_string_array(names, count) })
}

/// `gluon.loss.<name>(**kwargs)`: a loss block. Called ([`Block::call`]) on `(pred (batch, ...)
/// float32, label[, sample_weight])` it gives one output, the per-sample loss `(batch,)`; under
/// [`autograd::record`](crate::autograd::record) that output can be the head of `backward`.
/// Every loss takes `weight` (default None; L2Loss 1.0) and `batch_axis` (0);
/// SoftmaxCrossEntropyLoss also `axis` (-1), `sparse_label` (True: labels are class indices
/// `(batch,)`), `from_logits` (False). Errors: an unknown name (listing the valid ones), bad
/// keyword arguments.
/// ```
/// # fn main() -> mxnet::Result<()> {
/// use mxnet::NDArray;
/// let l = mxnet::training::loss("L2Loss", &[])?;
/// let pred = NDArray::from_slice(&[1.0f32, 3.0], &[2, 1])?;
/// let label = NDArray::from_slice(&[0.0f32, 1.0], &[2, 1])?;
/// let out = l.call(&[&pred, &label])?;
/// assert_eq!(out[0].to_vec::<f32>()?, [0.5, 2.0]); // (pred - label)² / 2
/// # Ok(()) }
/// ```
pub fn loss(name: &str, kwargs: &[(&str, &str)]) -> Result<Block> {
    ensure_abi()?;
    let n = cstring(name, "loss: name")?;
    let a = CAttrs::new(kwargs, "loss: keyword argument")?;
    Block::out(|o| unsafe {
        sys::mxc_loss_create(n.as_ptr(), a.keys_ptr(), a.values_ptr(), a.len(), o)
    })
}

handle_type!(
    /// `gluon.Trainer` (`mxc_trainer`): an optimizer over a list of parameters (it keeps them
    /// alive). `Clone` retains the same trainer, `Drop` releases it.
    ///
    /// Threads: `Send`, not `Sync`: a trainer is used by one thread at a time, and
    /// [`step`](Self::step) writes its parameters, so no other thread may call the blocks owning
    /// them meanwhile.
    Trainer,
    mxc_trainer,
    mxc_trainer_retain,
    mxc_trainer_free
);

impl Trainer {
    /// `Trainer(params, optimizer, optimizer_params)`: the optimizer's index of a parameter is
    /// its position; parameters with grad_req null are skipped. `optimizer`: "sgd", "adam",
    /// "nag", "rmsprop", "adagrad", "adadelta", "ftrl", "signum", "lamb", ... (mx.optimizer);
    /// `kwargs`: learning_rate, wd, momentum, beta1, clip_gradient, rescale_grad, ... Errors:
    /// `NotFound` for an unknown optimizer (listing them), bad keyword arguments.
    pub fn new(params: &[Parameter], optimizer: &str, kwargs: &[(&str, &str)]) -> Result<Trainer> {
        ensure_abi()?;
        let h: Vec<*mut sys::mxc_parameter> = params.iter().map(|p| p.as_raw()).collect();
        let opt = cstring(optimizer, "Trainer: optimizer")?;
        let a = CAttrs::new(kwargs, "Trainer: keyword argument")?;
        Trainer::out(|o| unsafe {
            sys::mxc_trainer_create(
                h.as_ptr(),
                h.len(),
                opt.as_ptr(),
                a.keys_ptr(),
                a.values_ptr(),
                a.len(),
                o,
            )
        })
    }

    /// `Trainer.step(batch_size)`: gradients scaled by 1/`batch_size`, every parameter updated
    /// (random optimizers draw from the thread's [`Context`](crate::Context) stream). Errors:
    /// batch_size <= 0, uninitialized parameters, `FailedPrecondition` for a parameter whose
    /// gradient backward did not write since the last step (nothing is updated then).
    pub fn step(&mut self, batch_size: usize) -> Result<()> {
        self.step_raw(batch_size, false)
    }

    /// `Trainer.step(batch_size, ignore_stale_grad=True)`: parameters with stale gradients are
    /// skipped.
    pub fn step_ignore_stale(&mut self, batch_size: usize) -> Result<()> {
        self.step_raw(batch_size, true)
    }

    fn step_raw(&mut self, batch_size: usize, ignore_stale: bool) -> Result<()> {
        let ctx = current_raw()?;
        check(unsafe {
            sys::mxc_trainer_step(ctx, self.as_raw(), batch_size as f64, ignore_stale as i32)
        })
    }

    /// The optimizer's current learning rate (its scheduler's, if any).
    pub fn learning_rate(&self) -> Result<f64> {
        let mut v = 0.0;
        check(unsafe { sys::mxc_trainer_learning_rate(self.as_raw(), &mut v) })?;
        Ok(v)
    }

    /// Sets the learning rate. Errors: `FailedPrecondition` when the optimizer has an
    /// lr_scheduler.
    pub fn set_learning_rate(&mut self, lr: f64) -> Result<()> {
        check(unsafe { sys::mxc_trainer_set_learning_rate(self.as_raw(), lr) })
    }

    /// Saves optimizer and per-parameter states (MXNet's NDArray dict format, temporary file +
    /// rename).
    pub fn save_states(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::mxc_trainer_save_states(self.as_raw(), p.as_ptr()) })
    }

    /// Loads states saved by a trainer with the same optimizer and parameter shapes. Errors:
    /// `NotFound`, a different optimizer or shapes (`InvalidArgument`).
    pub fn load_states(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let p = path_cstring(path.as_ref())?;
        check(unsafe { sys::mxc_trainer_load_states(self.as_raw(), p.as_ptr()) })
    }
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("learning_rate", &self.learning_rate().ok())
            .finish()
    }
}
