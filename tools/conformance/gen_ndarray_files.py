#!/usr/bin/env python3
"""Write small NDArray-list reference files with real MXNet 1.9.1, plus manifest.json.

Run with the conformance venv:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_ndarray_files.py [OUT_DIR]   # default: ndarray/testdata/mx

Every value in the manifest is taken from what MXNet itself reads back from the
file it just wrote, so the manifest is exactly "what MXNet loads". Deterministic:
fixed seeds, no timestamps; rerunning gives byte-identical files.
"""
import json
import os
import re
import sys
import warnings

warnings.filterwarnings("ignore")  # numpy 1.23 DeprecationWarning for np.bool inside mxnet
import numpy as np
import mxnet as mx

BF16 = np.dtype([("bfloat16", np.uint16)])  # how mxnet 1.x python spells bfloat16
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "ndarray", "testdata", "mx")
F32_INFO = np.finfo(np.float32)


def base_values(dtype, shape, seed):
    """Deterministic numpy data for a (dtype name, shape); edge values first."""
    n = int(np.prod(shape))
    rng = np.random.RandomState(seed)
    edges = {
        "float32": [0.0, -0.0, 1.0, -2.5, float(F32_INFO.max), float(F32_INFO.tiny), 1e-45],
        "float64": [0.0, -0.0, 0.1, -1e300, 5e-324, np.pi],
        "float16": [0.0, -0.0, 65504.0, -65504.0, 6.103515625e-05, 5.960464477539063e-08, 0.1],
        # bf16 = top 16 bits of f32; 1.00390625 is a round-to-even tie, the others show truncation vs rounding.
        "bfloat16": [0.0, 1.0, -2.0, 0.1, 1.00390625, 1.0039063, 3.0e38, -1.0e-38],
        "uint8": [0, 255, 1, 128],
        "int8": [-128, 127, 0, -1],
        "int32": [-2**31, 2**31 - 1, 0, -1],
        "int64": [-2**63, 2**63 - 1, 2**53 + 1, -1],
        "bool": [True, False],
    }[dtype]
    np_dt = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
    if dtype.startswith(("float", "bfloat")):
        rest = rng.uniform(-100, 100, size=n).astype(np_dt)
    elif dtype == "bool":
        rest = rng.randint(0, 2, size=n).astype(bool)
    else:
        info = np.iinfo(np_dt)
        rest = rng.randint(max(info.min, -1000), min(info.max, 1000) + 1, size=n).astype(np_dt)
    data = np.array(edges[:n], dtype=np_dt)
    return np.concatenate([data, rest[len(data):]]).reshape(shape)


def make(dtype, shape, seed, np_mode=False):
    """An mx NDArray (or mx.np.ndarray when np_mode) of the given dtype name."""
    data = base_values(dtype, shape, seed)
    if dtype == "bfloat16":  # no numpy bf16: cast from float32 inside MXNet
        a = mx.nd.array(data, dtype="float32").astype(BF16)
    else:
        a = mx.nd.array(data, dtype=data.dtype)
    return a.as_np_ndarray() if np_mode else a


def dtype_name(a):
    return "bfloat16" if a.dtype == BF16 else np.dtype(a.dtype).name


def describe(a):
    """Manifest entry for one loaded array: dtype, shape, flattened values (+ raw bits for bf16)."""
    a = a.as_nd_ndarray() if hasattr(a, "as_nd_ndarray") else a
    name, ent = dtype_name(a), {}
    if a.stype != "default":  # sparse: record dense values plus the stored parts
        ent["stype"] = a.stype
        ent["data"] = a.data.asnumpy().ravel().tolist()
        ent["data_shape"] = list(a.data.shape)
        ent["indices"] = a.indices.asnumpy().ravel().tolist()
        ent["aux_dtypes"] = [np.dtype(a._aux_type(i)).name for i in range(2 if a.stype == "csr" else 1)]
        if a.stype == "csr":
            ent["indptr"] = a.indptr.asnumpy().ravel().tolist()
        a = a.tostype("default")
    if name == "bfloat16":
        vals = a.astype("float32").asnumpy()
        ent["bits"] = [int(b[0]) for b in a.asnumpy().ravel()]  # raw uint16 words as stored
    else:
        vals = a.asnumpy()
    if name == "bool":
        vals = vals.astype(np.int64)
    ent = {"dtype": name, "shape": list(a.shape), "values": vals.ravel().tolist(), **ent}
    return ent


