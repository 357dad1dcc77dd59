//! S5 (BINDINGS.md): parameters. `collect_params(".*weight|.*bias")` (RE2, `re.match`
//! semantics) selects exactly what the C++ API selects: the reference is the C++ CLI's
//! save_parameters file of the same net (`mxnet export --save-params`), whose names are every
//! parameter in registration order; `lr_mult` and `grad_req` change what the Trainer and
//! backward do (closed forms); save/load_parameters round-trips the values.
mod common {
    pub mod env;
}
use common::env::*;
use mxnet::{
    autograd, Block, Code, Device, GradReq, LoadParametersOptions, NDArray, Symbol, Trainer,
};

#[test]
fn s5_collect_params_selects_what_the_cpp_api_selects() {
    let dir = tmp_dir("s5-select");
    let cpp_file = dir.join("cpp.params");
    run_cli(&[
        "export",
        "--model",
        "resnet18_v1",
        "--classes",
        "10",
        "--input-shape",
        "1,3,32,32",
        "--out",
        dir.join("cpp").to_str().unwrap(),
        "--save-params",
        cpp_file.to_str().unwrap(),
    ]);
    let cpp_all = NDArray::load(&cpp_file).unwrap().names.unwrap();
    // re.match(".*weight|.*bias", name): "weight" or "bias" anywhere in the name.
    let cpp_selected: Vec<&String> = cpp_all
        .iter()
        .filter(|n| n.contains("weight") || n.contains("bias"))
        .collect();

    let net = resnet18_cifar();
    let names = |sel: &str| -> Vec<String> {
        net.collect_params(sel)
            .unwrap()
            .iter()
            .map(|p| p.name().unwrap())
            .collect()
    };
    let all = names("");
    assert_eq!(all, cpp_all, "every parameter, in registration order");
    let selected = names(".*weight|.*bias");
    assert_eq!(selected.len(), cpp_selected.len());
    assert_eq!(selected.iter().collect::<Vec<_>>(), cpp_selected);
    // resnet18_v1: 20 convolutions + 1 dense weight, 1 dense bias (no conv biases), 20
    // BatchNorm gammas/betas/running stats that are not selected.
    assert_eq!(selected.len(), 22, "{selected:?}");
    assert!(selected
        .iter()
        .all(|n| !n.contains("gamma") && !n.contains("running")));
    // re.match anchors at the start: "weight" alone matches no structured name.
    assert!(names("weight").is_empty());
    assert_eq!(names("output.*").len(), 2); // output.weight, output.bias
    let e = net.collect_params("(").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
}

/// y = FullyConnected(x; 2 hidden) as a SymbolBlock with parameters fc_weight (2, 3), fc_bias (2,).
fn dense_block() -> Block {
    let data = Symbol::variable("data").unwrap();
    let fc = Symbol::create(
        "FullyConnected",
        &[&data],
        &[("num_hidden", "2")],
        Some("fc"),
    )
    .unwrap();
    let mut net = Block::from_symbol(&fc, &["data"]).unwrap();
    net.initialize(Some("zeros"), Device::CPU, false).unwrap();
    net
}

/// sum(net(x)) recorded, then backward: d/dW = column sums of x per hidden unit, d/db = batch.
fn backward_sum(net: &Block, x: &NDArray) {
    let s = {
        let _r = autograd::record();
        let y = net.forward(x).unwrap();
        mxnet::invoke("sum", &[&y], &[]).unwrap().remove(0)
    };
    s.backward().unwrap();
}

