package org.mxnetcpp;

/**
 * Library-wide functions: versions, synchronisation and handle accounting. Threads: any.
 */
public final class MXNet {
  private MXNet() {}

  /**
   * The loaded libmxc's ABI version.
   *
   * @return (major &lt;&lt; 16) | minor
   */
  public static int abiVersion() {
    return Native.abiVersion();
  }

  /**
   * Waits for all pending work on every device (mx.nd.waitall).
   *
   * @throws MXNetException when pending work failed
   */
  public static void waitAll() {
    Native.waitAll();
  }

  /**
   * Handle accounting of the C ABI (for leak checks).
   *
   * @param live handles of every type alive now (NDArrays, Symbols, Ctxs, ...)
   * @param badFrees _free calls the C ABI ignored because the handle was invalid (double frees)
   */
  public record HandleStats(long live, long badFrees) {}

  /**
   * The C ABI's live-handle and bad-free counters (mxc_handle_stats_get).
   *
   * @return the counters
   */
  public static HandleStats handleStats() {
    long[] s = Native.handleStats();
    return new HandleStats(s[0], s[1]);
  }
}
