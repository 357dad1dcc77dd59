package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A dense, row-major (C-contiguous) tensor on a device (mxnet.ndarray.NDArray), backed by one
 * mxc_ndarray handle. Shapes are {@code long[]} dims, outermost first; an empty shape is a scalar
 * with one element. Views ({@link #reshape}, {@link #slice}) share memory with their source:
 * writes through one are seen by all.
 *
 * <p>Ownership: see {@link NativeResource}: close it, let the enclosing {@link NDScope} close it,
 * or leave it to the Cleaner. Closing an array does not invalidate its views or results.
 *
 * <p>Element buffers: each {@link DType} is copied in and out through one Java element type (see
 * {@link DType}); a mismatch (e.g. {@code float[]} for an INT32 array) is an MXNetException
 * INVALID_ARGUMENT naming both, never a reinterpretation. {@code ByteBuffer}s carry raw bytes in
 * native byte order for every dtype.
 *
 * <p>Threads (the C ABI's contract): distinct arrays may be used concurrently; one array may be
 * read (an operator input, copied out, its getters) by several threads at once; writing an array
 * ({@link #set}, {@link #copyFrom}, an operator writing it, {@link #attachGrad}) while another
 * thread uses it is a data race (wrong values, never a crash). {@link #close()} from any thread.
 */
public final class NDArray extends NativeResource {
  private volatile long[] shape; // cached: a handle's shape never changes
  private volatile DType dtype;

  NDArray(long handle) {
    super(handle, Kind.NDARRAY, true);
  }

  /** Takes a +1 handle; adopted by the current NDScope only when {@code scoped}. */
  NDArray(long handle, boolean scoped) {
    super(handle, Kind.NDARRAY, scoped);
  }

  /** Wraps +1 handles (as the C ABI returned them) in order. */
  static NDArray[] of(long[] handles) {
    NDArray[] r = new NDArray[handles.length];
    for (int i = 0; i < handles.length; i++) {
      r[i] = new NDArray(handles[i]);
    }
    return r;
  }

  // ---------------------------------------------------------------- creation

  /**
   * A zero-filled float32 array on cpu(0).
   *
   * @param shape the dims (each {@code >= 0}); none: a scalar
   * @return the array
   * @throws MXNetException INVALID_ARGUMENT for negative dims
   */
  public static NDArray zeros(long... shape) {
    return zeros(Device.cpu(), DType.FLOAT32, shape);
  }

  /**
   * A zero-filled array.
   *
   * @param device where (null: cpu(0))
   * @param dtype the element type
   * @param shape the dims (each {@code >= 0}); none: a scalar
   * @return the array
   * @throws MXNetException INVALID_ARGUMENT for negative dims or an unknown device; UNAVAILABLE for a
   *     device this build lacks
   */
  public static NDArray zeros(Device device, DType dtype, long... shape) {
    Device d = device == null ? Device.cpu() : device;
    return new NDArray(Native.ndCreate(shape, dtype.code(), d.type(), d.id()));
  }

  /**
   * A float32 array holding a copy of {@code data} (row-major).
   *
   * @param data the elements, product(shape) of them
   * @param shape the dims; none given: 1-D of {@code data.length}
   * @return the array on cpu(0)
   * @throws MXNetException INVALID_ARGUMENT when product(shape) differs from data.length
   */
  public static NDArray create(float[] data, long... shape) {
    return create(Device.cpu(), DType.FLOAT32, data, orVector(shape, data.length));
  }

  /**
   * A float64 array holding a copy of {@code data}.
   *
   * @param data the elements
   * @param shape the dims; none given: 1-D of {@code data.length}
   * @return the array on cpu(0)
   * @throws MXNetException INVALID_ARGUMENT when product(shape) differs from data.length
   */
  public static NDArray create(double[] data, long... shape) {
    return create(Device.cpu(), DType.FLOAT64, data, orVector(shape, data.length));
  }

  /**
   * An int32 array holding a copy of {@code data}.
   *
   * @param data the elements
   * @param shape the dims; none given: 1-D of {@code data.length}
   * @return the array on cpu(0)
   * @throws MXNetException INVALID_ARGUMENT when product(shape) differs from data.length
   */
  public static NDArray create(int[] data, long... shape) {
    return create(Device.cpu(), DType.INT32, data, orVector(shape, data.length));
  }

  /**
   * An int64 array holding a copy of {@code data}.
   *
   * @param data the elements
   * @param shape the dims; none given: 1-D of {@code data.length}
   * @return the array on cpu(0)
   * @throws MXNetException INVALID_ARGUMENT when product(shape) differs from data.length
   */
  public static NDArray create(long[] data, long... shape) {
    return create(Device.cpu(), DType.INT64, data, orVector(shape, data.length));
  }

  /**
   * A bool array holding a copy of {@code data}.
   *
   * @param data the elements
   * @param shape the dims; none given: 1-D of {@code data.length}
   * @return the array on cpu(0)
   * @throws MXNetException INVALID_ARGUMENT when product(shape) differs from data.length
   */
  public static NDArray create(boolean[] data, long... shape) {
    return create(Device.cpu(), DType.BOOL, data, orVector(shape, data.length));
  }

  /**
   * A float32 scalar (shape {@code ()}).
   *
   * @param value the value
   * @return the array on cpu(0)
   */
  public static NDArray scalar(float value) {
    return create(Device.cpu(), DType.FLOAT32, new float[] {value});
  }

  /**
   * An array of any dtype holding a copy of a primitive Java array (row-major).
   *
   * @param device where (null: cpu(0))
   * @param dtype the element type; {@code data}'s element type must carry it (see {@link DType})
   * @param data a primitive array (float[], double[], int[], long[], short[], byte[], boolean[])
   *     of product(shape) elements
   * @param shape the dims; none: a scalar
   * @return the array
   * @throws MXNetException INVALID_ARGUMENT for a Java element type that does not carry
   *     {@code dtype}, or a size mismatch (naming both sizes)
   */
  public static NDArray create(Device device, DType dtype, Object data, long... shape) {
    Device d = device == null ? Device.cpu() : device;
    int n = javaArrayLength(data, dtype, "NDArray.create");
    long nbytes = (long) n * dtype.size();
    return new NDArray(
        Native.ndFromArray(data, 0, nbytes, shape, dtype.code(), d.type(), d.id()));
  }

  /**
   * A float32 array holding a copy of the buffer's remaining elements (its position does not
   * change).
   *
   * @param data the elements, heap or direct
   * @param shape the dims; none given: 1-D of {@code data.remaining()}
   * @return the array on cpu(0)
   * @throws MXNetException INVALID_ARGUMENT when product(shape) differs from data.remaining()
   */
  public static NDArray create(FloatBuffer data, long... shape) {
    return create(Device.cpu(), DType.FLOAT32, data, orVector(shape, data.remaining()));
  }

  /**
   * An array of any dtype holding a copy of a buffer's remaining elements (its position does not
   * change).
   *
   * @param device where (null: cpu(0))
   * @param dtype the element type; the buffer type must carry it ({@link DType}; a ByteBuffer's
   *     remaining bytes are the raw data in native byte order)
   * @param data a FloatBuffer, DoubleBuffer, IntBuffer, LongBuffer, ShortBuffer or ByteBuffer
   * @param shape the dims; none: a scalar
   * @return the array
   * @throws MXNetException INVALID_ARGUMENT for a buffer type that does not carry {@code dtype},
   *     or a size mismatch
   */
  public static NDArray create(Device device, DType dtype, Buffer data, long... shape) {
    Device d = device == null ? Device.cpu() : device;
    int elem = bufferElementSize(data, dtype, "NDArray.create");
    long nbytes = (long) data.remaining() * elem;
    if (data.isDirect() && nativeOrder(data)) {
      return new NDArray(
          Native.ndFromDirect(
              data, (long) data.position() * elem, nbytes, shape, dtype.code(), d.type(), d.id()));
    }
    Object arr = heapArrayOf(data);
    if (arr != null) {
      long off = (long) (bufferArrayOffset(data) + data.position()) * elem;
      return new NDArray(
          Native.ndFromArray(arr, off, nbytes, shape, dtype.code(), d.type(), d.id()));
    }
    Object copy = copyToArray(data);
    return new NDArray(Native.ndFromArray(copy, 0, nbytes, shape, dtype.code(), d.type(), d.id()));
  }

  /**
   * An array using a direct buffer's memory without copying (zero copy): writes through either
   * are seen by the other. The buffer is kept reachable until the last array or view using it is
   * gone. Only cpu(0).
   *
   * @param data a direct ByteBuffer; its remaining bytes are the elements in native byte order,
   *     aligned to the element size
   * @param dtype the element type
   * @param shape the dims; product(shape) * dtype.size() must equal data.remaining()
   * @return the array
   * @throws MXNetException INVALID_ARGUMENT for a heap buffer, a size mismatch or misaligned data
   */
  public static NDArray wrap(ByteBuffer data, DType dtype, long... shape) {
    if (!data.isDirect()) {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT, "NDArray.wrap: the buffer is not a direct ByteBuffer");
    }
    return new NDArray(
        Native.ndWrapDirect(data, data.position(), data.remaining(), shape, dtype.code()));
  }

  // ---------------------------------------------------------------- properties

  /**
   * The dims, outermost first (a copy).
   *
   * @return the shape; empty for a scalar
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public long[] shape() {
    long[] s = shape;
    if (s == null) {
      try {
        s = Native.ndShape(handle());
      } finally {
        Reference.reachabilityFence(this);
      }
      shape = s;
    }
    return s.clone();
  }

  /**
   * The number of dims.
   *
   * @return 0 for a scalar
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public int ndim() {
    return shape().length;
  }

  /**
   * The number of elements.
   *
   * @return product(shape); 1 for a scalar
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public long size() {
    long n = 1;
    for (long d : shape()) {
      n *= d;
    }
    return n;
  }

  /**
   * The element type.
   *
   * @return the dtype
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public DType dtype() {
    DType d = dtype;
    if (d == null) {
      try {
        d = DType.of(Native.ndDtype(handle()));
      } finally {
        Reference.reachabilityFence(this);
      }
      dtype = d;
    }
    return d;
  }

  /**
   * The device holding the data.
   *
   * @return the device
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public Device device() {
    try {
      return Device.of(Native.ndDevice(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------- copies out

  /**
   * The elements of a FLOAT32 array, row-major (waits for pending writes).
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public float[] toFloatArray() {
    float[] out = new float[checkedCount(float.class, "toFloatArray")];
    copyOut(out, "toFloatArray");
    return out;
  }

  /**
   * The elements of a FLOAT64 array.
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public double[] toDoubleArray() {
    double[] out = new double[checkedCount(double.class, "toDoubleArray")];
    copyOut(out, "toDoubleArray");
    return out;
  }

  /**
   * The elements of an INT32 or UINT32 array (uint32 as the same bits).
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public int[] toIntArray() {
    int[] out = new int[checkedCount(int.class, "toIntArray")];
    copyOut(out, "toIntArray");
    return out;
  }

  /**
   * The elements of an INT64 or UINT64 array (uint64 as the same bits).
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public long[] toLongArray() {
    long[] out = new long[checkedCount(long.class, "toLongArray")];
    copyOut(out, "toLongArray");
    return out;
  }

  /**
   * The elements of an INT16, UINT16, FLOAT16 or BFLOAT16 array (raw 16-bit values).
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public short[] toShortArray() {
    short[] out = new short[checkedCount(short.class, "toShortArray")];
    copyOut(out, "toShortArray");
    return out;
  }

  /**
   * The elements of a UINT8, INT8 or BOOL array (raw bytes).
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public byte[] toByteArray() {
    byte[] out = new byte[checkedCount(byte.class, "toByteArray")];
    copyOut(out, "toByteArray");
    return out;
  }

  /**
   * The elements of a BOOL array (any nonzero byte reads as true).
   *
   * @return a new array of size() elements
   * @throws MXNetException INVALID_ARGUMENT for another dtype or when closed
   */
  public boolean[] toBooleanArray() {
    if (dtype() != DType.BOOL) {
      throw dtypeMismatch("toBooleanArray", "boolean[]", dtype());
    }
    byte[] b = toByteArray();
    boolean[] out = new boolean[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = b[i] != 0;
    }
    return out;
  }

  /**
   * Copies the elements into {@code dst} from its position (the position does not change).
   *
   * @param dst a buffer carrying this dtype ({@link DType}; ByteBuffer: raw bytes, native order)
   *     with at least size() elements remaining; heap or direct, writable
   * @throws MXNetException INVALID_ARGUMENT for a buffer type that does not carry the dtype, too
   *     few remaining elements, a read-only buffer, or when closed
   */
  public void copyTo(Buffer dst) {
    DType dt = dtype();
    int elem = bufferElementSize(dst, dt, "NDArray.copyTo");
    long nbytes = nbytes();
    long need = nbytes / elem;
    if (dst.remaining() < need) {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT,
          "NDArray.copyTo: the buffer has " + dst.remaining() + " elements remaining, the array "
              + need);
    }
    if (dst.isReadOnly()) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, "NDArray.copyTo: read-only buffer");
    }
    try {
      if (dst.isDirect() && nativeOrder(dst)) {
        Native.ndCopyToDirect(handle(), dst, (long) dst.position() * elem, nbytes);
        return;
      }
      Object arr = heapArrayOf(dst);
      if (arr != null) {
        long off = (long) (bufferArrayOffset(dst) + dst.position()) * elem;
        Native.ndCopyToArray(handle(), arr, off, nbytes);
        return;
      }
      // Non-native byte order: through a temporary array of the buffer's element type.
      Object tmp = newArrayLike(dst, (int) need);
      Native.ndCopyToArray(handle(), tmp, 0, nbytes);
      putArray(dst.duplicate(), tmp);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------- copies in

  /**
   * Overwrites the elements from a primitive Java array (views of the same memory see it).
   *
   * @param src product(shape) elements of the Java type carrying this dtype
   * @throws MXNetException INVALID_ARGUMENT for another element type, a size mismatch, or when
   *     closed
   */
  public void set(Object src) {
    DType dt = dtype();
    int n = javaArrayLength(src, dt, "NDArray.set");
    try {
      Native.ndCopyFromArray(handle(), src, 0, (long) n * dt.size());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Overwrites the elements from a buffer's remaining elements (its position does not change).
   *
   * @param src a buffer carrying this dtype, exactly size() elements remaining
   * @throws MXNetException INVALID_ARGUMENT for another buffer type, a size mismatch, or when closed
   */
  public void copyFrom(Buffer src) {
    DType dt = dtype();
    int elem = bufferElementSize(src, dt, "NDArray.copyFrom");
    long nbytes = (long) src.remaining() * elem;
    try {
      if (src.isDirect() && nativeOrder(src)) {
        Native.ndCopyFromDirect(handle(), src, (long) src.position() * elem, nbytes);
        return;
      }
      Object arr = heapArrayOf(src);
      if (arr != null) {
        long off = (long) (bufferArrayOffset(src) + src.position()) * elem;
        Native.ndCopyFromArray(handle(), arr, off, nbytes);
        return;
      }
      Native.ndCopyFromArray(handle(), copyToArray(src), 0, nbytes);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------- views and copies

  /**
   * A view with a new shape (MXNet's Reshape codes: 0 copy the dim, -1 infer, -2 copy the rest, -3
   * merge two, -4 split into the next two). Recorded as Reshape when the current ctx is recording
   * and this array is tracked by autograd.
   *
   * @param newShape the target shape
   * @return the view (shares memory)
   * @throws MXNetException INVALID_ARGUMENT when the element count differs (naming both shapes),
   *     for bad codes, or when closed
   */
  public NDArray reshape(long... newShape) {
    Ctx ctx = Ctx.current();
    try {
      synchronized (ctx) {
        return new NDArray(Native.ndReshape(ctx.handle(), handle(), newShape));
      }
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Rows [begin, end) along axis 0 as a view (negative values count from the end). Recorded as
   * slice_axis when the current ctx is recording and this array is tracked by autograd.
   *
   * @param begin first row
   * @param end one past the last row
   * @return the view (shares memory)
   * @throws MXNetException INVALID_ARGUMENT / OUT_OF_RANGE for a scalar, an empty or out-of-range
   *     interval, or when closed
   */
  public NDArray slice(long begin, long end) {
    Ctx ctx = Ctx.current();
    try {
      synchronized (ctx) {
        return new NDArray(Native.ndSlice(ctx.handle(), handle(), begin, end));
      }
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A deep copy on the same device.
   *
   * @return the copy (no shared memory, no autograd history)
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public NDArray copy() {
    return copyTo(new Device(0, 0));
  }

  /**
   * A deep copy on {@code device}.
   *
   * @param device the target device
   * @return the copy
   * @throws MXNetException UNAVAILABLE for a device this build lacks; INVALID_ARGUMENT when closed
   */
  public NDArray copyTo(Device device) {
    try {
      return new NDArray(Native.ndCopy(handle(), device.type(), device.id()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Waits until pending work writing this array is done (wait_to_read).
   *
   * @throws MXNetException when that work failed, or when closed
   */
  public void waitToRead() {
    try {
      Native.ndWait(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------- autograd

  /**
   * Marks this array as a variable with a zero gradient buffer of its shape and dtype (attach_grad,
   * grad_req "write"). Writes the array (see the class's threading note).
   *
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void attachGrad() {
    attachGrad(GradReq.WRITE);
  }

  /**
   * Marks this array as a variable with a zero gradient buffer and request {@code req}.
   *
   * @param req what backward does with the buffer
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void attachGrad(GradReq req) {
    try {
      Native.ndAttachGrad(handle(), req.code());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The gradient buffer (the buffer itself, not a copy: later backward passes update what it
   * shows). Same shape and dtype as this array.
   *
   * @return the gradient
   * @throws MXNetException FAILED_PRECONDITION when the array is no variable; INVALID_ARGUMENT
   *     when closed
   */
  public NDArray grad() {
    try {
      return new NDArray(Native.ndGrad(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------- arithmetic (MXNet operators)

  /**
   * {@code this + other} with broadcasting (broadcast_add), under the current ctx.
   *
   * @param other an array of a broadcast-compatible shape and the same dtype
   * @return the sum
   * @throws MXNetException INVALID_ARGUMENT for incompatible shapes or dtypes
   */
  public NDArray add(NDArray other) {
    return Op.BROADCAST_ADD.get().call1(this, other);
  }

  /**
   * {@code this - other} with broadcasting (broadcast_sub).
   *
   * @param other an array of a broadcast-compatible shape and the same dtype
   * @return the difference
   * @throws MXNetException INVALID_ARGUMENT for incompatible shapes or dtypes
   */
  public NDArray sub(NDArray other) {
    return Op.BROADCAST_SUB.get().call1(this, other);
  }

  /**
   * {@code this * other} elementwise with broadcasting (broadcast_mul).
   *
   * @param other an array of a broadcast-compatible shape and the same dtype
   * @return the product
   * @throws MXNetException INVALID_ARGUMENT for incompatible shapes or dtypes
   */
  public NDArray mul(NDArray other) {
    return Op.BROADCAST_MUL.get().call1(this, other);
  }

  /**
   * {@code this / other} elementwise with broadcasting (broadcast_div).
   *
   * @param other an array of a broadcast-compatible shape and the same dtype
   * @return the quotient
   * @throws MXNetException INVALID_ARGUMENT for incompatible shapes or dtypes
   */
  public NDArray div(NDArray other) {
    return Op.BROADCAST_DIV.get().call1(this, other);
  }

  /**
   * {@code this + s} (_plus_scalar).
   *
   * @param s the scalar
   * @return the result, same shape and dtype
   */
  public NDArray add(double s) {
    return Op.PLUS_SCALAR.get().call1Scalar(this, s);
  }

  /**
   * {@code this - s} (_minus_scalar).
   *
   * @param s the scalar
   * @return the result, same shape and dtype
   */
  public NDArray sub(double s) {
    return Op.MINUS_SCALAR.get().call1Scalar(this, s);
  }

  /**
   * {@code this * s} (_mul_scalar).
   *
   * @param s the scalar
   * @return the result, same shape and dtype
   */
  public NDArray mul(double s) {
    return Op.MUL_SCALAR.get().call1Scalar(this, s);
  }

  /**
   * {@code this / s} (_div_scalar).
   *
   * @param s the scalar
   * @return the result, same shape and dtype
   */
  public NDArray div(double s) {
    return Op.DIV_SCALAR.get().call1Scalar(this, s);
  }

  /**
   * The sum of all elements (the sum operator without axis), under the current ctx.
   *
   * @return the sum, this dtype, the shape the sum operator gives for axis=None
   */
  public NDArray sum() {
    return Op.SUM.get().call1(this);
  }

  // ---------------------------------------------------------------- files

  /**
   * Options for loading arrays.
   *
   * @param device where loaded arrays are placed (null: cpu(0))
   * @param rejectTrailingBytes trailing bytes after the data are a DATA_LOSS error (default: ignored,
   *     as MXNet does)
   * @param keepSparse sparse records are UNIMPLEMENTED instead of being densified
   * @param maxDensifiedBytes the most bytes one sparse record may densify to (RESOURCE_EXHAUSTED
   *     above it); 0: the library's default, 1 GiB (ABI 1.3)
   */
  public record LoadOptions(
      Device device, boolean rejectTrailingBytes, boolean keepSparse, long maxDensifiedBytes) {
    /** The defaults: cpu(0), trailing bytes ignored, sparse records densified up to 1 GiB. */
    public static final LoadOptions DEFAULT = new LoadOptions(null, false, false, 0);

    /**
     * Checks maxDensifiedBytes (not negative).
     *
     * @param device where loaded arrays are placed (null: cpu(0))
     * @param rejectTrailingBytes trailing bytes are a DATA_LOSS error
     * @param keepSparse sparse records are UNIMPLEMENTED instead of being densified
     * @param maxDensifiedBytes the densify cap in bytes; 0: 1 GiB
     */
    public LoadOptions {
      if (maxDensifiedBytes < 0) {
        throw new MXNetException(
            MXNetException.INVALID_ARGUMENT,
            "LoadOptions: maxDensifiedBytes " + maxDensifiedBytes + " is negative");
      }
    }

    /**
     * The options before ABI 1.3: the default densify cap.
     *
     * @param device where loaded arrays are placed (null: cpu(0))
     * @param rejectTrailingBytes trailing bytes are a DATA_LOSS error
     * @param keepSparse sparse records are UNIMPLEMENTED instead of being densified
     */
    public LoadOptions(Device device, boolean rejectTrailingBytes, boolean keepSparse) {
      this(device, rejectTrailingBytes, keepSparse, 0);
    }
  }

  /** File formats for saving. */
  public enum Format {
    /** MXNet's NDArray-list format (.params / .nd): a list or a dict. */
    NDARRAY_LIST(0),
    /** NumPy .npy: exactly one array. */
    NPY(1),
    /** NumPy .npz: a zip of .npy files. */
    NPZ(2);

    private final int code;

    Format(int code) {
      this.code = code;
    }

    int code() {
      return code;
    }
  }

  /**
   * Options for saving arrays.
   *
   * @param format the file format
   * @param version the NDArray-list record version: 0 or 2 (V2, MXNet 1.x mx.nd.save), 3 (V3,
   *     np-shape)
   * @param noFsync skip the fsync before the atomic rename
   */
  public record SaveOptions(Format format, int version, boolean noFsync) {
    /** The defaults: NDArray-list V2, fsync. */
    public static final SaveOptions DEFAULT = new SaveOptions(Format.NDARRAY_LIST, 0, false);
  }

  /**
   * The arrays of a file, in file order.
   *
   * @param arrays the arrays (null entries for "none" records); owned by the caller / current scope
   * @param names the names when the file is a dict, else null
   */
  public record Loaded(List<NDArray> arrays, List<String> names) {
    /**
     * Whether the file was a dict.
     *
     * @return names != null
     */
    public boolean isDict() {
      return names != null;
    }

    /**
     * The arrays by name, in file order.
     *
     * @return a map name to array
     * @throws MXNetException INVALID_ARGUMENT when the file was a list
     */
    public Map<String, NDArray> toMap() {
      if (names == null) {
        throw new MXNetException(
            MXNetException.INVALID_ARGUMENT, "NDArray.Loaded.toMap: the file holds a list, not a dict");
      }
      Map<String, NDArray> m = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        m.put(names.get(i), arrays.get(i));
      }
      return m;
    }
  }

  /**
   * Loads every array of a .params / .nd / .npy / .npz file (format sniffed).
   *
   * @param path the file
   * @param options device and strictness (null: defaults)
   * @return the arrays and, for a dict, their names
   * @throws MXNetException NOT_FOUND (missing file), DATA_LOSS (corrupt or truncated, naming the
   *     record and byte offset), INVALID_ARGUMENT (not such a file), UNIMPLEMENTED
   */
  public static Loaded loadFile(Path path, LoadOptions options) {
    return loaded(load(path.toString(), null, options));
  }

  /**
   * Loads the arrays of a file as a list (for a dict: its values in file order).
   *
   * @param path the file
   * @return the arrays
   * @throws MXNetException as {@link #loadFile}
   */
  public static List<NDArray> load(Path path) {
    return loadFile(path, null).arrays();
  }

  /**
   * Loads a dict file (.params / .npz) as name to array.
   *
   * @param path the file
   * @return the arrays by name, in file order
   * @throws MXNetException as {@link #loadFile}; INVALID_ARGUMENT when the file holds a list
   */
  public static Map<String, NDArray> loadDict(Path path) {
    return loadFile(path, null).toMap();
  }

  /**
   * Loads arrays from the bytes of a file.
   *
   * @param bytes the file's contents
   * @param options device and strictness (null: defaults)
   * @return the arrays and, for a dict, their names
   * @throws MXNetException as {@link #loadFile}
   */
  public static Loaded loadBytes(byte[] bytes, LoadOptions options) {
    if (bytes == null) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, "NDArray.loadBytes: bytes is null");
    }
    return loaded(load(null, bytes, options));
  }

  private static Object[] load(String path, byte[] bytes, LoadOptions options) {
    LoadOptions o = options == null ? LoadOptions.DEFAULT : options;
    Device d = o.device() == null ? new Device(0, 0) : o.device();
    return Native.ndLoad(
        path, bytes, d.type(), d.id(), o.rejectTrailingBytes(), o.keepSparse(),
        o.maxDensifiedBytes());
  }

  private static Loaded loaded(Object[] r) {
    long[] hs = (long[]) r[0];
    String[] names = (String[]) r[1];
    List<NDArray> arrays = new ArrayList<>(hs.length);
    for (long h : hs) {
      arrays.add(h == 0 ? null : new NDArray(h));
    }
    return new Loaded(
        Collections.unmodifiableList(arrays), names == null ? null : List.of(names));
  }

  /**
   * Saves a list of arrays (written to a temporary name and renamed over {@code path}).
   *
   * @param path the file
   * @param arrays the arrays (not null entries)
   * @param options format and version (null: NDArray-list V2)
   * @throws MXNetException INVALID_ARGUMENT (npy with != 1 array, closed arrays), or the file
   *     system's error
   */
  public static void save(Path path, List<NDArray> arrays, SaveOptions options) {
    NDArray[] a = arrays.toArray(new NDArray[0]);
    save(path, a, null, options);
  }

  /**
   * Saves a dict of arrays (written to a temporary name and renamed over {@code path}).
   *
   * @param path the file
   * @param arrays name to array, saved in iteration order
   * @param options format and version (null: NDArray-list V2)
   * @throws MXNetException INVALID_ARGUMENT (closed arrays), or the file system's error
   */
  public static void save(Path path, Map<String, NDArray> arrays, SaveOptions options) {
    save(path, arrays.values().toArray(new NDArray[0]), arrays.keySet().toArray(new String[0]),
        options);
  }

  /**
   * The bytes {@link #save(Path, Map, SaveOptions)} would write ({@code names} null: a list).
   *
   * @param arrays the arrays
   * @param names their names, or null for a list
   * @param options format and version (null: NDArray-list V2)
   * @return the file's bytes
   * @throws MXNetException as save
   */
  public static byte[] saveToBytes(List<NDArray> arrays, List<String> names, SaveOptions options) {
    SaveOptions o = options == null ? SaveOptions.DEFAULT : options;
    NDArray[] a = arrays.toArray(new NDArray[0]);
    try {
      return Native.ndSaveToBytes(
          handles(a), names == null ? null : names.toArray(new String[0]), o.format().code(),
          o.version());
    } finally {
      Reference.reachabilityFence(a);
    }
  }

  private static void save(Path path, NDArray[] a, String[] names, SaveOptions options) {
    SaveOptions o = options == null ? SaveOptions.DEFAULT : options;
    try {
      Native.ndSave(path.toString(), handles(a), names, o.format().code(), o.version(), o.noFsync());
    } finally {
      Reference.reachabilityFence(a);
    }
  }

  // ---------------------------------------------------------------- helpers

  static long[] handles(NDArray[] arrays) {
    long[] h = new long[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      if (arrays[i] == null) {
        throw new MXNetException(MXNetException.INVALID_ARGUMENT, "array " + i + " is null");
      }
      h[i] = arrays[i].handle();
    }
    return h;
  }

  long nbytes() {
    return size() * dtype().size();
  }

  private static long[] orVector(long[] shape, int n) {
    return shape.length == 0 ? new long[] {n} : shape;
  }

  private int checkedCount(Class<?> component, String method) {
    long n = size();
    if (!carries(component, dtype())) {
      throw dtypeMismatch(method, component.getName() + "[]", dtype());
    }
    if (n > Integer.MAX_VALUE - 8) {
      throw new MXNetException(
          MXNetException.OUT_OF_RANGE, "NDArray." + method + ": " + n + " elements exceed a Java array");
    }
    return (int) n;
  }

  private void copyOut(Object out, String method) {
    DType dt = dtype();
    int n = javaArrayLength(out, dt, "NDArray." + method);
    try {
      Native.ndCopyToArray(handle(), out, 0, (long) n * dt.size());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  static MXNetException dtypeMismatch(String method, String javaType, DType dtype) {
    return new MXNetException(
        MXNetException.INVALID_ARGUMENT,
        "NDArray." + method + ": " + javaType + " cannot carry a " + dtype.mxName() + " array");
  }

  /** The Java element types that carry each dtype. */
  private static boolean carries(Class<?> component, DType d) {
    return switch (d) {
      case FLOAT32 -> component == float.class;
      case FLOAT64 -> component == double.class;
      case INT32, UINT32 -> component == int.class;
      case INT64, UINT64 -> component == long.class;
      case INT16, UINT16, FLOAT16, BFLOAT16 -> component == short.class;
      case UINT8, INT8 -> component == byte.class;
      case BOOL -> component == byte.class || component == boolean.class;
    };
  }

  /** Checks that {@code data} is a primitive array carrying {@code d}; returns its length. */
  private static int javaArrayLength(Object data, DType d, String where) {
    if (data == null) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, where + ": data is null");
    }
    Class<?> c = data.getClass().getComponentType();
    if (c == null || !c.isPrimitive()) {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT,
          where + ": " + data.getClass().getSimpleName() + " is no primitive array");
    }
    if (!carries(c, d)) {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT,
          where + ": " + c.getName() + "[] cannot carry a " + d.mxName() + " array");
    }
    return java.lang.reflect.Array.getLength(data);
  }

  /** Element size of a buffer that carries {@code d}; ByteBuffer carries any dtype as bytes. */
  private static int bufferElementSize(Buffer b, DType d, String where) {
    Class<?> c;
    int size;
    if (b instanceof ByteBuffer) {
      return 1;
    } else if (b instanceof FloatBuffer) {
      c = float.class;
      size = 4;
    } else if (b instanceof DoubleBuffer) {
      c = double.class;
      size = 8;
    } else if (b instanceof IntBuffer) {
      c = int.class;
      size = 4;
    } else if (b instanceof LongBuffer) {
      c = long.class;
      size = 8;
    } else if (b instanceof ShortBuffer) {
      c = short.class;
      size = 2;
    } else {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT,
          where + ": " + b.getClass().getSimpleName() + " cannot carry array data");
    }
    if (!carries(c, d)) {
      throw new MXNetException(
          MXNetException.INVALID_ARGUMENT,
          where + ": " + b.getClass().getSimpleName() + " cannot carry a " + d.mxName() + " array");
    }
    return size;
  }

  private static boolean nativeOrder(Buffer b) {
    ByteOrder o;
    if (b instanceof ByteBuffer bb) {
      return true; // raw bytes
    } else if (b instanceof FloatBuffer f) {
      o = f.order();
    } else if (b instanceof DoubleBuffer f) {
      o = f.order();
    } else if (b instanceof IntBuffer f) {
      o = f.order();
    } else if (b instanceof LongBuffer f) {
      o = f.order();
    } else {
      o = ((ShortBuffer) b).order();
    }
    return o == ByteOrder.nativeOrder();
  }

  /** The backing array of a writable heap buffer in native order, or null. */
  private static Object heapArrayOf(Buffer b) {
    if (!b.hasArray() || b.isReadOnly() || !nativeOrder(b)) {
      return null;
    }
    return b.array();
  }

  private static int bufferArrayOffset(Buffer b) {
    return b.arrayOffset();
  }

  private static Object newArrayLike(Buffer b, int n) {
    if (b instanceof FloatBuffer) {
      return new float[n];
    } else if (b instanceof DoubleBuffer) {
      return new double[n];
    } else if (b instanceof IntBuffer) {
      return new int[n];
    } else if (b instanceof LongBuffer) {
      return new long[n];
    } else if (b instanceof ShortBuffer) {
      return new short[n];
    }
    return new byte[n];
  }

  /** The remaining elements of any buffer as a primitive array (position unchanged). */
  private static Object copyToArray(Buffer b) {
    Buffer d = b.duplicate();
    Object a = newArrayLike(b, b.remaining());
    if (d instanceof FloatBuffer f) {
      f.get((float[]) a);
    } else if (d instanceof DoubleBuffer f) {
      f.get((double[]) a);
    } else if (d instanceof IntBuffer f) {
      f.get((int[]) a);
    } else if (d instanceof LongBuffer f) {
      f.get((long[]) a);
    } else if (d instanceof ShortBuffer f) {
      f.get((short[]) a);
    } else {
      ((ByteBuffer) d).get((byte[]) a);
    }
    return a;
  }

  private static void putArray(Buffer d, Object a) {
    if (d instanceof FloatBuffer f) {
      f.put((float[]) a);
    } else if (d instanceof DoubleBuffer f) {
      f.put((double[]) a);
    } else if (d instanceof IntBuffer f) {
      f.put((int[]) a);
    } else if (d instanceof LongBuffer f) {
      f.put((long[]) a);
    } else if (d instanceof ShortBuffer f) {
      f.put((short[]) a);
    } else {
      ((ByteBuffer) d).put((byte[]) a);
    }
  }

  @Override
  public String toString() {
    if (isClosed()) {
      return "NDArray(closed)";
    }
    return "NDArray" + Arrays.toString(shape()) + " " + dtype() + " " + device();
  }
}
