package org.mxnetcpp;

import java.lang.ref.Reference;

/**
 * Runtime state for running operators (mxc_ctx): the autograd recording and training flags, the
 * default device of operators without inputs, and an optional RNG stream of its own.
 *
 * <p>Every thread has a current ctx ({@link #current()}), created on first use (not recording,
 * predict mode, cpu(0), the process-wide generators); typed operators, {@link Op#invoke},
 * {@link Autograd} and views run under it. {@code try (var u = ctx.use()) {...}} makes another ctx
 * current for a block.
 *
 * <p>Threads: the C ABI lets one thread at a time use a ctx; this class serializes the calls that
 * take a ctx (it locks the ctx object), so sharing one between threads is safe but serial. Use one
 * ctx per thread (the default) for parallel work. {@link #close()} from any thread.
 */
public final class Ctx extends NativeResource {
  private static final ThreadLocal<Ctx> CURRENT =
      ThreadLocal.withInitial(() -> new Ctx(Native.ctxCreate(0, 0, false, 0), false));

  private Ctx(long handle, boolean scoped) {
    super(handle, Kind.CTX, scoped);
  }

  /**
   * A new ctx: not recording, predict mode, cpu(0), the process-wide generators. Owned by the
   * current {@link NDScope}, if any.
   *
   * @return the ctx
   */
  public static Ctx create() {
    return new Ctx(Native.ctxCreate(0, 0, false, 0), true);
  }

  /**
   * A new ctx with a default device and, when {@code seed} is not null, its own RNG stream seeded
   * with it (the same seed gives the same random operator outputs).
   *
   * @param device default device of operators without inputs (null: cpu(0))
   * @param seed the RNG seed, or null for the process-wide generators
   * @return the ctx
   * @throws MXNetException INVALID_ARGUMENT for an unknown device type or a negative id
   */
  public static Ctx create(Device device, Long seed) {
    Device d = device == null ? new Device(0, 0) : device;
    return new Ctx(
        Native.ctxCreate(d.type(), d.id(), seed != null, seed == null ? 0 : seed), true);
  }

  /**
   * The calling thread's current ctx (created on first use; released when the thread ends). When
   * the current ctx was closed (by its scope, or explicitly), the thread gets a fresh default one.
   *
   * @return the ctx operators of this thread run under
   */
  public static Ctx current() {
    Ctx c = CURRENT.get();
    if (c.isClosed()) {
      CURRENT.remove();
      c = CURRENT.get();
    }
    return c;
  }

  /** Restores the previous current ctx when closed; see {@link #use()}. */
  public static final class Use implements AutoCloseable {
    private final Ctx previous;
    private boolean done;

    private Use(Ctx previous) {
      this.previous = previous;
    }

    /** Makes the previous ctx current again (idempotent; call on the same thread). */
    @Override
    public void close() {
      if (!done) {
        done = true;
        CURRENT.set(previous);
      }
    }
  }

  /**
   * Makes this ctx the calling thread's current one until the returned object is closed.
   *
   * @return closes to restore the previous ctx
   * @throws MXNetException INVALID_ARGUMENT when this ctx is closed
   */
  public Use use() {
    handle();
    Ctx prev = CURRENT.get();
    CURRENT.set(this);
    return new Use(prev);
  }

  /**
   * The default device of operators without inputs.
   *
   * @return the device
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public synchronized Device device() {
    try {
      return Device.of(Native.ctxDevice(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sets the default device of operators without inputs.
   *
   * @param device the device
   * @throws MXNetException INVALID_ARGUMENT for an unknown device type or negative id, or when
   *     closed
   */
  public synchronized void setDevice(Device device) {
    try {
      Native.ctxSetDevice(handle(), device.type(), device.id());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Gives this ctx its own RNG stream restarted from {@code seed} (like mx.random.seed, per ctx).
   *
   * @param seed the seed
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public synchronized void seed(long seed) {
    try {
      Native.ctxSeed(handle(), seed);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Seeds the process-wide generators (mx.random.seed), used by ctxs without their own stream.
   * Threads: any.
   *
   * @param seed the seed
   */
  public static void randomSeed(long seed) {
    Native.randomSeed(seed);
  }

  @Override
  public String toString() {
    return isClosed() ? "Ctx(closed)" : "Ctx(" + device() + ")";
  }
}
