// Command train trains a network on the real Fashion-MNIST (Debian's dataset-fashion-mnist)
// through the Go binding, validates every epoch, checkpoints and exports the model: the Go
// binding's version of the C++ tool's `mxnet train`, with its flags and output lines.
//
//	go run ./cmd/train [--model lenet|NAME] [--epochs 5] [--batch-size 128] [--optimizer adam]
//	    [--lr 0.003] [--lr-schedule cosine|constant] [--wd 0] [--hybridize=true|false]
//	    [--device cpu] [--seed 42] [--workers 1] [--threads 0] [--out DIR]
//	    [--data /usr/share/datasets/fashion-mnist] [--limit N]
//
// lenet (default) is the C++ tool's default net (mxnet.LeNet); other names are model-zoo nets
// with 10 classes that accept 28x28 input. Images are ToTensor + Normalize(0.286, 0.353); the
// loss is SoftmaxCrossEntropyLoss; Xavier initialization. After every epoch DIR/checkpoint.params
// is written (atomically); at the end DIR/model-symbol.json and DIR/model-0000.params, which
// SymbolBlock imports, `mxnet classify` and `classify` read. Differences from the C++ tool: no
// --profile, and --threads 0 keeps the library's thread count instead of tuning it by measured
// step time (on a machine busy with other work, --threads 1 is often much faster).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/internal/cli"
)

var classNames = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

type options struct {
	model, optimizer, schedule, device, out, data string
	epochs, batch, seed, workers, threads, limit  int64
	lr, wd                                        float64
	hybridize                                     bool
	given                                         map[string]bool
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		cli.Fail("train", err)
	}
}

func run(args []string, out io.Writer) error {
	o := options{}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.StringVar(&o.model, "model", "lenet", "lenet or a model-zoo name that takes 28x28 input (e.g. resnet18_v1)")
	fs.Int64Var(&o.epochs, "epochs", 5, "passes over the training set")
	fs.Int64Var(&o.batch, "batch-size", 128, "samples per batch")
	fs.StringVar(&o.optimizer, "optimizer", "adam", "adam, sgd, nag, rmsprop, ... (MXNet's optimizer names)")
	fs.Float64Var(&o.lr, "lr", 0.003, "learning rate (default: 0.003; 0.1 with --optimizer sgd)")
	fs.StringVar(&o.schedule, "lr-schedule", "cosine", "cosine: decays --lr to 0 over the run (one step per batch); constant: keeps it")
	fs.Float64Var(&o.wd, "wd", 0, "weight decay")
	fs.BoolVar(&o.hybridize, "hybridize", true, "hybridize the network (--hybridize=false: imperative)")
	fs.StringVar(&o.device, "device", "cpu", "cpu, cpu(0), gpu(0), ...")
	fs.Int64Var(&o.seed, "seed", 42, "random seed")
	fs.Int64Var(&o.workers, "workers", 1, "data-loading worker threads (0: load in the training goroutine)")
	fs.Int64Var(&o.threads, "threads", 0, "intra-op threads (0: the library's default)")
	fs.StringVar(&o.out, "out", "mxnet-train-out", "output directory")
	fs.StringVar(&o.data, "data", "/usr/share/datasets/fashion-mnist", "Fashion-MNIST directory (the idx .gz files)")
	fs.Int64Var(&o.limit, "limit", 0, "train on the first N samples and test on N/6 (0: all)")
	plain, given, err := cli.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(plain) > 0 {
		return fmt.Errorf("unexpected argument '%s' (see train --help)", plain[0])
	}
	o.given = given
	return train(&o, out)
}

