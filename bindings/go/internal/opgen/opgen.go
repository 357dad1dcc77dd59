// Package opgen generates package nd's typed operator functions (nd/ops_gen.go) from the C ABI's
// operator metadata (mxnet.Ops: mxc_op_get_info, mxc_op_attr_at, mxc_op_input_names), so the
// output depends only on the loaded libmxc. Run it with `go generate ./nd`.
package opgen

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strings"

	"mxnet.local/mxnet"
)

// Skipped reports whether an operator gets no typed function: the _backward_ operators, which
// MXNet runs inside autograd only (they stay reachable through mxnet.Invoke).
func Skipped(name string) bool { return strings.HasPrefix(name, "_backward_") }

// ExportName is an operator's Go function name: the '_'-separated words capitalized and joined
// ("broadcast_add" -> BroadcastAdd, "_contrib_ROIAlign" -> ContribROIAlign).
func ExportName(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// funcName is the Go function name of operator name: ExportName, except when that is another
// operator's exact name (make_loss next to MakeLoss): then the name with its first letter
// upper-cased and its underscores kept (Make_loss).
func funcName(name string, opNames map[string]bool) string {
	e := ExportName(name)
	if e != name && opNames[e] {
		t := strings.TrimLeft(name, "_")
		return strings.ToUpper(t[:1]) + t[1:]
	}
	return e
}

// reserved are identifiers a parameter must not take: Go keywords, the names the generated bodies
// use, and predeclared names.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case chan const continue default defer else fallthrough
		for func go goto if import interface map package range return select struct switch type var
		ctx opts o kv mxnet attr nd append len cap string bool int int64 float32 float64 nil true
		false copy make new error any`) {
		reserved[w] = true
	}
}

// paramName is a parameter's Go name: lowerCamel of the words, suffixed with "Arg" when reserved
// or already taken.
func paramName(s string, taken map[string]bool) string {
	e := ExportName(s)
	if e == "" {
		e = "X"
	}
	n := strings.ToLower(e[:1]) + e[1:]
	for reserved[n] || taken[n] {
		n += "Arg"
	}
	taken[n] = true
	return n
}

// goType returns the Go type of a parameter of kind k (variadic: the element type after "...")
// and the expression formatting v in MXNet's string form.
func goType(k mxnet.AttrKind, v string, variadic bool) (typ, expr string) {
	dots := "[]"
	if variadic {
		dots = "..."
	}
	switch k {
	case mxnet.AttrBool:
		return "bool", "attr.Bool(" + v + ")"
	case mxnet.AttrInt:
		return "int", "attr.Int(" + v + ")"
	case mxnet.AttrLong:
		return "int64", "attr.Int(" + v + ")"
	case mxnet.AttrFloat:
		return "float32", "attr.Float32(" + v + ")"
	case mxnet.AttrDouble:
		return "float64", "attr.Float64(" + v + ")"
	case mxnet.AttrShape:
		return dots + "int64", "attr.Ints(" + v + ")"
	case mxnet.AttrFloatTuple:
		return dots + "float64", "attr.Floats(" + v + ", 64)"
	case mxnet.AttrDType:
		return "mxnet.DType", v + ".String()"
	}
	return "string", v
}

// sample is a valid-looking value of a required attribute, for probing input names.
func sample(a mxnet.AttrInfo) string {
	switch a.Kind {
	case mxnet.AttrBool:
		return "False"
	case mxnet.AttrInt, mxnet.AttrLong, mxnet.AttrFloat, mxnet.AttrDouble:
		return "1"
	case mxnet.AttrShape:
		return "(1, 1)"
	case mxnet.AttrFloatTuple:
		return "(1.0,)"
	case mxnet.AttrDType:
		return "float32"
	}
	if len(a.Choices) > 0 {
		return a.Choices[0]
	}
	return "x"
}

// probeInputs finds the input names of an operator whose input count depends on its attributes:
// the names with the defaults (and samples for required attributes), and with each boolean
// flipped and each choice of enum-like strings. When every such list is a prefix of the longest,
// that longest list is returned (the wrapper takes those inputs and drops trailing nils) with the
// default count; otherwise nil (the wrapper takes a slice).
func probeInputs(op *mxnet.Op, info mxnet.OpInfo) (names []string, numDefault int) {
	base := mxnet.Attrs{}
	for _, a := range info.Attrs {
		if a.Required {
			base[a.Name] = sample(a)
		}
	}
	def, err := op.InputNames(base)
	if err != nil || len(def) == 0 {
		return nil, 0
	}
	lists := [][]string{def}
	with := func(k, v string) {
		at := mxnet.Attrs{}
		for bk, bv := range base {
			at[bk] = bv
		}
		at[k] = v
		if l, err := op.InputNames(at); err == nil {
			lists = append(lists, l)
		}
	}
	for _, a := range info.Attrs {
		switch {
		case a.Kind == mxnet.AttrString:
			for _, c := range a.Choices {
				with(a.Name, c)
			}
		case a.Required:
		case a.Kind == mxnet.AttrBool:
			if a.Default == "True" || a.Default == "1" || a.Default == "true" {
				with(a.Name, "False")
			} else {
				with(a.Name, "True")
			}
		}
	}
	longest := def
	for _, l := range lists {
		if len(l) > len(longest) {
			longest = l
		}
	}
	for _, l := range lists {
		for i := range l {
			if l[i] != longest[i] {
				return nil, 0
			}
		}
	}
	return longest, len(def)
}

// comment writes text as // lines (one per line of text, blank lines kept).
func comment(b *bytes.Buffer, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			b.WriteString("//\n")
		} else {
			b.WriteString("// " + line + "\n")
		}
	}
}

// sentence makes s end with a period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

type genParam struct {
	name, typ, expr string
	info            mxnet.AttrInfo
}

// Generate returns the source of nd/ops_gen.go for the loaded library's operators.
func Generate() ([]byte, error) {
	ops, err := mxnet.Ops()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`// Code generated by internal/cmd/opgen from libmxc's operator metadata; DO NOT EDIT.
// Regenerate with: go generate ./nd

package nd

import (
	"mxnet.local/mxnet"
	"mxnet.local/mxnet/internal/attr"
)

// Keeps the imports used whatever the registry holds.
var _ = attr.Bool
var _ mxnet.DType

`)
	globals := map[string]string{} // Go identifier -> what declared it
	declare := func(id, what string) error {
		if prev, ok := globals[id]; ok {
			return fmt.Errorf("opgen: %s and %s both map to the Go name %s", prev, what, id)
		}
		globals[id] = what
		return nil
	}
	for _, id := range handWritten {
		globals[id] = "nd's hand-written code"
	}
	opNames := map[string]bool{}
	for _, op := range ops {
		opNames[op.Name()] = true
	}
	n := 0
	for _, op := range ops {
		info, err := op.Info()
		if err != nil {
			return nil, err
		}
		if Skipped(info.Name) {
			continue
		}
		if err := genOp(&b, op, info, funcName(info.Name, opNames), declare); err != nil {
			return nil, err
		}
		n++
	}
	fmt.Fprintf(&b, "// numGenerated is the number of operators with a typed function here.\nconst numGenerated = %d\n", n)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("opgen: formatting the generated code: %w", err)
	}
	return src, nil
}

// handWritten are the identifiers nd declares itself (nd.go).
var handWritten = []string{"pair", "lazyOp", "call", "call1", "trim", "numGenerated"}

func genOp(b *bytes.Buffer, op *mxnet.Op, info mxnet.OpInfo, fn string, declare func(id, what string) error) error {
	what := "operator " + info.Name
	if err := declare(fn, what); err != nil {
		return err
	}
	opVar := "op" + fn
	if err := declare(opVar, what); err != nil {
		return err
	}
	taken := map[string]bool{}

	// Inputs.
	var inputNames []string // named *mxnet.NDArray parameters, or nil for a slice parameter
	var sliceParam string   // the slice parameter's name
	numDefault := 0
	trimmed := false
	switch {
	case info.VariadicAttr != "":
		sliceParam = paramName("args", taken)
	case info.NumInputs >= 0 && len(info.InputNames) == info.NumInputs:
		inputNames = info.InputNames
		numDefault = len(inputNames)
	case info.NumInputs >= 0:
		for i := 0; i < info.NumInputs; i++ {
			inputNames = append(inputNames, fmt.Sprintf("in%d", i))
		}
		numDefault = len(inputNames)
	default:
		inputNames, numDefault = probeInputs(op, info)
		trimmed = inputNames != nil
		if inputNames == nil {
			sliceParam = paramName("inputs", taken)
		}
	}
	var inputParams []string
	for _, in := range inputNames {
		inputParams = append(inputParams, paramName(in, taken))
	}

	// Attributes: required ones positional, the others options.
	var req, opt []genParam
	for _, a := range info.Attrs {
		if a.Name == info.VariadicAttr {
			continue
		}
		if a.Required {
			p := genParam{name: paramName(a.Name, taken), info: a}
			p.typ, p.expr = goType(a.Kind, p.name, false)
			req = append(req, p)
		} else {
			opt = append(opt, genParam{info: a})
		}
	}
	optType := fn + "Opt"
	if len(opt) > 0 {
		if err := declare(optType, what); err != nil {
			return err
		}
	}

	// Doc comment.
	single := info.NumOutputs == 1
	head := fn + " runs the operator " + info.Name
	if len(info.Aliases) > 0 {
		head += " (aliases: " + strings.Join(info.Aliases, ", ") + ")"
	}
	if info.Doc != "" {
		head += ": " + info.Doc
	} else {
		head += "."
	}
	comment(b, head)
	b.WriteString("//\n")
	switch {
	case sliceParam != "" && info.VariadicAttr != "":
		fmt.Fprintf(b, "// Inputs: %s, any number (sets %s).\n", sliceParam, info.VariadicAttr)
	case sliceParam != "":
		b.WriteString("// Inputs: " + sliceParam + "; their number and names depend on the attributes (mxnet.Op.InputNames).\n")
	case len(inputNames) == 0:
		b.WriteString("// Inputs: none.\n")
	default:
		fmt.Fprintf(b, "// Inputs: %s", strings.Join(inputNames, ", "))
		if trimmed {
			if numDefault < len(inputNames) {
				fmt.Fprintf(b, " (the default attributes use the first %d)", numDefault)
			}
			b.WriteString("; trailing inputs the attributes do not use may be nil")
		}
		b.WriteString(".\n")
	}
	for _, p := range req {
		line := fmt.Sprintf("%s (%s", p.info.Name, p.info.Type)
		if len(p.info.Choices) > 0 {
			line += "; one of " + strings.Join(p.info.Choices, ", ")
		}
		line += "): " + sentence(p.info.Doc)
		comment(b, "Attribute "+line)
	}
	if len(opt) > 0 {
		fmt.Fprintf(b, "// Options: the %s* functions.\n", fn)
	}
	if single {
		b.WriteString("// Returns the output, a new array the caller closes.\n")
	} else {
		b.WriteString("// Returns the visible outputs, new arrays the caller closes.\n")
	}
	b.WriteString("// Errors: *mxnet.Error from the C ABI: bad attributes, wrong input count, shapes or dtypes, a nil or closed input.\n")

	// Signature.
	var params []string
	params = append(params, "ctx *mxnet.Ctx")
	if sliceParam != "" {
		params = append(params, sliceParam+" []*mxnet.NDArray")
	}
	for _, p := range inputParams {
		params = append(params, p+" *mxnet.NDArray")
	}
	for _, p := range req {
		params = append(params, p.name+" "+p.typ)
	}
	if len(opt) > 0 {
		params = append(params, "opts ..."+optType)
	}
	ret := "[]*mxnet.NDArray"
	if single {
		ret = "*mxnet.NDArray"
	}
	fmt.Fprintf(b, "func %s(%s) (%s, error) {\n", fn, strings.Join(params, ", "), ret)

	// Body.
	nfixed := len(req)
	if info.VariadicAttr != "" {
		nfixed++
	}
	switch {
	case nfixed == 0 && len(opt) == 0:
		b.WriteString("\tvar kv []string\n")
	case len(opt) == 0:
		fmt.Fprintf(b, "\tkv := make([]string, 0, %d)\n", 2*nfixed)
	default:
		fmt.Fprintf(b, "\tkv := make([]string, 0, %d+2*len(opts))\n", 2*nfixed)
	}
	if info.VariadicAttr != "" {
		fmt.Fprintf(b, "\tkv = append(kv, %q, attr.Int(len(%s)))\n", info.VariadicAttr, sliceParam)
	}
	for _, p := range req {
		fmt.Fprintf(b, "\tkv = append(kv, %q, %s)\n", p.info.Name, p.expr)
	}
	if len(opt) > 0 {
		b.WriteString("\tfor _, o := range opts {\n\t\tkv = append(kv, o.k, o.v)\n\t}\n")
	}
	var inputs string
	switch {
	case sliceParam != "":
		inputs = sliceParam
	case len(inputParams) == 0:
		inputs = "nil"
	case trimmed:
		inputs = "trim(" + strings.Join(inputParams, ", ") + ")"
	default:
		inputs = "[]*mxnet.NDArray{" + strings.Join(inputParams, ", ") + "}"
	}
	call := "call"
	if single {
		call = "call1"
	}
	fmt.Fprintf(b, "\treturn %s(ctx, &%s, %s, kv)\n}\n\n", call, opVar, inputs)
	fmt.Fprintf(b, "var %s = lazyOp{name: %q}\n\n", opVar, info.Name)

	// Options.
	if len(opt) == 0 {
		return nil
	}
	fmt.Fprintf(b, "// %s is an optional attribute of %s.\ntype %s struct{ pair }\n\n", optType, fn, optType)
	for _, p := range opt {
		a := p.info
		name := fn + ExportName(a.Name)
		if err := declare(name, what+" option "+a.Name); err != nil {
			return err
		}
		typ, expr := goType(a.Kind, "v", true)
		line := fmt.Sprintf("%s sets %s's attribute %s (%s", name, info.Name, a.Name, a.Type)
		if len(a.Choices) > 0 {
			line += "; one of " + strings.Join(a.Choices, ", ")
		}
		line += fmt.Sprintf("; default %s): %s", a.Default, sentence(a.Doc))
		comment(b, line)
		fmt.Fprintf(b, "func %s(v %s) %s { return %s{pair{%q, %s}} }\n\n", name, typ, optType, optType, a.Name, expr)
	}
	return nil
}

// Names returns the operators that get a typed function, sorted (for tests).
func Names() ([]string, error) {
	ops, err := mxnet.Ops()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, op := range ops {
		if n := op.Name(); !Skipped(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}
