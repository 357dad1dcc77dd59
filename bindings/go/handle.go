package mxnet

import (
	"runtime"
	"strconv"
	"sync/atomic"
)

// ref is one reference to a library handle of type T, held by a Go object (Block, Parameter,
// Trainer, Transform, Dataset, DataLoader): nil once closed.
type ref[T any] struct {
	p atomic.Pointer[T]
}

// init stores the +1 handle h and sets owner's finalizer fin (owner's Close method expression).
func (r *ref[T]) init(owner any, h *T, fin any) {
	r.p.Store(h)
	runtime.SetFinalizer(owner, fin)
}

// get returns the handle, or an error naming what (and the Go type kind) when r is closed.
func (r *ref[T]) get(kind, what string) (*T, error) {
	if r == nil {
		return nil, newError(CodeInvalidArgument, what+" is a nil *"+kind)
	}
	h := r.p.Load()
	if h == nil {
		return nil, closedError(what + " (" + kind + ")")
	}
	return h, nil
}

// close releases the handle once with free; owner's finalizer is cleared.
func (r *ref[T]) close(owner any, free func(*T)) {
	if h := r.p.Swap(nil); h != nil {
		runtime.SetFinalizer(owner, nil)
		free(h)
	}
}

// cstr returns s as a NUL-terminated Go byte buffer for one C call (the library copies what it
// keeps); a NUL byte inside s is an error naming what.
func cstr(s, what string) (*packer, error) {
	p := &packer{}
	if err := p.add(s, what); err != nil {
		return nil, err
	}
	return p, nil
}

// optStr is cstr for optional strings: "" is NULL.
func optStr(s, what string) (*packer, error) {
	if s == "" {
		return &packer{}, nil
	}
	return cstr(s, what)
}

// packStrings packs ss (what names them in errors).
func packStrings(ss []string, what string) (*packer, error) {
	p := &packer{}
	for _, s := range ss {
		if err := p.add(s, what); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// packKwargs packs keyword arguments (Python's spelling, formatted as Attrs) as key/value pairs.
func packKwargs(kw Attrs) (*packer, error) {
	p := &packer{}
	if err := kw.pack(p); err != nil {
		return nil, err
	}
	return p, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
