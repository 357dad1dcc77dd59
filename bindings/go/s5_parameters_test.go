package mxnet_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"mxnet.local/mxnet"
)

func paramNames(t *testing.T, ps []*mxnet.Parameter) []string {
	t.Helper()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = must(p.Name())
	}
	return names
}

func sameStrings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d names %v,\nwant %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("name %d: got %q, want %q (all: %v)", i, got[i], want[i], got)
		}
	}
}

// S5: collect_params(".*weight|.*bias") with RE2 selects what the C++ API selects (names, order
// and count) on resnet18_v1; lr_mult and grad_req act on a Trainer step as the closed form says;
// save_parameters / load_parameters round-trips the values.
func TestS5Parameters(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(&mxnet.CtxOptions{Seeded: true, Seed: 5}))
	defer ctx.Close()

	t.Run("collect_params on resnet18_v1", func(t *testing.T) {
		net := must(mxnet.ModelZoo("resnet18_v1", nil))
		defer net.Close()
		all := must(net.CollectParams(""))
		defer mxnet.CloseParameters(all)
		sel := must(net.CollectParams(".*weight|.*bias"))
		defer mxnet.CloseParameters(sel)
		// By hand: 20 convolutions (1 stem, 16 in the 8 basic blocks, 3 downsamples) with a
		// weight each, 20 BatchNorms with gamma, beta, running_mean, running_var, and the dense
		// output layer's weight and bias: 102 parameters, 22 of them weights or biases.
		if len(all) != 102 || len(sel) != 22 {
			t.Fatalf("%d parameters, %d selected; want 102 and 22", len(all), len(sel))
		}
		// re.match semantics: anchored at the start, not at the end.
		out := must(net.CollectParams("output"))
		defer mxnet.CloseParameters(out)
		sameStrings(t, paramNames(t, out), []string{"output.weight", "output.bias"})
		none := must(net.CollectParams("weight"))
		if len(none) != 0 {
			t.Fatalf("'weight' selected %v; re.match anchors at the start", paramNames(t, none))
		}
		_, err := net.CollectParams("(")
		wantErr(t, err, mxnet.CodeInvalidArgument, "(")

		t.Run("names equal the C++ API's", func(t *testing.T) {
			cli := cppCLI(t)
			dir := t.TempDir()
			params := filepath.Join(dir, "r18.params")
			runCmd(t, cli, "export", "--model", "resnet18_v1", "--out", filepath.Join(dir, "r18"), "--save-params", params)
			arrays, names := must2(mxnet.Load(params, nil)) // C++ collect_params() order
			closeFields(arrays)
			sameStrings(t, paramNames(t, all), names)
			re := regexp.MustCompile(`^(?:.*weight|.*bias)`) // RE2, as re.match
			var want []string
			for _, n := range names {
				if re.MatchString(n) {
					want = append(want, n)
				}
			}
			sameStrings(t, paramNames(t, sel), want)
		})
	})

	t.Run("lr_mult and grad_req in a Trainer step", func(t *testing.T) { lrMultGradReq(t, ctx) })
	t.Run("save and load round trip", func(t *testing.T) { saveLoad(t, ctx) })
}

// byName maps a block's parameters by name (closed at the end of the test).
func byName(t *testing.T, net *mxnet.Block) (map[string]*mxnet.Parameter, []*mxnet.Parameter) {
	ps := must(net.CollectParams(""))
	t.Cleanup(func() { mxnet.CloseParameters(ps) })
	m := map[string]*mxnet.Parameter{}
	for _, p := range ps {
		m[must(p.Name())] = p
	}
	return m, ps
}

func paramValues(t *testing.T, p *mxnet.Parameter) []float32 {
	t.Helper()
	return values(t, must(p.Data(mxnet.Device{})))
}

// lenetBatch is a LeNet initialized with xavier and called once on x (4, 1, 28, 28) so the
// shapes are known.
func lenetBatch(t *testing.T, ctx *mxnet.Ctx) (*mxnet.Block, *mxnet.NDArray) {
	net := must(mxnet.LeNet())
	t.Cleanup(func() { net.Close() })
	ok(net.Initialize(ctx, "xavier", mxnet.CPU, false))
	x := must(mxnet.Invoke(ctx, "_random_uniform", nil, mxnet.Attrs{"shape": []int{4, 1, 28, 28}}))[0]
	closeAll(t, x)
	must(net.Forward(ctx, x)).Close()
	return net, x
}

