// Graph ops on csr adjacency matrices (MXNet 1.9.1 src/operator/contrib/dgl_graph.cc, the DGL
// helpers), with MXNet's names, attributes, input names, output shapes, dtypes and storage types.
// A graph is a square csr matrix whose stored values are edge ids (int64, except edge_id which
// takes any dtype); vertex arrays are 1-d int64.
//   _contrib_edge_id(data, u, v)           (n,) data[u[i], v[i]] where stored, else -1; data's
//   dtype _contrib_dgl_adjacency(data)           csr float32, the same positions holding 1
//   _contrib_dgl_subgraph(graph, varray0.., num_args, return_mapping)
//                                          per sorted vertex array v (k,): the induced subgraph,
//                                          csr (k, k) with new edge ids 0, 1, ... in row-major
//                                          order; with return_mapping also csr (k, k) of the
//                                          parent's edge ids (outputs: all subgraphs, then all
//                                          mappings)
//   _contrib_dgl_csr_neighbor_uniform_sample(csr_matrix, seed_arrays.., num_args, num_hops=1,
//       num_neighbor=2, max_num_vertices=100)
//   _contrib_dgl_csr_neighbor_non_uniform_sample(csr_matrix, probability, seed_arrays.., ...)
//                                          breadth-first from the seeds (layer 0) for num_hops,
//                                          taking at most num_neighbor neighbours of each vertex
//                                          (all when it has no more; else a random subset, uniform
//                                          or weighted by probability[neighbour], without
//                                          replacement), stopping at max_num_vertices vertices.
//                                          Per seed array: vertex ids (max+1,) sorted, the count in
//                                          the last entry; csr (max, n) row i = the sampled edges
//                                          of vertex ids[i] (parent columns and edge ids); for
//                                          non_uniform probability[ids] (max,) float32; layers
//                                          (max,). Entries past the count are 0 (MXNet leaves them
//                                          uninitialized). Outputs grouped by kind: all ids, all
//                                          csr, [all probabilities,] all layers.
//   _contrib_dgl_graph_compact(graph0.., varray0.., num_args, return_mapping, graph_sizes)
//                                          a sampler's csr and vertex ids -> csr (size, size) over
//                                          the first `size` rows with columns renumbered by
//                                          position in the vertex ids and new edge ids 0, 1, ...
// Storage: the graphs must be csr and the other inputs dense (kInvalidArgument naming the op and
// input otherwise, as MXNet refuses them). The reference kernel (dense executors, e.g. a symbolic
// graph without storage types) reads a dense graph's non-zeros as its edges.
// Deliberate differences from MXNet:
//  - The random draws differ (MXNet seeds std::mt19937 per call from its resource RNG; ours draw
//    from the device generator, mx.random.seed); only what holds for any draw is comparable.
//  - non_uniform keeps each sampled neighbour with its own edge id (MXNet sorts the neighbours and
//    the edge ids separately when it samples, pairing them wrongly).
//  - graph_compact's mapping outputs (return_mapping=True) hold the parent's edge ids (MXNet leaves
//    them unwritten: empty csr arrays).
//  - Bad vertex lists are errors: an unsorted one (MXNet aborts the process from its OpenMP loop),
//    ids out of range (MXNet reads out of bounds).
#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/strings.h"
#include "ndarray/op.h"
#include "ndarray/random.h"
#include "ndarray/sparse.h"

namespace mxnet::ops {
namespace {

constexpr StorageType kD = StorageType::kDefault, kC = StorageType::kCSR;

// ---- parameters ----
struct DGLSubgraphParam {
  int num_args = 2;
  bool return_mapping = false;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &DGLSubgraphParam::num_args)
        .required()
        .describe("Number of inputs: the graph and the vertex arrays.");
    d.field("return_mapping", &DGLSubgraphParam::return_mapping)
        .required()
        .describe("Also return each subgraph with the parent graph's edge ids.");
  }
  std::string Validate() const {
    return num_args >= 2 ? "" : StrCat("num_args must be at least 2, got ", num_args);
  }
};

