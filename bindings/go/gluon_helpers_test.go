package mxnet_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"mxnet.local/mxnet"
)

// fashionMNIST is Debian's dataset-fashion-mnist directory (MXNET_FASHION_MNIST overrides it).
func fashionMNIST(t *testing.T) string {
	d := os.Getenv("MXNET_FASHION_MNIST")
	if d == "" {
		d = "/usr/share/datasets/fashion-mnist"
	}
	if _, err := os.Stat(filepath.Join(d, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("Fashion-MNIST not found in %s (Debian package dataset-fashion-mnist)", d)
	}
	return d
}

// cppCLI is the C++ `mxnet` tool (MXNET_CLI, else ../../bazel-bin/tools/mxnet/mxnet): the
// independent reference of S3-S5. Without it the comparison subtests skip, naming it.
func cppCLI(t *testing.T) string {
	p := os.Getenv("MXNET_CLI")
	if p == "" {
		p, _ = filepath.Abs("../../bazel-bin/tools/mxnet/mxnet")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the C++ CLI %s is missing (./bazelw build //tools/mxnet:mxnet)", p)
	}
	return p
}

// runCmd runs a program and returns its stdout (the test fails on a non-zero exit).
func runCmd(t *testing.T, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, out)
	}
	return string(out)
}

// sharedFile is a file of ../shared (skips when ../shared is absent).
func sharedFile(t *testing.T, rel string) string {
	d := sharedDir()
	if d == "" {
		t.Skip("../shared not found (set MXNET_SHARED_DIR)")
	}
	return filepath.Join(d, rel)
}

// accuracy is the fraction of rows of logits (N, C) whose argmax equals labels (N,).
func accuracy(t *testing.T, logits *mxnet.NDArray, labels *mxnet.NDArray) (correct, n int) {
	t.Helper()
	shape := must(logits.Shape())
	v := must(logits.Float32s())
	lab := must(mxnet.ToSlice[int32](labels))
	c := int(shape[1])
	for i := range lab {
		best := 0
		for j := 1; j < c; j++ {
			if v[i*c+j] > v[i*c+best] {
				best = j
			}
		}
		if int32(best) == lab[i] {
			correct++
		}
	}
	return correct, len(lab)
}

// closeFields closes a batch or sample.
func closeFields(xs []*mxnet.NDArray) {
	for _, x := range xs {
		x.Close()
	}
}
