//! No handle leaks: after S1/S2-style work (arrays, views, typed and by-name operators,
//! autograd, files, symbols, errors) every handle the binding got is released. A separate test
//! binary with one test, so no other test's handles are live at the same time.
use mxnet::{autograd, ops, GradReq, NDArray, Symbol};

#[test]
fn every_handle_is_released() {
    // Warm up the thread's context and the op cache, which live on purpose.
    drop(ops::relu(&NDArray::zeros(&[1], mxnet::DType::Float32).unwrap()).unwrap());
    let before = mxnet::handle_stats().unwrap();
    {
        let mut x = NDArray::from_slice(&[1.0f32, -2.0, 3.0, -4.0], &[2, 2]).unwrap();
        x.attach_grad(GradReq::Write).unwrap();
        let y = {
            let _r = autograd::record();
            let v = x.reshape(&[4]).unwrap();
            let r = ops::relu(&v).unwrap();
            ops::sum(&ops::elemwise_mul(&r, &v).unwrap())
                .call()
                .unwrap()
        };
        y.backward().unwrap();
        let _g = x.grad().unwrap();
        let parts = ops::slice_channel(&x, 2).call().unwrap();
        let _c = x.clone();
        let _e = mxnet::invoke("no_such_op", &[&x], &[]).unwrap_err();
        let _e = ops::elemwise_add(&x, &parts[0]).unwrap_err();
        let bytes = NDArray::save_to_bytes(
            &[&x, &parts[1]],
            Some(&["a", "b"]),
            mxnet::FileFormat::NDArrayList,
        )
        .unwrap();
        let loaded = NDArray::load_from_bytes(&bytes).unwrap();
        assert_eq!(loaded.arrays.len(), 2);
        let s = Symbol::create("relu", &[&Symbol::variable("d").unwrap()], &[], None).unwrap();
        let _shapes = s.infer_shape(&[("d", &[3])], false).unwrap();
        let _j = s.to_json().unwrap();
        // Gluon, training and data handles.
        let mut net = mxnet::model_zoo::get_model("resnet18_v1", &Default::default()).unwrap();
        net.initialize(None, mxnet::Device::CPU, false).unwrap();
        let img = NDArray::zeros(&[1, 3, 32, 32], mxnet::DType::Float32).unwrap();
        let _out = net.forward(&img).unwrap();
        let params = net.collect_params(".*weight|.*bias").unwrap();
        let _t = mxnet::Trainer::new(&params, "sgd", &[("learning_rate", "0.1")]).unwrap();
        let _l = mxnet::training::loss("L2Loss", &[]).unwrap();
        let t = mxnet::data::Transform::from_fn(|x| Ok(x.clone())).unwrap();
        let ds = mxnet::data::Dataset::from_arrays(&[&x]).unwrap();
        let ds = ds.transform_first(&t, true).unwrap();
        let mut dl =
            mxnet::data::DataLoader::new(&ds, &mxnet::data::LoaderOptions::new(1)).unwrap();
        assert_eq!((&mut dl).count(), 2);
        assert!(mxnet::handle_stats().unwrap().live > before.live);
    }
    let after = mxnet::handle_stats().unwrap();
    assert_eq!(
        after.live, before.live,
        "handles leaked: {before:?} -> {after:?}"
    );
    assert_eq!(
        after.bad_frees, before.bad_frees,
        "the binding freed an invalid handle"
    );
}
