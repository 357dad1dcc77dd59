//! [`NDArray`]: a dense, row-major tensor on a device (`mxnet.ndarray.NDArray`).
use crate::context::{current_raw, ensure_abi};
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{check, Code, Error, Result};
use crate::util::{cstring, path_cstring, take_string_array};
use mxc_sys as sys;
use std::ffi::{c_void, CString};
use std::path::Path;
use std::ptr::{self, NonNull};

/// A reference-counted handle to an `mxc_ndarray`: dense, C-contiguous (row-major) elements of
/// one [`DType`] on one [`Device`]; shapes are `i64` dims, outermost first (`[]` is a scalar with
/// one element).
///
/// Ownership: `Clone` retains the same array (no copy: both handles see writes); `Drop` releases
/// this handle's reference. Views ([`reshape`](Self::reshape), [`slice`](Self::slice)) and
/// [`grad`](Self::grad) also share memory with their source.
///
/// Threads: `Send + Sync` as the C ABI allows: distinct arrays are used concurrently, one array
/// may be read (an operator input, copies out, getters) by many threads at once, and a handle may
/// be dropped on any thread. Writes ([`copy_from_slice`](Self::copy_from_slice),
/// [`attach_grad`](Self::attach_grad)) take `&mut self`, so the borrow checker keeps them
/// exclusive *for this handle*; the C ABI leaves writing an array while another thread reads it
/// through another handle to the same memory (a clone, a view, a gradient buffer) a race, and so
/// does this crate: do not write shared arrays while other threads use them. The same holds for
/// operators that update an input in place (optimizer states, BatchNorm's moving statistics in
/// training mode; see [`Op::invoke`](crate::Op::invoke)).
pub struct NDArray {
    raw: NonNull<sys::mxc_ndarray>,
}

// SAFETY: see the type's threading paragraph: the C ABI allows concurrent reads of one array,
// use of distinct arrays from different threads and freeing from any thread; writes need `&mut`.
unsafe impl Send for NDArray {}
unsafe impl Sync for NDArray {}

/// Shapes arrive as `&[i64]`; the C ABI wants a pointer that may be NULL only for ndim 0.
fn shape_ptr(shape: &[i64]) -> *const i64 {
    if shape.is_empty() {
        ptr::null()
    } else {
        shape.as_ptr()
    }
}

/// Checks that `T` is the array's element type, naming both otherwise.
fn expect_dtype<T: Element>(what: &str, actual: DType) -> Result<()> {
    if T::DTYPE == actual {
        Ok(())
    } else {
        Err(Error::new(
            Code::InvalidArgument,
            format!(
                "{what}: a buffer of {} for an array of dtype {actual}",
                T::DTYPE
            ),
        ))
    }
}

/// File formats of [`NDArray::save`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FileFormat {
    /// MXNet's NDArray-list format (`.params`, `.nd`), record version 2 (MXNet 1.x `mx.nd.save`).
    #[default]
    NDArrayList,
    /// The NDArray-list format with V3 records (np-shape: `npx.save`, MXNet 2.x).
    NDArrayListV3,
    /// NumPy `.npy` (exactly one array).
    Npy,
    /// NumPy `.npz` (a zip of `.npy` files).
    Npz,
}

impl FileFormat {
    fn options(self) -> sys::mxc_ndarray_save_options {
        let (format, version) = match self {
            FileFormat::NDArrayList => (sys::MXC_FORMAT_NDARRAY_LIST, 2),
            FileFormat::NDArrayListV3 => (sys::MXC_FORMAT_NDARRAY_LIST, 3),
            FileFormat::Npy => (sys::MXC_FORMAT_NPY, 0),
            FileFormat::Npz => (sys::MXC_FORMAT_NPZ, 0),
        };
        sys::mxc_ndarray_save_options {
            struct_size: std::mem::size_of::<sys::mxc_ndarray_save_options>(),
            format,
            version,
            no_fsync: 0,
        }
    }
}

/// Options of [`NDArray::load_with`] (`mxc_ndarray_load_options`); the default is what
/// [`NDArray::load`] uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Where the loaded arrays are placed (default cpu(0)).
    pub device: Device,
    /// Bytes after the names section (or after `.npy` data) are a `DataLoss` error instead of
    /// being ignored as MXNet does.
    pub reject_trailing_bytes: bool,
    /// Sparse records are `Unimplemented` errors instead of being densified.
    pub keep_sparse: bool,
    /// The most bytes one sparse record may densify to (`ResourceExhausted` above it); 0 = the
    /// library's default, 1 GiB. Lower it for files from strangers.
    pub max_densified_bytes: u64,
}

