//! Marshalling helpers for strings crossing the C ABI.
use crate::error::{nul_error, Code, Error, Result};
use mxc_sys as sys;
use std::ffi::{c_char, CStr, CString};

/// A NUL-terminated copy of `s`. Errors: an interior NUL (`InvalidArgument` naming `what`).
pub(crate) fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| nul_error(what))
}

/// A string the library keeps for the life of the process (operator metadata); "" for NULL.
pub(crate) fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        return "";
    }
    // SAFETY: immortal, NUL-terminated UTF-8 (the C ABI's metadata strings).
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("")
}

/// `count` immortal strings.
pub(crate) fn static_strs(p: *const *const c_char, count: usize) -> Vec<&'static str> {
    (0..count)
        .map(|i| static_str(unsafe { *p.add(i) }))
        .collect()
}

/// Takes ownership of an `mxc_string_free`-able string.
pub(crate) unsafe fn take_string(p: *mut c_char) -> String {
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    sys::mxc_string_free(p);
    s
}

/// Takes ownership of an `mxc_string_array_free`-able array of `count` strings.
pub(crate) unsafe fn take_string_array(p: *mut *mut c_char, count: usize) -> Vec<String> {
    if p.is_null() {
        return Vec::new();
    }
    let v = (0..count)
        .map(|i| CStr::from_ptr(*p.add(i)).to_string_lossy().into_owned())
        .collect();
    sys::mxc_string_array_free(p, count);
    v
}

/// NUL-terminated keys and values of string attributes, with the pointer arrays the C ABI takes.
pub(crate) struct CAttrs {
    _strings: Vec<CString>,
    pub keys: Vec<*const c_char>,
    pub values: Vec<*const c_char>,
}

impl CAttrs {
    pub(crate) fn new<K: AsRef<str>, V: AsRef<str>>(
        attrs: &[(K, V)],
        what: &str,
    ) -> Result<CAttrs> {
        let mut strings = Vec::with_capacity(attrs.len() * 2);
        for (k, v) in attrs {
            strings.push(cstring(k.as_ref(), what)?);
            strings.push(cstring(v.as_ref(), what)?);
        }
        // CString's heap buffer does not move when the Vec of CStrings does.
        let keys = strings.iter().step_by(2).map(|c| c.as_ptr()).collect();
        let values = strings
            .iter()
            .skip(1)
            .step_by(2)
            .map(|c| c.as_ptr())
            .collect();
        Ok(CAttrs {
            _strings: strings,
            keys,
            values,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn keys_ptr(&self) -> *const *const c_char {
        if self.keys.is_empty() {
            std::ptr::null()
        } else {
            self.keys.as_ptr()
        }
    }

    pub(crate) fn values_ptr(&self) -> *const *const c_char {
        if self.values.is_empty() {
            std::ptr::null()
        } else {
            self.values.as_ptr()
        }
    }
}

/// A path as a NUL-terminated UTF-8 string. Errors: a non-UTF-8 path or a NUL byte.
pub(crate) fn path_cstring(p: &std::path::Path) -> Result<CString> {
    let s = p.to_str().ok_or_else(|| {
        Error::new(
            Code::InvalidArgument,
            format!("path {} is not UTF-8", p.display()),
        )
    })?;
    cstring(s, "path")
}

/// Whether `e` is the C ABI's "N arrays but the buffer holds M" error (`OutOfRange` from an
/// output buffer that was too small), after which the call may be repeated with a larger one.
pub(crate) fn buffer_too_small(e: &Error) -> bool {
    e.code() == Code::OutOfRange && e.message().contains("buffer holds")
}
