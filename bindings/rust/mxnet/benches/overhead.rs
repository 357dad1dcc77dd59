//! S8 benchmark: `cargo bench --offline -p mxnet --bench overhead` prints the median time per
//! `relu` call (16 float32 elements) through the C ABI directly, the typed binding function and
//! the by-name call, and what the binding adds.
#[path = "../tests/common/overhead.rs"]
mod overhead;

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs this once, quickly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let (rounds, batch) = if quick { (2, 100) } else { (100, 2000) };
    let o = overhead::measure(rounds, batch);
    println!("CPU: {}", overhead::cpu_model());
    println!(
        "relu, 16 x float32, median of {} single timed calls each:",
        rounds * batch
    );
    println!(
        "  C ABI direct (mxc_invoke + free): {:8.0} ns/call",
        o.direct_ns
    );
    println!(
        "  mxnet::ops::relu                : {:8.0} ns/call",
        o.typed_ns
    );
    println!(
        "  mxnet::invoke(\"relu\") by name  : {:8.0} ns/call",
        o.by_name_ns
    );
    println!(
        "  added by the typed binding      : {:8.0} ns/call (limit 1000)",
        o.added_ns
    );
}
