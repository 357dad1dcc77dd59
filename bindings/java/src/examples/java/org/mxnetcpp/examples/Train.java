package org.mxnetcpp.examples;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mxnetcpp.Autograd;
import org.mxnetcpp.Block;
import org.mxnetcpp.Ctx;
import org.mxnetcpp.DataLoader;
import org.mxnetcpp.Dataset;
import org.mxnetcpp.Loss;
import org.mxnetcpp.MXNetException;
import org.mxnetcpp.NDArray;
import org.mxnetcpp.NDScope;
import org.mxnetcpp.Op;
import org.mxnetcpp.Symbol;
import org.mxnetcpp.SymbolBlock;
import org.mxnetcpp.Trainer;
import org.mxnetcpp.Transform;

/**
 * {@code train}: trains the default LeNet of {@code mxnet train} on the real Fashion-MNIST
 * (Debian's dataset-fashion-mnist) with autograd and a Trainer, validates every epoch and exports
 * the model, printing the lines {@code mxnet train} prints to a log:
 *
 * <pre>
 * java ... org.mxnetcpp.examples.Train [--epochs 5] [--batch-size 128] [--optimizer adam]
 *     [--lr 0.003] [--lr-schedule cosine|constant] [--wd 0] [--seed 42] [--workers 1]
 *     [--limit N] [--data /usr/share/datasets/fashion-mnist] [--out DIR]
 * </pre>
 *
 * --limit N trains on the first N samples and tests on the first N/6. Exit status 0, 1 for
 * errors, 2 for bad usage.
 */
public final class Train {
  private Train() {}

  /** The class names of Fashion-MNIST's labels 0..9. */
  public static final List<String> CLASSES =
      List.of(
          "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
          "Ankle boot");

  /**
   * Training options (the flags).
   *
   * @param data the Fashion-MNIST directory
   * @param limit train on the first N samples and test on N/6 (0: all)
   * @param epochs passes over the training set
   * @param batchSize samples per batch
   * @param optimizer an mx.optimizer name
   * @param lr the learning rate
   * @param cosine decay the learning rate to 0 over the run (one step per batch), else constant
   * @param wd the weight decay
   * @param seed the random seed (initialization, shuffling)
   * @param workers data-loading worker threads
   * @param out the output directory (checkpoint.params, model-symbol.json, model-0000.params)
   */
  public record Options(
      Path data,
      long limit,
      int epochs,
      long batchSize,
      String optimizer,
      double lr,
      boolean cosine,
      double wd,
      long seed,
      int workers,
      Path out) {
    /**
     * mxnet train's defaults writing to {@code out}.
     *
     * @param out the output directory
     * @return the options
     */
    public static Options defaults(Path out) {
      return new Options(
          Dataset.DEBIAN_FASHION_MNIST, 0, 5, 128, "adam", 0.003, true, 0, 42, 1, out);
    }
  }

  /**
   * What a run produced.
   *
   * @param net the trained network (hybridized)
   * @param testAccuracy the accuracy on the test images after the last epoch
   * @param test the preprocessed test set: {(1, 28, 28) float32 image, () int32 label}
   */
  public record Result(SymbolBlock net, double testAccuracy, Dataset test) {}

  /**
   * The default net of {@code mxnet train}, as a symbol graph (input "data", (N, 1, 28, 28)
   * float32, NCHW): conv 5x5 16 pad 2 + relu, max pool 2, conv 5x5 32 + relu, max pool 2,
   * flatten, dense 128 + relu, dense 10 (logits). Parameters conv0/conv1/dense0/dense1 _weight and
   * _bias, uninitialized. Owned by the caller's NDScope, if any.
   *
   * @return the block
   */
  public static SymbolBlock lenet() {
    try (NDScope scope = new NDScope()) {
      Symbol x = Symbol.variable("data");
      x = conv(x, "conv0", 16, 2);
      x = pool(x, "pool0");
      x = conv(x, "conv1", 32, 0);
      x = pool(x, "pool1");
      x = Symbol.create(Op.get("Flatten"), List.of(x), null, "flatten0");
      x = dense(x, "dense0", 128);
      x = Symbol.create(Op.get("Activation"), List.of(x), Map.of("act_type", "relu"), "relu2");
      x = dense(x, "dense1", 10);
      return scope.escape(SymbolBlock.create(x, List.of("data")));
    }
  }

