// Graph ops on csr matrices against MXNet 1.9.1 (testdata/sparse/graph.json, from
// tools/conformance/gen_sparse_graph_refs.py): _contrib_edge_id, _contrib_dgl_adjacency,
// _contrib_dgl_subgraph, _contrib_dgl_graph_compact exactly; the samplers exactly where no draw
// is random (every degree <= num_neighbor) and by their invariants where it is; MXNet's errors.
// Plus hand-checked errors, weighting and repeatability.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/strings.h"
#include "ndarray/random.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using Entries = std::vector<std::tuple<int64_t, int64_t, double>>;

NDArray In(const json& s) {
  DType t = ValueOrThrow(DTypeFromName(s["dtype"].get<std::string>()));
  Shape shape(s["shape"].get<std::vector<int64_t>>());
  if (s["stype"] == "csr") {
    std::vector<double> d = s["data"].get<std::vector<double>>();
    std::vector<int64_t> idx = s["indices"].get<std::vector<int64_t>>();
    std::vector<int64_t> ptr = s["indptr"].get<std::vector<int64_t>>();
    return csr_matrix(NDArray::FromVector(d, Shape({static_cast<int64_t>(d.size())}), cpu(), t),
                      NDArray::FromVector(idx, Shape({static_cast<int64_t>(idx.size())})),
                      NDArray::FromVector(ptr, Shape({static_cast<int64_t>(ptr.size())})), shape);
  }
  return NDArray::FromVector(s["values"].get<std::vector<double>>(), shape, cpu(), t);
}

Entries EntriesOf(const NDArray& y) {
  Entries e;
  std::vector<int64_t> ptr = y.indptr().ToVector<int64_t>(), idx = y.indices().ToVector<int64_t>();
  std::vector<double> d = y.data().ToVector<double>();
  for (size_t r = 0; r + 1 < ptr.size(); ++r)
    for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k) e.emplace_back(r, idx[k], d[k]);
  return e;
}

Entries WantEntries(const json& w) {
  Entries e;
  for (const json& x : w["entries"])
    e.emplace_back(x[0].get<int64_t>(), x[1].get<int64_t>(), x[2].get<double>());
  return e;
}

// What any draw satisfies (tools/conformance/gen_sparse_graph_refs.py check_sample_invariants,
// which asserts the same of MXNet's output): one seed array, outputs ids, csr, [prob,] layers.
void ExpectSampleInvariants(const json& c, const NDArrayVec& out) {
  const json& gj = c["inputs"][0];
  std::vector<int64_t> ptr = gj["indptr"].get<std::vector<int64_t>>();
  std::vector<int64_t> idx = gj["indices"].get<std::vector<int64_t>>();
  std::vector<double> dat = gj["data"].get<std::vector<double>>();
  const int64_t k = std::stoll(c["attrs"]["num_neighbor"].get<std::string>());
  const int64_t hops = std::stoll(c["attrs"]["num_hops"].get<std::string>());
  const int64_t maxv = std::stoll(c["attrs"]["max_num_vertices"].get<std::string>());
  std::vector<int64_t> ids = out[0].ToVector<int64_t>();
  const int64_t cnt = ids.back();
  ASSERT_GT(cnt, 0);
  ASSERT_LE(cnt, maxv);
  std::vector<int64_t> v(ids.begin(), ids.begin() + cnt);
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
  EXPECT_EQ(std::set<int64_t>(v.begin(), v.end()).size(), v.size());
  std::vector<int64_t> layer = out.back().ToVector<int64_t>();
  std::vector<int64_t> seeds = c["inputs"].back()["values"].get<std::vector<int64_t>>();
  for (int64_t s : seeds) {
    auto it = std::find(v.begin(), v.end(), s);
    ASSERT_NE(it, v.end()) << "seed " << s;
    EXPECT_EQ(layer[it - v.begin()], 0);
  }
  for (int64_t i = 0; i < cnt; ++i) EXPECT_LE(layer[i], hops);
  std::map<int64_t, std::vector<std::pair<int64_t, double>>> rows;
  for (auto [r, col, val] : EntriesOf(out[1])) rows[r].emplace_back(col, val);
  for (const auto& [r, es] : rows) {
    ASSERT_LT(r, cnt);
    const int64_t u = v[r];
    std::map<int64_t, double> parent;
    for (int64_t j = ptr[u]; j < ptr[u + 1]; ++j) parent[idx[j]] = dat[j];
    EXPECT_EQ(static_cast<int64_t>(es.size()), std::min<int64_t>(parent.size(), k)) << u;
    for (const auto& [col, val] : es) EXPECT_EQ(parent.at(col), val) << u << "->" << col;
  }
  if (out.size() == 4) {  // non_uniform: probability[ids]
    std::vector<double> prob = c["inputs"][1]["values"].get<std::vector<double>>();
    std::vector<double> got = out[2].ToVector<double>();
    for (int64_t i = 0; i < cnt; ++i) EXPECT_FLOAT_EQ(got[i], prob[v[i]]);
  }
}

