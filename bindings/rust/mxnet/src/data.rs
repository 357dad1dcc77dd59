//! Data (`mxnet.image`, `mxnet.gluon.data`): image decoding and resizing ([`image`]), vision
//! [`Transform`]s (built in, or a Rust closure: [`Transform::from_fn`]), [`Dataset`]s
//! (Fashion-MNIST, MNIST, arrays) and a [`DataLoader`] (an iterator of batches).
//!
//! Threads (`mxc/data.h`): transforms and datasets are immutable (`Send + Sync`); a data loader
//! is used by one thread at a time (`Send`, iterated through `&mut`).
use crate::context::{current_raw, ensure_abi};
use crate::dtype::DType;
use crate::error::{check, Code, Error, Result};
use crate::handle::handle_type;
use crate::util::{buffer_too_small, path_cstring, take_string};
use crate::NDArray;
use mxc_sys as sys;
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr;

/// Resize filters (OpenCV's codes, as `mx.image`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interp {
    /// Nearest neighbour.
    Nearest,
    /// Bilinear (antialiased when shrinking); the default.
    #[default]
    Bilinear,
    /// Bicubic.
    Bicubic,
    /// Pixel-area averaging.
    Area,
    /// Lanczos.
    Lanczos,
}

impl Interp {
    fn to_raw(self) -> i32 {
        match self {
            Interp::Nearest => sys::MXC_INTERP_NEAREST,
            Interp::Bilinear => sys::MXC_INTERP_BILINEAR,
            Interp::Bicubic => sys::MXC_INTERP_BICUBIC,
            Interp::Area => sys::MXC_INTERP_AREA,
            Interp::Lanczos => sys::MXC_INTERP_LANCZOS,
        }
    }

    /// By name: "nearest", "bilinear", "bicubic", "area", "lanczos". Errors: `InvalidArgument`
    /// for any other.
    pub fn from_name(name: &str) -> Result<Interp> {
        Ok(match name {
            "nearest" => Interp::Nearest,
            "bilinear" => Interp::Bilinear,
            "bicubic" => Interp::Bicubic,
            "area" => Interp::Area,
            "lanczos" => Interp::Lanczos,
            _ => {
                return Err(Error::new(
                    Code::InvalidArgument,
                    format!(
                        "interp must be nearest, bilinear, bicubic, area or lanczos, got '{name}'"
                    ),
                ))
            }
        })
    }
}

/// `mx.image`: decoding and resizing images.
pub mod image {
    use super::*;

    fn out(f: impl FnOnce(*mut *mut sys::mxc_ndarray) -> *mut sys::mxc_status) -> Result<NDArray> {
        ensure_abi()?;
        let mut o = ptr::null_mut();
        check(f(&mut o))?;
        // SAFETY: a +1 handle written on success.
        Ok(unsafe { NDArray::from_raw(o) })
    }

    /// `imdecode`: a JPEG or PNG held in `bytes` to an (H, W, C) uint8 array: `color` true: 3
    /// channels (RGB when `to_rgb`, else BGR), false: 1 channel (grayscale). Errors:
    /// `InvalidArgument` / `DataLoss` for data that is no (complete) JPEG/PNG.
    pub fn decode(bytes: &[u8], color: bool, to_rgb: bool) -> Result<NDArray> {
        out(|o| unsafe {
            sys::mxc_image_decode(
                bytes.as_ptr().cast(),
                bytes.len(),
                color as i32,
                to_rgb as i32,
                o,
            )
        })
    }

    /// `imread`: [`decode`] of a file, 3 channels RGB. Errors: `NotFound` naming the path, as
    /// `decode`.
    pub fn read(path: impl AsRef<Path>) -> Result<NDArray> {
        let p = path_cstring(path.as_ref())?;
        out(|o| unsafe { sys::mxc_image_read(p.as_ptr(), 1, 1, o) })
    }

    /// `resize_short`: resizes an (H, W, C) uint8/float32 image so its shorter side is `size`,
    /// antialiased; the long side is `floor(long * size / short)`, or rounded to the nearest
    /// pixel when `round_long_side` (what `mxnet classify` uses). Errors: rank != 3, size <= 0.
    pub fn resize_short(
        image: &NDArray,
        size: i64,
        interp: Interp,
        round_long_side: bool,
    ) -> Result<NDArray> {
        out(|o| unsafe {
            sys::mxc_image_resize_short(
                image.as_raw(),
                size,
                interp.to_raw(),
                round_long_side as i32,
                o,
            )
        })
    }
}

