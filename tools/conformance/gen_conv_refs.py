#!/usr/bin/env python3
"""Reference values of the conv op family from real MXNet 1.9.1 (ndarray/ops/testdata/conv/).

    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/gen_conv_refs.py          # rewrites ndarray/ops/testdata/conv/*.json
    $PY tools/conformance/gen_conv_refs.py --fast OUT_DIR   # what report.py runs (~20 s)

Each case runs the op imperatively with autograd on small float32 inputs and records the inputs,
the output, the head gradient (ograd) and the gradient of every input. conv_test.cc replays the
cases with our reference kernels (float64) and the default dispatch (float32, oneDNN where it
applies) and compares.
The "spatial" group (GridGenerator, BilinearSampler, SpatialTransformer, ROIPooling,
_contrib_ROIAlign, Crop, _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D, im2col,
col2im, Correlation) is replayed by conv_spatial_test.cc; its rois and sampling grids are fixed
or constructed inputs (case(make=...)), and MXNet's zero gradients of rois and of the
crop_like/like inputs are recorded like any other gradient.

MXNet is run twice, in one subprocess per case: with its oneDNN (MKLDNN) kernels (the default,
what users get) and with MXNET_MKLDNN_ENABLED=0 (its native CPU kernels, src/operator/nn/pool.h
etc.). The default run's values are stored; where it fails (Deconvolution with target_shape and
1-D 'same' pooling: "could not create a descriptor") the native run's are, and where both run
they must agree (checked here). --fast runs all cases of an engine in one process (a new one
after each failing case) and runs the native kernels only where oneDNN fails, so it skips that
agreement check; the values written are the same.

Channels-last Convolution/Deconvolution (NWC/NHWC) is GPU-only in MXNet 1.9.1 (its CPU oneDNN
path fails for strided/padded cases), so those cases are computed in the channels-first layout
and transposed: the layout is a permutation of the same computation. Pooling runs channels-last
natively. 'same' pooling needs pad=(0, 0, 0) in MXNet 1.9.1 (its shape function reads pad[1]
and pad[2] even for 1-D kernels); the stored attributes leave pad out.

Output: one JSON file per op group, {"cases": [{"name", "op", "attrs", "inputs": [{"shape",
"data"}], "output", "ograd", "grads", "engine"}]}; inputs are decimals exactly as fed to MXNet,
results are rounded to 7 significant digits. Same bytes on every run.
"""
import json
import os
import pickle
import subprocess
import sys
import zlib

import numpy as np

OUT_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                       "ndarray", "ops", "testdata", "conv"))


def case(group, name, op, attrs, shapes, lo=-1.0, hi=1.0, distinct=False, to_layout=None,
         mx_attrs=None, make=None):
    """make(rng, shapes) -> {input index: array}: inputs not drawn at random (rois, grids)."""
    return dict(group=group, name=name, op=op, attrs=attrs, shapes=shapes, lo=lo, hi=hi,
                distinct=distinct, to_layout=to_layout, mx_attrs=mx_attrs or {}, make=make)


def conv(name, attrs, shapes, **kw):
    return case("conv", name, "Convolution", attrs, shapes, **kw)


def deconv(name, attrs, shapes, **kw):
    return case("conv", name, "Deconvolution", attrs, shapes, **kw)


def pool(name, attrs, shape, **kw):
    kw.setdefault("distinct", True)  # no ties: max routing is then unambiguous
    return case("pool", name, "Pooling", attrs, [shape], **kw)


