//! S3 (BINDINGS.md): inference on real files. The real GluonCV CIFAR-10 ResNet-20 export
//! (`../shared/data/models`) through `SymbolBlock::imports` classifies the real photos as cat
//! (0.9620) and dog (0.9934), the figures of the C++ CLI and of real MXNet 1.9.1 on the same
//! tensor; its logits equal the C++ CLI's `predict` within 1e-5; the `classify` example prints
//! exactly what `mxnet classify` prints; a model-zoo `resnet18_v1` builds, hybridizes (same
//! output as imperative), and its save_parameters file / export give the C++ library's output.
mod common {
    pub mod env;
}
use common::env::*;
use mxnet::data::{image, Interp, Transform};
use mxnet::model_zoo::list_models;
use mxnet::{Block, Context, Device, HybridizeOptions, NDArray};
use std::process::Command;

const CIFAR_MEAN: [f32; 3] = [0.4914, 0.4822, 0.4465];
const CIFAR_STD: [f32; 3] = [0.2023, 0.1994, 0.2010];

/// classify's preprocessing at input size 32: short side 32 (long side rounded), center crop,
/// [0, 1] CHW, CIFAR normalization, batch of one: (1, 3, 32, 32) float32.
fn cifar_input(photo: &str) -> NDArray {
    let img = image::read(image(photo)).unwrap();
    let shape = img.shape().unwrap();
    assert_eq!(shape.len(), 3);
    assert_eq!(shape[2], 3, "HWC with 3 channels");
    let resized = image::resize_short(&img, 32, Interp::Bilinear, true).unwrap();
    let prep = Transform::compose(&[
        &Transform::center_crop(32, 32, Interp::Bilinear).unwrap(),
        &Transform::to_tensor().unwrap(),
        &Transform::normalize(&CIFAR_MEAN, &CIFAR_STD).unwrap(),
    ])
    .unwrap();
    let x = prep.apply(&resized).unwrap();
    assert_eq!(x.shape().unwrap(), [3, 32, 32]);
    x.reshape(&[1, 3, 32, 32]).unwrap()
}

fn softmax(logits: &NDArray) -> Vec<f32> {
    mxnet::invoke("softmax", &[logits], &[]).unwrap()[0]
        .to_vec::<f32>()
        .unwrap()
}

