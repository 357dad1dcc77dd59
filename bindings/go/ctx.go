package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"runtime"
	"sync"
)

// Ctx is the explicit runtime state of the calls that run operators (mxc_ctx): the autograd
// recording and training flags, the default device of operators without inputs (zeros, random
// samplers) and an RNG stream. A nil *Ctx is valid everywhere a Ctx is taken and means a fresh
// default state for that call: not recording, predict mode, cpu(0), the process-wide generators.
//
// Goroutines: the C ABI lets one thread at a time use an mxc_ctx, and lets it move between
// threads between calls. A goroutine may move between OS threads at any point, but never during
// a C call, and the library swaps the ctx's state in and out around each call, so moving is safe;
// what must not happen is two calls at once. Ctx therefore holds a mutex across every C call that
// uses it: sharing one Ctx between goroutines is safe, but their calls run one at a time and they
// share the flags (a goroutine's Record also records the others' operators). For parallel or
// independent work give each goroutine its own Ctx (NewCtx is cheap), or pass nil. Close, like
// every Close here, may run on any goroutine.
type Ctx struct {
	mu sync.Mutex
	h  *C.mxc_ctx // nil once closed; guarded by mu
}

// CtxOptions configure NewCtx. The zero value means the defaults.
type CtxOptions struct {
	// Device is the default device of operators without inputs; the zero Device means cpu(0).
	Device Device
	// Seeded gives the Ctx its own RNG stream seeded with Seed (see Ctx.Seed); otherwise random
	// operators draw from the process-wide generators (RandomSeed).
	Seeded bool
	Seed   uint64
}

// NewCtx creates a Ctx: not recording, predict mode, with opts applied (nil: the defaults).
// Close it when done (a finalizer frees it otherwise). Errors: an unknown device type, a negative
// device id (INVALID_ARGUMENT).
func NewCtx(opts *CtxOptions) (*Ctx, error) {
	var o *C.mxc_ctx_options
	if opts != nil {
		o = &C.mxc_ctx_options{struct_size: C.size_t(C.sizeof_mxc_ctx_options), device: opts.Device.c()}
		if opts.Seeded {
			o.has_seed = 1
			o.seed = C.uint64_t(opts.Seed)
		}
	}
	var h *C.mxc_ctx
	if err := statusErr(C.mxc_ctx_create(o, &h)); err != nil {
		return nil, err
	}
	c := &Ctx{h: h}
	runtime.SetFinalizer(c, (*Ctx).Close)
	return c, nil
}

// Close frees the Ctx. It waits for a call using the Ctx on another goroutine to finish; it is
// idempotent and always returns nil.
func (c *Ctx) Close() error {
	c.mu.Lock()
	h := c.h
	c.h = nil
	c.mu.Unlock()
	if h != nil {
		runtime.SetFinalizer(c, nil)
		C.mxc_ctx_free(h)
	}
	return nil
}

// acquire locks the Ctx for one C call and returns its handle (NULL for a nil Ctx); release
// unlocks it. A closed Ctx is an error (acquire then holds no lock).
func (c *Ctx) acquire() (*C.mxc_ctx, error) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	if c.h == nil {
		c.mu.Unlock()
		return nil, closedError("Ctx")
	}
	return c.h, nil
}

func (c *Ctx) release() {
	if c != nil {
		c.mu.Unlock()
	}
}

// Device returns the default device of operators without inputs.
func (c *Ctx) Device() (Device, error) {
	h, err := c.acquireNonNil()
	if err != nil {
		return Device{}, err
	}
	defer c.release()
	var d C.mxc_device
	if err := statusErr(C.mxc_ctx_device(h, &d)); err != nil {
		return Device{}, err
	}
	return deviceFromC(d), nil
}

// SetDevice sets the default device and returns the previous one. Errors: unknown device type,
// negative id (INVALID_ARGUMENT).
func (c *Ctx) SetDevice(d Device) (Device, error) {
	h, err := c.acquireNonNil()
	if err != nil {
		return Device{}, err
	}
	defer c.release()
	var prev C.mxc_device
	if err := statusErr(C.mxc_ctx_set_device(h, d.c(), &prev)); err != nil {
		return Device{}, err
	}
	return deviceFromC(prev), nil
}

// Seed gives the Ctx its own RNG stream restarted from seed (one generator per device derived
// from it, like mx.random.seed): the same seed gives the same random operator outputs.
func (c *Ctx) Seed(seed uint64) error {
	h, err := c.acquireNonNil()
	if err != nil {
		return err
	}
	defer c.release()
	return statusErr(C.mxc_ctx_seed(h, C.uint64_t(seed)))
}

// RandomSeed seeds the process-wide generators (mx.random.seed), used by nil Ctxs and Ctxs
// without their own stream. Safe from any goroutine.
func RandomSeed(seed uint64) error { return statusErr(C.mxc_random_seed(C.uint64_t(seed))) }

// acquireNonNil is acquire for the methods that need a real Ctx.
func (c *Ctx) acquireNonNil() (*C.mxc_ctx, error) {
	if c == nil {
		return nil, newError(CodeInvalidArgument, "method called on a nil *Ctx")
	}
	return c.acquire()
}
