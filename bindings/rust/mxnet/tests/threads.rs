//! The `Send`/`Sync` promises hold: 8 threads × 200 operator calls reading one shared array
//! (concurrent reads of one object are allowed by the C ABI) give identical results; symbols
//! are shared immutably; contexts move between threads.
use mxnet::{ops, Context, NDArray, Symbol};
use std::sync::Arc;

#[test]
fn eight_threads_read_one_array() {
    let x = Arc::new(NDArray::from_slice(&[-1.0f32, 2.0, -3.0, 4.0, 0.5, -0.5], &[2, 3]).unwrap());
    let w = Arc::new(NDArray::from_slice(&[1.0f32, 0.0, 1.0, 0.0, 1.0, 0.0], &[2, 3]).unwrap());
    let expect = ops::fully_connected(&ops::relu(&x).unwrap(), &w, None, 2)
        .call()
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    // relu(x) = [[0,2,0],[4,0.5,0]]; · Wᵀ = [[0, 2], [4, 0.5]].
    assert_eq!(expect, [0.0, 2.0, 4.0, 0.5]);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (x, w) = (Arc::clone(&x), Arc::clone(&w));
            std::thread::spawn(move || {
                (0..200)
                    .map(|_| {
                        ops::fully_connected(&ops::relu(&x).unwrap(), &w, None, 2)
                            .call()
                            .unwrap()
                            .to_vec::<f32>()
                            .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        for out in h.join().unwrap() {
            assert_eq!(out, expect);
        }
    }
}

#[test]
fn symbols_are_shared_and_contexts_move() {
    let s = Symbol::variable("x").unwrap();
    let fc = Arc::new(
        Symbol::create("FullyConnected", &[&s], &[("num_hidden", "3")], Some("fc")).unwrap(),
    );
    let hs: Vec<_> = (0..4)
        .map(|_| {
            let fc = Arc::clone(&fc);
            std::thread::spawn(move || fc.infer_shape(&[("x", &[5, 7])], false).unwrap().outputs)
        })
        .collect();
    for h in hs {
        assert_eq!(h.join().unwrap(), [Some(vec![5, 3])]);
    }
    // A seeded context built here drives random operators on another thread; the same seed
    // gives the same samples.
    let sample = |ctx: Context| {
        std::thread::spawn(move || {
            mxnet::context::replace_current(ctx);
            ops::random::uniform()
                .shape(&[4])
                .call()
                .unwrap()
                .to_vec::<f32>()
                .unwrap()
        })
        .join()
        .unwrap()
    };
    let a = sample(Context::with_options(mxnet::Device::CPU, Some(42)).unwrap());
    let b = sample(Context::with_options(mxnet::Device::CPU, Some(42)).unwrap());
    let c = sample(Context::with_options(mxnet::Device::CPU, Some(43)).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.iter().all(|v| (0.0..1.0).contains(v)));
}

#[test]
fn arrays_dropped_on_other_threads() {
    let arrays: Vec<NDArray> = (0..64)
        .map(|i| NDArray::from_vec(vec![i as f32; 4], &[4]).unwrap())
        .collect();
    let views: Vec<NDArray> = arrays.iter().map(|a| a.reshape(&[2, 2]).unwrap()).collect();
    std::thread::spawn(move || drop(arrays)).join().unwrap();
    // The views still hold the memory (the Vec deleter runs when the last user goes).
    assert_eq!(views[5].to_vec::<f32>().unwrap(), [5.0; 4]);
    std::thread::spawn(move || drop(views)).join().unwrap();
}
