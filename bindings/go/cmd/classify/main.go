// Command classify prints the top-k classes of images through an exported or model-zoo model:
// the Go binding's version of the C++ tool's `mxnet classify`, with the same flags and the same
// output lines ("PATH:" then "  1. NAME                           0.9620").
//
//	go run ./cmd/classify --symbol F-symbol.json --params F-0000.params --image IMG [IMG ...]
//	go run ./cmd/classify --model NAME [--classes 1000] --params F.params --image IMG [...]
//	    [--labels FILE] [--input-size 224] [--resize N] [--mean 0.485,0.456,0.406]
//	    [--std 0.229,0.224,0.225] [--topk 5] [--device cpu] [--interp bilinear]
//
// Each image (JPEG/PNG, decoded to RGB) has its short side resized to --resize (default 256 for
// a 224 input, else the input size) with an antialiasing filter and the long side rounded to the
// nearest pixel, is center-cropped to --input-size (default 224; 299 for --model inceptionv3),
// scaled to [0, 1] CHW, normalized by --mean/--std and run as a batch of one (1, 3, S, S); the
// softmax of the output gives the probabilities. Errors print one line and exit with code 1.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/internal/cli"
)

const usage = `usage: classify --symbol F-symbol.json --params F-0000.params --image IMG [IMG ...]
       classify --model NAME [--classes 1000] --params F.params --image IMG [...]
                [--labels FILE] [--input-size 224] [--resize N]
                [--mean 0.485,0.456,0.406] [--std 0.229,0.224,0.225] [--topk 5]
                [--device cpu] [--interp bilinear|bicubic|lanczos|area|nearest]

Decodes JPEG/PNG, resizes the short side to --resize (default 256 for 224 inputs, else
the input size) with an antialiasing filter, center-crops --input-size, scales to [0, 1],
normalizes, and prints the top-k classes with probabilities. --labels: a JSON list or one
name per line. The network is an export (--symbol + --params, input 'data') or a model-zoo
architecture (--model) whose weights --params holds. Give exactly one of --symbol and --model.
`

// images collects --image values (the flag may repeat).
type images []string

func (i *images) String() string     { return strings.Join(*i, ",") }
func (i *images) Set(v string) error { *i = append(*i, v); return nil }

type options struct {
	symbol, model, params, labels, mean, std, device, interp string
	classes, inputSize, resize, topk                         int64
	images                                                   images
	given                                                    map[string]bool
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		cli.Fail("classify", err)
	}
}

func run(args []string, out io.Writer) error {
	o := options{}
	fs := flag.NewFlagSet("classify", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage+"\nflags:\n"); fs.PrintDefaults() }
	fs.StringVar(&o.symbol, "symbol", "", "an exported F-symbol.json (input 'data')")
	fs.StringVar(&o.model, "model", "", "a model-zoo architecture (resnet18_v1, mobilenet0.25, ...)")
	fs.Int64Var(&o.classes, "classes", 1000, "outputs of --model's last layer")
	fs.StringVar(&o.params, "params", "", "the weights: the export's F-0000.params, or for --model a save_parameters file (required)")
	fs.Var(&o.images, "image", "a JPEG or PNG image (required); more may follow as plain arguments")
	fs.StringVar(&o.labels, "labels", "", "class names: a JSON list or one name per line")
	fs.Int64Var(&o.inputSize, "input-size", 224, "side S of the S x S center crop fed to the net (default: 224; 299 for --model inceptionv3)")
	fs.Int64Var(&o.resize, "resize", 256, "short side after resizing (default: 256 for a 224 input, else the input size)")
	fs.StringVar(&o.mean, "mean", "0.485,0.456,0.406", "per-channel mean subtracted (RGB, [0, 1] scale)")
	fs.StringVar(&o.std, "std", "0.229,0.224,0.225", "per-channel standard deviation divided by")
	fs.Int64Var(&o.topk, "topk", 5, "classes printed per image")
	fs.StringVar(&o.device, "device", "cpu", "cpu, cpu(0), gpu(0), ...")
	fs.StringVar(&o.interp, "interp", "bilinear", "resize filter: nearest, bilinear, bicubic, area or lanczos")
	plain, given, err := cli.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	o.given = given
	o.images = append(o.images, plain...)
	return classify(&o, out)
}

var interps = map[string]mxnet.Interp{"nearest": mxnet.InterpNearest, "bilinear": mxnet.InterpBilinear,
	"bicubic": mxnet.InterpBicubic, "area": mxnet.InterpArea, "lanczos": mxnet.InterpLanczos}

func classify(o *options, out io.Writer) error {
	if !o.given["params"] {
		return errors.New("--params is required (see classify --help)")
	}
	if len(o.images) == 0 {
		return errors.New("--image is required (see classify --help)")
	}
	size := o.inputSize
	if !o.given["input-size"] && o.given["model"] && strings.EqualFold(o.model, "inceptionv3") {
		size = 299
	}
	resize := size
	if o.given["resize"] {
		resize = o.resize
	} else if size == 224 {
		resize = 256
	}
	if o.topk < 1 {
		return fmt.Errorf("--topk must be >= 1, got %d", o.topk)
	}
	mean, err := cli.ParseFloats("mean", o.mean)
	if err != nil {
		return err
	}
	std, err := cli.ParseFloats("std", o.std)
	if err != nil {
		return err
	}
	dev, err := cli.ParseDevice(o.device)
	if err != nil {
		return err
	}
	interp, found := interps[o.interp]
	if !found {
		return fmt.Errorf("--interp must be nearest, bilinear, bicubic, area or lanczos, got '%s'", o.interp)
	}
	var labels []string
	if o.labels != "" {
		if labels, err = readLabels(o.labels); err != nil {
			return err
		}
	}
	net, err := loadNet(o, dev)
	if err != nil {
		return err
	}
	defer net.Close()
	prep, err := preprocessing(size, interp, mean, std)
	if err != nil {
		return err
	}
	defer prep.Close()
	ctx, err := mxnet.NewCtx(&mxnet.CtxOptions{Device: dev})
	if err != nil {
		return err
	}
	defer ctx.Close()
	for _, path := range o.images {
		prob, err := probabilities(ctx, net, prep, path, resize, interp, dev)
		if err != nil {
			return err
		}
		printTopK(out, path, prob, labels, o.topk)
	}
	return nil
}

