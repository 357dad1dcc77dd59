//! Trains LeNet on Fashion-MNIST through the Rust binding (autograd + Trainer), like
//! `mxnet train`'s default net, then exports it:
//!
//! ```text
//! cargo run --release --example train -- --epochs 3 --limit 12000 --out /tmp/lenet
//! ```
//! Flags: `--data DIR` (Fashion-MNIST idx files; default /usr/share/datasets/fashion-mnist),
//! `--epochs 3`, `--limit N` (train on the first N images and test on N/6; 0: all),
//! `--batch-size 128`, `--optimizer adam`, `--lr 0.002`, `--seed 0`, `--workers 0`,
//! `--out DIR` (writes DIR/model-symbol.json and DIR/model-0000.params). Prints one line per
//! epoch (loss, train accuracy, test accuracy, samples/s).
use mxnet::data::{DataLoader, Dataset, LoaderOptions, Transform};
use mxnet::{autograd, training, Block, Context, Device, HybridizeOptions, NDArray, Result};
use mxnet::{Code, Error, Symbol, Trainer};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// LeNet-5's layout as `mxnet train` builds it: conv 5x5 16 (pad 2) relu, max-pool 2, conv 5x5
/// 32 relu, max-pool 2, dense 128 relu, dense 10. Input (N, 1, 28, 28) float32 NCHW, output
/// (N, 10) logits. Returns the graph and its SymbolBlock, parameters uninitialized (shapes
/// inferred on the first call).
pub fn lenet() -> Result<(Symbol, Block)> {
    let conv = |x: &Symbol, name: &str, filters: &str, pad: &str| -> Result<Symbol> {
        let c = Symbol::create(
            "Convolution",
            &[x],
            &[("kernel", "(5, 5)"), ("num_filter", filters), ("pad", pad)],
            Some(name),
        )?;
        let r = Symbol::create("Activation", &[&c], &[("act_type", "relu")], None)?;
        Symbol::create(
            "Pooling",
            &[&r],
            &[
                ("pool_type", "max"),
                ("kernel", "(2, 2)"),
                ("stride", "(2, 2)"),
            ],
            None,
        )
    };
    let data = Symbol::variable("data")?;
    let c1 = conv(&data, "conv0", "16", "(2, 2)")?;
    let c2 = conv(&c1, "conv1", "32", "(0, 0)")?;
    let flat = Symbol::create("Flatten", &[&c2], &[], None)?;
    let d1 = Symbol::create(
        "FullyConnected",
        &[&flat],
        &[("num_hidden", "128")],
        Some("dense0"),
    )?;
    let r1 = Symbol::create("Activation", &[&d1], &[("act_type", "relu")], None)?;
    let d2 = Symbol::create(
        "FullyConnected",
        &[&r1],
        &[("num_hidden", "10")],
        Some("dense1"),
    )?;
    let net = Block::from_symbol(&d2, &["data"])?;
    Ok((d2, net))
}

/// `HybridBlock.export(prefix, epoch)` for a SymbolBlock made from `graph`: writes
/// `prefix-symbol.json` and `prefix-NNNN.params` (`arg:`/`aux:` keys, what SymbolBlock.imports,
/// MXNet and `mxnet predict` read). `Block::export` cannot do it for SymbolBlocks today
/// (CAPI_REQUESTS.md, item 6).
pub fn export(graph: &Symbol, net: &Block, prefix: &Path, epoch: u32) -> Result<()> {
    graph.save(format!("{}-symbol.json", prefix.display()))?;
    let aux = graph.list_auxiliary_states()?;
    let params = net.collect_params("")?;
    let mut names = Vec::new();
    let mut arrays = Vec::new();
    for p in &params {
        let n = p.name()?;
        let kind = if aux.contains(&n) { "aux" } else { "arg" };
        names.push(format!("{kind}:{n}"));
        arrays.push(p.data()?);
    }
    let refs: Vec<&NDArray> = arrays.iter().collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    NDArray::save(
        format!("{}-{epoch:04}.params", prefix.display()),
        &refs,
        Some(&name_refs),
        Default::default(),
    )
}

/// Fashion-MNIST from `root` (train or test split), the first `limit` samples (0: all), as
/// `mxnet train` feeds it: ToTensor, Normalize(0.286, 0.353).
pub fn fashion_mnist(root: &Path, train: bool, limit: usize) -> Result<Dataset> {
    let mut ds = Dataset::fashion_mnist(Some(root), train)?;
    if limit > 0 {
        ds = ds.take(limit)?;
    }
    let prep = Transform::compose(&[
        &Transform::to_tensor()?,
        &Transform::normalize(&[0.286], &[0.353])?,
    ])?;
    ds.transform_first(&prep, false)
}

/// Predicted classes (argmax over axis 1) of (N, C) scores.
pub fn predicted(scores: &NDArray) -> Result<Vec<i32>> {
    let a = mxnet::invoke("argmax", &[scores], &[("axis", "1")])?.remove(0);
    Ok(a.to_vec::<f32>()?.into_iter().map(|c| c as i32).collect())
}

/// Classification accuracy of `net` over `loader` (predict mode).
pub fn accuracy(net: &Block, loader: &mut DataLoader) -> Result<f64> {
    let (mut right, mut total) = (0usize, 0usize);
    for batch in loader {
        let batch = batch?;
        let pred = predicted(&net.forward(&batch[0])?)?;
        let labels = batch[1].to_vec::<i32>()?;
        right += pred.iter().zip(&labels).filter(|(p, l)| p == l).count();
        total += labels.len();
    }
    Ok(if total == 0 {
        0.0
    } else {
        right as f64 / total as f64
    })
}

