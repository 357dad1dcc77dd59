"""Reference cases of MXNet 1.9.1's internal index/count ops (ndarray/ops/reduce/reduce_index.cc):
_ravel_multi_index, _unravel_index, _histogram, _onehot_encode, _scatter_set_nd, _square_sum;
written by gen_reduce_refs.py as ndarray/ops/testdata/reduce/index.json (read by
ndarray/ops/reduce/reduce_index_test.cc).

cases(h) takes the generator's helpers h = {"case", "arr", "make", "rand", "registry"} and returns
(cases, extra) with extra = {"ops": registry entries, "errors": [{"name", "op", "attrs",
"inputs", "message"}]}. Notes: _scatter_set_nd only runs in MXNet with out=lhs (in place);
_square_sum only has a row_sparse implementation in MXNet, so its values and gradients come from
row_sparse inputs (written as dense). Deterministic (fixed seeds).
"""
import mxnet as mx
from refs_errors import collect_errors

nd = mx.nd
PUBLIC = ["_ravel_multi_index", "_unravel_index", "_histogram", "_onehot_encode",
          "_scatter_set_nd", "_square_sum"]


def _set_nd_case(h, name, lhs, rhs, idx, shape):
    inputs = [h["arr"](x) for x in (lhs, rhs, idx)]
    out = lhs.copy()
    nd._internal._scatter_set_nd(out, rhs, idx, shape=shape, out=out)  # in place only
    return {"name": name, "op": "_scatter_set_nd", "attrs": {"shape": str(shape)},
            "inputs": inputs, "outputs": [h["arr"](out)]}


def _square_sum_case(h, name, x, attrs, seed):
    xs = x.tostype("row_sparse")
    xs.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = nd._internal._square_sum(xs, **attrs)
    hg = h["rand"](y.shape, -1, 1, seed)
    y.backward(hg)
    return {"name": name, "op": "_square_sum", "attrs": {k: str(v) for k, v in attrs.items()},
            "inputs": [h["arr"](x)], "outputs": [h["arr"](y.tostype("default"))],
            "head_grads": [h["arr"](hg)], "grads": [h["arr"](xs.grad.tostype("default"))]}


def _errors(h):
    make, rand = h["make"], h["rand"]
    specs = [
        ("ravel data 1-D", "_ravel_multi_index", [make([3, 4])], {"shape": (7, 6)}),
        ("ravel rows differ from shape", "_ravel_multi_index", [make([[3, 6], [4, 5], [1, 1]])],
         {"shape": (7, 6)}),
        ("ravel no shape", "_ravel_multi_index", [make([[3, 6], [4, 5]])], {}),
        ("unravel no shape", "_unravel_index", [make([5])], {}),
        ("histogram bin_cnt without range", "_histogram", [rand((4,), -1, 1, 1)], {"bin_cnt": 3}),
        ("histogram range reversed", "_histogram", [rand((4,), -1, 1, 2)],
         {"bin_cnt": 2, "range": (3, 0)}),
        ("histogram bins 2-D", "_histogram", [rand((4,), -1, 1, 3), make([[0, 1], [2, 3]])], {}),
        ("onehot length differs", "_onehot_encode", [make([0, 2]), nd.ones((3, 4))], {}),
        ("onehot 2-D index", "_onehot_encode", [make([[0, 2]]), nd.ones((1, 2, 4))], {}),
    ]
    return collect_errors(specs, lambda op, inputs, attrs: getattr(nd._internal, op)(*inputs, **attrs), h["arr"])


