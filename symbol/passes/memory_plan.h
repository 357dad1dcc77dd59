// Memory planning for an executable graph: which internal buffer ("slot") holds each value.
//
// The planner walks the nodes in execution order. An output may take over the buffer of an
// input that dies at this node when the op declares the pair in-place (Op::add_inplace), the
// input is read once by the node, and the buffer is large enough with the same dtype; otherwise
// it takes the smallest free buffer that fits (best fit) or a new one. Buffers of values whose
// last reader ran (and of outputs nobody reads) return to the free list. Graph inputs and
// outputs are external (never planned: inputs belong to the caller, outputs are returned).
//
// VerifyMemoryPlan re-derives every value's live range from the graph alone and checks that no
// two values share a buffer while both are live (except a declared in-place pair handing over at
// the node that reads the one and writes the other), that buffers are large enough, and that
// external values have no buffer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "symbol/graph.h"
#include "symbol/passes/pass.h"

namespace mxnet::sym {

// Memory plan figures of a compiled graph (bytes of internal values).
struct MemoryStats {
  int64_t planned_bytes = 0;  // total of the planned buffers (what is allocated)
  int64_t naive_bytes = 0;    // one buffer per internal value
  int num_buffers = 0;
  int num_inplace = 0;
  int num_values = 0;  // internal values planned
};

namespace passes {

struct MemoryPlan {
  std::vector<int> slot;             // per entry: buffer index, -1 for external values
  std::vector<int64_t> slot_bytes;   // per buffer
  std::vector<int64_t> entry_bytes;  // per entry
  MemoryStats stats;
};

struct MemoryPlanOptions {
  bool reuse = true;  // false: one buffer per value (no reuse, no in-place)
};

// Plans `g` (every entry's shape and dtype known). Nodes run in g.nodes order.
MemoryPlan PlanMemory(const IndexedGraph& g, const std::vector<Shape>& shapes,
                      const std::vector<int>& types, const MemoryPlanOptions& options = {});

// Independent check of a plan (see above); an error names the two values and the buffer.
absl::Status VerifyMemoryPlan(const IndexedGraph& g, const std::vector<Shape>& shapes,
                              const std::vector<int>& types, const MemoryPlan& plan);

// The planner as a reporting pass (changes nothing): plans the inferred graph and summarizes
// planned vs naive bytes. Needs every shape known (kInvalidArgument otherwise).
PassResult MemoryPlanPass(Graph& g, MemoryPlan* plan_out = nullptr,
                          const MemoryPlanOptions& options = {});

std::string FormatBytes(int64_t bytes);

}  // namespace passes
}  // namespace mxnet::sym
