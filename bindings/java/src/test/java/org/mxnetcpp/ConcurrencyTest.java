package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * S6's pattern on operators and autograd (the hybridized-block version is S6BlockConcurrencyTest):
 * 8 executor threads x 200 calls on shared inputs, each thread with its
 * own current Ctx; identical outputs, no crash.
 */
class ConcurrencyTest {
  private static final int THREADS = 8;
  private static final int CALLS = 200;

  /** A small network on shared (read-only) inputs: relu(FC(x, w, b)) then a 3x3 convolution. */
  private static float[] forward(NDArray x, NDArray w, NDArray b, NDArray k) {
    try (NDScope s = new NDScope()) {
      NDArray h = Ops.relu(Ops.FullyConnected(x, w, b, 16));
      NDArray img = h.reshape(1, 1, 4, 4);
      return new Ops.ConvolutionParam(img, k, null, new long[] {3, 3}, 1)
          .noBias(true)
          .pad(1, 1)
          .call()
          .toFloatArray();
    }
  }

  @Test
  void executorThreadsOnSharedInputs() throws Exception {
    try (NDScope scope = new NDScope()) {
      float[] xs = new float[2 * 8];
      float[] ws = new float[16 * 8];
      float[] bs = new float[16];
      float[] ks = new float[9];
      for (int i = 0; i < ws.length; i++) {
        ws[i] = (float) Math.sin(i) * 0.5f;
      }
      for (int i = 0; i < xs.length; i++) {
        xs[i] = i * 0.1f - 0.5f;
      }
      for (int i = 0; i < 16; i++) {
        bs[i] = 0.01f * i;
      }
      for (int i = 0; i < 9; i++) {
        ks[i] = (i % 3) - 1;
      }
      NDArray x = NDArray.create(xs, 2, 8);
      NDArray w = NDArray.create(ws, 16, 8);
      NDArray b = NDArray.create(bs, 16);
      NDArray k = NDArray.create(ks, 1, 1, 3, 3);
      NDArray x1 = x.slice(0, 1);
      float[] want = forward(x1, w, b, k);

      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<Integer>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          futures.add(
              pool.submit(
                  () -> {
                    int same = 0;
                    for (int i = 0; i < CALLS; i++) {
                      float[] got = forward(x1, w, b, k);
                      assertArrayEquals(want, got);
                      same++;
                    }
                    return same;
                  }));
        }
        int total = 0;
        for (Future<Integer> f : futures) {
          total += f.get(5, TimeUnit.MINUTES);
        }
        assertEquals(THREADS * CALLS, total);
      } finally {
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
      }
    }
  }

  @Test
  void autogradOnDisjointGraphsInParallel() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<float[]>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final float v = t;
        futures.add(
            pool.submit(
                () -> {
                  float[] last = null;
                  for (int i = 0; i < 50; i++) {
                    try (NDScope s = new NDScope()) {
                      NDArray x = NDArray.create(new float[] {v, v + 1});
                      x.attachGrad();
                      NDArray y;
                      try (var r = Autograd.record()) {
                        y = x.mul(x).sum();
                      }
                      Autograd.backward(y);
                      last = x.grad().toFloatArray();
                    }
                  }
                  return last;
                }));
      }
      for (int t = 0; t < THREADS; t++) {
        assertArrayEquals(new float[] {2f * t, 2f * (t + 1)}, futures.get(t).get(5, TimeUnit.MINUTES));
      }
    } finally {
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  @Test
  void oneCtxSharedByThreadsIsSerialized() throws Exception {
    try (Ctx shared = Ctx.create(); NDArray x = NDArray.create(new float[] {-1, 1})) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          fs.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 100; i++) {
                      NDArray[] out = Op.get("relu").invoke(shared, new NDArray[] {x}, null);
                      assertArrayEquals(new float[] {0, 1}, out[0].toFloatArray());
                      out[0].close();
                    }
                  }));
        }
        for (Future<?> f : fs) {
          f.get(5, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
      }
    }
  }
}
