"""MXNet 1.9.1 references for _cvimresize and _cvcopyMakeBorder (ndarray/ops/image/image_cv.cc).

Called from gen_shape_refs.py (gen(run_case, out_dir)); also runnable alone with the conformance
venv:  $PY tools/conformance/refs_image_cv.py [OUT_DIR]   (default ndarray/ops/testdata/shape)
Writes image_cv.json: {"cases": [...]} in refs.json's case format ({op, attrs, inputs, outputs}
or {error: true, message}). Forward only (neither op has a gradient). Deterministic.
"""
import json
import os
import sys

import numpy as np


def gen(run_case, out_dir):
    rng = np.random.RandomState(5)
    cases = []

    def img(shape, dtype="uint8"):
        v = rng.uniform(0, 255, size=shape)
        return (np.round(v * 4) / 4 if dtype.startswith("float") else np.round(v)).astype(dtype)

    def case(op, attrs, x):
        cases.append(run_case(op, {k: str(v) for k, v in attrs.items()}, [x], False, ""))

    # ---- _cvimresize: every interp, down and up, uint8/float32/float64 ----
    x = img((7, 9, 3))
    for interp in range(5):
        case("_cvimresize", {"w": 4, "h": 5, "interp": interp}, x)
        case("_cvimresize", {"w": 13, "h": 11, "interp": interp}, x)
    case("_cvimresize", {"w": 3, "h": 3}, img((9, 6, 1)))  # exact 2x/3x shrinks
    case("_cvimresize", {"w": 3, "h": 2, "interp": 3}, img((6, 9, 3)))
    case("_cvimresize", {"w": 5, "h": 4, "interp": 1}, img((5, 6, 1), "float32"))
    case("_cvimresize", {"w": 8, "h": 8, "interp": 2}, img((4, 4, 3), "float64"))
    case("_cvimresize", {"w": 7, "h": 3, "interp": 4}, img((5, 5, 3), "float32"))
    case("_cvimresize", {"w": 0, "h": 3}, img((4, 4, 3)))  # error: w >= 1
    case("_cvimresize", {"w": 2, "h": 2}, img((2, 4, 4, 3)))  # error: not (H, W, C)

    # ---- _cvcopyMakeBorder: every border type, fill values, dtypes ----
    x = img((3, 4, 3))
    m = {"top": 2, "bot": 1, "left": 3, "right": 4}
    for t in range(5):
        case("_cvcopyMakeBorder", dict(m, type=t), x)
    for t in (2, 3, 4):  # margins wider than the image
        case("_cvcopyMakeBorder", {"top": 5, "bot": 4, "left": 7, "right": 9, "type": t},
             img((2, 3, 1)))
    for t in (1, 2, 3, 4):
        case("_cvcopyMakeBorder", {"top": 1, "bot": 2, "left": 2, "right": 1, "type": t},
             img((1, 1, 3)))
    case("_cvcopyMakeBorder", dict(m, value=300), x)
    case("_cvcopyMakeBorder", dict(m, value=2.5), x)
    case("_cvcopyMakeBorder", dict(m, value=3.5), x)
    case("_cvcopyMakeBorder", dict(m, values="(7, 8)"), x)
    case("_cvcopyMakeBorder", dict(m, values="(7.0, 8.0, 9.0)", value=5), x)
    case("_cvcopyMakeBorder", dict(m, type=16, value=9), x)
    case("_cvcopyMakeBorder", dict(m, type=17), x)
    case("_cvcopyMakeBorder", {"top": 1, "bot": 0, "left": 0, "right": 2, "value": 9},
         img((2, 2, 4)))
    case("_cvcopyMakeBorder", {"top": 1, "bot": 1, "left": 1, "right": 1, "values": "(4, 5)"},
         img((2, 2, 1)))
    case("_cvcopyMakeBorder", dict(m, values="(0.25, -1.5, 1e6)"), img((2, 3, 3), "float32"))
    case("_cvcopyMakeBorder", dict(m, type=4), img((3, 2, 2), "float64"))
    case("_cvcopyMakeBorder", dict(m, value=-2.5), img((2, 2, 3), "int32"))
    case("_cvcopyMakeBorder", {"top": 0, "bot": 0, "left": 0, "right": 0}, x)
    case("_cvcopyMakeBorder", dict(m, top=-1), x)  # error: negative margin
    case("_cvcopyMakeBorder", dict(m, type=5), x)  # error: unknown border type
    case("_cvcopyMakeBorder", m, img((2, 2, 3), "float16"))  # error: float16

    path = os.path.join(out_dir, "image_cv.json")
    with open(path, "w") as f:
        json.dump({"cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote %s: %d cases" % (path, len(cases)))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "ndarray", "ops",
                                                              "testdata", "shape")
    sys.argv = [sys.argv[0], out]
    import gen_shape_refs  # noqa: E402
    gen(gen_shape_refs.run_case, out)
