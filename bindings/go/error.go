package mxnet

/*
#include "mxgo.h"
*/
import "C"

import "errors"

// Code is a status code of the C ABI (mxc_code): the numbering of absl::StatusCode and
// google.rpc.Code.
type Code int32

// The status codes.
const (
	CodeOK                 Code = C.MXC_OK
	CodeCancelled          Code = C.MXC_CANCELLED
	CodeUnknown            Code = C.MXC_UNKNOWN
	CodeInvalidArgument    Code = C.MXC_INVALID_ARGUMENT
	CodeDeadlineExceeded   Code = C.MXC_DEADLINE_EXCEEDED
	CodeNotFound           Code = C.MXC_NOT_FOUND
	CodeAlreadyExists      Code = C.MXC_ALREADY_EXISTS
	CodePermissionDenied   Code = C.MXC_PERMISSION_DENIED
	CodeResourceExhausted  Code = C.MXC_RESOURCE_EXHAUSTED
	CodeFailedPrecondition Code = C.MXC_FAILED_PRECONDITION
	CodeAborted            Code = C.MXC_ABORTED
	CodeOutOfRange         Code = C.MXC_OUT_OF_RANGE
	CodeUnimplemented      Code = C.MXC_UNIMPLEMENTED
	CodeInternal           Code = C.MXC_INTERNAL
	CodeUnavailable        Code = C.MXC_UNAVAILABLE
	CodeDataLoss           Code = C.MXC_DATA_LOSS
	CodeUnauthenticated    Code = C.MXC_UNAUTHENTICATED
)

// String is the code's canonical name ("INVALID_ARGUMENT"; "UNKNOWN" outside the enum).
func (c Code) String() string { return C.GoString(C.mxc_code_name(C.int32_t(c))) }

// Error is every error this package returns: the C ABI's status (its code and its message, which
// names the function, what was wrong and where) or a check of the binding itself (same codes).
//
// Match with errors.As(err, &e) to read Code and Msg, or errors.Is(err, ErrNotFound) (an *Error
// target with an empty Msg matches any error of its code; with a Msg, that exact message), or
// errors.Is(err, ErrClosed) for use of a closed handle.
type Error struct {
	Code Code
	Msg  string

	cause error // ErrClosed for use after Close; nil otherwise
}

// Error formats as "mxnet: CODE: message".
func (e *Error) Error() string { return "mxnet: " + e.Code.String() + ": " + e.Msg }

// Is reports whether target is an *Error of the same code (and the same message, when target's
// Msg is not empty).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Msg == "" || t.Msg == e.Msg)
}

// Unwrap returns ErrClosed for errors about closed handles.
func (e *Error) Unwrap() error { return e.cause }

// Sentinels for errors.Is: each matches every *Error of its code.
var (
	ErrInvalidArgument    = &Error{Code: CodeInvalidArgument}
	ErrNotFound           = &Error{Code: CodeNotFound}
	ErrFailedPrecondition = &Error{Code: CodeFailedPrecondition}
	ErrOutOfRange         = &Error{Code: CodeOutOfRange}
	ErrUnimplemented      = &Error{Code: CodeUnimplemented}
	ErrInternal           = &Error{Code: CodeInternal}
	ErrUnavailable        = &Error{Code: CodeUnavailable}
	ErrDataLoss           = &Error{Code: CodeDataLoss}
)

// ErrClosed is wrapped by the *Error (code INVALID_ARGUMENT) returned when a closed NDArray, Ctx
// or Symbol is used.
var ErrClosed = errors.New("mxnet: use of a closed handle")

func newError(code Code, msg string) *Error { return &Error{Code: code, Msg: msg} }

func closedError(what string) error {
	return &Error{Code: CodeInvalidArgument, Msg: what + " used after Close", cause: ErrClosed}
}

// statusErr turns a status into an *Error and frees it; nil for NULL (success).
func statusErr(s *C.mxc_status) error {
	if s == nil {
		return nil
	}
	e := &Error{Code: Code(C.mxc_status_code(s)), Msg: C.GoString(C.mxc_status_message(s))}
	C.mxc_status_free(s)
	return e
}
