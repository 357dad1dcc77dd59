// Package mxnet is the Go binding of mxnet-cpp: arrays, operators, autograd, symbols, Gluon
// blocks (model zoo, SymbolBlock, parameters, losses, Trainer) and data (image decode,
// transforms, Fashion-MNIST, DataLoader) over the library's stable C ABI (libmxc.so.1, headers
// c_api/include/mxc), through cgo. Package mxnet.local/mxnet/nd has a typed function per
// registered operator (nd.Relu, nd.Convolution, ...), generated from the operator metadata;
// Invoke is the by-name call.
//
// Handles: NDArray, Symbol, Ctx, Block, Parameter, Trainer, Transform, Dataset and DataLoader
// wrap reference-counted library handles. Each has an idempotent Close; a finalizer releases
// forgotten ones as a safety net only, since the garbage collector does not see the library's
// memory. Op values are immortal and need no Close.
//
// Errors: every error is an *Error{Code, Msg} carrying the C ABI's status code and message;
// match with errors.As, or errors.Is against ErrNotFound, ErrInvalidArgument, ... and ErrClosed.
//
// Memory: arrays are made from Go slices by copying (FromSlice, FromBytes) and read back by
// copying (ToSlice, CopyToSlice) or in place during a callback (WithData). The library never
// keeps a Go pointer: FromExternal takes non-Go memory only, and its release callback is held
// through a runtime/cgo.Handle.
//
// Goroutines follow the C ABI's contract, stated on each type: distinct objects may be used
// concurrently, one object may be read by several goroutines at once, any handle may be closed
// from any goroutine, and a Ctx serializes the calls that use it (see Ctx).
package mxnet