struct NeighborSampleParam {
  int num_args = 2;
  int64_t num_hops = 1, num_neighbor = 2, max_num_vertices = 100;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NeighborSampleParam::num_args)
        .required()
        .describe("Number of inputs (the graph, [probability,] the seed arrays).");
    d.field("num_hops", &NeighborSampleParam::num_hops).describe("Number of hops.");
    d.field("num_neighbor", &NeighborSampleParam::num_neighbor)
        .describe("Neighbours sampled per vertex at most.");
    d.field("max_num_vertices", &NeighborSampleParam::max_num_vertices)
        .describe("Vertices per subgraph at most.");
  }
  std::string Validate() const {
    if (num_args < 2) return StrCat("num_args must be at least 2, got ", num_args);
    if (num_hops < 0 || num_neighbor < 0 || max_num_vertices < 1)
      return "num_hops and num_neighbor must be >= 0 and max_num_vertices >= 1";
    return "";
  }
};

struct SubgraphCompactParam {
  int num_args = 2;
  bool return_mapping = false;
  Shape graph_sizes;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &SubgraphCompactParam::num_args)
        .required()
        .describe("Number of inputs: the graphs then their vertex arrays.");
    d.field("return_mapping", &SubgraphCompactParam::return_mapping)
        .required()
        .describe("Also return each graph with the parent graph's edge ids.");
    d.field("graph_sizes", &SubgraphCompactParam::graph_sizes)
        .required()
        .describe("The number of vertices of each graph.");
  }
  std::string Validate() const {
    if (num_args < 2 || num_args % 2)
      return StrCat("num_args must be an even number >= 2, got ", num_args);
    if (graph_sizes.ndim() != num_args / 2)
      return StrCat("graph_sizes must list ", num_args / 2, " sizes, got ", graph_sizes.ToString());
    return "";
  }
};

// ---- graphs as plain vectors ----
struct Csr {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> ptr, idx;
  std::vector<double> val;
};

Csr CsrOf(const NDArray& x) {
  NDArray c = x.is_sparse() ? x : CastStorage(x, kC);  // dense: its non-zeros (reference kernel)
  Csr g;
  g.rows = c.shape()[0];
  g.cols = c.shape()[1];
  g.ptr = c.indptr().ToVector<int64_t>();
  g.idx = c.indices().ToVector<int64_t>();
  g.val = c.data().ToVector<double>();
  return g;
}

// One output: csr parts, or dense values.
struct Result {
  bool csr = false;
  std::vector<int64_t> ptr, idx;
  std::vector<double> val;
};

void Write(const Result& r, const NDArray& out) {
  const Device dev = out.device();
  if (r.csr && out.is_sparse()) {
    SetSparseParts(
        out,
        NDArray::FromVector(r.val, Shape({static_cast<int64_t>(r.val.size())}), dev, out.dtype()),
        {NDArray::FromVector(r.ptr, Shape({static_cast<int64_t>(r.ptr.size())}), dev,
                             DType::kInt64),
         NDArray::FromVector(r.idx, Shape({static_cast<int64_t>(r.idx.size())}), dev,
                             DType::kInt64)});
    return;
  }
  std::vector<double> d = r.val;
  if (r.csr) {  // densified (reference kernel)
    const int64_t cols = out.shape()[1];
    d.assign(static_cast<size_t>(out.size()), 0.0);
    for (size_t row = 0; row + 1 < r.ptr.size(); ++row)
      for (int64_t k = r.ptr[row]; k < r.ptr[row + 1]; ++k)
        d[static_cast<int64_t>(row) * cols + r.idx[k]] = r.val[k];
  }
  NDArray::FromVector(d, out.shape(), dev, out.dtype()).copyto(out);
}

using GraphFn = std::vector<Result> (*)(const OpAttrs&, std::span<const NDArray>);

