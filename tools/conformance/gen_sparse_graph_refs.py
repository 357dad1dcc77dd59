#!/usr/bin/env python3
"""Reference values of MXNet 1.9.1's graph ops on csr adjacency matrices (_contrib_edge_id,
_contrib_dgl_adjacency, _contrib_dgl_subgraph, _contrib_dgl_graph_compact,
_contrib_dgl_csr_neighbor_uniform_sample, _contrib_dgl_csr_neighbor_non_uniform_sample), for
//ndarray/ops/sparse:sparse_graph_test.

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_sparse_graph_refs.py   # writes ndarray/ops/testdata/sparse/graph.json

Each case: op, attrs, inputs (csr given by its parts, dense by values) and MXNet's outputs
(storage type, dtype, shape, dense values; csr entries as (row, col, value)). The samplers' outputs
hold uninitialized memory past the vertex count, so for them "valid" gives, per output, how many
leading entries are defined (the vertex count; the last entry of a vertex-id array is the count
too; the undefined entries are written as 0). Sampling cases whose result depends on the random
draw are marked "random": only their invariants are checked (they are asserted here on MXNet's
output as well). Cases where MXNet raises carry "mxnet_error". Deterministic (mx.random.seed
fixes the draws).
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "..", "ndarray", "ops", "testdata", "sparse", "graph.json")


def csr_spec(dense, dtype="int64"):
    """A csr input from a dense matrix (edge ids as values)."""
    d = np.asarray(dense)
    rows, cols = np.nonzero(d)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=d.shape[0]))])
    return {"stype": "csr", "dtype": dtype, "shape": list(d.shape), "data": d[rows, cols].astype(float).tolist(),
            "indices": cols.tolist(), "indptr": indptr.tolist()}


def graph_spec(n, edges, dtype="int64"):
    """A csr graph of n vertices from (src, dst) pairs; edge ids 1, 2, ... in row-major order."""
    d = np.zeros((n, n), np.int64)
    for k, (s, t) in enumerate(sorted(edges)):
        d[s, t] = k + 1
    return csr_spec(d, dtype)


def dense(values, dtype="int64"):
    a = np.asarray(values)
    return {"stype": "default", "dtype": dtype, "shape": list(a.shape), "values": a.astype(float).ravel().tolist()}


def mx_in(s):
    if s["stype"] == "csr":
        return mx.nd.sparse.csr_matrix(
            (np.array(s["data"], dtype=s["dtype"]), np.array(s["indices"], np.int64),
             np.array(s["indptr"], np.int64)), shape=tuple(s["shape"]), dtype=s["dtype"])
    return mx.nd.array(np.array(s["values"]).reshape(s["shape"]), dtype=s["dtype"])


def out_entry(y):
    e = {"stype": y.stype, "dtype": np.dtype(y.dtype).name, "shape": list(y.shape)}
    dn = y.tostype("default").asnumpy() if y.stype != "default" else y.asnumpy()
    e["values"] = dn.astype(np.float64).ravel().tolist()
    if y.stype == "csr":
        ptr = y.indptr.asnumpy().astype(np.int64)
        if len(ptr) == 0:  # never written (dgl_graph_compact's mapping outputs)
            e["entries"], e["unwritten"] = [], True
            return e
        nnz = int(ptr[-1])
        rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        e["entries"] = [[int(r), int(c), float(v)] for r, c, v in
                        zip(rows, y.indices.asnumpy()[:nnz], y.data.asnumpy()[:nnz])]
    return e


def error_text(e):
    lines = [l for l in str(e).splitlines() if "Error" in l or "Check failed" in l]
    return (lines[-1] if lines else str(e).splitlines()[0]).strip()


cases = []

# MXNet's documented example graph (edge ids as values).
X = [[1, 0, 0, 2], [3, 0, 4, 0], [0, 5, 0, 0], [0, 6, 7, 0]]
# A ring of 6: each vertex has edges to its two neighbours (degree 2).
RING = [(i, (i + d) % 6) for i in range(6) for d in (1, -1)]
# The complete graph of 5 without self loops (degree 4).
K5 = [(i, j) for i in range(5) for j in range(5) if i != j]


def check_sample_invariants(graph, outs, num_hops, k, max_v, seeds, prob=None):
    """What holds for any draw: the vertex ids are sorted and unique, include the seeds (up to
    max_v), the count is in range; each row of the sub csr holds min(degree, k) edges of that
    vertex in the parent graph (or none), with their parent edge ids; the layers are the BFS
    depth (seeds 0) and at most num_hops."""
    n = graph["shape"][0]
    ptr, idx, dat = graph["indptr"], graph["indices"], graph["data"]
    ids, sub = outs[0], outs[1]
    cnt = int(ids["values"][-1])
    assert 0 < cnt <= max_v
    v = [int(x) for x in ids["values"][:cnt]]
    assert v == sorted(set(v)) and all(0 <= x < n for x in v)
    assert set(seeds[:max_v]) <= set(v) or len(set(seeds)) > max_v
    layer = outs[-1]["values"][:cnt]
    assert all(0 <= l <= num_hops for l in layer)
    for s in set(seeds):
        if s in v:
            assert layer[v.index(s)] == 0
    rows = {}
    for r, c, val in sub["entries"]:
        rows.setdefault(r, []).append((c, val))
    for r, es in rows.items():
        assert r < cnt
        u = v[r]
        parent = {idx[j]: dat[j] for j in range(ptr[u], ptr[u + 1])}
        assert len(es) == min(len(parent), k), (u, es)
        for c, val in es:
            if prob is None:  # MXNet's non-uniform sampler sorts ids and columns apart
                assert parent.get(c) == val, (u, c, val)
            else:
                assert c in parent
    if prob is not None:
        for i, x in enumerate(v):
            assert abs(outs[2]["values"][i] - prob[x]) < 1e-7


def add(op, inputs, attrs, call, valid=None, random_case=None):
    ins = [mx_in(s) for s in inputs]
    case = {"op": op, "attrs": {k: str(v) for k, v in attrs.items()}, "inputs": inputs}
    try:
        ys = call(*ins)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        case["outputs"] = [out_entry(y) for y in ys]
    except mx.base.MXNetError as e:
        case["mxnet_error"] = error_text(e)
    if valid is not None and "outputs" in case:
        case["valid"] = valid(case["outputs"])
        n_ids = len(case["outputs"]) // (4 if "non_uniform" in op else 3)
        for i, (o, m) in enumerate(zip(case["outputs"], case["valid"])):
            if m is not None:  # uninitialized memory: written as 0 so that the file is reproducible
                last = o["values"][-1]
                o["values"][m:] = [0.0] * (len(o["values"]) - m)
                if i < n_ids:
                    o["values"][-1] = last
    if random_case is not None:
        case["random"] = True
        random_case(case["outputs"])
    cases.append(case)


def main():
    mx.random.seed(23)  # the samplers' draws (one seed array per call: OpenMP thread 0's seed)
    g = csr_spec(X)
    # ---- _contrib_edge_id ----
    u, v = [0, 0, 1, 1, 2, 2, 3, 3], [0, 3, 0, 2, 1, 3, 2, 0]
    add("_contrib_edge_id", [g, dense(u), dense(v)], {}, mx.nd.contrib.edge_id)
    gf = dict(csr_spec(X, "float32"))
    add("_contrib_edge_id", [gf, dense(u, "float32"), dense(v, "float32")], {}, mx.nd.contrib.edge_id)
    add("_contrib_edge_id", [csr_spec(np.zeros((3, 3)), "float32"), dense([0, 2], "float32"),
                             dense([1, 2], "float32")], {}, mx.nd.contrib.edge_id)
    add("_contrib_edge_id", [g, dense([0, 1]), dense([0, 1, 2])], {}, mx.nd.contrib.edge_id)  # length mismatch
    add("_contrib_edge_id", [dense(X), dense(u), dense(v)], {}, mx.nd.contrib.edge_id)  # dense graph
    # ---- _contrib_dgl_adjacency ----
    add("_contrib_dgl_adjacency", [g], {}, mx.nd.contrib.dgl_adjacency)
    add("_contrib_dgl_adjacency", [graph_spec(6, RING)], {}, mx.nd.contrib.dgl_adjacency)
    add("_contrib_dgl_adjacency", [gf], {}, mx.nd.contrib.dgl_adjacency)  # float32 ids: refused
    # ---- _contrib_dgl_subgraph ----
    for vs, rm in [([[0, 1, 2]], True), ([[1, 3], [0, 2, 3]], False), ([[1, 3], [0, 2, 3]], True),
                   ([[0, 1, 2, 3]], True), ([[2]], False)]:
        add("_contrib_dgl_subgraph", [g] + [dense(x) for x in vs],
            {"num_args": 1 + len(vs), "return_mapping": rm},
            lambda *a, rm=rm: mx.nd.contrib.dgl_subgraph(*a, return_mapping=rm))
    add("_contrib_dgl_subgraph", [graph_spec(6, RING), dense([0, 2, 3, 5])],
        {"num_args": 2, "return_mapping": True},
        lambda *a: mx.nd.contrib.dgl_subgraph(*a, return_mapping=True))
    # (An unsorted vertex list aborts MXNet's process from its OpenMP loop: tested by hand only.)
    # ---- samplers, deterministic (every degree <= num_neighbor) ----
    ring = graph_spec(6, RING)

    def sample_valid(outs):
        """Per output, its subgraph's vertex count (leading defined entries; a vertex-id array's
        last entry too), None for the csr outputs (all defined). Outputs come in groups of one per
        seed array: ids, csr, [probabilities,] layers."""
        groups = 4 if len(outs) % 4 == 0 and outs[len(outs) // 2]["dtype"] == "float32" else 3
        n = len(outs) // groups
        cnt = [int(outs[j]["values"][-1]) for j in range(n)]
        return [None if outs[i]["stype"] == "csr" else cnt[i % n] for i in range(len(outs))]

    for seeds, hops, k, mv in [([[0]], 1, 2, 10), ([[0]], 2, 2, 10), ([[0]], 2, 2, 4), ([[0]], 3, 3, 8),
                               ([[0, 3], [5]], 1, 2, 6), ([[2, 2, 4]], 2, 2, 10)]:
        attrs = {"num_args": 1 + len(seeds), "num_hops": hops, "num_neighbor": k, "max_num_vertices": mv}
        add("_contrib_dgl_csr_neighbor_uniform_sample", [ring] + [dense(s) for s in seeds], attrs,
            lambda *a, attrs=attrs: mx.nd.contrib.dgl_csr_neighbor_uniform_sample(*a, **attrs),
            valid=sample_valid)
    prob = np.linspace(0.1, 1, 6).astype(np.float32)
    for seeds, hops, k, mv in [([[0, 3]], 1, 2, 5), ([[1], [4]], 2, 2, 10)]:
        attrs = {"num_args": 2 + len(seeds), "num_hops": hops, "num_neighbor": k, "max_num_vertices": mv}
        add("_contrib_dgl_csr_neighbor_non_uniform_sample",
            [ring, dense(prob, "float32")] + [dense(s) for s in seeds], attrs,
            lambda *a, attrs=attrs: mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(*a, **attrs),
            valid=sample_valid)
    # ---- samplers, random (degree 4 > num_neighbor 2): invariants only ----
    k5 = graph_spec(5, K5)
    for hops, mv in [(1, 5), (2, 5), (1, 3)]:
        attrs = {"num_args": 2, "num_hops": hops, "num_neighbor": 2, "max_num_vertices": mv}
        add("_contrib_dgl_csr_neighbor_uniform_sample", [k5, dense([0])], attrs,
            lambda *a, attrs=attrs: mx.nd.contrib.dgl_csr_neighbor_uniform_sample(*a, **attrs),
            valid=sample_valid,
            random_case=lambda outs, hops=hops, mv=mv: check_sample_invariants(k5, outs, hops, 2, mv, [0]))
    p5 = [0.1, 0.2, 0.3, 0.4, 0.5]
    attrs = {"num_args": 3, "num_hops": 1, "num_neighbor": 2, "max_num_vertices": 5}
    add("_contrib_dgl_csr_neighbor_non_uniform_sample", [k5, dense(p5, "float32"), dense([0])], attrs,
        lambda *a: mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(*a, **attrs), valid=sample_valid,
        random_case=lambda outs: check_sample_invariants(k5, outs, 1, 2, 5, [0], prob=np.float32(p5).tolist()))
    # ---- _contrib_dgl_graph_compact of deterministic samples ----
    for seeds, hops, mv in [([0], 1, 10), ([0], 2, 10), ([0], 2, 4)]:
        s = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
            mx_in(ring), mx.nd.array(seeds, dtype="int64"), num_args=2, num_hops=hops, num_neighbor=2,
            max_num_vertices=mv)
        cnt = int(s[0][-1].asscalar())
        ids = s[0].asnumpy().copy()
        ids[cnt:-1] = 0  # MXNet leaves these uninitialized
        sub = out_entry(s[1])
        sub_in = {"stype": "csr", "dtype": "int64", "shape": sub["shape"],
                  "data": [e[2] for e in sub["entries"]], "indices": [e[1] for e in sub["entries"]],
                  "indptr": s[1].indptr.asnumpy().tolist()}
        for rm in [False, True]:
            attrs = {"num_args": 2, "return_mapping": rm, "graph_sizes": "(%d,)" % cnt}
            add("_contrib_dgl_graph_compact", [sub_in, dense(ids)], attrs,
                lambda *a, rm=rm, cnt=cnt: mx.nd.contrib.dgl_graph_compact(*a, graph_sizes=(cnt,), return_mapping=rm))
    doc = {"generator": "tools/conformance/gen_sparse_graph_refs.py", "mxnet_version": mx.__version__,
           "cases": cases}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT + ".tmp", "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)
    print("wrote %d cases (%d MXNet errors) to %s" % (len(cases), sum("mxnet_error" in c for c in cases), OUT))


if __name__ == "__main__":
    main()
