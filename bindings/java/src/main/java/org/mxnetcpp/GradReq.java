package org.mxnetcpp;

/** Gradient requests (MXNet's grad_req): what backward does with a variable's gradient buffer. */
public enum GradReq {
  /** No gradient ("null"). */
  NULL(0),
  /** Overwrite the buffer ("write", the default). */
  WRITE(1),
  /** Add to the buffer ("add"). */
  ADD(2);

  private final int code;

  GradReq(int code) {
    this.code = code;
  }

  /**
   * The C ABI value (MXC_GRAD_*).
   *
   * @return 0, 1 or 2
   */
  public int code() {
    return code;
  }
}