// preprocessing is center crop (size x size), [0, 1] CHW, normalize.
func preprocessing(size int64, interp mxnet.Interp, mean, std []float32) (*mxnet.Transform, error) {
	crop, err := mxnet.CenterCrop(size, size, interp)
	if err != nil {
		return nil, err
	}
	defer crop.Close()
	toTensor, err := mxnet.ToTensor()
	if err != nil {
		return nil, err
	}
	defer toTensor.Close()
	norm, err := mxnet.Normalize(mean, std)
	if err != nil {
		return nil, err
	}
	defer norm.Close()
	return mxnet.Compose(crop, toTensor, norm)
}

// probabilities runs one image through the net: softmax of its output, (classes,).
func probabilities(ctx *mxnet.Ctx, net *mxnet.Block, prep *mxnet.Transform, path string, resize int64,
	interp mxnet.Interp, dev mxnet.Device) ([]float32, error) {
	img, err := mxnet.ImRead(path, true, true)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	resized, err := mxnet.ResizeShort(img, resize, interp, true)
	if err != nil {
		return nil, err
	}
	defer resized.Close()
	x, err := prep.Apply(resized)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	shape, err := x.Shape()
	if err != nil {
		return nil, err
	}
	batch, err := x.Reshape(ctx, append([]int64{1}, shape...)...)
	if err != nil {
		return nil, err
	}
	defer batch.Close()
	if dev != mxnet.CPU {
		moved, err := batch.CopyTo(dev)
		if err != nil {
			return nil, err
		}
		defer moved.Close()
		batch = moved
	}
	logits, err := net.Forward(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer logits.Close()
	probs, err := mxnet.Invoke(ctx, "softmax", []*mxnet.NDArray{logits}, nil)
	if err != nil {
		return nil, err
	}
	defer probs[0].Close()
	return probs[0].Float32s()
}

// loadNet is the export (--symbol) through SymbolBlock imports, or the model-zoo --model with
// --params loaded, hybridized.
func loadNet(o *options, dev mxnet.Device) (*mxnet.Block, error) {
	if o.given["symbol"] == o.given["model"] {
		return nil, errors.New("give exactly one of --symbol (an exported -symbol.json) or --model (a model-zoo architecture) (see classify --help)")
	}
	if o.given["symbol"] {
		if o.given["classes"] {
			return nil, errors.New("--classes applies to --model only")
		}
		return mxnet.ImportSymbolBlock(o.symbol, []string{"data"}, o.params, dev)
	}
	names, err := mxnet.ModelZooNames()
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(o.model)
	if i := sort.SearchStrings(names, name); i == len(names) || names[i] != name {
		return nil, fmt.Errorf("unknown --model '%s' (model-zoo names: %s)", o.model, strings.Join(names, ", "))
	}
	if o.classes < 1 {
		return nil, fmt.Errorf("--classes must be >= 1, got %d", o.classes)
	}
	net, err := mxnet.ModelZoo(name, &mxnet.ModelOptions{Classes: o.classes})
	if err != nil {
		return nil, err
	}
	if err := net.LoadParameters(o.params, &mxnet.LoadParametersOptions{Device: dev}); err != nil {
		net.Close()
		return nil, err
	}
	if err := net.Hybridize(nil); err != nil {
		net.Close()
		return nil, err
	}
	return net, nil
}

// readLabels reads class names: a JSON list (non-strings as JSON) or one name per line.
func readLabels(path string) ([]string, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open --labels file %s", path)
	}
	var list []json.RawMessage
	if json.Unmarshal(text, &list) == nil {
		labels := make([]string, len(list))
		for i, raw := range list {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				labels[i] = s
			} else {
				labels[i] = string(raw)
			}
		}
		return labels, nil
	}
	var labels []string
	for _, line := range strings.Split(string(text), "\n") {
		if l := strings.TrimSpace(line); l != "" {
			labels = append(labels, l)
		}
	}
	return labels, nil
}

// printTopK prints "PATH:" and the k most probable classes, best first, as
// "  1. NAME                           0.9934" (NAME: labels[c], or "class c" past their end).
func printTopK(out io.Writer, path string, prob []float32, labels []string, topk int64) {
	idx := make([]int, len(prob))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return prob[idx[a]] > prob[idx[b]] })
	k := int(topk)
	if k > len(prob) {
		k = len(prob)
	}
	fmt.Fprintf(out, "%s:\n", path)
	for i := 0; i < k; i++ {
		c := idx[i]
		name := fmt.Sprintf("class %d", c)
		if c < len(labels) {
			name = labels[c]
		}
		fmt.Fprintf(out, "  %d. %-30s %.4f\n", i+1, name, prob[c])
	}
}
