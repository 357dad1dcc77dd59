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
