package org.mxnetcpp;

import java.lang.ref.Reference;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Batches of a {@link Dataset} (gluon.data.DataLoader) with the default batchify (fields of shape
 * S become (batch, S); Fashion-MNIST with ToTensor gives (B, 1, 28, 28) float32 images and (B,)
 * int32 labels). {@code for (NDArray[] batch : loader)} runs one epoch.
 *
 * <p>Ownership: see {@link NativeResource}; closing stops the worker threads.
 *
 * <p>Threads: one thread at a time (the methods synchronize on the loader).
 */
public final class DataLoader extends NativeResource implements Iterable<NDArray[]> {
  /** What happens to the incomplete last batch. */
  public enum LastBatch {
    /** Kept (MXNet's "keep", the default). */
    KEEP,
    /** Dropped ("discard"). */
    DISCARD,
    /** Rolled over into the next epoch ("rollover"). */
    ROLLOVER
  }

  /**
   * Options.
   *
   * @param batchSize samples per batch (&gt;= 1)
   * @param shuffle a new random order each epoch (drawn from the current ctx's stream)
   * @param lastBatch the incomplete last batch's fate (null: KEEP)
   * @param numWorkers worker threads loading ahead (0: load on the calling thread)
   * @param prefetch batches in flight with workers (0: 2 * numWorkers)
   */
  public record Options(
      long batchSize, boolean shuffle, LastBatch lastBatch, int numWorkers, int prefetch) {
    /**
     * batchSize samples per batch, in order, on the calling thread.
     *
     * @param batchSize samples per batch
     * @return the options
     */
    public static Options of(long batchSize) {
      return new Options(batchSize, false, LastBatch.KEEP, 0, 0);
    }
  }

  private DataLoader(long handle) {
    super(handle, Kind.DATALOADER, true);
  }

  /**
   * A loader over {@code dataset}.
   *
   * @param dataset the dataset (kept alive by the loader)
   * @param options the options
   * @return the loader
   * @throws MXNetException INVALID_ARGUMENT for batchSize &lt; 1 or negative numWorkers/prefetch
   */
  public static DataLoader create(Dataset dataset, Options options) {
    LastBatch lb = options.lastBatch() == null ? LastBatch.KEEP : options.lastBatch();
    try {
      return new DataLoader(
          Native.dataloaderCreate(
              dataset.handle(),
              options.batchSize(),
              options.shuffle(),
              lb.ordinal(),
              options.numWorkers(),
              options.prefetch()));
    } finally {
      Reference.reachabilityFence(dataset);
    }
  }

  /**
   * Batches in one epoch (len(loader)).
   *
   * @return the count
   */
  public synchronized long size() {
    try {
      return Native.dataloaderSize(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The next batch of the current epoch, or null at its end (the following call starts a new
   * epoch, reshuffled when shuffling).
   *
   * @return the fields (new arrays owned by the current NDScope), or null
   * @throws MXNetException a loading error naming the sample and batch (the epoch is then over)
   */
  public synchronized NDArray[] next() {
    Ctx ctx = Ctx.current();
    long[] h;
    try {
      synchronized (ctx) {
        h = Native.dataloaderNext(ctx.handle(), handle());
      }
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(ctx);
    }
    return h == null ? null : NDArray.of(h);
  }

  /** Ends the current epoch early; the next {@link #next()} starts a new one. */
  public synchronized void reset() {
    try {
      Native.dataloaderReset(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * One epoch (from where the current one stands): each element is a batch's fields.
   *
   * @return the iterator
   */
  @Override
  public Iterator<NDArray[]> iterator() {
    return new Iterator<>() {
      private NDArray[] pending;
      private boolean done;

      @Override
      public boolean hasNext() {
        if (pending == null && !done) {
          pending = DataLoader.this.next();
          done = pending == null;
        }
        return pending != null;
      }

      @Override
      public NDArray[] next() {
        if (!hasNext()) {
          throw new NoSuchElementException("end of the epoch");
        }
        NDArray[] r = pending;
        pending = null;
        return r;
      }
    };
  }
}