# Dict case: insertion order deliberately not sorted, so readers must keep file order.
DICT_SPECS = [
    ("arg:weight", "float32", (3, 4)),
    ("aux:moving_var", "float64", (2, 4)),
    ("half", "float16", (3, 3)),
    ("bytes", "uint8", (6,)),
    ("idx32", "int32", (2, 3)),
    ("small", "int8", (6,)),
    ("idx64", "int64", (2, 3)),
    ("mask", "bool", (2, 3)),
    ("brain", "bfloat16", (10,)),
]
LIST_SPECS = [("float32", (3, 4)), ("int32", (5,)), ("uint8", (2, 2, 2)), ("float64", (2, 3))]


def save_and_record(fname, data, description, np_mode=False):
    """Save `data` (dict or list) to OUT/fname with mx, reload it with mx, return its manifest entry."""
    path = os.path.join(OUT, fname)
    if np_mode:
        mx.npx.save(path, data)  # 1.9.1: writes the same container, records tagged V3 (0xF993FACA)
        loaded = mx.npx.load(path)
    else:
        mx.nd.save(path, data)  # records tagged V2 (0xF993FAC9)
        loaded = mx.nd.load(path)
    names = list(loaded.keys()) if isinstance(loaded, dict) else []
    arrays = list(loaded.values()) if isinstance(loaded, dict) else list(loaded)
    return {
        "kind": "dict" if isinstance(loaded, dict) else "list",
        "np_shape": np_mode,
        "record_version": "V3" if np_mode else "V2",
        "description": description,
        "size_bytes": os.path.getsize(path),
        "names": names,
        "arrays": [describe(a) for a in arrays],
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}
    # --- legacy (1.x default) shape semantics: V2 records ---
    d = {k: make(dt, sh, seed=i) for i, (k, dt, sh) in enumerate(DICT_SPECS)}
    d["a"] = mx.nd.array([-7.5])  # short name, shape (1,)
    files["dict_v2.nd"] = save_and_record("dict_v2.nd", d, "mx.nd.save(dict): named arrays of every dtype 1.9.1 supports")
    lst = [make(dt, sh, seed=100 + i) for i, (dt, sh) in enumerate(LIST_SPECS)]
    files["list_v2.nd"] = save_and_record("list_v2.nd", lst, "mx.nd.save(list): unnamed arrays (n_names == 0)")
    files["scalar1_v2.nd"] = save_and_record(
        "scalar1_v2.nd", mx.nd.array([42.5]), "mx.nd.save(single NDArray) of shape (1,): a 1-element list")
    files["zero_size_v2.nd"] = save_and_record(
        "zero_size_v2.nd",
        [mx.nd.array(np.zeros((0, 3), np.float32)), mx.nd.array(np.zeros((2, 0), np.int32), dtype="int32")],
        "0-size arrays (0,3) float32 and (2,0) int32: shape written, no data bytes")
    files["tensor4d_v2.nd"] = save_and_record(
        "tensor4d_v2.nd", {"conv0_weight": make("float32", (4, 3, 2, 5), seed=7)},
        "one 4-D float32 array (4,3,2,5), named like a conv weight")
    # Sparse (V2 only): csr 3x4 and row_sparse 4x2 with int64 indices.
    csr = mx.nd.sparse.csr_matrix((np.array([1.0, 2.0, 3.0], np.float32), np.array([0, 2, 1]), np.array([0, 2, 2, 3])),
                                  shape=(3, 4))
    rsp = mx.nd.sparse.row_sparse_array((np.array([[1.0, -1.0], [0.5, 2.0]], np.float32), np.array([1, 3])),
                                        shape=(4, 2))
    files["sparse_v2.nd"] = save_and_record(
        "sparse_v2.nd", {"csr": csr, "rsp": rsp}, "sparse V2 records: csr (stype 2) and row_sparse (stype 1)")
    # More sparse records (issue 23): what cast_storage makes from dense values (also -0.0, which it
    # does not store), all-zero arrays (nnz 0), a 3-d row_sparse, float64/int32 values, in a list.
    dense = np.array([[0, 1.5, -0.0, 0], [0, 0, 0, 0], [-2, 0, 0, 7.25]], np.float32)
    rows3 = np.zeros((5, 2, 3), np.float64)
    rows3[1] = [[1, 2, 3], [4, 5, 6]]
    rows3[4, 1, 2] = -0.5
    int_csr = lambda: mx.nd.array(np.array([[0, 3], [-4, 0]], np.int32), dtype="int32").tostype("csr")
    cast = [mx.nd.array(dense).tostype("csr"), mx.nd.array(dense).tostype("row_sparse"),
            mx.nd.array(rows3, dtype="float64").tostype("row_sparse"), int_csr(),
            mx.nd.sparse.zeros("csr", (2, 3)), mx.nd.sparse.zeros("row_sparse", (3, 2))]
    # Wait for the casts: MXNet's save reads the storage shape without waiting, so a csr saved
    # while its cast_storage still runs may be written with storage shape (0,) before its values
    # (seen once for the int32 one); MXNet's loader then takes the storage shape from the aux
    # shapes (its NDArray constructor does so whenever the storage shape has size 0), and so do we.
    for a in cast:
        a.wait_to_read()
    files["sparse_cast_v2.nd"] = save_and_record(
        "sparse_cast_v2.nd", cast,
        "sparse V2 list made by cast_storage (tostype) from dense values, and all-zero sparse arrays")

    # csr_matrix given int32 index arrays (it converts them to int64, as we do).
    csr32 = mx.nd.sparse.csr_matrix(
        (mx.nd.array([4.0, 5.0]), mx.nd.array([1, 0], dtype="int32"), mx.nd.array([0, 1, 2], dtype="int32")),
        shape=(2, 2))
    files["sparse_int32_aux_v2.nd"] = save_and_record(
        "sparse_int32_aux_v2.nd", {"w": csr32},
        "csr_matrix given int32 indptr/indices: MXNet stores its aux arrays as int64 anyway")
    # --- np-shape semantics: V3 records (0-d arrays are real scalars, 0 dims are real zeros) ---
    mx.npx.set_np()
    d = {k: make(dt, sh, seed=i, np_mode=True) for i, (k, dt, sh) in enumerate(DICT_SPECS)}
    d["a"] = mx.np.array([-7.5])
    d["scalar"] = mx.np.array(np.float32(3.25))  # true 0-d scalar: ndim 0, one element
    d["empty"] = mx.np.zeros((0, 3), dtype=np.float32)
    files["np_dict_v3.nd"] = save_and_record(
        "np_dict_v3.nd", d, "npx.save(dict) under set_np(): dict_v2 contents + 0-d scalar + (0,3) array", np_mode=True)
    lst = [make(dt, sh, seed=100 + i, np_mode=True) for i, (dt, sh) in enumerate(LIST_SPECS)]
    lst += [mx.np.array(np.int64(-7), dtype=np.int64), make("float32", (4, 3, 2, 5), seed=7, np_mode=True)]
    files["np_list_v3.nd"] = save_and_record(
        "np_list_v3.nd", lst, "npx.save(list) under set_np(): list_v2 contents + 0-d int64 + 4-D float32", np_mode=True)
    mx.npx.reset_np()

    manifest = {
        "generator": "tools/conformance/gen_ndarray_files.py",
        "mxnet_version": mx.__version__,
        "numpy_version": np.__version__,
        "notes": [
            "values are flattened C-order; bool as 0/1; float16/bfloat16 as their exact float value",
            "bfloat16 entries also carry 'bits' (raw uint16); MXNet 1.9.1's float32->bfloat16 cast truncates "
            "(0.1 -> 0x3DCC), it does not round to nearest even",
            "int64 values include INT64_MIN/MAX and 2^53+1: parse them as exact integers",
        ],
        "unsupported_dtypes": {
            t: "mxnet 1.9.1 cannot create it: no python dtype mapping; MXNDArrayCreateEx(dtype=%d) fails "
               "with 'Unknown type enum %d'" % (f, f)
            for t, f in [("int16", 8), ("uint16", 9), ("uint32", 10), ("uint64", 11)]
        },
        "files": files,
    }
    text = json.dumps(manifest, indent=1)
    # Keep each list of numbers on one line (lists without strings or nesting).
    text = re.sub(r"\[([^\[\]{}\"]*)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        f.write(text + "\n")
    for k, v in files.items():
        print("%-18s %6d bytes  %s" % (k, v["size_bytes"], v["description"]))


if __name__ == "__main__":
    main()
