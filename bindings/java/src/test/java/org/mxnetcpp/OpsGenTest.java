package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.mxnetcpp.tools.OpGen;

/** The checked-in Ops.java is what the generator makes from the loaded library's metadata. */
class OpsGenTest {
  @Test
  void regeneratingGivesTheCheckedInFile() throws Exception {
    String p = System.getProperty("mxc.ops.source", "src/main/java/org/mxnetcpp/Ops.java");
    String checkedIn = Files.readString(Path.of(p), StandardCharsets.UTF_8);
    String fresh = OpGen.generate();
    if (!fresh.equals(checkedIn)) {
      String[] a = checkedIn.split("\n", -1);
      String[] b = fresh.split("\n", -1);
      int i = 0;
      while (i < Math.min(a.length, b.length) && a[i].equals(b[i])) {
        i++;
      }
      String was = i < a.length ? a[i] : "<end>";
      String now = i < b.length ? b[i] : "<end>";
      assertEquals(was, now, "Ops.java is stale at line " + (i + 1)
          + "; regenerate with bindings/java/gen_ops.sh");
    }
    assertTrue(fresh.contains("public static NDArray relu(NDArray data)"));
  }

  @Test
  void identifiers() {
    assertEquals("numFilter", camelOf("num_filter"));
    assertEquals("var_", camelOf("var"));
  }

  private static String camelOf(String s) {
    try {
      var m = OpGen.class.getDeclaredMethod("camel", String.class);
      m.setAccessible(true);
      return (String) m.invoke(null, s);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