handle_type!(
    /// A vision transform (`gluon.data.vision.transforms`, `mxc_transform`): applied to one
    /// array, it gives a new one. `Clone` retains, `Drop` releases.
    ///
    /// Threads: `Send + Sync` (immutable); a [`from_fn`](Self::from_fn) closure may run on
    /// DataLoader worker threads, concurrently.
    Transform,
    mxc_transform,
    mxc_transform_retain,
    mxc_transform_free
);

// SAFETY: immutable once made; the C ABI allows any thread to use it at once.
unsafe impl Sync for Transform {}

impl Transform {
    /// `ToTensor()`: HWC [0, 255] image (uint8 or any numeric dtype) -> CHW float32 x / 255;
    /// NHWC -> NCHW.
    pub fn to_tensor() -> Result<Transform> {
        ensure_abi()?;
        Transform::out(|o| unsafe { sys::mxc_transform_to_tensor(o) })
    }

    /// `Normalize(mean, std)`: (x - mean[c]) / std[c] per channel of a CHW / NCHW float tensor;
    /// 1 or C entries each. Errors: empty lists, a zero std.
    pub fn normalize(mean: &[f32], std: &[f32]) -> Result<Transform> {
        ensure_abi()?;
        Transform::out(|o| unsafe {
            sys::mxc_transform_normalize(mean.as_ptr(), mean.len(), std.as_ptr(), std.len(), o)
        })
    }

    /// `Resize((width, height))` of HWC/NHWC uint8 or float32 images. Errors: sizes <= 0.
    pub fn resize(width: i64, height: i64, interp: Interp) -> Result<Transform> {
        ensure_abi()?;
        Transform::out(|o| unsafe {
            sys::mxc_transform_resize(width, height, 0, interp.to_raw(), o)
        })
    }

    /// `Resize(size, keep_ratio=True)`: the shorter side to `size`, keeping the aspect ratio.
    pub fn resize_keep_ratio(size: i64, interp: Interp) -> Result<Transform> {
        ensure_abi()?;
        Transform::out(|o| unsafe { sys::mxc_transform_resize(size, 0, 1, interp.to_raw(), o) })
    }

    /// `CenterCrop((width, height))` of HWC images, resizing first with `interp` when the image
    /// is smaller. Errors: sizes <= 0.
    pub fn center_crop(width: i64, height: i64, interp: Interp) -> Result<Transform> {
        ensure_abi()?;
        Transform::out(|o| unsafe {
            sys::mxc_transform_center_crop(width, height, interp.to_raw(), o)
        })
    }

    /// `Cast(dtype)`.
    pub fn cast(dtype: DType) -> Result<Transform> {
        ensure_abi()?;
        Transform::out(|o| unsafe { sys::mxc_transform_cast(dtype.to_raw(), o) })
    }

    /// `Compose(steps)`: steps[0], then steps[1], ... Errors: no steps.
    pub fn compose(steps: &[&Transform]) -> Result<Transform> {
        ensure_abi()?;
        let h: Vec<*mut sys::mxc_transform> = steps.iter().map(|t| t.as_raw()).collect();
        Transform::out(|o| unsafe { sys::mxc_transform_compose(h.as_ptr(), h.len(), o) })
    }

    /// A transform running the Rust closure `f` (a callback from the library, on whichever
    /// thread applies the transform: DataLoader workers call it concurrently). An `Err` from `f`
    /// becomes the transform's error (its code and message); a panic in `f` is caught
    /// (`catch_unwind`) and becomes an `Internal` error naming the panic, never unwinding into
    /// C. The closure is dropped once, when the last reference to the transform goes.
    /// ```
    /// # fn main() -> mxnet::Result<()> {
    /// use mxnet::{data::Transform, NDArray};
    /// let double = Transform::from_fn(|x| mxnet::invoke("_mul_scalar", &[x], &[("scalar", "2")])?
    ///     .pop().ok_or_else(|| mxnet::Error::new(mxnet::Code::Internal, "no output")))?;
    /// let y = double.apply(&NDArray::from_slice(&[1.0f32, 2.0], &[2])?)?;
    /// assert_eq!(y.to_vec::<f32>()?, [2.0, 4.0]);
    /// # Ok(()) }
    /// ```
    pub fn from_fn<F>(f: F) -> Result<Transform>
    where
        F: Fn(&NDArray) -> Result<NDArray> + Send + Sync + 'static,
    {
        ensure_abi()?;
        let user = Box::into_raw(Box::new(f)).cast::<c_void>();
        let r = Transform::out(|o| unsafe {
            sys::mxc_transform_from_callback(
                Some(transform_trampoline::<F>),
                user,
                Some(drop_user_data::<F>),
                o,
            )
        });
        if r.is_err() {
            // On error the library never calls the free function: the closure is still ours.
            drop(unsafe { Box::from_raw(user.cast::<F>()) });
        }
        r
    }

