#!/usr/bin/env python3
"""Write small .npy/.npz reference files with NumPy (docs/formats.md §2.6-2.7), plus manifest.json.

Run with the conformance venv (numpy 1.23.5):
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_npy_files.py [OUT_DIR]   # default: ndarray/testdata/io

Entries of manifest.json follow gen_ndarray_files.py ({kind, names, arrays: [{dtype, shape,
values}]}); files our reader must refuse carry {"error": "<substring of the message>"} instead.
Deterministic: rerunning gives byte-identical files, except that zip members carry the current
time (numpy's zipfile), so the .npz files differ in their timestamps only.
"""
import json
import os
import re
import sys

import numpy as np
from numpy.lib import format as npf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "ndarray", "testdata", "io")

DTYPES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
          "int16", "uint16", "uint32", "uint64"]


def values(dtype, shape):
    """Deterministic values with the dtype's extremes first."""
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt == np.bool_:
        v = [i % 3 == 0 for i in range(n)]
    elif dt.kind == "f":
        info = np.finfo(dt)
        edge = [0.0, -0.0, float(info.max), float(info.tiny), -1.5, 0.1]
        v = edge + [i * 0.25 - 3 for i in range(len(edge), n)]
    else:
        info = np.iinfo(dt)
        edge = [int(info.min), int(info.max), 0, 1]
        v = edge + [(i * 7) % 100 for i in range(len(edge), n)]
    return np.array(v[:n], dtype=dt).reshape(shape)


def describe(a):
    vals = a.ravel().tolist()
    if a.dtype == np.bool_:
        vals = [int(x) for x in vals]
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": vals}


def save_npy(name, a, version=None):
    with open(os.path.join(OUT, name), "wb") as f:
        npf.write_array(f, a, version=version)


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}
    cases = [
        ("f32_v1.npy", values("float32", (2, 3)), (1, 0)),
        ("i64_v2.npy", values("int64", (3,)), (2, 0)),
        ("u8_v3.npy", values("uint8", (2, 2)), (3, 0)),
        ("scalar_f64.npy", np.array(2.5, dtype=np.float64), None),
        ("empty_f32.npy", np.zeros((0, 3), np.float32), None),
        ("bool.npy", values("bool", (5,)), None),
        ("u64_4d.npy", values("uint64", (2, 1, 2, 2)), None),
    ]
    for name, a, ver in cases:
        save_npy(name, a, ver)
        files[name] = {"kind": "list", "names": [], "arrays": [describe(a)]}
    d = {("w_" + t): values(t, (2, 3)) for t in DTYPES}
    d["scalar"] = np.array(-4.0, np.float32)
    d["empty"] = np.zeros((2, 0), np.int32)
    np.savez(os.path.join(OUT, "dtypes_stored.npz"), **d)
    np.savez_compressed(os.path.join(OUT, "dtypes_deflated.npz"), **d)
    for name in ("dtypes_stored.npz", "dtypes_deflated.npz"):
        files[name] = {"kind": "dict", "names": list(d), "arrays": [describe(a) for a in d.values()]}
    lst = [values("float32", (4,)), values("int8", (2, 2))]
    np.savez(os.path.join(OUT, "list.npz"), *lst)
    files["list.npz"] = {"kind": "dict", "names": ["arr_0", "arr_1"], "arrays": [describe(a) for a in lst]}
    # Files we refuse, with the reason.
    save_npy("fortran.npy", np.asfortranarray(values("float32", (2, 3))))
    files["fortran.npy"] = {"error": "fortran_order True"}
    save_npy("big_endian.npy", values("float32", (3,)).astype(">f4"))
    files["big_endian.npy"] = {"error": "big-endian"}
    save_npy("structured.npy", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))
    files["structured.npy"] = {"error": "structured dtypes"}
    save_npy("complex.npy", np.zeros(2, dtype=np.complex64))
    files["complex.npy"] = {"error": "unsupported .npy dtype descr '<c8'"}

    manifest = {"generator": "tools/conformance/gen_npy_files.py", "numpy_version": np.__version__,
                "files": files}
    text = json.dumps(manifest, indent=1)
    text = re.sub(r"\[([^\[\]{}\"]*)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        f.write(text + "\n")
    for k in files:
        print("%-22s %6d bytes" % (k, os.path.getsize(os.path.join(OUT, k))))


if __name__ == "__main__":
    main()
