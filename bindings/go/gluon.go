package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Block is a Gluon block (mxnet.gluon.Block, mxc_block): a model-zoo net (ModelZoo), a
// SymbolBlock over an exported or hand-built graph (ImportSymbolBlock, NewSymbolBlock) or a loss
// (NewLoss). Call runs it on (N, ...) float32 inputs (layouts as the net expects: NCHW images).
//
// Ownership: Close releases it (idempotent; a finalizer is only a safety net). Parameters
// collected from it and trainers over them keep what they use alive.
//
// Goroutines (the C ABI's contract): once initialized, one Block may be called (Call) from many
// goroutines at once, each with its own Ctx (or nil); a hybridized block runs an immutable cached
// graph with per-call state. Initialize, Hybridize, LoadParameters, ZeroGrad and Parameter setters
// write the block: no other goroutine may use it meanwhile. Export, SaveParameters,
// CollectParams and String read it. Close may run on any goroutine.
type Block struct {
	r ref[C.mxc_block]
}

func newBlock(h *C.mxc_block) *Block {
	b := &Block{}
	b.r.init(b, h, (*Block).Close)
	return b
}

// Close releases the block. It is idempotent and always returns nil.
func (b *Block) Close() error {
	if b != nil {
		b.r.close(b, func(h *C.mxc_block) { C.mxc_block_free(h) })
	}
	return nil
}

func (b *Block) handle() (*C.mxc_block, error) {
	if b == nil {
		return nil, newError(CodeInvalidArgument, "block is a nil *Block")
	}
	return b.r.get("Block", "block")
}

// handled are the wrappers whose handle() checks for nil and closed objects.
type handled[T any] interface {
	handle() (*T, error)
}

// withHandle runs the C call f on o's handle and keeps o alive across it.
func withHandle[T any, O handled[T]](o O, f func(h *T) *C.mxc_status) error {
	h, err := o.handle()
	if err != nil {
		return err
	}
	err = statusErr(f(h))
	runtime.KeepAlive(o)
	return err
}

// blockCall runs f on b's handle, keeping b alive across the call.
func blockCall(b *Block, f func(h *C.mxc_block) *C.mxc_status) error {
	return withHandle[C.mxc_block](b, f)
}

// blockResult wraps the +1 block a constructor returned.
func blockResult(h *C.mxc_block, err error) (*Block, error) {
	if err != nil {
		return nil, err
	}
	return newBlock(h), nil
}

// ModelZooNames returns the names ModelZoo accepts, sorted (MXNet's model_zoo.vision names:
// "alexnet", "resnet18_v1", "mobilenetv2_0.25", ...).
func ModelZooNames() ([]string, error) {
	var arr **C.char
	var n C.size_t
	if err := statusErr(C.mxc_model_zoo_list(&arr, &n)); err != nil {
		return nil, err
	}
	return goStrings(arr, n), nil
}

// ModelOptions configure ModelZoo; the zero value means the defaults.
type ModelOptions struct {
	// Classes of the output layer; 0: 1000.
	Classes int64
	// Pretrained loads MXNet's published weights from the model store directory Root ("":
	// $MXNET_HOME/models); nothing is downloaded (a missing file is NOT_FOUND).
	Pretrained bool
	Root       string
	// Device holds pretrained weights; the zero Device: cpu(0).
	Device Device
}

// ModelZoo returns the model-zoo net name (case-insensitive; gluon.model_zoo.vision.get_model).
// Its parameters are uninitialized unless Pretrained: call Initialize (or LoadParameters).
// Image nets take (N, 3, H, W) float32 input (224x224 for most; 299 for inceptionv3) and give
// (N, Classes) logits. Errors: an unknown name (INVALID_ARGUMENT listing the valid ones), the
// model store's (NOT_FOUND).
func ModelZoo(name string, opts *ModelOptions) (*Block, error) {
	if opts == nil {
		opts = &ModelOptions{}
	}
	cn, err := cstr(name, "model name")
	if err != nil {
		return nil, err
	}
	root, err := optStr(opts.Root, "model store root")
	if err != nil {
		return nil, err
	}
	o := C.mxc_model_options{struct_size: C.sizeof_mxc_model_options, classes: C.int64_t(opts.Classes),
		pretrained: boolInt(opts.Pretrained), root: root.ptr(), device: opts.Device.c()}
	var h *C.mxc_block
	return blockResult(h, statusErr(C.mxc_model_zoo_get(cn.ptr(), &o, &h)))
}