TEST(SparseGraph, MatchMXNet) {
  json doc = testing::LoadRefJson("ndarray/ops/testdata/sparse/graph.json");
  EXPECT_EQ(doc["mxnet_version"], "1.9.1");
  random::seed(11);
  int n = 0, errors = 0, random_cases = 0, mapping_deviations = 0;
  std::set<std::string> ops;
  for (const json& c : doc["cases"]) {
    const std::string op = c["op"].get<std::string>();
    SCOPED_TRACE(StrCat(op, " ", c["attrs"].dump()));
    std::vector<NDArray> ins;
    for (const json& s : c["inputs"]) ins.push_back(In(s));
    AttrDict attrs = testing::RefAttrs(c);
    ++n;
    ops.insert(op);
    if (c.contains("mxnet_error")) {
      std::string err = testing::ErrorOf([&] { Invoke(op, ins, attrs); });
      EXPECT_THAT(err, HasSubstr(op));
      EXPECT_THAT(err, HasSubstr("input"));
      ++errors;
      continue;
    }
    NDArrayVec out = Invoke(op, ins, attrs);
    ASSERT_EQ(out.size(), c["outputs"].size());
    for (size_t i = 0; i < out.size(); ++i) {
      const json& w = c["outputs"][i];
      SCOPED_TRACE(StrCat("output ", i));
      EXPECT_EQ(std::string(StorageTypeName(out[i].stype())), w["stype"].get<std::string>());
      EXPECT_EQ(std::string(DTypeName(out[i].dtype())), w["dtype"].get<std::string>());
      EXPECT_EQ(out[i].shape(), Shape(w["shape"].get<std::vector<int64_t>>()));
    }
    if (c.contains("random")) {
      ExpectSampleInvariants(c, out);
      ++random_cases;
      continue;
    }
    // Outputs per seed array come grouped by kind; the first group holds the vertex ids.
    const size_t groups = op == "_contrib_dgl_csr_neighbor_non_uniform_sample" ? 4 : 3;
    for (size_t i = 0; i < out.size(); ++i) {
      const json& w = c["outputs"][i];
      SCOPED_TRACE(StrCat("output ", i));
      if (w.contains("unwritten")) {  // graph_compact's mapping: ours holds the parent's ids
        Entries got = EntriesOf(out[i]), pos = EntriesOf(out[i - out.size() / 2]);
        std::vector<double> parent = c["inputs"][0]["data"].get<std::vector<double>>();
        ASSERT_EQ(got.size(), pos.size());
        for (size_t k = 0; k < got.size(); ++k) {
          EXPECT_EQ(std::get<0>(got[k]), std::get<0>(pos[k]));
          EXPECT_EQ(std::get<1>(got[k]), std::get<1>(pos[k]));
          EXPECT_EQ(std::get<2>(got[k]), parent[k]);
        }
        ++mapping_deviations;
        continue;
      }
      std::vector<double> got = out[i].ToVector<double>();
      std::vector<double> want = w["values"].get<std::vector<double>>();
      if (c.contains("valid") && !c["valid"][i].is_null()) {
        const size_t m = c["valid"][i].get<size_t>();
        for (size_t k = 0; k < m; ++k) EXPECT_EQ(got[k], want[k]) << k;
        if (i < out.size() / groups) {
          EXPECT_EQ(got.back(), want.back()) << "vertex count";
        }
        continue;
      }
      EXPECT_EQ(got, want);
      if (out[i].stype() == StorageType::kCSR) {
        Entries g = EntriesOf(out[i]), e = WantEntries(w);
        std::sort(g.begin(), g.end());
        std::sort(e.begin(), e.end());
        EXPECT_EQ(g, e) << "stored entries";
      }
    }
  }
  EXPECT_EQ(n, 32);
  EXPECT_EQ(errors, 3);
  EXPECT_EQ(random_cases, 4);
  EXPECT_EQ(mapping_deviations, 3);
  EXPECT_EQ(ops.size(), 6u);
}

