package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"

	"mxnet.local/mxnet/internal/attr"
)

// AttrKind is the value kind of an operator attribute (MXC_ATTR_*), which fixes its string form.
type AttrKind int32

// The attribute kinds.
const (
	AttrString     AttrKind = C.MXC_ATTR_STRING
	AttrBool       AttrKind = C.MXC_ATTR_BOOL
	AttrInt        AttrKind = C.MXC_ATTR_INT    // 32-bit
	AttrLong       AttrKind = C.MXC_ATTR_LONG   // 64-bit
	AttrFloat      AttrKind = C.MXC_ATTR_FLOAT  // 32-bit
	AttrDouble     AttrKind = C.MXC_ATTR_DOUBLE // 64-bit
	AttrShape      AttrKind = C.MXC_ATTR_SHAPE  // tuple of ints
	AttrFloatTuple AttrKind = C.MXC_ATTR_FLOAT_TUPLE
	AttrDType      AttrKind = C.MXC_ATTR_DTYPE // a dtype name
)

// OpInfo is an operator's registry metadata (mxc_op_info), enough to generate typed wrappers.
type OpInfo struct {
	Name string // canonical name
	Doc  string // description (may be "")
	// NumInputs is the input count with the default attributes; -1 when it depends on them.
	NumInputs int
	// NumOutputs is the visible output count with the default attributes; -1 when it depends on
	// them (Op.NumIO).
	NumOutputs int
	// InputNames for the default attributes; empty when the defaults do not determine them.
	InputNames []string
	Aliases    []string
	Attrs      []AttrInfo
	// VariadicAttr is the attribute giving the input count of a variadic operator ("num_args"),
	// or "".
	VariadicAttr   string
	Differentiable bool
	// IsCreation marks operators that create arrays from attributes alone (zeros, samplers); they
	// run on the Ctx's default device unless a "ctx" attribute is given.
	IsCreation bool
}

// AttrInfo describes one attribute (mxc_op_attr).
type AttrInfo struct {
	Name     string
	Type     string // the C++ schema's type text: "Shape(tuple)", "optional<int>", ...
	Kind     AttrKind
	Optional bool   // "None" is accepted
	Required bool   // must be given
	Default  string // the default in string form ("" when Required)
	Doc      string
	Choices  []string // allowed values of enum-like attributes (empty: any value of the kind)
}

// Op is a registered operator. Ops live as long as the process (no Close); an Op and its
// metadata may be used from any goroutine.
type Op struct {
	h    *C.mxc_op
	once sync.Once
	info OpInfo
	err  error
}

var opCache sync.Map // name -> *Op (names and aliases as looked up)

// FindOp returns the operator named name (canonical name or alias: "relu", "Convolution",
// "_plus"). Errors: NOT_FOUND "unknown operator 'X'".
func FindOp(name string) (*Op, error) {
	if op, ok := opCache.Load(name); ok {
		return op.(*Op), nil
	}
	cname, err := cString(name, "operator name")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_op
	err = statusErr(C.mxc_op_find(cname, &h))
	C.free(unsafePointer(cname))
	if err != nil {
		return nil, err
	}
	op, _ := opCache.LoadOrStore(name, opFor(h))
	return op.(*Op), nil
}

var opsByHandle sync.Map // *C.mxc_op -> *Op: one Op per operator, whatever name found it

func opFor(h *C.mxc_op) *Op {
	op, _ := opsByHandle.LoadOrStore(h, &Op{h: h})
	return op.(*Op)
}

// Ops returns every registered operator in name order (canonical names; aliases not listed).
func Ops() ([]*Op, error) {
	var n C.size_t
	if err := statusErr(C.mxc_op_count(&n)); err != nil {
		return nil, err
	}
	ops := make([]*Op, int(n))
	for i := range ops {
		var h *C.mxc_op
		if err := statusErr(C.mxc_op_at(C.size_t(i), &h)); err != nil {
			return nil, err
		}
		ops[i] = opFor(h)
	}
	return ops, nil
}

// Info returns the operator's metadata (read once, then cached).
func (op *Op) Info() (OpInfo, error) {
	op.once.Do(op.load)
	return op.info, op.err
}

// Name returns the canonical name ("" if the metadata cannot be read).
func (op *Op) Name() string {
	info, _ := op.Info()
	return info.Name
}

