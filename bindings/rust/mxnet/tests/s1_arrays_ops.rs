//! S1 (BINDINGS.md): arrays from Rust buffers, operators through the generated typed functions
//! and the by-name call, results read back, bad calls as `Err` with the C ABI's message.
//! Expected values are computed by hand.
use mxnet::{ops, Code, DType, Device, FileFormat, NDArray, Op, Symbol};

fn arr(data: &[f32], shape: &[i64]) -> NDArray {
    NDArray::from_slice(data, shape).unwrap()
}

#[test]
fn arrays_from_rust_buffers() {
    let a = arr(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    assert_eq!(a.shape().unwrap(), [2, 3]);
    assert_eq!(a.ndim().unwrap(), 2);
    assert_eq!(a.size().unwrap(), 6);
    assert_eq!(a.nbytes().unwrap(), 24);
    assert_eq!(a.dtype().unwrap(), DType::Float32);
    assert_eq!(a.device().unwrap(), Device::Cpu(0));
    assert_eq!(a.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);

    let i = NDArray::from_slice(&[7i64, -8], &[2]).unwrap();
    assert_eq!(
        (i.dtype().unwrap(), i.to_vec::<i64>().unwrap()),
        (DType::Int64, vec![7, -8])
    );
    let b = NDArray::from_slice(&[true, false, true], &[3]).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), [true, false, true]);
    let s = NDArray::from_slice(&[2.5f64], &[]).unwrap();
    assert_eq!((s.shape().unwrap(), s.size().unwrap()), (vec![], 1));

    let z = NDArray::zeros(&[2, 2], DType::Int32).unwrap();
    assert_eq!(z.to_vec::<i32>().unwrap(), [0, 0, 0, 0]);

    // float16 by raw bits: 1.0 = 0x3c00, -2.0 = 0xc000 (little endian).
    let h =
        NDArray::from_bytes(&[0x00, 0x3c, 0x00, 0xc0], &[2], DType::Float16, Device::CPU).unwrap();
    let f = ops::cast(&h, DType::Float32).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), [1.0, -2.0]);
    assert_eq!(h.to_bytes().unwrap(), [0x00, 0x3c, 0x00, 0xc0]);
}