// ImportSymbolBlock loads an export (SymbolBlock.imports): the graph symbolFile (F-symbol.json)
// with data inputs inputNames (usually {"data"}) and, when paramFile is not "", its parameters
// (F-0000.params: arg:/aux: keys; MXNet 1.x/2.x files or ours) placed on dev (zero: cpu(0)).
// Errors: missing files (NOT_FOUND), bad JSON, missing or extra parameters (naming them).
func ImportSymbolBlock(symbolFile string, inputNames []string, paramFile string, dev Device) (*Block, error) {
	sf, err := cstr(symbolFile, "symbol file")
	if err != nil {
		return nil, err
	}
	names, err := packStrings(inputNames, "input name")
	if err != nil {
		return nil, err
	}
	pf, err := optStr(paramFile, "parameter file")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_block
	err = statusErr(C.mxgo_symbol_block_imports(sf.ptr(), names.ptr(), C.size_t(names.n), pf.ptr(), dev.c(), &h))
	return blockResult(h, err)
}

// NewSymbolBlock makes a SymbolBlock over the graph outputs (a Group for several outputs) with
// data inputs inputNames (SymbolBlock(outputs, inputs)): every other variable becomes a
// parameter named after it ("conv0_weight"; auxiliary states get GradNull), uninitialized (call
// Initialize; shapes are inferred on the first call). This is how a Go program builds its own
// network. Errors: an input name that is no variable of the graph.
func NewSymbolBlock(outputs *Symbol, inputNames []string) (*Block, error) {
	sh, err := outputs.handle("outputs")
	if err != nil {
		return nil, err
	}
	names, err := packStrings(inputNames, "input name")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_block
	err = statusErr(C.mxgo_symbol_block_create(sh, names.ptr(), C.size_t(names.n), &h))
	runtime.KeepAlive(outputs)
	return blockResult(h, err)
}

// Initialize initializes every parameter not yet initialized (all of them with forceReinit) on
// dev (zero: cpu(0)). init is "" for MXNet's default Uniform(0.07), else an initializer as MXNet
// writes __init__: "xavier", "zeros", `["normal", {"sigma": 0.02}]`, ... Shapes unknown until the
// first call are initialized then. Random draws use ctx's stream (nil: the process-wide one).
// Errors: an unknown initializer. Goroutines: writes the block.
func (b *Block) Initialize(ctx *Ctx, init string, dev Device, forceReinit bool) error {
	in, err := optStr(init, "initializer")
	if err != nil {
		return err
	}
	c, err := ctx.acquire()
	if err != nil {
		return err
	}
	defer ctx.release()
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status {
		return C.mxc_block_initialize(c, h, in.ptr(), dev.c(), boolInt(forceReinit))
	})
}

// Call runs the block on inputs under ctx (nil: not recording, predict mode) and returns its
// outputs, new arrays the caller closes. Under ctx.Record the call is recorded for autograd and
// runs in training mode. Errors: uninitialized parameters (FAILED_PRECONDITION), shape
// mismatches naming the layer, nil or closed inputs. Goroutines: see Block.
func (b *Block) Call(ctx *Ctx, inputs ...*NDArray) ([]*NDArray, error) {
	ins, err := handles(inputs, "inputs")
	if err != nil {
		return nil, err
	}
	c, err := ctx.acquire()
	if err != nil {
		return nil, err
	}
	defer ctx.release()
	for max := 4; ; max *= 16 {
		outs := make([]*C.mxc_ndarray, max)
		var n C.size_t
		err = blockCall(b, func(h *C.mxc_block) *C.mxc_status {
			return C.mxc_block_call(c, h, handlesPtr(ins), C.size_t(len(ins)), &outs[0], C.size_t(max), &n)
		})
		if e, ok := err.(*Error); ok && e.Code == CodeOutOfRange && max < 1<<16 {
			continue
		}
		keepAlive(inputs)
		if err != nil {
			return nil, err
		}
		return wrapOutputs(outs[:n]), nil
	}
}

// Forward is Call for blocks with one output (nets, losses): that output, a new array.
// Errors: Call's; INVALID_ARGUMENT when the block gives several outputs (they are closed).
func (b *Block) Forward(ctx *Ctx, inputs ...*NDArray) (*NDArray, error) {
	outs, err := b.Call(ctx, inputs...)
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		for _, o := range outs {
			o.Close()
		}
		return nil, newError(CodeInvalidArgument, "Forward: the block gave "+itoa(len(outs))+" outputs, not 1 (use Call)")
	}
	return outs[0], nil
}