func lrMultGradReq(t *testing.T, ctx *mxnet.Ctx) {
	net, x := lenetBatch(t, ctx)
	m, ps := byName(t, net)
	ok(m["conv0_weight"].SetLrMult(0))
	if v := must(m["conv0_weight"].LrMult()); v != 0 {
		t.Fatalf("lr_mult %v after SetLrMult(0)", v)
	}
	if v := must(m["conv1_weight"].LrMult()); v != 1 {
		t.Fatalf("default lr_mult %v, want 1", v)
	}
	ok(m["dense1_bias"].SetGradReq(mxnet.GradNull))
	if r := must(m["dense1_bias"].GradReq()); r != mxnet.GradNull {
		t.Fatalf("grad_req %v after SetGradReq(GradNull)", r)
	}
	_, err := m["dense1_bias"].Grad(mxnet.Device{})
	if err == nil {
		t.Fatal("Grad of a grad_req null parameter succeeded")
	}
	if r := must(m["dense0_bias"].GradReq()); r != mxnet.GradWrite {
		t.Fatalf("default grad_req %v, want GradWrite", r)
	}

	before := map[string][]float32{}
	for name, p := range m {
		before[name] = paramValues(t, p)
	}
	const lr, batch = 0.5, 4
	trainer := must(mxnet.NewTrainer(ps, "sgd", mxnet.Attrs{"learning_rate": lr}))
	defer trainer.Close()
	labels := f32(t, []float32{0, 1, 2, 3}, 4)
	loss := must(mxnet.NewLoss("SoftmaxCrossEntropyLoss", nil))
	defer loss.Close()
	var l *mxnet.NDArray
	ok(ctx.Record(func() error {
		out, err := net.Forward(ctx, x)
		if err != nil {
			return err
		}
		defer out.Close()
		l, err = loss.Forward(ctx, out, labels)
		return err
	}))
	ok(l.Backward(ctx, nil))
	l.Close()
	grads := map[string][]float32{}
	for name, p := range m {
		if name != "dense1_bias" {
			grads[name] = values(t, must(p.Grad(mxnet.Device{})))
		}
	}
	ok(trainer.Step(ctx, batch, false))
	for name, p := range m {
		got := paramValues(t, p)
		switch name {
		case "conv0_weight", "dense1_bias": // lr_mult 0, grad_req null: unchanged
			near(t, got, before[name], 0)
		default: // plain SGD: w - lr * grad / batch
			want := make([]float32, len(got))
			for i := range want {
				want[i] = before[name][i] - lr*grads[name][i]/batch
			}
			near(t, got, want, 1e-6)
			if name == "conv1_bias" && equalFloats(got, before[name]) {
				t.Fatalf("%s did not change", name)
			}
		}
	}
}

func equalFloats(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func saveLoad(t *testing.T, ctx *mxnet.Ctx) {
	net, x := lenetBatch(t, ctx)
	path := filepath.Join(t.TempDir(), "lenet.params")
	ok(net.SaveParameters(path))
	arrays, names := must2(mxnet.Load(path, nil))
	closeFields(arrays)
	sameStrings(t, names, []string{"conv0_weight", "conv0_bias", "conv1_weight", "conv1_bias",
		"dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias"})

	other, _ := lenetBatch(t, ctx) // different random values
	want := values(t, must(net.Forward(ctx, x)))
	if equalFloats(values(t, must(other.Forward(ctx, x))), want) {
		t.Fatal("two xavier initializations gave the same outputs")
	}
	ok(other.LoadParameters(path, nil))
	mNet, _ := byName(t, net)
	mOther, _ := byName(t, other)
	for name, p := range mNet {
		near(t, paramValues(t, mOther[name]), paramValues(t, p), 0)
	}
	near(t, values(t, must(other.Forward(ctx, x))), want, 0)

	err := other.LoadParameters(filepath.Join(t.TempDir(), "missing.params"), nil)
	wantErr(t, err, mxnet.CodeNotFound, "missing.params")
	r18 := must(mxnet.ModelZoo("resnet18_v1", nil))
	defer r18.Close()
	err = r18.LoadParameters(path, nil)
	if err == nil {
		t.Fatal("loading LeNet's parameters into resnet18_v1 succeeded")
	}
	// As in MXNet 1.9.1, keys without a '.' are read as 1.x names (conv0_weight is resnet's
	// resnetv10_conv0_weight), so LeNet's conv0 meets resnet's conv0: a shape error even with
	// AllowMissing and IgnoreExtra.
	both := &mxnet.LoadParametersOptions{AllowMissing: true, IgnoreExtra: true}
	wantErr(t, r18.LoadParameters(path, both), mxnet.CodeInvalidArgument, "does not match")

	// A file missing dense1_bias and holding an extra array loads only with both options.
	arrays, names = must2(mxnet.Load(path, nil))
	defer closeFields(arrays)
	kept, keptNames := []*mxnet.NDArray{}, []string{}
	for i, n := range names {
		if n != "dense1_bias" {
			kept, keptNames = append(kept, arrays[i]), append(keptNames, n)
		}
	}
	partial := filepath.Join(t.TempDir(), "partial.params")
	ok(mxnet.Save(partial, append(kept, arrays[0]), append(keptNames, "extra.weight"), nil))
	if other.LoadParameters(partial, nil) == nil {
		t.Fatal("a file missing dense1_bias loaded without AllowMissing")
	}
	ok(other.LoadParameters(partial, both))
}
