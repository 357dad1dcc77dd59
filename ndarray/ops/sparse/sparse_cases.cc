// Test cases of sparse_graph.cc for //ndarray:all_ops_test: the reference kernels on dense graphs
// (their non-zeros are the edges); the csr paths are tested against MXNet in
// sparse_graph_test.cc. The ops are not differentiable.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// A 5-vertex graph of int64 edge ids 1..8 (dense).
NDArray Graph() {
  return NDArray::FromVector(std::vector<int64_t>{0, 1, 0, 2, 0, 3, 0, 4, 0, 0, 0, 5, 0,
                                                  0, 6, 0, 0, 0, 0, 7, 8, 0, 0, 0, 0},
                             {5, 5}, cpu(), DType::kInt64);
}
NDArray Ids(std::vector<int64_t> v) {
  return NDArray::FromVector(v, {static_cast<int64_t>(v.size())}, cpu(), DType::kInt64);
}

MX_OP_TEST_CASE({.op = "_contrib_edge_id",
                 .shapes = {{5, 5}, {3}, {3}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{Graph(), Ids({0, 1, 4}), Ids({1, 1, 0})};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_dgl_adjacency",
                 .shapes = {{5, 5}},
                 .make_inputs = [](DType, uint64_t) { return std::vector<NDArray>{Graph()}; },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_dgl_subgraph",
                 .attrs = {{"num_args", "3"}, {"return_mapping", "True"}},
                 .shapes = {{5, 5}, {3}, {2}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{Graph(), Ids({0, 1, 3}), Ids({2, 4})};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_dgl_csr_neighbor_uniform_sample",
                 .attrs = {{"num_args", "2"}, {"num_hops", "2"}, {"max_num_vertices", "5"}},
                 .shapes = {{5, 5}, {1}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{Graph(), Ids({0})};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_dgl_csr_neighbor_non_uniform_sample",
                 .attrs = {{"num_args", "3"}, {"max_num_vertices", "4"}},
                 .shapes = {{5, 5}, {5}, {1}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{
                           Graph(), NDArray::FromVector(std::vector<float>{1, 2, 3, 4, 5}, {5}),
                           Ids({1})};
                     },
                 .check_grad = false});
// A sampler's output: vertices {0, 1, 3}, rows 0 and 1 expanded (edges 0-1, 0-3, 1-0, 1-3).
MX_OP_TEST_CASE({.op = "_contrib_dgl_graph_compact",
                 .attrs = {{"num_args", "2"}, {"return_mapping", "False"}, {"graph_sizes", "3"}},
                 .shapes = {{4, 5}, {5}},
                 .make_inputs =
                     [](DType, uint64_t) {
                       return std::vector<NDArray>{
                           NDArray::FromVector(std::vector<int64_t>{0, 1, 0, 2, 0, 3, 0, 0, 4, 0,
                                                                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                                               {4, 5}, cpu(), DType::kInt64),
                           Ids({0, 1, 3, 0, 3})};
                     },
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