func (op *Op) load() {
	ci := C.mxc_op_info{struct_size: C.sizeof_mxc_op_info}
	if op.err = statusErr(C.mxc_op_get_info(op.h, &ci)); op.err != nil {
		return
	}
	info := OpInfo{
		Name:           C.GoString(ci.name),
		Doc:            C.GoString(ci.doc),
		NumInputs:      int(ci.num_inputs),
		NumOutputs:     int(ci.num_outputs),
		InputNames:     goStringsStatic((**C.char)(unsafePointer(ci.input_names)), ci.num_input_names),
		Aliases:        goStringsStatic((**C.char)(unsafePointer(ci.aliases)), ci.num_aliases),
		Differentiable: ci.differentiable != 0,
		IsCreation:     ci.is_creation != 0,
	}
	if ci.variadic_attr != nil {
		info.VariadicAttr = C.GoString(ci.variadic_attr)
	}
	for i := C.size_t(0); i < ci.num_attrs; i++ {
		ca := C.mxc_op_attr{struct_size: C.sizeof_mxc_op_attr}
		if op.err = statusErr(C.mxc_op_attr_at(op.h, i, &ca)); op.err != nil {
			return
		}
		a := AttrInfo{
			Name:     C.GoString(ca.name),
			Type:     C.GoString(ca._type),
			Kind:     AttrKind(ca.kind),
			Optional: ca.optional != 0,
			Required: ca.required != 0,
			Doc:      C.GoString(ca.doc),
			Choices:  goStringsStatic((**C.char)(unsafePointer(ca.choices)), ca.num_choices),
		}
		if ca.default_value != nil {
			a.Default = C.GoString(ca.default_value)
		}
		info.Attrs = append(info.Attrs, a)
	}
	op.info = info
}

// Attrs are operator attributes by name for the by-name calls (Invoke, Op.NumIO, ...). Values
// are formatted in MXNet's string form: string as is, bool "True"/"False", integers and floats
// in decimal, []int/[]int64/[]float64... as tuples "(3, 3)", DType as its name, Device as
// "cpu(0)", nil as "None".
type Attrs map[string]any

// pack formats attrs as sorted key/value pairs for the C helpers.
func (a Attrs) pack(p *packer) error {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := attr.Any(a[k])
		if err != nil {
			return newError(CodeInvalidArgument, fmt.Sprintf("attribute '%s': %v", k, err))
		}
		if err := p.add(k, "attribute name"); err != nil {
			return err
		}
		if err := p.add(v, "value of attribute '"+k+"'"); err != nil {
			return err
		}
	}
	return nil
}

// Invoke runs the operator named name (or an alias) on inputs with attrs under ctx (nil: the
// defaults) and returns its visible outputs, new arrays the caller closes. This is the by-name
// call; package nd has a typed function per operator.
// Errors: NOT_FOUND for an unknown operator; INVALID_ARGUMENT for bad attributes (naming the
// attribute and value), a wrong input count, shapes or dtypes (naming the operator and input),
// mixed devices, a nil or closed input.
// Goroutines: reads the inputs (writes those the operator mutates, such as optimizer states);
// concurrent calls with distinct Ctxs (or nil) are safe, also on shared inputs.
func Invoke(ctx *Ctx, name string, inputs []*NDArray, attrs Attrs) ([]*NDArray, error) {
	op, err := FindOp(name)
	if err != nil {
		return nil, err
	}
	f := getFrame()
	defer framePool.Put(f)
	p := packer{buf: frameKV(f)}
	if err := attrs.pack(&p); err != nil {
		return nil, err
	}
	return op.invoke(ctx, inputs, &p, f)
}

// Call runs the operator like Invoke, with the attributes as alternating key, value strings in
// MXNet's string form ("kernel", "(3, 3)", "num_filter", "8"). It is what the generated
// wrappers of package nd call. Errors: as Invoke; an odd number of strings.
func (op *Op) Call(ctx *Ctx, inputs []*NDArray, kv ...string) ([]*NDArray, error) {
	if len(kv)%2 != 0 {
		return nil, newError(CodeInvalidArgument, "Op.Call: attributes must be key, value pairs")
	}
	f := getFrame()
	defer framePool.Put(f)
	p := packer{buf: frameKV(f)}
	for i, s := range kv {
		if !p.tryAdd(s) {
			what := "attribute name"
			if i%2 == 1 {
				what = "value of attribute '" + kv[i-1] + "'"
			}
			return nil, p.addError(s, what)
		}
	}
	return op.invoke(ctx, inputs, &p, f)
}

// framePool recycles call frames: a frame is used by one call at a time and holds nothing after
// it (the outputs are wrapped before it goes back), and reusing warm memory beats allocating and
// zeroing 336 bytes per call.
var framePool = sync.Pool{New: func() any { return new(C.mxgo_frame) }}

func getFrame() *C.mxgo_frame { return framePool.Get().(*C.mxgo_frame) }

// frameKV is f's attribute buffer as an empty byte slice of its capacity: a packer appending to it
// writes in place until it outgrows it.
func frameKV(f *C.mxgo_frame) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&f.kv[0])), len(f.kv))[:0]
}

