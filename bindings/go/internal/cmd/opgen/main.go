// Command opgen writes package nd's typed operator functions from the loaded libmxc's operator
// metadata: go run ./internal/cmd/opgen -o nd/ops_gen.go (nd's go:generate line runs it).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"mxnet.local/mxnet/internal/opgen"
)

func main() {
	out := flag.String("o", "ops_gen.go", "output file (written to a temporary name, then renamed)")
	flag.Parse()
	src, err := opgen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".opgen-*.go")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	werr := tmp.Chmod(0o644)
	if werr == nil {
		_, werr = tmp.Write(src)
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), *out)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		fmt.Fprintln(os.Stderr, werr)
		os.Exit(1)
	}
}
