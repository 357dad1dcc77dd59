package org.mxnetcpp;

import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A block over a symbolic graph (mxnet.gluon.SymbolBlock): an exported model read back
 * ({@link #imports}) or a network built from {@link Symbol}s ({@link #create}).
 *
 * <p>Ownership and threads: as {@link Block}.
 */
public final class SymbolBlock extends Block {
  /** The graph (a reference of our own, not scoped), for {@link #export}. */
  private final Symbol graph;

  private SymbolBlock(long handle, Symbol graph) {
    super(handle);
    this.graph = graph;
  }

  /**
   * SymbolBlock.imports: an exported {@code -symbol.json} with data inputs {@code inputNames}
   * and its parameters (arg:/aux: keys; files of MXNet 1.x/2.x or ours) on cpu(0).
   *
   * @param symbolFile the -symbol.json file
   * @param inputNames the data inputs (usually {@code List.of("data")})
   * @param paramFile the -NNNN.params file, or null for uninitialized parameters
   * @return the block (not hybridized; call {@link #hybridize()} for the cached graph)
   * @throws MXNetException NOT_FOUND for missing files; INVALID_ARGUMENT / DATA_LOSS for bad JSON;
   *     INVALID_ARGUMENT naming missing or extra parameters
   */
  public static SymbolBlock imports(Path symbolFile, List<String> inputNames, Path paramFile) {
    return imports(symbolFile, inputNames, paramFile, null);
  }

  /**
   * SymbolBlock.imports with the parameters placed on {@code device}.
   *
   * @param symbolFile the -symbol.json file
   * @param inputNames the data inputs
   * @param paramFile the -NNNN.params file, or null
   * @param device where the parameters go (null: cpu(0))
   * @return the block
   * @throws MXNetException as {@link #imports(Path, List, Path)}
   */
  public static SymbolBlock imports(
      Path symbolFile, List<String> inputNames, Path paramFile, Device device) {
    Device d = device == null ? Device.cpu() : device;
    long h =
        Native.symbolBlockImports(
            symbolFile.toString(),
            inputNames.toArray(new String[0]),
            paramFile == null ? null : paramFile.toString(),
            d.type(),
            d.id());
    Symbol graph;
    try {
      graph = new Symbol(Native.symLoad(symbolFile.toString()), false);
    } catch (RuntimeException e) {
      Native.blockFree(h);
      throw e;
    }
    return new SymbolBlock(h, graph);
  }

  /**
   * SymbolBlock(outputs, inputs): every variable of the graph other than the inputs becomes a
   * parameter named after it (auxiliary states with grad_req null), uninitialized: call
   * {@link #initialize}; shapes are inferred on the first call.
   *
   * @param outputs the graph (a {@link Symbol#group} for several outputs)
   * @param inputNames the data inputs
   * @return the block
   * @throws MXNetException INVALID_ARGUMENT for an input name that is no variable of the graph
   */
  public static SymbolBlock create(Symbol outputs, List<String> inputNames) {
    try {
      long h = Native.symbolBlockCreate(outputs.handle(), inputNames.toArray(new String[0]));
      Symbol graph;
      try {
        graph = new Symbol(Native.symFromJson(Native.symToJson(outputs.handle())), false);
      } catch (RuntimeException e) {
        Native.blockFree(h);
        throw e;
      }
      return new SymbolBlock(h, graph);
    } finally {
      Reference.reachabilityFence(outputs);
    }
  }

  /**
   * The graph of this block (a new reference; close it when done).
   *
   * @return the symbol
   */
  public Symbol graph() {
    return Symbol.fromJson(graph.toJson());
  }

  /**
   * Writes {@code prefix-symbol.json} and {@code prefix-NNNN.params} (arg:/aux: keys) as
   * HybridBlock.export does. SymbolBlock.export needs no call first (as in MXNet): when the C
   * ABI's export has no traced graph (libmxc 1.0's SymbolBlock never traces, see
   * CAPI_REQUESTS.md), the binding writes the block's own graph and its parameters' values.
   *
   * @param prefix the path prefix
   * @param epoch the NNNN in the params file name
   * @throws MXNetException FAILED_PRECONDITION for uninitialized parameters; the file system's
   *     errors
   */
  @Override
  public void export(Path prefix, int epoch) {
    try {
      super.export(prefix, epoch);
      return;
    } catch (MXNetException e) {
      if (e.code() != MXNetException.FAILED_PRECONDITION) {
        throw e;
      }
    }
    List<String> args = graph.listArguments();
    List<String> aux = graph.listAuxiliaryStates();
    try (NDScope scope = new NDScope();
        ParameterDict params = collectParams()) {
      Map<String, NDArray> arrays = new LinkedHashMap<>();
      for (Parameter p : params) {
        if (args.contains(p.name())) {
          arrays.put("arg:" + p.name(), p.data());
        } else if (aux.contains(p.name())) {
          arrays.put("aux:" + p.name(), p.data());
        }
      }
      graph.save(Path.of(prefix + "-symbol.json"));
      NDArray.save(
          Path.of(prefix + String.format(Locale.ROOT, "-%04d.params", epoch)),
          arrays,
          NDArray.SaveOptions.DEFAULT);
      Reference.reachabilityFence(scope);
    }
  }
}
