"""Cases of the conv family's legacy, deformable and position-sensitive ops (group "extra",
written to ndarray/ops/testdata/conv/extra.json by gen_conv_refs.py, replayed by
ndarray/ops/conv/conv_extra_test.cc): Convolution_v1, Pooling_v1, _contrib_DeformableConvolution,
_contrib_ModulatedDeformableConvolution, _contrib_PSROIPooling, _contrib_DeformablePSROIPooling,
_contrib_RROIAlign (forward only: MXNet registers no gradient) and
_contrib_ModulatedDeformableConvolution (forward only: MXNet 1.9.1's backward is GPU-only, "only
implemented in GPU"; our gradient is checked by finite differences in conv_extra_cases.cc).

Deformable offsets put every bilinear sample strictly between pixels (fractional parts in
[0.15, 0.85]). For DeformableConvolution (v1) the samples also avoid (-1, 0) and the last
row/column (H-1, H): MXNet's v1 forward reads 0 / clamps there while its backward treats those
samples as zero-padded reads, so the gradients are compared only where both are the derivative
of the forward (see conv_extra.cc). rois and trans are fixed or constructed inputs (make=...).
"""
import numpy as np


def case(name, op, attrs, shapes, lo=-1.0, hi=1.0, distinct=False, make=None,
         forward_only=False):
    return dict(group="extra", name=name, op=op, attrs=attrs, shapes=shapes, lo=lo, hi=hi,
                distinct=distinct, to_layout=None, mx_attrs={}, make=make,
                forward_only=forward_only)


def _tuple(attrs, key, default):
    v = attrs.get(key)
    return tuple(int(x) for x in v.strip("()").split(",") if x.strip()) if v else default


def dcn_offsets(attrs, modulated, offset_index=1, mask_index=None):
    """make(): offsets whose sample positions (base + offset) have fractional parts in
    [0.15, 0.85]; v1 positions lie in (-2, -1), [0, H-1) or (H, H+1) (likewise w)."""
    kh, kw = _tuple(attrs, "kernel", None)
    sh, sw = _tuple(attrs, "stride", (1, 1))
    dh, dw = _tuple(attrs, "dilate", (1, 1))
    ph, pw = _tuple(attrs, "pad", (0, 0))

    def make(rng, shapes):
        _, _, H, W = shapes[0]
        n, ch, oh, ow = shapes[offset_index]
        dg = ch // (2 * kh * kw)
        off = np.zeros((n, dg, kh * kw, 2, oh, ow))
        for t in range(kh * kw):
            i, j = divmod(t, kw)
            for axis, (size, base) in enumerate(
                    [(H, np.arange(oh)[:, None] * sh - ph + i * dh),
                     (W, np.arange(ow)[None, :] * sw - pw + j * dw)]):
                ints = ([-2] + list(range(0, size - 1)) + [size]) if not modulated else \
                    list(range(-2, size + 1))
                pos = rng.choice(ints, (n, dg, oh, ow)) + rng.uniform(0.15, 0.85, (n, dg, oh, ow))
                off[:, :, t, axis] = np.round(pos, 4) - base
        out = {offset_index: off.reshape(n, ch, oh, ow)}
        if mask_index is not None:
            out[mask_index] = np.round(rng.uniform(0, 1, shapes[mask_index]), 3)
        return out
    return make


def fixed(rows_by_index):
    return lambda rng, shapes: {i: np.array(r) for i, r in rows_by_index.items()}


