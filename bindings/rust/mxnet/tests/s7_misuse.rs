//! S7 (BINDINGS.md): use after close, double close, wrong dtype buffer, missing file, bad JSON,
//! unknown operator: each an `Err`, never a crash. In safe Rust, use after close and double
//! close do not compile (`NDArray::close`'s compile_fail doctests); here the same mistakes are
//! made through raw handles, which the C ABI checks.
use mxc_sys as sys;
use mxnet::{ops, Code, DType, NDArray, Op, Symbol};

#[test]
fn use_after_close_through_a_raw_handle() {
    let a = NDArray::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let raw = a.into_raw();
    unsafe { sys::mxc_ndarray_free(raw) };
    // The stale handle wrapped again: every call is an InvalidArgument naming the freed handle.
    let stale = unsafe { NDArray::from_raw(raw) };
    let e = stale.shape().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("freed"), "{e}");
    let e = ops::relu(&stale).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("freed"), "{e}");
    assert!(stale.to_vec::<f32>().is_err());
    assert!(format!("{stale:?}").contains("INVALID_ARGUMENT"));
    // Dropping it is the second free of the handle: ignored by the library, and counted.
    let before = mxnet::handle_stats().unwrap().bad_frees;
    drop(stale);
    assert!(mxnet::handle_stats().unwrap().bad_frees > before);
}

#[test]
fn double_close_through_a_raw_handle() {
    let s = Symbol::variable("v").unwrap();
    let raw = s.as_raw();
    let before = mxnet::handle_stats().unwrap().bad_frees;
    drop(s);
    unsafe { sys::mxc_symbol_free(raw) };
    assert!(mxnet::handle_stats().unwrap().bad_frees > before);
}

#[test]
fn wrong_dtype_buffer() {
    let a = NDArray::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let e = a.to_vec::<i32>().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("int32") && e.message().contains("float32"),
        "{e}"
    );
    let mut b = a.clone();
    let e = b.copy_from_slice(&[1.0f64, 2.0]).unwrap_err();
    assert!(e.message().contains("float64"), "{e}");
    // Right type, wrong length: the C ABI names both byte sizes.
    let e = b.copy_from_slice(&[1.0f32, 2.0, 3.0]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("12") && e.message().contains('8'),
        "{e}"
    );
    let e = NDArray::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]).unwrap_err();
    assert!(
        e.message().contains("12") && e.message().contains("16"),
        "{e}"
    );
    let e = NDArray::from_bytes(&[0u8; 3], &[2], DType::Float16, mxnet::Device::CPU).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = NDArray::zeros(&[-1], DType::Float32).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn missing_file() {
    let e = NDArray::load("/nonexistent/dir/x.params").unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(e.message().contains("/nonexistent/dir/x.params"), "{e}");
    assert_eq!(
        Symbol::load("/nonexistent-symbol.json").unwrap_err().code(),
        Code::NotFound
    );
    // Not such a file, and a truncated one.
    assert!(NDArray::load_from_bytes(b"definitely not a params file").is_err());
    let a = NDArray::from_slice(&[1.0f32; 8], &[8]).unwrap();
    let bytes = NDArray::save_to_bytes(&[&a], None, mxnet::FileFormat::NDArrayList).unwrap();
    let e = NDArray::load_from_bytes(&bytes[..bytes.len() - 5]).unwrap_err();
    assert_eq!(e.code(), Code::DataLoss, "{e}");
}

#[test]
fn bad_json() {
    for json in ["{", "[]", "{\"nodes\": 3}", ""] {
        let e = Symbol::from_json(json).unwrap_err();
        assert!(
            matches!(e.code(), Code::InvalidArgument | Code::DataLoss),
            "{json}: {e}"
        );
    }
    // Interior NUL bytes are caught by the binding.
    assert_eq!(
        Symbol::from_json("{\0}").unwrap_err().code(),
        Code::InvalidArgument
    );
}

