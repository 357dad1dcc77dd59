//! S8 measurement shared by `tests/s8_overhead.rs` and `benches/overhead.rs`: `relu` on a
//! 16-element float32 array, called through the C ABI directly (`mxc_invoke` + free, on the same
//! ctx and op handle) and through the binding (`ops::relu`, and `mxnet::invoke` by name), in
//! interleaved single calls so machine noise hits both alike.
use mxnet::{ops, sys, NDArray, Op};
use std::hint::black_box;
use std::time::Instant;

/// Medians of nanoseconds per call (each call timed on its own).
#[derive(Debug)]
#[allow(dead_code)]
pub struct Overhead {
    pub direct_ns: f64,
    pub typed_ns: f64,
    pub by_name_ns: f64,
    /// Median of (typed - direct) over back-to-back pairs: what the binding adds.
    pub added_ns: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

pub fn measure(rounds: usize, batch: usize) -> Overhead {
    let x = NDArray::from_slice(&[-1.0f32; 16], &[16]).unwrap();
    let op = Op::find("relu").unwrap();
    let ctx = mxnet::context::with_current(|c| c.as_raw()).unwrap();
    let direct = || {
        let input = x.as_raw();
        let mut out = std::ptr::null_mut();
        let mut n = 0;
        let s = unsafe {
            sys::mxc_invoke(
                ctx,
                op.as_raw(),
                &input,
                1,
                std::ptr::null(),
                std::ptr::null(),
                0,
                &mut out,
                1,
                &mut n,
            )
        };
        assert!(s.is_null());
        unsafe { sys::mxc_ndarray_free(black_box(out)) };
    };
    let typed = || drop(black_box(ops::relu(&x).unwrap()));
    let by_name = || drop(black_box(mxnet::invoke("relu", &[&x], &[]).unwrap()));
    // Each sample times one direct and one typed call back to back (alternating which goes
    // first); the median of the per-sample differences rejects preemptions and load spikes.
    let timed = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        t.elapsed().as_nanos() as f64
    };
    for _ in 0..batch {
        direct();
        typed();
        by_name();
    }
    let (mut d, mut t, mut b, mut added) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..rounds * batch {
        let (dn, tn) = if i % 2 == 0 {
            let dn = timed(&direct);
            (dn, timed(&typed))
        } else {
            let tn = timed(&typed);
            (timed(&direct), tn)
        };
        if i % 4 == 0 {
            b.push(timed(&by_name));
        }
        d.push(dn);
        t.push(tn);
        added.push(tn - dn);
    }
    Overhead {
        direct_ns: median(d),
        typed_ns: median(t),
        by_name_ns: median(b),
        added_ns: median(added),
    }
}

/// The CPU's model name (lscpu's "Model name", from /proc/cpuinfo).
#[allow(dead_code)]
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
