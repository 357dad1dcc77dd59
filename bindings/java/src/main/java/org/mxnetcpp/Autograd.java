package org.mxnetcpp;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;

/**
 * Autograd (mxnet.autograd). The recording and training flags live in a {@link Ctx} (the calling
 * thread's current one unless given); the recorded history hangs off the arrays, so a graph
 * recorded under one ctx can be differentiated under any ctx, on any thread.
 *
 * <pre>{@code
 * x.attachGrad();
 * NDArray y;
 * try (var r = Autograd.record()) {
 *   y = x.mul(x).add(x.mul(3)).sum();
 * }
 * Autograd.backward(y);
 * float[] g = x.grad().toFloatArray();   // 2x + 3
 * }</pre>
 *
 * <p>Threads: flag changes follow the ctx's rule (one thread at a time per ctx; the binding
 * serializes on the ctx); backward and grad on disjoint graphs may run concurrently.
 */
public final class Autograd {
  private Autograd() {}

  /**
   * Restores the recording and training flags a {@link #record}/{@link #pause} block changed.
   * Close it on the thread that opened it (try-with-resources).
   */
  public static final class Scope implements AutoCloseable {
    private final Ctx ctx;
    private final boolean prevRecording;
    private final boolean prevTraining;
    private boolean closed;

    private Scope(Ctx ctx, boolean recording, boolean training) {
      this.ctx = ctx;
      synchronized (ctx) {
        long h = ctx.handle();
        this.prevRecording = Native.agSetRecording(h, recording);
        this.prevTraining = Native.agSetTraining(h, training);
      }
      Reference.reachabilityFence(ctx);
    }

