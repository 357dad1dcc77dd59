"""MXNet 1.9.1 references for _cvimdecode / _cvimread (gluon/data/vision/image_ops.cc).

Called at the end of gen_data_refs.py (gen(out_dir, images_dir)); also runnable alone with the
conformance venv:  $PY tools/conformance/refs_image_decode.py
Writes gluon/data/vision/testdata/cvimdecode.json:
  photos: {name: {shape, ys, xs (a 48x48 grid), color / gray (pixels at the grid, RGB / gray),
           color_sum / gray_sum (whole image, per channel), sha256_color}} for the real photos
           in /work/shared/data/images (never copied into the repository);
  pngs:   {name: {color, gray, bgr}} whole small PNGs of testdata/ (exact: PNG is lossless);
  errors: [{what, message}] inputs MXNet rejects.
Deterministic.
"""
import hashlib
import os

import numpy as np

PHOTOS = ("cat.jpg", "dog.jpg", "plane-draw.jpeg")


def gen(out_dir, images_dir):
    import json
    import mxnet as mx

    def dec(raw, **kw):
        buf = mx.nd.array(np.frombuffer(raw, dtype=np.uint8), dtype="uint8")
        return mx.nd._internal._cvimdecode(buf, **kw).asnumpy()

    doc = {"mxnet_version": mx.__version__, "photos": {}, "pngs": {}, "errors": []}
    for name in PHOTOS:
        raw = open(os.path.join(images_dir, name), "rb").read()
        color, gray = dec(raw, flag=1), dec(raw, flag=0)
        read = mx.nd._internal._cvimread(filename=os.path.join(images_dir, name)).asnumpy()
        assert (read == color).all()
        h, w, _ = color.shape
        ys = [int(round(v)) for v in np.linspace(0, h - 1, 48)]
        xs = [int(round(v)) for v in np.linspace(0, w - 1, 48)]
        doc["photos"][name] = {
            "shape": list(color.shape), "ys": ys, "xs": xs,
            "color": color[np.ix_(ys, xs)].ravel().tolist(),
            "gray": gray[np.ix_(ys, xs)].ravel().tolist(),
            "color_sum": color.reshape(-1, 3).astype(np.int64).sum(axis=0).tolist(),
            "gray_sum": int(gray.astype(np.int64).sum()),
            "sha256_color": hashlib.sha256(color.tobytes()).hexdigest(),
        }
    for name in ("rgb8.png", "rgba8.png", "gray8.png", "palette.png"):
        raw = open(os.path.join(out_dir, name), "rb").read()
        doc["pngs"][name] = {"color": dec(raw).ravel().tolist(),
                             "gray": dec(raw, flag=0).ravel().tolist(),
                             "bgr": dec(raw, to_rgb=False).ravel().tolist(),
                             "shape": list(dec(raw).shape)}
    for what, buf in [("not an image", mx.nd.array(np.arange(64) % 7, dtype="uint8")),
                      ("float32 buffer", mx.nd.array(np.arange(64), dtype="float32")),
                      ("empty buffer", mx.nd.array(np.zeros((0,)), dtype="uint8"))]:
        try:
            mx.nd._internal._cvimdecode(buf).wait_to_read()
            msg = None
        except mx.base.MXNetError as e:
            msg = str(e).strip().splitlines()[-1][:160]
        doc["errors"].append({"what": what, "message": msg})
    try:
        mx.nd._internal._cvimread(filename="/nonexistent/x.jpg").wait_to_read()
        msg = None
    except mx.base.MXNetError as e:
        msg = str(e).strip().splitlines()[-1][:160]
    doc["errors"].append({"what": "missing file", "message": msg})
    path = os.path.join(out_dir, "cvimdecode.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    gen(os.path.join(here, "..", "..", "gluon", "data", "vision", "testdata"),
        "/work/shared/data/images")
