package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mxnetcpp.TestSupport.assertMx;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** S7: misuse ends in an MXNetException, never a crash. */
class S7MisuseTest {
  @Test
  void useAfterClose() {
    NDArray x = NDArray.create(new float[] {1, 2});
    x.close();
    assertTrue(x.isClosed());
    assertMx(MXNetException.INVALID_ARGUMENT, "NDArray used after close", x::toFloatArray);
    assertMx(MXNetException.INVALID_ARGUMENT, "used after close", () -> Ops.relu(x));
    assertMx(MXNetException.INVALID_ARGUMENT, "used after close", () -> x.reshape(2));
    Symbol s = Symbol.variable("a");
    s.close();
    assertMx(MXNetException.INVALID_ARGUMENT, "Symbol used after close", s::toJson);
    Ctx c = Ctx.create();
    c.close();
    assertMx(MXNetException.INVALID_ARGUMENT, "Ctx used after close", c::device);
    assertMx(
        MXNetException.INVALID_ARGUMENT,
        "used after close",
        () -> Op.get("relu").invoke(c, new NDArray[] {NDArray.zeros(1)}, null));
    assertMx(MXNetException.INVALID_ARGUMENT, "used after close", c::use);
  }

  @Test
  void doubleCloseIsHarmless() {
    long bad = MXNet.handleStats().badFrees();
    NDArray x = NDArray.create(new float[] {1});
    x.close();
    x.close();
    Symbol s = Symbol.variable("v");
    s.close();
    s.close();
    NDScope scope = new NDScope();
    NDArray y = NDArray.zeros(2);
    y.close();
    scope.close();
    scope.close();
    assertTrue(y.isClosed());
    assertEquals(bad, MXNet.handleStats().badFrees(), "no handle was freed twice");
  }

  @Test
  void wrongDtypeBuffers() {
    try (NDScope scope = new NDScope()) {
      NDArray i = NDArray.create(new int[] {1, 2});
      assertMx(MXNetException.INVALID_ARGUMENT, "float[] cannot carry a int32", i::toFloatArray);
      assertMx(MXNetException.INVALID_ARGUMENT, "cannot carry", () -> i.set(new float[] {1, 2}));
      assertMx(
          MXNetException.INVALID_ARGUMENT,
          "cannot carry a int32",
          () -> i.copyTo(FloatBuffer.allocate(2)));
      assertMx(
          MXNetException.INVALID_ARGUMENT,
          "cannot carry a int32",
          () -> NDArray.create(null, DType.INT32, new float[] {1}, 1));
      assertMx(
          MXNetException.INVALID_ARGUMENT,
          "no primitive array",
          () -> NDArray.create(null, DType.FLOAT32, new Float[] {1f}, 1));
      NDArray f = NDArray.create(new float[] {1, 2, 3});
      assertMx(MXNetException.INVALID_ARGUMENT, "cannot carry", f::toIntArray);
      assertMx(MXNetException.INVALID_ARGUMENT, "cannot carry", () -> f.copyTo(IntBuffer.allocate(3)));
      // Sizes: the C ABI names both sizes.
      assertMx(
          MXNetException.INVALID_ARGUMENT, "", () -> NDArray.create(new float[] {1, 2, 3}, 2, 2));
      assertMx(MXNetException.INVALID_ARGUMENT, "", () -> f.set(new float[] {1, 2}));
      assertMx(MXNetException.INVALID_ARGUMENT, "remaining", () -> f.copyTo(FloatBuffer.allocate(2)));
      assertMx(
          MXNetException.INVALID_ARGUMENT,
          "read-only",
          () -> f.copyTo(FloatBuffer.allocate(3).asReadOnlyBuffer()));
      assertMx(
          MXNetException.INVALID_ARGUMENT,
          "not a direct",
          () -> NDArray.wrap(ByteBuffer.allocate(4), DType.FLOAT32, 1));
      assertMx(MXNetException.INVALID_ARGUMENT, "", () -> NDArray.zeros(-1, 2));
    }
  }