  private static Symbol conv(Symbol x, String name, int filters, int pad) {
    Symbol c =
        Symbol.create(
            Op.get("Convolution"),
            List.of(x),
            Map.of("kernel", "(5, 5)", "num_filter", filters, "pad", "(" + pad + ", " + pad + ")"),
            name);
    return Symbol.create(Op.get("Activation"), List.of(c), Map.of("act_type", "relu"), name + "_relu");
  }

  private static Symbol pool(Symbol x, String name) {
    return Symbol.create(
        Op.get("Pooling"),
        List.of(x),
        Map.of("kernel", "(2, 2)", "stride", "(2, 2)", "pool_type", "max"),
        name);
  }

  private static Symbol dense(Symbol x, String name, int units) {
    return Symbol.create(Op.get("FullyConnected"), List.of(x), Map.of("num_hidden", units), name);
  }

  /**
   * The accuracy of {@code net} on {@code data} (argmax of the outputs against the labels).
   *
   * @param net the net
   * @param data samples {image, label}
   * @param batchSize samples per forward
   * @return the fraction classified correctly
   */
  public static double accuracy(Block net, Dataset data, long batchSize) {
    long right = 0;
    long seen = 0;
    try (NDScope scope = new NDScope()) {
      DataLoader loader = DataLoader.create(data, DataLoader.Options.of(batchSize));
      for (NDArray[] b : loader) {
        try (NDScope perBatch = new NDScope()) {
          right += correct(net.forward(b[0]), b[1]);
          seen += b[1].size();
        }
      }
    }
    return seen == 0 ? 0 : (double) right / seen;
  }

  /** How many rows of logits (N, classes) have their argmax equal to labels (N,). */
  static long correct(NDArray logits, NDArray labels) {
    float[] p = logits.toFloatArray();
    int[] y = labels.toIntArray();
    int classes = p.length / y.length;
    long right = 0;
    for (int i = 0; i < y.length; i++) {
      int best = 0;
      for (int c = 1; c < classes; c++) {
        if (p[i * classes + c] > p[i * classes + best]) {
          best = c;
        }
      }
      right += best == y[i] ? 1 : 0;
    }
    return right;
  }

