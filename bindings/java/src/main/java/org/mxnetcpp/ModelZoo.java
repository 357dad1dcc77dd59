package org.mxnetcpp;

import java.nio.file.Path;
import java.util.List;

/**
 * The Gluon model zoo (mxnet.gluon.model_zoo.vision): networks by MXNet's names (resnet18_v1,
 * mobilenet0.25, vgg16, ...). Nothing is downloaded: pretrained weights come from a local model
 * store directory. Threads: any.
 */
public final class ModelZoo {
  private ModelZoo() {}

  /**
   * Options of {@link #get(String, ModelOptions)}.
   *
   * @param classes outputs of the last layer (0: 1000)
   * @param pretrained load MXNet's published weights from the model store {@code root}
   * @param root the model store directory (null: $MXNET_HOME/models)
   * @param device where pretrained weights go (null: cpu(0))
   */
  public record ModelOptions(long classes, boolean pretrained, Path root, Device device) {
    /** 1000 classes, not pretrained. */
    public static final ModelOptions DEFAULT = new ModelOptions(0, false, null, null);

    /**
     * Options with {@code classes} outputs, not pretrained.
     *
     * @param classes outputs of the last layer
     * @return the options
     */
    public static ModelOptions classes(long classes) {
      return new ModelOptions(classes, false, null, null);
    }
  }

  /**
   * The names {@link #get} accepts, sorted.
   *
   * @return the names
   */
  public static List<String> list() {
    return List.of(Native.modelZooList());
  }

  /**
   * get_model(name): the network with 1000 classes, parameters uninitialized (call
   * {@link Block#initialize}).
   *
   * @param name the model name (case-insensitive)
   * @return the block (a HybridBlock)
   * @throws MXNetException INVALID_ARGUMENT for an unknown name (listing the valid ones)
   */
  public static Block get(String name) {
    return get(name, ModelOptions.DEFAULT);
  }

  /**
   * get_model(name, classes=..., pretrained=..., root=...).
   *
   * @param name the model name (case-insensitive)
   * @param options the options (null: defaults)
   * @return the block; initialized only when pretrained
   * @throws MXNetException INVALID_ARGUMENT for an unknown name or negative classes; NOT_FOUND
   *     for missing pretrained weights
   */
  public static Block get(String name, ModelOptions options) {
    ModelOptions o = options == null ? ModelOptions.DEFAULT : options;
    Device d = o.device() == null ? new Device(0, 0) : o.device();
    return new Block(
        Native.modelZooGet(
            name,
            o.classes(),
            o.pretrained(),
            o.root() == null ? null : o.root().toString(),
            d.type(),
            d.id()));
  }
}
