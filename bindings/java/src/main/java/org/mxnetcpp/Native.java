package org.mxnetcpp;

import java.nio.Buffer;

/**
 * The JNI declarations over libmxc's C ABI (one native method per C call or small group of calls;
 * implemented in src/main/native/mxc_jni.c, whose header javac -h generates from this file).
 * Handles are passed as {@code long}. Every method that can fail throws {@link MXNetException}
 * built from the C ABI's status. Package-private: the public classes wrap it.
 *
 * <p>Loading: the system property {@code mxc.library} (path of libmxc.so.1) is loaded first when
 * set, then {@code mxc.jni.library} (path of libmxc_jni.so), else {@code System.loadLibrary
 * ("mxc_jni")} through java.library.path. The ABI version is checked once (major 1, minor 0).
 */
final class Native {
  private Native() {}

  static final int ABI_MAJOR = 1;
  static final int ABI_MINOR = 3;

  static {
    String mxc = System.getProperty("mxc.library");
    if (mxc != null && !mxc.isEmpty()) {
      System.load(new java.io.File(mxc).getAbsolutePath());
    }
    String jni = System.getProperty("mxc.jni.library");
    if (jni != null && !jni.isEmpty()) {
      System.load(new java.io.File(jni).getAbsolutePath());
    } else {
      System.loadLibrary("mxc_jni");
    }
    abiCheck(ABI_MAJOR, ABI_MINOR);
  }

  // ---- base ----
  static native int abiVersion();

  static native void abiCheck(int major, int minor);

  static native String codeName(int code);

  /** {live, bad_frees}. */
  static native long[] handleStats();

  // ---- ctx ----
  static native long ctxCreate(int devType, int devId, boolean hasSeed, long seed);

  static native void ctxFree(long ctx);

  /** {type, id}. */
  static native int[] ctxDevice(long ctx);

  static native void ctxSetDevice(long ctx, int devType, int devId);

  static native void ctxSeed(long ctx, long seed);

  static native void randomSeed(long seed);

  // ---- ndarray ----
  static native long ndCreate(long[] shape, int dtype, int devType, int devId);

  /** From a primitive Java array: bytes [offsetBytes, offsetBytes + nbytes). */
  static native long ndFromArray(
      Object array, long offsetBytes, long nbytes, long[] shape, int dtype, int devType, int devId);

  /** From a direct buffer: bytes [offsetBytes, offsetBytes + nbytes) of its memory. */
  static native long ndFromDirect(
      Buffer buffer, long offsetBytes, long nbytes, long[] shape, int dtype, int devType, int devId);

  /** Zero copy over a direct buffer's memory; the buffer is kept reachable until freed. */
  static native long ndWrapDirect(
      Buffer buffer, long offsetBytes, long nbytes, long[] shape, int dtype);

  static native void ndFree(long array);

  static native void ndRetain(long array);

  static native long[] ndShape(long array);

  static native int ndDtype(long array);

  /** {type, id}. */
  static native int[] ndDevice(long array);

  static native void ndCopyToArray(long array, Object dst, long offsetBytes, long nbytes);

  static native void ndCopyToDirect(long array, Buffer dst, long offsetBytes, long nbytes);

  static native void ndCopyFromArray(long array, Object src, long offsetBytes, long nbytes);

  static native void ndCopyFromDirect(long array, Buffer src, long offsetBytes, long nbytes);

  static native long ndCopy(long array, int devType, int devId);

  static native long ndReshape(long ctx, long array, long[] shape);

  static native long ndSlice(long ctx, long array, long begin, long end);

  static native void ndWait(long array);

  static native void waitAll();

  /** {long[] handles (0 for "none" records), String[] names or null}. */
  static native Object[] ndLoad(
      String path, byte[] bytes, int devType, int devId, boolean rejectTrailing,
      boolean keepSparse, long maxDensifiedBytes);

  static native void ndSave(
      String path, long[] arrays, String[] names, int format, int version, boolean noFsync);

  static native byte[] ndSaveToBytes(long[] arrays, String[] names, int format, int version);

  // ---- ops ----
  static native long opCount();

