package org.mxnetcpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mxnetcpp.examples.Classify;

/**
 * S3 (../shared/BINDINGS.md): SymbolBlock.imports of the real GluonCV CIFAR-10 ResNet-20 export
 * classifies the real photos cat.jpg and dog.jpg as cat (0.9620) and dog (0.9934), with the
 * Classify example printing exactly what the C++ CLI's {@code mxnet classify} prints and the
 * logits equal to the CLI's {@code mxnet predict} on the same input within 1e-5; a model-zoo
 * resnet18_v1 builds, hybridizes and gives the C++ library's outputs for the same parameters file.
 */
class S3InferenceTest extends ScopedTest {
  private static Path models;
  private static Path images;
  private static Path labels;

  private static final String[] CIFAR_FLAGS = {
    "--input-size", "32", "--mean", "0.4914,0.4822,0.4465", "--std", "0.2023,0.1994,0.2010"
  };

  @BeforeAll
  static void files() throws Exception {
    Path data = TestSupport.sharedData();
    assertNotNull(data, "../shared/data (system property mxc.shared.dir)");
    models = data.resolve("models");
    images = data.resolve("images");
    labels = TestSupport.tempDir("s3").resolve("cifar_labels.txt");
    Files.writeString(
        labels, "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n");
  }

  private static String[] classifyArgs(String topk) {
    List<String> a =
        new java.util.ArrayList<>(
            List.of(
                "--symbol", models.resolve("cifar_resnet20_v1-symbol.json").toString(),
                "--params", models.resolve("cifar_resnet20_v1-0000.params").toString(),
                "--image", images.resolve("cat.jpg").toString(),
                images.resolve("dog.jpg").toString(),
                "--labels", labels.toString(), "--topk", topk));
    a.addAll(List.of(CIFAR_FLAGS));
    return a.toArray(new String[0]);
  }

  @Test
  void classifyExamplePrintsWhatTheCliPrints() throws Exception {
    String[] args = classifyArgs("3");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        Classify.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String java = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
    String[] cliArgs = new String[args.length + 1];
    cliArgs[0] = "classify";
    System.arraycopy(args, 0, cliArgs, 1, args.length);
    String cli = TestSupport.runCli(cliArgs);
    assertEquals(cli, java);
    assertTrue(java.contains("cat.jpg:\n  1. cat                            0.9620\n"), java);
    assertTrue(java.contains("dog.jpg:\n  1. dog                            0.9934\n"), java);
  }

  @Test
  void logitsEqualTheCliPredictOnTheSameInput() throws Exception {
    Path dir = TestSupport.tempDir("s3-logits");
    SymbolBlock net =
        SymbolBlock.imports(
            models.resolve("cifar_resnet20_v1-symbol.json"),
            List.of("data"),
            models.resolve("cifar_resnet20_v1-0000.params"));
    for (String name : List.of("cat.jpg", "dog.jpg")) {
      NDArray x =
          Classify.preprocess(
              images.resolve(name),
              32,
              32,
              Image.Interp.BILINEAR,
              new float[] {0.4914f, 0.4822f, 0.4465f},
              new float[] {0.2023f, 0.1994f, 0.2010f});
      assertEquals(List.of(1L, 3L, 32L, 32L), boxed(x.shape()));
      float[] logits = net.forward(x).toFloatArray();
      Path in = dir.resolve(name + ".nd");
      Path out = dir.resolve(name + "-logits.nd");
      NDArray.save(in, Map.of("data", x), null);
      TestSupport.runCli(
          "predict", "--symbol", models.resolve("cifar_resnet20_v1-symbol.json").toString(),
          "--params", models.resolve("cifar_resnet20_v1-0000.params").toString(),
          "--input", in.toString(), "--output", out.toString());
      float[] want = NDArray.load(out).get(0).toFloatArray();
      assertEquals(10, want.length);
      TestSupport.assertClose(want, logits, 1e-5f);
      int top = 0;
      for (int c = 1; c < 10; c++) {
        top = logits[c] > logits[top] ? c : top;
      }
      assertEquals(name.equals("cat.jpg") ? 3 : 5, top, name);
    }
  }

