package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * S5 (../shared/BINDINGS.md): collect_params(".*weight|.*bias") with RE2 selects exactly what the
 * C++ API selects (names and count, from the C++ CLI's save_parameters file of the same
 * architecture); lr_mult and grad_req set and honoured by the Trainer and backward;
 * save/load_parameters round trip.
 */
class S5ParametersTest extends ScopedTest {
  @Test
  void collectParamsSelectsWhatTheCppApiSelects() throws Exception {
    Path dir = TestSupport.tempDir("s5");
    Path cppParams = dir.resolve("r18.params");
    // The C++ library's own parameter list: save_parameters writes collect_params() in order.
    TestSupport.runCli(
        "export", "--model", "resnet18_v1", "--classes", "10", "--input-shape", "1,3,32,32",
        "--out", dir.resolve("r18").toString(), "--save-params", cppParams.toString());
    List<String> cppNames = NDArray.loadFile(cppParams, null).names();

    Block net = ModelZoo.get("resnet18_v1", ModelZoo.ModelOptions.classes(10));
    ParameterDict all = net.collectParams();
    assertEquals(cppNames, all.names());
    // resnet18_v1: 20 convolutions (no bias), 20 BatchNorms (gamma, beta, running mean and var),
    // one Dense (weight, bias): 20 + 80 + 2.
    assertEquals(102, all.size());

    ParameterDict wb = net.collectParams(".*weight|.*bias");
    Pattern p = Pattern.compile(".*weight|.*bias"); // re.match: anchored at the start only
    List<String> want = new ArrayList<>();
    for (String n : cppNames) {
      if (p.matcher(n).lookingAt()) {
        want.add(n);
      }
    }
    assertEquals(want, wb.names());
    assertEquals(22, wb.size()); // 20 conv weights + dense weight + dense bias
    assertTrue(wb.names().contains("output.bias"), wb.names().toString());
    assertEquals(all.size(), net.collectParams("").size());
    assertEquals(0, net.collectParams("weight").size()); // anchored: no name starts with it
    // Anchored at the start, not the end: "features.0" selects the first conv's weight.
    assertEquals(List.of("features.0.weight"), net.collectParams("features\\.0\\.").names());
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "(", () -> net.collectParams("(unclosed"));
    Parameter w0 = wb.get("features.0.weight");
    assertEquals(DType.FLOAT32, w0.dtype());
    // Deferred initialization: the input channels are unknown (-1) until the first call.
    assertArrayEquals(new long[] {64, -1, 7, 7}, w0.shape());
    net.initialize();
    net.forward(NDArray.zeros(1, 3, 32, 32));
    assertArrayEquals(new long[] {64, 3, 7, 7}, w0.shape());
    TestSupport.assertMx(MXNetException.NOT_FOUND, "nope", () -> wb.get("nope"));
  }

  /** y = sum(w * x) over a SymbolBlock with one parameter w of shape (3,). */
  private static SymbolBlock dot(float[] w) {
    Symbol x = Symbol.variable("x");
    Symbol wv = Symbol.variable("w");
    Symbol prod = Symbol.create(Op.get("elemwise_mul"), List.of(x, wv), null, "mul");
    SymbolBlock b = SymbolBlock.create(prod, List.of("x"));
    b.collectParams().get("w").setData(NDArray.create(w, 3));
    return b;
  }

  @Test
  void lrMultScalesTheTrainerStep() {
    float[] w = {1, -2, 0.5f};
    float[] xv = {3, 1, -1};
    SymbolBlock net = dot(w);
    ParameterDict ps = net.collectParams();
    Parameter pw = ps.get("w");
    assertEquals(1.0, pw.lrMult());
    ps.setLrMult(0.5);
    assertEquals(0.5, pw.lrMult());
    pw.setWdMult(0.0);
    assertEquals(0.0, pw.wdMult());
    Trainer t = Trainer.create(ps, "sgd", Map.of("learning_rate", 0.1));
    assertEquals(0.1, t.learningRate(), 1e-12);
    NDArray x = NDArray.create(xv, 3);
    NDArray y;
    try (var r = Autograd.record()) {
      y = net.forward(x);
    }
    Autograd.backward(y);
    assertArrayEquals(xv, pw.grad().toFloatArray()); // d sum(w x) / dw = x
    t.step(2);
    float[] after = pw.data().toFloatArray();
    for (int i = 0; i < 3; i++) {
      assertEquals(w[i] - 0.1 * 0.5 * xv[i] / 2, after[i], 1e-6, "w[" + i + "]");
    }
    // A second step without backward: the gradient is stale.
    TestSupport.assertMx(MXNetException.FAILED_PRECONDITION, "w", () -> t.step(2));
    t.step(2, true);
    assertArrayEquals(after, pw.data().toFloatArray());
  }

  @Test
  void gradReqNullAndAdd() {
    float[] w = {1, 2, 3};
    float[] xv = {1, -1, 2};
    SymbolBlock net = dot(w);
    Parameter pw = net.collectParams().get("w");
    assertEquals(GradReq.WRITE, pw.gradReq());
    pw.setGradReq(GradReq.ADD);
    assertEquals(GradReq.ADD, pw.gradReq());
    NDArray x = NDArray.create(xv, 3);
    for (int pass = 0; pass < 2; pass++) {
      NDArray y;
      try (var r = Autograd.record()) {
        y = net.forward(x);
      }
      Autograd.backward(y);
    }
    assertArrayEquals(new float[] {2, -2, 4}, pw.grad().toFloatArray()); // accumulated twice
    pw.zeroGrad();
    assertArrayEquals(new float[] {0, 0, 0}, pw.grad().toFloatArray());
    net.collectParams().setGradReq(GradReq.NULL);
    assertEquals(GradReq.NULL, pw.gradReq());
    TestSupport.assertMx(MXNetException.FAILED_PRECONDITION, "", pw::grad);
    // A trainer skips parameters without gradients: the step changes nothing.
    Trainer t = Trainer.create(net.collectParams(), "sgd", Map.of("learning_rate", 1.0));
    t.step(1, true);
    assertArrayEquals(w, pw.data().toFloatArray());
  }

  @Test
  void saveLoadParametersRoundTrip() throws Exception {
    Path f = TestSupport.tempDir("s5-rt").resolve("net.params");
    Block a = ModelZoo.get("resnet18_v1", ModelZoo.ModelOptions.classes(10));
    a.initialize("xavier", null, false);
    NDArray x = NDArray.create(new float[1 * 3 * 32 * 32], 1, 3, 32, 32);
    float[] ya = a.forward(x).toFloatArray(); // completes deferred shapes
    a.saveParameters(f);
    Map<String, NDArray> file = NDArray.loadDict(f);
    assertEquals(a.collectParams().names(), new ArrayList<>(file.keySet()));

    Block b = ModelZoo.get("resnet18_v1", ModelZoo.ModelOptions.classes(10));
    b.loadParameters(f);
    ParameterDict pa = a.collectParams();
    ParameterDict pb = b.collectParams();
    assertEquals(pa.names(), pb.names());
    for (String n : pa.names()) {
      assertArrayEquals(pa.get(n).data().toFloatArray(), pb.get(n).data().toFloatArray(), n);
    }
    assertArrayEquals(ya, b.forward(x).toFloatArray());
    // Strict loading names what is wrong.
    Block c = ModelZoo.get("resnet34_v1", ModelZoo.ModelOptions.classes(10));
    MXNetException e =
        org.junit.jupiter.api.Assertions.assertThrows(MXNetException.class, () -> c.loadParameters(f));
    assertTrue(e.getMessage().contains("features"), e.getMessage());
    TestSupport.assertMx(
        MXNetException.NOT_FOUND, "nonexistent", () -> b.loadParameters(Path.of("/nonexistent.params")));
  }
}
