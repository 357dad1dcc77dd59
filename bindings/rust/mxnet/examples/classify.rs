//! `mxnet classify` in Rust: top-k classes of images through an exported model (`--symbol` +
//! `--params`, input "data") or a model-zoo architecture (`--model` + a save_parameters
//! `--params`). Same flags, preprocessing and output lines as the C++ CLI:
//!
//! ```text
//! cargo run --example classify -- --symbol ../../shared/data/models/cifar_resnet20_v1-symbol.json \
//!     --params ../../shared/data/models/cifar_resnet20_v1-0000.params \
//!     --image ../../shared/data/images/cat.jpg --labels labels.txt --input-size 32 \
//!     --mean 0.4914,0.4822,0.4465 --std 0.2023,0.1994,0.2010 --topk 1
//! ```
//! prints `PATH:` and then `  1. NAME<padded to 30> 0.9620` lines per image. Preprocessing:
//! decode (HWC uint8 RGB), short side to `--resize` (default 256 for a 224 input, else the input
//! size; antialiased, long side rounded), center crop `--input-size`, `ToTensor` (CHW [0, 1]),
//! `Normalize(--mean, --std)`, batch of one (1, 3, S, S); softmax of the net's output.
use mxnet::data::{image, Interp, Transform};
use mxnet::model_zoo::{get_model, list_models, ModelOptions};
use mxnet::{Block, Code, Device, Error, HybridizeOptions, LoadParametersOptions, Result};
use std::path::Path;

#[derive(Debug)]
struct Flags {
    symbol: Option<String>,
    model: Option<String>,
    classes: Option<i64>,
    params: Option<String>,
    images: Vec<String>,
    labels: Option<String>,
    input_size: Option<i64>,
    resize: Option<i64>,
    mean: String,
    std: String,
    topk: i64,
    device: String,
    interp: String,
}

const USAGE: &str =
    "usage: classify --symbol F-symbol.json --params F-0000.params --image IMG [IMG ...]
       classify --model NAME [--classes 1000] --params F.params --image IMG [...]
                [--labels FILE] [--input-size 224] [--resize N]
                [--mean 0.485,0.456,0.406] [--std 0.229,0.224,0.225] [--topk 5]
                [--device cpu] [--interp bilinear|bicubic|lanczos|area|nearest]";

fn bad(msg: impl Into<String>) -> Error {
    Error::new(Code::InvalidArgument, msg)
}

fn parse_flags(args: &[String]) -> Result<Flags> {
    let mut f = Flags {
        symbol: None,
        model: None,
        classes: None,
        params: None,
        images: Vec::new(),
        labels: None,
        input_size: None,
        resize: None,
        mean: "0.485,0.456,0.406".into(),
        std: "0.229,0.224,0.225".into(),
        topk: 5,
        device: "cpu".into(),
        interp: "bilinear".into(),
    };
    let int = |k: &str, v: &str| {
        v.parse::<i64>()
            .map_err(|_| bad(format!("--{k} must be an integer, got '{v}'")))
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !a.starts_with("--") {
            f.images.push(a.clone()); // more images as plain arguments
            i += 1;
            continue;
        }
        let (key, inline) = match a[2..].split_once('=') {
            Some((k, v)) => (k.replace('-', "_"), Some(v.to_string())),
            None => (a[2..].replace('-', "_"), None),
        };
        if key == "help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let v = match inline {
            Some(v) => v,
            None => {
                i += 1;
                args.get(i)
                    .cloned()
                    .ok_or_else(|| bad(format!("flag --{key} needs a value")))?
            }
        };
        match key.as_str() {
            "symbol" => f.symbol = Some(v),
            "model" => f.model = Some(v),
            "classes" => f.classes = Some(int("classes", &v)?),
            "params" => f.params = Some(v),
            "image" => f.images.push(v),
            "labels" => f.labels = Some(v),
            "input_size" => f.input_size = Some(int("input-size", &v)?),
            "resize" => f.resize = Some(int("resize", &v)?),
            "mean" => f.mean = v,
            "std" => f.std = v,
            "topk" => f.topk = int("topk", &v)?,
            "device" => f.device = v,
            "interp" => f.interp = v,
            _ => return Err(bad(format!("unknown flag --{key} (see classify --help)"))),
        }
        i += 1;
    }
    Ok(f)
}

fn parse_floats(name: &str, s: &str) -> Result<Vec<f32>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<f32>()
                .map_err(|_| bad(format!("--{name}: '{x}' is not a number")))
        })
        .collect()
}

fn parse_device(s: &str) -> Result<Device> {
    let (kind, id) = match s.split_once('(') {
        Some((k, rest)) => (
            k,
            rest.trim_end_matches(')')
                .parse::<i32>()
                .map_err(|_| bad(format!("bad --device '{s}'")))?,
        ),
        None => (s, 0),
    };
    match kind {
        "cpu" => Ok(Device::Cpu(id)),
        "gpu" => Ok(Device::Gpu(id)),
        _ => Err(bad(format!("--device must be cpu or gpu(N), got '{s}'"))),
    }
}