CASES = [
    # ---- Convolution_v1 / Pooling_v1. ----
    case("conv_v1_2d_bias_pad", "Convolution_v1",
         {"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"},
         [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    case("conv_v1_grouped_strided_dilated", "Convolution_v1",
         {"kernel": "(3, 2)", "num_filter": "4", "stride": "(2, 1)", "dilate": "(1, 2)",
          "num_group": "2", "no_bias": "True"},
         [(1, 4, 7, 6), (4, 2, 3, 2)]),
    case("pool_v1_max_pad", "Pooling_v1", {"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)"},
         [(1, 2, 5, 6)], lo=-1.0, hi=0.5, distinct=True),
    case("pool_v1_avg_full", "Pooling_v1",
         {"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "avg", "pooling_convention": "full"},
         [(2, 1, 5, 5)]),
    case("pool_v1_avg_pad", "Pooling_v1",
         {"kernel": "(3, 2)", "stride": "(2, 1)", "pad": "(1, 1)", "pool_type": "avg"},
         [(1, 2, 5, 4)]),
    case("pool_v1_sum_full_pad", "Pooling_v1",
         {"kernel": "(2, 3)", "stride": "(2, 2)", "pad": "(1, 0)", "pool_type": "sum",
          "pooling_convention": "full"},
         [(1, 2, 4, 6)]),
    case("pool_v1_max_full", "Pooling_v1",
         {"kernel": "(2, 2)", "stride": "(2, 2)", "pooling_convention": "full"},
         [(1, 2, 5, 5)], distinct=True),
    case("pool_v1_global_avg", "Pooling_v1", {"kernel": "(1, 1)", "global_pool": "True",
                                              "pool_type": "avg"},
         [(2, 3, 3, 4)]),
    case("pool_v1_global_max", "Pooling_v1", {"global_pool": "True"}, [(1, 2, 3, 3)],
         distinct=True),
]

_DCN1 = {"kernel": "(3, 3)", "num_filter": "3", "pad": "(1, 1)"}
_DCN1G = {"kernel": "(2, 3)", "num_filter": "4", "stride": "(2, 1)", "dilate": "(1, 2)",
          "num_group": "2", "num_deformable_group": "2", "no_bias": "True"}
_DCN2 = {"kernel": "(3, 3)", "num_filter": "2", "pad": "(1, 1)"}
_DCN2G = {"kernel": "(2, 2)", "num_filter": "4", "stride": "(2, 2)", "pad": "(1, 0)",
          "num_group": "2", "num_deformable_group": "2", "no_bias": "True"}

CASES += [
    case("dcn_v1_bias_pad", "_contrib_DeformableConvolution", _DCN1,
         [(2, 2, 4, 5), (2, 18, 4, 5), (3, 2, 3, 3), (3,)], make=dcn_offsets(_DCN1, False)),
    case("dcn_v1_groups", "_contrib_DeformableConvolution", _DCN1G,
         [(1, 4, 5, 6), (1, 24, 2, 2), (4, 2, 2, 3)], make=dcn_offsets(_DCN1G, False)),
    case("dcn_v2_bias_pad", "_contrib_ModulatedDeformableConvolution", _DCN2,
         [(2, 2, 4, 4), (2, 18, 4, 4), (2, 9, 4, 4), (2, 2, 3, 3), (2,)],
         make=dcn_offsets(_DCN2, True, mask_index=2), forward_only=True),
    case("dcn_v2_groups", "_contrib_ModulatedDeformableConvolution", _DCN2G,
         [(1, 4, 5, 4), (1, 16, 3, 2), (1, 8, 3, 2), (4, 2, 2, 2)],
         make=dcn_offsets(_DCN2G, True, mask_index=2), forward_only=True),
]


def rois_and_trans(rows, trans_index=None):
    """make(): fixed rois (input 1) and, for trans_index, trans in [-1, 1)."""
    def make(rng, shapes):
        out = {1: np.array(rows)}
        if trans_index is not None:
            out[trans_index] = np.round(rng.uniform(-1, 1, shapes[trans_index]), 3)
        return out
    return make


# Rows [batch, x1, y1, x2, y2] (rounded by the ops): inside, partly outside, tiny, batch 1.
_PS_ROIS = [[0, 1.2, 0.7, 9.4, 10.1], [1, 4.3, 2.2, 13.6, 8.8], [0, -3.2, 6.1, 4.1, 15.3],
            [1, 5.1, 5.2, 5.3, 5.4]]

CASES += [
    case("psroi_pool2", "_contrib_PSROIPooling",
         {"spatial_scale": "0.5", "output_dim": "2", "pooled_size": "2"},
         [(2, 8, 6, 7), (4, 5)], make=rois_and_trans(_PS_ROIS)),
    case("psroi_pool3_group3", "_contrib_PSROIPooling",
         {"spatial_scale": "1.0", "output_dim": "1", "pooled_size": "3", "group_size": "3"},
         [(1, 9, 7, 6), (2, 5)],
         make=rois_and_trans([[0, 0.8, 0.2, 3.3, 5.4], [0, 2.1, 1.3, 6.8, 3.7]])),
    case("dpsroi_trans", "_contrib_DeformablePSROIPooling",
         {"spatial_scale": "0.5", "output_dim": "2", "group_size": "2", "pooled_size": "2",
          "sample_per_part": "2", "trans_std": "0.1"},
         [(2, 8, 6, 7), (4, 5), (4, 4, 2, 2)], make=rois_and_trans(_PS_ROIS, 2)),
    case("dpsroi_no_trans", "_contrib_DeformablePSROIPooling",
         {"spatial_scale": "1.0", "output_dim": "1", "group_size": "3", "pooled_size": "3",
          "sample_per_part": "2", "no_trans": "True"},
         [(1, 9, 5, 6), (2, 5)],
         make=rois_and_trans([[0, 0.8, 0.2, 3.3, 4.4], [0, 2.1, 1.3, 6.8, 3.7]])),
    case("dpsroi_part2_pooled3", "_contrib_DeformablePSROIPooling",
         {"spatial_scale": "1.0", "output_dim": "2", "group_size": "3", "pooled_size": "3",
          "part_size": "2", "sample_per_part": "1", "trans_std": "0.2"},
         [(1, 18, 6, 6), (2, 5), (2, 2, 2, 2)],
         make=rois_and_trans([[0, 0.8, 0.2, 4.3, 5.4], [0, 1.1, 2.3, 3.8, 4.7]], 2)),
    case("rroi_align_adaptive", "_contrib_RROIAlign",
         {"pooled_size": "(2, 3)", "spatial_scale": "1.0"},
         [(2, 3, 7, 8), (4, 6)],
         make=rois_and_trans([[0, 3.3, 2.7, 4.1, 2.6, 30.0], [1, 5.2, 4.1, 6.3, 3.1, -45.0],
                              [0, 2.1, 3.3, 2.2, 5.5, 90.0], [1, 3.0, 3.0, 0.5, 0.5, 10.0]]),
         forward_only=True),
    case("rroi_align_ratio2_scaled", "_contrib_RROIAlign",
         {"pooled_size": "(2, 2)", "spatial_scale": "0.5", "sampling_ratio": "2"},
         [(1, 2, 6, 6), (2, 6)],
         make=rois_and_trans([[0, 6.3, 5.7, 7.1, 4.6, 20.0], [0, 4.2, 7.1, 5.3, 9.1, -120.0]]),
         forward_only=True),
]

REGISTRY_OPS = ["Convolution_v1", "Pooling_v1", "_contrib_DeformableConvolution",
                "_contrib_ModulatedDeformableConvolution", "_contrib_PSROIPooling",
                "_contrib_DeformablePSROIPooling", "_contrib_RROIAlign"]


def write_registry(out_dir):
    """extra_registry.json: MXNet's registry entries (names, attributes with their type/default
    text, inputs) of the ops above, for conv_extra_test.cc's CheckRegistryEntry."""
    import json
    import os
    import sys
    from gen_reduce_refs import registry
    ops = registry(REGISTRY_OPS)
    for info in ops.values():  # PSROIPooling's inputs are typed 'Symbol': inputs, not attributes
        sym = [a for a in info["attrs"] if a[1].startswith(("Symbol", "NDArray"))]
        info["inputs"] += [a[0] for a in sym]
        info["attrs"] = [a for a in info["attrs"] if a not in sym]
    text = json.dumps({"generator": "tools/conformance/refs_conv_extra.py", "mxnet": "1.9.1",
                       "ops": ops}, sort_keys=True, separators=(",", ":"))
    path = os.path.join(out_dir, "extra_registry.json")
    with open(path, "w") as f:
        f.write(text + "\n")
    print(f"{path}: {len(REGISTRY_OPS)} ops, {len(text) + 1} bytes", file=sys.stderr)
