"""Reference data for //gluon/data tests from real MXNet 1.9.1 and Pillow.

Run (Pillow is not in requirements.txt; install it into the venv once):
  PY=$(tools/conformance/setup_venv.sh | tail -1); $PY -m pip install pillow
  $PY tools/conformance/gen_data_refs.py
Writes gluon/data/vision/testdata/:
  refs.json      Fashion-MNIST facts (mx.gluon.data.vision.FashionMNIST over Debian's files),
                 mx.image.imdecode of the real photos (sampled pixels, means), transforms outputs
                 (ToTensor, Normalize, CenterCrop, flip, brightness/contrast/hue with fixed factors),
                 Pillow resize outputs of a synthetic pattern, MXNet's (OpenCV) resize of a
                 checkerboard (to document its aliasing).
  *.png, cmyk.jpg  small images with the layouts our decoder must handle, with MXNet's decoding.
The output is the same on every run (fixed seeds, deterministic encoders).
"""
import hashlib
import io
import json
import os
import warnings

warnings.filterwarnings("ignore")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "gluon", "data", "vision", "testdata")
FMNIST = "/usr/share/datasets/fashion-mnist"
IMAGES = "/work/shared/data/images"
os.makedirs(OUT, exist_ok=True)
refs = {"mxnet_version": mx.__version__, "pillow_version": Image.__version__}


def flat(a):
    return np.asarray(a).ravel().tolist()


# ---------------------------------------------------------------- Fashion-MNIST
# MXNet's class insists on downloading files whose sha1 differs from Debian's recompressed ones;
# point its download() at the local files and let its own parsing code run.
from mxnet.gluon.data.vision import datasets as mx_datasets  # noqa: E402

mx_datasets.download = lambda url, path=None, sha1_hash=None, **kw: os.path.join(
    path, os.path.basename(url))
fm = {}
for train in (True, False):
    ds = mx.gluon.data.vision.FashionMNIST(root=FMNIST, train=train)
    img0, lab0 = ds[0]
    last_img, _ = ds[len(ds) - 1]
    fm["train" if train else "test"] = {
        "size": len(ds),
        "image_shape": list(img0.shape),
        "image_dtype": str(img0.dtype.__name__ if hasattr(img0.dtype, "__name__") else img0.dtype),
        "label_dtype": str(np.asarray(lab0).dtype),
        "first_labels": [int(ds[i][1]) for i in range(20)],
        "image0": flat(img0.asnumpy()),
        "last_image_sum": int(last_img.asnumpy().astype(np.int64).sum()),
        "label_histogram": np.bincount(np.asarray(ds._label), minlength=10).tolist(),
    }
    # One DataLoader batch (default batchify) to pin down batch dtypes/shapes.
    b = next(iter(mx.gluon.data.DataLoader(ds, batch_size=4)))
    fm["train" if train else "test"]["batch"] = {
        "data_shape": list(b[0].shape), "data_dtype": np.dtype(b[0].dtype).name,
        "label_shape": list(b[1].shape), "label_dtype": np.dtype(b[1].dtype).name,
    }
refs["fashion_mnist"] = fm

# ---------------------------------------------------------------- decoding the real photos
# Sample positions: a 7x7 grid over the image.
decode = {}
for name in ("cat.jpg", "dog.jpg", "plane-draw.jpeg"):
    raw = open(os.path.join(IMAGES, name), "rb").read()
    color = mx.image.imdecode(raw, flag=1).asnumpy()
    gray = mx.image.imdecode(raw, flag=0).asnumpy()
    pil = np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"))
    h, w, _ = color.shape
    ys = [int(round(v)) for v in np.linspace(0, h - 1, 7)]
    xs = [int(round(v)) for v in np.linspace(0, w - 1, 7)]
    decode[name] = {
        "shape": list(color.shape),
        "ys": ys,
        "xs": xs,
        "color": [flat(color[y, x]) for y in ys for x in xs],
        "gray": [int(gray[y, x, 0]) for y in ys for x in xs],
        "color_mean": flat(color.reshape(-1, 3).mean(axis=0)),
        "gray_mean": float(gray.mean()),
        "pil_max_abs_diff": int(np.abs(pil.astype(int) - color.astype(int)).max()),
        "sha256_rgb": hashlib.sha256(color.tobytes()).hexdigest(),
    }
refs["decode"] = decode