// HybridizeOptions configure Hybridize (HybridBlock.hybridize); the zero value hybridizes with
// the defaults.
type HybridizeOptions struct {
	// Deactivate turns hybridization off (back to imperative calls).
	Deactivate  bool
	StaticAlloc bool
	StaticShape bool
	// Backend of graph passes: "" (the traced graph as is), "default", "onednn".
	Backend string
}

// Hybridize hybridizes the block recursively (opts nil: the defaults): the next call traces it
// into a graph that later calls run. No effect on non-hybrid blocks. Errors: an unknown backend.
// Goroutines: writes the block.
func (b *Block) Hybridize(opts *HybridizeOptions) error {
	if opts == nil {
		opts = &HybridizeOptions{}
	}
	be, err := optStr(opts.Backend, "backend")
	if err != nil {
		return err
	}
	o := C.mxc_hybridize_options{struct_size: C.sizeof_mxc_hybridize_options, deactivate: boolInt(opts.Deactivate),
		static_alloc: boolInt(opts.StaticAlloc), static_shape: boolInt(opts.StaticShape), backend: be.ptr()}
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_hybridize(h, &o) })
}

// Export writes path-symbol.json and path-EPOCH.params (4 digits) from the last traced graph
// (HybridBlock.export): hybridize and call the block once first. ImportSymbolBlock reads them
// back. Errors: not hybridized or never called (FAILED_PRECONDITION), I/O. Goroutines: reads the
// block (calls may run meanwhile).
func (b *Block) Export(path string, epoch int) error {
	p, err := cstr(path, "path")
	if err != nil {
		return err
	}
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_export(h, p.ptr(), C.int32_t(epoch)) })
}

// ExportSymbolBlock writes what Export writes for a SymbolBlock made by NewSymbolBlock(graph,
// ...) with parameters params (its CollectParams("")): prefix-symbol.json (graph) and
// prefix-EPOCH.params (4 digits) with MXNet's export keys, "arg:NAME" and "aux:NAME" for the
// graph's auxiliary states. ImportSymbolBlock and MXNet's SymbolBlock.imports read them back.
// Block.Export of that SymbolBlock writes the same files (mxc_block_export accepts SymbolBlocks
// without hybridize, as MXNet does). Errors: uninitialized parameters, I/O.
func ExportSymbolBlock(graph *Symbol, params []*Parameter, prefix string, epoch int) error {
	aux, err := graph.ListAuxiliaryStates()
	if err != nil {
		return err
	}
	isAux := map[string]bool{}
	for _, a := range aux {
		isAux[a] = true
	}
	arrays := make([]*NDArray, 0, len(params))
	defer func() {
		for _, a := range arrays {
			a.Close()
		}
	}()
	names := make([]string, 0, len(params))
	for _, p := range params {
		name, err := p.Name()
		if err != nil {
			return err
		}
		a, err := p.Data(Device{})
		if err != nil {
			return err
		}
		arrays = append(arrays, a)
		if isAux[name] {
			names = append(names, "aux:"+name)
		} else {
			names = append(names, "arg:"+name)
		}
	}
	if err := graph.Save(prefix + "-symbol.json"); err != nil {
		return err
	}
	return Save(fmt.Sprintf("%s-%04d.params", prefix, epoch), arrays, names, nil)
}

// SaveParameters writes the parameters by structured name ("features.0.weight") in MXNet's
// format (save_parameters), to a temporary file renamed over path. Errors: uninitialized
// parameters, I/O. Goroutines: reads the block.
func (b *Block) SaveParameters(path string) error {
	p, err := cstr(path, "path")
	if err != nil {
		return err
	}
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_save_parameters(h, p.ptr()) })
}

// LoadParametersOptions configure LoadParameters; the zero value means the defaults.
type LoadParametersOptions struct {
	// Device receives the parameters; zero: cpu(0).
	Device Device
	// AllowMissing: parameters missing from the file keep their values / stay uninitialized.
	AllowMissing bool
	// IgnoreExtra: names in the file the block lacks are ignored.
	IgnoreExtra bool
	// CastDType: loaded values are cast to the parameters' dtypes.
	CastDType bool
}

