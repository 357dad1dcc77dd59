//! Runtime state: [`Context`] wraps `mxc_ctx` (autograd recording and training flags, the
//! default device of creation operators, an RNG stream).
//!
//! Every thread has its own current context, created on first use with the defaults (not
//! recording, predict mode, cpu(0), the process-wide generators). Operators, views and autograd
//! calls of this crate run under the calling thread's current context, so
//! [`autograd::record`](crate::autograd::record) on one thread never affects another, as in
//! MXNet's Python API. [`replace_current`] installs a context of your own (e.g. a seeded one).
use crate::device::Device;
use crate::error::{check, Result};
use mxc_sys as sys;
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

/// Checks once per process that the loaded libmxc.so serves this binding's ABI (1.0).
pub(crate) fn ensure_abi() -> Result<()> {
    static CHECKED: OnceLock<Result<()>> = OnceLock::new();
    CHECKED
        .get_or_init(|| {
            check(unsafe { sys::mxc_abi_check(sys::MXC_ABI_MAJOR, sys::MXC_ABI_MINOR) })
        })
        .clone()
}

/// The version of the loaded libmxc.so: (major, minor).
pub fn abi_version() -> (u32, u32) {
    // SAFETY: no arguments, any thread.
    let v = unsafe { sys::mxc_abi_version() };
    (v >> 16, v & 0xffff)
}

/// An `mxc_ctx`: autograd flags, default device, RNG stream.
///
/// Threads: `Send` but not `Sync` and not `Clone`, exactly the C ABI's rule that a ctx is used
/// by one thread at a time but may move between threads. Dropping frees it (any thread).
pub struct Context {
    raw: NonNull<sys::mxc_ctx>,
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: an mxc_ctx may move between threads (used by one at a time, which `!Sync` and the
// absence of Clone guarantee) and may be freed from any thread.
unsafe impl Send for Context {}

impl Context {
    /// A context with the defaults: not recording, predict mode, cpu(0), the process-wide
    /// generators. Errors: an incompatible libmxc.so (`FailedPrecondition`).
    pub fn new() -> Result<Context> {
        Context::create(None)
    }

    /// A context whose creation operators default to `device` and which, when `seed` is given,
    /// has its own RNG stream seeded with it (the same seed gives the same random outputs).
    /// Errors: an unknown device type or negative id (`InvalidArgument`).
    pub fn with_options(device: Device, seed: Option<u64>) -> Result<Context> {
        let opts = sys::mxc_ctx_options {
            struct_size: std::mem::size_of::<sys::mxc_ctx_options>(),
            device: device.to_raw(),
            has_seed: seed.is_some() as i32,
            seed: seed.unwrap_or(0),
        };
        Context::create(Some(&opts))
    }

    fn create(opts: Option<&sys::mxc_ctx_options>) -> Result<Context> {
        ensure_abi()?;
        let mut raw = ptr::null_mut();
        let o = opts.map_or(ptr::null(), |o| o as *const _);
        // SAFETY: valid out-pointer; options NULL or a properly sized struct.
        check(unsafe { sys::mxc_ctx_create(o, &mut raw) })?;
        Ok(Context {
            raw: NonNull::new(raw).expect("mxc_ctx_create returned NULL"),
            _not_sync: PhantomData,
        })
    }

    /// The raw handle (borrowed: valid while `self` lives).
    pub fn as_raw(&self) -> *mut sys::mxc_ctx {
        self.raw.as_ptr()
    }

    /// The default device of creation operators.
    pub fn device(&self) -> Result<Device> {
        let mut d = sys::mxc_device::default();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ctx_device(self.as_raw(), &mut d) })?;
        Device::from_raw(d)
    }

    /// Sets the default device; returns the previous one. Errors: unknown device type, negative
    /// id (`InvalidArgument`).
    pub fn set_device(&mut self, device: Device) -> Result<Device> {
        let mut prev = sys::mxc_device::default();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ctx_set_device(self.as_raw(), device.to_raw(), &mut prev) })?;
        Device::from_raw(prev)
    }

    /// Gives this context its own RNG stream restarted from `seed` (like `mx.random.seed`, but
    /// only for operators run under this context).
    pub fn seed(&mut self, seed: u64) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::mxc_ctx_seed(self.as_raw(), seed) })
    }

    /// Whether autograd records operators run under this context.
    pub fn is_recording(&self) -> Result<bool> {
        let mut v = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_autograd_is_recording(self.as_raw(), &mut v) })?;
        Ok(v != 0)
    }

    /// Whether operators run in training mode (Dropout, BatchNorm).
    pub fn is_training(&self) -> Result<bool> {
        let mut v = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_autograd_is_training(self.as_raw(), &mut v) })?;
        Ok(v != 0)
    }

    /// Sets the recording flag; returns the previous one.
    pub fn set_recording(&mut self, on: bool) -> Result<bool> {
        let mut prev = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_autograd_set_recording(self.as_raw(), on as i32, &mut prev) })?;
        Ok(prev != 0)
    }

    /// Sets the training flag; returns the previous one.
    pub fn set_training(&mut self, on: bool) -> Result<bool> {
        let mut prev = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_autograd_set_training(self.as_raw(), on as i32, &mut prev) })?;
        Ok(prev != 0)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { sys::mxc_ctx_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.device().ok())
            .field("recording", &self.is_recording().ok())
            .field("training", &self.is_training().ok())
            .finish()
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Context>> = const { RefCell::new(None) };
}

/// Runs `f` with the calling thread's current context (created with the defaults on first use).
/// Errors: creating the context failed. Panics if `f` itself calls `with_current` (the context
/// is borrowed mutably for the duration).
pub fn with_current<R>(f: impl FnOnce(&mut Context) -> R) -> Result<R> {
    CURRENT.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Context::new()?);
        }
        Ok(f(slot.as_mut().unwrap()))
    })
}

/// The raw handle of the thread's current context, for one C call that does not re-enter.
#[inline]
pub(crate) fn current_raw() -> Result<*mut sys::mxc_ctx> {
    // The handle stays valid after the borrow ends: only replace_current or thread exit frees
    // it, and neither can run during the caller's single C call on this thread.
    with_current(|c| c.as_raw())
}

/// Makes `ctx` the calling thread's current context; returns the previous one (None when the
/// thread had not used one yet).
pub fn replace_current(ctx: Context) -> Option<Context> {
    CURRENT.with(|cell| cell.borrow_mut().replace(ctx))
}

/// Seeds the process-wide generators (`mx.random.seed`), which contexts without their own stream
/// use. Threads: any.
pub fn random_seed(seed: u64) -> Result<()> {
    // SAFETY: any thread.
    check(unsafe { sys::mxc_random_seed(seed) })
}
