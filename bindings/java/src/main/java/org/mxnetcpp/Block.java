package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A Gluon block (mxnet.gluon.Block / HybridBlock): a network or layer with parameters, called on
 * arrays. Made by {@link ModelZoo#get}, {@link SymbolBlock#imports}, {@link SymbolBlock#create} or
 * {@link Loss#create}.
 *
 * <p>Ownership: see {@link NativeResource} (close, {@link NDScope}, or the Cleaner). Parameters
 * and outputs taken from a block hold their own references and outlive it.
 *
 * <p>Threads (the C ABI's contract): once initialized, one block may be called from many threads
 * at once, each under its own {@link Ctx} (a hybridized block runs an immutable cached graph with
 * per-call state). {@link #initialize}, {@link #hybridize} and {@link #loadParameters} write the
 * block: this class takes a write lock for them and a read lock for calls, so they wait for
 * running calls instead of racing them. Parameter setters and {@link Trainer#step} also write the
 * parameters; do not run them while other threads call the block. {@link #close()} from any
 * thread.
 */
public class Block extends NativeResource {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  Block(long handle) {
    super(handle, Kind.BLOCK, true);
  }

  /**
   * Initializes every parameter not yet initialized on cpu(0) with MXNet's default
   * Uniform(0.07) (net.initialize()). Shapes unknown until the first call are initialized then.
   *
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void initialize() {
    initialize(null, null, false);
  }

  /**
   * Initializes the parameters (net.initialize(init, ctx, force_reinit)). Random draws use the
   * current ctx's RNG stream.
   *
   * @param init null or "" for Uniform(0.07), else an initializer as MXNet writes it ("xavier",
   *     "zeros", {@code ["normal", {"sigma": 0.02}]}, ...)
   * @param device where the parameters live (null: cpu(0))
   * @param forceReinit also re-initialize initialized parameters
   * @throws MXNetException INVALID_ARGUMENT for an unknown initializer or when closed
   */
  public void initialize(String init, Device device, boolean forceReinit) {
    Device d = device == null ? Device.cpu() : device;
    Ctx ctx = Ctx.current();
    lock.writeLock().lock();
    try {
      synchronized (ctx) {
        Native.blockInitialize(ctx.handle(), handle(), init, d.type(), d.id(), forceReinit);
      }
    } finally {
      lock.writeLock().unlock();
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(ctx);
    }
  }

  /**
   * Calls the block under the calling thread's current ctx (recorded for autograd inside
   * {@link Autograd#record()}, training behaviour when the ctx trains).
   *
   * @param inputs the data inputs (for a net, typically one (N, C, H, W) float32 batch; for a
   *     loss, pred and label)
   * @return the outputs, new arrays owned by the current NDScope
   * @throws MXNetException FAILED_PRECONDITION for uninitialized parameters, INVALID_ARGUMENT for
   *     wrong input counts or shapes (naming the layer), or when closed
   */
  public NDArray[] call(NDArray... inputs) {
    return call(Ctx.current(), inputs);
  }

  /**
   * Calls the block under {@code ctx}.
   *
   * @param ctx the ctx (recording/training flags, RNG stream)
   * @param inputs the data inputs
   * @return the outputs, new arrays owned by the current NDScope
   * @throws MXNetException as {@link #call(NDArray...)}
   */
  public NDArray[] call(Ctx ctx, NDArray... inputs) {
    long[] in = NDArray.handles(inputs);
    long[] out;
    lock.readLock().lock();
    try {
      synchronized (ctx) {
        out = Native.blockCall(ctx.handle(), handle(), in);
      }
    } finally {
      lock.readLock().unlock();
      Reference.reachabilityFence(inputs);
      Reference.reachabilityFence(ctx);
      Reference.reachabilityFence(this);
    }
    return NDArray.of(out);
  }

  /**
   * Calls a block with exactly one output (most nets and every loss) under the current ctx.
   *
   * @param inputs the data inputs
   * @return the output
   * @throws MXNetException as {@link #call(NDArray...)}; FAILED_PRECONDITION when the block has
   *     several outputs
   */
  public NDArray forward(NDArray... inputs) {
    NDArray[] out = call(inputs);
    if (out.length != 1) {
      for (NDArray a : out) {
        a.close();
      }
      throw new MXNetException(
          MXNetException.FAILED_PRECONDITION,
          "Block.forward: the block has " + out.length + " outputs; use call()");
    }
    return out[0];
  }

  /**
   * Options of {@link #hybridize(HybridizeOptions)}.
   *
   * @param active false turns hybridization off (back to imperative calls)
   * @param staticAlloc MXNet's static_alloc
   * @param staticShape MXNet's static_shape
   * @param backend graph passes: null or "" (the traced graph as is), "default", "onednn"
   */
  public record HybridizeOptions(
      boolean active, boolean staticAlloc, boolean staticShape, String backend) {
    /** hybridize() with MXNet's defaults. */
    public static final HybridizeOptions DEFAULT = new HybridizeOptions(true, false, false, null);
  }

  /**
   * Hybridizes the block recursively (net.hybridize()): the next call traces it into a graph that
   * later calls run. No effect on non-hybrid blocks. Waits for running calls (write lock).
   *
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void hybridize() {
    hybridize(HybridizeOptions.DEFAULT);
  }

  /**
   * Hybridizes the block with options, or turns hybridization off.
   *
   * @param options the options (null: defaults)
   * @throws MXNetException INVALID_ARGUMENT for an unknown backend or when closed
   */
  public void hybridize(HybridizeOptions options) {
    HybridizeOptions o = options == null ? HybridizeOptions.DEFAULT : options;
    lock.writeLock().lock();
    try {
      Native.blockHybridize(handle(), !o.active(), o.staticAlloc(), o.staticShape(), o.backend());
    } finally {
      lock.writeLock().unlock();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes {@code prefix-symbol.json} and {@code prefix-NNNN.params} (arg:/aux: keys, data input
   * "data") from the last traced graph (HybridBlock.export): hybridize and call the block once
   * first. Files are written to temporary names and renamed.
   *
   * @param prefix the path prefix
   * @param epoch the NNNN in the params file name
   * @throws MXNetException FAILED_PRECONDITION when not hybridized or never called; the file
   *     system's errors
   */
  public void export(Path prefix, int epoch) {
    lock.readLock().lock();
    try {
      Native.blockExport(handle(), prefix.toString(), epoch);
    } finally {
      lock.readLock().unlock();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes the block with its parameters as an ONNX model (mx.onnx.export_model; ABI 1.2) whose
   * data inputs have {@code inputShapes} (NCHW for images; named "data" or "data0"...). A block
   * never called is hybridized and run once on zeros under the current ctx (so this takes the
   * write lock). {@link #importsOnnx(Path)} reads it back.
   *
   * @param inputShapes the shape of each data input; dim 0 is the batch
   * @param path the .onnx file (temporary file + rename)
   * @param opset 13..17 (0: 13)
   * @param staticBatch true: every dim fixed; false: dim 0 is the symbolic batch "N"
   * @throws MXNetException INVALID_ARGUMENT naming an operator without an ONNX mapping, a bad
   *     opset or shape; FAILED_PRECONDITION for uninitialized parameters; the file system's errors
   */
  public void exportOnnx(long[][] inputShapes, Path path, int opset, boolean staticBatch) {
    int total = 0;
    for (long[] s : inputShapes) {
      total += s.length;
    }
    long[] ndims = new long[inputShapes.length];
    long[] dims = new long[total];
    int k = 0;
    for (int i = 0; i < inputShapes.length; i++) {
      ndims[i] = inputShapes[i].length;
      for (long d : inputShapes[i]) {
        dims[k++] = d;
      }
    }
    Ctx ctx = Ctx.current();
    lock.writeLock().lock();
    try {
      synchronized (ctx) {
        Native.blockExportOnnx(
            ctx.handle(), handle(), ndims, dims, path.toString(), opset, staticBatch);
      }
    } finally {
      lock.writeLock().unlock();
      Reference.reachabilityFence(ctx);
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Reads an ONNX model file as a SymbolBlock (mx.onnx.import_model; ABI 1.2) on cpu(0): its
   * inputs are the model's non-initializer graph inputs (in order), its parameters the
   * initializers.
   *
   * @param path the .onnx file
   * @return the block
   * @throws MXNetException NOT_FOUND for a missing file; INVALID_ARGUMENT for a corrupt model,
   *     unknown operators (naming op and node), an opset outside 7..21, external data escaping
   *     the model's directory
   */
  public static Block importsOnnx(Path path) {
    return new Block(Native.symbolBlockImportsOnnx(path.toString(), null, 1, 0));
  }

  /**
   * {@link #importsOnnx(Path)} from the bytes of a serialized model (models with external data
   * are refused).
   *
   * @param model the serialized ModelProto
   * @return the block
   * @throws MXNetException as {@link #importsOnnx(Path)}
   */
  public static Block importsOnnxBytes(byte[] model) {
    return new Block(Native.symbolBlockImportsOnnx(null, model, 1, 0));
  }

  /**
   * Writes the parameters by structured name ("features.0.weight") in MXNet's save_parameters
   * format (temporary file + rename).
   *
   * @param path the file
   * @throws MXNetException FAILED_PRECONDITION for uninitialized parameters; the file system's
   *     errors
   */
  public void saveParameters(Path path) {
    lock.readLock().lock();
    try {
      Native.blockSaveParameters(handle(), path.toString());
    } finally {
      lock.readLock().unlock();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Options of {@link #loadParameters(Path, LoadParametersOptions)}.
   *
   * @param device where the parameters go (null: cpu(0))
   * @param allowMissing parameters missing from the file keep their values
   * @param ignoreExtra names in the file the block lacks are ignored
   * @param castDtype cast loaded values to the parameters' dtypes
   */
  public record LoadParametersOptions(
      Device device, boolean allowMissing, boolean ignoreExtra, boolean castDtype) {
    /** MXNet's defaults: cpu(0), strict names, no cast. */
    public static final LoadParametersOptions DEFAULT =
        new LoadParametersOptions(null, false, false, false);
  }

  /**
   * Loads a save_parameters file (ours, MXNet 1.x or 2.x; arg:/aux: prefixes stripped) strictly.
   *
   * @param path the file
   * @throws MXNetException NOT_FOUND for a missing file; INVALID_ARGUMENT naming missing or extra
   *     names or mismatched shapes
   */
  public void loadParameters(Path path) {
    loadParameters(path, LoadParametersOptions.DEFAULT);
  }

  /**
   * Loads a save_parameters file with options. Waits for running calls (write lock).
   *
   * @param path the file
   * @param options the options (null: defaults)
   * @throws MXNetException as {@link #loadParameters(Path)}
   */
  public void loadParameters(Path path, LoadParametersOptions options) {
    LoadParametersOptions o = options == null ? LoadParametersOptions.DEFAULT : options;
    Device d = o.device() == null ? Device.cpu() : o.device();
    lock.writeLock().lock();
    try {
      Native.blockLoadParameters(
          handle(), path.toString(), d.type(), d.id(), o.allowMissing(), o.ignoreExtra(),
          o.castDtype());
    } finally {
      lock.writeLock().unlock();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Every parameter (collect_params()), in registration order.
   *
   * @return the parameters
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public ParameterDict collectParams() {
    return collectParams(null);
  }

  /**
   * The parameters whose structured names match {@code select}, an RE2 regular expression that
   * must match at the start of the name (Python's re.match), e.g. {@code ".*weight|.*bias"}.
   *
   * @param select the expression (null or "": all)
   * @return the parameters in registration order
   * @throws MXNetException INVALID_ARGUMENT for a bad expression or when closed
   */
  public ParameterDict collectParams(String select) {
    long[] h;
    try {
      h = Native.blockCollectParams(handle(), select);
    } finally {
      Reference.reachabilityFence(this);
    }
    return new ParameterDict(Parameter.of(h));
  }

  /**
   * Sets every parameter's gradient to zero (zero_grad). Waits for running calls.
   *
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public void zeroGrad() {
    lock.writeLock().lock();
    try {
      Native.blockZeroGrad(handle());
    } finally {
      lock.writeLock().unlock();
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The block tree as MXNet prints it.
   *
   * @return the text, or "Block(closed)"
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return getClass().getSimpleName() + "(closed)";
    }
    try {
      return Native.blockToString(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