#[test]
fn s5_lr_mult_and_grad_req_change_training() {
    let net = dense_block();
    let x = NDArray::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    net.forward(&x).unwrap(); // shapes are inferred on the first call
    let params = net.collect_params(".*weight|.*bias").unwrap();
    let names: Vec<String> = params.iter().map(|p| p.name().unwrap()).collect();
    assert_eq!(names, ["fc_weight", "fc_bias"]);
    let (mut w, mut b) = (params[0].clone(), params[1].clone());
    assert_eq!(w.shape().unwrap(), Some(vec![2, 3]));
    assert_eq!(w.lr_mult().unwrap(), 1.0);
    assert_eq!(w.grad_req().unwrap(), GradReq::Write);

    // lr_mult 0.5 on the weight, grad_req null on the bias: SGD(lr 0.1) moves the weight by
    // -0.1 * 0.5 * [5, 7, 9] per row and leaves the bias alone.
    w.set_lr_mult(0.5).unwrap();
    assert_eq!(w.lr_mult().unwrap(), 0.5);
    b.set_grad_req(GradReq::Null).unwrap();
    assert_eq!(b.grad_req().unwrap(), GradReq::Null);
    assert!(b.grad().is_err(), "grad_req null has no gradient buffer");
    let mut trainer = Trainer::new(&params, "sgd", &[("learning_rate", "0.1")]).unwrap();
    backward_sum(&net, &x);
    assert_eq!(
        w.grad().unwrap().to_vec::<f32>().unwrap(),
        [5.0, 7.0, 9.0, 5.0, 7.0, 9.0]
    );
    trainer.step(1).unwrap();
    let got = w.data().unwrap().to_vec::<f32>().unwrap();
    let want = [-0.25f32, -0.35, -0.45, -0.25, -0.35, -0.45];
    assert!(max_abs_diff(&got, &want) < 1e-6, "{got:?}");
    assert_eq!(b.data().unwrap().to_vec::<f32>().unwrap(), [0.0, 0.0]);

    // grad_req add accumulates over two backward passes.
    w.set_grad_req(GradReq::Add).unwrap();
    w.zero_grad().unwrap();
    backward_sum(&net, &x);
    backward_sum(&net, &x);
    assert_eq!(
        w.grad().unwrap().to_vec::<f32>().unwrap(),
        [10.0, 14.0, 18.0, 10.0, 14.0, 18.0]
    );
    assert!(w.set_grad_req(GradReq::Write).is_ok());
}

#[test]
fn s5_save_and_load_parameters_round_trip() {
    let dir = tmp_dir("s5-roundtrip");
    let mut net = resnet18_cifar();
    net.initialize(Some("xavier"), Device::CPU, false).unwrap();
    let x = NDArray::from_slice(&pseudo_random(3 * 32 * 32, 3), &[1, 3, 32, 32]).unwrap();
    let before = net.forward(&x).unwrap().to_vec::<f32>().unwrap();
    let path = dir.join("r18.params");
    net.save_parameters(&path).unwrap();
    let saved = NDArray::load(&path).unwrap();
    let names: Vec<String> = net
        .collect_params("")
        .unwrap()
        .iter()
        .map(|p| p.name().unwrap())
        .collect();
    assert_eq!(saved.names.as_ref().unwrap(), &names);

    // Overwrite every weight, check the output changed, load, check it is back exactly.
    for mut p in net.collect_params(".*weight").unwrap() {
        let shape = p.shape().unwrap().unwrap();
        p.set_data(&NDArray::zeros(&shape, mxnet::DType::Float32).unwrap())
            .unwrap();
    }
    assert_ne!(net.forward(&x).unwrap().to_vec::<f32>().unwrap(), before);
    net.load_parameters(&path, &LoadParametersOptions::default())
        .unwrap();
    assert_eq!(net.forward(&x).unwrap().to_vec::<f32>().unwrap(), before);
    for p in net.collect_params("").unwrap() {
        let n = p.name().unwrap();
        assert_eq!(
            p.data().unwrap().to_vec::<f32>().unwrap(),
            saved.get(&n).unwrap().to_vec::<f32>().unwrap(),
            "{n}"
        );
    }

    // A file of another net: missing names are an error naming them.
    let other = dir.join("other.params");
    let dense = dense_block();
    dense
        .forward(&NDArray::zeros(&[1, 3], mxnet::DType::Float32).unwrap())
        .unwrap();
    dense.save_parameters(&other).unwrap();
    let e = net
        .load_parameters(&other, &LoadParametersOptions::default())
        .unwrap_err();
    assert!(
        e.message().contains("fc_weight") || e.message().contains("missing"),
        "{e}"
    );
    let e = net
        .load_parameters(dir.join("nope.params"), &LoadParametersOptions::default())
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
}
