package mxnet_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"mxnet.local/mxnet"
)

var (
	builtMu sync.Mutex
	built   = map[string]string{}
)

// buildCmd builds ./cmd/NAME once per test binary (go build) and returns the program.
func buildCmd(t *testing.T, name string) string {
	builtMu.Lock()
	defer builtMu.Unlock()
	if bin, found := built[name]; found {
		return bin
	}
	dir, err := os.MkdirTemp("", "mxgo-"+name)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "./cmd/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/%s: %v\n%s", name, err, out)
	}
	built[name] = bin
	return bin
}

func classifyCmd(t *testing.T) string { return buildCmd(t, "classify") }

// cifarArgs are README's classify flags for the GluonCV CIFAR-10 ResNet-20 export in ../shared.
func cifarArgs(t *testing.T, labels string, images ...string) []string {
	m := sharedFile(t, "data/models/cifar_resnet20_v1")
	args := []string{"--symbol", m + "-symbol.json", "--params", m + "-0000.params", "--input-size", "32",
		"--mean", "0.4914,0.4822,0.4465", "--std", "0.2023,0.1994,0.2010", "--labels", labels, "--image"}
	return append(args, images...)
}

// S3: SymbolBlock imports of the real cifar_resnet20_v1 export classify the real photos as cat
// (0.9620) and dog (0.9934) through cmd/classify, whose output equals the C++ CLI's; its logits on
// the CLI's test input equal real MXNet 1.9.1's (1e-4) and the C++ CLI's predict (1e-5); the
// model-zoo resnet18_v1 builds, hybridizes, exports, and with the C++ CLI's parameters file gives
// the C++ library's outputs.
func TestS3InferenceOnRealFiles(t *testing.T) {
	begin(t)
	labels := filepath.Join(t.TempDir(), "cifar_labels.txt")
	ok(os.WriteFile(labels, []byte("airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n"), 0o644))
	cat, dog := sharedFile(t, "data/images/cat.jpg"), sharedFile(t, "data/images/dog.jpg")
	args := cifarArgs(t, labels, cat, dog)

	t.Run("classify the photos", func(t *testing.T) {
		out := runCmd(t, classifyCmd(t), append(args, "--topk", "2")...)
		for _, want := range []string{
			cat + ":\n  1. cat                            0.9620\n",
			dog + ":\n  1. dog                            0.9934\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("classify printed\n%s\nwant it to contain\n%s", out, want)
			}
		}
	})
	t.Run("classify equals the C++ CLI", func(t *testing.T) {
		cli := cppCLI(t)
		got := runCmd(t, classifyCmd(t), args...)
		want := runCmd(t, cli, append([]string{"classify"}, args...)...)
		if got != want {
			t.Fatalf("Go classify printed\n%s\nthe C++ CLI\n%s", got, want)
		}
	})

	m := sharedFile(t, "data/models/cifar_resnet20_v1")
	net := must(mxnet.ImportSymbolBlock(m+"-symbol.json", []string{"data"}, m+"-0000.params", mxnet.CPU))
	defer net.Close()
	input := "../../gluon/nn/testdata/cifar_input.nd"
	xs, _ := must2(mxnet.Load(input, nil))
	defer closeFields(xs)
	logits := must(net.Forward(nil, xs[0]))
	defer logits.Close()
	got := must(logits.Float32s())
	t.Run("logits equal real MXNet's", func(t *testing.T) {
		want, _ := must2(mxnet.Load("../../gluon/nn/testdata/cifar_logits.nd", nil))
		defer closeFields(want)
		near(t, got, must(want[0].Float32s()), 1e-4)
	})
	t.Run("logits equal the C++ CLI's predict", func(t *testing.T) {
		cli := cppCLI(t)
		outPath := filepath.Join(t.TempDir(), "y.nd")
		runCmd(t, cli, "predict", "--symbol", m+"-symbol.json", "--params", m+"-0000.params", "--input", input, "--output", outPath)
		want, _ := must2(mxnet.Load(outPath, nil))
		defer closeFields(want)
		near(t, got, must(want[0].Float32s()), 1e-5)
	})

	t.Run("ONNX round trip", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "resnet20.onnx")
		ok(net.ExportONNX(nil, [][]int64{{1, 3, 32, 32}}, path, 17, false))
		fromFile := must(mxnet.ImportONNX(path, mxnet.CPU))
		defer fromFile.Close()
		model := must(os.ReadFile(path))
		fromBytes := must(mxnet.ImportONNXBytes(model, mxnet.CPU))
		defer fromBytes.Close()
		for _, b := range []*mxnet.Block{fromFile, fromBytes} {
			y := must(b.Forward(nil, xs[0]))
			near(t, must(y.Float32s()), got, 1e-4)
			y.Close()
		}
		if _, err := mxnet.ImportONNXBytes(model[:len(model)/2], mxnet.CPU); err == nil || !strings.Contains(err.Error(), "ONNX") {
			t.Errorf("truncated model: got %v, want an error naming ONNX", err)
		}
		if err := net.ExportONNX(nil, [][]int64{{1, 3, 32, 32}}, path+".x", 12, false); err == nil || !strings.Contains(err.Error(), "opset") {
			t.Errorf("opset 12: got %v, want an error naming the opset", err)
		}
	})

	t.Run("model zoo resnet18_v1", func(t *testing.T) { modelZooResNet18(t, cat) })
}

