package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
	"unsafe"
)

// Symbol is a symbolic graph (mxnet.symbol, mxc_symbol) in MXNet's JSON form (-symbol.json),
// with its argument / output / auxiliary-state lists, shape and type inference and composition.
// A Symbol is immutable: composing or grouping makes a new one.
//
// Ownership: Close releases it (idempotent; a finalizer is only a safety net).
// Goroutines: a Symbol may be used by several goroutines at once; Close may run on any goroutine.
type Symbol struct {
	h atomic.Pointer[C.mxc_symbol]
}

func newSymbol(h *C.mxc_symbol) *Symbol {
	s := &Symbol{}
	s.h.Store(h)
	runtime.SetFinalizer(s, (*Symbol).Close)
	return s
}

// Close releases the symbol. It is idempotent and always returns nil.
func (s *Symbol) Close() error {
	if s == nil {
		return nil
	}
	if h := s.h.Swap(nil); h != nil {
		runtime.SetFinalizer(s, nil)
		C.mxc_symbol_free(h)
	}
	return nil
}

func (s *Symbol) handle(what string) (*C.mxc_symbol, error) {
	if s == nil {
		return nil, newError(CodeInvalidArgument, what+" is a nil *Symbol")
	}
	h := s.h.Load()
	if h == nil {
		return nil, closedError(what + " (Symbol)")
	}
	return h, nil
}

// symGet runs f on s's handle and returns what it wrote (a closed symbol is an error).
func symGet[T any](s *Symbol, f func(h *C.mxc_symbol, out *T) *C.mxc_status) (T, error) {
	var v T
	h, err := s.handle("symbol")
	if err != nil {
		return v, err
	}
	err = statusErr(f(h, &v))
	runtime.KeepAlive(s)
	return v, err
}

// symString returns the string a call on s returns (freed with mxc_string_free).
func symString(s *Symbol, f func(h *C.mxc_symbol, out **C.char) *C.mxc_status) (string, error) {
	cs, err := symGet(s, f)
	if err != nil {
		return "", err
	}
	defer C.mxc_string_free(cs)
	return C.GoString(cs), nil
}

// symDerive returns the symbol a call on s makes.
func symDerive(s *Symbol, f func(h *C.mxc_symbol, out **C.mxc_symbol) *C.mxc_status) (*Symbol, error) {
	out, err := symGet(s, f)
	return symbolResult(out, err)
}

func symbolHandles(ss []*Symbol, what string) ([]*C.mxc_symbol, error) {
	hs := make([]*C.mxc_symbol, len(ss))
	for i, s := range ss {
		var h *C.mxc_symbol
		if s != nil {
			h = s.h.Load()
		}
		if h == nil {
			_, err := s.handle(fmt.Sprintf("%s[%d]", what, i))
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

func symbolsPtr(hs []*C.mxc_symbol) **C.mxc_symbol {
	if len(hs) == 0 {
		return nil
	}
	return &hs[0]
}

func keepAliveSymbols(ss []*Symbol) {
	for _, s := range ss {
		runtime.KeepAlive(s)
	}
}

// symbolResult wraps the output of a call returning a symbol.
func symbolResult(h *C.mxc_symbol, err error) (*Symbol, error) {
	if err != nil {
		return nil, err
	}
	return newSymbol(h), nil
}

// SymbolFromJSON parses MXNet symbol JSON (any version MXNet wrote, legacy ones included).
// Errors: INVALID_ARGUMENT / DATA_LOSS naming the node and field.
func SymbolFromJSON(json string) (*Symbol, error) {
	cj, err := cString(json, "JSON")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cj))
	var h *C.mxc_symbol
	return symbolResult(h, statusErr(C.mxc_symbol_from_json(cj, &h)))
}

// LoadSymbol loads a -symbol.json file. Errors: NOT_FOUND, as SymbolFromJSON.
func LoadSymbol(path string) (*Symbol, error) {
	cp, err := cString(path, "path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cp))
	var h *C.mxc_symbol
	return symbolResult(h, statusErr(C.mxc_symbol_load(cp, &h)))
}

// JSON returns the JSON MXNet 1.9 loads.
func (s *Symbol) JSON() (string, error) {
	return symString(s, func(h *C.mxc_symbol, out **C.char) *C.mxc_status { return C.mxc_symbol_to_json(h, out) })
}

// Save writes the JSON to path (a temporary file, then a rename).
func (s *Symbol) Save(path string) error {
	h, err := s.handle("symbol")
	if err != nil {
		return err
	}
	cp, err := cString(path, "path")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cp))
	err = statusErr(C.mxc_symbol_save(h, cp))
	runtime.KeepAlive(s)
	return err
}

// Variable returns a variable (mx.sym.var).
func Variable(name string) (*Symbol, error) {
	cn, err := cString(name, "name")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cn))
	var h *C.mxc_symbol
	return symbolResult(h, statusErr(C.mxc_symbol_variable(cn, &h)))
}