  @Test
  void missingFiles(@TempDir Path dir) {
    Path missing = dir.resolve("missing.params");
    assertMx(MXNetException.NOT_FOUND, "missing.params", () -> NDArray.load(missing));
    assertMx(
        MXNetException.NOT_FOUND, "missing.json", () -> Symbol.load(dir.resolve("missing.json")));
    assertThrows(
        MXNetException.class,
        () -> NDArray.save(dir.resolve("no/such/dir/x.params"), List.of(NDArray.zeros(1)), null));
  }

  /**
   * maxDensifiedBytes bounds what one sparse record may densify to. sparse_v2.nd (written by MXNet
   * 1.9.1) holds a (3, 4) float32 csr (48 dense bytes) and a (4, 2) row_sparse (32 bytes).
   */
  @Test
  void sparseRecordsDensifyWithinTheCap() {
    Path file = Path.of(System.getProperty("mxc.io.testdata", "../../ndarray/testdata/mx"))
        .resolve("sparse_v2.nd");
    assertMx(
        MXNetException.RESOURCE_EXHAUSTED,
        "would densify to 48 bytes",
        () -> NDArray.loadFile(file, new NDArray.LoadOptions(null, false, false, 47)));
    NDArray.Loaded l = NDArray.loadFile(file, new NDArray.LoadOptions(null, false, false, 48));
    assertEquals(List.of("csr", "rsp"), l.names());
    assertArrayEquals(
        new float[] {1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0}, l.arrays().get(0).toFloatArray());
    assertArrayEquals(new float[] {0, 0, 1, -1, 0, 0, 0.5f, 2}, l.arrays().get(1).toFloatArray());
    assertMx(
        MXNetException.INVALID_ARGUMENT,
        "maxDensifiedBytes -1 is negative",
        () -> new NDArray.LoadOptions(null, false, false, -1));
  }

  @Test
  void corruptFiles(@TempDir Path dir) throws Exception {
    byte[] good = NDArray.saveToBytes(List.of(NDArray.create(new float[] {1, 2, 3, 4})), null, null);
    byte[] cut = java.util.Arrays.copyOf(good, good.length - 5);
    assertMx(MXNetException.DATA_LOSS, "", () -> NDArray.loadBytes(cut, null));
    Path junk = dir.resolve("junk.params");
    Files.writeString(junk, "this is no params file");
    assertThrows(MXNetException.class, () -> NDArray.load(junk));
    assertMx(
        MXNetException.INVALID_ARGUMENT,
        "holds a list",
        () -> NDArray.loadBytes(good, null).toMap());
  }

  @Test
  void badJson() {
    MXNetException e = assertThrows(MXNetException.class, () -> Symbol.fromJson("{not json"));
    assertTrue(
        e.code() == MXNetException.INVALID_ARGUMENT || e.code() == MXNetException.DATA_LOSS,
        e.toString());
    assertTrue(e.getMessage().startsWith("mxc_symbol_from_json"), e.getMessage());
    assertThrows(MXNetException.class, () -> Symbol.fromJson("{\"nodes\": 3}"));
    assertThrows(MXNetException.class, () -> Symbol.fromJson(""));
  }

  @Test
  void unknownOperator() {
    assertMx(MXNetException.NOT_FOUND, "unknown operator 'no_such_op'", () -> Op.get("no_such_op"));
    assertMx(
        MXNetException.NOT_FOUND,
        "unknown operator",
        () -> Op.invoke("no_such_op", null, NDArray.zeros(1)));
    // A lone surrogate cannot become UTF-8: the C ABI rejects the bytes, nothing crashes.
    assertThrows(MXNetException.class, () -> Op.get("relu\uD800"));
    assertThrows(MXNetException.class, () -> Symbol.variable("x\uDC00"));
  }