// The storage kernel and reference kernel of a graph op whose first `graphs(attrs)` inputs are
// graphs (csr) and the rest dense.
using GraphCount = int (*)(const OpAttrs&);

void CheckStorage(const OpAttrs& attrs, std::span<const NDArray> in, int graphs) {
  const Op& op = *attrs.op();
  for (size_t i = 0; i < in.size(); ++i) {
    StorageType want = static_cast<int>(i) < graphs ? kC : kD;
    if (in[i].stype() != want)
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": input ", i, " (",
               op.InputNames(attrs)[i], ") must be ", StorageTypeName(want), ", got ",
               StorageTypeName(in[i].stype()));
  }
}

template <GraphFn F, GraphCount G>
void StorageKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  CheckStorage(attrs, in, G(attrs));
  std::vector<Result> r = F(attrs, in);
  for (size_t i = 0; i < out.size(); ++i) Write(r[i], out[i]);
}

template <GraphFn F>
void DenseKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  std::vector<Result> r = F(attrs, in);
  for (size_t i = 0; i < out.size(); ++i) Write(r[i], out[i]);
}

// Output storage: csr for the outputs `is_csr` says, dense for the rest; taken for any inputs
// (the kernel refuses wrong ones by name).
template <bool (*IsCsr)(const OpAttrs&, int)>
bool GraphStorage(const OpAttrs& attrs, std::span<const StorageType>, std::span<StorageType> out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = IsCsr(attrs, static_cast<int>(i)) ? kC : kD;
  return true;
}

[[noreturn]] void Bad(const OpAttrs& a, const std::string& what) {
  MX_THROW(absl::StatusCode::kInvalidArgument, a.op()->name, ": ", what);
}

void NeedNdim(const OpAttrs& a, const ShapeVec& in, int i, int ndim) {
  if (in[i].ndim_known() && in[i].ndim() != ndim)
    Bad(a, StrCat("input ", i, " (", a.op()->InputNames(a)[i], ") must be ", ndim, "-d, got ",
                  in[i].ToString()));
}

void NeedType(const OpAttrs& a, const DTypeVec& in, int i, DType t) {
  if (in[i] >= 0 && in[i] != static_cast<int>(t))
    Bad(a, StrCat("input ", i, " (", a.op()->InputNames(a)[i], ") must be ", DTypeName(t), ", got ",
                  DTypeName(static_cast<DType>(in[i]))));
}

int One(const OpAttrs&) { return 1; }

// ---- _contrib_edge_id ----
std::vector<Result> EdgeId(const OpAttrs& a, std::span<const NDArray> in) {
  Csr g = CsrOf(in[0]);
  std::vector<double> u = in[1].ToVector<double>(), v = in[2].ToVector<double>();
  Result r;
  for (size_t i = 0; i < u.size(); ++i) {
    const int64_t row = static_cast<int64_t>(u[i]), col = static_cast<int64_t>(v[i]);
    if (row < 0 || row >= g.rows) Bad(a, StrCat("u[", i, "] = ", u[i], " is not a row of data"));
    double found = -1;
    for (int64_t k = g.ptr[row]; k < g.ptr[row + 1]; ++k)
      if (g.idx[k] == col) {
        found = g.val[k];
        break;
      }
    r.val.push_back(found);
  }
  return {r};
}

bool NoCsr(const OpAttrs&, int) { return false; }