    /// Applies the transform to `input`; a new array. Errors: the transform's.
    pub fn apply(&self, input: &NDArray) -> Result<NDArray> {
        let mut o = ptr::null_mut();
        check(unsafe { sys::mxc_transform_apply(self.as_raw(), input.as_raw(), &mut o) })?;
        Ok(unsafe { NDArray::from_raw(o) })
    }
}

/// The message of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// A status for the library from an error of Rust code.
fn status_of(e: &Error) -> *mut sys::mxc_status {
    let msg = std::ffi::CString::new(e.message().replace('\0', " ")).unwrap_or_default();
    // SAFETY: valid string; never NULL.
    unsafe { sys::mxc_status_create(e.code().to_raw() as i32, msg.as_ptr()) }
}

/// The C trampoline of [`Transform::from_fn`]: no panic crosses it.
unsafe extern "C" fn transform_trampoline<F>(
    user_data: *mut c_void,
    input: *mut sys::mxc_ndarray,
    output: *mut *mut sys::mxc_ndarray,
) -> *mut sys::mxc_status
where
    F: Fn(&NDArray) -> Result<NDArray> + Send + Sync + 'static,
{
    let r = catch_unwind(AssertUnwindSafe(|| {
        let f = &*(user_data as *const F);
        // The input is borrowed: wrap without taking (or releasing) a reference.
        let x = ManuallyDrop::new(NDArray::from_raw(input));
        f(&x)
    }));
    match r {
        Ok(Ok(y)) => {
            *output = y.into_raw();
            ptr::null_mut()
        }
        Ok(Err(e)) => status_of(&e),
        Err(p) => status_of(&Error::new(
            Code::Internal,
            format!("Rust transform panicked: {}", panic_message(&*p)),
        )),
    }
}

unsafe extern "C" fn drop_user_data<F>(user_data: *mut c_void) {
    // A panicking Drop must not unwind into C either.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        drop(Box::from_raw(user_data.cast::<F>()))
    }));
}

impl std::fmt::Display for Transform {
    /// As MXNet prints it: "Compose(ToTensor(), Normalize(...))".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = ptr::null_mut();
        match check(unsafe { sys::mxc_transform_to_string(self.as_raw(), &mut s) }) {
            Ok(()) => f.write_str(&unsafe { take_string(s) }),
            Err(e) => write!(f, "<transform: {e}>"),
        }
    }
}

impl std::fmt::Debug for Transform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

handle_type!(
    /// A dataset (`gluon.data.Dataset`, `mxc_dataset`): samples are lists of arrays ("fields"),
    /// e.g. `[image, label]`. `Clone` retains, `Drop` releases.
    ///
    /// Threads: `Send + Sync` (immutable).
    Dataset,
    mxc_dataset,
    mxc_dataset_retain,
    mxc_dataset_free
);

// SAFETY: immutable once made.
unsafe impl Sync for Dataset {}

/// The most fields a sample or batch may have before retrying with room for more.
const FIELDS: usize = 8;

fn dataset_from(
    f: unsafe extern "C" fn(
        *const std::ffi::c_char,
        i32,
        *mut *mut sys::mxc_dataset,
    ) -> *mut sys::mxc_status,
    root: Option<&Path>,
    train: bool,
) -> Result<Dataset> {
    ensure_abi()?;
    let r = root.map(path_cstring).transpose()?;
    Dataset::out(|o| unsafe {
        f(
            r.as_ref().map_or(ptr::null(), |r| r.as_ptr()),
            train as i32,
            o,
        )
    })
}