CASES = [
    conv("conv2d_bias_pad", {"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"},
         [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    conv("conv2d_grouped_dilated_strided",
         {"kernel": "(3, 3)", "num_filter": "6", "stride": "(2, 2)", "dilate": "(2, 2)",
          "pad": "(1, 1)", "num_group": "2"},
         [(2, 4, 9, 9), (6, 2, 3, 3), (6,)]),
    conv("conv2d_depthwise_rect",
         {"kernel": "(3, 2)", "num_filter": "4", "stride": "(1, 2)", "num_group": "4",
          "no_bias": "True"},
         [(1, 4, 5, 6), (4, 1, 3, 2)]),
    conv("conv1d", {"kernel": "(3,)", "num_filter": "4", "stride": "(2,)", "pad": "(1,)",
                    "dilate": "(2,)"},
         [(2, 3, 11), (4, 3, 3), (4,)]),
    conv("conv3d", {"kernel": "(3, 3, 3)", "num_filter": "3", "stride": "(2, 2, 2)",
                    "pad": "(1, 1, 1)"},
         [(1, 2, 5, 5, 5), (3, 2, 3, 3, 3), (3,)]),
    conv("conv2d_nhwc_grouped",
         {"kernel": "(3, 3)", "num_filter": "4", "stride": "(2, 2)", "pad": "(1, 1)",
          "num_group": "2", "layout": "NHWC"},
         [(2, 4, 6, 6), (4, 2, 3, 3), (4,)], to_layout="NHWC"),
    conv("conv1d_nwc", {"kernel": "(3,)", "num_filter": "2", "pad": "(1,)", "layout": "NWC"},
         [(2, 3, 7), (2, 3, 3), (2,)], to_layout="NWC"),
    deconv("deconv2d_stride_pad_adj_bias",
           {"kernel": "(3, 3)", "num_filter": "2", "stride": "(2, 2)", "pad": "(1, 1)",
            "adj": "(1, 1)", "no_bias": "False"},
           [(1, 3, 4, 4), (3, 2, 3, 3), (2,)]),
    deconv("deconv2d_grouped_dilated",
           {"kernel": "(3, 3)", "num_filter": "4", "dilate": "(2, 2)", "pad": "(1, 1)",
            "num_group": "2"},
           [(1, 4, 3, 3), (4, 2, 3, 3)]),
    deconv("deconv2d_target_shape",
           {"kernel": "(3, 3)", "num_filter": "3", "stride": "(2, 2)", "target_shape": "(6, 6)"},
           [(1, 2, 3, 3), (2, 3, 3, 3)]),
    deconv("deconv1d", {"kernel": "(4,)", "num_filter": "2", "stride": "(2,)", "pad": "(1,)",
                        "no_bias": "False"},
           [(2, 3, 5), (3, 2, 4), (2,)]),
    deconv("deconv3d", {"kernel": "(3, 2, 3)", "num_filter": "2", "stride": "(2, 2, 1)",
                        "pad": "(1, 0, 1)", "adj": "(1, 0, 0)"},
           [(1, 2, 2, 3, 3), (2, 2, 3, 2, 3)]),
    deconv("deconv2d_nhwc",
           {"kernel": "(3, 3)", "num_filter": "2", "stride": "(2, 2)", "pad": "(1, 1)",
            "adj": "(1, 1)", "layout": "NHWC", "no_bias": "False"},
           [(1, 3, 3, 3), (3, 2, 3, 3), (2,)], to_layout="NHWC"),
    case("fc", "fc_flatten", "FullyConnected", {"num_hidden": "5"},
         [(3, 2, 4, 2), (5, 16), (5,)]),
    case("fc", "fc_no_flatten", "FullyConnected", {"num_hidden": "4", "flatten": "False"},
         [(2, 3, 6), (4, 6), (4,)]),
    case("fc", "fc_no_bias", "FullyConnected", {"num_hidden": "3", "no_bias": "True"},
         [(4, 7), (3, 7)]),
    pool("max_valid", {"kernel": "(3, 3)", "stride": "(2, 2)"}, (1, 2, 7, 7)),
    pool("max_pad", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)"}, (2, 2, 6, 6)),
    pool("max_full", {"kernel": "(3, 3)", "stride": "(2, 2)", "pooling_convention": "full"},
         (1, 2, 6, 6)),
    pool("avg_valid", {"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "avg"},
         (1, 2, 5, 4)),
    pool("avg_pad_include", {"kernel": "(3, 3)", "pad": "(1, 1)", "pool_type": "avg"},
         (1, 2, 5, 5)),
    pool("avg_pad_exclude", {"kernel": "(3, 3)", "pad": "(1, 1)", "pool_type": "avg",
                             "count_include_pad": "False"},
         (1, 2, 5, 5)),
    pool("avg_full_pad_include", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)",
                                  "pool_type": "avg", "pooling_convention": "full"},
         (1, 2, 6, 6)),
    pool("avg_full_pad_exclude", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)",
                                  "pool_type": "avg", "pooling_convention": "full",
                                  "count_include_pad": "False"},
         (1, 2, 6, 6)),
    pool("avg_full_no_pad", {"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "avg",
                             "pooling_convention": "full"},
         (1, 2, 5, 5)),
    pool("sum_pad", {"kernel": "(3, 2)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "sum"},
         (1, 2, 5, 6)),
    pool("sum_full", {"kernel": "(3, 3)", "stride": "(2, 2)", "pool_type": "sum",
                      "pooling_convention": "full"},
         (1, 2, 6, 6)),
    pool("lp1", {"kernel": "(2, 2)", "pool_type": "lp", "p_value": "1"}, (1, 2, 4, 4),
         lo=0.1, hi=1.0),
    pool("lp2", {"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "lp", "p_value": "2"},
         (1, 2, 4, 4), lo=0.1, hi=1.0),
    pool("lp3_pad", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "lp",
                     "p_value": "3"},
         (1, 2, 5, 5), lo=0.1, hi=1.0),
    pool("global_max", {"kernel": "(1, 1)", "global_pool": "True"}, (2, 3, 3, 4)),
    pool("global_avg", {"kernel": "(1, 1)", "global_pool": "True", "pool_type": "avg",
                        "pooling_convention": "full", "pad": "(0, 0)", "stride": "(1, 1)"},
         (2, 3, 3, 4)),
    pool("max1d_same", {"kernel": "(3,)", "stride": "(2,)", "pooling_convention": "same"},
         (2, 2, 7), mx_attrs={"pad": "(0, 0, 0)"}),
    pool("avg1d_same", {"kernel": "(3,)", "stride": "(2,)", "pooling_convention": "same",
                        "pool_type": "avg"},
         (2, 2, 8), mx_attrs={"pad": "(0, 0, 0)"}),
    pool("avg1d_pad", {"kernel": "(3,)", "stride": "(2,)", "pad": "(1,)", "pool_type": "avg"},
         (2, 2, 7)),
    pool("max3d", {"kernel": "(2, 2, 2)", "stride": "(2, 2, 2)"}, (1, 2, 4, 4, 4)),
    pool("avg3d_pad", {"kernel": "(2, 3, 3)", "stride": "(2, 2, 2)", "pad": "(1, 1, 1)",
                       "pool_type": "avg"},
         (1, 1, 3, 4, 4)),
    pool("max_nhwc", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "layout": "NHWC"},
         (1, 5, 5, 3)),
    pool("avg_nhwc", {"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "avg",
                      "layout": "NHWC"},
         (1, 4, 4, 3)),
    pool("sum_nwc", {"kernel": "(2,)", "stride": "(2,)", "pool_type": "sum", "layout": "NWC"},
         (2, 6, 2)),
    pool("avg_ndhwc_global", {"global_pool": "True", "pool_type": "avg", "layout": "NDHWC"},
         (1, 2, 3, 3, 2)),
    case("upsampling", "nearest_x2", "UpSampling",
         {"scale": "2", "sample_type": "nearest", "num_args": "1"}, [(1, 2, 3, 3)]),
    case("upsampling", "nearest_concat", "UpSampling",
         {"scale": "2", "sample_type": "nearest", "num_args": "2"},
         [(1, 2, 4, 4), (1, 3, 2, 2)]),
    case("upsampling", "nearest_sum", "UpSampling",
         {"scale": "3", "sample_type": "nearest", "num_args": "2", "multi_input_mode": "sum"},
         [(2, 2, 2, 2), (2, 2, 1, 1)]),
    case("upsampling", "bilinear_x2", "UpSampling",
         {"scale": "2", "sample_type": "bilinear", "num_args": "2", "num_filter": "2"},
         [(1, 2, 3, 3), (2, 1, 4, 4)]),
]

