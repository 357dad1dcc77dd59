package org.mxnetcpp;

/**
 * A device: MXNet's dev_type numbering (1 cpu, 2 gpu, 3 cpu_pinned) and an id. Immutable.
 *
 * @param type 1 (cpu), 2 (gpu) or 3 (cpu_pinned); 0 with id 0 means "the default device"
 * @param id the device index, {@code >= 0}
 */
public record Device(int type, int id) {
  /** MXNet's dev_type of the CPU. */
  public static final int CPU = 1;
  /** MXNet's dev_type of CUDA GPUs. */
  public static final int GPU = 2;
  /** MXNet's dev_type of pinned host memory. */
  public static final int CPU_PINNED = 3;

  /**
   * cpu(0).
   *
   * @return the CPU device
   */
  public static Device cpu() {
    return new Device(CPU, 0);
  }

  /**
   * gpu(id); arrays on it need a build with GPU support (else MXNetException UNAVAILABLE).
   *
   * @param id the GPU index
   * @return the device
   */
  public static Device gpu(int id) {
    return new Device(GPU, id);
  }

  static Device of(int[] typeId) {
    return new Device(typeId[0], typeId[1]);
  }

  @Override
  public String toString() {
    String n = type == CPU ? "cpu" : type == GPU ? "gpu" : type == CPU_PINNED ? "cpu_pinned" : "dev" + type;
    return n + "(" + id + ")";
  }
}
