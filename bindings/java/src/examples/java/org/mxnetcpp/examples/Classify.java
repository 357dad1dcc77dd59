package org.mxnetcpp.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.mxnetcpp.Block;
import org.mxnetcpp.Device;
import org.mxnetcpp.Image;
import org.mxnetcpp.MXNetException;
import org.mxnetcpp.ModelZoo;
import org.mxnetcpp.NDArray;
import org.mxnetcpp.NDScope;
import org.mxnetcpp.Ops;
import org.mxnetcpp.SymbolBlock;
import org.mxnetcpp.Transform;

/**
 * {@code classify}: the top-k classes of images through an exported or model-zoo model, with the
 * flags and output lines of {@code mxnet classify}:
 *
 * <pre>
 * java ... org.mxnetcpp.examples.Classify --symbol F-symbol.json --params F-0000.params \
 *     --image IMG [IMG ...] [--labels FILE] [--input-size 224] [--resize N] \
 *     [--mean 0.485,0.456,0.406] [--std 0.229,0.224,0.225] [--topk 5] [--device cpu] \
 *     [--interp bilinear|bicubic|lanczos|area|nearest]
 * java ... org.mxnetcpp.examples.Classify --model NAME [--classes 1000] --params F.params ...
 * </pre>
 *
 * Each image: decoded to RGB (H, W, 3) uint8, short side resized to --resize (default 256 for a
 * 224 input, else the input size; the long side rounded), center crop --input-size, ToTensor,
 * Normalize, batch of one (1, 3, S, S); softmax of the net's output; prints "PATH:" and lines
 * "  K. NAME  P" (P with 4 decimals). Exit status 0, 1 for errors (the message on stderr), 2 for
 * bad usage.
 */
public final class Classify {
  private Classify() {}

  /** Parsed flags. */
  private static final class Flags {
    String symbol;
    String model;
    String params;
    String labels;
    Long classes;
    Long inputSize;
    Long resize;
    String mean = "0.485,0.456,0.406";
    String std = "0.229,0.224,0.225";
    long topk = 5;
    String device = "cpu";
    String interp = "bilinear";
    final List<String> images = new ArrayList<>();
  }

  /**
   * Runs the command line and exits with its status.
   *
   * @param args the arguments (see the class comment)
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the command line, printing to {@code out} and errors to {@code err}.
   *
   * @param args the arguments (see the class comment)
   * @param out where the classes go
   * @param err where errors go
   * @return the exit status: 0 success, 1 error, 2 bad usage
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Flags f;
    try {
      f = parse(args);
    } catch (IllegalArgumentException e) {
      err.println("classify: " + e.getMessage());
      return 2;
    }
    try (NDScope scope = new NDScope()) {
      classify(f, out);
      return 0;
    } catch (MXNetException | IOException | IllegalArgumentException e) {
      err.println("classify: " + e.getMessage());
      return 1;
    }
  }

  private static Flags parse(String[] args) {
    Flags f = new Flags();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        f.images.add(a);
        continue;
      }
      String name = a.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        value = args[++i];
      }
      switch (name.replace('_', '-')) {
        case "symbol" -> f.symbol = value;
        case "model" -> f.model = value;
        case "params" -> f.params = value;
        case "image" -> f.images.add(value);
        case "labels" -> f.labels = value;
        case "classes" -> f.classes = parseLong(name, value);
        case "input-size" -> f.inputSize = parseLong(name, value);
        case "resize" -> f.resize = parseLong(name, value);
        case "mean" -> f.mean = value;
        case "std" -> f.std = value;
        case "topk" -> f.topk = parseLong(name, value);
        case "device" -> f.device = value;
        case "interp" -> f.interp = value;
        default -> throw new IllegalArgumentException("unknown flag --" + name);
      }
    }
    if (f.params == null) {
      throw new IllegalArgumentException("--params is required");
    }
    if (f.images.isEmpty()) {
      throw new IllegalArgumentException("--image is required");
    }
    return f;
  }

  private static long parseLong(String flag, String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + flag + " must be an integer, got '" + v + "'");
    }
  }

  private static float[] parseFloats(String flag, String v) {
    String[] parts = v.split(",");
    float[] r = new float[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        r[i] = (float) Double.parseDouble(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--" + flag + " must be comma-separated numbers, got '" + v + "'");
      }
    }
    return r;
  }

  private static Device parseDevice(String v) {
    String s = v.trim().toLowerCase(Locale.ROOT);
    if (s.equals("cpu") || s.equals("cpu(0)")) {
      return Device.cpu();
    }
    if (s.startsWith("gpu(") && s.endsWith(")")) {
      return Device.gpu(Integer.parseInt(s.substring(4, s.length() - 1)));
    }
    if (s.equals("gpu")) {
      return Device.gpu(0);
    }
    throw new IllegalArgumentException("--device must be cpu, cpu(0), gpu or gpu(N), got '" + v + "'");
  }

  /** --labels: a JSON list of strings, or one name per line. */
  static List<String> readLabels(String path) throws IOException {
    String text = Files.readString(Path.of(path), StandardCharsets.UTF_8);
    List<String> labels = new ArrayList<>();
    String t = text.strip();
    if (t.startsWith("[") && t.endsWith("]")) {
      // A flat JSON list of strings (the usual labels file); no escapes beyond \" and \\.
      int i = 1;
      while (i < t.length() - 1) {
        char c = t.charAt(i);
        if (c == '"') {
          StringBuilder sb = new StringBuilder();
          i++;
          while (i < t.length() && t.charAt(i) != '"') {
            if (t.charAt(i) == '\\' && i + 1 < t.length()) {
              i++;
            }
            sb.append(t.charAt(i++));
          }
          labels.add(sb.toString());
        }
        i++;
      }
      return labels;
    }
    for (String line : text.split("\n")) {
      if (!line.strip().isEmpty()) {
        labels.add(line.strip());
      }
    }
    return labels;
  }

