package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mxnetcpp.TestSupport.assertClose;
import static org.mxnetcpp.TestSupport.assertMx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** S1: arrays from Java buffers, typed and by-name operators, results, errors; views; files. */
class S1ArraysOpsTest extends ScopedTest {
  @Test
  void floatArrayRoundTrip() {
    NDArray x = NDArray.create(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    assertArrayEquals(new long[] {2, 3}, x.shape());
    assertEquals(2, x.ndim());
    assertEquals(6, x.size());
    assertEquals(DType.FLOAT32, x.dtype());
    assertEquals(Device.cpu(), x.device());
    assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, x.toFloatArray());
    NDArray v = NDArray.create(new float[] {7, 8});
    assertArrayEquals(new long[] {2}, v.shape());
    NDArray s = NDArray.scalar(2.5f);
    assertArrayEquals(new long[0], s.shape());
    assertArrayEquals(new float[] {2.5f}, s.toFloatArray());
    NDArray z = NDArray.zeros(3, 0);
    assertEquals(0, z.size());
    assertEquals(0, z.toFloatArray().length);
  }

  @Test
  void floatBuffersHeapDirectAndByteOrder() {
    FloatBuffer heap = FloatBuffer.wrap(new float[] {9, 1, 2, 3, 4});
    heap.position(1);
    NDArray a = NDArray.create(heap, 2, 2);
    assertEquals(1, heap.position(), "position unchanged");
    assertArrayEquals(new float[] {1, 2, 3, 4}, a.toFloatArray());

    FloatBuffer direct =
        ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asFloatBuffer();
    direct.put(new float[] {5, 6, 7, 8}).flip();
    assertArrayEquals(new float[] {5, 6, 7, 8}, NDArray.create(direct).toFloatArray());

    FloatBuffer big = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN).asFloatBuffer();
    big.put(new float[] {-1, -2, -3, -4}).flip();
    NDArray b = NDArray.create(big, 4);
    assertArrayEquals(new float[] {-1, -2, -3, -4}, b.toFloatArray());