#[test]
fn zero_copy_vec_and_writes() {
    // from_vec uses the Vec's memory; a view shares it; copy_from_slice writes through.
    let mut a = NDArray::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let row1 = a.slice(1, 2).unwrap();
    let flat = a.reshape(&[-1]).unwrap();
    assert_eq!(row1.shape().unwrap(), [1, 2]);
    assert_eq!(flat.shape().unwrap(), [4]);
    a.copy_from_slice(&[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    assert_eq!(row1.to_vec::<f32>().unwrap(), [7.0, 8.0]);
    assert_eq!(flat.to_vec::<f32>().unwrap(), [5.0, 6.0, 7.0, 8.0]);
    // A clone is the same array (retain), a deep copy is not.
    let same = a.clone();
    let copy = a.deep_copy().unwrap();
    a.copy_from_slice(&[0.0f32; 4]).unwrap();
    assert_eq!(same.to_vec::<f32>().unwrap(), [0.0; 4]);
    assert_eq!(copy.to_vec::<f32>().unwrap(), [5.0, 6.0, 7.0, 8.0]);
    // The Vec outlives `a` while the views use it.
    drop(a);
    drop(same);
    assert_eq!(row1.to_vec::<f32>().unwrap(), [0.0, 0.0]);
}

#[test]
fn typed_operators() {
    let x = arr(&[-1.0, 2.0, -3.0, 4.0], &[2, 2]);
    assert_eq!(
        ops::relu(&x).unwrap().to_vec::<f32>().unwrap(),
        [0.0, 2.0, 0.0, 4.0]
    );
    assert_eq!(
        ops::abs(&x).unwrap().to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0]
    );

    // dot([[1,2],[3,4]], [[5,6],[7,8]]) = [[19,22],[43,50]]; transpose_b: [[17,23],[39,53]].
    let a = arr(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let b = arr(&[5.0, 6.0, 7.0, 8.0], &[2, 2]);
    assert_eq!(
        ops::dot(&a, &b).call().unwrap().to_vec::<f32>().unwrap(),
        [19.0, 22.0, 43.0, 50.0]
    );
    let abt = ops::dot(&a, &b).transpose_b(true).call().unwrap();
    assert_eq!(abt.to_vec::<f32>().unwrap(), [17.0, 23.0, 39.0, 53.0]);

    // Convolution NCHW: x = 1..9 as 1x1x3x3, kernel [[1,0],[0,1]]: x[i][j] + x[i+1][j+1].
    let x = arr(
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[1, 1, 3, 3],
    );
    let w = arr(&[1.0, 0.0, 0.0, 1.0], &[1, 1, 2, 2]);
    let bias = arr(&[10.0], &[1]);
    let y = ops::convolution(&x, &w, Some(&bias), &[2, 2], 1)
        .call()
        .unwrap();
    assert_eq!(y.shape().unwrap(), [1, 1, 2, 2]);
    assert_eq!(y.to_vec::<f32>().unwrap(), [16.0, 18.0, 22.0, 24.0]);
    let y = ops::convolution(&x, &w, None, &[2, 2], 1).call().unwrap(); // sets no_bias
    assert_eq!(y.to_vec::<f32>().unwrap(), [6.0, 8.0, 12.0, 14.0]);
    let y = ops::convolution(&x, &w, None, &[2, 2], 1)
        .pad(&[1, 1])
        .stride(&[2, 2])
        .call()
        .unwrap();
    // Padded 5x5 grid P, stride 2: P[2i][2j] + P[2i+1][2j+1] = (0+1, 0+3, 0+7, 5+9).
    assert_eq!(y.shape().unwrap(), [1, 1, 2, 2]);
    assert_eq!(y.to_vec::<f32>().unwrap(), [1.0, 3.0, 7.0, 14.0]);

    // FullyConnected: data·Wᵀ + b.
    let d = arr(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let w = arr(&[1.0, 0.0, 1.0, 0.0, 1.0, 0.0], &[2, 3]);
    let b = arr(&[1.0, -1.0], &[2]);
    let y = ops::fully_connected(&d, &w, Some(&b), 2).call().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), [5.0, 1.0, 11.0, 4.0]);

    // Reductions with builder attributes.
    let s = ops::sum(&a).axis(&[1]).keepdims(true).call().unwrap();
    assert_eq!(
        (s.shape().unwrap(), s.to_vec::<f32>().unwrap()),
        (vec![2, 1], vec![3.0, 7.0])
    );
    assert_eq!(
        ops::sum(&a).call().unwrap().to_vec::<f32>().unwrap(),
        [10.0]
    );

    // Variadic (num_args set from the slice) and multi-output operators.
    let c = ops::concat(&[&a, &b.reshape(&[1, 2]).unwrap()])
        .dim(0)
        .call()
        .unwrap();
    assert_eq!(c.shape().unwrap(), [3, 2]);
    assert_eq!(c.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 1.0, -1.0]);
    let parts = ops::slice_channel(&a, 2).axis(1).call().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].to_vec::<f32>().unwrap(), [1.0, 3.0]);
    assert_eq!(parts[1].to_vec::<f32>().unwrap(), [2.0, 4.0]);

    // Scalar and creation operators.
    let t = ops::internal::mul_scalar(&a).scalar(3.0).call().unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [3.0, 6.0, 9.0, 12.0]);
    let o = ops::internal::ones()
        .shape(&[2, 3])
        .dtype(DType::Int32)
        .call()
        .unwrap();
    assert_eq!(
        (o.shape().unwrap(), o.to_vec::<i32>().unwrap()),
        (vec![2, 3], vec![1; 6])
    );
}

