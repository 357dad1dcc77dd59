#include "symbol/passes/memory_plan.h"

#include <algorithm>
#include <map>

#include "base/strings.h"

namespace mxnet::sym::passes {
namespace {

int64_t BytesOf(const Shape& s, int type) {
  return s.Size() * static_cast<int64_t>(DTypeSize(static_cast<DType>(type)));
}

std::vector<bool> ExternalEntries(const IndexedGraph& g) {
  std::vector<bool> external(g.num_entries, false);
  for (int v : g.input_nodes) external[g.entry_start[v]] = true;
  for (int e : g.outputs) external[e] = true;
  return external;
}

}  // namespace

MemoryPlan PlanMemory(const IndexedGraph& g, const std::vector<Shape>& shapes,
                      const std::vector<int>& types, const MemoryPlanOptions& options) {
  MemoryPlan plan;
  plan.entry_bytes.assign(g.num_entries, 0);
  for (int e = 0; e < g.num_entries; ++e)
    if (shapes[e].is_known() && types[e] >= 0) plan.entry_bytes[e] = BytesOf(shapes[e], types[e]);
  std::vector<int> last_use(g.num_entries, -1);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (const auto& e : g.nodes[n]->inputs) last_use[g.EntryId(e)] = static_cast<int>(n);
  const std::vector<bool> external = ExternalEntries(g);
  plan.slot.assign(g.num_entries, -1);
  std::multimap<int64_t, int> free_slots;  // bytes -> slot
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = *g.nodes[n];
    if (node.is_variable()) continue;
    std::vector<bool> taken_inplace(node.inputs.size(), false);
    for (int k = 0; k < node.num_outputs(); ++k) {
      int e = g.EntryId(static_cast<int>(n), k);
      // Values of unknown shape (downstream of a data-dependent-shape op) are allocated by the
      // executor at run time.
      if (external[e] || !shapes[e].is_known()) continue;
      const int64_t bytes = plan.entry_bytes[e];
      plan.stats.naive_bytes += bytes;
      ++plan.stats.num_values;
      int chosen = -1;
      if (options.reuse) {
        for (auto [i, j] : node.op->inplace) {
          if (j != k || i >= static_cast<int>(node.inputs.size()) || taken_inplace[i]) continue;
          int ein = g.EntryId(node.inputs[i]);
          int uses = 0;
          for (const auto& x : node.inputs) uses += g.EntryId(x) == ein;
          if (plan.slot[ein] >= 0 && last_use[ein] == static_cast<int>(n) && uses == 1 &&
              plan.slot_bytes[plan.slot[ein]] >= bytes && types[ein] == types[e]) {
            chosen = plan.slot[ein];
            taken_inplace[i] = true;
            ++plan.stats.num_inplace;
            break;
          }
        }
        if (chosen < 0) {
          auto it = free_slots.lower_bound(bytes);
          if (it != free_slots.end()) {
            chosen = it->second;
            free_slots.erase(it);
          }
        }
      }
      if (chosen < 0) {
        chosen = static_cast<int>(plan.slot_bytes.size());
        plan.slot_bytes.push_back(std::max<int64_t>(bytes, 1));
      }
      plan.slot[e] = chosen;
    }
    if (!options.reuse) continue;
    // Release inputs that die here (unless their buffer continues as an in-place output).
    std::vector<int> released;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int ein = g.EntryId(node.inputs[i]);
      if (plan.slot[ein] < 0 || last_use[ein] != static_cast<int>(n) || taken_inplace[i]) continue;
      if (std::find(released.begin(), released.end(), ein) != released.end()) continue;
      released.push_back(ein);
      free_slots.emplace(plan.slot_bytes[plan.slot[ein]], plan.slot[ein]);
    }
    // Outputs nobody reads die immediately.
    for (int k = 0; k < node.num_outputs(); ++k) {
      int e = g.EntryId(static_cast<int>(n), k);
      if (plan.slot[e] >= 0 && last_use[e] < 0)
        free_slots.emplace(plan.slot_bytes[plan.slot[e]], plan.slot[e]);
    }
  }
  for (int64_t b : plan.slot_bytes) plan.stats.planned_bytes += b;
  plan.stats.num_buffers = static_cast<int>(plan.slot_bytes.size());
  return plan;
}