# ---- Spatial sampling and region ops (group "spatial"). Sampling points are kept off pixel
# lines (fractional parts in [0.15, 0.85]) so that float32 (MXNet) and float64 (ours) pick the
# same neighbours and the grid gradients are compared away from kinks. ----

def spatial(name, op, attrs, shapes, **kw):
    return case("spatial", name, op, attrs, shapes, **kw)


def off_grid_coords(rng, size, k):
    """Normalized coordinates in [-1, 1] whose source positions (c + 1)(size - 1)/2 lie
    strictly between pixels (some within one pixel outside the image)."""
    real = rng.randint(-1, size, k) + rng.uniform(0.15, 0.85, k)
    return np.round(2.0 * real / (size - 1) - 1.0, 4)


def sampler_grid(rng, shapes):
    (n, _, h, w), (_, _, oh, ow) = shapes
    gx = off_grid_coords(rng, w, n * oh * ow).reshape(n, 1, oh, ow)
    gy = off_grid_coords(rng, h, n * oh * ow).reshape(n, 1, oh, ow)
    return {1: np.concatenate([gx, gy], axis=1)}


def st_loc(target):
    """Affine parameters near identity whose sampling points all lie off pixel lines."""
    def make(rng, shapes):
        (n, _, h, w), _ = shapes
        oh, ow = target
        xs, ys = np.meshgrid(-1 + np.arange(ow) * 2.0 / (ow - 1),
                             -1 + np.arange(oh) * 2.0 / (oh - 1))
        while True:
            loc = np.round(np.array([0.8, 0.1, 0.05, -0.1, 0.75, 0.02]) +
                           rng.uniform(-0.15, 0.15, (n, 6)), 3)
            fx = (loc[:, 0, None, None] * xs + loc[:, 1, None, None] * ys + loc[:, 2, None, None]
                  + 1) * (w - 1) / 2
            fy = (loc[:, 3, None, None] * xs + loc[:, 4, None, None] * ys + loc[:, 5, None, None]
                  + 1) * (h - 1) / 2
            f = np.concatenate([fx.ravel(), fy.ravel()])
            if np.min(np.abs(f - np.round(f))) > 0.05:
                return {1: loc}
    return make