/// Class names: a JSON list of strings or one name per line.
fn read_labels(path: &str) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::new(
            Code::NotFound,
            format!("cannot open --labels file {path}: {e}"),
        )
    })?;
    let t = text.trim();
    if t.starts_with('[') && t.ends_with(']') {
        // A flat JSON list of strings (no escapes beyond \" and \\ expected in class names).
        let mut out = Vec::new();
        let mut chars = t[1..t.len() - 1].chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => s.extend(chars.next()),
                        '"' => break,
                        _ => s.push(c),
                    }
                }
                out.push(s);
            }
        }
        return Ok(out);
    }
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

fn load_net(f: &Flags, dev: Device) -> Result<Block> {
    let params = f
        .params
        .as_deref()
        .ok_or_else(|| bad("--params is required (see classify --help)"))?;
    match (&f.symbol, &f.model) {
        (Some(sym), None) => {
            if f.classes.is_some() {
                return Err(bad("--classes applies to --model only"));
            }
            Block::imports(sym, &["data"], Some(Path::new(params)), dev)
        }
        (None, Some(model)) => {
            let name = model.to_ascii_lowercase();
            let names = list_models()?;
            if !names.contains(&name) {
                return Err(bad(format!(
                    "unknown --model '{model}' (model-zoo names: {})",
                    names.join(", ")
                )));
            }
            let classes = f.classes.unwrap_or(1000);
            if classes < 1 {
                return Err(bad(format!("--classes must be >= 1, got {classes}")));
            }
            let mut net = get_model(
                &name,
                &ModelOptions {
                    classes,
                    ..Default::default()
                },
            )?;
            net.load_parameters(
                params,
                &LoadParametersOptions {
                    device: dev,
                    ..Default::default()
                },
            )?;
            net.hybridize(&HybridizeOptions::default())?;
            Ok(net)
        }
        _ => Err(bad(
            "give exactly one of --symbol (an exported -symbol.json) or --model (a model-zoo \
             architecture) (see classify --help)",
        )),
    }
}

fn run(args: &[String]) -> Result<()> {
    let f = parse_flags(args)?;
    if f.images.is_empty() {
        return Err(bad("--image is required (see classify --help)"));
    }
    // The C++ CLI takes inceptionv3's 299 as --model's default size; every other model 224.
    let size = f.input_size.unwrap_or(match f.model.as_deref() {
        Some(m) if m.eq_ignore_ascii_case("inceptionv3") => 299,
        _ => 224,
    });
    let resize = f.resize.unwrap_or(if size == 224 { 256 } else { size });
    if f.topk < 1 {
        return Err(bad(format!("--topk must be >= 1, got {}", f.topk)));
    }
    let mean = parse_floats("mean", &f.mean)?;
    let std = parse_floats("std", &f.std)?;
    let dev = parse_device(&f.device)?;
    let interp = Interp::from_name(&f.interp)?;
    let labels = f
        .labels
        .as_deref()
        .map(read_labels)
        .transpose()?
        .unwrap_or_default();
    let net = load_net(&f, dev)?;
    let prep = Transform::compose(&[
        &Transform::center_crop(size, size, Interp::Bilinear)?,
        &Transform::to_tensor()?,
        &Transform::normalize(&mean, &std)?,
    ])?;
    for path in &f.images {
        let img = image::read(path)?;
        let resized = image::resize_short(&img, resize, interp, true)?;
        let x = prep.apply(&resized)?;
        let shape = x.shape()?;
        let x = x
            .reshape(&[1, shape[0], shape[1], shape[2]])?
            .copy_to(dev)?;
        let logits = net.forward(&x)?;
        let prob = mxnet::invoke("softmax", &[&logits], &[])?
            .remove(0)
            .to_vec::<f32>()?;
        print_topk(path, &prob, &labels, f.topk as usize);
    }
    Ok(())
}

/// "PATH:" then the k most probable classes, best first, as "  1. NAME  0.9934" lines.
fn print_topk(path: &str, prob: &[f32], labels: &[String], topk: usize) {
    let mut idx: Vec<usize> = (0..prob.len()).collect();
    // Stable sort by descending probability: ties keep the lower class first.
    idx.sort_by(|&a, &b| {
        prob[b]
            .partial_cmp(&prob[a])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    println!("{path}:");
    for (rank, &c) in idx.iter().take(topk.min(prob.len())).enumerate() {
        let name = labels
            .get(c)
            .cloned()
            .unwrap_or_else(|| format!("class {c}"));
        println!("  {}. {:<30} {:.4}", rank + 1, name, prob[c]);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("classify: {e}");
        std::process::exit(1);
    }
}