  static native long opAt(long index);

  static native long opFind(String name);

  /**
   * {String name, String doc, int[] {numInputs, numOutputs, differentiable, isCreation,
   * numAttrs}, String[] inputNames, String[] aliases, String variadicAttr (or null)}.
   */
  static native Object[] opInfo(long op);

  /**
   * {String name, String type, int[] {kind, optional, required}, String default (or null),
   * String doc, String[] choices}.
   */
  static native Object[] opAttr(long op, long index);

  /** {numInputs, numOutputs}. */
  static native long[] opNumIo(long op, String[] keys, String[] values);

  static native String[] opInputNames(long op, String[] keys, String[] values);

  /**
   * Runs the operator; returns the output handles (+1 each). attrs: numAttrs key/value pairs as
   * UTF-8 "key\0value\0..." (see Op.Attrs.encode), or null.
   */
  static native long[] invoke(long ctx, long op, long[] inputs, byte[] attrs, int numAttrs);

  /**
   * The fast path of {@link #invoke} for up to two inputs (nin of in0, in1) and exactly one
   * visible output: no Java arrays for handles cross JNI. Returns the output handle (+1).
   */
  static native long invoke1(
      long ctx, long op, int nin, long in0, long in1, byte[] attrs, int numAttrs);

  // ---- autograd ----
  /** Returns the previous flag. */
  static native boolean agSetRecording(long ctx, boolean recording);

  /** Returns the previous flag. */
  static native boolean agSetTraining(long ctx, boolean training);

  static native boolean agIsRecording(long ctx);

  static native boolean agIsTraining(long ctx);

  static native void ndAttachGrad(long array, int gradReq);

  static native long ndGrad(long array);

  static native void agMarkVariables(long[] variables, long[] gradients, int[] gradReqs);

  /** headGrads: null (ones) or one entry per head, 0 meaning ones. */
  static native void agBackward(
      long ctx, long[] heads, long[] headGrads, boolean retainGraph, boolean trainMode);

  static native long[] agGrad(
      long ctx, long[] heads, long[] headGrads, long[] variables, boolean retainGraph,
      boolean createGraph, boolean trainMode);

  // ---- symbol ----
  static native void symFree(long symbol);

  static native long symFromJson(String json);

  static native long symLoad(String path);

  static native String symToJson(long symbol);

  static native void symSave(long symbol, String path);

  static native long symVariable(String name);

  static native long symCreate(
      long op, long[] inputs, String[] keys, String[] values, String name);

  static native long symGroup(long[] symbols);

  static native long symOutput(long symbol, long index);

  static native long symInternals(long symbol);

  static native long symCompose(long symbol, String[] names, long[] substitutes);

  static native String symName(long symbol);

  /** which: 0 arguments, 1 outputs, 2 auxiliary states, 3 inputs. */
  static native String[] symList(long symbol, int which);

  /** {arguments, outputs, aux}: each an array of shapes, null for an unknown ndim. */
  static native long[][][] symInferShape(
      long symbol, String[] names, long[][] shapes, boolean partial);

  /** {arguments, outputs, aux}: dtype codes, -1 unknown. */
  static native int[][] symInferType(long symbol, String[] names, int[] dtypes);

  // ---- gluon (model zoo, blocks, parameters) ----
  static native String[] modelZooList();

  static native long modelZooGet(
      String name, long classes, boolean pretrained, String root, int devType, int devId);

  static native void blockFree(long block);

  static native long symbolBlockImports(
      String symbolFile, String[] inputNames, String paramFile, int devType, int devId);

  static native long symbolBlockCreate(long symbol, String[] inputNames);

  static native void blockInitialize(
      long ctx, long block, String init, int devType, int devId, boolean forceReinit);

  /** The output handles (+1 each). */
  static native long[] blockCall(long ctx, long block, long[] inputs);

  static native void blockHybridize(
      long block, boolean deactivate, boolean staticAlloc, boolean staticShape, String backend);

  static native void blockExport(long block, String path, int epoch);

  /** ONNX export (ABI 1.2): input i has ndims[i] dims, one input after the other in dims. */
  static native void blockExportOnnx(
      long ctx, long block, long[] ndims, long[] dims, String path, int opset, boolean staticBatch);