/// Training settings (the example's flags).
#[derive(Clone, Debug)]
pub struct Settings {
    /// Fashion-MNIST directory.
    pub data: PathBuf,
    /// Passes over the training set.
    pub epochs: usize,
    /// Training samples (0: all); the test set gets limit / 6.
    pub limit: usize,
    /// Samples per batch.
    pub batch_size: usize,
    /// MXNet optimizer name.
    pub optimizer: String,
    /// Learning rate.
    pub lr: f64,
    /// Seed of initialization and shuffling.
    pub seed: u64,
    /// DataLoader worker threads.
    pub workers: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            data: PathBuf::from("/usr/share/datasets/fashion-mnist"),
            epochs: 3,
            limit: 12000,
            batch_size: 128,
            optimizer: "adam".into(),
            lr: 0.002,
            seed: 0,
            workers: 0,
        }
    }
}

/// Trains a hybridized LeNet with `s`; returns its graph, the trained block and the test
/// accuracy after each epoch. `log` receives one line per epoch.
pub fn train(s: &Settings, mut log: impl FnMut(&str)) -> Result<(Symbol, Block, Vec<f64>)> {
    mxnet::context::replace_current(Context::with_options(Device::CPU, Some(s.seed))?);
    let train_ds = fashion_mnist(&s.data, true, s.limit)?;
    let test_ds = fashion_mnist(
        &s.data,
        false,
        if s.limit > 0 { (s.limit / 6).max(1) } else { 0 },
    )?;
    let (graph, mut net) = lenet()?;
    net.initialize(Some("xavier"), Device::CPU, false)?;
    net.hybridize(&HybridizeOptions::default())?;
    let params = net.collect_params("")?;
    let lr = s.lr.to_string();
    let mut trainer = Trainer::new(&params, &s.optimizer, &[("learning_rate", lr.as_str())])?;
    let loss = training::loss("SoftmaxCrossEntropyLoss", &[])?;
    let mut train_loader = DataLoader::new(
        &train_ds,
        &LoaderOptions {
            shuffle: true,
            num_workers: s.workers,
            ..LoaderOptions::new(s.batch_size)
        },
    )?;
    let mut test_loader = DataLoader::new(
        &test_ds,
        &LoaderOptions {
            num_workers: s.workers,
            ..LoaderOptions::new(256)
        },
    )?;
    let mut test_acc = Vec::new();
    for epoch in 1..=s.epochs {
        let t0 = Instant::now();
        let (mut loss_sum, mut right, mut seen) = (0.0f64, 0usize, 0usize);
        for batch in &mut train_loader {
            let batch = batch?;
            let (x, y) = (&batch[0], &batch[1]);
            let n = y.shape()?[0] as usize;
            let (pred, l) = {
                let _r = autograd::record();
                let pred = net.forward(x)?;
                let l = loss.call(&[&pred, y])?.remove(0);
                (pred, l)
            };
            l.backward()?;
            trainer.step(n)?;
            loss_sum += l.to_vec::<f32>()?.iter().map(|&v| v as f64).sum::<f64>();
            let labels = y.to_vec::<i32>()?;
            right += predicted(&pred)?
                .iter()
                .zip(&labels)
                .filter(|(p, l)| p == l)
                .count();
            seen += n;
        }
        let secs = t0.elapsed().as_secs_f64();
        let acc = accuracy(&net, &mut test_loader)?;
        test_acc.push(acc);
        log(&format!(
            "epoch {epoch}/{}: loss {:.4}  train accuracy {:.4}  test accuracy {:.4}  {:.0} samples/s",
            s.epochs,
            loss_sum / seen.max(1) as f64,
            right as f64 / seen.max(1) as f64,
            acc,
            seen as f64 / secs
        ));
    }
    Ok((graph, net, test_acc))
}

fn parse(args: &[String]) -> Result<(Settings, Option<PathBuf>)> {
    let mut s = Settings::default();
    let mut out = None;
    let bad = |m: String| Error::new(Code::InvalidArgument, m);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let key = a
            .strip_prefix("--")
            .ok_or_else(|| bad(format!("unexpected argument '{a}'")))?;
        let v = it
            .next()
            .ok_or_else(|| bad(format!("flag --{key} needs a value")))?;
        let num = |v: &str| {
            v.parse::<f64>()
                .map_err(|_| bad(format!("--{key} must be a number, got '{v}'")))
        };
        match key {
            "data" => s.data = PathBuf::from(v),
            "epochs" => s.epochs = num(v)? as usize,
            "limit" => s.limit = num(v)? as usize,
            "batch-size" => s.batch_size = num(v)? as usize,
            "optimizer" => s.optimizer = v.clone(),
            "lr" => s.lr = num(v)?,
            "seed" => s.seed = num(v)? as u64,
            "workers" => s.workers = num(v)? as usize,
            "out" => out = Some(PathBuf::from(v)),
            _ => return Err(bad(format!("unknown flag --{key}"))),
        }
    }
    Ok((s, out))
}

#[allow(dead_code)] // tests include this file as a module for its functions
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = || -> Result<()> {
        let (s, out) = parse(&args)?;
        let (graph, net, acc) = train(&s, |line| println!("{line}"))?;
        println!("test accuracy {:.4}", acc.last().copied().unwrap_or(0.0));
        if let Some(dir) = out {
            std::fs::create_dir_all(&dir).map_err(|e| {
                Error::new(
                    Code::PermissionDenied,
                    format!("cannot create {}: {e}", dir.display()),
                )
            })?;
            export(&graph, &net, &dir.join("model"), 0)?;
            println!(
                "exported {}/model-symbol.json and model-0000.params",
                dir.display()
            );
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("train: {e}");
        std::process::exit(1);
    }
}
