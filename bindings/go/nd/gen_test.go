package nd

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"mxnet.local/mxnet/internal/opgen"
)

// Regenerating from the loaded libmxc gives the checked-in file byte for byte; otherwise run
// `go generate ./nd` and commit the result.
func TestGeneratedFileIsUpToDate(t *testing.T) {
	want, err := opgen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("ops_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("ops_gen.go is stale (run go generate ./nd); first difference at line %d:\n have: %s\n want: %s", i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("ops_gen.go is stale (run go generate ./nd): %d lines, regenerated %d", len(gl), len(wl))
}

// Every operator but the _backward_ ones has a function.
func TestEveryOperatorHasAFunction(t *testing.T) {
	names, err := opgen.Names()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != numGenerated {
		t.Fatalf("%d operators to wrap, %d functions generated", len(names), numGenerated)
	}
	if numGenerated < 500 {
		t.Fatalf("only %d functions", numGenerated)
	}
}

func TestTrim(t *testing.T) {
	if got := trim(); len(got) != 0 {
		t.Fatal(got)
	}
	if got := trim(nil, nil); len(got) != 0 {
		t.Fatal(got)
	}
}