// CreateSymbol applies the operator named opName to inputs with attrs (as Invoke); missing
// trailing inputs (weight, bias) become variables "<name>_<input>". name "" gives an automatic
// name ("convolution0"). Errors: an unknown operator (NOT_FOUND), bad attributes, too many inputs.
func CreateSymbol(opName string, inputs []*Symbol, attrs Attrs, name string) (*Symbol, error) {
	op, err := FindOp(opName)
	if err != nil {
		return nil, err
	}
	hs, err := symbolHandles(inputs, "inputs")
	if err != nil {
		return nil, err
	}
	p := &packer{}
	if err := attrs.pack(p); err != nil {
		return nil, err
	}
	cn, err := cString(name, "name")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cn))
	var h *C.mxc_symbol
	err = statusErr(C.mxgo_symbol_create(op.h, symbolsPtr(hs), C.size_t(len(hs)), p.ptr(), C.size_t(p.n/2), cn, &h))
	keepAliveSymbols(inputs)
	return symbolResult(h, err)
}

// Group groups the outputs of several symbols into one (mx.sym.Group).
func Group(symbols ...*Symbol) (*Symbol, error) {
	hs, err := symbolHandles(symbols, "symbols")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_symbol
	err = statusErr(C.mxc_symbol_group(symbolsPtr(hs), C.size_t(len(hs)), &h))
	keepAliveSymbols(symbols)
	return symbolResult(h, err)
}

// Output returns output index as its own symbol. Errors: index out of range.
func (s *Symbol) Output(index int) (*Symbol, error) {
	if index < 0 {
		return nil, newError(CodeOutOfRange, fmt.Sprintf("Output: negative index %d", index))
	}
	return symDerive(s, func(h *C.mxc_symbol, out **C.mxc_symbol) *C.mxc_status {
		return C.mxc_symbol_output(h, C.size_t(index), out)
	})
}

// Internals returns every node output of the graph (mx.sym.get_internals).
func (s *Symbol) Internals() (*Symbol, error) {
	return symDerive(s, func(h *C.mxc_symbol, out **C.mxc_symbol) *C.mxc_status { return C.mxc_symbol_get_internals(h, out) })
}

// Compose returns a new graph with the variables named by subs's keys replaced by its values
// (mx.sym compose / __call__). Errors: a name that is no variable of the graph.
func (s *Symbol) Compose(subs map[string]*Symbol) (*Symbol, error) {
	h, err := s.handle("symbol")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	p := &packer{}
	vals := make([]*Symbol, len(names))
	for i, n := range names {
		if err := p.add(n, "variable name"); err != nil {
			return nil, err
		}
		vals[i] = subs[n]
	}
	hs, err := symbolHandles(vals, "substitutes")
	if err != nil {
		return nil, err
	}
	var out *C.mxc_symbol
	err = statusErr(C.mxgo_symbol_compose(h, p.ptr(), symbolsPtr(hs), C.size_t(len(hs)), &out))
	runtime.KeepAlive(s)
	keepAliveSymbols(vals)
	return symbolResult(out, err)
}

// Name returns the head node's name ("" for a group).
func (s *Symbol) Name() (string, error) {
	return symString(s, func(h *C.mxc_symbol, out **C.char) *C.mxc_status { return C.mxc_symbol_name(h, out) })
}

type listFn func(*C.mxc_symbol, ***C.char, *C.size_t) *C.mxc_status

func (s *Symbol) list(f listFn) ([]string, error) {
	h, err := s.handle("symbol")
	if err != nil {
		return nil, err
	}
	var names **C.char
	var n C.size_t
	err = statusErr(f(h, &names, &n))
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	return goStrings(names, n), nil
}

// ListArguments returns the arguments (variables that are not auxiliary states) in MXNet's DFS
// order.
func (s *Symbol) ListArguments() ([]string, error) {
	return s.list(func(h *C.mxc_symbol, n ***C.char, c *C.size_t) *C.mxc_status {
		return C.mxc_symbol_list_arguments(h, n, c)
	})
}

// ListOutputs returns the outputs ("<node>_output", ...).
func (s *Symbol) ListOutputs() ([]string, error) {
	return s.list(func(h *C.mxc_symbol, n ***C.char, c *C.size_t) *C.mxc_status {
		return C.mxc_symbol_list_outputs(h, n, c)
	})
}

// ListAuxiliaryStates returns the auxiliary states (inputs operators mutate: BatchNorm's
// moving_mean / moving_var).
func (s *Symbol) ListAuxiliaryStates() ([]string, error) {
	return s.list(func(h *C.mxc_symbol, n ***C.char, c *C.size_t) *C.mxc_status {
		return C.mxc_symbol_list_auxiliary_states(h, n, c)
	})
}