    // Out: into a direct buffer, a heap buffer at an offset, and a big-endian buffer.
    FloatBuffer out = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asFloatBuffer();
    a.copyTo(out);
    assertEquals(0, out.position());
    assertEquals(3f, out.get(2));
    FloatBuffer outHeap = FloatBuffer.allocate(6);
    outHeap.position(2);
    a.copyTo(outHeap);
    assertEquals(4f, outHeap.get(5));
    assertEquals(0f, outHeap.get(1));
    FloatBuffer outBig = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN).asFloatBuffer();
    a.copyTo(outBig);
    assertEquals(2f, outBig.get(1));

    // In: overwrite from a buffer.
    a.copyFrom(FloatBuffer.wrap(new float[] {0, 0, 0, 1}));
    assertArrayEquals(new float[] {0, 0, 0, 1}, a.toFloatArray());
  }

  @Test
  void otherDtypes() {
    assertArrayEquals(new double[] {1.5, -2}, NDArray.create(new double[] {1.5, -2}).toDoubleArray());
    NDArray i = NDArray.create(new int[] {1, -2, 3});
    assertEquals(DType.INT32, i.dtype());
    assertArrayEquals(new int[] {1, -2, 3}, i.toIntArray());
    NDArray l = NDArray.create(new long[] {1L << 40, -5}, 2);
    assertEquals(DType.INT64, l.dtype());
    assertArrayEquals(new long[] {1L << 40, -5}, l.toLongArray());
    NDArray b = NDArray.create(new boolean[] {true, false, true});
    assertEquals(DType.BOOL, b.dtype());
    assertArrayEquals(new boolean[] {true, false, true}, b.toBooleanArray());
    NDArray u8 = NDArray.create(null, DType.UINT8, new byte[] {(byte) 255, 7}, 2);
    assertArrayEquals(new byte[] {(byte) 255, 7}, u8.toByteArray());
    // The dtype is really uint8 (255, not -1) and float16 bits are decoded by the library.
    Map<String, Object> toF32 = Map.of("dtype", DType.FLOAT32);
    assertArrayEquals(
        new float[] {255, 7}, Op.invoke("Cast", toF32, u8)[0].toFloatArray());
    NDArray h = NDArray.create(null, DType.FLOAT16, new short[] {0x3C00, (short) 0xC000}, 2);
    assertArrayEquals(new short[] {0x3C00, (short) 0xC000}, h.toShortArray());
    assertArrayEquals(new float[] {1, -2}, Op.invoke("Cast", toF32, h)[0].toFloatArray());
    // Raw bytes through a ByteBuffer, any dtype.
    ByteBuffer raw = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    raw.putInt(42).putInt(-1).flip();
    NDArray fromRaw = NDArray.create(null, DType.INT32, raw, 2);
    assertArrayEquals(new int[] {42, -1}, fromRaw.toIntArray());
    IntBuffer ib = IntBuffer.allocate(2);
    fromRaw.copyTo(ib);
    assertEquals(-1, ib.get(1));
    NDArray z = NDArray.zeros(null, DType.INT64, 2, 2);
    assertArrayEquals(new long[4], z.toLongArray());
  }

  @Test
  void typedOperators() {
    NDArray x = NDArray.create(new float[] {-1, 2, -3, 4}, 2, 2);
    assertArrayEquals(new float[] {0, 2, 0, 4}, Ops.relu(x).toFloatArray());
    // dot: [[-1,2],[-3,4]] . [[-1,2],[-3,4]] = [[-5,6],[-9,10]]
    assertArrayEquals(new float[] {-5, 6, -9, 10}, Ops.dot(x, x).toFloatArray());
    // With an optional attribute: x . x^T = [[5,-5],[-5,25]]... computed by hand:
    // row0.row0 = 1+4 = 5, row0.row1 = 3+8 = 11, row1.row1 = 9+16 = 25
    NDArray dt = new Ops.dotParam(x, x).transposeB(true).call();
    assertArrayEquals(new float[] {5, 11, 11, 25}, dt.toFloatArray());
    NDArray s = Ops.sum(x);
    assertArrayEquals(new float[] {2}, s.toFloatArray());
    assertArrayEquals(new float[] {-4, 6}, new Ops.sumParam(x).axis(0).call().toFloatArray());
  }

  @Test
  void typedConvolutionAndFullyConnected() {
    // 1x1x3x3 input 0..8, a 2x2 kernel of ones, bias 0.5: each output is its window's sum + 0.5.
    float[] in = new float[9];
    for (int i = 0; i < 9; i++) {
      in[i] = i;
    }
    NDArray data = NDArray.create(in, 1, 1, 3, 3);
    NDArray w = NDArray.create(new float[] {1, 1, 1, 1}, 1, 1, 2, 2);
    NDArray b = NDArray.create(new float[] {0.5f}, 1);
    NDArray y = Ops.Convolution(data, w, b, new long[] {2, 2}, 1);
    assertArrayEquals(new long[] {1, 1, 2, 2}, y.shape());
    assertArrayEquals(new float[] {8.5f, 12.5f, 20.5f, 24.5f}, y.toFloatArray());
    // no_bias through the builder, bias omitted (null); stride 2 leaves one window.
    NDArray y2 =
        new Ops.ConvolutionParam(data, w, null, new long[] {2, 2}, 1)
            .noBias(true)
            .stride(2, 2)
            .call();
    assertArrayEquals(new float[] {8}, y2.toFloatArray());
    // FullyConnected: [1,2] . W^T + b with W = [[1,0],[1,1],[0,2]], b = [0,1,2] -> [1, 4, 6]
    NDArray fc =
        Ops.FullyConnected(
            NDArray.create(new float[] {1, 2}, 1, 2),
            NDArray.create(new float[] {1, 0, 1, 1, 0, 2}, 3, 2),
            NDArray.create(new float[] {0, 1, 2}),
            3);
    assertArrayEquals(new float[] {1, 4, 6}, fc.toFloatArray());
  }

  @Test
  void byNameCallsAndMetadata() {
    NDArray a = NDArray.create(new float[] {1, 2, 3});
    NDArray b = NDArray.create(new float[] {10, 20, 30});
    assertArrayEquals(new float[] {11, 22, 33}, Op.invoke("elemwise_add", null, a, b)[0].toFloatArray());
    Map<String, Object> attrs = new LinkedHashMap<>();
    attrs.put("scalar", 0.5);
    assertArrayEquals(
        new float[] {1.5f, 2.5f, 3.5f}, Op.get("_plus_scalar").invoke(attrs, a)[0].toFloatArray());
    assertArrayEquals(new float[] {11, 22, 33}, a.add(b).toFloatArray());
    assertArrayEquals(new float[] {2, 4, 6}, a.mul(2).toFloatArray());
    assertArrayEquals(new float[] {-9, -18, -27}, a.sub(b).toFloatArray());
    assertArrayEquals(new float[] {10, 10, 10}, b.div(a).toFloatArray());

    Op.Info relu = Op.get("relu").info();
    assertEquals("relu", relu.name());
    assertEquals(List.of("data"), relu.inputNames());
    assertEquals(1, relu.numOutputs());
    assertTrue(relu.differentiable());
    Op.Info conv = Op.get("Convolution").info();
    Op.Attr kernel = conv.attrs().get(0);
    assertEquals("kernel", kernel.name());
    assertEquals(Op.AttrKind.SHAPE, kernel.kind());
    assertTrue(kernel.required());
    assertEquals(
        List.of("data", "weight"),
        Op.get("Convolution").inputNames(Map.of("kernel", new long[] {3, 3}, "num_filter", 1,
            "no_bias", true)));
    assertArrayEquals(
        new long[] {3, 1},
        Op.get("Convolution").numIo(Map.of("kernel", new long[] {3, 3}, "num_filter", 1)));
    assertTrue(Op.names().contains("Convolution"));
    assertFalse(Op.names().contains("no_such_op"));
  }

  @Test
  void badCallsCarryTheCapiMessage() {
    NDArray a = NDArray.create(new float[] {1, 2, 3}, 3, 1);
    NDArray b = NDArray.create(new float[] {1, 2}, 2, 1);
    MXNetException e = assertMx(MXNetException.INVALID_ARGUMENT, "dot", () -> Ops.dot(a, b));
    assertTrue(e.getMessage().startsWith("mxc_invoke"), e.getMessage());
    assertMx(
        MXNetException.INVALID_ARGUMENT,
        "Convolution",
        () -> Op.invoke("Convolution", Map.of("kernel", new long[] {2, 2}, "num_filter", 1), a));
    assertMx(
        MXNetException.INVALID_ARGUMENT,
        "act_type",
        () -> Ops.Activation(a, "no_such_activation"));
    assertEquals("INVALID_ARGUMENT", e.codeName());
  }

  @Test
  void viewsShareMemory() {
    NDArray x = NDArray.create(new float[] {0, 1, 2, 3, 4, 5}, 2, 3);
    NDArray r = x.reshape(3, -1);
    assertArrayEquals(new long[] {3, 2}, r.shape());
    r.set(new float[] {9, 9, 9, 9, 9, 9});
    assertArrayEquals(new float[] {9, 9, 9, 9, 9, 9}, x.toFloatArray());
    NDArray y = NDArray.create(new float[] {0, 1, 2, 3, 4, 5}, 3, 2);
    NDArray rows = y.slice(1, 3);
    assertArrayEquals(new long[] {2, 2}, rows.shape());
    assertArrayEquals(new float[] {2, 3, 4, 5}, rows.toFloatArray());
    assertArrayEquals(new float[] {4, 5}, y.slice(-1, 3).toFloatArray());
    rows.set(new float[] {7, 7, 7, 7});
    assertArrayEquals(new float[] {0, 1, 7, 7, 7, 7}, y.toFloatArray());
    NDArray c = y.copy();
    c.set(new float[6]);
    assertEquals(7f, y.toFloatArray()[5], "a copy does not share memory");
    // Closing the source leaves the view valid.
    y.close();
    assertArrayEquals(new float[] {7, 7, 7, 7}, rows.toFloatArray());
    assertMx(MXNetException.INVALID_ARGUMENT, "", () -> x.reshape(4, 4));
  }

  @Test
  void wrapIsZeroCopy() {
    ByteBuffer mem = ByteBuffer.allocateDirect(12).order(ByteOrder.nativeOrder());
    mem.asFloatBuffer().put(new float[] {1, 2, 3});
    NDArray x = NDArray.wrap(mem, DType.FLOAT32, 3);
    mem.asFloatBuffer().put(1, 20f);
    assertArrayEquals(new float[] {1, 20, 3}, x.toFloatArray());
    x.set(new float[] {4, 5, 6});
    assertEquals(6f, mem.asFloatBuffer().get(2));
  }

  @Test
  void wrappedBufferLivesAsLongAsItsLastArray() throws Exception {
    ByteBuffer mem = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
    java.lang.ref.WeakReference<ByteBuffer> ref = new java.lang.ref.WeakReference<>(mem);
    NDArray x = NDArray.wrap(mem, DType.FLOAT32, 4);
    NDArray view = x.reshape(2, 2);
    mem = null;
    x.close();
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertTrue(ref.get() != null, "the view keeps the buffer reachable");
    view.set(new float[] {1, 2, 3, 4});
    assertEquals(4f, ref.get().asFloatBuffer().get(3));
    view.close(); // the library's deleter drops the JNI global reference
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (ref.get() != null && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }
    assertNull(ref.get(), "the buffer became collectable after the last array closed");
  }

  @Test
  void filesRoundTrip(@TempDir Path dir) throws Exception {
    NDArray a = NDArray.create(new float[] {1, 2, 3, 4}, 2, 2);
    NDArray b = NDArray.create(new int[] {7, 8, 9});
    Map<String, NDArray> dict = new LinkedHashMap<>();
    dict.put("arg:w", a);
    dict.put("aux:n", b);
    Path params = dir.resolve("x.params");
    NDArray.save(params, dict, null);
    Map<String, NDArray> back = NDArray.loadDict(params);
    assertEquals(List.of("arg:w", "aux:n"), List.copyOf(back.keySet()));
    assertArrayEquals(new float[] {1, 2, 3, 4}, back.get("arg:w").toFloatArray());
    assertArrayEquals(new long[] {2, 2}, back.get("arg:w").shape());
    assertArrayEquals(new int[] {7, 8, 9}, back.get("aux:n").toIntArray());

    Path nd = dir.resolve("x.nd");
    NDArray.save(nd, List.of(b, a), null);
    NDArray.Loaded l = NDArray.loadFile(nd, null);
    assertFalse(l.isDict());
    assertNull(l.names());
    assertArrayEquals(new int[] {7, 8, 9}, l.arrays().get(0).toIntArray());

    Path npz = dir.resolve("x.npz");
    NDArray.save(npz, dict, new NDArray.SaveOptions(NDArray.Format.NPZ, 0, true));
    assertArrayEquals(new float[] {1, 2, 3, 4}, NDArray.loadDict(npz).get("arg:w").toFloatArray());
    Path npy = dir.resolve("x.npy");
    NDArray.save(npy, List.of(a), new NDArray.SaveOptions(NDArray.Format.NPY, 0, true));
    assertArrayEquals(new float[] {1, 2, 3, 4}, NDArray.load(npy).get(0).toFloatArray());

    byte[] bytes = NDArray.saveToBytes(List.of(a), List.of("w"), null);
    Path one = dir.resolve("one.params");
    NDArray.save(one, Map.of("w", a), null);
    assertArrayEquals(Files.readAllBytes(one), bytes, "saveToBytes gives the file's bytes");
    assertArrayEquals(
        new float[] {1, 2, 3, 4},
        NDArray.loadBytes(bytes, null).toMap().get("w").toFloatArray());
    // V3 records load back the same.
    byte[] v3 =
        NDArray.saveToBytes(
            List.of(a), null, new NDArray.SaveOptions(NDArray.Format.NDARRAY_LIST, 3, false));
    assertArrayEquals(new float[] {1, 2, 3, 4}, NDArray.loadBytes(v3, null).arrays().get(0).toFloatArray());
  }

  @Test
  void loadsRealModelParameters() {
    Path data = TestSupport.sharedData();
    org.junit.jupiter.api.Assumptions.assumeTrue(data != null, "../shared/data is absent");
    Map<String, NDArray> p = NDArray.loadDict(data.resolve("models/cifar_resnet20_v1-0000.params"));
    assertTrue(p.size() > 50, "parameter count " + p.size());
    for (String k : p.keySet()) {
      assertTrue(k.startsWith("arg:") || k.startsWith("aux:"), k);
    }
    try (Symbol s = Symbol.load(data.resolve("models/cifar_resnet20_v1-symbol.json"))) {
      for (String arg : s.listArguments()) {
        if (!arg.equals("data")) {
          assertTrue(p.containsKey("arg:" + arg), "params lack arg:" + arg);
        }
      }
      for (String aux : s.listAuxiliaryStates()) {
        assertTrue(p.containsKey("aux:" + aux), "params lack aux:" + aux);
      }
    }
  }

  @Test
  void seededCtxRepeatsRandomOperators() {
    Map<String, Object> attrs = Map.of("shape", new long[] {2, 3});
    float[] first;
    float[] second;
    try (Ctx c = Ctx.create(null, 42L)) {
      first = Op.get("_random_uniform").invoke(c, new NDArray[0], attrs)[0].toFloatArray();
    }
    try (Ctx c = Ctx.create(null, 42L)) {
      second = Op.get("_random_uniform").invoke(c, new NDArray[0], attrs)[0].toFloatArray();
    }
    assertArrayEquals(first, second);
    for (float f : first) {
      assertTrue(f >= 0 && f < 1, "uniform in [0, 1): " + f);
    }
    // A creation operator (no inputs) through its typed builder.
    NDArray z = new Ops._zerosParam().shape(2, 2).dtype(DType.FLOAT64).call();
    assertEquals(DType.FLOAT64, z.dtype());
    assertArrayEquals(new double[4], z.toDoubleArray());
    assertClose(new float[] {0.5f}, Ops.relu(NDArray.create(new float[] {0.5f})).toFloatArray(), 0);
  }
}
