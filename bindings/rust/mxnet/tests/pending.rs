//! Scenarios S3–S6 of BINDINGS.md need C ABI families that libmxc.so 1.0 does not have yet
//! (gluon blocks and model zoo, SymbolBlock imports, Trainer, losses, parameters, image decode,
//! Fashion-MNIST). They are listed here as ignored tests, so every run counts them as skipped
//! with the reason; each becomes a real test when its family lands (see CAPI_REQUESTS.md).

#[test]
#[ignore = "pending: needs the C ABI's gluon family (SymbolBlock imports, model zoo, hybridize) and image decode"]
fn s3_inference_on_real_files() {
    panic!("S3 pending: no mxc gluon/image functions in libmxc.so 1.0");
}

#[test]
#[ignore = "pending: needs the C ABI's gluon family (Trainer, losses, export) and the Fashion-MNIST dataset/loader"]
fn s4_training() {
    panic!("S4 pending: no mxc trainer/dataset functions in libmxc.so 1.0");
}

#[test]
#[ignore = "pending: needs the C ABI's gluon family (collect_params with a regex, Parameter lr_mult/grad_req, save/load_parameters)"]
fn s5_parameters() {
    panic!("S5 pending: no mxc parameter functions in libmxc.so 1.0");
}

#[test]
#[ignore = "pending: needs the C ABI's gluon family (a hybridized block to call from 8 threads)"]
fn s6_concurrency_on_a_block() {
    panic!("S6 pending: no mxc block functions in libmxc.so 1.0 (threads.rs covers operators)");
}