MX_REGISTER_OP(_contrib_edge_id)
    .describe(
        "Edge ids of a csr graph: out[i] = data[u[i], v[i]] where stored, else -1 (data's "
        "dtype; u, v 1-d of one length).")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "u", "v"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      NeedNdim(a, *in, 0, 2);
      NeedNdim(a, *in, 1, 1);
      NeedNdim(a, *in, 2, 1);
      if ((*in)[1].ndim_known() && (*in)[2].ndim_known() && (*in)[1][0] != (*in)[2][0])
        Bad(a, StrCat("input 1 (u) has ", (*in)[1][0], " entries, input 2 (v) ", (*in)[2][0]));
      MergeShape(&(*out)[0], (*in)[1], "_contrib_edge_id: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_contrib_edge_id: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DenseKernel<EdgeId>)
    .set_storage_kernel(GraphStorage<NoCsr>, StorageKernel<EdgeId, One>)
    .set_non_differentiable();

// ---- _contrib_dgl_adjacency ----
std::vector<Result> Adjacency(const OpAttrs&, std::span<const NDArray> in) {
  Csr g = CsrOf(in[0]);
  Result r{true, g.ptr, g.idx, std::vector<double>(g.idx.size(), 1.0)};
  return {r};
}

bool AllCsr(const OpAttrs&, int) { return true; }

MX_REGISTER_OP(_contrib_dgl_adjacency)
    .describe(
        "The adjacency matrix of a csr graph of int64 edge ids: csr float32 holding 1 at every "
        "stored position.")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      NeedNdim(a, *in, 0, 2);
      MergeShape(&(*out)[0], (*in)[0], "_contrib_dgl_adjacency: output");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      NeedType(a, *in, 0, DType::kInt64);
      MergeType(&(*out)[0], static_cast<int>(DType::kFloat32), "_contrib_dgl_adjacency: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DenseKernel<Adjacency>)
    .set_storage_kernel(GraphStorage<AllCsr>, StorageKernel<Adjacency, One>)
    .set_non_differentiable();

// ---- _contrib_dgl_subgraph ----
std::vector<int64_t> Vertices(const OpAttrs& a, const NDArray& x, int input, int64_t n) {
  std::vector<int64_t> v = x.ToVector<int64_t>();
  const std::string name = a.op()->InputNames(a)[input];
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0 || v[i] >= n)
      Bad(a, StrCat("input ", input, " (", name, "): vertex ", v[i], " is not in a graph of ", n,
                    " vertices"));
    if (i > 0 && v[i] <= v[i - 1])
      Bad(a, StrCat("input ", input, " (", name, ") must be sorted and without repeats"));
  }
  return v;
}

std::vector<Result> Subgraph(const OpAttrs& a, std::span<const NDArray> in) {
  const auto& p = a.get<DGLSubgraphParam>();
  Csr g = CsrOf(in[0]);
  const int ng = p.num_args - 1;
  std::vector<Result> subs(ng), maps(ng);
  for (int s = 0; s < ng; ++s) {
    std::vector<int64_t> v = Vertices(a, in[s + 1], s + 1, g.rows);
    std::unordered_map<int64_t, int64_t> pos;
    for (size_t i = 0; i < v.size(); ++i) pos[v[i]] = static_cast<int64_t>(i);
    Result& r = subs[s];
    Result& m = maps[s];
    r.csr = m.csr = true;
    r.ptr.push_back(0);
    for (int64_t u : v) {
      for (int64_t k = g.ptr[u]; k < g.ptr[u + 1]; ++k) {
        auto it = pos.find(g.idx[k]);
        if (it == pos.end()) continue;
        r.idx.push_back(it->second);
        r.val.push_back(static_cast<double>(r.val.size()));
        m.val.push_back(g.val[k]);
      }
      r.ptr.push_back(static_cast<int64_t>(r.idx.size()));
    }
    m.ptr = r.ptr;
    m.idx = r.idx;
  }
  if (p.return_mapping) subs.insert(subs.end(), maps.begin(), maps.end());
  return subs;
}

int SubgraphOutputs(const OpAttrs& a) {
  const auto& p = a.get<DGLSubgraphParam>();
  return (p.num_args - 1) * (p.return_mapping ? 2 : 1);
}

