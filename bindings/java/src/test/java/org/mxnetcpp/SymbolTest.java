package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Symbols: construction, lists, inference, JSON and files, composition. */
class SymbolTest extends ScopedTest {
  private static Symbol fc(Symbol in, int hidden, String name) {
    return Symbol.create(Op.get("FullyConnected"), List.of(in), Map.of("num_hidden", hidden), name);
  }

  @Test
  void buildListInfer(@TempDir Path dir) {
    Symbol data = Symbol.variable("data");
    Symbol fc1 = fc(data, 4, "fc1");
    Symbol act = Symbol.create(Op.get("Activation"), List.of(fc1), Map.of("act_type", "relu"), "r");
    Symbol net = fc(act, 2, "fc2");
    assertEquals("fc2", net.name());
    assertEquals(
        List.of("data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"), net.listArguments());
    assertEquals(List.of("fc2_output"), net.listOutputs());
    assertEquals(List.of(), net.listAuxiliaryStates());

    Map<String, long[]> shapes = new LinkedHashMap<>();
    shapes.put("data", new long[] {8, 3});
    Symbol.Shapes s = net.inferShape(shapes, false);
    assertArrayEquals(new long[] {4, 3}, s.arguments().get(1));
    assertArrayEquals(new long[] {2, 4}, s.arguments().get(3));
    assertArrayEquals(new long[] {8, 2}, s.outputs().get(0));
    Symbol.Shapes partial = net.inferShape(Map.of(), true);
    long[] unknown = partial.outputs().get(0);
    assertTrue(
        unknown == null || java.util.Arrays.stream(unknown).anyMatch(d -> d == -1),
        "without input shapes the output shape stays unknown");
    TestSupport.assertMx(MXNetException.INVALID_ARGUMENT, "", () -> net.inferShape(Map.of(), false));

    Symbol.Types t = net.inferType(Map.of("data", DType.FLOAT64));
    assertEquals(DType.FLOAT64, t.outputs().get(0));
    assertEquals(DType.FLOAT64, t.arguments().get(1));

    // JSON and file round trips keep the graph.
    Symbol back = Symbol.fromJson(net.toJson());
    assertEquals(net.listArguments(), back.listArguments());
    Path f = dir.resolve("net-symbol.json");
    net.save(f);
    assertEquals(net.listArguments(), Symbol.load(f).listArguments());

    // Composition: replace the input variable by another graph.
    Symbol x = Symbol.variable("x");
    Symbol pre = fc(x, 3, "pre");
    Symbol composed = net.compose(Map.of("data", pre));
    assertEquals("x", composed.listArguments().get(0));
    assertTrue(composed.listArguments().contains("pre_weight"));

    Symbol group = Symbol.group(List.of(fc1, net));
    assertEquals(List.of("fc1_output", "fc2_output"), group.listOutputs());
    assertEquals("fc2", group.output(1).name());
    assertTrue(net.getInternals().listOutputs().contains("fc1_output"));
  }

  @Test
  void realModelInfersItsOutputShape() {
    Path data = TestSupport.sharedData();
    Assumptions.assumeTrue(data != null, "../shared/data is absent");
    Symbol net = Symbol.load(data.resolve("models/cifar_resnet20_v1-symbol.json"));
    assertEquals("data", net.listArguments().get(0));
    assertTrue(net.listAuxiliaryStates().size() > 10);
    Symbol.Shapes s = net.inferShape(Map.of("data", new long[] {1, 3, 32, 32}), false);
    assertArrayEquals(new long[] {1, 10}, s.outputs().get(0));
  }
}
