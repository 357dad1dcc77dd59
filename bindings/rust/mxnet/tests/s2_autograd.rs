//! S2 (BINDINGS.md): record y = sum(x*x + 3*x), backward, dy/dx = 2x + 3; `grad` with
//! create_graph for a second derivative; guards restore the flags; the flags are per thread.
use mxnet::autograd::{self, GradOptions};
use mxnet::{ops, Code, GradReq, NDArray};

fn var(data: &[f32]) -> NDArray {
    let mut x = NDArray::from_slice(data, &[data.len() as i64]).unwrap();
    x.attach_grad(GradReq::Write).unwrap();
    x
}

/// y = sum(x*x + 3*x), recorded.
fn poly(x: &NDArray) -> NDArray {
    let _r = autograd::record();
    let xx = ops::elemwise_mul(x, x).unwrap();
    let x3 = ops::internal::mul_scalar(x).scalar(3.0).call().unwrap();
    ops::sum(&ops::elemwise_add(&xx, &x3).unwrap())
        .call()
        .unwrap()
}

#[test]
fn backward_gives_2x_plus_3() {
    let xs = [-2.0f32, -0.5, 0.0, 1.0, 3.0];
    let x = var(&xs);
    let y = poly(&x);
    // y = Σ x² + 3x = (4-6) + (0.25-1.5) + 0 + (1+3) + (9+9) = 18.75.
    assert_eq!(y.to_vec::<f32>().unwrap(), [18.75]);
    y.backward().unwrap();
    let want: Vec<f32> = xs.iter().map(|x| 2.0 * x + 3.0).collect();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), want);
}

#[test]
fn grad_req_add_accumulates_and_head_grads_scale() {
    let mut x = NDArray::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    x.attach_grad(GradReq::Add).unwrap();
    for _ in 0..2 {
        poly(&x).backward().unwrap();
    }
    // Two backward passes of 2x + 3 = (5, 7) accumulate to (10, 14).
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), [10.0, 14.0]);

    let x = var(&[1.0, 2.0]);
    let y = poly(&x);
    let hg = NDArray::from_slice(&[0.5f32], &[1]).unwrap();
    autograd::backward(&[&y], Some(&[Some(&hg)]), false, true).unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), [2.5, 3.5]);
}

#[test]
fn second_derivative_with_create_graph() {
    // y = sum(x³): dy/dx = 3x², d(sum(3x²))/dx = 6x.
    let xs = [-1.0f32, 0.5, 2.0];
    let x = var(&xs);
    let g = {
        let _r = autograd::record();
        let x2 = ops::elemwise_mul(&x, &x).unwrap();
        let y = ops::sum(&ops::elemwise_mul(&x2, &x).unwrap())
            .call()
            .unwrap();
        let g = autograd::grad(
            &[&y],
            &[&x],
            GradOptions {
                create_graph: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(g.len(), 1);
        ops::sum(&g[0]).call().unwrap()
    };
    // Σ 3x² = 3 + 0.75 + 12.
    assert_eq!(g.to_vec::<f32>().unwrap(), [15.75]);
    g.backward().unwrap();
    let want: Vec<f32> = xs.iter().map(|x| 6.0 * x).collect();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), want);

    // Without create_graph the first derivative is a plain value (x's buffer untouched).
    let x = var(&xs);
    let y = {
        let _r = autograd::record();
        ops::sum(&ops::elemwise_mul(&x, &x).unwrap())
            .call()
            .unwrap()
    };
    let g = autograd::grad(&[&y], &[&x], GradOptions::default()).unwrap();
    assert_eq!(g[0].to_vec::<f32>().unwrap(), [-2.0, 1.0, 4.0]);
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), [0.0; 3]);
}

#[test]
fn guards_restore_flags() {
    assert!(!autograd::is_recording().unwrap());
    assert!(!autograd::is_training().unwrap());
    {
        let _r = autograd::record();
        assert!(autograd::is_recording().unwrap() && autograd::is_training().unwrap());
        {
            let _p = autograd::pause();
            assert!(!autograd::is_recording().unwrap() && !autograd::is_training().unwrap());
        }
        assert!(autograd::is_recording().unwrap() && autograd::is_training().unwrap());
        {
            let _p = autograd::predict_mode();
            assert!(autograd::is_recording().unwrap() && !autograd::is_training().unwrap());
        }
    }
    assert!(!autograd::is_recording().unwrap() && !autograd::is_training().unwrap());
    let _t = autograd::train_mode();
    assert!(!autograd::is_recording().unwrap() && autograd::is_training().unwrap());
}

#[test]
fn training_mode_changes_dropout() {
    let x = NDArray::from_slice(&[1.0f32; 1000], &[1000]).unwrap();
    // Predict mode: identity.
    assert_eq!(
        ops::dropout(&x).p(0.5).call().unwrap()[0]
            .to_vec::<f32>()
            .unwrap(),
        vec![1.0; 1000]
    );
    let _t = autograd::train_mode();
    let y = ops::dropout(&x).p(0.5).call().unwrap()[0]
        .to_vec::<f32>()
        .unwrap();
    // Training: each element 0 or 1/(1-p) = 2, about half of each.
    assert!(y.iter().all(|v| *v == 0.0 || *v == 2.0));
    let zeros = y.iter().filter(|v| **v == 0.0).count();
    assert!((350..650).contains(&zeros), "{zeros} zeros of 1000");
}

#[test]
fn recording_is_per_thread() {
    let _r = autograd::record();
    std::thread::spawn(|| assert!(!autograd::is_recording().unwrap()))
        .join()
        .unwrap();
    assert!(autograd::is_recording().unwrap());
}

#[test]
fn graph_recorded_on_one_thread_differentiates_on_another() {
    let x = var(&[1.0, 2.0]);
    let y = poly(&x);
    std::thread::spawn(move || y.backward().unwrap())
        .join()
        .unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), [5.0, 7.0]);
}

#[test]
fn autograd_errors() {
    // The gradient of a non-variable; backward from an unrecorded array.
    let a = NDArray::from_slice(&[1.0f32], &[1]).unwrap();
    assert_eq!(a.grad().unwrap_err().code(), Code::FailedPrecondition);
    assert!(a.backward().is_err());
    // A second backward over a freed graph.
    let x = var(&[1.0]);
    let y = poly(&x);
    y.backward().unwrap();
    assert!(y.backward().is_err());
    // Mismatched lengths are caught by the binding.
    let e = autograd::mark_variables(&[&a], &[], &[GradReq::Write]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn mark_variables_uses_given_buffers() {
    let x = NDArray::from_slice(&[3.0f32], &[1]).unwrap();
    let g = NDArray::zeros(&[1], mxnet::DType::Float32).unwrap();
    autograd::mark_variables(&[&x], &[&g], &[GradReq::Write]).unwrap();
    poly(&x).backward().unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), [9.0]);
}