MX_REGISTER_OP(_contrib_dgl_subgraph)
    .describe(
        "Induced subgraphs of a csr graph (int64 edge ids) on sorted int64 vertex arrays: csr "
        "(k, k) with new edge ids 0, 1, ... per array, then (return_mapping) the same with the "
        "parent's edge ids.")
    .set_params<DGLSubgraphParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<DGLSubgraphParam>().num_args; })
    .set_num_outputs(SubgraphOutputs)
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> n{"graph"};
      for (int i = 1; i < a.get<DGLSubgraphParam>().num_args; ++i)
        n.push_back(StrCat("varray", i - 1));
      return n;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      NeedNdim(a, *in, 0, 2);
      const int ng = a.get<DGLSubgraphParam>().num_args - 1;
      for (int i = 0; i < ng; ++i) {
        NeedNdim(a, *in, i + 1, 1);
        if (!(*in)[i + 1].ndim_known()) continue;
        const int64_t k = (*in)[i + 1][0];
        for (int j = i; j < static_cast<int>(out->size()); j += ng)
          MergeShape(&(*out)[j], Shape({k, k}), "_contrib_dgl_subgraph: output");
      }
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      for (size_t i = 1; i < in->size(); ++i) NeedType(a, *in, static_cast<int>(i), DType::kInt64);
      for (int& t : *out) MergeType(&t, (*in)[0], "_contrib_dgl_subgraph: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DenseKernel<Subgraph>)
    .set_storage_kernel(GraphStorage<AllCsr>, StorageKernel<Subgraph, One>)
    .set_non_differentiable();

// ---- samplers ----
// Up to k of a vertex's edges (positions [b, e) of the graph), as (column, edge id) pairs sorted
// by column: all when there are no more than k, else k drawn without replacement, uniformly or
// with weights prob[column].
std::vector<std::pair<int64_t, double>> SampleEdges(const Csr& g, int64_t b, int64_t e, int64_t k,
                                                    const std::vector<double>* prob,
                                                    std::mt19937_64& gen) {
  std::vector<int64_t> pick;
  const int64_t deg = e - b;
  if (deg <= k) {
    pick.resize(static_cast<size_t>(deg));
    std::iota(pick.begin(), pick.end(), b);
  } else if (!prob) {
    std::vector<int64_t> all(static_cast<size_t>(deg));
    std::iota(all.begin(), all.end(), b);
    std::sample(all.begin(), all.end(), std::back_inserter(pick), k, gen);
  } else {
    std::vector<int64_t> left(static_cast<size_t>(deg));
    std::iota(left.begin(), left.end(), b);
    for (int64_t t = 0; t < k; ++t) {
      double total = 0;
      for (int64_t j : left) total += std::max(0.0, (*prob)[g.idx[j]]);
      size_t chosen = 0;
      if (total > 0) {
        double x = std::uniform_real_distribution<double>(0, total)(gen), acc = 0;
        for (chosen = 0; chosen + 1 < left.size(); ++chosen) {
          acc += std::max(0.0, (*prob)[g.idx[left[chosen]]]);
          if (x < acc) break;
        }
      } else {
        chosen = std::uniform_int_distribution<size_t>(0, left.size() - 1)(gen);
      }
      pick.push_back(left[chosen]);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(chosen));
    }
  }
  std::vector<std::pair<int64_t, double>> out;
  for (int64_t j : pick) out.emplace_back(g.idx[j], g.val[j]);
  std::sort(out.begin(), out.end());
  return out;
}

