//! The checked-in `mxnet/src/ops/generated.rs` equals what the generator makes from the loaded
//! libmxc.so now, so the typed functions cannot fall behind the operator registry.
use std::path::Path;

#[test]
fn regenerating_gives_the_checked_in_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(mxnet_opgen::GENERATED_PATH);
    let checked_in = std::fs::read_to_string(&path).unwrap();
    let fresh = mxnet_opgen::generate().unwrap();
    if fresh != checked_in {
        let line = fresh
            .lines()
            .zip(checked_in.lines())
            .position(|(a, b)| a != b);
        panic!(
            "{} is stale (first difference at line {}; {} vs {} lines): run `cargo run -p mxnet-opgen`",
            path.display(),
            line.map_or(fresh.lines().count().min(checked_in.lines().count()) + 1, |l| l + 1),
            checked_in.lines().count(),
            fresh.lines().count()
        );
    }
}

#[test]
fn names_map_as_documented() {
    use mxnet_opgen::{placement, snake};
    assert_eq!(snake("FullyConnected"), "fully_connected");
    assert_eq!(snake("L2Normalization"), "l2_normalization");
    assert_eq!(
        snake("IdentityAttachKLSparseReg"),
        "identity_attach_kl_sparse_reg"
    );
    assert_eq!(snake("BatchNorm_v1"), "batch_norm_v1");
    assert_eq!(
        placement("_contrib_box_nms"),
        Some(("contrib", "box_nms".into()))
    );
    assert_eq!(
        placement("_sample_uniform"),
        Some(("random", "sample_uniform".into()))
    );
    assert_eq!(
        placement("_mul_scalar"),
        Some(("internal", "mul_scalar".into()))
    );
    assert_eq!(placement("_backward_relu"), None);
    assert_eq!(placement("Convolution"), Some(("", "convolution".into())));
}