absl::Status VerifyMemoryPlan(const IndexedGraph& g, const std::vector<Shape>& shapes,
                              const std::vector<int>& types, const MemoryPlan& plan) {
  const int E = g.num_entries;
  if (static_cast<int>(plan.slot.size()) != E)
    return absl::InternalError(StrCat("plan has ", plan.slot.size(), " entries, graph ", E));
  auto name = [&](int e) {
    for (size_t n = g.nodes.size(); n-- > 0;)
      if (g.entry_start[n] <= e)
        return StrCat("'", g.nodes[n]->name, "' output ", e - g.entry_start[n]);
    return StrCat("entry ", e);
  };
  // Live range of every value: [the node writing it, the last node reading it]; values nobody
  // reads live at their writer only. Computed from the graph, not from the planner.
  std::vector<int> def(E, -1), last(E, -1);
  std::vector<std::vector<int>> readers(E);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (int k = 0; k < g.nodes[n]->num_outputs(); ++k)
      def[g.EntryId(static_cast<int>(n), k)] = static_cast<int>(n);
    for (const auto& in : g.nodes[n]->inputs) {
      int e = g.EntryId(in);
      readers[e].push_back(static_cast<int>(n));
      last[e] = std::max(last[e], static_cast<int>(n));
    }
  }
  const std::vector<bool> external = ExternalEntries(g);
  std::map<int, std::vector<int>> by_slot;
  for (int e = 0; e < E; ++e) {
    const int s = plan.slot[e];
    if (external[e]) {
      if (s >= 0)
        return absl::InternalError(StrCat(name(e), " is external but planned into buffer ", s));
      continue;
    }
    const Node& producer = *g.nodes[def[e]];
    if (producer.is_variable()) continue;
    if (s < 0 && !shapes[e].is_known()) continue;  // shaped and allocated at run time
    if (s < 0 || s >= static_cast<int>(plan.slot_bytes.size()))
      return absl::InternalError(StrCat(name(e), " has no buffer (slot ", s, ")"));
    const int64_t need = BytesOf(shapes[e], types[e]);
    if (plan.slot_bytes[s] < need)
      return absl::InternalError(
          StrCat(name(e), " needs ", need, " bytes, buffer ", s, " has ", plan.slot_bytes[s]));
    if (last[e] < 0) last[e] = def[e];
    by_slot[s].push_back(e);
  }
  // a hands its buffer to b at node n: b is an output of n declared in-place with the input
  // position that reads a, and a is read only there (nothing later, no other position).
  auto handover = [&](int a, int b) {
    const int n = def[b];
    if (last[a] != n) return false;
    const Node& node = *g.nodes[n];
    const int k = b - g.entry_start[n];
    int positions = 0, pos = -1;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (g.EntryId(node.inputs[i]) == a) ++positions, pos = static_cast<int>(i);
    if (positions != 1) return false;
    for (auto [i, j] : node.op->inplace)
      if (i == pos && j == k) return true;
    return false;
  };
  for (const auto& [s, es] : by_slot) {
    for (size_t x = 0; x < es.size(); ++x)
      for (size_t y = x + 1; y < es.size(); ++y) {
        int a = es[x], b = es[y];
        if (def[a] > def[b] || (def[a] == def[b] && a > b)) std::swap(a, b);
        // a is written first. Disjoint if a's last read is before b is written.
        if (last[a] < def[b]) continue;
        if (last[a] == def[b] && def[a] < def[b] && handover(a, b)) continue;
        return absl::InternalError(StrCat("buffer ", s, " holds ", name(a), " (live ", def[a], "..",
                                          last[a], ") and ", name(b), " (live ", def[b], "..",
                                          last[b], ") at the same time"));
      }
  }
  return absl::OkStatus();
}

std::string FormatBytes(int64_t b) {
  if (b >= (int64_t{1} << 20))
    return StrCat(b / (1 << 20), ".", (b % (1 << 20)) * 10 / (1 << 20), " MiB");
  if (b >= 1024) return StrCat(b / 1024, ".", (b % 1024) * 10 / 1024, " KiB");
  return StrCat(b, " B");
}

PassResult MemoryPlanPass(Graph& g, MemoryPlan* plan_out, const MemoryPlanOptions& options) {
  PassResult r;
  r.pass = "memory_plan";
  r.nodes_before = r.nodes_after = CountOpNodes(g.symbol);
  const Inferred& inf = g.inferred();
  for (size_t n = 0; n < inf.graph.nodes.size(); ++n)
    for (int k = 0; k < inf.graph.nodes[n]->num_outputs(); ++k) {
      int e = inf.graph.EntryId(static_cast<int>(n), k);
      if (!inf.shapes[e].is_known() || inf.types[e] < 0)
        MX_THROW(absl::StatusCode::kInvalidArgument, "memory_plan: the shape/dtype of '",
                 inf.graph.nodes[n]->name, "' output ", k, " is unknown (",
                 inf.shapes[e].ToString(), ")");
    }
  MemoryPlan plan = PlanMemory(inf.graph, inf.shapes, inf.types, options);
  const MemoryStats& m = plan.stats;
  r.summary = StrCat(m.num_values, " values in ", m.num_buffers, " buffers (", m.num_inplace,
                     " in place): ", FormatBytes(m.planned_bytes), " planned vs ",
                     FormatBytes(m.naive_bytes), " naive");
  if (plan_out) *plan_out = std::move(plan);
  return r;
}

}  // namespace mxnet::sym::passes