// One subgraph: ids (max+1,), csr (max, n), [prob (max,),] layers (max,).
void SampleOne(const OpAttrs& a, const Csr& g, const std::vector<int64_t>& seeds, int seed_input,
               const std::vector<double>* prob, std::mt19937_64& gen, Result* ids, Result* sub,
               Result* sub_prob, Result* layers) {
  const auto& p = a.get<NeighborSampleParam>();
  const int64_t maxv = p.max_num_vertices;
  if (static_cast<int64_t>(seeds.size()) > maxv)
    Bad(a, StrCat("input ", seed_input, " holds ", seeds.size(),
                  " seeds, more than max_num_vertices = ", maxv));
  for (int64_t s : seeds)
    if (s < 0 || s >= g.rows)
      Bad(a, StrCat("input ", seed_input, ": seed ", s, " is not in a graph of ", g.rows,
                    " vertices"));
  std::set<int64_t> seen;
  std::vector<std::pair<int64_t, int64_t>> queue;  // (vertex, layer), breadth-first
  for (int64_t s : seeds)
    if (seen.insert(s).second) queue.emplace_back(s, 0);
  std::map<int64_t, std::vector<std::pair<int64_t, double>>> edges;  // expanded vertex -> edges
  for (size_t q = 0; q < queue.size() && static_cast<int64_t>(seen.size()) < maxv; ++q) {
    auto [u, layer] = queue[q];
    if (layer >= p.num_hops) continue;
    auto picked = SampleEdges(g, g.ptr[u], g.ptr[u + 1], p.num_neighbor, prob, gen);
    for (const auto& [c, eid] : picked) {
      if (static_cast<int64_t>(seen.size()) >= maxv) break;
      if (seen.insert(c).second) queue.emplace_back(c, layer + 1);
    }
    edges[u] = std::move(picked);
  }
  std::sort(queue.begin(), queue.end());
  const int64_t n = static_cast<int64_t>(queue.size());
  ids->val.assign(static_cast<size_t>(maxv + 1), 0.0);
  layers->val.assign(static_cast<size_t>(maxv), 0.0);
  if (sub_prob) sub_prob->val.assign(static_cast<size_t>(maxv), 0.0);
  sub->csr = true;
  sub->ptr.assign(1, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t u = queue[i].first;
    ids->val[i] = static_cast<double>(u);
    layers->val[i] = static_cast<double>(queue[i].second);
    if (sub_prob) sub_prob->val[i] = (*prob)[u];
    if (auto it = edges.find(u); it != edges.end())
      for (const auto& [c, eid] : it->second) {
        sub->idx.push_back(c);
        sub->val.push_back(eid);
      }
    sub->ptr.push_back(static_cast<int64_t>(sub->idx.size()));
  }
  ids->val[maxv] = static_cast<double>(n);
  sub->ptr.resize(static_cast<size_t>(maxv + 1), sub->ptr.back());
}

template <bool kWeighted>
std::vector<Result> Sample(const OpAttrs& a, std::span<const NDArray> in) {
  const int first = kWeighted ? 2 : 1;
  const int ns = a.get<NeighborSampleParam>().num_args - first;
  Csr g = CsrOf(in[0]);
  std::vector<double> prob;
  if (kWeighted) {
    prob = in[1].ToVector<double>();
    if (static_cast<int64_t>(prob.size()) != g.rows)
      Bad(a,
          StrCat("input 1 (probability) has ", prob.size(), " entries for ", g.rows, " vertices"));
  }
  const int kinds = kWeighted ? 4 : 3;
  std::vector<Result> out(static_cast<size_t>(ns * kinds));
  random::GeneratorGuard guard(in[0].device());
  for (int s = 0; s < ns; ++s)
    SampleOne(a, g, in[first + s].ToVector<int64_t>(), first + s, kWeighted ? &prob : nullptr,
              guard.gen(), &out[s], &out[ns + s], kWeighted ? &out[2 * ns + s] : nullptr,
              &out[(kinds - 1) * ns + s]);
  return out;
}

