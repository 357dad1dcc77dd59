package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** The README's example, with its commented results asserted (keep the two in step). */
class ReadmeExampleTest {
  @Test
  void readmeExample() {
    float[] sums;
    float[] relu;
    float[] g;
    try (var scope = new NDScope()) { // closes everything made inside
      // S1: arrays from Java buffers, typed and by-name operators (NCHW).
      NDArray x = NDArray.create(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8}, 1, 1, 3, 3);
      NDArray w = NDArray.create(new float[] {1, 1, 1, 1}, 1, 1, 2, 2);
      NDArray y = new Ops.ConvolutionParam(x, w, null, new long[] {2, 2}, 1).noBias(true).call();
      sums = y.toFloatArray(); // {8, 12, 20, 24}
      NDArray r = Op.invoke("Activation", java.util.Map.of("act_type", "relu"), y)[0];
      relu = r.toFloatArray();

      // S2: autograd.
      NDArray v = NDArray.create(new float[] {1, -2});
      v.attachGrad();
      NDArray loss;
      try (var rec = Autograd.record()) {
        loss = v.mul(v).add(v.mul(3)).sum(); // sum(v^2 + 3v)
      }
      Autograd.backward(loss);
      g = v.grad().toFloatArray(); // 2v + 3 = {5, -1}
    }
    assertArrayEquals(new float[] {8, 12, 20, 24}, sums);
    assertArrayEquals(new float[] {8, 12, 20, 24}, relu);
    assertArrayEquals(new float[] {5, -1}, g);
  }
}
