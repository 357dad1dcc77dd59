package mxnet_test

// S3–S6 of ../shared/BINDINGS.md need C ABI families that libmxc does not have yet (gluon:
// model zoo, Block call/hybridize/export, SymbolBlock imports, collect_params, Parameter,
// Trainer, losses; image decode; the Fashion-MNIST dataset and loader). They are pending: they
// skip, naming what they wait for, so the test count shows them. bindings/go/CAPI_REQUESTS.md
// lists the functions.

import "testing"

func pending(t *testing.T, what string) {
	t.Skip("PENDING: waits for the C ABI's " + what + " (see bindings/go/CAPI_REQUESTS.md)")
}

// S3: SymbolBlock imports of cifar_resnet20_v1 classify cat.jpg / dog.jpg (p > 0.9, logits
// within 1e-5 of the CLI's classify); model-zoo resnet18_v1 builds, hybridizes and matches C++.
func TestS3InferenceOnRealFiles(t *testing.T) {
	pending(t, "gluon family (mxc_block: SymbolBlock imports, model zoo, call, hybridize); image decode works through the operators (image_test.go)")
}

// S4: LeNet on 12,000 Fashion-MNIST images with autograd + Trainer (Adam) reaches > 83 % on
// 2,000 test images; export; the CLI's predict reads it.
func TestS4Training(t *testing.T) {
	pending(t, "gluon family (model zoo LeNet, Trainer, losses, export) and Fashion-MNIST dataset/loader")
}

// S5: collect_params(".*weight|.*bias") selects what the C++ API selects; lr_mult, grad_req;
// save/load_parameters round trip.
func TestS5Parameters(t *testing.T) {
	pending(t, "gluon family (collect_params, Parameter, save/load_parameters)")
}

// S6: one hybridized block called from 8 goroutines x 200 calls: identical outputs.
func TestS6Concurrency(t *testing.T) {
	pending(t, "gluon family (hybridized Block call); concurrency_test.go runs the same pattern on operators now")
}