template <bool kWeighted>
void SampleShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const auto& p = a.get<NeighborSampleParam>();
  const int first = kWeighted ? 2 : 1, ns = p.num_args - first;
  NeedNdim(a, *in, 0, 2);
  const Shape& g = (*in)[0];
  if (g.ndim_known() && g[0] >= 0 && g[1] >= 0 && g[0] != g[1])
    Bad(a, StrCat("input 0 (csr_matrix) must be square, got ", g.ToString()));
  for (int i = 1; i < p.num_args; ++i) NeedNdim(a, *in, i, 1);
  const int64_t m = p.max_num_vertices, n = g.ndim_known() ? g[1] : -1;
  const int kinds = kWeighted ? 4 : 3;
  for (int s = 0; s < ns; ++s) {
    MergeShape(&(*out)[s], Shape({m + 1}), "sample: vertex ids");
    MergeShape(&(*out)[ns + s], Shape({m, n}), "sample: subgraph");
    for (int k = 2; k < kinds; ++k) MergeShape(&(*out)[k * ns + s], Shape({m}), "sample: output");
  }
}

template <bool kWeighted>
void SampleType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  const int first = kWeighted ? 2 : 1, ns = a.get<NeighborSampleParam>().num_args - first;
  NeedType(a, *in, 0, DType::kInt64);
  if (kWeighted) NeedType(a, *in, 1, DType::kFloat32);
  for (int i = first; i < static_cast<int>(in->size()); ++i) NeedType(a, *in, i, DType::kInt64);
  const int kinds = kWeighted ? 4 : 3;
  for (int s = 0; s < ns; ++s)
    for (int k = 0; k < kinds; ++k)
      MergeType(&(*out)[k * ns + s],
                static_cast<int>(kWeighted && k == 2 ? DType::kFloat32 : DType::kInt64),
                "sample: output");
}

template <bool kWeighted>
bool SampleIsCsr(const OpAttrs& a, int i) {
  const int ns = a.get<NeighborSampleParam>().num_args - (kWeighted ? 2 : 1);
  return i >= ns && i < 2 * ns;
}

template <bool kWeighted>
std::vector<std::string> SampleInputNames(const OpAttrs& a) {
  std::vector<std::string> n{"csr_matrix"};
  if (kWeighted) n.push_back("probability");
  for (int i = static_cast<int>(n.size()); i < a.get<NeighborSampleParam>().num_args; ++i)
    n.push_back(StrCat("seed_arrays", i - (kWeighted ? 2 : 1)));
  return n;
}

#define MX_DGL_SAMPLER(NAME, W, DOC)                                                          \
  MX_REGISTER_OP(NAME)                                                                        \
      .describe(DOC)                                                                          \
      .set_params<NeighborSampleParam>()                                                      \
      .set_random()                                                                           \
      .set_num_inputs([](const OpAttrs& a) { return a.get<NeighborSampleParam>().num_args; }) \
      .set_num_outputs([](const OpAttrs& a) {                                                 \
        return (a.get<NeighborSampleParam>().num_args - (W ? 2 : 1)) * (W ? 4 : 3);           \
      })                                                                                      \
      .set_input_names(SampleInputNames<W>)                                                   \
      .set_infer_shape(SampleShape<W>)                                                        \
      .set_infer_type(SampleType<W>)                                                          \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, DenseKernel<Sample<W>>)            \
      .set_storage_kernel(GraphStorage<SampleIsCsr<W>>, StorageKernel<Sample<W>, One>)        \
      .set_non_differentiable()

MX_DGL_SAMPLER(_contrib_dgl_csr_neighbor_uniform_sample, false,
               "Samples subgraphs of a csr graph breadth-first from each seed array, taking up to "
               "num_neighbor neighbours per vertex uniformly at random: vertex ids (max+1,) with "
               "the count last, csr (max, n) of sampled edges, layers (max,).");
MX_DGL_SAMPLER(_contrib_dgl_csr_neighbor_non_uniform_sample, true,
               "As _contrib_dgl_csr_neighbor_uniform_sample with neighbours drawn by weight "
               "probability[neighbour]; also outputs probability[ids] (max,) float32.");

// ---- _contrib_dgl_graph_compact ----
int CompactGraphs(const OpAttrs& a) { return a.get<SubgraphCompactParam>().num_args / 2; }

