package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.Map;

/**
 * Applies an optimizer to parameters after {@link Autograd#backward} (mxnet.gluon.Trainer).
 *
 * <pre>{@code
 * var trainer = Trainer.create(net.collectParams(), "adam", Map.of("learning_rate", 0.003));
 * try (var r = Autograd.record()) { loss = ce.forward(net.forward(x), y); }
 * Autograd.backward(loss);
 * trainer.step(batchSize);
 * }</pre>
 *
 * <p>Ownership: see {@link NativeResource}; the trainer keeps its parameters alive.
 *
 * <p>Threads: one thread at a time (the methods synchronize on the trainer); {@link #step} writes
 * the parameters, so no other thread may call the blocks owning them meanwhile.
 */
public final class Trainer extends NativeResource {
  private Trainer(long handle) {
    super(handle, Kind.TRAINER, true);
  }

  /**
   * A trainer over {@code params} (the optimizer's index of a parameter is its position;
   * parameters with grad_req null are skipped).
   *
   * @param params the parameters, e.g. {@code net.collectParams()}
   * @param optimizer "sgd", "adam", "nag", "rmsprop", "adagrad", "adadelta", "ftrl", "signum",
   *     "lamb", ... (mx.optimizer names)
   * @param kwargs the optimizer's keyword arguments (learning_rate, wd, momentum, beta1,
   *     clip_gradient, rescale_grad, ...; Java values or MXNet's strings; null: none)
   * @return the trainer
   * @throws MXNetException NOT_FOUND for an unknown optimizer (listing them); INVALID_ARGUMENT for
   *     bad keyword arguments or closed parameters
   */
  public static Trainer create(
      Iterable<Parameter> params, String optimizer, Map<String, ?> kwargs) {
    java.util.List<Parameter> list = new java.util.ArrayList<>();
    params.forEach(list::add);
    long[] h = new long[list.size()];
    for (int i = 0; i < h.length; i++) {
      h[i] = list.get(i).handle();
    }
    String[][] kv = Op.Attrs.of(kwargs);
    try {
      return new Trainer(Native.trainerCreate(h, optimizer, kv[0], kv[1]));
    } finally {
      Reference.reachabilityFence(list);
    }
  }

  /**
   * One optimization step (Trainer.step): gradients scaled by 1/batchSize, every parameter
   * updated; random optimizers draw from the current ctx's stream.
   *
   * @param batchSize the batch size (&gt; 0)
   * @throws MXNetException FAILED_PRECONDITION for a parameter whose gradient backward did not
   *     write since the last step (nothing is updated then); INVALID_ARGUMENT for batchSize &lt;=
   *     0
   */
  public void step(double batchSize) {
    step(batchSize, false);
  }

  /**
   * One optimization step; with {@code ignoreStaleGrad} parameters without a fresh gradient are
   * skipped instead of being an error.
   *
   * @param batchSize the batch size (&gt; 0)
   * @param ignoreStaleGrad skip stale parameters
   * @throws MXNetException as {@link #step(double)}
   */
  public synchronized void step(double batchSize, boolean ignoreStaleGrad) {
    Ctx ctx = Ctx.current();
    try {
      synchronized (ctx) {
        Native.trainerStep(ctx.handle(), handle(), batchSize, ignoreStaleGrad);
      }
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(ctx);
    }
  }

  /**
   * The optimizer's current learning rate (its scheduler's, if any).
   *
   * @return the learning rate
   */
  public synchronized double learningRate() {
    try {
      return Native.trainerLearningRate(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sets the learning rate (set_learning_rate).
   *
   * @param lr the learning rate
   * @throws MXNetException FAILED_PRECONDITION when the optimizer has an lr_scheduler
   */
  public synchronized void setLearningRate(double lr) {
    try {
      Native.trainerSetLearningRate(handle(), lr);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes the optimizer and per-parameter states (save_states; temporary file + rename).
   *
   * @param path the file
   * @throws MXNetException the file system's errors
   */
  public synchronized void saveStates(Path path) {
    states(path, false);
  }

  /**
   * Reads states written by {@link #saveStates} into a trainer with the same optimizer and
   * parameter shapes (load_states).
   *
   * @param path the file
   * @throws MXNetException NOT_FOUND for a missing file; INVALID_ARGUMENT for another optimizer
   *     or shapes
   */
  public synchronized void loadStates(Path path) {
    states(path, true);
  }

  private void states(Path path, boolean load) {
    try {
      Native.trainerStates(handle(), path.toString(), load);
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