  private static Block loadNet(Flags f, Device dev) {
    if ((f.symbol != null) == (f.model != null)) {
      throw new IllegalArgumentException(
          "give exactly one of --symbol (an exported -symbol.json) or --model (a model-zoo"
              + " architecture) (see mxnet classify --help)");
    }
    if (f.symbol != null) {
      if (f.classes != null) {
        throw new IllegalArgumentException("--classes applies to --model only");
      }
      return SymbolBlock.imports(Path.of(f.symbol), List.of("data"), Path.of(f.params), dev);
    }
    long classes = f.classes == null ? 1000 : f.classes;
    if (classes < 1) {
      throw new IllegalArgumentException("--classes must be >= 1, got " + classes);
    }
    Block net = ModelZoo.get(f.model, ModelZoo.ModelOptions.classes(classes));
    net.loadParameters(
        Path.of(f.params), new Block.LoadParametersOptions(dev, false, false, false));
    net.hybridize();
    return net;
  }

  /**
   * classify's preprocessing: the image decoded to RGB (H, W, 3) uint8, its short side resized to
   * {@code resize} (long side rounded, antialiased), the (size, size) center crop, ToTensor and
   * Normalize(mean, std).
   *
   * @param image a JPEG or PNG file
   * @param size the crop side S
   * @param resize the short side after resizing
   * @param interp the resize filter
   * @param mean per-channel means (RGB, [0, 1] scale)
   * @param std per-channel standard deviations
   * @return the batch of one, (1, 3, S, S) float32 (NCHW), on cpu(0), owned by the caller's
   *     NDScope, if any
   * @throws MXNetException for unreadable images or bad sizes
   */
  public static NDArray preprocess(
      Path image, long size, long resize, Image.Interp interp, float[] mean, float[] std) {
    try (NDScope scope = new NDScope()) {
      Transform prep =
          Transform.compose(
              Transform.centerCrop(size, size, Image.Interp.BILINEAR),
              Transform.toTensor(),
              Transform.normalize(mean, std));
      NDArray x = prep.apply(Image.resizeShort(Image.read(image), resize, interp, true));
      long[] s = x.shape();
      return scope.escape(x.reshape(1, s[0], s[1], s[2]));
    }
  }

  private static void classify(Flags f, PrintStream out) throws IOException {
    long size =
        f.inputSize != null || f.model == null
            ? (f.inputSize == null ? 224 : f.inputSize)
            : (f.model.equalsIgnoreCase("inceptionv3") ? 299 : 224);
    long resize = f.resize != null ? f.resize : size == 224 ? 256 : size;
    if (f.topk < 1) {
      throw new IllegalArgumentException("--topk must be >= 1, got " + f.topk);
    }
    float[] mean = parseFloats("mean", f.mean);
    float[] std = parseFloats("std", f.std);
    Device dev = parseDevice(f.device);
    Image.Interp interp = Image.Interp.of(f.interp);
    List<String> labels = f.labels == null ? List.of() : readLabels(f.labels);
    Block net = loadNet(f, dev);
    for (String path : f.images) {
      try (NDScope perImage = new NDScope()) {
        NDArray batch = preprocess(Path.of(path), size, resize, interp, mean, std).copyTo(dev);
        NDArray prob = Ops.softmax(net.forward(batch), null);
        printTopK(out, path, prob.toFloatArray(), labels, f.topk);
      }
    }
  }

  /**
   * Prints "PATH:" and the k most probable classes, best first, as {@code mxnet classify} does
   * ("  1. NAME (padded to 30)  0.9934"; C's %.4f rounding).
   */
  static void printTopK(PrintStream out, String path, float[] prob, List<String> labels, long topk) {
    int k = (int) Math.min(topk, prob.length);
    List<Integer> idx = new ArrayList<>();
    for (int i = 0; i < prob.length; i++) {
      idx.add(i);
    }
    idx.sort(Comparator.comparingDouble((Integer i) -> prob[i]).reversed());
    StringBuilder sb = new StringBuilder();
    sb.append(path).append(":\n");
    for (int i = 0; i < k; i++) {
      int c = idx.get(i);
      String name = c < labels.size() ? labels.get(c) : "class " + c;
      String p = new BigDecimal((double) prob[c]).setScale(4, RoundingMode.HALF_EVEN).toPlainString();
      sb.append(String.format(Locale.ROOT, "  %d. %-30s %s%n", i + 1, name, p));
    }
    out.print(sb);
  }
}
