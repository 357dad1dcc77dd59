//! S8 (BINDINGS.md): the binding adds at most 1 µs (median) per call of a small operator over
//! calling the C ABI directly. `cargo bench -p mxnet --bench overhead` prints the full figures.
mod common {
    pub mod overhead;
}

#[test]
fn binding_adds_at_most_1us_per_call() {
    let o = common::overhead::measure(20, 1000);
    eprintln!("S8 on {}: {o:?}", common::overhead::cpu_model());
    assert!(
        o.added_ns <= 1000.0,
        "the binding adds {:.0} ns per call: {o:?}",
        o.added_ns
    );
}
