package org.mxnetcpp;

/**
 * An error from libmxc's C ABI or from this binding's own checks (unchecked).
 *
 * <p>{@link #code()} is the C ABI's status code (the numbering of absl::StatusCode / google.rpc.Code:
 * 3 INVALID_ARGUMENT, 5 NOT_FOUND, 9 FAILED_PRECONDITION, 11 OUT_OF_RANGE, 12 UNIMPLEMENTED,
 * 15 DATA_LOSS, ...); {@link #getMessage()} is the C ABI's message, which names the function, what
 * was wrong and where (e.g. {@code "mxc_invoke: Convolution: expected 3 inputs ..."}). Errors the
 * binding detects before calling the C ABI (a closed handle, a buffer of the wrong element type)
 * use the same codes and a message starting with the Java class and method.
 */
public class MXNetException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** INVALID_ARGUMENT (3): a bad value, a closed or foreign handle, a wrong dtype buffer. */
  public static final int INVALID_ARGUMENT = 3;
  /** NOT_FOUND (5): a missing file, an unknown operator. */
  public static final int NOT_FOUND = 5;
  /** RESOURCE_EXHAUSTED (8): out of memory, or a file asking for more than a set bound. */
  public static final int RESOURCE_EXHAUSTED = 8;
  /** FAILED_PRECONDITION (9): e.g. the gradient of an array that is no variable. */
  public static final int FAILED_PRECONDITION = 9;
  /** OUT_OF_RANGE (11): an index or interval outside the valid range. */
  public static final int OUT_OF_RANGE = 11;
  /** UNIMPLEMENTED (12): a feature this build lacks. */
  public static final int UNIMPLEMENTED = 12;
  /** DATA_LOSS (15): a corrupt or truncated file. */
  public static final int DATA_LOSS = 15;

  private final int code;

  /**
   * An exception with a status code and message.
   *
   * @param code the C ABI status code (0 is not an error; any other value of mxc_code)
   * @param message the message (UTF-8 text from the C ABI or the binding)
   */
  public MXNetException(int code, String message) {
    super(message);
    this.code = code;
  }

  /** Called by the JNI glue with a failed status. */
  static MXNetException fromNative(int code, String message) {
    return new MXNetException(code, message);
  }

  /**
   * The C ABI status code.
   *
   * @return the code, e.g. {@link #INVALID_ARGUMENT}
   */
  public int code() {
    return code;
  }

  /**
   * The canonical name of {@link #code()} ("INVALID_ARGUMENT", ...), from mxc_code_name.
   *
   * @return the code's name; "UNKNOWN" for values outside mxc_code
   */
  public String codeName() {
    return Native.codeName(code);
  }

  @Override
  public String toString() {
    return "MXNetException[" + codeName() + "]: " + getMessage();
  }
}
