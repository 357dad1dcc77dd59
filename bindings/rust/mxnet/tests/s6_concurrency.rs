//! S6 (BINDINGS.md): one hybridized block (the real CIFAR ResNet-20 export) called from 8 Rust
//! threads × 200 calls, sharing `&Block` (it is `Sync`), each thread on its own context:
//! every output identical to the single-threaded one, no crash.
mod common {
    pub mod env;
}
use common::env::*;
use mxnet::{Block, Device, HybridizeOptions, NDArray};

#[test]
fn s6_one_hybridized_block_from_8_threads() {
    let m = models();
    let mut net = Block::imports(
        m.join("cifar_resnet20_v1-symbol.json"),
        &["data"],
        Some(&m.join("cifar_resnet20_v1-0000.params")),
        Device::CPU,
    )
    .unwrap();
    net.hybridize(&HybridizeOptions {
        static_alloc: true,
        static_shape: true,
        ..Default::default()
    })
    .unwrap();
    // Each thread has its own input (so a mix-up between threads' per-call state would show).
    let inputs: Vec<NDArray> = (0..8)
        .map(|t| NDArray::from_slice(&pseudo_random(3 * 32 * 32, t), &[1, 3, 32, 32]).unwrap())
        .collect();
    let expect: Vec<Vec<f32>> = inputs
        .iter()
        .map(|x| net.forward(x).unwrap().to_vec::<f32>().unwrap())
        .collect();
    assert_ne!(expect[0], expect[1]);
    let net = &net;
    std::thread::scope(|s| {
        let handles: Vec<_> = inputs
            .iter()
            .zip(&expect)
            .map(|(x, want)| {
                s.spawn(move || {
                    for i in 0..200 {
                        let got = net.forward(x).unwrap().to_vec::<f32>().unwrap();
                        assert_eq!(&got, want, "call {i}");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}