  @Test
  void badInputsAndAttributes() {
    try (NDScope scope = new NDScope()) {
      NDArray x = NDArray.zeros(2, 2);
      assertMx(MXNetException.INVALID_ARGUMENT, "null", () -> Op.get("relu").invoke(x, null));
      assertMx(MXNetException.INVALID_ARGUMENT, "", () -> Op.invoke("relu", null));
      assertThrows(
          MXNetException.class,
          () -> Op.invoke("_plus_scalar", Map.of("scalar", "not a number"), x));
      assertThrows(MXNetException.class, () -> Op.invoke("relu", Map.of("no_such_attr", 1), x));
      assertThrows(MXNetException.class, () -> x.slice(5, 9));
      assertThrows(MXNetException.class, () -> Autograd.backward(x)); // no recorded history
      assertThrows(MXNetException.class, () -> NDArray.zeros(new Device(99, 0), DType.FLOAT32, 1));
    }
  }

  @Test
  void nullArgumentsAreErrors() {
    assertThrows(MXNetException.class, () -> Symbol.fromJson(null));
    assertThrows(MXNetException.class, () -> Symbol.variable(null));
    assertThrows(MXNetException.class, () -> NDArray.loadBytes(null, null));
    assertThrows(RuntimeException.class, () -> Op.get(null));
    assertThrows(RuntimeException.class, () -> NDArray.create((float[]) null));
    try (NDArray x = NDArray.zeros(2)) {
      assertThrows(RuntimeException.class, () -> x.copyTo((java.nio.Buffer) null));
      assertThrows(MXNetException.class, () -> x.set(null));
      assertThrows(MXNetException.class, () -> Op.invoke("_plus_scalar", java.util.Collections.singletonMap("scalar", null), x));
    }
  }

  @Test
  void closedCurrentCtxIsReplaced() {
    Ctx.current().close();
    try (NDArray y = Ops.relu(NDArray.create(new float[] {-1, 1}))) {
      assertArrayEquals(new float[] {0, 1}, y.toFloatArray());
    }
    try (NDScope scope = new NDScope()) {
      Ctx c = Ctx.create();
      c.use(); // never restored: the scope closes c, the thread falls back to a fresh ctx
    }
    assertArrayEquals(new float[] {2}, NDArray.create(new float[] {1}).add(1).toFloatArray());
  }

  @Test
  void closeRacingWithUseNeverCrashes() throws Exception {
    for (int round = 0; round < 20; round++) {
      NDArray x = NDArray.create(new float[] {1, 2, 3});
      AtomicInteger ok = new AtomicInteger();
      AtomicInteger errors = new AtomicInteger();
      Thread user =
          new Thread(
              () -> {
                for (int i = 0; i < 200; i++) {
                  try (NDArray y = Ops.relu(x)) {
                    ok.incrementAndGet();
                  } catch (MXNetException e) {
                    errors.incrementAndGet();
                  }
                }
              });
      user.start();
      Thread.sleep(round % 3);
      x.close();
      user.join();
      assertEquals(200, ok.get() + errors.get());
    }
  }

  @Test
  void cleanerFreesUnclosedArrays() throws Exception {
    MXNet.waitAll();
    long before = MXNet.handleStats().live();
    for (int i = 0; i < 500; i++) {
      NDArray.create(new float[] {i}); // never closed, no scope: the Cleaner's job
    }
    assertTrue(MXNet.handleStats().live() >= before + 400);
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (MXNet.handleStats().live() > before + 50 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertTrue(
        MXNet.handleStats().live() <= before + 50,
        "live handles " + MXNet.handleStats().live() + " vs " + before + " before");
  }

  @Test
  void closedScopeResourcesAreClosed() {
    NDArray x;
    try (NDScope scope = new NDScope()) {
      x = NDArray.create(new float[] {1});
      assertArrayEquals(new float[] {1}, x.toFloatArray());
    }
    assertTrue(x.isClosed());
    assertMx(MXNetException.INVALID_ARGUMENT, "used after close", x::toFloatArray);
  }
}