#[test]
fn by_name_call_equals_typed() {
    let x = arr(&[-1.0, 2.0, -3.0, 4.0], &[4]);
    let by_name = mxnet::invoke("Activation", &[&x], &[("act_type", "relu")]).unwrap();
    assert_eq!(by_name.len(), 1);
    assert_eq!(
        by_name[0].to_vec::<f32>().unwrap(),
        ops::relu(&x).unwrap().to_vec::<f32>().unwrap()
    );
    // Aliases work by name.
    let plus = mxnet::invoke("_plus", &[&x, &x], &[]).unwrap();
    assert_eq!(plus[0].to_vec::<f32>().unwrap(), [-2.0, 4.0, -6.0, 8.0]);
    // Op handles: found once, metadata, reused.
    let op = Op::find("Convolution").unwrap();
    let info = op.info().unwrap();
    assert_eq!(
        (info.name, info.num_inputs, info.num_outputs),
        ("Convolution", None, Some(1))
    );
    let kernel = op
        .attrs()
        .unwrap()
        .into_iter()
        .find(|a| a.name == "kernel")
        .unwrap();
    assert!(kernel.required && kernel.kind == mxnet::AttrKind::Shape);
    assert_eq!(
        op.input_names(&[
            ("kernel", "(3, 3)"),
            ("num_filter", "8"),
            ("no_bias", "True")
        ])
        .unwrap(),
        ["data", "weight"]
    );
    assert_eq!(
        op.num_io(&[("kernel", "(3, 3)"), ("num_filter", "8")])
            .unwrap(),
        (3, 1)
    );
    assert!(Op::list().unwrap().len() >= 600);
}

#[test]
fn bad_calls_return_the_c_message() {
    let a = arr(&[1.0, 2.0, 3.0], &[3]);
    let b = arr(&[1.0, 2.0], &[2]);
    let e = ops::elemwise_add(&a, &b).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("elemwise_add"), "{e}");
    // A bad attribute value names the attribute.
    let e = mxnet::invoke("sum", &[&a], &[("keepdims", "maybe")]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("keepdims"), "{e}");
    // A string choice outside the allowed ones.
    let e = ops::activation(&a, "nope").unwrap_err();
    assert!(e.message().contains("nope"), "{e}");
    // Display is "CODE: message", and Error is a std error.
    let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
    assert_eq!(
        boxed.to_string(),
        format!("INVALID_ARGUMENT: {}", e.message())
    );
}

