#!/usr/bin/env python3
"""Check that numpy reads a .npy/.npz FILE exactly as a single-entry JSON manifest says.

Usage: $PY tools/conformance/check_npy_ours.py FILE MANIFEST
MANIFEST: {"kind", "names", "arrays": [{"dtype", "shape", "values"}]} (io_conformance_writer's
format; npz names are member names without ".npy", in zip order). Exit 0 with "OK ...", or 1 with
one MISMATCH line per difference.
"""
import json
import math
import sys

import numpy as np


def same(got, want):
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if isinstance(g, float) or isinstance(w, float):
            g, w = float(g), float(w)
            if not ((math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))):
                return False
        elif g != w:
            return False
    return True


def main(path, manifest_path):
    want = json.load(open(manifest_path))
    errs = []
    data = np.load(path, allow_pickle=False)
    if path.endswith(".npz"):
        names, arrays = list(data.files), [data[k] for k in data.files]
        if names != want["names"]:
            errs.append("names %s, want %s" % (names, want["names"]))
    else:
        arrays = [data]
    if len(arrays) != len(want["arrays"]):
        errs.append("%d arrays, want %d" % (len(arrays), len(want["arrays"])))
    for i, (a, w) in enumerate(zip(arrays, want["arrays"])):
        if a.dtype.name != w["dtype"] or list(a.shape) != w["shape"]:
            errs.append("#%d: %s %s, want %s %s" % (i, a.dtype.name, list(a.shape), w["dtype"], w["shape"]))
            continue
        if not a.flags.c_contiguous:
            errs.append("#%d: not C order" % i)
        vals = a.ravel().tolist()
        if a.dtype == np.bool_:
            vals = [int(v) for v in vals]
        if not same(vals, w["values"]):
            errs.append("#%d: values differ" % i)
    for e in errs:
        print("MISMATCH %s: %s" % (path, e))
    if not errs:
        print("OK %s (numpy %s, %d arrays)" % (path, np.__version__, len(arrays)))
    return 1 if errs else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