#[test]
fn unknown_operator() {
    let x = NDArray::from_slice(&[1.0f32], &[1]).unwrap();
    let e = mxnet::invoke("no_such_op", &[&x], &[]).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(e.message().contains("no_such_op"), "{e}");
    assert_eq!(Op::find("no_such_op").unwrap_err().code(), Code::NotFound);
    assert_eq!(
        Symbol::create("no_such_op", &[], &[], None)
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    // Wrong input counts and unknown attributes are errors too.
    assert!(mxnet::invoke("relu", &[], &[]).is_err());
    assert!(mxnet::invoke("relu", &[&x], &[("no_such_attr", "1")]).is_err());
}

#[test]
fn trailing_bytes_are_ignored_or_rejected() {
    let a = NDArray::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let mut bytes = NDArray::save_to_bytes(&[&a], None, mxnet::FileFormat::NDArrayList).unwrap();
    bytes.extend_from_slice(b"junk");
    // MXNet ignores bytes after the names section; the strict option makes them DataLoss.
    let l = NDArray::load_from_bytes(&bytes).unwrap();
    assert_eq!(
        l.arrays[0].as_ref().unwrap().to_vec::<f32>().unwrap(),
        [1.0, 2.0]
    );
    let strict = mxnet::LoadOptions {
        reject_trailing_bytes: true,
        ..Default::default()
    };
    let e = NDArray::load_from_bytes_with(&bytes, strict).unwrap_err();
    assert_eq!(e.code(), Code::DataLoss, "{e}");
}

/// `max_densified_bytes` bounds what one sparse record may densify to. sparse_v2.nd (written by
/// MXNet 1.9.1; run_tests.sh sets MXNET_IO_TESTDATA under Bazel) holds a (3, 4) float32 csr (48
/// dense bytes) and a (4, 2) row_sparse (32 bytes).
#[test]
fn sparse_records_densify_within_the_cap() {
    let dir = std::env::var("MXNET_IO_TESTDATA").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../ndarray/testdata/mx").to_string()
    });
    let path = std::path::Path::new(&dir).join("sparse_v2.nd");
    let capped = |max_densified_bytes| mxnet::LoadOptions {
        max_densified_bytes,
        ..Default::default()
    };
    let e = NDArray::load_with(&path, capped(47)).unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e}");
    assert!(e.to_string().contains("would densify to 48 bytes"), "{e}");
    let l = NDArray::load_with(&path, capped(48)).unwrap();
    assert_eq!(l.names.as_deref(), Some(&["csr".to_string(), "rsp".to_string()][..]));
    assert_eq!(
        l.arrays[0].as_ref().unwrap().to_vec::<f32>().unwrap(),
        [1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0]
    );
    assert_eq!(
        l.arrays[1].as_ref().unwrap().to_vec::<f32>().unwrap(),
        [0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 0.5, 2.0]
    );
}

#[test]
fn devices_this_build_lacks() {
    // A CPU-only build names the missing device; a CUDA build creates the array.
    match NDArray::zeros_on(&[1], DType::Float32, mxnet::Device::Gpu(0)) {
        Ok(a) => assert_eq!(a.device().unwrap(), mxnet::Device::Gpu(0)),
        Err(e) => {
            assert_eq!(e.code(), Code::Unavailable);
            assert!(e.message().contains("gpu(0)"), "{e}");
        }
    }
    let e = mxnet::Context::with_options(mxnet::Device::Gpu(-1), None).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("-1"), "{e}");
}

#[test]
fn bool_arrays_with_other_bytes_read_as_true() {
    // Raw bytes 0, 1, 2, 255 in a bool array: reading never makes an invalid Rust bool.
    let b = NDArray::from_bytes(&[0, 1, 2, 255], &[4], DType::Bool, mxnet::Device::CPU).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), [false, true, true, true]);
}

/// The same misuse on the gluon, training and data families: errors naming what was wrong.
#[test]
fn gluon_training_and_data_misuse() {
    use mxnet::data::{image, DataLoader, Dataset, LoaderOptions};
    use mxnet::{model_zoo, training, Block, Device, Trainer};
    let dir = std::env::temp_dir().join(format!("mxnet-rust-s7-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // Missing files.
    let e = Block::imports(dir.join("nope-symbol.json"), &["data"], None, Device::CPU).unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
    assert!(image::read(dir.join("nope.jpg")).unwrap_err().code() == Code::NotFound);
    let e = Dataset::fashion_mnist(Some(&dir), true).unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
    // Bad JSON, bad image bytes.
    let bad = dir.join("bad-symbol.json");
    std::fs::write(&bad, "{\"nodes\": [").unwrap();
    assert!(Block::imports(&bad, &["data"], None, Device::CPU).is_err());
    let e = image::decode(b"not a jpeg", true, true).unwrap_err();
    assert!(
        matches!(e.code(), Code::InvalidArgument | Code::DataLoss),
        "{e}"
    );
    // Unknown names list the valid ones.
    let e = model_zoo::get_model("resnet_nope", &Default::default()).unwrap_err();
    assert!(e.message().contains("resnet18_v1"), "{e}");
    let e = training::loss("NoSuchLoss", &[]).unwrap_err();
    assert!(e.message().contains("L2Loss"), "{e}");
    let e = training::loss("L2Loss", &[("bogus", "1")]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.message().contains("bogus"), "{e}");
    let net = model_zoo::get_model("resnet18_v1", &Default::default()).unwrap();
    let params = net.collect_params(".*weight").unwrap();
    let e = Trainer::new(&params, "no_such_optimizer", &[]).unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
    // Calling a block whose parameters are not initialized, with a wrong-rank input.
    let x = NDArray::zeros(&[1, 3, 32, 32], DType::Float32).unwrap();
    assert!(net.forward(&x).is_err());
    let zeros = NDArray::zeros(&[4, 2], DType::Float32).unwrap();
    let ds = Dataset::from_arrays(&[&zeros]).unwrap();
    let e = ds.get(4).unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e}");
    assert!(DataLoader::new(&ds, &LoaderOptions::new(0)).is_err());
    // A stale block handle (use after close through a raw handle).
    let raw = net.clone().into_raw();
    drop(net);
    unsafe { sys::mxc_block_free(raw) };
    let stale = unsafe { Block::from_raw(raw) };
    let e = stale.collect_params("").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    std::mem::forget(stale); // its reference is gone; do not count a bad free here
    drop(params);
    std::fs::remove_dir_all(&dir).unwrap();
}
