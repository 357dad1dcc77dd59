// Symbolic graphs (mxnet.symbol): the graph IR that hybridize() traces into, MXNet-compatible
// JSON, shape/type inference, and composition. Every registry op is usable on Symbols through
// Symbol::Create (the same op definitions as the imperative API).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ndarray/op.h"

namespace mxnet::sym {

struct Node;

// One output of a node.
struct NodeEntry {
  std::shared_ptr<Node> node;
  int index = 0;
  int version = 0;  // MXNet's mutation counter; kept for JSON round trips, otherwise ignored
};

// A graph node: an operator application, or a variable when op == nullptr.
struct Node {
  const Op* op = nullptr;
  std::string name;
  OpAttrs attrs;        // parsed operator attributes (ops only)
  AttrDict params;      // the operator attributes in string form as given (JSON writes these)
  AttrDict user_attrs;  // hidden/user attributes: __shape__, __dtype__, __lr_mult__, __init__, ...
  std::vector<NodeEntry> inputs;
  std::vector<std::shared_ptr<Node>> control_deps;

  Node() = default;
  Node(const Node&) = default;
  Node(Node&&) = default;
  Node& operator=(const Node&) = default;
  Node& operator=(Node&&) = default;
  // Releases the inputs it holds the last reference to iteratively: destroying a graph N nodes
  // deep takes constant stack (a recursive release overflowed at ~10^5 nodes).
  ~Node();

  bool is_variable() const { return op == nullptr; }
  int num_outputs() const { return op ? op->NumOutputs(attrs) : 1; }
  int num_visible_outputs() const { return op ? op->NumVisibleOutputs(attrs) : 1; }
};

// Options of a variable (mx.sym.var keyword arguments).
struct VarOptions {
  std::optional<Shape> shape;  // written as __shape__ (unknown dims -1)
  std::optional<DType> dtype;  // __dtype__
  std::optional<double> lr_mult, wd_mult;
  std::string init;  // __init__ (initializer name or its JSON dump)
  AttrDict attrs;    // further user attributes
};

// Shapes/types of a graph's arguments, outputs and auxiliary states (infer_shape's result).
template <typename T>
struct InferResult {
  std::vector<T> arg, out, aux;
};

class Symbol {
 public:
  Symbol() = default;
  explicit Symbol(std::vector<NodeEntry> outputs) : outputs_(std::move(outputs)) {}

  // A variable (mx.sym.var / Variable).
  static Symbol Variable(const std::string& name, const VarOptions& opts = {});
  // Applies `op` to `inputs` (positional; a missing trailing input, e.g. weight/bias, becomes a
  // new variable named "<name>_<input name>" like MXNet). Name: `name` or an automatic
  // "<op hint><N>" (convolution0, _plus1, ...) from the current NameManager.
  static Symbol Create(const Op& op, const OpAttrs& attrs, const std::vector<Symbol>& inputs,
                       const std::string& name = "", const AttrDict& user_attrs = {});
  // The same with string attributes (by op name; throws on bad attributes naming the op).
  static Symbol Create(std::string_view op_name, const std::vector<Symbol>& inputs,
                       const AttrDict& attrs = {}, const std::string& name = "");
  // Groups several symbols' outputs into one symbol (mx.sym.Group).
  static Symbol Group(const std::vector<Symbol>& symbols);

  const std::vector<NodeEntry>& outputs() const { return outputs_; }
  size_t num_outputs() const { return outputs_.size(); }
  // Output i as its own symbol; by name ("fc1_output"), throws kNotFound listing the outputs.
  Symbol operator[](size_t i) const;
  Symbol operator[](std::string_view output_name) const;
  // Every node output of the graph, in topological order (mx.sym.get_internals).
  Symbol get_internals() const;
  // The inputs of the head node (mx.sym.get_children); empty for a variable.
  Symbol get_children() const;
  // Name of the single head node ("" for groups).
  std::string name() const;

