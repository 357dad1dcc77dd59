package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.file.Path;

/**
 * A dataset (gluon.data.Dataset): samples are arrays ("fields"), e.g. {image, label}. Immutable.
 *
 * <p>Ownership: see {@link NativeResource}.
 *
 * <p>Threads: any number of threads may read one dataset at once.
 */
public final class Dataset extends NativeResource {
  /** Where Debian's dataset-fashion-mnist package installs the files. */
  public static final Path DEBIAN_FASHION_MNIST = Path.of("/usr/share/datasets/fashion-mnist");

  private Dataset(long handle) {
    super(handle, Kind.DATASET, true);
  }

  /**
   * Fashion-MNIST from {@code root} ({train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]). Samples:
   * {(28, 28, 1) uint8 image (HWC), () int32 label}. Nothing is downloaded.
   *
   * @param root the directory (null: $MXNET_HOME/datasets/fashion-mnist; see
   *     {@link #DEBIAN_FASHION_MNIST})
   * @param train the 60,000 training images (true) or the 10,000 test images
   * @return the dataset
   * @throws MXNetException NOT_FOUND naming a missing file; DATA_LOSS for truncated files
   */
  public static Dataset fashionMnist(Path root, boolean train) {
    return new Dataset(Native.datasetVision(root == null ? null : root.toString(), train, true));
  }

  /**
   * MNIST from {@code root}, as {@link #fashionMnist}.
   *
   * @param root the directory (null: $MXNET_HOME/datasets/mnist)
   * @param train the training images (true) or the test images
   * @return the dataset
   * @throws MXNetException as {@link #fashionMnist}
   */
  public static Dataset mnist(Path root, boolean train) {
    return new Dataset(Native.datasetVision(root == null ? null : root.toString(), train, false));
  }

  /**
   * ArrayDataset: sample i is {columns[0][i], columns[1][i], ...}; the arrays are shared.
   *
   * @param columns arrays with the same first dim
   * @return the dataset
   * @throws MXNetException INVALID_ARGUMENT for no columns, 0-d arrays or different lengths
   */
  public static Dataset fromArrays(NDArray... columns) {
    try {
      return new Dataset(Native.datasetFromArrays(NDArray.handles(columns)));
    } finally {
      Reference.reachabilityFence(columns);
    }
  }

  /**
   * The number of samples.
   *
   * @return len(dataset)
   */
  public long size() {
    try {
      return Native.datasetSize(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sample {@code index}: its fields, new arrays.
   *
   * @param index 0 &lt;= index &lt; size()
   * @return the fields
   * @throws MXNetException OUT_OF_RANGE for a bad index; a transform's error
   */
  public NDArray[] get(long index) {
    try {
      return NDArray.of(Native.datasetGet(handle(), index));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The first min(count, size) samples (take).
   *
   * @param count how many (&lt; 0: all)
   * @return the dataset
   */
  public Dataset take(long count) {
    return derive(0, count, 0, null);
  }

  /**
   * Contiguous shard {@code index} of {@code numShards} (shard).
   *
   * @param numShards the number of shards (&gt;= 1)
   * @param index the shard (0 &lt;= index &lt; numShards)
   * @return the dataset
   * @throws MXNetException INVALID_ARGUMENT for bad numbers
   */
  public Dataset shard(long numShards, long index) {
    return derive(1, numShards, index, null);
  }

  /**
   * transform_first: the first field of each sample goes through {@code transform}.
   *
   * @param transform the transform
   * @param lazy apply on every read (true) or to every sample now (false)
   * @return the dataset
   * @throws MXNetException the transform's error when not lazy
   */
  public Dataset transformFirst(Transform transform, boolean lazy) {
    return derive(lazy ? 2 : 3, 0, 0, transform);
  }

  private Dataset derive(int how, long a, long b, Transform t) {
    try {
      long ta = t == null ? a : t.handle();
      return new Dataset(Native.datasetDerive(handle(), how, ta, b));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(t);
    }
  }
}