impl LoadOptions {
    fn to_raw(self) -> sys::mxc_ndarray_load_options {
        sys::mxc_ndarray_load_options {
            struct_size: std::mem::size_of::<sys::mxc_ndarray_load_options>(),
            device: self.device.to_raw(),
            reject_trailing_bytes: self.reject_trailing_bytes as i32,
            keep_sparse: self.keep_sparse as i32,
            max_densified_bytes: self.max_densified_bytes,
        }
    }
}

/// The arrays of a file ([`NDArray::load`]): in file order, with names when the file is a dict.
/// "None" records are `None`.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The arrays, in file order.
    pub arrays: Vec<Option<NDArray>>,
    /// One name per array for a dict file; `None` for a list file.
    pub names: Option<Vec<String>>,
}

impl Loaded {
    /// The array named `name` (dict files), if present and not a "none" record.
    pub fn get(&self, name: &str) -> Option<&NDArray> {
        let names = self.names.as_ref()?;
        let i = names.iter().position(|n| n == name)?;
        self.arrays[i].as_ref()
    }

    /// `(name, array)` pairs of a dict file, skipping "none" records (empty for list files).
    pub fn named(&self) -> Vec<(&str, &NDArray)> {
        match &self.names {
            None => Vec::new(),
            Some(names) => names
                .iter()
                .zip(&self.arrays)
                .filter_map(|(n, a)| a.as_ref().map(|a| (n.as_str(), a)))
                .collect(),
        }
    }
}

/// Takes the arrays (+1 handles; NULL entries allowed) and names of a load call.
unsafe fn take_loaded(
    arrays: *mut *mut sys::mxc_ndarray,
    names: *mut *mut std::ffi::c_char,
    count: usize,
) -> Loaded {
    let list = if arrays.is_null() {
        Vec::new()
    } else {
        let out = (0..count)
            .map(|i| NDArray::from_raw_opt(*arrays.add(i)))
            .collect();
        // The handles now belong to the NDArrays; free only the outer array: the C ABI's
        // mxc_ndarray_array_free frees the handles too, so NULL them out first.
        for i in 0..count {
            *arrays.add(i) = ptr::null_mut();
        }
        sys::mxc_ndarray_array_free(arrays, count);
        out
    };
    let names = if names.is_null() {
        None
    } else {
        Some(take_string_array(names, count))
    };
    Loaded {
        arrays: list,
        names,
    }
}

impl NDArray {
    // ---- Creation. ----

    /// A zero-filled array of `shape` (dims >= 0) and `dtype` on cpu(0).
    /// Errors: negative dims (`InvalidArgument`).
    pub fn zeros(shape: &[i64], dtype: DType) -> Result<NDArray> {
        NDArray::zeros_on(shape, dtype, Device::CPU)
    }

    /// A zero-filled array on `device`. Errors: as [`zeros`](Self::zeros), a device this build
    /// lacks (`Unavailable`).
    pub fn zeros_on(shape: &[i64], dtype: DType, device: Device) -> Result<NDArray> {
        ensure_abi()?;
        let mut out = ptr::null_mut();
        // SAFETY: shape pointer valid for shape.len() dims; valid out-pointer.
        check(unsafe {
            sys::mxc_ndarray_create(
                shape_ptr(shape),
                shape.len(),
                dtype.to_raw(),
                device.to_raw(),
                &mut out,
            )
        })?;
        // SAFETY: a +1 handle.
        Ok(unsafe { NDArray::from_raw(out) })
    }

    /// An array holding a copy of `data` (row-major) with `shape` on cpu(0); the dtype is `T`'s.
    /// Errors: `data.len()` differs from the shape's element count (`InvalidArgument`, naming
    /// both byte sizes).
    pub fn from_slice<T: Element>(data: &[T], shape: &[i64]) -> Result<NDArray> {
        NDArray::from_slice_on(data, shape, Device::CPU)
    }

    /// As [`from_slice`](Self::from_slice), on `device`.
    pub fn from_slice_on<T: Element>(data: &[T], shape: &[i64], device: Device) -> Result<NDArray> {
        // SAFETY: `data` is valid for its byte length; Element types are plain data.
        unsafe {
            NDArray::from_host(
                data.as_ptr().cast(),
                std::mem::size_of_val(data),
                shape,
                T::DTYPE,
                device,
            )
        }
    }