// makeNet builds --model (Xavier-initialized on dev) and checks that it takes (1, 1, 28, 28).
// It returns the graph too for LeNet (exported with ExportSymbolBlock).
func makeNet(ctx *mxnet.Ctx, model string, dev mxnet.Device) (*mxnet.Block, *mxnet.Symbol, error) {
	var net *mxnet.Block
	var graph *mxnet.Symbol
	var err error
	if model == "lenet" {
		if graph, err = mxnet.LeNetSymbol(); err != nil {
			return nil, nil, err
		}
		net, err = mxnet.NewSymbolBlock(graph, []string{"data"})
	} else if net, err = mxnet.ModelZoo(model, &mxnet.ModelOptions{Classes: 10}); err != nil {
		names, _ := mxnet.ModelZooNames()
		return nil, nil, fmt.Errorf("unknown --model '%s' (lenet or a model-zoo name: %s)", model, strings.Join(names, ", "))
	}
	if err == nil {
		err = net.Initialize(ctx, "xavier", dev, false)
	}
	if err == nil {
		var zeros *mxnet.NDArray
		if zeros, err = mxnet.Zeros([]int64{1, 1, 28, 28}, mxnet.Float32, dev); err == nil {
			var y *mxnet.NDArray
			if y, err = net.Forward(ctx, zeros); err == nil {
				y.Close()
			} else {
				err = fmt.Errorf("--model %s does not fit Fashion-MNIST's 1x28x28 images: %v", model, err)
			}
			zeros.Close()
		}
	}
	if err != nil {
		net.Close()
		graph.Close()
		return nil, nil, err
	}
	return net, graph, nil
}

// datasets are the transformed training and test sets (--limit applied).
func datasets(root string, limit int64) (train, test *mxnet.Dataset, err error) {
	toTensor, err := mxnet.ToTensor()
	if err != nil {
		return nil, nil, err
	}
	defer toTensor.Close()
	norm, err := mxnet.Normalize([]float32{0.286}, []float32{0.353})
	if err != nil {
		return nil, nil, err
	}
	defer norm.Close()
	prep, err := mxnet.Compose(toTensor, norm)
	if err != nil {
		return nil, nil, err
	}
	defer prep.Close()
	open := func(isTrain bool, n int64) (*mxnet.Dataset, error) {
		raw, err := mxnet.FashionMNIST(root, isTrain)
		if err != nil {
			return nil, err
		}
		defer raw.Close()
		if n <= 0 {
			n = -1
		}
		part, err := raw.Take(n)
		if err != nil {
			return nil, err
		}
		defer part.Close()
		return part.TransformFirst(prep, true)
	}
	if train, err = open(true, limit); err != nil {
		return nil, nil, err
	}
	testN := int64(0)
	if limit > 0 {
		testN = limit / 6
		if testN < 1 {
			testN = 1
		}
	}
	if test, err = open(false, testN); err != nil {
		train.Close()
		return nil, nil, err
	}
	return train, test, nil
}

// counts is the correct predictions of logits (N, C) for labels (N,) and the loss sum.
func counts(logits, labels, loss *mxnet.NDArray) (correct int, lossSum float64, err error) {
	shape, err := logits.Shape()
	if err != nil {
		return 0, 0, err
	}
	v, err := logits.Float32s()
	if err != nil {
		return 0, 0, err
	}
	lab, err := mxnet.ToSlice[int32](labels)
	if err != nil {
		return 0, 0, err
	}
	c := int(shape[1])
	for i, l := range lab {
		if argmax(v[i*c:(i+1)*c]) == int(l) {
			correct++
		}
	}
	if loss != nil {
		ls, err := loss.Float32s()
		if err != nil {
			return 0, 0, err
		}
		for _, x := range ls {
			lossSum += float64(x)
		}
	}
	return correct, lossSum, nil
}

func argmax(v []float32) int {
	best := 0
	for j := range v {
		if v[j] > v[best] {
			best = j
		}
	}
	return best
}

// batchOn moves a loaded field to dev (a new reference when it is there already).
func batchOn(x *mxnet.NDArray, dev mxnet.Device) (*mxnet.NDArray, error) {
	if dev == mxnet.CPU {
		return x.Reshape(nil, mustShape(x)...)
	}
	return x.CopyTo(dev)
}

func mustShape(x *mxnet.NDArray) []int64 {
	s, _ := x.Shape()
	return s
}

