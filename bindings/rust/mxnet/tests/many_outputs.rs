//! Blocks and datasets with more outputs / fields than the binding's first buffer (16 / 8) give
//! all of them, in order.
use mxnet::data::{DataLoader, Dataset, LoaderOptions};
use mxnet::{Block, NDArray, Symbol};

#[test]
fn a_block_with_20_outputs() {
    let data = Symbol::variable("data").unwrap();
    let outs: Vec<Symbol> = (0..20)
        .map(|i| {
            let k = i.to_string();
            Symbol::create("_plus_scalar", &[&data], &[("scalar", k.as_str())], None).unwrap()
        })
        .collect();
    let group = Symbol::group(&outs.iter().collect::<Vec<_>>()).unwrap();
    let net = Block::from_symbol(&group, &["data"]).unwrap();
    let x = NDArray::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let y = net.call(&[&x]).unwrap();
    assert_eq!(y.len(), 20);
    for (i, a) in y.iter().enumerate() {
        assert_eq!(a.to_vec::<f32>().unwrap(), [1.0 + i as f32, 2.0 + i as f32]);
    }
    assert!(net.forward(&x).is_err(), "forward wants exactly one output");
}

#[test]
fn a_dataset_with_10_fields() {
    let cols: Vec<NDArray> = (0..10)
        .map(|i| NDArray::from_slice(&[i as f32, 10.0 + i as f32], &[2]).unwrap())
        .collect();
    let ds = Dataset::from_arrays(&cols.iter().collect::<Vec<_>>()).unwrap();
    let s = ds.get(1).unwrap();
    assert_eq!(s.len(), 10);
    for (i, f) in s.iter().enumerate() {
        assert_eq!(f.to_vec::<f32>().unwrap(), [10.0 + i as f32]);
    }
    let mut dl = DataLoader::new(&ds, &LoaderOptions::new(2)).unwrap();
    let b = dl.next_batch().unwrap().unwrap();
    assert_eq!(b.len(), 10);
    assert_eq!(b[3].to_vec::<f32>().unwrap(), [3.0, 13.0]);
    assert!(dl.next_batch().unwrap().is_none());
}