  /** ONNX import from a file (path) or, when path is null, from bytes; +1 block handle. */
  static native long symbolBlockImportsOnnx(String path, byte[] bytes, int devType, int devId);

  static native void blockSaveParameters(long block, String path);

  static native void blockLoadParameters(
      long block, String path, int devType, int devId, boolean allowMissing, boolean ignoreExtra,
      boolean castDtype);

  /** Parameter handles (+1 each), registration order. */
  static native long[] blockCollectParams(long block, String select);

  static native void blockZeroGrad(long block);

  static native String blockToString(long block);

  static native void paramFree(long param);

  static native String paramName(long param);

  /** null while the rank is unknown; -1 for unknown dims. */
  static native long[] paramShape(long param);

  static native int paramDtype(long param);

  /** grad false: the data, true: the gradient buffer. */
  static native long paramArray(long param, boolean grad, int devType, int devId);

  static native void paramSetData(long param, long value);

  static native void paramInitialize(
      long ctx, long param, String init, int devType, int devId, boolean forceReinit);

  static native void paramZeroGrad(long param);

  static native int paramGradReq(long param);

  static native void paramSetGradReq(long param, int gradReq);

  /** wd false: lr_mult, true: wd_mult. */
  static native double paramMult(long param, boolean wd);

  static native void paramSetMult(long param, boolean wd, double value);

  // ---- training (losses, Trainer) ----
  static native String[] lossList();

  static native long lossCreate(String name, String[] keys, String[] values);

  static native long trainerCreate(
      long[] params, String optimizer, String[] keys, String[] values);

  static native void trainerFree(long trainer);

  static native void trainerStep(long ctx, long trainer, double batchSize, boolean ignoreStale);

  static native double trainerLearningRate(long trainer);

  static native void trainerSetLearningRate(long trainer, double lr);

  /** load false: save_states, true: load_states. */
  static native void trainerStates(long trainer, String path, boolean load);

  // ---- data (images, transforms, datasets, loaders) ----
  static native long imageDecode(byte[] bytes, int flag, boolean toRgb);

  static native long imageRead(String path, int flag, boolean toRgb);

  static native long imageResizeShort(long image, long size, int interp, boolean roundLongSide);

  static native void transformFree(long transform);

  static native long transformToTensor();

  static native long transformNormalize(float[] mean, float[] std);

  static native long transformResize(long width, long height, boolean keepRatio, int interp);

  static native long transformCenterCrop(long width, long height, int interp);

  static native long transformCast(int dtype);

  static native long transformCompose(long[] steps);

  /** fn is handed to Transform.runCallback on whichever thread applies the transform. */
  static native long transformFromCallback(Object fn);

  static native long transformApply(long transform, long input);

  static native String transformToString(long transform);

  static native void datasetFree(long dataset);

  /** fashion: Fashion-MNIST, else MNIST. */
  static native long datasetVision(String root, boolean train, boolean fashion);

  static native long datasetFromArrays(long[] columns);

  static native long datasetSize(long dataset);

  static native long[] datasetGet(long dataset, long index);

  /** how 0: take(a), 1: shard(a, b), 2: transform_first(a, lazy), 3: transform_first(a, eager). */
  static native long datasetDerive(long dataset, int how, long a, long b);

  static native void dataloaderFree(long loader);

  static native long dataloaderCreate(
      long dataset, long batchSize, boolean shuffle, int lastBatch, int numWorkers, int prefetch);

  static native long dataloaderSize(long loader);

  /** The next batch's fields (+1 each), or null at the end of the epoch. */
  static native long[] dataloaderNext(long ctx, long loader);

  static native void dataloaderReset(long loader);

  // ---- benchmarks (S8) ----
  /**
   * Runs mxc_invoke(ctx, op, {input}, one attribute key=value or none when key is null) then
   * mxc_ndarray_free on the output, `iterations` times, directly in C (the S8 baseline).
   */
  static native void benchInvokeC(long ctx, long op, long input, String key, String value,
      int iterations);
}
