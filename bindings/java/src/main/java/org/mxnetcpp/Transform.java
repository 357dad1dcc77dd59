package org.mxnetcpp;

import java.lang.ref.Reference;
import java.util.function.UnaryOperator;

/**
 * A data transform (gluon.data.vision.transforms): built-in ones ({@link #toTensor},
 * {@link #normalize}, {@link #resize}, {@link #centerCrop}, {@link #cast}, {@link #compose}) or a
 * Java function ({@link #of}). Immutable.
 *
 * <p>Ownership: see {@link NativeResource}.
 *
 * <p>Threads: any number of threads may apply one transform at once. A Java function runs on
 * whichever thread applies the transform: the caller, or a {@link DataLoader} worker thread
 * (concurrently, attached to the JVM as daemon threads), so it must be thread-safe.
 */
public final class Transform extends NativeResource {
  private Transform(long handle) {
    super(handle, Kind.TRANSFORM, true);
  }

  /**
   * ToTensor: an HWC image with values in [0, 255] (uint8 or any numeric dtype) to a CHW float32
   * tensor x / 255; NHWC to NCHW.
   *
   * @return the transform
   */
  public static Transform toTensor() {
    return new Transform(Native.transformToTensor());
  }

  /**
   * Normalize: (x - mean[c]) / std[c] per channel of a CHW / NCHW float tensor.
   *
   * @param mean 1 or C means
   * @param std 1 or C standard deviations
   * @return the transform
   * @throws MXNetException INVALID_ARGUMENT for empty arrays or a zero std
   */
  public static Transform normalize(float[] mean, float[] std) {
    return new Transform(Native.transformNormalize(mean, std));
  }

  /**
   * Resize((width, height)) of HWC/NHWC uint8 or float32 images.
   *
   * @param width the new width (&gt; 0)
   * @param height the new height (&gt; 0)
   * @param interp the filter
   * @return the transform
   * @throws MXNetException INVALID_ARGUMENT for sizes &lt;= 0
   */
  public static Transform resize(long width, long height, Image.Interp interp) {
    return new Transform(Native.transformResize(width, height, false, interp.code()));
  }

  /**
   * Resize(shortSide, keep_ratio=True): the shorter side to {@code shortSide}, aspect kept.
   *
   * @param shortSide the new short side (&gt; 0)
   * @param interp the filter
   * @return the transform
   * @throws MXNetException INVALID_ARGUMENT for sizes &lt;= 0
   */
  public static Transform resizeKeepRatio(long shortSide, Image.Interp interp) {
    return new Transform(Native.transformResize(shortSide, 0, true, interp.code()));
  }

  /**
   * CenterCrop((width, height)) of HWC images, resizing first with {@code interp} when smaller.
   *
   * @param width the crop width (&gt; 0)
   * @param height the crop height (&gt; 0)
   * @param interp the filter for too small images
   * @return the transform
   * @throws MXNetException INVALID_ARGUMENT for sizes &lt;= 0
   */
  public static Transform centerCrop(long width, long height, Image.Interp interp) {
    return new Transform(Native.transformCenterCrop(width, height, interp.code()));
  }

  /**
   * Cast to {@code dtype}.
   *
   * @param dtype the target dtype
   * @return the transform
   */
  public static Transform cast(DType dtype) {
    return new Transform(Native.transformCast(dtype.code()));
  }

  /**
   * Compose: steps[0], then steps[1], ... (the steps are retained; closing them later is fine).
   *
   * @param steps the transforms
   * @return the transform
   * @throws MXNetException INVALID_ARGUMENT for no steps or closed ones
   */
  public static Transform compose(Transform... steps) {
    long[] h = new long[steps.length];
    for (int i = 0; i < h.length; i++) {
      h[i] = steps[i].handle();
    }
    try {
      return new Transform(Native.transformCompose(h));
    } finally {
      Reference.reachabilityFence(steps);
    }
  }

  /**
   * A transform running a Java function. It gets the input array (valid during the call) and
   * returns the output array; arrays the function creates are closed after the call (the library
   * keeps its own reference to the output). An exception becomes the transform's error
   * (INVALID_ARGUMENT with the exception's message). See the class comment for threads.
   *
   * @param fn the function (thread-safe)
   * @return the transform
   */
  public static Transform of(UnaryOperator<NDArray> fn) {
    if (fn == null) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, "Transform.of: fn is null");
    }
    return new Transform(Native.transformFromCallback(fn));
  }

  /**
   * Called by the JNI glue on the thread applying a {@link #of} transform: {@code long[] {handle}}
   * (+1) of the output, or a String error message. Never throws.
   */
  @SuppressWarnings("unchecked")
  static Object runCallback(Object fn, long input) {
    NDScope scope = new NDScope();
    try {
      Native.ndRetain(input);
      NDArray in = new NDArray(input);
      NDArray out = ((UnaryOperator<NDArray>) fn).apply(in);
      if (out == null) {
        return "Transform.of: the function returned null";
      }
      long h = out.handle();
      Native.ndRetain(h); // the library's reference
      Reference.reachabilityFence(out);
      return new long[] {h};
    } catch (Throwable t) {
      String m = t.getMessage();
      return "Transform.of: " + t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    } finally {
      scope.close();
    }
  }

  /**
   * Applies the transform.
   *
   * @param input the input array
   * @return a new array
   * @throws MXNetException the transform's error
   */
  public NDArray apply(NDArray input) {
    try {
      return new NDArray(Native.transformApply(handle(), input.handle()));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(input);
    }
  }

  /**
   * The transform as MXNet prints it ("Compose(ToTensor(), Normalize(...))").
   *
   * @return the text
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "Transform(closed)";
    }
    try {
      return Native.transformToString(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
