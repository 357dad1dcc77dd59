package org.mxnetcpp;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A registered operator (mxc_op): its metadata and the generic by-name call. The typed methods of
 * {@code Ops} are generated from this metadata and call {@link #invoke} underneath.
 *
 * <pre>{@code
 * NDArray[] out = Op.get("dot").invoke(Map.of("transpose_b", true), a, b);
 * }</pre>
 *
 * <p>Attribute values ({@code Map<String, ?>}) are converted to MXNet's string form: Boolean
 * "True"/"False", numbers in decimal, {@code int[]}/{@code long[]}/{@code float[]}/{@code double[]}
 * and Lists as tuples "(3, 3)", {@link DType} as its name ("float32"), null as "None", strings
 * as they are.
 *
 * <p>Ops are immortal (no close). Threads: every method may be called from any thread
 * concurrently; an invoke runs under a {@link Ctx}, which is used by one thread at a time (the
 * calling thread's current ctx by default).
 */
public final class Op {
  private static final ConcurrentHashMap<String, Op> BY_NAME = new ConcurrentHashMap<>();

  final long handle;
  private final String name;
  private volatile Info info;

  private Op(long handle, String name) {
    this.handle = handle;
    this.name = name;
  }

  /**
   * The operator named {@code name} (canonical name or alias, e.g. "relu", "Convolution",
   * "_plus").
   *
   * @param name the operator's name
   * @return the operator
   * @throws MXNetException NOT_FOUND "unknown operator 'X'"
   */
  public static Op get(String name) {
    Op op = BY_NAME.get(name);
    if (op == null) {
      long h = Native.opFind(name);
      String canonical = (String) Native.opInfo(h)[0];
      op = BY_NAME.computeIfAbsent(name, n -> new Op(h, canonical));
    }
    return op;
  }

  /**
   * The canonical names of every registered operator, in name order (aliases not included).
   *
   * @return the names
   */
  public static List<String> names() {
    long n = Native.opCount();
    List<String> out = new ArrayList<>((int) n);
    for (long i = 0; i < n; i++) {
      out.add((String) Native.opInfo(Native.opAt(i))[0]);
    }
    return out;
  }

  /**
   * The canonical name.
   *
   * @return e.g. "Convolution"
   */
  public String name() {
    return name;
  }

  /** Attribute value kinds (MXC_ATTR_*), with the string form mxc_invoke takes. */
  public enum AttrKind {
    /** A string (or an enum-like choice). */
    STRING,
    /** "True"/"False". */
    BOOL,
    /** A 32-bit integer. */
    INT,
    /** A 64-bit integer. */
    LONG,
    /** A 32-bit float. */
    FLOAT,
    /** A 64-bit float. */
    DOUBLE,
    /** A tuple of ints, "(3, 3)". */
    SHAPE,
    /** A tuple of floats. */
    FLOAT_TUPLE,
    /** A dtype name, "float32". */
    DTYPE
  }

  /**
   * One attribute of an operator.
   *
   * @param name the attribute's name ("kernel")
   * @param type the C++ schema's type text ("Shape(tuple)", "optional&lt;int&gt;")
   * @param kind the value kind
   * @param optional "None" is accepted
   * @param required a value must be given
   * @param defaultValue the default in string form, null when required
   * @param doc the description
   * @param choices allowed values of enum-like attributes (empty: any value of the kind)
   */
  public record Attr(
      String name,
      String type,
      AttrKind kind,
      boolean optional,
      boolean required,
      String defaultValue,
      String doc,
      List<String> choices) {}

  /**
   * An operator's metadata (mxc_op_info plus its attributes).
   *
   * @param name canonical name
   * @param doc description (may be empty)
   * @param numInputs inputs with the default attributes; -1 when they depend on attributes
   * @param numOutputs visible outputs with the default attributes; -1 when they depend on attributes
   * @param inputNames input names for the default attributes (empty when the defaults do not
   *     determine them)
   * @param aliases other names
   * @param attrs the attributes
   * @param variadicAttr the attribute giving the input count of a variadic operator ("num_args"),
   *     or null
   * @param differentiable the operator has a gradient
   * @param isCreation the operator creates arrays from attributes alone (zeros, samplers)
   */
  public record Info(
      String name,
      String doc,
      int numInputs,
      int numOutputs,
      List<String> inputNames,
      List<String> aliases,
      List<Attr> attrs,
      String variadicAttr,
      boolean differentiable,
      boolean isCreation) {}

  /**
   * The operator's metadata.
   *
   * @return the info (cached)
   */
  public Info info() {
    Info i = info;
    if (i == null) {
      Object[] r = Native.opInfo(handle);
      int[] ints = (int[]) r[2];
      List<Attr> attrs = new ArrayList<>(ints[4]);
      for (int k = 0; k < ints[4]; k++) {
        Object[] a = Native.opAttr(handle, k);
        int[] ai = (int[]) a[2];
        attrs.add(
            new Attr(
                (String) a[0],
                (String) a[1],
                AttrKind.values()[ai[0]],
                ai[1] != 0,
                ai[2] != 0,
                (String) a[3],
                (String) a[4],
                List.of((String[]) a[5])));
      }
      i =
          new Info(
              (String) r[0],
              (String) r[1],
              ints[0],
              ints[1],
              List.of((String[]) r[3]),
              List.of((String[]) r[4]),
              List.copyOf(attrs),
              (String) r[5],
              ints[2] != 0,
              ints[3] != 0);
      info = i;
    }
    return i;
  }

  /**
   * Input count and visible output count for the given attributes.
   *
   * @param attrs attribute values (see the class comment)
   * @return {numInputs, numOutputs}
   * @throws MXNetException INVALID_ARGUMENT for bad attributes (naming the op and attribute)
   */
  public long[] numIo(Map<String, ?> attrs) {
    String[][] kv = Attrs.of(attrs);
    return Native.opNumIo(handle, kv[0], kv[1]);
  }

  /**
   * Input names for the given attributes (Convolution with no_bias true: data, weight).
   *
   * @param attrs attribute values
   * @return the names
   * @throws MXNetException INVALID_ARGUMENT for bad or missing required attributes
   */
  public List<String> inputNames(Map<String, ?> attrs) {
    String[][] kv = Attrs.of(attrs);
    return List.of(Native.opInputNames(handle, kv[0], kv[1]));
  }

  /**
   * Runs the operator without attributes under the current ctx.
   *
   * @param inputs the input arrays
   * @return the visible outputs, new arrays (owned by the current scope / caller)
   * @throws MXNetException as {@link #invoke(Ctx, NDArray[], Map)}
   */
  public NDArray[] invoke(NDArray... inputs) {
    return call(Ctx.current(), inputs, null, null);
  }

  /**
   * Runs the operator with attributes under the current ctx.
   *
   * @param attrs attribute values (see the class comment)
   * @param inputs the input arrays
   * @return the visible outputs
   * @throws MXNetException as {@link #invoke(Ctx, NDArray[], Map)}
   */
  public NDArray[] invoke(Map<String, ?> attrs, NDArray... inputs) {
    return invoke(Ctx.current(), inputs, attrs);
  }

  /**
   * Runs the operator (mxc_invoke) under {@code ctx}: recorded for autograd when it records,
   * training behaviour when it trains, random operators drawing from its stream; creation
   * operators run on its default device unless a "ctx" attribute is given.
   *
   * @param ctx the state to run under
   * @param inputs the input arrays (shapes and dtypes as the operator requires)
   * @param attrs attribute values (null: none)
   * @return the visible outputs, new arrays (owned by the current scope / caller)
   * @throws MXNetException INVALID_ARGUMENT for bad attributes (naming the attribute and value), a
   *     wrong input count, shapes or dtypes (naming the op and input), closed arrays, mixed
   *     devices
   */
  public NDArray[] invoke(Ctx ctx, NDArray[] inputs, Map<String, ?> attrs) {
    String[][] kv = Attrs.of(attrs);
    return call(ctx, inputs, kv[0], kv[1]);
  }

  /**
   * Runs the operator named {@code name} under the current ctx (by-name call).
   *
   * @param name operator name or alias
   * @param attrs attribute values (null: none)
   * @param inputs the input arrays
   * @return the visible outputs
   * @throws MXNetException NOT_FOUND for an unknown operator; as {@link #invoke(Ctx, NDArray[],
   *     Map)}
   */
  public static NDArray[] invoke(String name, Map<String, ?> attrs, NDArray... inputs) {
    return get(name).invoke(Ctx.current(), inputs, attrs);
  }

  // ---- the call path shared with Ops ----

  NDArray[] call(Ctx ctx, NDArray[] inputs, String[] keys, String[] values) {
    byte[] attrs = Attrs.encode(keys, values);
    int numAttrs = keys == null ? 0 : keys.length;
    if (inputs.length <= 2 && singleOutput()) {
      // Fast path: handles as scalars, one output handle back.
      long in0 = inputs.length > 0 ? handleOf(inputs, 0) : 0;
      long in1 = inputs.length > 1 ? handleOf(inputs, 1) : 0;
      long out;
      try {
        synchronized (ctx) {
          out = Native.invoke1(ctx.handle(), handle, inputs.length, in0, in1, attrs, numAttrs);
        }
      } finally {
        Reference.reachabilityFence(inputs);
        Reference.reachabilityFence(ctx);
      }
      return new NDArray[] {new NDArray(out)};
    }
    long[] in = NDArray.handles(inputs);
    long[] out;
    try {
      synchronized (ctx) {
        out = Native.invoke(ctx.handle(), handle, in, attrs, numAttrs);
      }
    } finally {
      Reference.reachabilityFence(inputs);
      Reference.reachabilityFence(ctx);
    }
    NDArray[] r = new NDArray[out.length];
    for (int i = 0; i < out.length; i++) {
      r[i] = new NDArray(out[i]);
    }
    return r;
  }

  private static long handleOf(NDArray[] inputs, int i) {
    if (inputs[i] == null) {
      throw new MXNetException(MXNetException.INVALID_ARGUMENT, "array " + i + " is null");
    }
    return inputs[i].handle();
  }

  /** 1: always exactly one visible output; 0: not (or depends on attributes); -1: unknown yet. */
  private volatile int single = -1;

  private boolean singleOutput() {
    int s = single;
    if (s < 0) {
      s = info().numOutputs() == 1 ? 1 : 0;
      single = s;
    }
    return s == 1;
  }

  /** Runs an operator with one visible output. */
  NDArray call1(NDArray... inputs) {
    return call(Ctx.current(), inputs, null, null)[0];
  }

  private static final String[] SCALAR_KEY = {"scalar"};

  NDArray call1Scalar(NDArray x, double s) {
    return call(Ctx.current(), new NDArray[] {x}, SCALAR_KEY, new String[] {Attrs.str(s)})[0];
  }

  /** An operator looked up on first use (no registry call at class initialisation). */
  static final class Lazy {
    private final String name;
    private volatile Op op;

    Lazy(String name) {
      this.name = name;
    }

    Op get() {
      Op o = op;
      if (o == null) {
        o = Op.get(name);
        op = o;
      }
      return o;
    }
  }

  static final Lazy BROADCAST_ADD = new Lazy("broadcast_add");
  static final Lazy BROADCAST_SUB = new Lazy("broadcast_sub");
  static final Lazy BROADCAST_MUL = new Lazy("broadcast_mul");
  static final Lazy BROADCAST_DIV = new Lazy("broadcast_div");
  static final Lazy PLUS_SCALAR = new Lazy("_plus_scalar");
  static final Lazy MINUS_SCALAR = new Lazy("_minus_scalar");
  static final Lazy MUL_SCALAR = new Lazy("_mul_scalar");
  static final Lazy DIV_SCALAR = new Lazy("_div_scalar");
  static final Lazy SUM = new Lazy("sum");

  /** Attribute values to MXNet's string form. */
  static final class Attrs {
    private Attrs() {}

    static String[][] of(Map<String, ?> attrs) {
      if (attrs == null || attrs.isEmpty()) {
        return new String[][] {null, null};
      }
      String[] k = new String[attrs.size()];
      String[] v = new String[attrs.size()];
      int i = 0;
      for (Map.Entry<String, ?> e : attrs.entrySet()) {
        k[i] = e.getKey();
        v[i] = str(e.getValue());
        i++;
      }
      return new String[][] {k, v};
    }

    /**
     * Keys and values as one UTF-8 byte array "k0\0v0\0k1\0v1\0..." (one JNI copy instead of
     * several calls per string); null for no attributes.
     */
    static byte[] encode(String[] keys, String[] values) {
      if (keys == null || keys.length == 0) {
        return null;
      }
      if (values == null || values.length != keys.length) {
        throw new MXNetException(
            MXNetException.INVALID_ARGUMENT, "attributes: keys and values differ in length");
      }
      int len = 0;
      for (int i = 0; i < keys.length; i++) {
        len += checked(keys[i], "key").length() + checked(values[i], keys[i]).length() + 2;
      }
      byte[] b = new byte[len];
      int at = 0;
      for (int i = 0; i < keys.length; i++) {
        at = ascii(keys[i], b, at);
        at = at < 0 ? at : ascii(values[i], b, at);
        if (at < 0) {
          return encodeUtf8(keys, values);
        }
      }
      return b;
    }

    /** Copies an ASCII string and a NUL into b at `at`; -1 when s is not ASCII. */
    private static int ascii(String s, byte[] b, int at) {
      for (int j = 0, n = s.length(); j < n; j++) {
        char c = s.charAt(j);
        if (c >= 0x80) {
          return -1;
        }
        b[at++] = (byte) c;
      }
      b[at++] = 0;
      return at;
    }

    private static String checked(String s, String what) {
      if (s == null) {
        throw new MXNetException(MXNetException.INVALID_ARGUMENT, "attribute " + what + " is null");
      }
      if (s.indexOf('\0') >= 0) {
        throw new MXNetException(
            MXNetException.INVALID_ARGUMENT, "attribute " + what + " contains a NUL character");
      }
      return s;
    }

    private static byte[] encodeUtf8(String[] keys, String[] values) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      for (int i = 0; i < keys.length; i++) {
        out.writeBytes(keys[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
        out.write(0);
        out.writeBytes(values[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
        out.write(0);
      }
      return out.toByteArray();
    }

    static String str(Object o) {
      if (o == null) {
        return "None";
      } else if (o instanceof Boolean b) {
        return b ? "True" : "False";
      } else if (o instanceof String s) {
        return s;
      } else if (o instanceof DType d) {
        return d.mxName();
      } else if (o instanceof Double d) {
        return str(d.doubleValue());
      } else if (o instanceof Float f) {
        return str(f.floatValue());
      } else if (o instanceof int[] a) {
        long[] l = new long[a.length];
        for (int i = 0; i < a.length; i++) {
          l[i] = a[i];
        }
        return tuple(l);
      } else if (o instanceof long[] a) {
        return tuple(a);
      } else if (o instanceof float[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
          d[i] = a[i];
        }
        return tuple(d);
      } else if (o instanceof double[] a) {
        return tuple(a);
      } else if (o instanceof Collection<?> c) {
        StringBuilder sb = new StringBuilder("(");
        int i = 0;
        for (Object x : c) {
          sb.append(i++ == 0 ? "" : ", ").append(str(x));
        }
        return sb.append(c.size() == 1 ? ",)" : ")").toString();
      }
      return o.toString();
    }

    static String str(double d) {
      if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        return Long.toString((long) d) + ".0";
      }
      return Double.toString(d);
    }

    static String str(float f) {
      if (f == Math.rint(f) && Math.abs(f) < 1e7f) {
        return Long.toString((long) f) + ".0";
      }
      return Float.toString(f);
    }

    static String str(boolean b) {
      return b ? "True" : "False";
    }

    static String str(int i) {
      return Integer.toString(i);
    }

    static String str(long i) {
      return Long.toString(i);
    }

    static String tuple(long... a) {
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < a.length; i++) {
        sb.append(i == 0 ? "" : ", ").append(a[i]);
      }
      return sb.append(a.length == 1 ? ",)" : ")").toString();
    }

    static String tuple(double... a) {
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < a.length; i++) {
        sb.append(i == 0 ? "" : ", ").append(str(a[i]));
      }
      return sb.append(a.length == 1 ? ",)" : ")").toString();
    }
  }

  @Override
  public String toString() {
    return "Op(" + name + ")";
  }
}