    /// An array holding a copy of raw bytes (row-major elements of `dtype`, e.g. float16 bits).
    /// Errors: `bytes.len()` differs from the element count times the dtype size.
    pub fn from_bytes(
        bytes: &[u8],
        shape: &[i64],
        dtype: DType,
        device: Device,
    ) -> Result<NDArray> {
        // SAFETY: `bytes` is valid for its length.
        unsafe { NDArray::from_host(bytes.as_ptr().cast(), bytes.len(), shape, dtype, device) }
    }

    unsafe fn from_host(
        data: *const c_void,
        nbytes: usize,
        shape: &[i64],
        dtype: DType,
        device: Device,
    ) -> Result<NDArray> {
        ensure_abi()?;
        let mut out = ptr::null_mut();
        check(sys::mxc_ndarray_from_host(
            data,
            nbytes,
            shape_ptr(shape),
            shape.len(),
            dtype.to_raw(),
            device.to_raw(),
            &mut out,
        ))?;
        Ok(NDArray::from_raw(out))
    }

    /// An array using `data`'s memory without copying (zero copy), on cpu(0). The vector is
    /// dropped when the last array or view using it is gone, on whichever thread drops it.
    /// Errors: as [`from_slice`](Self::from_slice) (the vector is then dropped at once).
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[i64]) -> Result<NDArray> {
        ensure_abi()?;
        unsafe extern "C" fn drop_vec<T>(user_data: *mut c_void) {
            // SAFETY: user_data is the Box<Vec<T>> leaked below; called exactly once.
            drop(unsafe { Box::from_raw(user_data.cast::<Vec<T>>()) });
        }
        let mut boxed = Box::new(data);
        let nbytes = std::mem::size_of_val(boxed.as_slice());
        let ptr = boxed.as_mut_ptr().cast::<c_void>();
        let user = Box::into_raw(boxed);
        let mut out = ptr::null_mut();
        // SAFETY: the memory stays valid until drop_vec runs (the Box owns the Vec).
        let status = unsafe {
            sys::mxc_ndarray_from_external(
                ptr,
                nbytes,
                shape_ptr(shape),
                shape.len(),
                T::DTYPE.to_raw(),
                Device::CPU.to_raw(),
                Some(drop_vec::<T>),
                user.cast(),
                &mut out,
            )
        };
        if let Err(e) = check(status) {
            // On error the library never calls the deleter.
            drop(unsafe { Box::from_raw(user) });
            return Err(e);
        }
        Ok(unsafe { NDArray::from_raw(out) })
    }

    // ---- Raw handles. ----

    /// Wraps a +1 `mxc_ndarray` handle (takes ownership of that reference).
    ///
    /// # Safety
    /// `raw` must be a non-NULL handle the caller owns a reference to. (A stale handle does not
    /// crash: calls on it return `InvalidArgument` errors, but the reference is not yours.)
    pub unsafe fn from_raw(raw: *mut sys::mxc_ndarray) -> NDArray {
        NDArray {
            raw: NonNull::new(raw).expect("NDArray::from_raw: NULL handle"),
        }
    }

    unsafe fn from_raw_opt(raw: *mut sys::mxc_ndarray) -> Option<NDArray> {
        NonNull::new(raw).map(|raw| NDArray { raw })
    }

    /// The raw handle, borrowed (valid while `self` lives; do not free it).
    pub fn as_raw(&self) -> *mut sys::mxc_ndarray {
        self.raw.as_ptr()
    }

    /// Gives up ownership: the caller must free the returned +1 handle
    /// (`mxc_ndarray_free`).
    pub fn into_raw(self) -> *mut sys::mxc_ndarray {
        let raw = self.raw.as_ptr();
        std::mem::forget(self);
        raw
    }

    /// Releases this handle now (the same as dropping it). Using the array after `close` or
    /// closing it twice does not compile:
    /// ```compile_fail
    /// let a = mxnet::NDArray::zeros(&[2], mxnet::DType::Float32).unwrap();
    /// a.close();
    /// a.shape().unwrap(); // use after close: `a` was moved
    /// ```
    /// ```compile_fail
    /// let a = mxnet::NDArray::zeros(&[2], mxnet::DType::Float32).unwrap();
    /// a.close();
    /// a.close(); // double close
    /// ```
    pub fn close(self) {}

    // ---- Properties. ----

    /// Number of dims (0 for a scalar).
    pub fn ndim(&self) -> Result<usize> {
        let mut n = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_ndim(self.as_raw(), &mut n) })?;
        Ok(n)
    }

    /// The shape (outermost first; `[]` for a scalar).
    pub fn shape(&self) -> Result<Vec<i64>> {
        let mut dims = [0i64; 8];
        let mut ndim = 0;
        // SAFETY: dims has capacity 8; valid out-pointers.
        let s = unsafe {
            sys::mxc_ndarray_shape(self.as_raw(), dims.as_mut_ptr(), dims.len(), &mut ndim)
        };
        if s.is_null() {
            return Ok(dims[..ndim].to_vec());
        }
        let err = unsafe { Error::from_status(s) };
        if err.code() != Code::OutOfRange {
            return Err(err);
        }
        let mut v = vec![0i64; self.ndim()?];
        // SAFETY: v has capacity ndim.
        check(unsafe {
            sys::mxc_ndarray_shape(self.as_raw(), v.as_mut_ptr(), v.len(), &mut ndim)
        })?;
        Ok(v)
    }

    /// Number of elements (1 for a scalar).
    pub fn size(&self) -> Result<usize> {
        let mut n = 0i64;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_size(self.as_raw(), &mut n) })?;
        Ok(n as usize)
    }

    /// Bytes of the data (size × dtype size).
    pub fn nbytes(&self) -> Result<usize> {
        let mut n = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_nbytes(self.as_raw(), &mut n) })?;
        Ok(n)
    }

    /// The element type.
    pub fn dtype(&self) -> Result<DType> {
        let mut d = 0;
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_dtype(self.as_raw(), &mut d) })?;
        DType::from_raw(d)
    }

    /// The device.
    pub fn device(&self) -> Result<Device> {
        let mut d = sys::mxc_device::default();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_device(self.as_raw(), &mut d) })?;
        Device::from_raw(d)
    }

    // ---- Copies. ----

    /// The elements (row-major) as a `Vec<T>`, after pending writes. Errors: `T` is not the
    /// array's dtype (`InvalidArgument`, naming both).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        expect_dtype::<T>("NDArray::to_vec", self.dtype()?)?;
        let mut v = vec![T::default(); self.size()?];
        self.copy_to_slice(&mut v)?;
        Ok(v)
    }

    /// Copies the elements into `dst` (row-major). Errors: wrong element type or length
    /// (`InvalidArgument`).
    pub fn copy_to_slice<T: Element>(&self, dst: &mut [T]) -> Result<()> {
        expect_dtype::<T>("NDArray::copy_to_slice", self.dtype()?)?;
        if T::DTYPE == DType::Bool {
            // A bool array may hold bytes other than 0 and 1 (from_bytes): read bytes, then
            // convert, so no invalid `bool` is ever made.
            let mut bytes = vec![0u8; dst.len()];
            // SAFETY: bytes is valid for its length; the library checks the size.
            check(unsafe {
                sys::mxc_ndarray_copy_to_host(self.as_raw(), bytes.as_mut_ptr().cast(), bytes.len())
            })?;
            // SAFETY: Element is sealed; the only Element with DTYPE Bool is `bool`.
            let dst = unsafe { &mut *(dst as *mut [T] as *mut [bool]) };
            for (d, b) in dst.iter_mut().zip(bytes) {
                *d = b != 0;
            }
            return Ok(());
        }
        // SAFETY: dst is valid for its byte length; the library checks the size.
        check(unsafe {
            sys::mxc_ndarray_copy_to_host(
                self.as_raw(),
                dst.as_mut_ptr().cast(),
                std::mem::size_of_val(dst),
            )
        })
    }

    /// The raw bytes of the elements (row-major), any dtype.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.nbytes()?];
        // SAFETY: v is valid for its length.
        check(unsafe {
            sys::mxc_ndarray_copy_to_host(self.as_raw(), v.as_mut_ptr().cast(), v.len())
        })?;
        Ok(v)
    }

    /// Overwrites the elements from `src` (views and clones of this array see the change).
    /// Errors: wrong element type or length (`InvalidArgument`).
    pub fn copy_from_slice<T: Element>(&mut self, src: &[T]) -> Result<()> {
        expect_dtype::<T>("NDArray::copy_from_slice", self.dtype()?)?;
        // SAFETY: src is valid for its byte length.
        check(unsafe {
            sys::mxc_ndarray_copy_from_host(
                self.as_raw(),
                src.as_ptr().cast(),
                std::mem::size_of_val(src),
            )
        })
    }

    /// A deep copy on `device`.
    pub fn copy_to(&self, device: Device) -> Result<NDArray> {
        let mut out = ptr::null_mut();
        // SAFETY: live handle, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_copy(self.as_raw(), device.to_raw(), &mut out) })?;
        Ok(unsafe { NDArray::from_raw(out) })
    }

    /// A deep copy on the array's own device (`NDArray.copy()`).
    pub fn deep_copy(&self) -> Result<NDArray> {
        let mut out = ptr::null_mut();
        // SAFETY: live handle, valid out-pointer; {0, 0} is "the array's device".
        check(unsafe {
            sys::mxc_ndarray_copy(self.as_raw(), sys::mxc_device::default(), &mut out)
        })?;
        Ok(unsafe { NDArray::from_raw(out) })
    }

    // ---- Views. ----

    /// A view with a new shape sharing memory (MXNet's Reshape codes: 0 copy the dim, -1 infer,
    /// -2 copy the rest, -3 merge two, -4 split). Recorded (as Reshape) when the thread's
    /// context is recording and the array is tracked by autograd. Errors: the element count
    /// differs (`InvalidArgument`, naming both shapes), bad codes.
    pub fn reshape(&self, shape: &[i64]) -> Result<NDArray> {
        let ctx = current_raw()?;
        let mut out = ptr::null_mut();
        // SAFETY: live handles, valid shape and out-pointer.
        check(unsafe {
            sys::mxc_ndarray_reshape(ctx, self.as_raw(), shape_ptr(shape), shape.len(), &mut out)
        })?;
        Ok(unsafe { NDArray::from_raw(out) })
    }

    /// Rows `[begin, end)` along axis 0 as a view (negative values count from the end).
    /// Recorded like [`reshape`](Self::reshape). Errors: a scalar, an empty or out-of-range
    /// interval.
    pub fn slice(&self, begin: i64, end: i64) -> Result<NDArray> {
        let ctx = current_raw()?;
        let mut out = ptr::null_mut();
        // SAFETY: live handles, valid out-pointer.
        check(unsafe { sys::mxc_ndarray_slice(ctx, self.as_raw(), begin, end, &mut out) })?;
        Ok(unsafe { NDArray::from_raw(out) })
    }

    // ---- Synchronisation. ----

    /// Waits until pending work writing the array is done (`wait_to_read`).
    pub fn wait_to_read(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::mxc_ndarray_wait(self.as_raw()) })
    }

    /// Waits for all pending work on every device (`mx.nd.waitall`).
    pub fn waitall() -> Result<()> {
        // SAFETY: no arguments.
        check(unsafe { sys::mxc_ndarray_waitall() })
    }

    // ---- Files. ----

    /// Saves `arrays` as a dict (`names` given, unique) or a list (`names` None) to `path`,
    /// written to a temporary name and renamed. Errors: duplicate names, `names.len()` !=
    /// `arrays.len()`, `Npy` with != 1 array, the file system.
    pub fn save(
        path: impl AsRef<Path>,
        arrays: &[&NDArray],
        names: Option<&[&str]>,
        format: FileFormat,
    ) -> Result<()> {
        let path = path_cstring(path.as_ref())?;
        let (handles, cnames, name_ptrs) = save_args(arrays, names)?;
        let opts = format.options();
        let _keep = cnames;
        // SAFETY: all pointers valid for `arrays.len()` entries.
        check(unsafe {
            sys::mxc_ndarray_save(
                path.as_ptr(),
                handles.as_ptr(),
                name_ptrs.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
                arrays.len(),
                &opts,
            )
        })
    }

    /// The bytes [`save`](Self::save) would write.
    pub fn save_to_bytes(
        arrays: &[&NDArray],
        names: Option<&[&str]>,
        format: FileFormat,
    ) -> Result<Vec<u8>> {
        let (handles, cnames, name_ptrs) = save_args(arrays, names)?;
        let _keep = cnames;
        let opts = format.options();
        let mut data = ptr::null_mut();
        let mut size = 0;
        // SAFETY: valid inputs and out-pointers.
        check(unsafe {
            sys::mxc_ndarray_save_to_buffer(
                handles.as_ptr(),
                name_ptrs.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
                arrays.len(),
                &opts,
                &mut data,
                &mut size,
            )
        })?;
        // SAFETY: data holds size bytes until mxc_bytes_free.
        let v = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) }.to_vec();
        unsafe { sys::mxc_bytes_free(data) };
        Ok(v)
    }

    /// Loads every array of a `.params`/`.nd`/`.npy`/`.npz` file (format sniffed) onto cpu(0).
    /// Errors: `NotFound` (missing file), `DataLoss` (corrupt or truncated, naming the record
    /// and byte offset), `InvalidArgument` (not such a file), `Unimplemented`.
    pub fn load(path: impl AsRef<Path>) -> Result<Loaded> {
        NDArray::load_with(path, LoadOptions::default())
    }

    /// As [`load`](Self::load), with options (device, strictness).
    pub fn load_with(path: impl AsRef<Path>, options: LoadOptions) -> Result<Loaded> {
        ensure_abi()?;
        let path = path_cstring(path.as_ref())?;
        let opts = options.to_raw();
        let (mut arrays, mut names, mut count) = (ptr::null_mut(), ptr::null_mut(), 0);
        // SAFETY: valid out-pointers and sized options.
        check(unsafe {
            sys::mxc_ndarray_load(path.as_ptr(), &opts, &mut arrays, &mut names, &mut count)
        })?;
        Ok(unsafe { take_loaded(arrays, names, count) })
    }

    /// Loads arrays from the bytes of such a file. Errors: as [`load`](Self::load).
    pub fn load_from_bytes(bytes: &[u8]) -> Result<Loaded> {
        NDArray::load_from_bytes_with(bytes, LoadOptions::default())
    }

    /// As [`load_from_bytes`](Self::load_from_bytes), with options.
    pub fn load_from_bytes_with(bytes: &[u8], options: LoadOptions) -> Result<Loaded> {
        ensure_abi()?;
        let opts = options.to_raw();
        let (mut arrays, mut names, mut count) = (ptr::null_mut(), ptr::null_mut(), 0);
        // SAFETY: bytes valid for its length; valid out-pointers and sized options.
        check(unsafe {
            sys::mxc_ndarray_load_from_buffer(
                bytes.as_ptr().cast(),
                bytes.len(),
                &opts,
                &mut arrays,
                &mut names,
                &mut count,
            )
        })?;
        Ok(unsafe { take_loaded(arrays, names, count) })
    }
}

