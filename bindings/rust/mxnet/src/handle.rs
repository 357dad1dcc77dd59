//! The handle wrapper shared by the gluon, training and data types.

/// Defines a reference-counted handle type over `$raw`: `from_raw`/`as_raw`/`into_raw`,
/// `Clone` (retain), `Drop` (free) and `Send` (any handle may be freed on any thread).
macro_rules! handle_type {
    ($(#[$doc:meta])* $name:ident, $raw:ident, $retain:ident, $free:ident) => {
        $(#[$doc])*
        pub struct $name {
            raw: std::ptr::NonNull<mxc_sys::$raw>,
        }

        // SAFETY: the C ABI allows using distinct objects concurrently and freeing any handle
        // from any thread.
        unsafe impl Send for $name {}

        impl $name {
            #[doc = concat!("Wraps a +1 `", stringify!($raw), "` handle (takes ownership of that reference).")]
            ///
            /// # Safety
            /// `raw` must be a non-NULL handle of that type the caller owns a reference to.
            pub unsafe fn from_raw(raw: *mut mxc_sys::$raw) -> $name {
                $name {
                    raw: std::ptr::NonNull::new(raw)
                        .expect(concat!(stringify!($name), "::from_raw: NULL handle")),
                }
            }

            /// The raw handle, borrowed (valid while `self` lives; do not free it).
            pub fn as_raw(&self) -> *mut mxc_sys::$raw {
                self.raw.as_ptr()
            }

            /// Gives up ownership: the caller must free the returned +1 handle.
            pub fn into_raw(self) -> *mut mxc_sys::$raw {
                let raw = self.raw.as_ptr();
                std::mem::forget(self);
                raw
            }

            /// Wraps the +1 handle a successful call wrote to its out-parameter.
            #[allow(dead_code)]
            pub(crate) fn out(
                f: impl FnOnce(*mut *mut mxc_sys::$raw) -> *mut mxc_sys::mxc_status,
            ) -> crate::Result<$name> {
                let mut out = std::ptr::null_mut();
                crate::error::check(f(&mut out))?;
                // SAFETY: a +1 handle written on success.
                Ok(unsafe { $name::from_raw(out) })
            }
        }

        impl Clone for $name {
            /// Another reference to the same object (no copy).
            fn clone(&self) -> $name {
                // SAFETY: live handle; retaining a live handle only fails for invalid handles.
                crate::error::check(unsafe { mxc_sys::$retain(self.as_raw()) })
                    .expect(concat!(stringify!($retain), " failed on a live handle"));
                $name { raw: self.raw }
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: we own one reference.
                unsafe { mxc_sys::$free(self.as_raw()) }
            }
        }
    };
}

pub(crate) use handle_type;
