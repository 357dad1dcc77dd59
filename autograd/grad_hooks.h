// Gradient-ready hooks of autograd::backward, for overlapping communication with backward
// (Horovod's and PyTorch DDP's per-gradient hooks; MXNet 1.9.1 has no public equivalent).
//
//   int64_t id = autograd::AddGradReadyHook([](const NDArray& variable) {
//     // variable.grad() now holds its final value for this backward
//   });
//   ...
//   autograd::RemoveGradReadyHook(id);
//
// backward() (and NDArray::backward) calls every registered hook, on its own thread, once per
// variable (an array with attach_grad / mark_variables and grad_req write or add) whose gradient
// buffer it wrote, right after writing it. Variables are reported as soon as no recorded node
// left to run can add to them: in reverse topological order (the last layer's parameters first),
// while backward is still computing the gradients of earlier layers. With hooks registered the
// buffers are written at that moment; without, all at the end (the observable result is the same:
// each buffer gets the same value). autograd::grad() does not call hooks (it writes no buffer).
// A hook must not record, run backward, or add/remove hooks; an exception it throws ends
// backward (buffers written so far keep their new values). Thread-safe registration; hooks run
// on the thread that calls backward.
#pragma once

#include <cstdint>
#include <functional>

#include "ndarray/ndarray.h"

namespace mxnet::autograd {

// variable: the marked array (its grad() holds the final gradient of this backward).
using GradReadyHook = std::function<void(const NDArray& variable)>;

// Registers a hook; returns its id (> 0) for RemoveGradReadyHook. Errors: kInvalidArgument for an
// empty function.
int64_t AddGradReadyHook(GradReadyHook hook);
// Unregisters the hook with this id (no-op for an unknown id).
void RemoveGradReadyHook(int64_t id);

}  // namespace mxnet::autograd