// LoadParameters loads a save_parameters file (ours, MXNet 1.x or 2.x; arg:/aux: prefixes are
// stripped) into the block (opts nil: the defaults). Errors: a missing file (NOT_FOUND),
// missing/extra names unless allowed (naming them and the file), shape mismatches.
// Goroutines: writes the block.
func (b *Block) LoadParameters(path string, opts *LoadParametersOptions) error {
	if opts == nil {
		opts = &LoadParametersOptions{}
	}
	p, err := cstr(path, "path")
	if err != nil {
		return err
	}
	o := C.mxc_load_parameters_options{struct_size: C.sizeof_mxc_load_parameters_options, device: opts.Device.c(),
		allow_missing: boolInt(opts.AllowMissing), ignore_extra: boolInt(opts.IgnoreExtra), cast_dtype: boolInt(opts.CastDType)}
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_load_parameters(h, p.ptr(), &o) })
}

// CollectParams returns the parameters whose structured names match selectRE, an RE2 regular
// expression matched at the start of the name like Python's re.match ("": all), in
// registration order (Block.collect_params(select)). Close each (CloseParameters). Errors: a bad
// regular expression (INVALID_ARGUMENT). Goroutines: reads the block.
func (b *Block) CollectParams(selectRE string) ([]*Parameter, error) {
	sel, err := optStr(selectRE, "regular expression")
	if err != nil {
		return nil, err
	}
	var arr **C.mxc_parameter
	var n C.size_t
	err = blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_collect_params(h, sel.ptr(), &arr, &n) })
	if err != nil {
		return nil, err
	}
	defer C.mxc_parameter_array_free(arr, n)
	out := make([]*Parameter, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		h := C.mxgo_param_at(arr, i)
		// The array's free releases its handles: keep one reference of our own.
		if err := statusErr(C.mxc_parameter_retain(h)); err != nil {
			CloseParameters(out)
			return nil, err
		}
		out = append(out, newParameter(h))
	}
	return out, nil
}

// ZeroGrad sets every parameter's gradient to zero. Goroutines: writes the block.
func (b *Block) ZeroGrad() error {
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_zero_grad(h) })
}

// String returns the block tree as MXNet prints it, or "Block(<error>)".
func (b *Block) String() string {
	var s *C.char
	if err := blockCall(b, func(h *C.mxc_block) *C.mxc_status { return C.mxc_block_to_string(h, &s) }); err != nil {
		return "Block(" + err.Error() + ")"
	}
	defer C.mxc_string_free(s)
	return C.GoString(s)
}

// Parameter is one parameter of a block (gluon.Parameter, mxc_parameter), under the structured
// name it was collected with. Data and Grad are the parameter's own arrays (writes are seen by
// the block).
//
// Ownership: Close releases it (idempotent); the block's parameter lives on while the block
// does. Goroutines: getters read the parameter (any goroutines at once); setters, SetData,
// Initialize and ZeroGrad write it: no other goroutine may use it or its block meanwhile.
type Parameter struct {
	r ref[C.mxc_parameter]
}

func newParameter(h *C.mxc_parameter) *Parameter {
	p := &Parameter{}
	p.r.init(p, h, (*Parameter).Close)
	return p
}

// Close releases the parameter. It is idempotent and always returns nil.
func (p *Parameter) Close() error {
	if p != nil {
		p.r.close(p, func(h *C.mxc_parameter) { C.mxc_parameter_free(h) })
	}
	return nil
}

// CloseParameters closes every parameter of ps.
func CloseParameters(ps []*Parameter) {
	for _, p := range ps {
		p.Close()
	}
}

func (p *Parameter) handle() (*C.mxc_parameter, error) {
	if p == nil {
		return nil, newError(CodeInvalidArgument, "parameter is a nil *Parameter")
	}
	return p.r.get("Parameter", "parameter")
}

func paramCall(p *Parameter, f func(h *C.mxc_parameter) *C.mxc_status) error {
	return withHandle[C.mxc_parameter](p, f)
}

// Name returns the structured name ("features.0.weight", or the variable name in a
// SymbolBlock).
func (p *Parameter) Name() (string, error) {
	var s *C.char
	if err := paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_name(h, &s) }); err != nil {
		return "", err
	}
	defer C.mxc_string_free(s)
	return C.GoString(s), nil
}

