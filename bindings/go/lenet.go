package mxnet

// LeNet returns the default network of `mxnet train` (the C++ CLI) as a SymbolBlock with data
// input "data": LeNet-5's layout (LeCun et al. 1998) with ReLU, max pooling and wider layers,
// for (N, 1, 28, 28) float32 input (Fashion-MNIST, MNIST), giving (N, 10) logits:
//
//	conv0 5x5, 16 channels, pad 2 + relu -> max pool 2 -> conv1 5x5, 32 channels + relu
//	-> max pool 2 -> flatten -> dense0 128 + relu -> dense1 10
//
// Its 8 parameters are conv0_weight (16, 1, 5, 5), conv0_bias, conv1_weight (32, 16, 5, 5),
// conv1_bias, dense0_weight (128, 800), dense0_bias, dense1_weight (10, 128), dense1_bias,
// uninitialized (call Initialize, e.g. with "xavier" as the CLI does). Export it with
// ExportSymbolBlock(LeNetSymbol(), ...) (Block.Export needs a traced graph, which SymbolBlocks
// lack; see CAPI_REQUESTS.md).
func LeNet() (*Block, error) {
	g, err := LeNetSymbol()
	if err != nil {
		return nil, err
	}
	defer g.Close()
	return NewSymbolBlock(g, []string{"data"})
}

// LeNetSymbol returns LeNet's graph (data input "data", output (N, 10) logits), as LeNet builds
// it.
func LeNetSymbol() (*Symbol, error) {
	type layer struct {
		op    string
		attrs Attrs
		name  string
	}
	layers := []layer{
		{"Convolution", Attrs{"kernel": []int{5, 5}, "num_filter": 16, "pad": []int{2, 2}}, "conv0"},
		{"Activation", Attrs{"act_type": "relu"}, "conv0_relu"},
		{"Pooling", Attrs{"kernel": []int{2, 2}, "stride": []int{2, 2}, "pool_type": "max"}, "pool0"},
		{"Convolution", Attrs{"kernel": []int{5, 5}, "num_filter": 32}, "conv1"},
		{"Activation", Attrs{"act_type": "relu"}, "conv1_relu"},
		{"Pooling", Attrs{"kernel": []int{2, 2}, "stride": []int{2, 2}, "pool_type": "max"}, "pool1"},
		{"Flatten", nil, "flatten0"},
		{"FullyConnected", Attrs{"num_hidden": 128}, "dense0"},
		{"Activation", Attrs{"act_type": "relu"}, "dense0_relu"},
		{"FullyConnected", Attrs{"num_hidden": 10}, "dense1"},
	}
	x, err := Variable("data")
	if err != nil {
		return nil, err
	}
	for _, l := range layers {
		y, err := CreateSymbol(l.op, []*Symbol{x}, l.attrs, l.name)
		x.Close()
		if err != nil {
			return nil, err
		}
		x = y
	}
	return x, nil
}