fn argmax(v: &[f32]) -> usize {
    (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap()
}

#[test]
fn s3_cifar_export_classifies_the_real_photos_like_the_cpp_cli() {
    let m = models();
    let prefix = m.join("cifar_resnet20_v1");
    let net = Block::imports(
        m.join("cifar_resnet20_v1-symbol.json"),
        &["data"],
        Some(&m.join("cifar_resnet20_v1-0000.params")),
        Device::CPU,
    )
    .unwrap();
    let dir = tmp_dir("s3-cifar");
    // (photo, CIFAR-10 class, the probability `mxnet classify` and real MXNet print).
    for (photo, class, want) in [("cat.jpg", 3, "0.9620"), ("dog.jpg", 5, "0.9934")] {
        let x = cifar_input(photo);
        let logits = net.forward(&x).unwrap();
        assert_eq!(logits.shape().unwrap(), [1, 10]);
        let p = softmax(&logits);
        assert_eq!(argmax(&p), class, "{photo}: probabilities {p:?}");
        assert!(p[class] > 0.9, "{photo}: {}", p[class]);
        assert_eq!(format!("{:.4}", p[class]), want, "{photo}");
        let ours = logits.to_vec::<f32>().unwrap();
        let cpp = cli_predict(&prefix, &x, &dir);
        let d = max_abs_diff(&ours, &cpp);
        assert!(
            d <= 1e-5,
            "{photo}: logits differ from the C++ CLI's by {d}: {ours:?} vs {cpp:?}"
        );
    }
}

#[test]
fn s3_classify_example_prints_what_mxnet_classify_prints() {
    let m = models();
    let dir = tmp_dir("s3-example");
    let labels = dir.join("labels.txt");
    std::fs::write(&labels, CIFAR_LABELS).unwrap();
    let (sym, params) = (
        m.join("cifar_resnet20_v1-symbol.json"),
        m.join("cifar_resnet20_v1-0000.params"),
    );
    let (cat, dog) = (image("cat.jpg"), image("dog.jpg"));
    let args: Vec<&str> = vec![
        "--symbol",
        sym.to_str().unwrap(),
        "--params",
        params.to_str().unwrap(),
        "--image",
        cat.to_str().unwrap(),
        dog.to_str().unwrap(),
        "--labels",
        labels.to_str().unwrap(),
        "--input-size",
        "32",
        "--mean",
        "0.4914,0.4822,0.4465",
        "--std",
        "0.2023,0.1994,0.2010",
        "--topk",
        "3",
    ];
    let ours = run(Command::new(classify_example()).args(&args));
    let mut cli_args = vec!["classify"];
    cli_args.extend(&args);
    let cpp = run_cli(&cli_args);
    assert_eq!(ours, cpp);
    let want_cat = format!("{}:\n  1. {:<30} 0.9620\n", cat.display(), "cat");
    let want_dog = format!("{}:\n  1. {:<30} 0.9934\n", dog.display(), "dog");
    assert!(ours.contains(&want_cat), "{ours}");
    assert!(ours.contains(&want_dog), "{ours}");
}

#[test]
fn s3_model_zoo_resnet18_hybridizes_and_gives_the_cpp_output() {
    let names = list_models().unwrap();
    assert!(names.iter().any(|n| n == "resnet18_v1"), "{names:?}");
    let mut net = resnet18_cifar();
    mxnet::context::replace_current(Context::with_options(Device::CPU, Some(7)).unwrap());
    net.initialize(Some("xavier"), Device::CPU, false).unwrap();
    let x = NDArray::from_slice(&pseudo_random(3 * 32 * 32, 1), &[1, 3, 32, 32]).unwrap();
    let imperative = net.forward(&x).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(imperative.len(), 10);
    net.hybridize(&HybridizeOptions::default()).unwrap();
    let hybrid = net.forward(&x).unwrap().to_vec::<f32>().unwrap();
    let d = max_abs_diff(&imperative, &hybrid);
    assert!(d <= 1e-5, "hybridized output differs by {d}");
    assert_eq!(net.forward(&x).unwrap().to_vec::<f32>().unwrap(), hybrid);

    // The export read back by the binding and by the C++ CLI gives the same output.
    let dir = tmp_dir("s3-zoo");
    let prefix = dir.join("r18");
    net.export(&prefix, 0).unwrap();
    let back = Block::imports(
        dir.join("r18-symbol.json"),
        &["data"],
        Some(&dir.join("r18-0000.params")),
        Device::CPU,
    )
    .unwrap();
    let d = max_abs_diff(&back.forward(&x).unwrap().to_vec::<f32>().unwrap(), &hybrid);
    assert!(d <= 1e-5, "re-imported export differs by {d}");
    let cpp = cli_predict(&prefix, &x, &dir);
    let d = max_abs_diff(&cpp, &hybrid);
    assert!(d <= 1e-5, "the C++ CLI's predict differs by {d}");

    // The save_parameters file through `mxnet classify --model` and through the example.
    let params = dir.join("r18.params");
    net.save_parameters(&params).unwrap();
    let cat = image("cat.jpg");
    let args = [
        "--model",
        "resnet18_v1",
        "--classes",
        "10",
        "--params",
        params.to_str().unwrap(),
        "--image",
        cat.to_str().unwrap(),
        "--input-size",
        "32",
        "--topk",
        "10",
    ];
    let ours = run(Command::new(classify_example()).args(args));
    let mut cli_args = vec!["classify"];
    cli_args.extend(args);
    assert_eq!(ours, run_cli(&cli_args));
    assert_eq!(ours.lines().count(), 11, "{ours}");
}

/// ONNX (ABI 1.2): the real CIFAR export written as ONNX and read back (file and bytes) gives
/// the logits of the original block for the real photo, also at batch 2 (dynamic batch); a
/// corrupt model and a bad opset are errors naming the problem.
#[test]
fn s3_cifar_export_round_trips_through_onnx() {
    let m = models();
    let net = Block::imports(
        m.join("cifar_resnet20_v1-symbol.json"),
        &["data"],
        Some(&m.join("cifar_resnet20_v1-0000.params")),
        Device::CPU,
    )
    .unwrap();
    let dir = tmp_dir("s3-onnx");
    let path = dir.join("resnet20.onnx");
    net.export_onnx(&[&[1, 3, 32, 32]], &path, 17, false)
        .unwrap();
    let x = cifar_input("cat.jpg");
    let want = net.forward(&x).unwrap().to_vec::<f32>().unwrap();
    let from_file = Block::imports_onnx(&path, Device::CPU).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let from_bytes = Block::imports_onnx_bytes(&bytes, Device::CPU).unwrap();
    for b in [&from_file, &from_bytes] {
        let got = b.forward(&x).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(got.len(), 10);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-4 * (1.0 + w.abs()), "{g} vs {w}");
        }
    }
    let x2 = mxnet::invoke("Concat", &[&x, &x], &[("dim", "0"), ("num_args", "2")])
        .unwrap()
        .remove(0);
    let got2 = from_file.forward(&x2).unwrap();
    assert_eq!(got2.shape().unwrap(), [2, 10]);
    let e = Block::imports_onnx_bytes(&bytes[..bytes.len() / 2], Device::CPU).unwrap_err();
    assert!(e.to_string().contains("ONNX"), "{e}");
    let e = net
        .export_onnx(&[&[1, 3, 32, 32]], dir.join("x.onnx"), 12, false)
        .unwrap_err();
    assert!(e.to_string().contains("opset"), "{e}");
}