std::vector<Result> Compact(const OpAttrs& a, std::span<const NDArray> in) {
  const auto& p = a.get<SubgraphCompactParam>();
  const int ng = p.num_args / 2;
  std::vector<Result> outs(ng), maps(ng);
  for (int s = 0; s < ng; ++s) {
    Csr g = CsrOf(in[s]);
    std::vector<int64_t> vids = in[ng + s].ToVector<int64_t>();
    const int64_t size = p.graph_sizes[s];
    if (static_cast<int64_t>(vids.size()) != g.rows + 1)
      Bad(a, StrCat("input ", ng + s, " (varray", s, ") has ", vids.size(),
                    " entries; a sampler's vertex ids for ", g.rows, " rows have ", g.rows + 1));
    if (vids.back() != size)
      Bad(a, StrCat("input ", ng + s, " (varray", s, ") counts ", vids.back(),
                    " vertices, graph_sizes gives ", size));
    std::unordered_map<int64_t, int64_t> pos;
    for (int64_t i = 0; i < size; ++i) pos[vids[i]] = i;
    Result& r = outs[s];
    Result& m = maps[s];
    r.csr = m.csr = true;
    r.ptr.assign(g.ptr.begin(), g.ptr.begin() + size + 1);
    for (int64_t k = 0; k < r.ptr.back(); ++k) {
      auto it = pos.find(g.idx[k]);
      if (it == pos.end())
        Bad(a, StrCat("input ", s, " (graph", s, ") has an edge to vertex ", g.idx[k],
                      " that is not among the first ", size, " of varray", s));
      r.idx.push_back(it->second);
      r.val.push_back(static_cast<double>(k));
      m.val.push_back(g.val[k]);
    }
    m.ptr = r.ptr;
    m.idx = r.idx;
  }
  if (p.return_mapping) outs.insert(outs.end(), maps.begin(), maps.end());
  return outs;
}

MX_REGISTER_OP(_contrib_dgl_graph_compact)
    .describe(
        "Compacts sampled subgraphs (a sampler's csr and vertex ids): csr (size, size) over the "
        "first graph_sizes[i] rows, columns renumbered by their position in the vertex ids, new "
        "edge ids 0, 1, ...; with return_mapping also the parent's edge ids.")
    .set_params<SubgraphCompactParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<SubgraphCompactParam>().num_args; })
    .set_num_outputs([](const OpAttrs& a) {
      return CompactGraphs(a) * (a.get<SubgraphCompactParam>().return_mapping ? 2 : 1);
    })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> n;
      for (int i = 0; i < CompactGraphs(a); ++i) n.push_back(StrCat("graph", i));
      for (int i = 0; i < CompactGraphs(a); ++i) n.push_back(StrCat("varray", i));
      return n;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const auto& p = a.get<SubgraphCompactParam>();
      const int ng = CompactGraphs(a);
      for (int i = 0; i < ng; ++i) {
        NeedNdim(a, *in, i, 2);
        NeedNdim(a, *in, ng + i, 1);
        const int64_t size = p.graph_sizes[i];
        const Shape& g = (*in)[i];
        if (g.ndim_known() && (g[0] < size || g[1] < size))
          Bad(a, StrCat("input ", i, " (graph", i, ") ", g.ToString(), " is smaller than ",
                        "graph_sizes[", i, "] = ", size));
        for (int j = i; j < static_cast<int>(out->size()); j += ng)
          MergeShape(&(*out)[j], Shape({size, size}), "_contrib_dgl_graph_compact: output");
      }
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      for (size_t i = 0; i < in->size(); ++i) NeedType(a, *in, static_cast<int>(i), DType::kInt64);
      for (int& t : *out)
        MergeType(&t, static_cast<int>(DType::kInt64), "_contrib_dgl_graph_compact: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DenseKernel<Compact>)
    .set_storage_kernel(GraphStorage<AllCsr>, StorageKernel<Compact, CompactGraphs>)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