// Shape returns the dims (nil while the rank is unknown; -1 for dims not yet inferred).
func (p *Parameter) Shape() ([]int64, error) {
	dims := make([]int64, 32)
	var ndim C.int32_t
	err := paramCall(p, func(h *C.mxc_parameter) *C.mxc_status {
		return C.mxc_parameter_shape(h, shapePtr(dims), C.size_t(len(dims)), &ndim)
	})
	if err != nil || ndim < 0 {
		return nil, err
	}
	return dims[:ndim], nil
}

// DType returns the element type.
func (p *Parameter) DType() (DType, error) {
	var d C.int32_t
	err := paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_dtype(h, &d) })
	return DType(d), err
}

// paramArray returns the array a getter gives (a new handle to the parameter's own array).
func paramArray(p *Parameter, f func(h *C.mxc_parameter, out **C.mxc_ndarray) *C.mxc_status) (*NDArray, error) {
	var a *C.mxc_ndarray
	if err := paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return f(h, &a) }); err != nil {
		return nil, err
	}
	return newNDArray(a), nil
}

// Data returns the value on dev (zero Device: its first device): the parameter's own array, which
// the caller closes (closing it does not affect the parameter). Errors: not initialized
// (FAILED_PRECONDITION), no copy on dev.
func (p *Parameter) Data(dev Device) (*NDArray, error) {
	return paramArray(p, func(h *C.mxc_parameter, out **C.mxc_ndarray) *C.mxc_status {
		return C.mxc_parameter_data(h, dev.c(), out)
	})
}

// Grad returns the gradient buffer on dev (zero Device: the first), which backward writes.
// Errors: GradNull, not initialized.
func (p *Parameter) Grad(dev Device) (*NDArray, error) {
	return paramArray(p, func(h *C.mxc_parameter, out **C.mxc_ndarray) *C.mxc_status {
		return C.mxc_parameter_grad(h, dev.c(), out)
	})
}

// SetData copies value (the parameter's shape) into the parameter on every device (initializing
// it on cpu(0) when it was not). Errors: a shape mismatch. Goroutines: writes the parameter.
func (p *Parameter) SetData(value *NDArray) error {
	v, err := value.handle("value")
	if err != nil {
		return err
	}
	err = paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_set_data(h, v) })
	runtime.KeepAlive(value)
	return err
}

// Initialize initializes the parameter on dev (init as Block.Initialize; "": its own or
// Uniform(0.07)). Goroutines: writes the parameter.
func (p *Parameter) Initialize(ctx *Ctx, init string, dev Device, forceReinit bool) error {
	in, err := optStr(init, "initializer")
	if err != nil {
		return err
	}
	c, err := ctx.acquire()
	if err != nil {
		return err
	}
	defer ctx.release()
	return paramCall(p, func(h *C.mxc_parameter) *C.mxc_status {
		return C.mxc_parameter_initialize(c, h, in.ptr(), dev.c(), boolInt(forceReinit))
	})
}

// ZeroGrad sets the gradient to zero. Goroutines: writes the parameter.
func (p *Parameter) ZeroGrad() error {
	return paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_zero_grad(h) })
}

// GradReq returns the gradient request (GradNull, GradWrite, GradAdd).
func (p *Parameter) GradReq() (GradReq, error) {
	var r C.int32_t
	err := paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_grad_req(h, &r) })
	return GradReq(r), err
}

// SetGradReq sets the gradient request: GradNull drops the gradient buffers (the Trainer then
// skips the parameter), GradWrite/GradAdd (re)create them. Errors: an unknown value.
// Goroutines: writes the parameter.
func (p *Parameter) SetGradReq(req GradReq) error {
	return paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_set_grad_req(h, C.int32_t(req)) })
}

func (p *Parameter) getDouble(f func(h *C.mxc_parameter, out *C.double) *C.mxc_status) (float64, error) {
	var v C.double
	err := paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return f(h, &v) })
	return float64(v), err
}

// LrMult returns the learning-rate multiplier the Trainer applies (default 1).
func (p *Parameter) LrMult() (float64, error) {
	return p.getDouble(func(h *C.mxc_parameter, out *C.double) *C.mxc_status { return C.mxc_parameter_lr_mult(h, out) })
}

// SetLrMult sets the learning-rate multiplier. Goroutines: writes the parameter.
func (p *Parameter) SetLrMult(v float64) error {
	return paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_set_lr_mult(h, C.double(v)) })
}

