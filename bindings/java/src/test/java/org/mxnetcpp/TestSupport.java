package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.function.Executable;

/** Shared helpers of the binding's tests. */
final class TestSupport {
  private TestSupport() {}

  /** ../shared/data (system property mxc.shared.dir, else relative to bindings/java), or null. */
  static Path sharedData() {
    String p = System.getProperty("mxc.shared.dir");
    Path d = p != null && !p.isEmpty() ? Path.of(p) : Path.of("../../../shared");
    Path data = d.resolve("data");
    return Files.isDirectory(data) ? data : null;
  }

  /** The C++ CLI `mxnet` (system property mxc.cli, else the checkout's bazel-bin). */
  static Path cli() {
    String p = System.getProperty("mxc.cli");
    Path c = p != null && !p.isEmpty() ? Path.of(p) : Path.of("../../bazel-bin/tools/mxnet/mxnet");
    assertTrue(Files.isExecutable(c), "the C++ CLI " + c + " (./bazelw build //tools/mxnet:mxnet)");
    return c;
  }

  /** Runs the C++ CLI with {@code args}; returns its stdout+stderr and asserts exit status 0. */
  static String runCli(String... args) throws Exception {
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add(cli().toString());
    cmd.addAll(java.util.List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    int rc = p.waitFor();
    assertEquals(0, rc, () -> "mxnet " + String.join(" ", args) + ":\n" + out);
    return out;
  }

  /** A fresh temporary directory under java.io.tmpdir. */
  static Path tempDir(String prefix) throws java.io.IOException {
    return Files.createTempDirectory(prefix);
  }

  static void assertClose(float[] want, float[] got, float tol) {
    assertEquals(want.length, got.length, "length");
    for (int i = 0; i < want.length; i++) {
      float w = want[i];
      assertTrue(
          Math.abs(w - got[i]) <= tol * Math.max(1, Math.abs(w)),
          "element " + i + ": want " + w + ", got " + got[i]);
    }
  }

  /** Asserts an MXNetException with {@code code} whose message contains {@code fragment}. */
  static MXNetException assertMx(int code, String fragment, Executable e) {
    MXNetException ex = assertThrows(MXNetException.class, e);
    assertEquals(code, ex.code(), () -> "code of: " + ex.getMessage());
    assertTrue(
        ex.getMessage().contains(fragment),
        () -> "message '" + ex.getMessage() + "' lacks '" + fragment + "'");
    return ex;
  }
}