// ListInputs returns all inputs (arguments and auxiliary states) in DFS order.
func (s *Symbol) ListInputs() ([]string, error) {
	return s.list(func(h *C.mxc_symbol, n ***C.char, c *C.size_t) *C.mxc_status {
		return C.mxc_symbol_list_inputs(h, n, c)
	})
}

// ShapeInference is the result of InferShape, in the order of ListArguments, ListOutputs and
// ListAuxiliaryStates. An unknown shape is nil, an unknown dim -1 (partial inference only).
type ShapeInference struct {
	Arguments, Outputs, AuxStates [][]int64
}

// TypeInference is the result of InferType, in the same orders; unknown dtypes are DTypeUnknown.
type TypeInference struct {
	Arguments, Outputs, AuxStates []DType
}

var inferLists = [3]C.int32_t{C.MXC_INFER_ARGUMENTS, C.MXC_INFER_OUTPUTS, C.MXC_INFER_AUX_STATES}

// packNames returns known's names sorted, packed for the C helpers (a valid pointer even when
// there are none).
func packNames[V any](known map[string]V) ([]string, *packer, error) {
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	p := &packer{}
	for _, n := range names {
		if err := p.add(n, "input name"); err != nil {
			return nil, nil, err
		}
	}
	if p.n == 0 {
		p.buf = []byte{0}
	}
	return names, p, nil
}

// infer runs an inference call on s and read(list, which, count) for each of its three lists.
func (s *Symbol) infer(call func(h *C.mxc_symbol, out **C.mxc_infer_result) *C.mxc_status,
	read func(r *C.mxc_infer_result, list int, which C.int32_t, count int) error) error {
	r, err := symGet(s, call)
	if err != nil {
		return err
	}
	defer C.mxc_infer_result_free(r)
	for l, which := range inferLists {
		var n C.size_t
		if err := statusErr(C.mxc_infer_result_count(r, which, &n)); err != nil {
			return err
		}
		if err := read(r, l, which, int(n)); err != nil {
			return err
		}
	}
	return nil
}

// InferShape infers every shape from the shapes of some inputs (known: name -> dims). With
// partial false every shape must come out known (else INVALID_ARGUMENT naming the nodes); with
// partial true unknown shapes are reported as nil / -1. Errors: an unknown name, contradicting
// shapes (naming the node).
func (s *Symbol) InferShape(known map[string][]int64, partial bool) (*ShapeInference, error) {
	names, p, err := packNames(known)
	if err != nil {
		return nil, err
	}
	ndims := make([]C.size_t, len(names)+1) // +1: a valid pointer when there are none
	var dims []int64
	for i, n := range names {
		ndims[i] = C.size_t(len(known[n]))
		dims = append(dims, known[n]...)
	}
	var out [3][][]int64
	err = s.infer(func(h *C.mxc_symbol, r **C.mxc_infer_result) *C.mxc_status {
		return C.mxgo_symbol_infer_shape(h, p.ptr(), &ndims[0], shapePtr(dims), C.size_t(len(names)), boolInt(partial), r)
	}, func(r *C.mxc_infer_result, l int, which C.int32_t, count int) error {
		out[l] = make([][]int64, count)
		for i := range out[l] {
			var d *C.int64_t
			var nd C.int32_t
			if err := statusErr(C.mxc_infer_result_shape(r, which, C.size_t(i), &d, &nd)); err != nil {
				return err
			}
			if nd >= 0 {
				out[l][i] = make([]int64, int(nd))
				if nd > 0 {
					copy(out[l][i], unsafe.Slice((*int64)(unsafe.Pointer(d)), int(nd)))
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &ShapeInference{Arguments: out[0], Outputs: out[1], AuxStates: out[2]}, nil
}

// InferType infers every dtype from the dtypes of some inputs (known: name -> dtype); unknown
// dtypes are DTypeUnknown. Errors: an unknown name, contradicting dtypes.
func (s *Symbol) InferType(known map[string]DType) (*TypeInference, error) {
	names, p, err := packNames(known)
	if err != nil {
		return nil, err
	}
	dts := make([]C.int32_t, len(names)+1)
	for i, n := range names {
		dts[i] = C.int32_t(known[n])
	}
	var out [3][]DType
	err = s.infer(func(h *C.mxc_symbol, r **C.mxc_infer_result) *C.mxc_status {
		return C.mxgo_symbol_infer_type(h, p.ptr(), &dts[0], C.size_t(len(names)), r)
	}, func(r *C.mxc_infer_result, l int, which C.int32_t, count int) error {
		out[l] = make([]DType, count)
		for i := range out[l] {
			var d C.int32_t
			if err := statusErr(C.mxc_infer_result_dtype(r, which, C.size_t(i), &d)); err != nil {
				return err
			}
			out[l][i] = DType(d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &TypeInference{Arguments: out[0], Outputs: out[1], AuxStates: out[2]}, nil
}
