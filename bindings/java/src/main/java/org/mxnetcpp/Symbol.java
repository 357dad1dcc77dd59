package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A symbolic graph (mxnet.symbol.Symbol) in MXNet's JSON (-symbol.json), with its argument,
 * output and auxiliary-state lists, shape and type inference and composition. Immutable: composing
 * or grouping makes a new symbol.
 *
 * <p>Ownership: see {@link NativeResource} (close, {@link NDScope}, or the Cleaner).
 *
 * <p>Threads: immutable, so one symbol may be used by several threads at once; close from any
 * thread.
 */
public final class Symbol extends NativeResource {
  Symbol(long handle) {
    super(handle, Kind.SYMBOL, true);
  }

  /** Takes a +1 handle; adopted by the current NDScope only when {@code scoped}. */
  Symbol(long handle, boolean scoped) {
    super(handle, Kind.SYMBOL, scoped);
  }

  /**
   * Parses MXNet symbol JSON (any version MXNet wrote, legacy ones included).
   *
   * @param json the JSON text
   * @return the symbol
   * @throws MXNetException INVALID_ARGUMENT / DATA_LOSS naming the node and field
   */
  public static Symbol fromJson(String json) {
    return new Symbol(Native.symFromJson(json));
  }

  /**
   * Loads a -symbol.json file.
   *
   * @param path the file
   * @return the symbol
   * @throws MXNetException NOT_FOUND for a missing file; as {@link #fromJson}
   */
  public static Symbol load(Path path) {
    return new Symbol(Native.symLoad(path.toString()));
  }

  /**
   * A variable (mx.sym.var).
   *
   * @param name its name
   * @return the symbol
   * @throws MXNetException INVALID_ARGUMENT for a bad name
   */
  public static Symbol variable(String name) {
    return new Symbol(Native.symVariable(name));
  }

  /**
   * Applies an operator to input symbols (mx.sym.&lt;op&gt;); missing trailing inputs (weight,
   * bias) become variables "&lt;name&gt;_&lt;input&gt;".
   *
   * @param op the operator
   * @param inputs the input symbols
   * @param attrs attribute values (as {@link Op}; null: none)
   * @param name the node name; null or "": automatic ("convolution0")
   * @return the symbol
   * @throws MXNetException INVALID_ARGUMENT for bad attributes or too many inputs
   */
  public static Symbol create(Op op, List<Symbol> inputs, Map<String, ?> attrs, String name) {
    Symbol[] in = inputs.toArray(new Symbol[0]);
    String[][] kv = Op.Attrs.of(attrs);
    try {
      return new Symbol(Native.symCreate(op.handle, handles(in), kv[0], kv[1], name));
    } finally {
      Reference.reachabilityFence(in);
    }
  }

  /**
   * Groups the outputs of several symbols into one (mx.sym.Group).
   *
   * @param symbols the symbols
   * @return the group
   * @throws MXNetException INVALID_ARGUMENT for closed symbols
   */
  public static Symbol group(List<Symbol> symbols) {
    Symbol[] s = symbols.toArray(new Symbol[0]);
    try {
      return new Symbol(Native.symGroup(handles(s)));
    } finally {
      Reference.reachabilityFence(s);
    }
  }