// invoke runs the operator on inputs with the attributes packed in p; f is the frame whose kv
// buffer p started in.
func (op *Op) invoke(ctx *Ctx, inputs []*NDArray, p *packer, f *C.mxgo_frame) ([]*NDArray, error) {
	op.once.Do(op.load)
	if op.err != nil {
		return nil, op.err
	}
	nattrs := C.size_t(p.n / 2)
	maxOut := op.info.NumOutputs
	if maxOut < 0 {
		var nin, nout C.size_t
		if err := statusErr(C.mxgo_num_io(op.h, p.ptr(), nattrs, &nin, &nout)); err != nil {
			return nil, err
		}
		maxOut = int(nout)
	}
	inFrame := len(p.buf) == 0 || unsafe.Pointer(&p.buf[0]) == unsafe.Pointer(&f.kv[0])
	if len(inputs) <= C.MXGO_FRAME_IO && maxOut <= C.MXGO_FRAME_IO && inFrame {
		return op.invokeSmall(ctx, inputs, f, p.n/2, maxOut)
	}
	hs, err := handles(inputs, "inputs")
	if err != nil {
		return nil, err
	}
	outs := make([]*C.mxc_ndarray, maxOut+1) // +1: &outs[0] exists when maxOut is 0
	var n C.size_t
	c, err := ctx.acquire()
	if err != nil {
		return nil, err
	}
	err = statusErr(C.mxgo_invoke(unsafe.Pointer(c), unsafe.Pointer(op.h), handlesPtr(hs), C.size_t(len(hs)),
		p.ptr(), nattrs, &outs[0], C.size_t(maxOut), &n))
	ctx.release()
	keepAlive(inputs)
	if err != nil {
		return nil, err
	}
	return wrapOutputs(outs[:n]), nil
}

// invokeSmall is invoke with every operand in the frame f, whose kv buffer holds the nattrs
// packed attributes (the common case: one pointer for cgo to check).
func (op *Op) invokeSmall(ctx *Ctx, inputs []*NDArray, f *C.mxgo_frame, nattrs, maxOut int) ([]*NDArray, error) {
	for i, x := range inputs {
		var h *C.mxc_ndarray
		if x != nil {
			h = x.h.Load()
		}
		if h == nil {
			_, err := x.handle(fmt.Sprintf("inputs[%d]", i))
			return nil, err
		}
		f.inputs[i] = C.uintptr_t(uintptr(unsafe.Pointer(h)))
	}
	f.num_inputs, f.num_attrs, f.max_outputs = C.size_t(len(inputs)), C.size_t(nattrs), C.size_t(maxOut)
	c, err := ctx.acquire()
	if err != nil {
		return nil, err
	}
	err = statusErr(C.mxgo_invoke_frame(C.uintptr_t(uintptr(unsafe.Pointer(c))), C.uintptr_t(uintptr(unsafe.Pointer(op.h))), f))
	ctx.release()
	keepAlive(inputs)
	if err != nil {
		return nil, err
	}
	res := make([]*NDArray, int(f.num_outputs))
	for i := range res {
		// The slot holds a library handle (never a Go pointer) as an integer.
		res[i] = newNDArray(*(**C.mxc_ndarray)(unsafe.Pointer(&f.outputs[i])))
	}
	return res, nil
}

// wrapOutputs wraps the +1 output handles of a call.
func wrapOutputs(outs []*C.mxc_ndarray) []*NDArray {
	res := make([]*NDArray, len(outs))
	for i, h := range outs {
		res[i] = newNDArray(h)
	}
	return res
}

// NumIO returns the input count and visible output count for attrs. Errors: bad attributes
// (naming the operator and attribute).
func (op *Op) NumIO(attrs Attrs) (numInputs, numOutputs int, err error) {
	p := &packer{}
	if err := attrs.pack(p); err != nil {
		return 0, 0, err
	}
	var nin, nout C.size_t
	err = statusErr(C.mxgo_num_io(op.h, p.ptr(), C.size_t(p.n/2), &nin, &nout))
	return int(nin), int(nout), err
}

// InputNames returns the input names for attrs (Convolution with no_bias true: data, weight).
// Errors: bad or missing required attributes (naming them).
func (op *Op) InputNames(attrs Attrs) ([]string, error) {
	p := &packer{}
	if err := attrs.pack(p); err != nil {
		return nil, err
	}
	var names **C.char
	var n C.size_t
	err := statusErr(C.mxgo_input_names(op.h, p.ptr(), C.size_t(p.n/2), &names, &n))
	if err != nil {
		return nil, err
	}
	return goStrings(names, n), nil
}
