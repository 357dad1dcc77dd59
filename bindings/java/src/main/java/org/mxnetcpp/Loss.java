package org.mxnetcpp;

import java.util.List;
import java.util.Map;

/**
 * Gluon losses (mxnet.gluon.loss) by class name. A loss is a {@link Block}: call it with
 * {@code forward(pred, label)} (or {@code call(pred, label, sampleWeight)}) to get the per-sample
 * loss, shape (batch,); inside {@link Autograd#record()} that output can be the head of
 * {@link Autograd#backward}.
 *
 * <p>Ownership and threads: as {@link Block}.
 */
public final class Loss extends Block {
  private Loss(long handle) {
    super(handle);
  }

  /**
   * The names {@link #create} accepts, sorted ("L1Loss", "L2Loss", "SoftmaxCrossEntropyLoss",
   * "SoftmaxCELoss", ...).
   *
   * @return the names
   */
  public static List<String> list() {
    return List.of(Native.lossList());
  }

  /**
   * gluon.loss.&lt;name&gt;(**kwargs). Every loss takes weight (default None; L2Loss 1.0) and
   * batch_axis (0); SoftmaxCrossEntropyLoss also axis (-1), sparse_label (True), from_logits
   * (False); see mxc/training.h for the others.
   *
   * @param name the class name
   * @param kwargs keyword arguments (values as {@link Op} attributes: Java values or MXNet's
   *     strings; null: none)
   * @return the loss block
   * @throws MXNetException INVALID_ARGUMENT for an unknown name (listing the valid ones) or bad
   *     keyword arguments (listing the accepted ones)
   */
  public static Loss create(String name, Map<String, ?> kwargs) {
    String[][] kv = Op.Attrs.of(kwargs);
    return new Loss(Native.lossCreate(name, kv[0], kv[1]));
  }

  /**
   * SoftmaxCrossEntropyLoss(): pred (batch, classes) logits, label (batch,) class indices (any
   * numeric dtype); loss -log softmax(pred)[label] per sample.
   *
   * @return the loss block
   */
  public static Loss softmaxCrossEntropy() {
    return create("SoftmaxCrossEntropyLoss", null);
  }

  /**
   * L2Loss(): 0.5 * (pred - label)^2 averaged over all but the batch axis.
   *
   * @return the loss block
   */
  public static Loss l2() {
    return create("L2Loss", null);
  }

  /**
   * L1Loss(): |pred - label| averaged over all but the batch axis.
   *
   * @return the loss block
   */
  public static Loss l1() {
    return create("L1Loss", null);
  }
}