  // Variables in DFS order: arguments (not aux), outputs ("<node>_output", "<node>_<name>" for
  // multi-output ops), auxiliary states (inputs mutated by ops, e.g. BatchNorm moving stats),
  // and all inputs (args and aux, DFS order).
  std::vector<std::string> list_arguments() const;
  std::vector<std::string> list_outputs() const;
  std::vector<std::string> list_auxiliary_states() const;
  std::vector<std::string> list_inputs() const;

  // User attribute `key` of the head node (e.g. "__shape__"), if set.
  std::optional<std::string> attr(const std::string& key) const;
  // name -> attributes (params and user attrs) of every node with any (mx attr_dict).
  std::map<std::string, AttrDict> attr_dict() const;
  // Sets user attributes on the head node(s) (mx._set_attr).
  void set_attr(const std::string& key, const std::string& value);

  // Shape inference from known input shapes (by variable name). Complete: throws
  // kInvalidArgument naming the nodes/variables whose shapes stay unknown or disagree.
  InferResult<Shape> infer_shape(const std::map<std::string, Shape>& known) const;
  // Partial: unknown shapes are returned as unknown (ndim -1 or -1 dims).
  InferResult<Shape> infer_shape_partial(const std::map<std::string, Shape>& known) const;
  InferResult<int> infer_type(const std::map<std::string, DType>& known) const;

  // Substitutes variables by name with other symbols (mx.sym.Symbol.__call__ / compose).
  // Returns a new graph; the original is unchanged. Unknown names are an error.
  Symbol compose(const std::map<std::string, Symbol>& substitutes) const;
  // A deep copy of the graph (new nodes).
  Symbol copy() const;

  // MXNet JSON (written as MXNet 1.9.1 loads it; docs/formats.md §3).
  std::string tojson() const;
  static absl::StatusOr<Symbol> fromjson(std::string_view json);
  absl::Status save(const std::string& path) const;  // atomic (temp file + rename)
  static absl::StatusOr<Symbol> load(const std::string& path);

  // Nodes reachable from the outputs in MXNet's DFS post-order (inputs before consumers).
  std::vector<std::shared_ptr<Node>> TopoNodes() const;

 private:
  std::vector<NodeEntry> outputs_;
};

// Arithmetic on symbols, like mxnet.symbol (x + y -> elemwise_add named _plusN; x + 2 ->
// _plus_scalar named _plusscalarN; broadcasting versions via the broadcast_* ops).
Symbol operator+(const Symbol& a, const Symbol& b);
Symbol operator-(const Symbol& a, const Symbol& b);
Symbol operator*(const Symbol& a, const Symbol& b);
Symbol operator/(const Symbol& a, const Symbol& b);
Symbol operator+(const Symbol& a, double s);
Symbol operator-(const Symbol& a, double s);
Symbol operator*(const Symbol& a, double s);
Symbol operator/(const Symbol& a, double s);
Symbol operator+(double s, const Symbol& a);
Symbol operator-(double s, const Symbol& a);
Symbol operator*(double s, const Symbol& a);
Symbol operator/(double s, const Symbol& a);
Symbol operator-(const Symbol& a);

inline Symbol var(const std::string& name, const VarOptions& opts = {}) {
  return Symbol::Variable(name, opts);
}

// Automatic node names (mxnet.name.NameManager): "<hint><counter>" per hint, counted in the
// current RuntimeContext (ndarray/runtime_context.h NameState; per thread by default).
// A Prefix scope prepends a prefix to every name created inside it (mxnet.name.Prefix).
class NameManager {
 public:
  static std::string Get(const std::string& name, const std::string& hint);
  class [[nodiscard]] Prefix {
   public:
    explicit Prefix(std::string prefix);
    ~Prefix();
    Prefix(const Prefix&) = delete;
    Prefix& operator=(const Prefix&) = delete;

   private:
    NameState* state_;  // of the context current at construction
    std::string saved_;
  };
  // Resets the counters of the current context (tests).
  static void Reset();
};

// The lowercase name hint MXNet uses for automatic names of an op ("Convolution" ->
// "convolution", "elemwise_add" -> "_plus").
std::string OpNameHint(const Op& op);

}  // namespace mxnet::sym