// evaluate is the accuracy of net on loader's epoch.
func evaluate(ctx *mxnet.Ctx, net *mxnet.Block, loader *mxnet.DataLoader, dev mxnet.Device) (float64, error) {
	correct, seen := 0, 0
	for {
		batch, more, err := loader.Next(ctx)
		if err != nil || !more {
			if seen == 0 {
				return 0, err
			}
			return float64(correct) / float64(seen), err
		}
		err = func() error {
			defer closeAll(batch)
			x, err := batchOn(batch[0], dev)
			if err != nil {
				return err
			}
			defer x.Close()
			logits, err := net.Forward(ctx, x)
			if err != nil {
				return err
			}
			defer logits.Close()
			c, _, err := counts(logits, batch[1], nil)
			correct += c
			seen += int(mustShape(batch[1])[0])
			return err
		}()
		if err != nil {
			return 0, err
		}
	}
}

func closeAll(xs []*mxnet.NDArray) {
	for _, x := range xs {
		x.Close()
	}
}

func train(o *options, out io.Writer) error {
	lr := o.lr
	if o.optimizer == "sgd" && !o.given["lr"] {
		lr = 0.1
	}
	if o.schedule != "cosine" && o.schedule != "constant" {
		return fmt.Errorf("unknown --lr-schedule '%s' (cosine, constant)", o.schedule)
	}
	if o.threads < 0 {
		return errors.New("--threads must be >= 0 (0: the library's default)")
	}
	if o.threads > 0 { // read by the library when it first runs an operator
		os.Setenv("OMP_NUM_THREADS", strconv.FormatInt(o.threads, 10))
	}
	dev, err := cli.ParseDevice(o.device)
	if err != nil {
		return err
	}
	if o.epochs < 1 || o.batch < 1 {
		return errors.New("--epochs and --batch-size must be >= 1")
	}
	ctx, err := mxnet.NewCtx(&mxnet.CtxOptions{Device: dev, Seeded: true, Seed: uint64(o.seed)})
	if err != nil {
		return err
	}
	defer ctx.Close()
	if err := mxnet.RandomSeed(uint64(o.seed)); err != nil {
		return err
	}
	trainSet, testSet, err := datasets(o.data, o.limit)
	if err != nil {
		return err
	}
	defer trainSet.Close()
	defer testSet.Close()
	net, graph, err := makeNet(ctx, o.model, dev)
	if err != nil {
		return err
	}
	defer net.Close()
	defer graph.Close()
	if o.hybridize {
		if err := net.Hybridize(&mxnet.HybridizeOptions{StaticAlloc: true, StaticShape: true}); err != nil {
			return err
		}
	}
	params, err := net.CollectParams("")
	if err != nil {
		return err
	}
	defer mxnet.CloseParameters(params)
	trainer, err := mxnet.NewTrainer(params, o.optimizer, mxnet.Attrs{"learning_rate": lr, "wd": o.wd})
	if err != nil {
		return err
	}
	defer trainer.Close()
	lossFn, err := mxnet.NewLoss("SoftmaxCrossEntropyLoss", nil)
	if err != nil {
		return err
	}
	defer lossFn.Close()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("cannot create --out directory %s: %v", o.out, err)
	}
	trainLoader, err := mxnet.NewDataLoader(trainSet, mxnet.DataLoaderOptions{BatchSize: o.batch, Shuffle: true, NumWorkers: int(o.workers)})
	if err != nil {
		return err
	}
	defer trainLoader.Close()
	testLoader, err := mxnet.NewDataLoader(testSet, mxnet.DataLoaderOptions{BatchSize: 256, NumWorkers: int(o.workers)})
	if err != nil {
		return err
	}
	defer testLoader.Close()
	total, err := trainLoader.Len()
	if err != nil {
		return err
	}
	updates, step := o.epochs*total, int64(0)

	var testAcc float64
	tAll := time.Now()
	for epoch := int64(1); epoch <= o.epochs; epoch++ {
		t0 := time.Now()
		var lossSum float64
		correct, seen, nb := 0, 0, int64(0)
		for {
			batch, more, err := trainLoader.Next(ctx)
			if err != nil {
				return err
			}
			if !more {
				break
			}
			step++
			if o.schedule == "cosine" { // MXNet's CosineScheduler from lr to 0 over the run
				if err := trainer.SetLearningRate(lr * (1 + math.Cos(math.Pi*float64(step)/float64(updates))) / 2); err != nil {
					return err
				}
			}
			n, c, l, err := trainStep(ctx, net, lossFn, trainer, batch, dev)
			closeAll(batch)
			if err != nil {
				return err
			}
			seen, correct, lossSum, nb = seen+n, correct+c, lossSum+l, nb+1
			if total >= 8 && nb < total && nb*4/total != (nb-1)*4/total {
				secs := time.Since(t0).Seconds()
				fmt.Fprintf(out, "epoch %d/%d %3.0f%%: %.0f samples/s, loss %.4f, acc %.4f\n", epoch, o.epochs,
					100*float64(nb)/float64(total), float64(seen)/secs, lossSum/float64(seen), float64(correct)/float64(seen))
			}
		}
		secs := time.Since(t0).Seconds()
		if testAcc, err = evaluate(ctx, net, testLoader, dev); err != nil {
			return err
		}
		fmt.Fprintf(out, "epoch %d/%d: %.1f s, %.0f samples/s, train loss %.4f, train acc %.4f, test acc %.4f\n",
			epoch, o.epochs, secs, float64(seen)/secs, lossSum/float64(seen), float64(correct)/float64(seen), testAcc)
		if err := net.SaveParameters(filepath.Join(o.out, "checkpoint.params")); err != nil {
			return err
		}
	}
	prefix := filepath.Join(o.out, "model")
	if graph != nil {
		err = mxnet.ExportSymbolBlock(graph, params, prefix, 0)
	} else {
		err = net.Export(prefix, 0)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "test accuracy %.4f after %d epochs (%.1f s); exported %s/model-symbol.json and %s/model-0000.params\n",
		testAcc, o.epochs, time.Since(tAll).Seconds(), o.out, o.out)
	return showPredictions(ctx, net, testSet, dev, out)
}

