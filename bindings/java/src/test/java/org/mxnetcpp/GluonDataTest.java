package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Losses (closed forms), transforms (built-in and Java callbacks, also on DataLoader worker
 * threads), datasets and the DataLoader (batch shapes, dtypes, epochs), the Trainer's states and
 * the misuse of the gluon/data classes.
 */
class GluonDataTest extends ScopedTest {
  @Test
  void lossesMatchTheirClosedForms() {
    assertTrue(Loss.list().containsAll(java.util.List.of("L2Loss", "SoftmaxCrossEntropyLoss")));
    NDArray pred = NDArray.create(new float[] {1, 2}, 2, 1);
    NDArray zero = NDArray.create(new float[] {0, 0}, 2, 1);
    // L2Loss(weight=4): 0.5 * 4 * (pred - label)^2.
    assertArrayEquals(
        new float[] {2, 8}, Loss.create("L2Loss", Map.of("weight", 4)).forward(pred, zero).toFloatArray());
    assertArrayEquals(new float[] {1, 2}, Loss.l1().forward(pred, zero).toFloatArray());
    // SoftmaxCrossEntropyLoss: -log softmax(row)[label].
    NDArray logits = NDArray.create(new float[] {0, 0, 0, 1, 2, 3}, 2, 3);
    NDArray label = NDArray.create(new float[] {1, 2}, 2);
    float[] ce = Loss.softmaxCrossEntropy().forward(logits, label).toFloatArray();
    assertEquals(Math.log(3), ce[0], 1e-5);
    assertEquals(Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)) - 3, ce[1], 1e-5);
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "L2Loss", () -> Loss.create("L3Loss", null));
    TestSupport.assertMx(
        MXNetException.INVALID_ARGUMENT,
        "sparse_lable",
        () -> Loss.create("SoftmaxCrossEntropyLoss", Map.of("sparse_lable", true)));
  }

  @Test
  void transformsBuiltInAndJava() {
    // ToTensor: HWC uint8 -> CHW float32 / 255; Normalize per channel.
    byte[] hwc = {0, 51, (byte) 255, 102, 0, 0}; // (1, 2, 3)
    NDArray img = NDArray.create(Device.cpu(), DType.UINT8, hwc, 1, 2, 3);
    NDArray t = Transform.toTensor().apply(img);
    assertArrayEquals(new long[] {3, 1, 2}, t.shape());
    assertArrayEquals(new float[] {0, 0.4f, 0.2f, 0, 1, 0}, t.toFloatArray(), 1e-6f);
    Transform norm = Transform.normalize(new float[] {0.5f}, new float[] {0.5f});
    assertArrayEquals(
        new float[] {-1, -0.2f, -0.6f, -1, 1, -1}, norm.apply(t).toFloatArray(), 1e-6f);
    Transform both = Transform.compose(Transform.toTensor(), norm);
    assertTrue(both.toString().contains("ToTensor"), both.toString());
    assertArrayEquals(norm.apply(t).toFloatArray(), both.apply(img).toFloatArray());
    assertEquals(DType.FLOAT64, Transform.cast(DType.FLOAT64).apply(t).dtype());
    // A Java function as a transform; its exception is the transform's error.
    Transform twice = Transform.of(x -> x.mul(2));
    assertArrayEquals(new float[] {0, 0.8f, 0.4f, 0, 2, 0}, twice.apply(t).toFloatArray(), 1e-6f);
    Transform failing =
        Transform.of(
            x -> {
              throw new IllegalStateException("no way");
            });
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "no way", () -> failing.apply(t));
    TestSupport.assertMx(
        MXNetException.INVALID_ARGUMENT, "", () -> Transform.normalize(new float[] {0}, new float[] {0}));
  }

  @Test
  void arrayDatasetAndLoader() {
    float[] xs = new float[10 * 2];
    int[] ys = new int[10];
    for (int i = 0; i < 10; i++) {
      xs[2 * i] = i;
      xs[2 * i + 1] = -i;
      ys[i] = i % 3;
    }
    Dataset d = Dataset.fromArrays(NDArray.create(xs, 10, 2), NDArray.create(ys, 10));
    assertEquals(10, d.size());
    NDArray[] s = d.get(4);
    assertArrayEquals(new float[] {4, -4}, s[0].toFloatArray());
    assertArrayEquals(new int[] {1}, s[1].toIntArray());
    TestSupport.assertMx(MXNetException.OUT_OF_RANGE, "", () -> d.get(10));
    assertEquals(3, d.take(3).size());
    assertArrayEquals(new float[] {5, -5}, d.shard(2, 1).get(0)[0].toFloatArray());

    DataLoader keep = DataLoader.create(d, DataLoader.Options.of(4));
    assertEquals(3, keep.size());
    long[] sizes = new long[3];
    int i = 0;
    for (NDArray[] b : keep) {
      sizes[i++] = b[0].shape()[0];
      assertEquals(2L, b[0].shape()[1]);
      assertEquals(DType.INT32, b[1].dtype());
    }
    assertArrayEquals(new long[] {4, 4, 2}, sizes);
    // The next epoch starts over; reset ends one early.
    assertArrayEquals(new float[] {0, 0, 1, -1, 2, -2, 3, -3}, keep.next()[0].toFloatArray());
    keep.reset();
    assertArrayEquals(new float[] {0, 0, 1, -1, 2, -2, 3, -3}, keep.next()[0].toFloatArray());
    DataLoader discard =
        DataLoader.create(d, new DataLoader.Options(4, true, DataLoader.LastBatch.DISCARD, 0, 0));
    assertEquals(2, discard.size());
    assertTrue(discard.next() != null && discard.next() != null);
    assertNull(discard.next());
    TestSupport.assertMx(
        MXNetException.INVALID_ARGUMENT, "batch", () -> DataLoader.create(d, DataLoader.Options.of(0)));
  }

  @Test
  void fashionMnistWithAJavaTransformOnWorkerThreads() {
    Dataset raw = Dataset.fashionMnist(Dataset.DEBIAN_FASHION_MNIST, false);
    assertEquals(10000, raw.size());
    NDArray[] s0 = raw.get(0);
    assertArrayEquals(new long[] {28, 28, 1}, s0[0].shape());
    assertEquals(DType.UINT8, s0[0].dtype());
    assertEquals(DType.INT32, s0[1].dtype());
    assertEquals(9, s0[1].toIntArray()[0]); // the first test image is an ankle boot (9)
    Set<String> threads = ConcurrentHashMap.newKeySet();
    AtomicInteger calls = new AtomicInteger();
    Transform tensor = Transform.toTensor();
    Transform viaJava =
        Transform.of(
            x -> {
              threads.add(Thread.currentThread().getName());
              calls.incrementAndGet();
              return tensor.apply(x);
            });
    Dataset d = raw.take(512).transformFirst(viaJava, true);
    DataLoader loader =
        DataLoader.create(d, new DataLoader.Options(64, false, DataLoader.LastBatch.KEEP, 2, 0));
    int batches = 0;
    float[] first = null;
    for (NDArray[] b : loader) {
      assertArrayEquals(new long[] {64, 1, 28, 28}, b[0].shape());
      assertEquals(DType.FLOAT32, b[0].dtype());
      if (first == null) {
        first = b[0].toFloatArray();
      }
      batches++;
    }
    assertEquals(8, batches);
    assertEquals(512, calls.get());
    assertTrue(threads.stream().noneMatch(n -> n.equals(Thread.currentThread().getName())), threads.toString());
    assertArrayEquals(tensor.apply(s0[0]).toFloatArray(), java.util.Arrays.copyOf(first, 784));
    TestSupport.assertMx(
        MXNetException.NOT_FOUND, "nonexistent", () -> Dataset.fashionMnist(Path.of("/nonexistent"), true));
  }

  @Test
  void trainerStatesAndMisuse() throws Exception {
    Block net = ModelZoo.get("mobilenet0.25", ModelZoo.ModelOptions.classes(4));
    net.initialize();
    NDArray x = NDArray.zeros(1, 3, 32, 32);
    net.forward(x);
    ParameterDict ps = net.collectParams();
    Trainer t = Trainer.create(ps, "adam", Map.of("learning_rate", 0.01, "beta1", 0.8));
    NDArray y;
    try (var r = Autograd.record()) {
      y = net.forward(x).sum();
    }
    Autograd.backward(y);
    t.step(1, true);
    Path f = TestSupport.tempDir("trainer").resolve("states");
    t.saveStates(f);
    Trainer t2 = Trainer.create(ps, "adam", Map.of("learning_rate", 0.01));
    t2.loadStates(f);
    t2.setLearningRate(0.5);
    assertEquals(0.5, t2.learningRate(), 1e-12);
    TestSupport.assertMx(MXNetException.NOT_FOUND, "sgd", () -> Trainer.create(ps, "sdg", null));
    TestSupport.assertMx(
        MXNetException.INVALID_ARGUMENT, "momentum", () -> Trainer.create(ps, "sgd", Map.of("momentum", "fast")));
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "batch_size", () -> t.step(0));
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "resnet18_v1", () -> ModelZoo.get("resnet19"));
    // Use after close, double close.
    Block b = ModelZoo.get("resnet18_v1");
    b.close();
    b.close();
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "used after close", () -> b.forward(x));
    Parameter p = ps.get(ps.names().get(0));
    p.close();
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "used after close", p::name);
    TestSupport.assertMx(
        MXNetException.NOT_FOUND,
        "nonexistent",
        () -> SymbolBlock.imports(Path.of("/nonexistent-symbol.json"), java.util.List.of("data"), null));
  }
}
