package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mxnetcpp.examples.Train;

/**
 * S4 (../shared/BINDINGS.md): the default LeNet trained with autograd + Trainer (Adam) on the
 * first 12,000 real Fashion-MNIST training images (Debian's dataset-fashion-mnist) reaches more
 * than 83 % on the first 2,000 test images; the export read back (SymbolBlock.imports here, and
 * the C++ CLI's {@code mxnet predict}) gives the binding's outputs.
 */
class S4TrainingTest extends ScopedTest {
  @Test
  void lenetOnFashionMnistSubsetWithAdamThenExport() throws Exception {
    assertTrue(
        Files.isDirectory(Dataset.DEBIAN_FASHION_MNIST),
        "Debian's dataset-fashion-mnist (" + Dataset.DEBIAN_FASHION_MNIST + ")");
    Path dir = TestSupport.tempDir("s4");
    Train.Options o =
        new Train.Options(
            Dataset.DEBIAN_FASHION_MNIST, 12000, 2, 128, "adam", 0.003, true, 0, 42, 1, dir);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Train.Result r = Train.train(o, new PrintStream(log, true, StandardCharsets.UTF_8));
    String text = log.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    assertEquals(2000, r.test().size());
    assertTrue(r.testAccuracy() > 0.83, "test accuracy " + r.testAccuracy() + "\n" + text);
    assertTrue(text.contains("epoch 2/2:"), text);

    // The export: 8 parameters (2 conv + 2 dense, weight and bias), read back two ways.
    Path sym = dir.resolve("model-symbol.json");
    Path params = dir.resolve("model-0000.params");
    assertEquals(8, NDArray.loadDict(params).size());
    SymbolBlock back = SymbolBlock.imports(sym, List.of("data"), params);
    NDArray[] first = firstBatch(r.test(), 256);
    NDArray x = first[0];
    float[] ours = r.net().forward(x).toFloatArray();
    TestSupport.assertClose(ours, back.forward(x).toFloatArray(), 1e-5f);
    assertEquals(r.testAccuracy(), Train.accuracy(back, r.test(), 256), 1e-12);

    Path in = dir.resolve("x.nd");
    Path out = dir.resolve("y.nd");
    NDArray.save(in, Map.of("data", x), null);
    TestSupport.runCli(
        "predict", "--symbol", sym.toString(), "--params", params.toString(), "--input",
        in.toString(), "--output", out.toString());
    TestSupport.assertClose(NDArray.load(out).get(0).toFloatArray(), ours, 1e-5f);
    r.net().close();
    r.test().close();
  }

  private static NDArray[] firstBatch(Dataset d, long n) {
    DataLoader l = DataLoader.create(d, DataLoader.Options.of(n));
    NDArray[] b = l.next();
    assertEquals(List.of(n, 1L, 28L, 28L), List.of(b[0].shape()[0], b[0].shape()[1],
        b[0].shape()[2], b[0].shape()[3]));
    return b;
  }
}
