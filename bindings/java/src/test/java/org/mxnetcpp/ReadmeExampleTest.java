package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.mxnetcpp.examples.Classify;
import org.mxnetcpp.examples.Train;

import org.junit.jupiter.api.Test;

/** The README's examples, with their commented results asserted (keep the two in step). */
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

  @Test
  void readmeGluonExample() {
    java.nio.file.Path models = TestSupport.sharedData().resolve("models");
    java.nio.file.Path images = TestSupport.sharedData().resolve("images");
    float[] prob;
    float firstLoss = 0;
    float lastLoss = 0;
    try (var scope = new NDScope()) {
      // S3: an export read back, classify's preprocessing (1, 3, 32, 32), probabilities (1, 10).
      SymbolBlock net =
          SymbolBlock.imports(
              models.resolve("cifar_resnet20_v1-symbol.json"),
              List.of("data"),
              models.resolve("cifar_resnet20_v1-0000.params"));
      NDArray x =
          Classify.preprocess(
              images.resolve("cat.jpg"),
              32,
              32,
              Image.Interp.BILINEAR,
              new float[] {0.4914f, 0.4822f, 0.4465f},
              new float[] {0.2023f, 0.1994f, 0.2010f});
      prob = Ops.softmax(net.forward(x), null).toFloatArray(); // prob[3] (cat) = 0.9620

      // S4: LeNet (input "data", (N, 1, 28, 28)), Adam, one pass over 512 Fashion-MNIST images.
      SymbolBlock lenet = Train.lenet();
      lenet.initialize("xavier", null, false);
      Trainer trainer =
          Trainer.create(
              lenet.collectParams(".*weight|.*bias"), "adam", Map.of("learning_rate", 0.003));
      Loss ce = Loss.softmaxCrossEntropy();
      Dataset train =
          Dataset.fashionMnist(Dataset.DEBIAN_FASHION_MNIST, true)
              .take(512)
              .transformFirst(Transform.toTensor(), false);
      int step = 0;
      for (NDArray[] b : DataLoader.create(train, DataLoader.Options.of(64))) {
        NDArray l;
        try (var r = Autograd.record()) {
          l = ce.forward(lenet.forward(b[0]), b[1]);
        }
        Autograd.backward(l);
        trainer.step(b[0].shape()[0]);
        float mean = l.sum().toFloatArray()[0] / 64;
        firstLoss = step++ == 0 ? mean : firstLoss;
        lastLoss = mean;
      }
    }
    assertEquals("0.9620", String.format(java.util.Locale.ROOT, "%.4f", prob[3]));
    assertTrue(lastLoss < firstLoss, firstLoss + " -> " + lastLoss);
  }
}
