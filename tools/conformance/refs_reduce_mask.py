"""Reference cases of the data-dependent-shape ops (ndarray/ops/reduce/reduce_mask.cc) from MXNet 1.9.1:
_contrib_boolean_mask (values + gradients) and _npx_nonzero; written by gen_reduce_refs.py as
ndarray/ops/testdata/reduce/mask.json (read by ndarray/ops/reduce/reduce_mask_test.cc).

cases(h) takes the generator's helpers h = {"case", "arr", "make", "rand", "registry"} and returns
(cases, extra) with extra = {"ops": registry entries, "errors": [{"name", "op", "attrs",
"inputs", "message"}]} (calls MXNet rejects). Deterministic (fixed seeds).
"""
import mxnet as mx
from refs_errors import collect_errors

PUBLIC = ["_contrib_boolean_mask", "_npx_nonzero"]
# The generator's call() looks ops up in mx.nd / mx.nd._internal; boolean_mask lives in contrib.
for _n in ["_contrib_boolean_mask", "_npi_boolean_mask"]:
    if not hasattr(mx.nd._internal, _n):
        setattr(mx.nd._internal, _n, mx.nd.contrib.boolean_mask)


def _nonzero_case(h, name, x):
    y = mx.npx.nonzero(x.as_np_ndarray()).as_nd_ndarray()
    return {"name": name, "op": "_npx_nonzero", "attrs": {}, "inputs": [h["arr"](x)],
            "outputs": [h["arr"](y)]}


def _errors(h):
    make, rand = h["make"], h["rand"]
    specs = [
        ("boolean_mask index length differs", "_contrib_boolean_mask",
         [rand((4, 3), -1, 1, 1), make([1, 0, 1])], {}),
        ("boolean_mask index 2-D", "_contrib_boolean_mask",
         [rand((4, 3), -1, 1, 2), make([[1], [0], [1], [0]])], {}),
        ("boolean_mask axis 1", "_contrib_boolean_mask",
         [rand((4, 3), -1, 1, 3), make([1, 0, 1])], {"axis": 1}),
    ]
    return collect_errors(specs, lambda op, inputs, attrs: getattr(mx.nd._internal, op)(*inputs, **attrs),
                          h["arr"], markers=("Check failed",))


def cases(h):
    case, make, rand = h["case"], h["make"], h["rand"]
    op = "_contrib_boolean_mask"
    cs = [
        case("boolean_mask rows", op, [rand((4, 3), -1, 1, 1), make([1, 0, 1, 0])], grad=[0], seed=1),
        case("boolean_mask float mask values", op, [rand((5, 2), -1, 1, 2), make([2, 0, -1, 0.5, 0])],
             grad=[0], seed=2),
        case("boolean_mask int32 mask 3-d data", op,
             [rand((3, 2, 4), -1, 1, 3), make([0, 1, 1], "int32")], {"axis": 0}, grad=[0], seed=3),
        case("boolean_mask all kept float64", op, [rand((3, 2), -1, 1, 4, "float64"), make([1, 1, 1])],
             grad=[0], seed=4),
        case("boolean_mask none kept", op, [rand((3, 2), -1, 1, 5), make([0, 0, 0])]),
        case("boolean_mask 1-d int32 data", op, [make([5, 6, 7, 8], "int32"), make([0, 1, 0, 1])]),
        case("boolean_mask alias", "_npi_boolean_mask", [rand((2, 3), -1, 1, 6), make([0, 1])]),
    ]
    cs += [
        _nonzero_case(h, "nonzero 2-d", make([[0, 1, 0], [2, 0, 3]])),
        _nonzero_case(h, "nonzero 3-d int32", make([[[0, 1], [1, 0]], [[0, 0], [5, -1]]], "int32")),
        _nonzero_case(h, "nonzero nan and -0", make([0.5, -0.0, float("nan"), 0])),
        _nonzero_case(h, "nonzero all zero", make([[0, 0], [0, 0]])),
        _nonzero_case(h, "nonzero 0-d", make(3.0, shape=())),
    ]
    return cs, {"ops": h["registry"](PUBLIC), "errors": _errors(h)}
