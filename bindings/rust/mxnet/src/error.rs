//! Errors: every fallible call returns [`Result<T>`](crate::Result), whose error carries the C
//! ABI's status code and message unchanged.
use mxc_sys as sys;
use std::ffi::CStr;
use std::fmt;

/// A status code: the numbering of absl::StatusCode (and google.rpc.Code), as in `mxc_code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// The operation was cancelled.
    Cancelled,
    /// An error without a better code (also any code this binding does not know).
    Unknown,
    /// A bad argument: a freed handle, a wrong dtype or size, a bad attribute value, bad JSON.
    InvalidArgument,
    /// A deadline passed.
    DeadlineExceeded,
    /// Something named does not exist: a file, an operator.
    NotFound,
    /// Something already exists.
    AlreadyExists,
    /// Not allowed.
    PermissionDenied,
    /// Out of memory or another resource.
    ResourceExhausted,
    /// The object is not in the state the call needs (e.g. the gradient of a non-variable).
    FailedPrecondition,
    /// Aborted.
    Aborted,
    /// An index or count out of range.
    OutOfRange,
    /// Not implemented by this build (e.g. sparse records).
    Unimplemented,
    /// A bug in the library.
    Internal,
    /// A device this build lacks.
    Unavailable,
    /// Corrupt or truncated data.
    DataLoss,
    /// Unauthenticated.
    Unauthenticated,
}

impl Code {
    /// The code for the C ABI's integer value (`Unknown` for values outside the enum).
    pub fn from_raw(code: u32) -> Code {
        use Code::*;
        match code {
            1 => Cancelled,
            3 => InvalidArgument,
            4 => DeadlineExceeded,
            5 => NotFound,
            6 => AlreadyExists,
            7 => PermissionDenied,
            8 => ResourceExhausted,
            9 => FailedPrecondition,
            10 => Aborted,
            11 => OutOfRange,
            12 => Unimplemented,
            13 => Internal,
            14 => Unavailable,
            15 => DataLoss,
            16 => Unauthenticated,
            _ => Unknown,
        }
    }

    /// The C ABI's integer value (`mxc_code`).
    pub fn to_raw(self) -> u32 {
        use Code::*;
        match self {
            Cancelled => 1,
            Unknown => 2,
            InvalidArgument => 3,
            DeadlineExceeded => 4,
            NotFound => 5,
            AlreadyExists => 6,
            PermissionDenied => 7,
            ResourceExhausted => 8,
            FailedPrecondition => 9,
            Aborted => 10,
            OutOfRange => 11,
            Unimplemented => 12,
            Internal => 13,
            Unavailable => 14,
            DataLoss => 15,
            Unauthenticated => 16,
        }
    }

    /// The canonical name ("INVALID_ARGUMENT"), from `mxc_code_name`.
    pub fn name(self) -> &'static str {
        // SAFETY: mxc_code_name returns a static NUL-terminated string for any value.
        unsafe { CStr::from_ptr(sys::mxc_code_name(self.to_raw() as i32)) }
            .to_str()
            .unwrap_or("UNKNOWN")
    }
}

/// An error from the C ABI (or from this binding's own checks, e.g. a buffer whose element type
/// differs from the array's dtype): a [`Code`] and a UTF-8 message naming the function, what was
/// wrong and where, e.g. `mxc_invoke: Convolution: expected 3 inputs (data, weight, bias), got 2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: Code,
    message: String,
}

/// `std::result::Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with `code` and `message` (for errors found by the binding itself).
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// The status code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The message (the C ABI's text unchanged for errors from the library).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Takes ownership of a non-NULL `mxc_status` and frees it.
    ///
    /// # Safety
    /// `status` must be a status returned by an mxc call and not yet freed.
    pub(crate) unsafe fn from_status(status: *mut sys::mxc_status) -> Error {
        let code = Code::from_raw(sys::mxc_status_code(status));
        let message = CStr::from_ptr(sys::mxc_status_message(status))
            .to_string_lossy()
            .into_owned();
        sys::mxc_status_free(status);
        Error { code, message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// Turns a status returned by an mxc call into a `Result` (NULL is success).
#[inline]
pub(crate) fn check(status: *mut sys::mxc_status) -> Result<()> {
    if status.is_null() {
        Ok(())
    } else {
        // SAFETY: a non-NULL status returned by the library, owned by us now.
        Err(unsafe { Error::from_status(status) })
    }
}

/// An `InvalidArgument` error for a string argument with an interior NUL.
pub(crate) fn nul_error(what: &str) -> Error {
    Error::new(
        Code::InvalidArgument,
        format!("{what}: string contains a NUL byte"),
    )
}