    /** Restores the previous flags (idempotent). */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      synchronized (ctx) {
        long h = ctx.handle();
        Native.agSetRecording(h, prevRecording);
        Native.agSetTraining(h, prevTraining);
      }
      Reference.reachabilityFence(ctx);
    }
  }

  /**
   * {@code with autograd.record():} on the current ctx: recording on, training mode on.
   *
   * @return closes to restore the previous flags
   */
  public static Scope record() {
    return new Scope(Ctx.current(), true, true);
  }

  /**
   * {@code with autograd.record(train_mode):} on {@code ctx}.
   *
   * @param ctx the ctx whose flags change
   * @param trainMode the training flag inside the block (Dropout, BatchNorm behaviour)
   * @return closes to restore the previous flags
   * @throws MXNetException INVALID_ARGUMENT when ctx is closed
   */
  public static Scope record(Ctx ctx, boolean trainMode) {
    return new Scope(ctx, true, trainMode);
  }

  /**
   * {@code with autograd.pause():} on the current ctx: recording off, training mode off.
   *
   * @return closes to restore the previous flags
   */
  public static Scope pause() {
    return new Scope(Ctx.current(), false, false);
  }

  /**
   * Whether the current ctx records.
   *
   * @return the recording flag
   */
  public static boolean isRecording() {
    Ctx c = Ctx.current();
    synchronized (c) {
      return Native.agIsRecording(c.handle());
    }
  }

  /**
   * Whether the current ctx is in training mode.
   *
   * @return the training flag
   */
  public static boolean isTraining() {
    Ctx c = Ctx.current();
    synchronized (c) {
      return Native.agIsTraining(c.handle());
    }
  }

  /**
   * Sets the current ctx's training flag (mx.autograd.set_training).
   *
   * @param training the new flag
   * @return the previous flag
   */
  public static boolean setTraining(boolean training) {
    Ctx c = Ctx.current();
    synchronized (c) {
      return Native.agSetTraining(c.handle(), training);
    }
  }

  /**
   * Marks arrays as variables with the given gradient buffers (mx.autograd.mark_variables).
   *
   * @param variables the arrays
   * @param gradients one buffer per variable, same shape
   * @param reqs one request per variable
   * @throws MXNetException INVALID_ARGUMENT for a shape mismatch, differing list lengths or closed
   *     arrays
   */
  public static void markVariables(
      List<NDArray> variables, List<NDArray> gradients, List<GradReq> reqs) {
    NDArray[] v = variables.toArray(new NDArray[0]);
    NDArray[] g = gradients.toArray(new NDArray[0]);
    int[] r = new int[reqs.size()];
    for (int i = 0; i < r.length; i++) {
      r[i] = reqs.get(i).code();
    }
    try {
      Native.agMarkVariables(NDArray.handles(v), NDArray.handles(g), r);
    } finally {
      Reference.reachabilityFence(v);
      Reference.reachabilityFence(g);
    }
  }

  /**
   * Back-propagates from {@code heads} (head gradients of ones) into the variables' gradient
   * buffers, in training mode, freeing the graph.
   *
   * @param heads recorded results
   * @throws MXNetException FAILED_PRECONDITION / INVALID_ARGUMENT for a head without recorded
   *     history, a second backward over a freed graph
   */
  public static void backward(NDArray... heads) {
    backward(List.of(heads), null, false, true);
  }

  /**
   * Back-propagates from {@code heads} (mx.autograd.backward) under the current ctx.
   *
   * @param heads recorded results
   * @param headGrads null (ones) or one entry per head, each null (ones) or an array of the
   *     head's shape
   * @param retainGraph keep the history for another backward
   * @param trainMode run the backward in training mode (MXNet's default: true)
   * @throws MXNetException for a head without history, a freed graph, shape mismatches
   */
  public static void backward(
      List<NDArray> heads, List<NDArray> headGrads, boolean retainGraph, boolean trainMode) {
    NDArray[] h = heads.toArray(new NDArray[0]);
    NDArray[] g = headGrads == null ? null : headGrads.toArray(new NDArray[0]);
    Ctx c = Ctx.current();
    try {
      synchronized (c) {
        Native.agBackward(c.handle(), NDArray.handles(h), optionalHandles(g), retainGraph,
            trainMode);
      }
    } finally {
      Reference.reachabilityFence(h);
      Reference.reachabilityFence(g);
    }
  }

  /**
   * Gradients of {@code heads} w.r.t. {@code variables} (mx.autograd.grad) as new arrays, without
   * touching the variables' buffers. With {@code createGraph} the gradient computation is itself
   * recorded, so the results can be differentiated again (higher-order gradients; implies
   * retainGraph).
   *
   * @param heads recorded results
   * @param variables arrays the heads depend on (marked or recorded)
   * @param headGrads null (ones) or one entry per head, each null (ones) or of the head's shape
   * @param retainGraph keep the history
   * @param createGraph record the gradient computation
   * @param trainMode run in training mode
   * @return one gradient per variable, of its shape (zeros where the heads do not depend on it)
   * @throws MXNetException as {@link #backward(List, List, boolean, boolean)}; for a variable
   *     that is neither marked nor recorded
   */
  public static List<NDArray> grad(
      List<NDArray> heads,
      List<NDArray> variables,
      List<NDArray> headGrads,
      boolean retainGraph,
      boolean createGraph,
      boolean trainMode) {
    NDArray[] h = heads.toArray(new NDArray[0]);
    NDArray[] v = variables.toArray(new NDArray[0]);
    NDArray[] g = headGrads == null ? null : headGrads.toArray(new NDArray[0]);
    Ctx c = Ctx.current();
    long[] out;
    try {
      synchronized (c) {
        out = Native.agGrad(c.handle(), NDArray.handles(h), optionalHandles(g),
            NDArray.handles(v), retainGraph, createGraph, trainMode);
      }
    } finally {
      Reference.reachabilityFence(h);
      Reference.reachabilityFence(v);
      Reference.reachabilityFence(g);
    }
    List<NDArray> r = new ArrayList<>(out.length);
    for (long o : out) {
      r.add(new NDArray(o));
    }
    return r;
  }

  private static long[] optionalHandles(NDArray[] a) {
    if (a == null) {
      return null;
    }
    long[] h = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      h[i] = a[i] == null ? 0 : a[i].handle();
    }
    return h;
  }
}
