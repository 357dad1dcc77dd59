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
 * S6 (../shared/BINDINGS.md): one hybridized model-zoo block (mobilenet0.25, 10 classes) called
 * from an ExecutorService of 8 threads x 200 calls, each thread under its own current Ctx, on two
 * shared read-only inputs: every output equals the serial reference bit for bit, nothing
 * crashes, and no handle leaks.
 */
class S6BlockConcurrencyTest {
  private static final int THREADS = 8;
  private static final int CALLS = 200;

  private static NDArray input(int seed) {
    float[] v = new float[2 * 3 * 32 * 32];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) Math.sin(0.37 * i + seed);
    }
    return NDArray.create(v, 2, 3, 32, 32);
  }

  @Test
  void oneHybridizedBlockFromEightExecutorThreads() throws Exception {
    long liveBefore;
    try (NDScope scope = new NDScope()) {
      Ctx.randomSeed(5);
      Block net = ModelZoo.get("mobilenet0.25", ModelZoo.ModelOptions.classes(10));
      net.initialize("xavier", null, false);
      net.hybridize();
      NDArray[] xs = {input(0), input(1)};
      float[][] want = new float[2][];
      for (int i = 0; i < 2; i++) {
        want[i] = net.forward(xs[i]).toFloatArray(); // the first call traces the graph
      }
      assertEquals(20, want[0].length);
      liveBefore = MXNet.handleStats().live();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<Integer>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          final int id = t;
          futures.add(
              pool.submit(
                  () -> {
                    int checked = 0;
                    for (int c = 0; c < CALLS; c++) {
                      int which = (id + c) % 2;
                      try (NDScope s = new NDScope()) {
                        float[] got = net.forward(xs[which]).toFloatArray();
                        assertArrayEquals(want[which], got, "thread " + id + " call " + c);
                        checked++;
                      }
                    }
                    return checked;
                  }));
        }
        int total = 0;
        for (Future<Integer> f : futures) {
          total += f.get(10, TimeUnit.MINUTES);
        }
        assertEquals(THREADS * CALLS, total);
      } finally {
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
      }
      // Every output was closed by its per-call scope: no handle is left over from the calls
      // (the pool threads' own ctxs, 8 at most, may still be alive).
      long after = MXNet.handleStats().live();
      org.junit.jupiter.api.Assertions.assertTrue(
          after <= liveBefore + THREADS, "live handles " + liveBefore + " -> " + after);
    }
  }
}