// WdMult returns the weight-decay multiplier the Trainer applies (default 1).
func (p *Parameter) WdMult() (float64, error) {
	return p.getDouble(func(h *C.mxc_parameter, out *C.double) *C.mxc_status { return C.mxc_parameter_wd_mult(h, out) })
}

// SetWdMult sets the weight-decay multiplier. Goroutines: writes the parameter.
func (p *Parameter) SetWdMult(v float64) error {
	return paramCall(p, func(h *C.mxc_parameter) *C.mxc_status { return C.mxc_parameter_set_wd_mult(h, C.double(v)) })
}

// paramHandles returns the handles of ps; what names the slice in errors.
func paramHandles(ps []*Parameter, what string) ([]*C.mxc_parameter, error) {
	hs := make([]*C.mxc_parameter, len(ps))
	for i, p := range ps {
		var err error
		if p == nil {
			err = newError(CodeInvalidArgument, what+"["+itoa(i)+"] is a nil *Parameter")
		} else {
			hs[i], err = p.r.get("Parameter", what+"["+itoa(i)+"]")
		}
		if err != nil {
			return nil, err
		}
	}
	return hs, nil
}

func paramsPtr(hs []*C.mxc_parameter) **C.mxc_parameter {
	if len(hs) == 0 {
		return nil
	}
	return (**C.mxc_parameter)(unsafe.Pointer(&hs[0]))
}

// ExportONNX writes the block with its parameters as an ONNX model (mx.onnx.export_model; ABI
// 1.2) at opset 13..17 (0: 13) whose data inputs have inputShapes (NCHW for images; named "data"
// or "data0"...); dim 0 is the symbolic batch unless staticBatch. A block never called is
// hybridized and run once on zeros under ctx (nil: predict mode, cpu(0)). ImportONNX reads it
// back. Errors: INVALID_ARGUMENT naming an operator without an ONNX mapping, a bad opset or
// shape; FAILED_PRECONDITION for uninitialized parameters; I/O. Goroutines: writes the block
// when it must trace it first, else reads it.
func (b *Block) ExportONNX(ctx *Ctx, inputShapes [][]int64, path string, opset int, staticBatch bool) error {
	p, err := cstr(path, "path")
	if err != nil {
		return err
	}
	ndims := make([]C.size_t, len(inputShapes)+1) // +1: a valid pointer for no inputs
	var dims []C.int64_t
	for i, s := range inputShapes {
		ndims[i] = C.size_t(len(s))
		for _, d := range s {
			dims = append(dims, C.int64_t(d))
		}
	}
	dims = append(dims, 0) // a valid pointer for zero dims
	c, err := ctx.acquire()
	if err != nil {
		return err
	}
	defer ctx.release()
	o := C.mxc_onnx_export_options{struct_size: C.sizeof_mxc_onnx_export_options, opset: C.int32_t(opset),
		static_batch: boolInt(staticBatch)}
	return blockCall(b, func(h *C.mxc_block) *C.mxc_status {
		return C.mxc_block_export_onnx(c, h, &ndims[0], &dims[0], C.size_t(len(inputShapes)), p.ptr(), &o)
	})
}

// ImportONNX reads an ONNX model file as a SymbolBlock (mx.onnx.import_model; ABI 1.2): its
// inputs are the model's non-initializer graph inputs (in order), its parameters the
// initializers, on dev. Errors: NOT_FOUND for a missing file; INVALID_ARGUMENT for a corrupt
// model, unknown operators (naming op and node), an opset outside 7..21, external data escaping
// the model's directory.
func ImportONNX(path string, dev Device) (*Block, error) {
	p, err := cstr(path, "path")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_block
	err = statusErr(C.mxc_symbol_block_imports_onnx(p.ptr(), dev.c(), &h))
	return blockResult(h, err)
}

// ImportONNXBytes is ImportONNX from the bytes of a serialized model (copied; models with
// external data are refused).
func ImportONNXBytes(model []byte, dev Device) (*Block, error) {
	var data unsafe.Pointer
	if len(model) > 0 {
		data = unsafe.Pointer(&model[0])
	}
	var h *C.mxc_block
	err := statusErr(C.mxc_symbol_block_imports_onnx_bytes(data, C.size_t(len(model)), dev.c(), &h))
	runtime.KeepAlive(model)
	return blockResult(h, err)
}
