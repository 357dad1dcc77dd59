//! Where the scenario tests find real data and the C++ CLI (the independent reference), and
//! small helpers shared by S3-S6.
#![allow(dead_code)]
use mxnet::NDArray;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `../shared` (design docs and real data): $MXNET_SHARED_DIR, else a `shared` directory next
/// to an ancestor of this crate (/work/shared for /work/<worktree>/bindings/rust/mxnet).
pub fn shared_dir() -> PathBuf {
    let probe = |d: &Path| {
        d.join("data/models/cifar_resnet20_v1-symbol.json")
            .is_file()
    };
    if let Ok(d) = std::env::var("MXNET_SHARED_DIR") {
        let d = PathBuf::from(d);
        assert!(
            probe(&d),
            "MXNET_SHARED_DIR={} has no data/models",
            d.display()
        );
        return d;
    }
    for a in Path::new(env!("CARGO_MANIFEST_DIR")).ancestors() {
        if probe(&a.join("shared")) {
            return a.join("shared");
        }
    }
    panic!("../shared/data not found: set MXNET_SHARED_DIR to the shared directory");
}

pub fn models() -> PathBuf {
    shared_dir().join("data/models")
}

pub fn image(name: &str) -> PathBuf {
    shared_dir().join("data/images").join(name)
}

/// Fashion-MNIST's idx files: $MXNET_FASHION_MNIST, else Debian's dataset-fashion-mnist.
pub fn fashion_mnist_root() -> PathBuf {
    let d = std::env::var("MXNET_FASHION_MNIST")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("/usr/share/datasets/fashion-mnist"));
    assert!(
        d.is_dir(),
        "Fashion-MNIST not found at {} (install dataset-fashion-mnist or set MXNET_FASHION_MNIST)",
        d.display()
    );
    d
}

/// The C++ CLI `mxnet` (tools/mxnet): $MXNET_CLI, else the workspace's bazel-bin.
pub fn cli() -> PathBuf {
    if let Ok(p) = std::env::var("MXNET_CLI") {
        return PathBuf::from(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../bazel-bin/tools/mxnet/mxnet");
    assert!(
        p.is_file(),
        "the C++ CLI is the reference: build it (./bazelw build //tools/mxnet:mxnet) or set MXNET_CLI"
    );
    p
}

/// Runs a command; its stdout. Panics (with its output) when it fails.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `mxnet <args>` (the C++ CLI); its stdout.
pub fn run_cli(args: &[&str]) -> String {
    run(Command::new(cli()).args(args))
}

/// A fresh directory for one test's files.
pub fn tmp_dir(name: &str) -> PathBuf {
    let base = std::env::var("TEST_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir());
    let d = base.join(format!("mxnet-rust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The model zoo's `resnet18_v1` with 10 classes (CIFAR-sized use), parameters uninitialized.
pub fn resnet18_cifar() -> mxnet::Block {
    mxnet::model_zoo::get_model(
        "resnet18_v1",
        &mxnet::model_zoo::ModelOptions {
            classes: 10,
            ..Default::default()
        },
    )
    .unwrap()
}

/// `n` deterministic values in [-1, 1) (a 64-bit LCG), for test inputs.
pub fn pseudo_random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Largest |a - b|, after checking the lengths agree.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// The C++ CLI's `predict` of an export on `x` (input "data"): the first output's values.
pub fn cli_predict(prefix: &Path, x: &NDArray, dir: &Path) -> Vec<f32> {
    let input = dir.join("cli_input.nd");
    let output = dir.join("cli_output.nd");
    NDArray::save(&input, &[x], Some(&["data"]), Default::default()).unwrap();
    let sym = format!("{}-symbol.json", prefix.display());
    let params = format!("{}-0000.params", prefix.display());
    run_cli(&[
        "predict",
        "--symbol",
        &sym,
        "--params",
        &params,
        "--input",
        input.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    let l = NDArray::load(&output).unwrap();
    l.arrays[0].as_ref().unwrap().to_vec::<f32>().unwrap()
}

/// The compiled `classify` example (cargo test builds examples next to the test binaries).
pub fn classify_example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let p = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/classify");
    assert!(
        p.is_file(),
        "the classify example was not built at {}",
        p.display()
    );
    p
}

pub const CIFAR_LABELS: &str =
    "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n";