def cases(h):
    case, make, rand = h["case"], h["make"], h["rand"]
    cs = []
    # ravel / unravel (zero gradients in MXNet)
    r = "_ravel_multi_index"
    cs.append(case("ravel (7, 6)", r, [make([[3, 6, 6], [4, 5, 1]])], {"shape": (7, 6)}, grad=[0], seed=1))
    cs.append(case("ravel out of range and negative", r, [make([[3, 6, 7, -1], [4, 5, 1, 4]])],
                   {"shape": (7, 6)}))
    cs.append(case("ravel truncates floats", r, [make([[1.7, 6.2], [4.9, 0.5]])], {"shape": (7, 6)}))
    cs.append(case("ravel int32 3-d shape", r, [make([[1, 0, 2], [2, 1, 0], [3, 0, 1]], "int32")],
                   {"shape": (3, 4, 5)}))
    cs.append(case("ravel float64 1 dim", r, [make([[22, 41]], "float64")], {"shape": (7,)}))
    cs.append(case("ravel alias", "ravel_multi_index", [make([[3, 6], [4, 5]])], {"shape": (7, 6)}))
    u = "_unravel_index"
    cs.append(case("unravel (7, 6)", u, [make([22, 41, 37])], {"shape": (7, 6)}, grad=[0], seed=2))
    cs.append(case("unravel first dim not wrapped, negative", u, [make([22, 100, -1, -13])],
                   {"shape": (7, 6)}))
    cs.append(case("unravel (2, 3, 7) int64", u, [make([22, 41, 0], "int64")], {"shape": (2, 3, 7)}))
    cs.append(case("unravel (N, 1) data", u, [make([[22], [41], [37]])], {"shape": (7, 6)}))
    cs.append(case("unravel truncates floats", u, [make([22.7, 41.2])], {"shape": (7, 6)}))
    cs.append(case("unravel alias", "unravel_index", [make([5, 7])], {"shape": (3, 4)}))
    # histogram
    hi = "_histogram"
    d = make([0.1, 0.5, 0.9, 1.0, 2.0, -1, 3.5, 2.2, 3.0])
    cs.append(case("histogram uniform", hi, [d], {"bin_cnt": 4, "range": (0, 3)}))
    cs.append(case("histogram uniform wide", hi, [rand((4, 5), -2, 2, 3)], {"bin_cnt": 7, "range": (-1.5, 1.7)}))
    cs.append(case("histogram bins", hi, [d, make([0, 1, 2, 3])]))
    cs.append(case("histogram duplicate edges", hi, [d, make([0, 1, 1, 3])]))
    cs.append(case("histogram descending edges", hi, [d, make([3, 1.5, 0])]))
    cs.append(case("histogram int32", hi, [d.astype("int32")], {"bin_cnt": 3, "range": (0, 3)}))
    cs.append(case("histogram int32 bins", hi, [d.astype("int32"), make([0, 2, 3], "int32")]))
    cs.append(case("histogram float64", hi, [d.astype("float64")], {"bin_cnt": 3, "range": (0, 3)}))
    cs.append(case("histogram equal range", hi, [d], {"bin_cnt": 2, "range": (1, 1)}))
    cs.append(case("histogram nan ignored", hi, [make([0, 3, 1.5, float("nan"), 0.99999994])],
                   {"bin_cnt": 2, "range": (0, 3)}))
    cs.append(case("histogram 10 bins", hi, [make([0.3, 0.6, 0.9, 0.1 + 0.2, 0.45, 0.27])],
                   {"bin_cnt": 10, "range": (0, 0.9)}))
    cs.append(dict(case("histogram alias", "_histogram", [d], {"bin_cnt": 3, "range": (0, 3)}), op="_npi_histogram"))
    # _onehot_encode (float32 only)
    cs.append(case("onehot_encode", "_onehot_encode", [make([0, 2, 1, 5, -1]), nd.zeros((5, 4))]))
    cs.append(case("onehot_encode float index", "_onehot_encode", [make([0, 2.7]), nd.ones((2, 4))]))
    # _scatter_set_nd
    cs.append(_set_nd_case(h, "scatter_set_nd 1-d", make([1, 2, 3, 4]), make([9, 8]), make([[1, 3]]), (4,)))
    cs.append(_set_nd_case(h, "scatter_set_nd elements", make([[1, 2], [3, 4]]), make([9, 8]),
                           make([[1, 0], [0, 1]]), (2, 2)))
    cs.append(_set_nd_case(h, "scatter_set_nd rows", rand((3, 4), -1, 1, 4), rand((2, 4), -1, 1, 5),
                           make([[2, 0]], "int32"), (3, 4)))
    cs.append(_set_nd_case(h, "scatter_set_nd int64 data", make([[1, 2], [3, 4]], "int64"),
                           make([[9, 8]], "int64"), make([[1]]), (2, 2)))
    # _square_sum (values from MXNet's row_sparse implementation)
    x = rand((3, 4), -1, 1, 6)
    cs.append(_square_sum_case(h, "square_sum axis 1", x, {"axis": 1}, 7))
    cs.append(_square_sum_case(h, "square_sum axis 0", x, {"axis": 0}, 8))
    cs.append(_square_sum_case(h, "square_sum axis 1 keepdims", x, {"axis": 1, "keepdims": True}, 9))
    cs.append(_square_sum_case(h, "square_sum axis 0 keepdims", x, {"axis": 0, "keepdims": True}, 10))
    return cs, {"ops": h["registry"](PUBLIC), "errors": _errors(h)}
