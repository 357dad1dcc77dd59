package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mxnetcpp.TestSupport.assertClose;

import java.util.List;
import org.junit.jupiter.api.Test;

/** S2: autograd: record, backward, gradients, create_graph second derivatives. */
class S2AutogradTest extends ScopedTest {
  @Test
  void gradientOfSumOfSquaresPlusThreeX() {
    float[] xs = {-2, -0.5f, 0, 1, 3};
    NDArray x = NDArray.create(xs);
    x.attachGrad();
    NDArray y;
    try (var r = Autograd.record()) {
      assertTrue(Autograd.isRecording());
      assertTrue(Autograd.isTraining());
      y = x.mul(x).add(x.mul(3)).sum();
    }
    assertFalse(Autograd.isRecording());
    assertFalse(Autograd.isTraining());
    Autograd.backward(y);
    float[] want = new float[xs.length];
    float total = 0;
    for (int i = 0; i < xs.length; i++) {
      want[i] = 2 * xs[i] + 3;
      total += xs[i] * xs[i] + 3 * xs[i];
    }
    assertClose(want, x.grad().toFloatArray(), 1e-6f);
    assertClose(new float[] {total}, y.toFloatArray(), 1e-6f);
  }

  @Test
  void typedOperatorsRecordToo() {
    NDArray x = NDArray.create(new float[] {-1, 2, -3, 4});
    x.attachGrad();
    NDArray y;
    try (var r = Autograd.record()) {
      y = Ops.sum(Ops.elemwise_mul(Ops.relu(x), x));
    }
    Autograd.backward(y);
    // d/dx relu(x) * x = 2x for x > 0, else 0
    assertArrayEquals(new float[] {0, 4, 0, 8}, x.grad().toFloatArray());
  }

  @Test
  void secondDerivativeWithCreateGraph() {
    float[] xs = {-1, 0.5f, 2};
    NDArray x = NDArray.create(xs);
    x.attachGrad();
    NDArray y;
    NDArray dydx;
    NDArray z;
    try (var r = Autograd.record()) {
      y = x.mul(x).mul(x).sum(); // sum(x^3)
      dydx = Autograd.grad(List.of(y), List.of(x), null, true, true, true).get(0);
      // dydx = 3x^2 is itself recorded; z = sum(3x^2), dz/dx = 6x
      z = dydx.sum();
    }
    Autograd.backward(z);
    float[] first = new float[xs.length];
    float[] second = new float[xs.length];
    for (int i = 0; i < xs.length; i++) {
      first[i] = 3 * xs[i] * xs[i];
      second[i] = 6 * xs[i];
    }
    assertClose(first, dydx.toFloatArray(), 1e-6f);
    assertClose(second, x.grad().toFloatArray(), 1e-6f);
  }

  @Test
  void headGradientsRetainGraphAndGradReqAdd() {
    NDArray x = NDArray.create(new float[] {1, 2});
    x.attachGrad(GradReq.ADD);
    NDArray y;
    try (var r = Autograd.record()) {
      y = x.mul(5);
    }
    NDArray head = NDArray.create(new float[] {1, 10});
    Autograd.backward(List.of(y), List.of(head), true, true);
    assertArrayEquals(new float[] {5, 50}, x.grad().toFloatArray());
    Autograd.backward(List.of(y), List.of(head), false, true); // add: accumulates
    assertArrayEquals(new float[] {10, 100}, x.grad().toFloatArray());
    // The graph is freed now: a third backward is an error, not a crash.
    assertThrows(MXNetException.class, () -> Autograd.backward(y));
  }

  @Test
  void pauseAndMarkVariables() {
    NDArray x = NDArray.create(new float[] {3});
    NDArray g = NDArray.zeros(1);
    Autograd.markVariables(List.of(x), List.of(g), List.of(GradReq.WRITE));
    NDArray y;
    try (var r = Autograd.record()) {
      y = x.mul(x);
      try (var p = Autograd.pause()) {
        assertFalse(Autograd.isRecording());
        x.mul(100); // not recorded
      }
      assertTrue(Autograd.isRecording());
    }
    Autograd.backward(y);
    assertArrayEquals(new float[] {6}, g.toFloatArray(), "the marked buffer receives 2x");
  }

  @Test
  void gradOfNoVariableIsAnError() {
    NDArray x = NDArray.create(new float[] {1});
    TestSupport.assertMx(MXNetException.FAILED_PRECONDITION, "", x::grad);
  }
}
