package mxnet_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mxnet.local/mxnet"
)

// runExit runs a program with env added and returns its stdout, stderr and exit code.
func runExit(t *testing.T, env []string, prog string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if e, isExit := err.(*exec.ExitError); isExit {
		code = e.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", prog, err)
	}
	return stdout.String(), stderr.String(), code
}

// cmd/train's short run (as the C++ CLI's test): exports a loadable model; with one thread and
// the same seed its epoch figures and predictions equal the C++ `mxnet train`'s (same shuffling,
// initialization and arithmetic through the library).
func TestTrainCommand(t *testing.T) {
	begin(t)
	fashionMNIST(t)
	train := buildCmd(t, "train")
	dir := t.TempDir()
	args := []string{"--epochs", "1", "--limit", "1200", "--batch-size", "64", "--workers", "0"}
	one := []string{"OMP_NUM_THREADS=1"}
	out, errOut, code := runExit(t, one, train, append(args, "--out", filepath.Join(dir, "go"))...)
	if code != 0 {
		t.Fatalf("train exited %d: %s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`test accuracy ([0-9.]+) after 1 epochs`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no 'test accuracy' line in\n%s", out)
	}
	if acc, _ := strconv.ParseFloat(m[1], 64); acc <= 0.5 { // 1,200 samples, one epoch: well above chance
		t.Fatalf("test accuracy %v\n%s", acc, out)
	}
	arrays, names := must2(mxnet.Load(filepath.Join(dir, "go", "model-0000.params"), nil))
	closeFields(arrays)
	if len(names) != 8 || names[0] != "arg:conv0_weight" {
		t.Fatalf("exported parameters %v, want LeNet's 8 with arg: keys", names)
	}
	net := must(mxnet.ImportSymbolBlock(filepath.Join(dir, "go", "model-symbol.json"), []string{"data"},
		filepath.Join(dir, "go", "model-0000.params"), mxnet.CPU))
	net.Close()

	_, errOut, code = runExit(t, nil, train, "--model", "nosuchnet", "--out", filepath.Join(dir, "bad"))
	if code != 1 || !strings.HasPrefix(errOut, "train: error: unknown --model 'nosuchnet'") {
		t.Fatalf("bad --model: exit %d, stderr %q", code, errOut)
	}

	t.Run("figures equal the C++ CLI's", func(t *testing.T) {
		cli := cppCLI(t)
		want, errOut, code := runExit(t, one, cli, append([]string{"train"}, append(args, "--out", filepath.Join(dir, "cpp"))...)...)
		if code != 0 {
			t.Fatalf("mxnet train exited %d: %s", code, errOut)
		}
		// Drop the timings ("1.3 s, 936 samples/s", "(1.4 s)") and the output paths.
		clean := regexp.MustCompile(`[0-9.]+ s(amples/s)?\b|\([0-9.]+ s\)|; exported .*`)
		norm := func(s string) string {
			var keep []string
			for _, l := range strings.Split(s, "\n") {
				if strings.Contains(l, "%:") { // progress lines: timing only differs, but keep loss/acc
					l = l[strings.Index(l, "loss"):]
				}
				keep = append(keep, clean.ReplaceAllString(l, ""))
			}
			return strings.Join(keep, "\n")
		}
		if norm(out) != norm(want) {
			t.Fatalf("Go train printed\n%s\nthe C++ CLI\n%s", out, want)
		}
	})
}

// cmd/classify's errors: one line, exit code 1, as the C++ CLI.
func TestClassifyCommandErrors(t *testing.T) {
	begin(t)
	classify := classifyCmd(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--params", "p", "--image", "x.jpg"}, "give exactly one of --symbol"},
		{[]string{"--image", "x.jpg"}, "--params is required"},
		{[]string{"--params", "p", "--model", "resnet18_v1"}, "--image is required"},
		{[]string{"--params", "p", "--model", "nonet", "--image", "x.jpg"}, "unknown --model 'nonet'"},
		{[]string{"--params", "p", "--model", "resnet18_v1", "--image", "x.jpg", "--interp", "fancy"}, "--interp must be"},
		{[]string{"--params", "p", "--model", "resnet18_v1", "--image", "x.jpg", "--mean", "a,b"}, "--mean must be comma-separated numbers"},
		{[]string{"--params", "/nonexistent.params", "--model", "resnet18_v1", "--image", "x.jpg"}, "/nonexistent.params"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
	} {
		_, errOut, code := runExit(t, nil, classify, c.args...)
		if code != 1 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 && !strings.Contains(errOut, "usage") {
			t.Errorf("classify %v: exit %d, stderr %q; want exit 1 and %q", c.args, code, errOut, c.want)
		}
	}
}
