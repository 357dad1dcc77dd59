package mxnet

/*
#include "mxgo.h"
*/
import "C"

import "fmt"

// GradReq is a gradient request (MXNet's grad_req).
type GradReq int32

// The gradient requests.
const (
	GradNull  GradReq = C.MXC_GRAD_NULL  // no gradient
	GradWrite GradReq = C.MXC_GRAD_WRITE // backward overwrites the buffer
	GradAdd   GradReq = C.MXC_GRAD_ADD   // backward accumulates into the buffer
)

func boolInt(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// flagCall runs f (a ctx flag getter or setter writing an int32 flag) on the locked Ctx.
func (c *Ctx) flagCall(f func(h *C.mxc_ctx, out *C.int32_t) *C.mxc_status) (bool, error) {
	h, err := c.acquireNonNil()
	if err != nil {
		return false, err
	}
	defer c.release()
	var v C.int32_t
	err = statusErr(f(h, &v))
	return v != 0, err
}

// SetRecording sets the Ctx's autograd recording flag (mx.autograd.set_recording) and returns
// the previous value. Operators run under a recording Ctx are recorded for Backward and Grad.
func (c *Ctx) SetRecording(recording bool) (previous bool, err error) {
	return c.flagCall(func(h *C.mxc_ctx, prev *C.int32_t) *C.mxc_status {
		return C.mxc_autograd_set_recording(h, boolInt(recording), prev)
	})
}

// SetTraining sets the Ctx's training flag (mx.autograd.set_training: Dropout and BatchNorm
// behave as in training) and returns the previous value.
func (c *Ctx) SetTraining(training bool) (previous bool, err error) {
	return c.flagCall(func(h *C.mxc_ctx, prev *C.int32_t) *C.mxc_status {
		return C.mxc_autograd_set_training(h, boolInt(training), prev)
	})
}

// IsRecording reports the recording flag.
func (c *Ctx) IsRecording() (bool, error) {
	return c.flagCall(func(h *C.mxc_ctx, v *C.int32_t) *C.mxc_status { return C.mxc_autograd_is_recording(h, v) })
}

// IsTraining reports the training flag.
func (c *Ctx) IsTraining() (bool, error) {
	return c.flagCall(func(h *C.mxc_ctx, v *C.int32_t) *C.mxc_status { return C.mxc_autograd_is_training(h, v) })
}

// withFlags runs f with the flags set as given (nil: unchanged) and restores them afterwards,
// also when f panics.
func (c *Ctx) withFlags(recording, training *bool, f func() error) (err error) {
	if recording != nil {
		prev, err := c.SetRecording(*recording)
		if err != nil {
			return err
		}
		defer func() {
			if _, e := c.SetRecording(prev); err == nil {
				err = e
			}
		}()
	}
	if training != nil {
		prev, err := c.SetTraining(*training)
		if err != nil {
			return err
		}
		defer func() {
			if _, e := c.SetTraining(prev); err == nil {
				err = e
			}
		}()
	}
	return f()
}

var yes, no = true, false

// Record runs f with recording and training on (mx.autograd.record(), train_mode=True), then
// restores both flags, and returns f's error. The Ctx's flags are shared by every goroutine
// using the Ctx.
func (c *Ctx) Record(f func() error) error { return c.withFlags(&yes, &yes, f) }

// RecordPredict runs f recording but in predict mode (mx.autograd.record(train_mode=False)).
func (c *Ctx) RecordPredict(f func() error) error { return c.withFlags(&yes, &no, f) }

// Pause runs f with recording off (mx.autograd.pause()).
func (c *Ctx) Pause(f func() error) error { return c.withFlags(&no, nil, f) }

// TrainMode runs f with training on (mx.autograd.train_mode()).
func (c *Ctx) TrainMode(f func() error) error { return c.withFlags(nil, &yes, f) }

// PredictMode runs f with training off (mx.autograd.predict_mode()).
func (c *Ctx) PredictMode(f func() error) error { return c.withFlags(nil, &no, f) }

// AttachGrad marks x as a variable with a zero gradient buffer of its shape and dtype
// (attach_grad). Errors: an unknown req (INVALID_ARGUMENT), a closed array.
// Goroutines: writes the array.
func (x *NDArray) AttachGrad(req GradReq) error {
	_, err := get(x, func(h *C.mxc_ndarray, _ *struct{}) *C.mxc_status {
		return C.mxc_ndarray_attach_grad(h, C.int32_t(req))
	})
	return err
}

// Grad returns x's gradient buffer: a new reference to the buffer itself, not a copy (later
// backward passes update what it shows); close it when done. Errors: FAILED_PRECONDITION when x
// is no variable.
func (x *NDArray) Grad() (*NDArray, error) {
	return derive(x, func(h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status { return C.mxc_ndarray_grad(h, out) })
}

// MarkVariables marks variables[i] as a variable with gradient buffer gradients[i] (same shape)
// and request reqs[i] (mx.autograd.mark_variables). Errors: different lengths, a shape
// mismatch, an unknown request (INVALID_ARGUMENT).
func MarkVariables(variables, gradients []*NDArray, reqs []GradReq) error {
	if len(gradients) != len(variables) || len(reqs) != len(variables) {
		return newError(CodeInvalidArgument, "MarkVariables: variables, gradients and reqs differ in length")
	}
	vs, err := handles(variables, "variables")
	if err != nil {
		return err
	}
	gs, err := handles(gradients, "gradients")
	if err != nil {
		return err
	}
	cr := make([]C.int32_t, len(reqs))
	for i, r := range reqs {
		cr[i] = C.int32_t(r)
	}
	var rp *C.int32_t
	if len(cr) > 0 {
		rp = &cr[0]
	}
	err = statusErr(C.mxc_autograd_mark_variables(handlesPtr(vs), handlesPtr(gs), rp, C.size_t(len(vs))))
	keepAlive(variables)
	keepAlive(gradients)
	return err
}

// BackwardOptions configure Backward and Grad. The zero value (or nil) means MXNet's defaults.
type BackwardOptions struct {
	// HeadGrads are the gradients of the heads: nil (ones), or one entry per head, each nil
	// (ones) or an array of the head's shape.
	HeadGrads []*NDArray
	// RetainGraph keeps the recorded history for another backward pass.
	RetainGraph bool
	// CreateGraph (Grad only) records the gradient computation itself, so its results can be
	// differentiated again (higher-order gradients); it implies RetainGraph.
	CreateGraph bool
	// PredictMode runs the backward pass in predict mode (MXNet's default is training mode).
	PredictMode bool
}

// headGrads returns the head-gradient handles (NULL entries for nil), or nil for none.
func (o *BackwardOptions) headGrads(numHeads int) ([]*C.mxc_ndarray, error) {
	if o == nil || o.HeadGrads == nil {
		return nil, nil
	}
	if len(o.HeadGrads) != numHeads {
		return nil, newError(CodeInvalidArgument, "BackwardOptions.HeadGrads must have one entry per head")
	}
	hs := make([]*C.mxc_ndarray, numHeads)
	for i, g := range o.HeadGrads {
		if g == nil {
			continue
		}
		h, err := g.handle(fmt.Sprintf("HeadGrads[%d]", i))
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

// Backward back-propagates from heads into the variables' gradient buffers (write: overwrite,
// add: accumulate), under ctx (may be nil). Errors: a head without recorded history, a second
// backward over a freed graph (retain it with RetainGraph), shape mismatches.
// Goroutines: backward passes over disjoint graphs may run concurrently.
func Backward(ctx *Ctx, heads []*NDArray, opts *BackwardOptions) error {
	hs, err := handles(heads, "heads")
	if err != nil {
		return err
	}
	hg, err := opts.headGrads(len(heads))
	if err != nil {
		return err
	}
	var retain, predict bool
	if opts != nil {
		retain, predict = opts.RetainGraph, opts.PredictMode
	}
	c, err := ctx.acquire()
	if err != nil {
		return err
	}
	err = statusErr(C.mxc_autograd_backward(c, handlesPtr(hs), C.size_t(len(hs)), handlesPtr(hg),
		boolInt(retain), boolInt(!predict)))
	ctx.release()
	keepAlive(heads)
	if opts != nil {
		keepAlive(opts.HeadGrads)
	}
	return err
}

// Backward is Backward(ctx, []*NDArray{x}, opts): y.Backward(ctx, nil) is MXNet's y.backward().
func (x *NDArray) Backward(ctx *Ctx, opts *BackwardOptions) error {
	return Backward(ctx, []*NDArray{x}, opts)
}

// Grad returns the gradients of heads with respect to variables (mx.autograd.grad) as new arrays,
// one per variable (zeros for a variable the heads do not depend on), without touching the
// variables' gradient buffers. With opts.CreateGraph under a recording ctx the results can be
// differentiated again. Errors: as Backward; a variable that is neither marked nor recorded.
func Grad(ctx *Ctx, heads, variables []*NDArray, opts *BackwardOptions) ([]*NDArray, error) {
	hs, err := handles(heads, "heads")
	if err != nil {
		return nil, err
	}
	vs, err := handles(variables, "variables")
	if err != nil {
		return nil, err
	}
	hg, err := opts.headGrads(len(heads))
	if err != nil {
		return nil, err
	}
	var retain, create, predict bool
	if opts != nil {
		retain, create, predict = opts.RetainGraph, opts.CreateGraph, opts.PredictMode
	}
	outs := make([]*C.mxc_ndarray, len(vs))
	c, err := ctx.acquire()
	if err != nil {
		return nil, err
	}
	err = statusErr(C.mxc_autograd_grad(c, handlesPtr(hs), C.size_t(len(hs)), handlesPtr(hg),
		handlesPtr(vs), C.size_t(len(vs)), boolInt(retain), boolInt(create), boolInt(!predict),
		handlesPtr(outs)))
	ctx.release()
	keepAlive(heads)
	keepAlive(variables)
	if opts != nil {
		keepAlive(opts.HeadGrads)
	}
	if err != nil {
		return nil, err
	}
	res := make([]*NDArray, len(outs))
	for i, h := range outs {
		res[i] = newNDArray(h)
	}
	return res, nil
}