def fixed(index, rows):
    return lambda rng, shapes: {index: np.array(rows)}


CASES += [
    spatial("gridgen_affine", "GridGenerator",
            {"transform_type": "affine", "target_shape": "(4, 5)"}, [(2, 6)]),
    spatial("gridgen_warp", "GridGenerator", {"transform_type": "warp"}, [(2, 2, 3, 4)]),
    spatial("bilinear_sampler", "BilinearSampler", {}, [(2, 3, 4, 5), (2, 2, 3, 4)],
            make=sampler_grid),
    spatial("spatial_transformer", "SpatialTransformer",
            {"target_shape": "(4, 5)", "transform_type": "affine", "sampler_type": "bilinear"},
            [(2, 3, 6, 7), (2, 6)], make=st_loc((4, 5))),
    # Rows: inside, partly outside (clipped), batch index out of range (zeros).
    spatial("roi_pooling", "ROIPooling", {"pooled_size": "(2, 3)", "spatial_scale": "0.5"},
            [(2, 3, 8, 8), (4, 5)], distinct=True,
            make=fixed(1, [[0, 1.2, 2.6, 9.8, 12.2], [1, 4.2, 0.6, 11.4, 7.4],
                           [1, -2.2, 3.4, 6.2, 16.6], [5, 0.0, 0.0, 4.2, 4.2]])),
    spatial("roi_align", "_contrib_ROIAlign",
            {"pooled_size": "(2, 2)", "spatial_scale": "0.5", "sample_ratio": "2"},
            [(2, 3, 6, 6), (3, 5)],
            make=fixed(1, [[0, 1.3, 2.1, 9.7, 8.9], [1, 3.3, 0.7, 11.1, 10.3],
                           [0, -1.7, 4.2, 5.1, 13.9]])),
    spatial("roi_align_adaptive_aligned", "_contrib_ROIAlign",
            {"pooled_size": "(3, 2)", "spatial_scale": "0.25", "aligned": "True"},
            [(1, 2, 7, 6), (2, 5)],
            make=fixed(1, [[0, 2.3, 1.1, 17.7, 25.3], [0, 5.9, 6.3, 14.1, 11.7]])),
    spatial("roi_align_position_sensitive", "_contrib_ROIAlign",
            {"pooled_size": "(2, 2)", "spatial_scale": "1.0", "sample_ratio": "1",
             "position_sensitive": "True"},
            [(1, 8, 5, 5), (2, 5)],
            make=fixed(1, [[0, 0.3, 0.6, 3.7, 3.1], [0, 1.2, 0.2, 4.6, 4.3]])),
    spatial("crop_hw_offset", "Crop", {"num_args": "1", "h_w": "(3, 4)", "offset": "(1, 2)"},
            [(2, 3, 6, 7)]),
    spatial("crop_like_center", "Crop", {"num_args": "2", "center_crop": "True"},
            [(1, 2, 7, 6), (1, 1, 4, 3)]),
    spatial("adaptive_avg_3x2", "_contrib_AdaptiveAvgPooling2D", {"output_size": "(3, 2)"},
            [(2, 3, 7, 5)]),
    spatial("adaptive_avg_4", "_contrib_AdaptiveAvgPooling2D", {"output_size": "(4,)"},
            [(1, 2, 5, 6)]),
    spatial("adaptive_avg_global", "_contrib_AdaptiveAvgPooling2D", {}, [(2, 2, 3, 4)]),
    spatial("resize_size_align", "_contrib_BilinearResize2D", {"height": "5", "width": "7"},
            [(1, 2, 3, 4)]),
    spatial("resize_size_down", "_contrib_BilinearResize2D",
            {"height": "2", "width": "3", "align_corners": "False"}, [(2, 2, 5, 7)]),
    spatial("resize_scale_noalign", "_contrib_BilinearResize2D",
            {"scale_height": "1.5", "scale_width": "2.0", "align_corners": "False"},
            [(1, 2, 4, 3)]),
    spatial("resize_like", "_contrib_BilinearResize2D", {"mode": "like"},
            [(1, 2, 3, 4), (1, 1, 6, 5)]),
    spatial("resize_to_odd_up", "_contrib_BilinearResize2D", {"mode": "to_odd_up"},
            [(1, 1, 4, 5)]),
    spatial("im2col", "im2col",
            {"kernel": "(3, 3)", "stride": "(2, 1)", "dilate": "(1, 2)", "pad": "(1, 1)"},
            [(2, 2, 5, 6)]),
    spatial("col2im", "col2im",
            {"output_size": "(5, 6)", "kernel": "(3, 3)", "stride": "(2, 1)", "dilate": "(1, 2)",
             "pad": "(1, 1)"},
            [(2, 18, 12)]),
    spatial("correlation_multiply", "Correlation",
            {"kernel_size": "3", "max_displacement": "2", "stride2": "2", "pad_size": "2"},
            [(1, 2, 5, 6), (1, 2, 5, 6)]),
    spatial("correlation_subtract", "Correlation",
            {"kernel_size": "1", "max_displacement": "1", "stride1": "2", "pad_size": "1",
             "is_multiply": "False"},
            [(2, 3, 5, 4), (2, 3, 5, 4)]),
]

