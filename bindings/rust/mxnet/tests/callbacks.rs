//! Rust closures as transforms (`Transform::from_fn`, a C callback behind a trampoline): results,
//! errors and panics cross the C ABI as values (a panic becomes an `Internal` error, never an
//! unwind into C); the closure runs on DataLoader worker threads; it is dropped exactly once.
use mxnet::data::{DataLoader, Dataset, LoaderOptions, Transform};
use mxnet::{Code, Error, NDArray};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts drops of the closure's captured state.
struct DropCounter(Arc<AtomicUsize>);
impl Drop for DropCounter {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn times(x: &NDArray, k: f32) -> mxnet::Result<NDArray> {
    let s = k.to_string();
    Ok(mxnet::invoke("_mul_scalar", &[x], &[("scalar", &s)])?.remove(0))
}

#[test]
fn closure_results_errors_and_panics_cross_as_values() {
    let drops = Arc::new(AtomicUsize::new(0));
    let guard = DropCounter(Arc::clone(&drops));
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let t = Transform::from_fn(move |x| {
        let _keep = &guard;
        c.fetch_add(1, Ordering::SeqCst);
        times(x, 3.0)
    })
    .unwrap();
    let x = NDArray::from_slice(&[1.0f32, -2.0], &[2]).unwrap();
    assert_eq!(t.apply(&x).unwrap().to_vec::<f32>().unwrap(), [3.0, -6.0]);
    // The input is borrowed by the callback: still alive and unchanged here.
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.0, -2.0]);
    // Composed with built-in transforms.
    let both = Transform::compose(&[&t, &Transform::to_tensor().unwrap()]);
    assert!(both.is_ok());
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let failing =
        Transform::from_fn(|_| Err(Error::new(Code::OutOfRange, "no such pixel"))).unwrap();
    let e = failing.apply(&x).unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e}");
    assert!(e.message().contains("no such pixel"), "{e}");

    let panicking = Transform::from_fn(|_| -> mxnet::Result<NDArray> { panic!("kaboom") }).unwrap();
    let e = panicking.apply(&x).unwrap_err();
    assert_eq!(e.code(), Code::Internal, "{e}");
    assert!(e.message().contains("kaboom"), "{e}");
    // Still usable after a panic.
    assert!(panicking.apply(&x).is_err());

    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(t);
    drop(both);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the closure is dropped once, with the last reference"
    );
}

#[test]
fn closures_run_on_dataloader_workers() {
    // 64 samples of 4 floats, value i in sample i; the closure doubles them on worker threads.
    let data: Vec<f32> = (0..64).flat_map(|i| [i as f32; 4]).collect();
    let images = NDArray::from_slice(&data, &[64, 4]).unwrap();
    let labels = NDArray::from_slice(&(0..64).collect::<Vec<i32>>(), &[64]).unwrap();
    let ds = Dataset::from_arrays(&[&images, &labels]).unwrap();
    assert_eq!(ds.len().unwrap(), 64);
    let threads = Arc::new(std::sync::Mutex::new(std::collections::HashSet::new()));
    let seen = Arc::clone(&threads);
    let t = Transform::from_fn(move |x| {
        seen.lock().unwrap().insert(std::thread::current().id());
        times(x, 2.0)
    })
    .unwrap();
    let ds = ds.transform_first(&t, true).unwrap();
    let mut loader = DataLoader::new(
        &ds,
        &LoaderOptions {
            num_workers: 2,
            ..LoaderOptions::new(8)
        },
    )
    .unwrap();
    assert_eq!(loader.len().unwrap(), 8);
    for _epoch in 0..2 {
        let mut n = 0;
        for (b, batch) in (&mut loader).enumerate() {
            let batch = batch.unwrap();
            assert_eq!(batch[0].shape().unwrap(), [8, 4]);
            let lab = batch[1].to_vec::<i32>().unwrap();
            assert_eq!(
                lab,
                ((b * 8) as i32..(b * 8 + 8) as i32).collect::<Vec<_>>()
            );
            let img = batch[0].to_vec::<f32>().unwrap();
            for (i, l) in lab.iter().enumerate() {
                assert_eq!(img[i * 4..i * 4 + 4], [2.0 * *l as f32; 4]);
            }
            n += 1;
        }
        assert_eq!(n, 8);
    }
    assert!(
        !threads
            .lock()
            .unwrap()
            .contains(&std::thread::current().id()),
        "ran on workers"
    );

    // A panic on a worker thread is a loading error of that batch, not a crash.
    let bad = Transform::from_fn(|_| -> mxnet::Result<NDArray> { panic!("worker panic") }).unwrap();
    let mut loader = DataLoader::new(
        &Dataset::from_arrays(&[&images])
            .unwrap()
            .transform_first(&bad, true)
            .unwrap(),
        &LoaderOptions {
            num_workers: 2,
            ..LoaderOptions::new(8)
        },
    )
    .unwrap();
    let e = loader.next_batch().unwrap_err();
    assert!(e.message().contains("worker panic"), "{e}");
}