// trainStep runs forward + loss under autograd, backward and one optimizer step on a batch;
// it returns the batch size, correct predictions and the loss sum.
func trainStep(ctx *mxnet.Ctx, net, lossFn *mxnet.Block, trainer *mxnet.Trainer, batch []*mxnet.NDArray,
	dev mxnet.Device) (n, correct int, lossSum float64, err error) {
	x, err := batchOn(batch[0], dev)
	if err != nil {
		return 0, 0, 0, err
	}
	defer x.Close()
	y, err := batchOn(batch[1], dev)
	if err != nil {
		return 0, 0, 0, err
	}
	defer y.Close()
	var logits, l *mxnet.NDArray
	err = ctx.Record(func() error {
		var err error
		if logits, err = net.Forward(ctx, x); err != nil {
			return err
		}
		l, err = lossFn.Forward(ctx, logits, y)
		return err
	})
	defer logits.Close()
	defer l.Close()
	if err != nil {
		return 0, 0, 0, err
	}
	if err := l.Backward(ctx, nil); err != nil {
		return 0, 0, 0, err
	}
	n = int(mustShape(x)[0])
	if err := trainer.Step(ctx, float64(n), false); err != nil {
		return 0, 0, 0, err
	}
	correct, lossSum, err = counts(logits, batch[1], l)
	return n, correct, lossSum, err
}

// showPredictions prints five test images' predicted and true classes.
func showPredictions(ctx *mxnet.Ctx, net *mxnet.Block, test *mxnet.Dataset, dev mxnet.Device, out io.Writer) error {
	for i := int64(0); i < 5; i++ {
		s, err := test.Get(i)
		if err != nil {
			return err
		}
		err = func() error {
			defer closeAll(s)
			x, err := s[0].Reshape(ctx, append([]int64{1}, mustShape(s[0])...)...)
			if err != nil {
				return err
			}
			defer x.Close()
			xd, err := batchOn(x, dev)
			if err != nil {
				return err
			}
			defer xd.Close()
			logits, err := net.Forward(ctx, xd)
			if err != nil {
				return err
			}
			defer logits.Close()
			v, err := logits.Float32s()
			if err != nil {
				return err
			}
			truth, err := mxnet.ToSlice[int32](s[1])
			if err != nil {
				return err
			}
			pred, wrong := argmax(v), ""
			if pred != int(truth[0]) {
				wrong = "  (wrong)"
			}
			fmt.Fprintf(out, "  test image %d: predicted %-12s true %-12s%s\n", i, classNames[pred], classNames[truth[0]], wrong)
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return nil
}