# Legacy, deformable and position-sensitive ops (group "extra", refs_conv_extra.py).
from refs_conv_extra import CASES as EXTRA_CASES  # noqa: E402
CASES += EXTRA_CASES

# Channels-first -> channels-last permutations of activations and weights.
TO_LAST = {3: (0, 2, 1), 4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}
TO_FIRST = {3: (0, 2, 1), 4: (0, 3, 1, 2), 5: (0, 4, 1, 2, 3)}


def inputs_of(c):
    rng = np.random.RandomState(zlib.crc32(c["name"].encode()))
    arrays = []
    for shape in c["shapes"]:
        n = int(np.prod(shape))
        if c["distinct"]:
            v = c["lo"] + (c["hi"] - c["lo"]) * (rng.permutation(n) + 0.5) / n
            v = np.round(v, 4)
        else:
            v = np.round(rng.uniform(c["lo"], c["hi"], n), 3)
        arrays.append(v.reshape(shape))
    if c.get("make"):
        for i, a in c["make"](np.random.RandomState(zlib.crc32(c["name"].encode()) + 2),
                              c["shapes"]).items():
            arrays[i] = np.asarray(a, dtype=np.float64).reshape(c["shapes"][i])
    return arrays


def mx_op(mx, name):
    """mx.nd.X, or mx.nd.contrib.X for _contrib_X."""
    if name.startswith("_contrib_"):
        return getattr(mx.nd.contrib, name[len("_contrib_"):])
    return getattr(mx.nd, name)


