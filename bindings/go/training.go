package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"runtime"
	"sync"
)

// LossNames returns the loss names NewLoss accepts, sorted (MXNet's class names and aliases:
// "L1Loss", "L2Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", ...).
func LossNames() ([]string, error) {
	var arr **C.char
	var n C.size_t
	if err := statusErr(C.mxc_loss_list(&arr, &n)); err != nil {
		return nil, err
	}
	return goStrings(arr, n), nil
}

// NewLoss returns the loss block name (MXNet's class name: gluon.loss.<name>(**kwargs)) with its
// keyword arguments in kwargs (nil: none), formatted as Attrs (Python's spelling: bool "True",
// nil "None"). Every loss takes weight and batch_axis; SoftmaxCrossEntropyLoss also axis,
// sparse_label, from_logits; see mxc/training.h for the others. Call it (Block.Forward) on
// (pred (N, ...) float32, label[, sample_weight]) to get the per-sample loss, shape (N,); under
// Ctx.Record its output can be the head of Backward.
// Errors: an unknown name (listing the valid ones), unknown keys or bad values
// (INVALID_ARGUMENT naming the key and listing the accepted ones).
func NewLoss(name string, kwargs Attrs) (*Block, error) {
	n, err := cstr(name, "loss name")
	if err != nil {
		return nil, err
	}
	kv, err := packKwargs(kwargs)
	if err != nil {
		return nil, err
	}
	var h *C.mxc_block
	return blockResult(h, statusErr(C.mxgo_loss_create(n.ptr(), kv.ptr(), C.size_t(kv.n/2), &h)))
}

// Trainer applies an optimizer to parameters after Backward (gluon.Trainer, mxc_trainer).
//
// Ownership: Close releases it (idempotent); it keeps its parameters alive. Goroutines: a
// Trainer holds a mutex across each call, so calls from several goroutines run one at a time;
// Step writes the parameters, so no goroutine may call the blocks owning them meanwhile. Close
// may run on any goroutine.
type Trainer struct {
	mu sync.Mutex
	r  ref[C.mxc_trainer]
}

// NewTrainer returns a trainer over params (the optimizer's index of a parameter is its
// position; GradNull parameters are skipped) with the optimizer name ("sgd", "adam", "nag",
// "rmsprop", "adagrad", ... as mx.optimizer) and its keyword arguments (learning_rate, wd,
// momentum, beta1, clip_gradient, rescale_grad, ...), formatted as Attrs.
// Errors: an unknown optimizer (NOT_FOUND listing them), bad keyword arguments
// (INVALID_ARGUMENT), nil or closed parameters.
func NewTrainer(params []*Parameter, optimizer string, kwargs Attrs) (*Trainer, error) {
	hs, err := paramHandles(params, "params")
	if err != nil {
		return nil, err
	}
	opt, err := cstr(optimizer, "optimizer")
	if err != nil {
		return nil, err
	}
	kv, err := packKwargs(kwargs)
	if err != nil {
		return nil, err
	}
	var h *C.mxc_trainer
	err = statusErr(C.mxgo_trainer_create(paramsPtr(hs), C.size_t(len(hs)), opt.ptr(), kv.ptr(), C.size_t(kv.n/2), &h))
	for _, p := range params {
		runtime.KeepAlive(p)
	}
	if err != nil {
		return nil, err
	}
	t := &Trainer{}
	t.r.init(t, h, (*Trainer).Close)
	return t, nil
}

// Close releases the trainer. It is idempotent and always returns nil.
func (t *Trainer) Close() error {
	if t != nil {
		t.r.close(t, func(h *C.mxc_trainer) { C.mxc_trainer_free(h) })
	}
	return nil
}

func (t *Trainer) handle() (*C.mxc_trainer, error) {
	if t == nil {
		return nil, newError(CodeInvalidArgument, "trainer is a nil *Trainer")
	}
	return t.r.get("Trainer", "trainer")
}

// call runs f on the handle under the trainer's mutex.
func (t *Trainer) call(f func(h *C.mxc_trainer) *C.mxc_status) error {
	if t == nil {
		return newError(CodeInvalidArgument, "trainer is a nil *Trainer")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return withHandle[C.mxc_trainer](t, f)
}

// Step makes one optimization step (Trainer.step): gradients scaled by 1/batchSize, every
// parameter updated; random optimizers draw from ctx's stream (nil: the process-wide one). With
// ignoreStale, parameters whose gradient backward did not write since the last step are skipped;
// otherwise they are FAILED_PRECONDITION (naming the parameter) before anything is updated.
// Errors: batchSize <= 0, uninitialized parameters, stale gradients.
func (t *Trainer) Step(ctx *Ctx, batchSize float64, ignoreStale bool) error {
	c, err := ctx.acquire()
	if err != nil {
		return err
	}
	defer ctx.release()
	return t.call(func(h *C.mxc_trainer) *C.mxc_status {
		return C.mxc_trainer_step(c, h, C.double(batchSize), boolInt(ignoreStale))
	})
}

// LearningRate returns the optimizer's current learning rate (its scheduler's, if any).
func (t *Trainer) LearningRate() (float64, error) {
	var v C.double
	err := t.call(func(h *C.mxc_trainer) *C.mxc_status { return C.mxc_trainer_learning_rate(h, &v) })
	return float64(v), err
}

// SetLearningRate sets the learning rate. Errors: FAILED_PRECONDITION with an lr_scheduler.
func (t *Trainer) SetLearningRate(lr float64) error {
	return t.call(func(h *C.mxc_trainer) *C.mxc_status { return C.mxc_trainer_set_learning_rate(h, C.double(lr)) })
}

// SaveStates writes the optimizer's and the per-parameter states to path (MXNet's NDArray dict
// format, a temporary file renamed over path). Errors: I/O.
func (t *Trainer) SaveStates(path string) error {
	p, err := cstr(path, "path")
	if err != nil {
		return err
	}
	return t.call(func(h *C.mxc_trainer) *C.mxc_status { return C.mxc_trainer_save_states(h, p.ptr()) })
}

// LoadStates reads SaveStates' file into a trainer with the same optimizer class and parameter
// shapes. Errors: a missing file (NOT_FOUND), another optimizer or shapes (INVALID_ARGUMENT).
func (t *Trainer) LoadStates(path string) error {
	p, err := cstr(path, "path")
	if err != nil {
		return err
	}
	return t.call(func(h *C.mxc_trainer) *C.mxc_status { return C.mxc_trainer_load_states(h, p.ptr()) })
}