NDArray Csr(const std::vector<int64_t>& dense, int64_t n) {
  return NDArray::FromVector(dense, Shape({n, n}), cpu(), DType::kInt64).tostype(StorageType::kCSR);
}
NDArray Ids(const std::vector<int64_t>& v) {
  return NDArray::FromVector(v, Shape({static_cast<int64_t>(v.size())}), cpu(), DType::kInt64);
}

TEST(SparseGraph, BadInputs) {
  NDArray g = Csr({0, 1, 0, 2, 0, 3, 0, 4, 0}, 3);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_contrib_dgl_subgraph", std::vector<NDArray>{g, Ids({2, 0})},
                       {{"num_args", "2"}, {"return_mapping", "False"}});
              }),
              HasSubstr("_contrib_dgl_subgraph: input 1 (varray0) must be sorted"));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_contrib_dgl_subgraph", std::vector<NDArray>{g, Ids({0, 3})},
                       {{"num_args", "2"}, {"return_mapping", "False"}});
              }),
              HasSubstr("vertex 3 is not in a graph of 3 vertices"));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_contrib_dgl_adjacency",
                       std::vector<NDArray>{
                           g.tostype(StorageType::kDefault).tostype(StorageType::kRowSparse)});
              }),
              HasSubstr("_contrib_dgl_adjacency: input 0 (data) must be csr, got row_sparse"));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke(
                    "_contrib_edge_id",
                    std::vector<NDArray>{g, Ids({0}).tostype(StorageType::kRowSparse), Ids({0})});
              }),
              HasSubstr("input 1 (u) must be default, got row_sparse"));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_contrib_dgl_csr_neighbor_uniform_sample",
                       std::vector<NDArray>{g, Ids({0, 1, 2})},
                       {{"num_args", "2"}, {"max_num_vertices", "2"}});
              }),
              HasSubstr("input 1 holds 3 seeds, more than max_num_vertices = 2"));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_contrib_dgl_graph_compact", std::vector<NDArray>{g, Ids({0, 1, 2, 2})},
                       {{"num_args", "2"}, {"return_mapping", "False"}, {"graph_sizes", "(3,)"}});
              }),
              HasSubstr("input 1 (varray0) counts 2 vertices, graph_sizes gives 3"));
}

// Weighted draws never take a zero-weight neighbour while others remain; a fixed seed repeats.
TEST(SparseGraph, SamplingWeightsAndSeed) {
  std::vector<int64_t> k5(25, 0);
  int64_t id = 1;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      if (i != j) k5[i * 5 + j] = id++;
  NDArray g = Csr(k5, 5);
  NDArray prob = NDArray::FromVector<float>({1, 0, 1, 0, 1}, Shape({5}));
  for (int t = 0; t < 20; ++t) {
    NDArrayVec o = Invoke("_contrib_dgl_csr_neighbor_non_uniform_sample",
                          std::vector<NDArray>{g, prob, Ids({0})},
                          {{"num_args", "3"}, {"num_neighbor", "2"}, {"max_num_vertices", "5"}});
    EXPECT_EQ(o[0].ToVector<int64_t>(), (std::vector<int64_t>{0, 2, 4, 0, 0, 3}));
  }
  AttrDict a = {{"num_args", "2"}, {"num_hops", "2"}, {"max_num_vertices", "5"}};
  random::seed(5);
  NDArrayVec x =
      Invoke("_contrib_dgl_csr_neighbor_uniform_sample", std::vector<NDArray>{g, Ids({1})}, a);
  random::seed(5);
  NDArrayVec y =
      Invoke("_contrib_dgl_csr_neighbor_uniform_sample", std::vector<NDArray>{g, Ids({1})}, a);
  EXPECT_EQ(x[0].ToVector<int64_t>(), y[0].ToVector<int64_t>());
  EXPECT_EQ(x[1].ToVector<int64_t>(), y[1].ToVector<int64_t>());
  // Over many draws every neighbour of vertex 0 is sampled (the draw is not stuck).
  std::set<int64_t> seen;
  for (int t = 0; t < 50; ++t) {
    NDArrayVec o =
        Invoke("_contrib_dgl_csr_neighbor_uniform_sample", std::vector<NDArray>{g, Ids({0})},
               {{"num_args", "2"}, {"max_num_vertices", "5"}});
    std::vector<int64_t> v = o[0].ToVector<int64_t>();
    seen.insert(v.begin(), v.begin() + v.back());
  }
  EXPECT_EQ(seen, (std::set<int64_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace mxnet