func modelZooResNet18(t *testing.T, image string) {
	ctx := must(mxnet.NewCtx(&mxnet.CtxOptions{Seeded: true, Seed: 7}))
	defer ctx.Close()
	net := must(mxnet.ModelZoo("ResNet18_v1", nil))
	defer net.Close()
	ok(net.Initialize(ctx, "xavier", mxnet.CPU, false))
	x := must(mxnet.Invoke(ctx, "_random_uniform", nil, mxnet.Attrs{"shape": []int{1, 3, 224, 224}}))[0]
	defer x.Close()
	imperative := values(t, must(net.Forward(ctx, x)))
	if len(imperative) != 1000 {
		t.Fatalf("resnet18_v1 gave %d outputs, want 1000", len(imperative))
	}
	ok(net.Hybridize(nil))
	hybrid := values(t, must(net.Forward(ctx, x)))
	near(t, hybrid, imperative, 1e-5)
	// Export needs the traced graph: the block really is hybridized.
	dir := t.TempDir()
	ok(net.Export(filepath.Join(dir, "r18"), 0))
	back := must(mxnet.ImportSymbolBlock(filepath.Join(dir, "r18-symbol.json"), []string{"data"}, filepath.Join(dir, "r18-0000.params"), mxnet.CPU))
	defer back.Close()
	near(t, values(t, must(back.Forward(ctx, x))), hybrid, 1e-5)

	t.Run("C++ library's output for the same parameters file", func(t *testing.T) {
		cli := cppCLI(t)
		// The C++ CLI makes the parameters file (save_parameters) and its own export.
		params, prefix := filepath.Join(dir, "cpp.params"), filepath.Join(dir, "cpp")
		runCmd(t, cli, "export", "--model", "resnet18_v1", "--out", prefix, "--save-params", params, "--init", "xavier")
		zoo := must(mxnet.ModelZoo("resnet18_v1", nil))
		defer zoo.Close()
		ok(zoo.LoadParameters(params, nil))
		ok(zoo.Hybridize(nil))
		got := values(t, must(zoo.Forward(ctx, x)))
		in, out := filepath.Join(dir, "x.nd"), filepath.Join(dir, "y.nd")
		ok(mxnet.Save(in, []*mxnet.NDArray{x}, []string{"data"}, nil))
		runCmd(t, cli, "predict", "--symbol", prefix+"-symbol.json", "--params", prefix+"-0000.params", "--input", in, "--output", out)
		want, _ := must2(mxnet.Load(out, nil))
		defer closeFields(want)
		near(t, got, must(want[0].Float32s()), 1e-5)
		// cmd/classify --model prints what the C++ CLI prints.
		cargs := []string{"--model", "resnet18_v1", "--params", params, "--image", image}
		gotText := runCmd(t, classifyCmd(t), cargs...)
		wantText := runCmd(t, cli, append([]string{"classify"}, cargs...)...)
		if gotText != wantText {
			t.Fatalf("Go classify printed\n%s\nthe C++ CLI\n%s", gotText, wantText)
		}
	})
}