  /**
   * The JSON MXNet 1.9 loads.
   *
   * @return the JSON text
   * @throws MXNetException INVALID_ARGUMENT when closed
   */
  public String toJson() {
    try {
      return Native.symToJson(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes the JSON to {@code path} (temporary file + rename).
   *
   * @param path the file
   * @throws MXNetException the file system's error; INVALID_ARGUMENT when closed
   */
  public void save(Path path) {
    try {
      Native.symSave(handle(), path.toString());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Output {@code index} as its own symbol.
   *
   * @param index the output index
   * @return the symbol
   * @throws MXNetException OUT_OF_RANGE for a bad index
   */
  public Symbol output(int index) {
    try {
      return new Symbol(Native.symOutput(handle(), index));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Every node output of the graph (get_internals).
   *
   * @return the internals as one grouped symbol
   */
  public Symbol getInternals() {
    try {
      return new Symbol(Native.symInternals(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A new graph with the named variables replaced (compose / __call__).
   *
   * @param substitutes variable name to replacing symbol
   * @return the composed symbol
   * @throws MXNetException INVALID_ARGUMENT for a name that is no variable of the graph
   */
  public Symbol compose(Map<String, Symbol> substitutes) {
    String[] names = substitutes.keySet().toArray(new String[0]);
    Symbol[] subs = substitutes.values().toArray(new Symbol[0]);
    try {
      return new Symbol(Native.symCompose(handle(), names, handles(subs)));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(subs);
    }
  }

  /**
   * The head node's name.
   *
   * @return the name; "" for a group
   */
  public String name() {
    try {
      return Native.symName(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Arguments (variables that are not auxiliary states), in MXNet's DFS order.
   *
   * @return the names
   */
  public List<String> listArguments() {
    return list(0);
  }

  /**
   * Outputs ("&lt;node&gt;_output", ...).
   *
   * @return the names
   */
  public List<String> listOutputs() {
    return list(1);
  }

  /**
   * Auxiliary states (BatchNorm's moving_mean / moving_var).
   *
   * @return the names
   */
  public List<String> listAuxiliaryStates() {
    return list(2);
  }

  /**
   * All inputs (arguments and auxiliary states) in DFS order.
   *
   * @return the names
   */
  public List<String> listInputs() {
    return list(3);
  }

  private List<String> list(int which) {
    try {
      return List.of(Native.symList(handle(), which));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Result of shape inference, in the order of listArguments / listOutputs /
   * listAuxiliaryStates; a null entry is an unknown shape, -1 an unknown dim.
   *
   * @param arguments argument shapes
   * @param outputs output shapes
   * @param auxiliaryStates auxiliary-state shapes
   */
  public record Shapes(List<long[]> arguments, List<long[]> outputs, List<long[]> auxiliaryStates) {
    @Override
    public String toString() {
      return "Shapes[arguments=" + str(arguments) + ", outputs=" + str(outputs) + ", aux="
          + str(auxiliaryStates) + "]";
    }

    private static String str(List<long[]> l) {
      List<String> s = new ArrayList<>();
      for (long[] a : l) {
        s.add(a == null ? "?" : Arrays.toString(a));
      }
      return s.toString();
    }
  }

  /**
   * Shape inference from the shapes of some inputs.
   *
   * @param inputShapes input name to shape
   * @param partial false: every shape must come out known; true: unknown shapes are returned as
   *     null / -1
   * @return the shapes of arguments, outputs and auxiliary states
   * @throws MXNetException INVALID_ARGUMENT for an unknown name, contradicting shapes (naming the
   *     node), or (not partial) shapes that stay unknown
   */
  public Shapes inferShape(Map<String, long[]> inputShapes, boolean partial) {
    String[] names = inputShapes.keySet().toArray(new String[0]);
    long[][] shapes = inputShapes.values().toArray(new long[0][]);
    long[][][] r;
    try {
      r = Native.symInferShape(handle(), names, shapes, partial);
    } finally {
      Reference.reachabilityFence(this);
    }
    return new Shapes(
        Arrays.asList(r[0]), Arrays.asList(r[1]), Arrays.asList(r[2]));
  }

  /**
   * Result of type inference (null entries: unknown).
   *
   * @param arguments argument dtypes
   * @param outputs output dtypes
   * @param auxiliaryStates auxiliary-state dtypes
   */
  public record Types(List<DType> arguments, List<DType> outputs, List<DType> auxiliaryStates) {}

  /**
   * Type inference from the dtypes of some inputs.
   *
   * @param inputTypes input name to dtype
   * @return the dtypes of arguments, outputs and auxiliary states
   * @throws MXNetException INVALID_ARGUMENT for an unknown name or contradicting dtypes
   */
  public Types inferType(Map<String, DType> inputTypes) {
    String[] names = inputTypes.keySet().toArray(new String[0]);
    int[] codes = new int[names.length];
    int i = 0;
    for (DType d : inputTypes.values()) {
      codes[i++] = d.code();
    }
    int[][] r;
    try {
      r = Native.symInferType(handle(), names, codes);
    } finally {
      Reference.reachabilityFence(this);
    }
    return new Types(dtypes(r[0]), dtypes(r[1]), dtypes(r[2]));
  }

  private static List<DType> dtypes(int[] codes) {
    List<DType> l = new ArrayList<>(codes.length);
    for (int c : codes) {
      l.add(c < 0 ? null : DType.of(c));
    }
    return l;
  }

  private static long[] handles(Symbol[] s) {
    long[] h = new long[s.length];
    for (int i = 0; i < s.length; i++) {
      if (s[i] == null) {
        throw new MXNetException(MXNetException.INVALID_ARGUMENT, "symbol " + i + " is null");
      }
      h[i] = s[i].handle();
    }
    return h;
  }

  @Override
  public String toString() {
    return isClosed() ? "Symbol(closed)" : "Symbol(" + name() + ")";
  }
}