type SaveArgs = (
    Vec<*mut sys::mxc_ndarray>,
    Vec<CString>,
    Option<Vec<*const std::ffi::c_char>>,
);

fn save_args(arrays: &[&NDArray], names: Option<&[&str]>) -> Result<SaveArgs> {
    let handles: Vec<_> = arrays.iter().map(|a| a.as_raw()).collect();
    let mut cnames = Vec::new();
    if let Some(names) = names {
        if names.len() != arrays.len() {
            return Err(Error::new(
                Code::InvalidArgument,
                format!(
                    "NDArray::save: {} names for {} arrays",
                    names.len(),
                    arrays.len()
                ),
            ));
        }
        for n in names {
            cnames.push(cstring(n, "NDArray::save: name")?);
        }
    }
    let ptrs = names.map(|_| cnames.iter().map(|c| c.as_ptr()).collect());
    Ok((handles, cnames, ptrs))
}

impl Clone for NDArray {
    /// Another handle to the same array (`mxc_ndarray_retain`), not a copy: see
    /// [`deep_copy`](Self::deep_copy).
    fn clone(&self) -> NDArray {
        // SAFETY: live handle; retain on a live handle cannot fail.
        check(unsafe { sys::mxc_ndarray_retain(self.as_raw()) })
            .expect("mxc_ndarray_retain on a live handle");
        NDArray { raw: self.raw }
    }
}

impl Drop for NDArray {
    fn drop(&mut self) {
        // SAFETY: we own one reference; any thread.
        unsafe { sys::mxc_ndarray_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for NDArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.shape(), self.dtype(), self.device()) {
            (Ok(s), Ok(d), Ok(dev)) => write!(f, "NDArray({s:?}, {d}, {dev})"),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => write!(f, "NDArray(<{e}>)"),
        }
    }
}
