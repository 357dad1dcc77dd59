package mxnet_test

import (
	"path/filepath"
	"testing"
	"time"

	"mxnet.local/mxnet"
)

// S4: the default LeNet (the C++ CLI's `train` net, built here from symbols) on the first 12,000
// Fashion-MNIST training images with autograd + Trainer (Adam) reaches > 83 % on the first 2,000
// test images; the export, read back by SymbolBlock imports and by the C++ CLI's `predict`, gives
// the binding's outputs.
func TestS4Training(t *testing.T) {
	begin(t)
	root := fashionMNIST(t)
	ctx := must(mxnet.NewCtx(&mxnet.CtxOptions{Seeded: true, Seed: 42}))
	defer ctx.Close()

	toTensor := must(mxnet.ToTensor())
	defer toTensor.Close()
	normalize := must(mxnet.Normalize([]float32{0.286}, []float32{0.353}))
	defer normalize.Close()
	prep := must(mxnet.Compose(toTensor, normalize))
	defer prep.Close()
	trainRaw := must(mxnet.FashionMNIST(root, true))
	defer trainRaw.Close()
	testRaw := must(mxnet.FashionMNIST(root, false))
	defer testRaw.Close()
	if n := must(trainRaw.Len()); n != 60000 {
		t.Fatalf("training set: %d images, want 60000", n)
	}
	train := takeTransformed(t, trainRaw, 12000, prep)
	test := takeTransformed(t, testRaw, 2000, prep)

	graph := must(mxnet.LeNetSymbol())
	defer graph.Close()
	net := must(mxnet.NewSymbolBlock(graph, []string{"data"}))
	defer net.Close()
	ok(net.Initialize(ctx, "xavier", mxnet.CPU, false))
	ok(net.Hybridize(nil))
	params := must(net.CollectParams(""))
	defer mxnet.CloseParameters(params)
	if len(params) != 8 {
		t.Fatalf("LeNet has %d parameters, want 8", len(params))
	}
	trainer := must(mxnet.NewTrainer(params, "adam", mxnet.Attrs{"learning_rate": 0.002}))
	defer trainer.Close()
	loss := must(mxnet.NewLoss("SoftmaxCrossEntropyLoss", nil))
	defer loss.Close()
	loader := must(mxnet.NewDataLoader(train, mxnet.DataLoaderOptions{BatchSize: 64, Shuffle: true}))
	defer loader.Close()
	if n := must(loader.Len()); n != 188 {
		t.Fatalf("loader: %d batches, want ceil(12000 / 64) = 188", n)
	}

	start := time.Now()
	const epochs = 2
	for epoch := 0; epoch < epochs; epoch++ {
		for {
			batch, more, err := loader.Next(ctx)
			ok(err)
			if !more {
				break
			}
			var l *mxnet.NDArray
			ok(ctx.Record(func() error {
				out, err := net.Forward(ctx, batch[0])
				if err != nil {
					return err
				}
				defer out.Close()
				l, err = loss.Forward(ctx, out, batch[1])
				return err
			}))
			ok(l.Backward(ctx, nil))
			ok(trainer.Step(ctx, float64(must(batch[0].Shape())[0]), false))
			l.Close()
			closeFields(batch)
		}
	}
	t.Logf("trained %d epochs x 12,000 images in %.1f s", epochs, time.Since(start).Seconds())

	// Accuracy on the 2,000 test images, one batch.
	testLoader := must(mxnet.NewDataLoader(test, mxnet.DataLoaderOptions{BatchSize: 2000}))
	defer testLoader.Close()
	batch, more, err := testLoader.Next(ctx)
	ok(err)
	if !more {
		t.Fatal("the test loader gave no batch")
	}
	defer closeFields(batch)
	shapeIs(t, batch[0], 2000, 1, 28, 28)
	logits := must(net.Forward(ctx, batch[0]))
	defer logits.Close()
	correct, n := accuracy(t, logits, batch[1])
	acc := float64(correct) / float64(n)
	t.Logf("test accuracy %.4f (%d of %d)", acc, correct, n)
	if acc <= 0.83 {
		t.Fatalf("test accuracy %.4f, want > 0.83", acc)
	}

	// Export; SymbolBlock imports of the files gives the same outputs.
	dir := t.TempDir()
	prefix := filepath.Join(dir, "lenet")
	ok(mxnet.ExportSymbolBlock(graph, params, prefix, 0))
	back := must(mxnet.ImportSymbolBlock(prefix+"-symbol.json", []string{"data"}, prefix+"-0000.params", mxnet.CPU))
	defer back.Close()
	again := must(back.Forward(ctx, batch[0]))
	want := must(logits.Float32s())
	near(t, values(t, again), want, 1e-5)

	// The C++ CLI's predict on the export and the same images.
	t.Run("C++ predict reads the export", func(t *testing.T) {
		cli := cppCLI(t)
		in, outPath := filepath.Join(dir, "x.nd"), filepath.Join(dir, "y.nd")
		ok(mxnet.Save(in, batch[:1], []string{"data"}, nil))
		runCmd(t, cli, "predict", "--symbol", prefix+"-symbol.json", "--params", prefix+"-0000.params",
			"--input", in, "--output", outPath)
		arrays, _ := must2(mxnet.Load(outPath, nil))
		defer closeFields(arrays)
		if len(arrays) != 1 {
			t.Fatalf("predict wrote %d outputs, want 1", len(arrays))
		}
		near(t, must(arrays[0].Float32s()), want, 1e-5)
	})
}

// takeTransformed is ds.Take(n).TransformFirst(t, eager), closed at the end of the test.
func takeTransformed(t *testing.T, ds *mxnet.Dataset, n int64, tf *mxnet.Transform) *mxnet.Dataset {
	part := must(ds.Take(n))
	defer part.Close()
	out := must(part.TransformFirst(tf, false))
	t.Cleanup(func() { out.Close() })
	return out
}

// must2 is must for two results.
func must2[A, B any](a A, b B, err error) (A, B) {
	cur.Helper()
	if err != nil {
		cur.Fatalf("unexpected error: %v", err)
	}
	return a, b
}