def run_mxnet(c):
    """(inputs in our layout, output, ograd, grads), computed by MXNet."""
    import mxnet as mx
    ins = inputs_of(c)  # channels-first for to_layout cases
    attrs = dict(c["attrs"])
    attrs.update(c["mx_attrs"])
    if c["to_layout"]:
        del attrs["layout"]
    nds = [mx.nd.array(a, dtype="float32") for a in ins]
    if c.get("forward_only"):  # ops without a gradient in MXNet: no ograd, no grads
        return ins, mx_op(mx, c["op"])(*nds, **attrs).asnumpy().astype(np.float64), None, None
    for x in nds:
        x.attach_grad()
    with mx.autograd.record():
        y = mx_op(mx, c["op"])(*nds, **attrs)
    rng = np.random.RandomState(zlib.crc32(c["name"].encode()) + 1)
    ograd = np.round(rng.uniform(-1, 1, y.shape), 3)
    y.backward(mx.nd.array(ograd, dtype="float32"))
    out = y.asnumpy().astype(np.float64)
    grads = [x.grad.asnumpy().astype(np.float64) for x in nds]
    if c["to_layout"]:
        # Activations (data, output) and weights are permuted; biases are 1-D.
        def last(a):
            return a.transpose(TO_LAST[a.ndim]) if a.ndim >= 3 else a
        ins, grads = [last(a) for a in ins], [last(g) for g in grads]
        out, ograd = last(out), last(ograd)
    return ins, out, ograd, grads


def child(name, path):
    import warnings
    warnings.filterwarnings("ignore")
    c = next(c for c in CASES if c["name"] == name)
    try:
        result = run_mxnet(c)
    except Exception as e:  # noqa: BLE001 - recorded and reported by the parent
        result = str(e).splitlines()[-1][:200]
    with open(path, "wb") as f:
        pickle.dump(result, f)


def fmt(a, digits):
    return [float(f"{v:.{digits}g}") for v in np.asarray(a, dtype=np.float64).ravel()]


def tensor(a, digits=7):
    return {"shape": list(np.shape(a)), "data": fmt(a, digits)}


def batch_child(path, names):
    """--fast: runs `names` in order in this process; stops after the first failing case."""
    import warnings
    warnings.filterwarnings("ignore")
    results = {}
    for name in names:
        c = next(c for c in CASES if c["name"] == name)
        try:
            results[name] = run_mxnet(c)
        except Exception as e:  # noqa: BLE001 - recorded and reported by the parent
            results[name] = str(e).splitlines()[-1][:200]
            break
    with open(path, "wb") as f:
        pickle.dump(results, f)