# ---------------------------------------------------------------- small PNG/JPEG layouts
rng = np.random.RandomState(3)
H, W = 9, 13
rgb = rng.randint(0, 256, size=(H, W, 3)).astype(np.uint8)
alpha = rng.randint(0, 256, size=(H, W, 1)).astype(np.uint8)
gray = rng.randint(0, 256, size=(H, W)).astype(np.uint8)
rgb16 = rng.randint(0, 65536, size=(H, W, 3)).astype(np.uint16)
files = {
    "rgb8.png": Image.fromarray(rgb),
    "rgba8.png": Image.fromarray(np.concatenate([rgb, alpha], axis=2)),
    "gray8.png": Image.fromarray(gray),
    "palette.png": Image.fromarray(rgb).quantize(colors=16, method=Image.Quantize.MEDIANCUT),
    "bilevel.png": Image.fromarray((gray > 127).astype(np.uint8) * 255).convert("1"),
}
pngs = {}
for name, im in files.items():
    path = os.path.join(OUT, name)
    im.save(path, optimize=False)
    raw = open(path, "rb").read()
    pngs[name] = {
        "shape": [H, W],
        "color": flat(mx.image.imdecode(raw, flag=1).asnumpy()),
        "gray": flat(mx.image.imdecode(raw, flag=0).asnumpy()),
    }
# 16-bit PNGs written with numpy+zlib (Pillow cannot write 16-bit RGB).
import struct  # noqa: E402
import zlib  # noqa: E402


def png_chunk(tag, data):
    c = struct.pack(">I", len(data)) + tag + data
    return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def png16(arr, color_type):
    rows = b"".join(b"\x00" + arr[y].astype(">u2").tobytes() for y in range(arr.shape[0]))
    return (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", struct.pack(">IIBBBBB", arr.shape[1], arr.shape[0], 16,
                                             color_type, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(rows, 9)) + png_chunk(b"IEND", b""))


for name, data in (("rgb16.png", png16(rgb16, 2)),
                   ("gray16.png", png16(gray.astype(np.uint16) * 257 + 3, 0))):
    open(os.path.join(OUT, name), "wb").write(data)
    pngs[name] = {
        "shape": [H, W],
        "color": flat(mx.image.imdecode(data, flag=1).asnumpy()),
        "gray": flat(mx.image.imdecode(data, flag=0).asnumpy()),
    }
# CMYK JPEG (Pillow writes Adobe-style inverted CMYK).
cmyk_img = Image.fromarray(np.repeat(np.repeat(rgb, 4, axis=0), 4, axis=1)).convert("CMYK")
cmyk_path = os.path.join(OUT, "cmyk.jpg")
cmyk_img.save(cmyk_path, quality=95)
raw = open(cmyk_path, "rb").read()
cmyk_dec = mx.image.imdecode(raw, flag=1).asnumpy()
pngs["cmyk.jpg"] = {"shape": list(cmyk_dec.shape[:2]), "color": flat(cmyk_dec)}
refs["layouts"] = pngs

# ---------------------------------------------------------------- transforms
from mxnet.gluon.data.vision import transforms as T  # noqa: E402

x = np.random.RandomState(11).randint(0, 256, size=(7, 10, 3)).astype(np.uint8)
xn = mx.nd.array(x, dtype=np.uint8)
batch = np.random.RandomState(12).randint(0, 256, size=(2, 5, 4, 3)).astype(np.uint8)
tt = T.ToTensor()(xn)
mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
tf = {
    "input": flat(x),
    "input_shape": list(x.shape),
    "to_tensor": flat(tt.asnumpy()),
    "batch_input": flat(batch),
    "batch_input_shape": list(batch.shape),
    "batch_to_tensor": flat(T.ToTensor()(mx.nd.array(batch, dtype=np.uint8)).asnumpy()),
    "normalize_mean": list(mean),
    "normalize_std": list(std),
    "normalize": flat(T.Normalize(mean, std)(tt).asnumpy()),
    "normalize_scalar": flat(T.Normalize(0.5, 0.25)(tt).asnumpy()),
    "center_crop_6x4": flat(T.CenterCrop((6, 4))(xn).asnumpy()),
    "center_crop_5": flat(T.CenterCrop(5)(xn).asnumpy()),
    "flip_left_right": flat(mx.nd.image.flip_left_right(xn).asnumpy()),
    # MXNet 1.9's flip kernels leave the middle row/column of an odd-sized axis unwritten (it
    # only swaps pairs, even out of place), so the odd-height top-bottom reference is numpy's.
    "flip_top_bottom": flat(np.flipud(x)),
    "mxnet_flip_top_bottom_buggy_middle_row": flat(
        mx.nd.image.flip_top_bottom(xn).asnumpy()[3]),
    "brightness_1.3": flat(mx.nd.image.random_brightness(xn, 1.3, 1.3).asnumpy()),
    "brightness_0.6": flat(mx.nd.image.random_brightness(xn, 0.6, 0.6).asnumpy()),
    "contrast_0.6": flat(mx.nd.image.random_contrast(xn, 0.6, 0.6).asnumpy()),
    "contrast_1.4": flat(mx.nd.image.random_contrast(xn, 1.4, 1.4).asnumpy()),
    "hue_0.1": flat(mx.nd.image.random_hue(xn, 0.1, 0.1).asnumpy()),
    "hue_0.45": flat(mx.nd.image.random_hue(xn, 0.45, 0.45).asnumpy()),
    "cast_float16": flat(T.Cast("float16")(xn).asnumpy().astype(np.float32)),
}
# Saturation: MXNet 1.9's kernel uses only 0.114*B as luma (a bug); the reference is the intended
# formula, computed with numpy in float32 and saturated like MXNet (clip, truncate).
xf = x.astype(np.float32)
luma = (np.float32(0.299) * xf[..., 0] + np.float32(0.587) * xf[..., 1]
        + np.float32(0.114) * xf[..., 2])[..., None]