  /**
   * Trains LeNet as {@code mxnet train} does: ToTensor + Normalize(0.286, 0.353), Xavier
   * initialization, the net hybridized (static alloc and shape), SoftmaxCrossEntropyLoss, the
   * optimizer with a cosine (or constant) learning rate, shuffled batches; validates on the test
   * images after each epoch, saves {@code out/checkpoint.params} each epoch and exports
   * {@code out/model-symbol.json} and {@code out/model-0000.params} at the end.
   *
   * @param o the options
   * @param log where the progress lines go
   * @return the net, its test accuracy and the test set (owned by the caller's NDScope, if any)
   * @throws MXNetException for missing data files, bad options, or training errors
   * @throws java.io.IOException when the output directory cannot be made
   */
  public static Result train(Options o, PrintStream log) throws java.io.IOException {
    Files.createDirectories(o.out());
    Ctx.randomSeed(o.seed());
    try (NDScope scope = new NDScope()) {
      Transform prep =
          Transform.compose(
              Transform.toTensor(), Transform.normalize(new float[] {0.286f}, new float[] {0.353f}));
      Dataset train = Dataset.fashionMnist(o.data(), true).transformFirst(prep, false);
      Dataset test = Dataset.fashionMnist(o.data(), false);
      if (o.limit() > 0) {
        train = train.take(o.limit());
        test = test.take(Math.max(o.limit() / 6, 1));
      }
      test = test.transformFirst(prep, false);
      SymbolBlock net = lenet();
      net.initialize("xavier", null, false);
      net.hybridize(new Block.HybridizeOptions(true, true, true, null));
      Loss lossFn = Loss.softmaxCrossEntropy();
      Trainer trainer =
          Trainer.create(
              net.collectParams(), o.optimizer(), Map.of("learning_rate", o.lr(), "wd", o.wd()));
      DataLoader loader =
          DataLoader.create(
              train,
              new DataLoader.Options(
                  o.batchSize(), true, DataLoader.LastBatch.KEEP, o.workers(), 0));
      long perEpoch = loader.size();
      long updates = o.epochs() * perEpoch;
      long step = 0;
      double testAcc = 0;
      long t0All = System.nanoTime();
      for (int epoch = 1; epoch <= o.epochs(); epoch++) {
        long t0 = System.nanoTime();
        double lossSum = 0;
        long seen = 0;
        long right = 0;
        for (NDArray[] b : loader) {
          try (NDScope perBatch = new NDScope()) {
            if (o.cosine()) {
              trainer.setLearningRate(o.lr() * (1 + Math.cos(Math.PI * step / updates)) / 2);
            }
            NDArray x = b[0];
            NDArray y = b[1];
            NDArray out;
            NDArray l;
            try (var rec = Autograd.record()) {
              out = net.forward(x);
              l = lossFn.forward(out, y);
            }
            Autograd.backward(l);
            long n = x.shape()[0];
            trainer.step(n);
            step++;
            for (float v : l.toFloatArray()) {
              lossSum += v;
            }
            right += correct(out, y);
            seen += n;
          }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        testAcc = accuracy(net, test, 256);
        log.printf(
            Locale.ROOT,
            "epoch %d/%d: %.1f s, %.0f samples/s, train loss %.4f, train acc %.4f, test acc %.4f%n",
            epoch, o.epochs(), secs, seen / secs, lossSum / seen, (double) right / seen, testAcc);
        net.saveParameters(o.out().resolve("checkpoint.params"));
      }
      net.export(o.out().resolve("model"), 0);
      log.printf(
          Locale.ROOT,
          "test accuracy %.4f after %d epochs (%.1f s); exported %s/model-symbol.json and"
              + " %s/model-0000.params%n",
          testAcc, o.epochs(), (System.nanoTime() - t0All) / 1e9, o.out(), o.out());
      for (int i = 0; i < 5 && i < test.size(); i++) {
        try (NDScope perImage = new NDScope()) {
          NDArray[] s = test.get(i);
          long[] shape = s[0].shape();
          NDArray p = net.forward(s[0].reshape(1, shape[0], shape[1], shape[2]));
          float[] v = p.toFloatArray();
          int pred = 0;
          for (int c = 1; c < v.length; c++) {
            pred = v[c] > v[pred] ? c : pred;
          }
          int truth = s[1].toIntArray()[0];
          log.printf(
              Locale.ROOT, "  test image %d: predicted %-12s true %-12s%s%n", i, CLASSES.get(pred),
              CLASSES.get(truth), pred == truth ? "" : "  (wrong)");
        }
      }
      return new Result(scope.escape(net), testAcc, scope.escape(test));
    }
  }

  /**
   * Runs the command line and exits with its status.
   *
   * @param args the flags (see the class comment)
   */
  public static void main(String[] args) {
    Options d = Options.defaults(Path.of("train_out"));
    Path data = d.data();
    Path out = d.out();
    long limit = d.limit();
    long batch = d.batchSize();
    long seed = d.seed();
    int epochs = d.epochs();
    int workers = d.workers();
    String optimizer = d.optimizer();
    Double lr = null;
    double wd = d.wd();
    boolean cosine = true;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        String name = a.startsWith("--") ? a.substring(2) : a;
        String value;
        int eq = name.indexOf('=');
        if (eq >= 0) {
          value = name.substring(eq + 1);
          name = name.substring(0, eq);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        switch (name.replace('_', '-')) {
          case "epochs" -> epochs = Integer.parseInt(value);
          case "batch-size" -> batch = Long.parseLong(value);
          case "optimizer" -> optimizer = value;
          case "lr" -> lr = Double.parseDouble(value);
          case "lr-schedule" -> {
            if (!value.equals("cosine") && !value.equals("constant")) {
              throw new IllegalArgumentException("--lr-schedule must be cosine or constant");
            }
            cosine = value.equals("cosine");
          }
          case "wd" -> wd = Double.parseDouble(value);
          case "seed" -> seed = Long.parseLong(value);
          case "workers" -> workers = Integer.parseInt(value);
          case "limit" -> limit = Long.parseLong(value);
          case "data" -> data = Path.of(value);
          case "out" -> out = Path.of(value);
          default -> throw new IllegalArgumentException("unknown flag --" + name);
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("train: " + e.getMessage());
      System.exit(2);
    }
    double rate = lr != null ? lr : optimizer.equals("sgd") ? 0.1 : 0.003;
    Options o =
        new Options(data, limit, epochs, batch, optimizer, rate, cosine, wd, seed, workers, out);
    try {
      train(o, System.out);
    } catch (MXNetException | java.io.IOException e) {
      System.err.println("train: " + e.getMessage());
      System.exit(1);
    }
  }
}
