#!/usr/bin/env python3
"""Check that real MXNet 1.9.1 reads an NDArray-list FILE exactly as a JSON manifest says.

Usage (with the conformance venv python):
    $PY tools/conformance/check_read_ours.py FILE MANIFEST

MANIFEST is either the multi-file format written by gen_ndarray_files.py
({"files": {"<basename>": ENTRY, ...}}; the entry is looked up by FILE's basename)
or a single ENTRY: {"kind": "list"|"dict", "names": [...], "arrays": [{"dtype", "shape",
"values", optional "stype"/"data"/"indices"/"indptr"/"bits"}], optional "record_version"}.
Exit status 0 and "OK ..." when everything matches, 1 with one line per mismatch otherwise.
"""
import json
import math
import os
import struct
import sys
import warnings

warnings.filterwarnings("ignore")
import numpy as np
import mxnet as mx

BF16 = np.dtype([("bfloat16", np.uint16)])
MAGIC = {0xF993FACA: "V3", 0xF993FAC9: "V2", 0xF993FAC8: "V1"}


def load(path):
    """mx.nd.load; V3 (np-shape) records only load with np-shape on, so retry that way."""
    try:
        return mx.nd.load(path), False
    except mx.base.MXNetError as e:
        if "np shape" not in str(e):
            raise
    with mx.util.np_shape(True):
        return mx.nd.load(path), True


def same(got, want):
    """Exact equality of two flat number lists; NaN equals NaN, and 0.0 != -0.0."""
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


def check_array(tag, a, want, errs):
    dtype = "bfloat16" if a.dtype == BF16 else np.dtype(a.dtype).name
    if dtype != want["dtype"]:
        errs.append("%s: dtype %s, want %s" % (tag, dtype, want["dtype"]))
        return
    if list(a.shape) != list(want["shape"]):
        errs.append("%s: shape %s, want %s" % (tag, list(a.shape), want["shape"]))
        return
    if a.stype != want.get("stype", "default"):
        errs.append("%s: stype %s, want %s" % (tag, a.stype, want.get("stype", "default")))
        return
    if a.stype != "default":
        for part in ("data", "indices", "indptr"):
            if part in want and not same(getattr(a, part).asnumpy().ravel().tolist(), want[part]):
                errs.append("%s: sparse %s differ" % (tag, part))
        a = a.tostype("default")
    if dtype == "bfloat16":
        if "bits" in want and [int(b[0]) for b in a.asnumpy().ravel()] != want["bits"]:
            errs.append("%s: bfloat16 bits differ" % tag)
        a = a.astype("float32")
    vals = a.asnumpy().ravel()
    vals = (vals.astype(np.int64) if dtype == "bool" else vals).tolist()
    if not same(vals, want["values"]):
        bad = next(i for i in range(max(len(vals), len(want["values"])))
                   if i >= len(vals) or i >= len(want["values"]) or not same([vals[i]], [want["values"][i]]))
        errs.append("%s: values differ (first at flat index %d)" % (tag, bad))


def main(path, manifest_path):
    man = json.load(open(manifest_path))
    entry = man["files"][os.path.basename(path)] if "files" in man else man
    errs = []
    data, np_mode = load(path)
    # Record version of the first record (header: u64 magic, u64 reserved, u64 count).
    raw = open(path, "rb").read(28)
    if "record_version" in entry and len(raw) == 28 and struct.unpack("<Q", raw[16:24])[0] > 0:
        ver = MAGIC.get(struct.unpack("<I", raw[24:28])[0], "legacy")
        if ver != entry["record_version"]:
            errs.append("record version %s, want %s" % (ver, entry["record_version"]))
    kind = "dict" if isinstance(data, dict) else "list"
    if kind != entry["kind"]:
        errs.append("kind %s, want %s" % (kind, entry["kind"]))
    names = list(data.keys()) if kind == "dict" else []
    if names != list(entry.get("names", [])):
        errs.append("names %s, want %s" % (names, entry.get("names")))
    arrays = list(data.values()) if kind == "dict" else list(data)
    if len(arrays) != len(entry["arrays"]):
        errs.append("%d arrays, want %d" % (len(arrays), len(entry["arrays"])))
    for i, (a, want) in enumerate(zip(arrays, entry["arrays"])):
        check_array(names[i] if i < len(names) else "#%d" % i, a, want, errs)
    for e in errs:
        print("MISMATCH %s: %s" % (path, e))
    if not errs:
        print("OK %s (%s, %d arrays%s)" % (path, kind, len(arrays), ", np-shape" if np_mode else ""))
    return 1 if errs else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