for a in (0.5, 1.7):
    tf["saturation_%s" % a] = flat(
        np.clip(luma * np.float32(1 - a) + xf * np.float32(a), 0, 255).astype(np.uint8))
# Resize with keep_ratio: the output shapes (MXNet's rule).
tf["resize_keep_ratio_shape"] = list(T.Resize(4, keep_ratio=True)(xn).shape)
tf["resize_shape"] = list(T.Resize((5, 3))(xn).shape)
refs["transforms"] = tf


# ---------------------------------------------------------------- resize vs Pillow
def pattern(h, w, c):
    y, x, ch = np.meshgrid(np.arange(h), np.arange(w), np.arange(c), indexing="ij")
    return (((x * 37 + y * 91 + ch * 53) ^ (x * y)) & 255).astype(np.uint8)


pat = pattern(83, 97, 3)
pim = Image.fromarray(pat)
filters = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC, "lanczos": Image.LANCZOS,
           "nearest": Image.NEAREST}
rs = {"pattern_shape": [83, 97, 3], "cases": []}
for fname, f in filters.items():
    # One-axis resizes (only one pass runs) for bilinear only, to keep the file small.
    sizes = [(31, 20), (7, 5)] + ([(97, 40), (40, 83)] if fname == "bilinear" else [])
    for (w, h) in sizes:
        rs["cases"].append({"filter": fname, "w": w, "h": h,
                            "out": flat(np.asarray(pim.resize((w, h), f)))})
# Crop then resize (fixed_crop): box (x0, y0, x1, y1).
for fname in ("bilinear", "bicubic"):
    for box, (w, h) in [((10, 5, 23, 16), (40, 30)), ((20, 7, 90, 80), (24, 17))]:
        rs["cases"].append({"filter": fname, "w": w, "h": h, "box": list(box),
                            "out": flat(np.asarray(pim.crop(box).resize((w, h), filters[fname])))})
# Area averaging (interp=3) against MXNet's own resize = OpenCV INTER_AREA (exact area weights
# when shrinking; OpenCV rounds in float, we use fixed point: at most 1 apart).
for (w, h) in [(31, 20), (7, 5), (97, 40), (32, 83)]:
    rs["cases"].append({"filter": "area", "w": w, "h": h, "tolerance": 1,
                        "out": flat(mx.image.imresize(mx.nd.array(pat, dtype=np.uint8), w, h,
                                                      interp=3).asnumpy())})
# Grayscale.
gpat = pattern(83, 97, 1)[..., 0]
rs["gray_bilinear_31x20"] = flat(np.asarray(Image.fromarray(gpat).resize((31, 20),
                                                                              Image.BILINEAR)))
# The real cat photo (Pillow decodes bit-identically to MXNet, see decode.pil_max_abs_diff),
# shrunk to 100x80 with Pillow's antialiased bilinear: sampled pixels and the mean.
cat = Image.open(os.path.join(IMAGES, "cat.jpg")).convert("RGB")
small = np.asarray(cat.resize((100, 80), Image.BILINEAR))
rs["cat_100x80"] = {"sum": int(small.astype(np.int64).sum()),
                    "rows": [flat(small[y]) for y in (0, 17, 40, 79)]}
# MXNet's own resize (OpenCV, INTER_LINEAR) of a 1-pixel checkerboard 256x256 -> 50x50: aliasing.
board = ((np.indices((256, 256)).sum(axis=0) % 2) * 255).astype(np.uint8)[..., None]
board = np.repeat(board, 3, axis=2)
mx_small = mx.image.imresize(mx.nd.array(board, dtype=np.uint8), 50, 50, interp=1).asnumpy()
pil_small = np.asarray(Image.fromarray(board).resize((50, 50), Image.BILINEAR))
rs["checkerboard_256_to_50"] = {
    "mxnet_opencv_std": float(mx_small.astype(np.float64).std()),
    "mxnet_opencv_min": int(mx_small.min()), "mxnet_opencv_max": int(mx_small.max()),
    "pillow_std": float(pil_small.astype(np.float64).std()),
    "pillow_mean": float(pil_small.mean()),
}
refs["resize"] = rs

with open(os.path.join(OUT, "refs.json"), "w") as f:
    json.dump(refs, f, separators=(",", ":"))
print("wrote", OUT, "checkerboard:", rs["checkerboard_256_to_50"])

# _cvimdecode / _cvimread references (cvimdecode.json): tools/conformance/refs_image_decode.py.
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refs_image_decode  # noqa: E402

refs_image_decode.gen(OUT, IMAGES)
