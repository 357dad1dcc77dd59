package mxnet_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mxnet.local/mxnet"
)

// S7 for the gluon, training and data handles: use after Close, double Close, nil handles, bad
// names and options, missing files, calls in the wrong state: each an *mxnet.Error, never a crash.
func TestGluonMisuse(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()

	_, err := mxnet.ModelZoo("resnet19_v1", nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "resnet18_v1") // lists the valid names
	_, err = mxnet.ImportSymbolBlock(filepath.Join(t.TempDir(), "none-symbol.json"), []string{"data"}, "", mxnet.CPU)
	wantErr(t, err, mxnet.CodeNotFound, "none-symbol.json")
	_, err = mxnet.NewLoss("NoSuchLoss", nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "SoftmaxCrossEntropyLoss")
	_, err = mxnet.NewLoss("L2Loss", mxnet.Attrs{"no_such_key": 1})
	wantErr(t, err, mxnet.CodeInvalidArgument, "no_such_key")
	_, err = mxnet.NewSymbolBlock(nil, []string{"data"})
	wantErr(t, err, mxnet.CodeInvalidArgument, "nil")

	net := must(mxnet.LeNet())
	x := f32(t, make([]float32, 28*28), 1, 1, 28, 28)
	_, err = net.Forward(ctx, x) // not initialized
	if err == nil {
		t.Fatal("calling an uninitialized block succeeded")
	}
	wantErr(t, net.Initialize(ctx, "no_such_init", mxnet.CPU, false), mxnet.CodeInvalidArgument, "no_such_init")
	ok(net.Initialize(ctx, "xavier", mxnet.CPU, false))
	y := must(net.Forward(ctx, x))
	y.Close()
	// A SymbolBlock exports without hybridize, as in MXNet (its graph is its symbol).
	prefix := filepath.Join(t.TempDir(), "m")
	ok(net.Export(prefix, 0))
	for _, f := range []string{prefix + "-symbol.json", prefix + "-0000.params"} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("Export wrote no %s: %v", f, err)
		}
	}
	_, err = net.Forward(ctx, x, x)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
	ps := must(net.CollectParams(""))
	_, err = mxnet.NewTrainer(ps, "no_such_optimizer", nil)
	wantErr(t, err, mxnet.CodeNotFound, "no_such_optimizer")
	_, err = mxnet.NewTrainer(ps, "sgd", mxnet.Attrs{"learning_rat": 0.1})
	wantErr(t, err, mxnet.CodeInvalidArgument, "learning_rat")
	tr := must(mxnet.NewTrainer(ps, "sgd", nil))
	wantErr(t, tr.Step(ctx, 0, false), mxnet.CodeInvalidArgument, "")
	wantErr(t, tr.LoadStates(filepath.Join(t.TempDir(), "none.states")), mxnet.CodeNotFound, "none.states")

	// Use after Close, double Close.
	p0 := ps[0]
	mxnet.CloseParameters(ps)
	ok(p0.Close())
	_, err = p0.Name()
	if !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("Name of a closed Parameter: %v, want ErrClosed", err)
	}
	_, err = mxnet.NewTrainer([]*mxnet.Parameter{p0}, "sgd", nil)
	if !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("NewTrainer on a closed Parameter: %v, want ErrClosed", err)
	}
	_, err = mxnet.NewTrainer([]*mxnet.Parameter{nil}, "sgd", nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "params[0]")
	ok(tr.Close())
	ok(tr.Close())
	if err := tr.Step(ctx, 1, false); !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("Step of a closed Trainer: %v, want ErrClosed", err)
	}
	ok(net.Close())
	ok(net.Close())
	if _, err := net.Forward(ctx, x); !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("Forward of a closed Block: %v, want ErrClosed", err)
	}
	if _, err := net.CollectParams(""); !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("CollectParams of a closed Block: %v, want ErrClosed", err)
	}
	var nilBlock *mxnet.Block
	_, err = nilBlock.Forward(ctx, x)
	wantErr(t, err, mxnet.CodeInvalidArgument, "nil")
	tf := must(mxnet.ToTensor())
	ok(tf.Close())
	ok(tf.Close())
	if _, err := tf.Apply(x); !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("Apply of a closed Transform: %v, want ErrClosed", err)
	}
	ds := must(mxnet.NewArrayDataset(x))
	loader := must(mxnet.NewDataLoader(ds, mxnet.DataLoaderOptions{BatchSize: 1}))
	ok(ds.Close()) // the loader keeps the dataset alive
	batch, more, err := loader.Next(nil)
	if err != nil || !more {
		t.Fatalf("Next after closing the dataset: %v %v", more, err)
	}
	closeFields(batch)
	ok(loader.Close())
	ok(loader.Close())
	if _, _, err := loader.Next(nil); !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("Next of a closed DataLoader: %v, want ErrClosed", err)
	}
	if _, err := ds.Len(); !errors.Is(err, mxnet.ErrClosed) {
		t.Fatalf("Len of a closed Dataset: %v, want ErrClosed", err)
	}
}
