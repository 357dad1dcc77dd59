package org.mxnetcpp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;

/**
 * A Java object owning one reference to a libmxc handle (an NDArray, Symbol, Ctx, Block,
 * Parameter, Trainer, Transform, Dataset or DataLoader).
 *
 * <p>Ownership: the object holds a +1 reference from the C ABI, released exactly once by
 * {@link #close()}, by the {@link NDScope} that owns it when that scope closes, or, as a safety net
 * for objects that were never closed, by a {@link Cleaner} after the object became unreachable.
 * {@code close()} is idempotent. Any use after close throws {@link MXNetException}
 * (INVALID_ARGUMENT, "... used after close"), never crashes: even a race between close and use on
 * two threads ends in the C ABI's "freed handle" error, as its handles are checked.
 *
 * <p>Threads: {@code close()} may be called from any thread, concurrently with itself.
 */
public abstract class NativeResource implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final VarHandle CLOSED;

  static {
    try {
      CLOSED = MethodHandles.lookup().findVarHandle(NativeResource.class, "closed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Which _free function releases a handle. */
  enum Kind {
    NDARRAY,
    SYMBOL,
    CTX,
    BLOCK,
    PARAMETER,
    TRAINER,
    TRANSFORM,
    DATASET,
    DATALOADER
  }

  /** The Cleaner's action: frees the handle; it must not refer to the resource object. */
  private static final class Release implements Runnable {
    private final long handle;
    private final Kind kind;

    Release(long handle, Kind kind) {
      this.handle = handle;
      this.kind = kind;
    }

    @Override
    public void run() {
      switch (kind) {
        case NDARRAY -> Native.ndFree(handle);
        case SYMBOL -> Native.symFree(handle);
        case CTX -> Native.ctxFree(handle);
        case BLOCK -> Native.blockFree(handle);
        case PARAMETER -> Native.paramFree(handle);
        case TRAINER -> Native.trainerFree(handle);
        case TRANSFORM -> Native.transformFree(handle);
        case DATASET -> Native.datasetFree(handle);
        case DATALOADER -> Native.dataloaderFree(handle);
      }
    }
  }

  private final long handle;
  private final Cleaner.Cleanable cleanable;
  private volatile boolean closed;
  /** The scope owning this resource, or null; guarded by the scope's lock. */
  volatile NDScope scope;

  /**
   * Takes ownership of a +1 handle; adopted by the current thread's innermost open NDScope when
   * {@code scoped}.
   */
  NativeResource(long handle, Kind kind, boolean scoped) {
    if (handle == 0) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, "NativeResource: null handle");
    }
    this.handle = handle;
    this.cleanable = CLEANER.register(this, new Release(handle, kind));
    if (scoped) {
      NDScope s = NDScope.current();
      if (s != null) {
        s.adopt(this);
      }
    }
  }

  /** The handle for a C ABI call; throws when closed. Callers keep {@code this} reachable. */
  final long handle() {
    if (closed) {
      throw usedAfterClose();
    }
    return handle;
  }

  private MXNetException usedAfterClose() {
    return new MXNetException(
        MXNetException.INVALID_ARGUMENT, getClass().getSimpleName() + " used after close");
  }

  /**
   * Whether {@link #close()} ran (directly or through the owning scope).
   *
   * @return true once closed
   */
  public final boolean isClosed() {
    return closed;
  }

  /**
   * Releases the handle (idempotent: later calls do nothing). Views and results made from this
   * object stay valid: each holds its own reference.
   */
  @Override
  public final void close() {
    if (!CLOSED.compareAndSet(this, false, true)) {
      return;
    }
    NDScope s = NDScope.ownerOf(this);
    if (s != null) {
      s.forget(this);
    }
    cleanable.clean();
  }

  /** Closes without touching the scope (the scope is closing and drops its set itself). */
  final void closeFromScope() {
    if (CLOSED.compareAndSet(this, false, true)) {
      cleanable.clean();
    }
  }
}