def main(out_dir=OUT_DIR, fast=False):
    # One process per case and engine: a failed oneDNN primitive can leave MXNet's primitive
    # caches in a state that breaks later cases. (--fast: one process per run of passing cases.)
    runs = {"mkldnn": {}, "native": {}}
    path = f"/tmp/gen_conv_refs_{os.getpid()}.pkl"
    for engine, enabled in (("mkldnn", "1"), ("native", "0")):
        env = dict(os.environ, MXNET_MKLDNN_ENABLED=enabled,
                   MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0", OMP_NUM_THREADS="1")
        if fast:
            todo = [c["name"] for c in CASES if engine == "mkldnn" or isinstance(runs["mkldnn"][c["name"]], str)]
            while todo:
                subprocess.run([sys.executable, __file__, "--batch", path] + todo, env=env,
                               check=True, stderr=subprocess.DEVNULL)
                with open(path, "rb") as f:
                    runs[engine].update(pickle.load(f))
                todo = [n for n in todo if n not in runs[engine]]
            continue
        for c in CASES:
            subprocess.run([sys.executable, __file__, "--child", c["name"], path], env=env,
                           check=True, stderr=subprocess.DEVNULL)
            with open(path, "rb") as f:
                runs[engine][c["name"]] = pickle.load(f)
    if os.path.exists(path):
        os.remove(path)
    groups = {}
    for c in CASES:
        a, b = runs["mkldnn"][c["name"]], runs["native"].get(c["name"], "not run (--fast)")
        if isinstance(a, str) and isinstance(b, str):
            sys.exit(f"{c['name']}: MXNet failed: {a} / {b}")
        engine, r = ("mkldnn", a) if not isinstance(a, str) else ("native", b)
        if not isinstance(a, str) and not isinstance(b, str):
            diff = max(float(np.max(np.abs(x - y), initial=0)) for x, y in
                       zip([a[1]] + (a[3] or []), [b[1]] + (b[3] or [])))
            if diff > 1e-4:
                sys.exit(f"{c['name']}: MXNet's oneDNN and native kernels differ by {diff}")
        elif isinstance(a, str):
            print(f"{c['name']}: MXNet oneDNN failed ({a}); using the native kernels",
                  file=sys.stderr)
        ins, out, ograd, grads = r
        entry = {
            "name": c["name"], "op": c["op"], "attrs": c["attrs"], "engine": engine,
            "inputs": [{"shape": list(x.shape), "data": [float(v) for v in x.ravel()]}
                       for x in ins],
            "output": tensor(out)}
        if ograd is not None:  # forward_only cases have neither
            entry["ograd"] = {"shape": list(ograd.shape),
                              "data": [float(v) for v in ograd.ravel()]}
            entry["grads"] = [tensor(g) for g in grads]
        groups.setdefault(c["group"], []).append(entry)
    os.makedirs(out_dir, exist_ok=True)
    total = 0
    for g, cases in sorted(groups.items()):
        path = os.path.join(out_dir, f"{g}.json")
        text = json.dumps({"generator": "tools/conformance/gen_conv_refs.py",
                           "mxnet": "1.9.1", "cases": cases}, separators=(",", ":"))
        with open(path, "w") as f:
            f.write(text + "\n")
        total += len(text) + 1
        print(f"{path}: {len(cases)} cases, {len(text) + 1} bytes", file=sys.stderr)
    print(f"total {total} bytes", file=sys.stderr)
    from refs_conv_extra import write_registry  # MXNet's registry entries of the "extra" ops
    write_registry(out_dir)
    import refs_quant  # int8/uint8 quantization ops: quant.json (its own child process)
    refs_quant.main(out_dir)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "--batch":
        batch_child(sys.argv[2], sys.argv[3:])
    else:
        args = sys.argv[1:]
        fast = "--fast" in args
        args = [a for a in args if a != "--fast"]
        main(args[0] if args else OUT_DIR, fast)
