package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * S8: the binding's added cost per operator call over calling the C ABI directly, at most 1 µs
 * (median). Both loops run on the same thread of the same process on the same (10,) float32
 * input and ctx: the direct loop is mxc_invoke + mxc_ndarray_free in C (Native.benchInvokeC); the
 * binding loop is the typed method (or by-name call) plus close() of the result. Each round times
 * ROUNDS_N calls of each, alternating; the medians over ROUNDS are compared. The assertion uses
 * the thread's CPU time (robust on this shared, loaded machine); wall time is printed too.
 */
class S8OverheadTest {
  private static final int ROUNDS = 21;
  private static final int ROUNDS_N = 20_000;
  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  interface Loop {
    void run(int n);
  }

  private record Times(double wallNs, double cpuNs) {}

  private static Times time(Loop loop) {
    long c0 = MX.getCurrentThreadCpuTime();
    long w0 = System.nanoTime();
    loop.run(ROUNDS_N);
    long w1 = System.nanoTime();
    long c1 = MX.getCurrentThreadCpuTime();
    return new Times((w1 - w0) / (double) ROUNDS_N, (c1 - c0) / (double) ROUNDS_N);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** The CPU model (/proc/cpuinfo's "model name") and its widest x86 vector ISA. */
  static String cpuName() {
    String model = System.getProperty("os.arch");
    String isa = "";
    try {
      for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (l.startsWith("model name")) {
          model = l.substring(l.indexOf(':') + 1).trim();
        } else if (l.startsWith("flags") && isa.isEmpty()) {
          String f = " " + l.substring(l.indexOf(':') + 1) + " ";
          isa = f.contains(" avx512f ") ? " AVX-512" : f.contains(" avx2 ") ? " AVX2" : "";
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return model + isa;
  }

  /** Measures and returns {binding wall, direct wall, binding cpu, direct cpu} medians (ns). */
  private static double[] compare(String label, Loop direct, Loop binding) {
    for (int i = 0; i < 5; i++) { // warm-up: JIT, caches
      direct.run(ROUNDS_N);
      binding.run(ROUNDS_N);
    }
    double[] dw = new double[ROUNDS];
    double[] dc = new double[ROUNDS];
    double[] bw = new double[ROUNDS];
    double[] bc = new double[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      Times d = time(direct);
      Times b = time(binding);
      dw[r] = d.wallNs();
      dc[r] = d.cpuNs();
      bw[r] = b.wallNs();
      bc[r] = b.cpuNs();
    }
    double[] m = {median(bw), median(dw), median(bc), median(dc)};
    System.out.printf(
        "S8 %-28s direct-C %7.0f ns wall %7.0f ns cpu | binding %7.0f ns wall %7.0f ns cpu |"
            + " added %5.0f ns wall %5.0f ns cpu  [%s, %d CPUs, load %s]%n",
        label, m[1], m[3], m[0], m[2], m[0] - m[1], m[2] - m[3], cpuName(),
        Runtime.getRuntime().availableProcessors(), loadAverage());
    return m;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (Exception e) {
      return "?";
    }
  }

  @Test
  void typedReluAddsAtMostOneMicrosecond() {
    Ctx ctx = Ctx.current();
    try (NDArray x = NDArray.create(new float[] {-5, -4, -3, -2, -1, 0, 1, 2, 3, 4})) {
      long op = Op.get("relu").handle;
      long in = x.handle();
      long c = ctx.handle();
      double[] m =
          compare(
              "relu (10,) typed",
              n -> Native.benchInvokeC(c, op, in, null, null, n),
              n -> {
                for (int i = 0; i < n; i++) {
                  Ops.relu(x).close();
                }
              });
      assertTrue(m[2] - m[3] <= 1000, "added CPU ns per call " + (m[2] - m[3]));
      Reference.reachabilityFence(x);
    }
  }

  @Test
  void plusScalarAndByNameAddAtMostOneMicrosecond() {
    Ctx ctx = Ctx.current();
    try (NDArray x = NDArray.create(new float[] {-5, -4, -3, -2, -1, 0, 1, 2, 3, 4})) {
      long plus = Op.get("_plus_scalar").handle;
      long relu = Op.get("relu").handle;
      long in = x.handle();
      long c = ctx.handle();
      double[] m =
          compare(
              "_plus_scalar (10,) method",
              n -> Native.benchInvokeC(c, plus, in, "scalar", "2.0", n),
              n -> {
                for (int i = 0; i < n; i++) {
                  x.add(2.0).close();
                }
              });
      assertTrue(m[2] - m[3] <= 1000, "added CPU ns per call " + (m[2] - m[3]));
      Op byName = Op.get("relu");
      Map<String, Object> none = Map.of();
      double[] m2 =
          compare(
              "relu (10,) by name",
              n -> Native.benchInvokeC(c, relu, in, null, null, n),
              n -> {
                for (int i = 0; i < n; i++) {
                  byName.invoke(none, x)[0].close();
                }
              });
      assertTrue(m2[2] - m2[3] <= 1000, "added CPU ns per call " + (m2[2] - m2[3]));
      Reference.reachabilityFence(x);
    }
  }
}