impl Dataset {
    /// `gluon.data.vision.FashionMNIST(root, train)`: the idx files
    /// (`{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]`) under `root` (None:
    /// `$MXNET_HOME/datasets/fashion-mnist`; Debian's `dataset-fashion-mnist` installs
    /// `/usr/share/datasets/fashion-mnist`). `train`: the 60,000 training images, else the 10,000
    /// test images. Samples: `[(28, 28, 1) uint8 image (HWC), () int32 label]`. Errors: `NotFound`
    /// naming the missing file, `DataLoss` for truncated files.
    pub fn fashion_mnist(root: Option<&Path>, train: bool) -> Result<Dataset> {
        dataset_from(sys::mxc_dataset_fashion_mnist, root, train)
    }

    /// `gluon.data.vision.MNIST(root, train)`, as [`fashion_mnist`](Self::fashion_mnist).
    pub fn mnist(root: Option<&Path>, train: bool) -> Result<Dataset> {
        dataset_from(sys::mxc_dataset_mnist, root, train)
    }

    /// `ArrayDataset(columns...)`: sample i is `[columns[0][i], ...]` (shared, not copied).
    /// Errors: no columns, 0-d arrays, different lengths.
    pub fn from_arrays(columns: &[&NDArray]) -> Result<Dataset> {
        ensure_abi()?;
        let h: Vec<*mut sys::mxc_ndarray> = columns.iter().map(|a| a.as_raw()).collect();
        Dataset::out(|o| unsafe { sys::mxc_dataset_from_arrays(h.as_ptr(), h.len(), o) })
    }

    /// Number of samples.
    pub fn len(&self) -> Result<usize> {
        let mut n = 0i64;
        check(unsafe { sys::mxc_dataset_size(self.as_raw(), &mut n) })?;
        Ok(n as usize)
    }

    /// Whether it has no samples.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Sample `index`: its fields. Errors: `OutOfRange`, a transform's error.
    pub fn get(&self, index: usize) -> Result<Vec<NDArray>> {
        read_fields(|fields, max, n| unsafe {
            sys::mxc_dataset_get(self.as_raw(), index as i64, fields, max, n)
        })
    }

    /// `take(count)`: the first min(count, len) samples.
    pub fn take(&self, count: usize) -> Result<Dataset> {
        Dataset::out(|o| unsafe { sys::mxc_dataset_take(self.as_raw(), count as i64, o) })
    }

    /// `shard(num_shards, index)`: contiguous shard `index`. Errors: bad counts.
    pub fn shard(&self, num_shards: usize, index: usize) -> Result<Dataset> {
        Dataset::out(|o| unsafe {
            sys::mxc_dataset_shard(self.as_raw(), num_shards as i64, index as i64, o)
        })
    }

    /// `transform_first(transform, lazy)`: the first field (the image) goes through
    /// `transform` (lazy: on every read; else once, now, for every sample).
    pub fn transform_first(&self, transform: &Transform, lazy: bool) -> Result<Dataset> {
        Dataset::out(|o| unsafe {
            sys::mxc_dataset_transform_first(self.as_raw(), transform.as_raw(), lazy as i32, o)
        })
    }
}

/// Reads up to `FIELDS` (then more) new handles written by `f(fields, max, &n)`.
fn read_fields(
    mut f: impl FnMut(*mut *mut sys::mxc_ndarray, usize, *mut usize) -> *mut sys::mxc_status,
) -> Result<Vec<NDArray>> {
    let mut cap = FIELDS;
    loop {
        let mut fields = vec![ptr::null_mut(); cap];
        let mut n = 0usize;
        match check(f(fields.as_mut_ptr(), cap, &mut n)) {
            Ok(()) => {
                // SAFETY: n +1 handles.
                return Ok(fields[..n]
                    .iter()
                    .map(|&p| unsafe { NDArray::from_raw(p) })
                    .collect());
            }
            // More fields than the buffer holds (the sample or batch is not consumed): again,
            // with room for them.
            Err(e) if buffer_too_small(&e) && cap < 1024 => cap *= 8,
            Err(e) => return Err(e),
        }
    }
}

/// What happens to the incomplete last batch of an epoch (`last_batch`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LastBatch {
    /// Kept ("keep", the default).
    #[default]
    Keep,
    /// Dropped ("discard").
    Discard,
    /// Rolled over into the next epoch ("rollover").
    Rollover,
}

