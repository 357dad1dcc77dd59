// Package cli holds what the binding's commands (cmd/classify, cmd/train) share with the C++
// `mxnet` tool's conventions: flags that may be interleaved with plain arguments, the one-line
// error ("NAME: error: MSG", exit code 1), devices written as "cpu", "cpu(0)", "gpu(1)" and
// comma-separated numbers.
package cli

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"mxnet.local/mxnet"
)

// Parse parses args with fs, allowing flags after plain arguments (as Abseil does:
// `--image a.jpg b.jpg --topk 1`); "--" ends the flags. It returns the plain arguments in order
// and the names of the flags given.
func Parse(fs *flag.FlagSet, args []string) ([]string, map[string]bool, error) {
	var plain []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			plain = append(plain, rest...)
			break
		}
		plain = append(plain, rest[0])
		args = rest[1:]
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return plain, given, nil
}

// Fail prints "name: error: err" (on one line) to stderr and exits with code 1.
func Fail(name string, err error) {
	msg := strings.NewReplacer("\n", " ", "\t", " ").Replace(err.Error())
	fmt.Fprintf(os.Stderr, "%s: error: %s\n", name, msg)
	os.Exit(1)
}

var deviceRE = regexp.MustCompile(`^(cpu|gpu)(?:\((\d+)\))?$`)

// ParseDevice reads "cpu", "cpu(0)", "gpu", "gpu(1)".
func ParseDevice(s string) (mxnet.Device, error) {
	m := deviceRE.FindStringSubmatch(s)
	if m == nil {
		return mxnet.Device{}, fmt.Errorf("--device must be cpu, cpu(N), gpu or gpu(N), got '%s'", s)
	}
	id := 0
	if m[2] != "" {
		id, _ = strconv.Atoi(m[2])
	}
	if m[1] == "gpu" {
		return mxnet.GPU(id), nil
	}
	return mxnet.Device{Type: mxnet.DeviceCPU, ID: int32(id)}, nil
}

// ParseFloats reads comma-separated numbers ("0.485,0.456,0.406") of flag name.
func ParseFloats(name, text string) ([]float32, error) {
	var out []float32
	for _, f := range strings.Split(text, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("--%s must be comma-separated numbers, got '%s'", name, text)
		}
		out = append(out, float32(v))
	}
	return out, nil
}