#[test]
fn files_round_trip() {
    let dir = std::env::temp_dir().join(format!("mxnet-rs-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = arr(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let b = NDArray::from_slice(&[7i32], &[1]).unwrap();
    for (fmt, file) in [
        (FileFormat::NDArrayList, "a.params"),
        (FileFormat::NDArrayListV3, "a3.params"),
        (FileFormat::Npz, "a.npz"),
    ] {
        let p = dir.join(file);
        NDArray::save(&p, &[&w, &b], Some(&["w", "b"]), fmt).unwrap();
        let l = NDArray::load(&p).unwrap();
        assert_eq!(l.names.as_deref().unwrap().len(), 2, "{file}");
        assert_eq!(
            l.get("w").unwrap().to_vec::<f32>().unwrap(),
            [1.0, 2.0, 3.0, 4.0],
            "{file}"
        );
        assert_eq!(l.get("b").unwrap().to_vec::<i32>().unwrap(), [7], "{file}");
        assert_eq!(l.named().len(), 2);
    }
    // A list file and the same bytes in memory.
    let bytes = NDArray::save_to_bytes(&[&w], None, FileFormat::NDArrayList).unwrap();
    let p = dir.join("list.nd");
    NDArray::save(&p, &[&w], None, FileFormat::NDArrayList).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), bytes);
    let l = NDArray::load_from_bytes(&bytes).unwrap();
    assert!(l.names.is_none());
    assert_eq!(l.arrays[0].as_ref().unwrap().shape().unwrap(), [2, 2]);
    // npy holds exactly one array.
    let e = NDArray::save(dir.join("x.npy"), &[&w, &b], None, FileFormat::Npy).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn symbols() {
    let data = Symbol::variable("data").unwrap();
    let fc = Symbol::create(
        "FullyConnected",
        &[&data],
        &[("num_hidden", "4")],
        Some("fc1"),
    )
    .unwrap();
    let act = Symbol::create("Activation", &[&fc], &[("act_type", "relu")], Some("relu1")).unwrap();
    assert_eq!(
        act.list_arguments().unwrap(),
        ["data", "fc1_weight", "fc1_bias"]
    );
    assert_eq!(act.list_outputs().unwrap(), ["relu1_output"]);
    assert_eq!(act.name().unwrap(), "relu1");
    // FullyConnected(num_hidden 4) on (2, 3): weight (4, 3), bias (4,), output (2, 4).
    let s = act.infer_shape(&[("data", &[2, 3])], false).unwrap();
    assert_eq!(
        s.arguments,
        [Some(vec![2, 3]), Some(vec![4, 3]), Some(vec![4])]
    );
    assert_eq!(s.outputs, [Some(vec![2, 4])]);
    let t = act.infer_type(&[("data", DType::Float64)]).unwrap();
    assert_eq!(t.outputs, [Some(DType::Float64)]);
    // JSON round trip, composition, groups.
    let back = Symbol::from_json(&act.to_json().unwrap()).unwrap();
    assert_eq!(
        back.list_arguments().unwrap(),
        act.list_arguments().unwrap()
    );
    let x = Symbol::variable("x").unwrap();
    let composed = act.compose(&[("data", &x)]).unwrap();
    assert_eq!(composed.list_arguments().unwrap()[0], "x");
    let g = Symbol::group(&[&fc, &act]).unwrap();
    assert_eq!(g.list_outputs().unwrap(), ["fc1_output", "relu1_output"]);
    assert_eq!(g.output(1).unwrap().name().unwrap(), "relu1");
    assert!(act
        .get_internals()
        .unwrap()
        .list_outputs()
        .unwrap()
        .contains(&"fc1_output".to_string()));
    // Partial inference leaves unknown shapes as None.
    let p = act.infer_shape(&[], true).unwrap();
    assert_eq!(p.outputs, [None]);
    let dir = std::env::temp_dir().join(format!("mxnet-rs-sym-{}.json", std::process::id()));
    act.save(&dir).unwrap();
    assert_eq!(
        Symbol::load(&dir).unwrap().list_outputs().unwrap(),
        ["relu1_output"]
    );
    std::fs::remove_file(&dir).unwrap();
}

#[test]
fn optimizer_updates_write_their_state_inputs() {
    // adam_update updates mean and var in place (MXNet's mutable inputs), as the docs of
    // Op::invoke warn: mean = 0.9·0 + 0.1·g, var = 0.999·0 + 0.001·g².
    let w = arr(&[1.0, 1.0], &[2]);
    let g = arr(&[1.0, 2.0], &[2]);
    let mean = NDArray::zeros(&[2], DType::Float32).unwrap();
    let var = NDArray::zeros(&[2], DType::Float32).unwrap();
    let out = ops::adam_update(&w, &g, &mean, &var, 0.1).call().unwrap();
    assert_eq!(out.shape().unwrap(), [2]);
    let m = mean.to_vec::<f32>().unwrap();
    let v = var.to_vec::<f32>().unwrap();
    assert!(
        (m[0] - 0.1).abs() < 1e-6 && (m[1] - 0.2).abs() < 1e-6,
        "{m:?}"
    );
    assert!(
        (v[0] - 0.001).abs() < 1e-6 && (v[1] - 0.004).abs() < 1e-6,
        "{v:?}"
    );
}