/// Options of [`DataLoader::new`] (`gluon.data.DataLoader`'s arguments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoaderOptions {
    /// Samples per batch (>= 1).
    pub batch_size: usize,
    /// A new random order each epoch, drawn from the thread's context stream.
    pub shuffle: bool,
    /// The incomplete last batch.
    pub last_batch: LastBatch,
    /// Worker threads loading batches ahead (0: on the calling thread).
    pub num_workers: usize,
    /// Batches in flight with workers (0: 2 * num_workers).
    pub prefetch: usize,
}

impl LoaderOptions {
    /// Batches of `batch_size`, in order, last batch kept, no workers.
    pub fn new(batch_size: usize) -> LoaderOptions {
        LoaderOptions {
            batch_size,
            shuffle: false,
            last_batch: LastBatch::Keep,
            num_workers: 0,
            prefetch: 0,
        }
    }
}

handle_type!(
    /// `gluon.data.DataLoader` (`mxc_dataloader`): batches of a dataset, stacked (fields of
    /// shape S become (batch, S): Fashion-MNIST through `ToTensor` gives `(B, 1, 28, 28)`
    /// float32 images and `(B,)` int32 labels). An [`Iterator`] over one epoch's batches; after
    /// the epoch ends (`None`), the next call starts a new epoch.
    ///
    /// Threads: `Send`, not `Sync` (one thread at a time). Dropping it stops its workers.
    DataLoader,
    mxc_dataloader,
    mxc_dataloader_retain,
    mxc_dataloader_free
);

impl DataLoader {
    /// A loader over `dataset`. Errors: batch_size < 1.
    pub fn new(dataset: &Dataset, options: &LoaderOptions) -> Result<DataLoader> {
        let o = sys::mxc_dataloader_options {
            struct_size: std::mem::size_of::<sys::mxc_dataloader_options>(),
            batch_size: options.batch_size as i64,
            shuffle: options.shuffle as i32,
            last_batch: match options.last_batch {
                LastBatch::Keep => sys::MXC_LAST_BATCH_KEEP,
                LastBatch::Discard => sys::MXC_LAST_BATCH_DISCARD,
                LastBatch::Rollover => sys::MXC_LAST_BATCH_ROLLOVER,
            },
            num_workers: i32::try_from(options.num_workers).unwrap_or(i32::MAX),
            prefetch: i32::try_from(options.prefetch).unwrap_or(i32::MAX),
        };
        DataLoader::out(|out| unsafe { sys::mxc_dataloader_create(dataset.as_raw(), &o, out) })
    }

    /// Batches in one epoch (`len(loader)`).
    pub fn len(&self) -> Result<usize> {
        let mut n = 0i64;
        check(unsafe { sys::mxc_dataloader_size(self.as_raw(), &mut n) })?;
        Ok(n as usize)
    }

    /// Whether an epoch has no batches.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// The next batch of the current epoch (its fields), or None at the end of the epoch (the
    /// next call starts a new one). Errors: a loading error naming the sample and batch (the
    /// epoch is then over).
    pub fn next_batch(&mut self) -> Result<Option<Vec<NDArray>>> {
        let ctx = current_raw()?;
        let mut has = 0i32;
        let fields = read_fields(|fields, max, n| unsafe {
            sys::mxc_dataloader_next(ctx, self.as_raw(), fields, max, n, &mut has)
        })?;
        Ok((has != 0).then_some(fields))
    }

    /// Ends the current epoch early.
    pub fn reset(&mut self) -> Result<()> {
        check(unsafe { sys::mxc_dataloader_reset(self.as_raw()) })
    }
}

impl Iterator for DataLoader {
    type Item = Result<Vec<NDArray>>;

    /// [`next_batch`](Self::next_batch), transposed: `None` at the end of an epoch.
    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

impl std::fmt::Debug for DataLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataLoader")
            .field("len", &self.len().ok())
            .finish()
    }
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("len", &self.len().ok())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn panic_message_reads_str_and_string() {
        let p: Box<dyn std::any::Any + Send> = Box::new("boom");
        assert_eq!(super::panic_message(&*p), "boom");
        let p: Box<dyn std::any::Any + Send> = Box::new(String::from("bang"));
        assert_eq!(super::panic_message(&*p), "bang");
    }
}