  /** ONNX (ABI 1.2): the real export written as ONNX and read back gives the same logits. */
  @Test
  void cifarExportRoundTripsThroughOnnx() throws Exception {
    Path dir = TestSupport.tempDir("s3-onnx");
    Path onnx = dir.resolve("resnet20.onnx");
    SymbolBlock net =
        SymbolBlock.imports(
            models.resolve("cifar_resnet20_v1-symbol.json"),
            List.of("data"),
            models.resolve("cifar_resnet20_v1-0000.params"));
    net.exportOnnx(new long[][] {{1, 3, 32, 32}}, onnx, 17, false);
    NDArray x =
        Classify.preprocess(
            images.resolve("cat.jpg"),
            32,
            32,
            Image.Interp.BILINEAR,
            new float[] {0.4914f, 0.4822f, 0.4465f},
            new float[] {0.2023f, 0.1994f, 0.2010f});
    float[] want = net.forward(x).toFloatArray();
    byte[] model = Files.readAllBytes(onnx);
    for (Block b : List.of(Block.importsOnnx(onnx), Block.importsOnnxBytes(model))) {
      TestSupport.assertClose(want, b.forward(x).toFloatArray(), 1e-4f);
      b.close();
    }
    MXNetException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            MXNetException.class,
            () -> Block.importsOnnxBytes(java.util.Arrays.copyOf(model, model.length / 2)));
    assertTrue(e.getMessage().contains("ONNX"), e.getMessage());
    e =
        org.junit.jupiter.api.Assertions.assertThrows(
            MXNetException.class,
            () -> net.exportOnnx(new long[][] {{1, 3, 32, 32}}, dir.resolve("x.onnx"), 12, false));
    assertTrue(e.getMessage().contains("opset"), e.getMessage());
  }

  @Test
  void modelZooResnet18GivesTheCppOutputsForTheSameParameters() throws Exception {
    Path dir = TestSupport.tempDir("s3-zoo");
    Path prefix = dir.resolve("r18");
    Path params = dir.resolve("r18.params");
    // The C++ library builds resnet18_v1 (10 classes), initializes it (seeded), saves its
    // parameters (structured names) and exports the hybridized graph.
    TestSupport.runCli(
        "export", "--model", "resnet18_v1", "--classes", "10", "--input-shape", "1,3,32,32",
        "--seed", "7", "--out", prefix.toString(), "--save-params", params.toString());
    Block net = ModelZoo.get("resnet18_v1", ModelZoo.ModelOptions.classes(10));
    net.loadParameters(params);
    net.hybridize();
    NDArray x =
        Classify.preprocess(
            images.resolve("dog.jpg"),
            32,
            32,
            Image.Interp.BILINEAR,
            new float[] {0.485f, 0.456f, 0.406f},
            new float[] {0.229f, 0.224f, 0.225f});
    float[] first = net.forward(x).toFloatArray(); // traces the graph
    float[] second = net.forward(x).toFloatArray(); // runs the cached graph
    Path in = dir.resolve("x.nd");
    Path out = dir.resolve("y.nd");
    NDArray.save(in, Map.of("data", x), null);
    TestSupport.runCli(
        "predict", "--symbol", prefix + "-symbol.json", "--params", prefix + "-0000.params",
        "--input", in.toString(), "--output", out.toString());
    float[] want = NDArray.load(out).get(0).toFloatArray();
    assertEquals(10, want.length);
    TestSupport.assertClose(want, first, 1e-5f);
    TestSupport.assertClose(want, second, 1e-5f);
    assertTrue(ModelZoo.list().contains("resnet18_v1"));
    assertTrue(net.toString().contains("Conv2D"), net.toString());
  }

  @Test
  void imageDecodeGivesHwcUint8Rgb() throws Exception {
    byte[] jpg = Files.readAllBytes(images.resolve("cat.jpg"));
    NDArray a = Image.decode(jpg);
    NDArray b = Image.read(images.resolve("cat.jpg"));
    assertEquals(DType.UINT8, a.dtype());
    assertEquals(3, a.shape().length);
    assertEquals(3L, a.shape()[2]);
    org.junit.jupiter.api.Assertions.assertArrayEquals(b.toByteArray(), a.toByteArray());
    NDArray gray = Image.decode(jpg, false, true);
    assertEquals(1L, gray.shape()[2]);
    // BGR is RGB with the channels reversed.
    byte[] rgb = a.toByteArray();
    byte[] bgr = Image.decode(jpg, true, false).toByteArray();
    for (int i = 0; i < 300; i += 3) {
      assertEquals(rgb[i], bgr[i + 2]);
      assertEquals(rgb[i + 2], bgr[i]);
    }
    // Resize: short side 32, long side rounded.
    long[] s = a.shape();
    NDArray r = Image.resizeShort(a, 32, Image.Interp.BILINEAR, true);
    long shortSide = Math.min(s[0], s[1]);
    long longSide = Math.max(s[0], s[1]);
    long[] rs = r.shape();
    assertEquals(32L, Math.min(rs[0], rs[1]));
    assertEquals(Math.round(longSide * 32.0 / shortSide), Math.max(rs[0], rs[1]));
    TestSupport.assertMx(
        MXNetException.NOT_FOUND, "nonexistent", () -> Image.read(Path.of("/nonexistent.jpg")));
    MXNetException bad =
        org.junit.jupiter.api.Assertions.assertThrows(
            MXNetException.class, () -> Image.decode(new byte[] {1, 2, 3}));
    assertTrue(
        bad.code() == MXNetException.INVALID_ARGUMENT || bad.code() == MXNetException.DATA_LOSS,
        bad.toString());
  }

  private static List<Long> boxed(long[] v) {
    List<Long> r = new java.util.ArrayList<>();
    for (long x : v) {
      r.add(x);
    }
    return r;
  }
}
