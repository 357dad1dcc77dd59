package org.mxnetcpp;

import java.lang.ref.Reference;

/**
 * One parameter of a block (mxnet.gluon.Parameter): its structured name, shape, dtype, value,
 * gradient buffer, grad_req and learning-rate / weight-decay multipliers. From
 * {@link Block#collectParams}.
 *
 * <p>Ownership: see {@link NativeResource}; the parameter stays valid after its block is closed.
 *
 * <p>Threads: getters read the parameter (any number of threads at once); setters,
 * {@link #initialize} and {@link #zeroGrad} write it: no other thread may use it or its block
 * meanwhile. {@link #close()} from any thread.
 */
public final class Parameter extends NativeResource {
  private volatile String name;

  Parameter(long handle) {
    super(handle, Kind.PARAMETER, true);
  }

  static Parameter[] of(long[] handles) {
    Parameter[] r = new Parameter[handles.length];
    for (int i = 0; i < handles.length; i++) {
      r[i] = new Parameter(handles[i]);
    }
    return r;
  }

  /**
   * The structured name it was collected under ("features.0.weight").
   *
   * @return the name
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public String name() {
    handle(); // throws when closed
    String n = name;
    if (n == null) {
      try {
        n = Native.paramName(handle());
      } finally {
        Reference.reachabilityFence(this);
      }
      name = n;
    }
    return n;
  }

  /**
   * The shape (layout as the layer defines it, e.g. (out, in, kh, kw) for a convolution weight);
   * -1 for dims unknown until the first call.
   *
   * @return the dims, or null while even the rank is unknown
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public long[] shape() {
    try {
      return Native.paramShape(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The dtype.
   *
   * @return the dtype
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public DType dtype() {
    try {
      return DType.of(Native.paramDtype(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value on its first device: the parameter's own array (writes through it are seen by the
   * block).
   *
   * @return the array
   * @throws MXNetException FAILED_PRECONDITION when not initialized
   */
  public NDArray data() {
    return array(false, null);
  }

  /**
   * The value on {@code device}.
   *
   * @param device the device (null: its first)
   * @return the array
   * @throws MXNetException FAILED_PRECONDITION when not initialized; NOT_FOUND without a copy there
   */
  public NDArray data(Device device) {
    return array(false, device);
  }

  /**
   * The gradient buffer on its first device (the buffer backward writes; same shape and dtype).
   *
   * @return the gradient
   * @throws MXNetException FAILED_PRECONDITION when grad_req is null or not initialized
   */
  public NDArray grad() {
    return array(true, null);
  }

  private NDArray array(boolean grad, Device device) {
    Device d = device == null ? new Device(0, 0) : device;
    try {
      return new NDArray(Native.paramArray(handle(), grad, d.type(), d.id()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Copies {@code value} into the parameter on every device (initializing it on cpu(0) when it
   * was not). Writes the parameter.
   *
   * @param value an array of the parameter's shape
   * @throws MXNetException INVALID_ARGUMENT for a shape mismatch or when closed
   */
  public void setData(NDArray value) {
    try {
      Native.paramSetData(handle(), value.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(value);
    }
  }

  /**
   * Initializes the parameter (init as {@link Block#initialize(String, Device, boolean)}; random
   * draws from the current ctx's stream). Writes the parameter.
   *
   * @param init the initializer (null: its own or Uniform(0.07))
   * @param device where it lives (null: cpu(0))
   * @param forceReinit re-initialize when already initialized
   * @throws MXNetException INVALID_ARGUMENT for an unknown initializer or when closed
   */
  public void initialize(String init, Device device, boolean forceReinit) {
    Device d = device == null ? Device.cpu() : device;
    Ctx ctx = Ctx.current();
    try {
      synchronized (ctx) {
        Native.paramInitialize(ctx.handle(), handle(), init, d.type(), d.id(), forceReinit);
      }
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(ctx);
    }
  }

  /**
   * Sets the gradient to zero. Writes the parameter.
   *
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void zeroGrad() {
    try {
      Native.paramZeroGrad(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The gradient request.
   *
   * @return null (no gradient), write or add
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public GradReq gradReq() {
    int r;
    try {
      r = Native.paramGradReq(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
    return GradReq.values()[r];
  }

  /**
   * Sets the gradient request (null drops the gradient buffers, write/add (re)creates them).
   * Writes the parameter.
   *
   * @param req the request
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void setGradReq(GradReq req) {
    try {
      Native.paramSetGradReq(handle(), req.code());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The learning-rate multiplier the Trainer applies (default 1).
   *
   * @return lr_mult
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public double lrMult() {
    return mult(false);
  }

  /**
   * Sets the learning-rate multiplier. Writes the parameter.
   *
   * @param value lr_mult
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void setLrMult(double value) {
    setMult(false, value);
  }

  /**
   * The weight-decay multiplier the Trainer applies (default 1).
   *
   * @return wd_mult
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public double wdMult() {
    return mult(true);
  }

  /**
   * Sets the weight-decay multiplier. Writes the parameter.
   *
   * @param value wd_mult
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void setWdMult(double value) {
    setMult(true, value);
  }

  private double mult(boolean wd) {
    try {
      return Native.paramMult(handle(), wd);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  private void setMult(boolean wd, double value) {
    try {
      Native.paramSetMult(handle(), wd, value);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  @Override
  public String toString() {
    if (isClosed()) {
      return "Parameter(closed)";
    }
    return "Parameter " + name() + " (shape=" + java.util.Arrays.toString(shape()) + ", dtype="
        + dtype() + ")";
  }
}
