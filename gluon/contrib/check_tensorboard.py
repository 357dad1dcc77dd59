#!/usr/bin/env python3
"""Reads event files our SummaryWriter wrote with TensorBoard's own reader and checks every value.

    PY=$(tools/conformance/setup_venv.sh | tail -1)      # has tensorboard and tensorboardX
    ./bazelw build //gluon/contrib:write_summaries
    bazel-bin/gluon/contrib/write_summaries gluon/contrib/testdata/tensorboardx_reference.json /tmp/tb
    $PY gluon/contrib/check_tensorboard.py /tmp/tb       # prints one line per check; exit 1 on failure

check_write_summaries(logdir, calls) holds the checks (tools/conformance/report.py calls it):
tensorboard.backend.event_processing.event_accumulator.EventAccumulator loads the directory;
scalars must equal the float32 of the values; the equal-width histogram must equal
tensorboardX.summary.make_histogram of the same values (tensorboardX's own histogram code);
the default-bucket histogram must equal an independent numpy implementation of TensorFlow's
default buckets (histogram.cc: limits +-1e-12 * 1.1^k up to 1e20, +-DBL_MAX and 0; runs of
empty buckets collapsed); images decoded by PIL must equal the pixels passed (CHW -> HWC;
floats * 255 rounded and clipped); text must come back under "<tag>/text_summary"; the graph
must parse as TensorBoard's GraphDef with the ops of Dense(4, relu) -> Dense(2); TensorBoard's
plugin accumulator (what the dashboards read) must list every tag under its dashboard.
check_proto_fields() compares every field number and type of our tensorboard.proto with the
descriptors of the tensorboard package's own protos.
"""
import io
import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load(logdir):
    from tensorboard.backend.event_processing import event_accumulator as ea
    acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0,
                                                     ea.TENSORS: 0, ea.GRAPH: 0})
    acc.Reload()
    return acc


def tf_default_histogram(values):
    """TensorFlow's default-bucket histogram (histogram.cc), re-implemented with numpy."""
    pos = []
    v = 1e-12
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    pos.append(sys.float_info.max)
    limits = np.array([-x for x in reversed(pos)] + [0.0] + pos)
    counts = np.zeros(len(limits))
    np.add.at(counts, np.searchsorted(limits, values, side="right"), 1)
    out_l, out_c = [], []
    i = 0
    while i < len(counts):
        end, c = limits[i], counts[i]
        i += 1
        if c <= 0:
            while i < len(counts) and counts[i] <= 0:
                end, c = limits[i], counts[i]
                i += 1
        out_l.append(end)
        out_c.append(c)
    return out_l, out_c


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_write_summaries(logdir, calls):
    """[(check name, ok, detail)] for a directory written by write_summaries."""
    from PIL import Image
    rows = []

    def add(name, ok, detail=""):
        rows.append((name, bool(ok), detail))

    acc = load(logdir)
    tags = acc.Tags()
    for tag, value, step in calls["scalars"]:
        ev = acc.Scalars(tag) if tag in tags["scalars"] else []
        ok = len(ev) == 1 and ev[0].step == step and ev[0].value == float(np.float32(value))
        add("scalar %s" % tag, ok, "got %s" % [(e.step, e.value) for e in ev])

    h = calls["histogram"]
    vals = np.array(h["values"], dtype=np.float64)

    def hist_ok(hv, limits, counts):
        return (hv.min == vals.min() and hv.max == vals.max() and hv.num == len(vals) and
                close(hv.sum, vals.sum()) and close(hv.sum_squares, vals.dot(vals)) and
                list(hv.bucket_limit) == list(limits) and list(hv.bucket) == list(counts))

    from tensorboardX.summary import make_histogram
    ref = make_histogram(vals, h["bins"])
    ev = acc.Histograms(h["tag"]) if h["tag"] in tags["histograms"] else []
    add("histogram %s (%d equal-width bins) = tensorboardX's make_histogram" % (h["tag"], h["bins"]),
        len(ev) == 1 and ev[0].step == h["step"] and
        hist_ok(ev[0].histogram_value, ref.bucket_limit, ref.bucket),
        "got %s" % (ev[0].histogram_value if ev else "nothing"))
    tag = h["tag"] + "/default"
    ev = acc.Histograms(tag) if tag in tags["histograms"] else []
    lim, cnt = tf_default_histogram(vals)
    add("histogram %s (TensorFlow default buckets) = numpy re-implementation" % tag,
        len(ev) == 1 and ev[0].step == 9 and hist_ok(ev[0].histogram_value, lim, cnt),
        "got %s" % (ev[0].histogram_value if ev else "nothing"))

    def image_pixels(tag):
        ev = acc.Images(tag) if tag in tags["images"] else []
        if len(ev) != 1:
            return None, None
        return ev[0], np.array(Image.open(io.BytesIO(ev[0].encoded_image_string)))

    for im in calls["images"]:
        chw = np.array(im["values"], dtype=np.uint8).reshape(im["shape"])
        want = chw.transpose(1, 2, 0)
        if want.shape[2] == 1:
            want = want[:, :, 0]
        e, px = image_pixels(im["tag"])
        add("image %s %s pixels (PIL)" % (im["tag"], tuple(im["shape"])),
            e is not None and e.step == im["step"] and e.height == chw.shape[1] and e.width == chw.shape[2]
            and px.shape == want.shape and (px == want).all(),
            "got %s" % (None if px is None else px.tolist()))
    e, px = image_pixels("float")
    want = np.array([[0, 128, 255], [255, 0, 51]], dtype=np.uint8)
    add("image float (1, 2, 3) pixels: x * 255 rounded, clipped",
        e is not None and e.step == 10 and px.shape == want.shape and (px == want).all(),
        "got %s" % (None if px is None else px.tolist()))

    for tag, text, step in calls["texts"]:
        t = tag + "/text_summary"
        ev = acc.Tensors(t) if t in tags["tensors"] else []
        ok = (len(ev) == 1 and ev[0].step == step and
              list(ev[0].tensor_proto.string_val) == [text.encode()] and ev[0].tensor_proto.dtype == 7)
        add("text %s" % tag, ok, "got %s" % [e.tensor_proto for e in ev])
        md = acc.SummaryMetadata(t) if ok else None
        add("text %s plugin metadata" % tag, md is not None and md.plugin_data.plugin_name == "text")

    # What TensorBoard's dashboards read: the plugin accumulator (data_compat migrates each
    # summary to its plugin's tensor form) puts every tag on its dashboard.
    from tensorboard.backend.event_processing import plugin_event_accumulator as pea
    pacc = pea.EventAccumulator(logdir, size_guidance={"tensors": 0})
    pacc.Reload()
    want = {"scalars": sorted(t for t, _, _ in calls["scalars"]),
            "histograms": sorted([h["tag"], h["tag"] + "/default"]),
            "images": sorted([im["tag"] for im in calls["images"]] + ["float"]),
            "text": sorted(t + "/text_summary" for t, _, _ in calls["texts"])}
    for plugin, tags_want in want.items():
        try:
            got = sorted(pacc.PluginTagToContent(plugin).keys())
        except KeyError:
            got = []
        add("TensorBoard %s dashboard tags" % plugin, got == tags_want, "got %s" % got)

    try:
        g = acc.Graph()
        ops = [n.op for n in g.node]
        want_ops = ["null", "null", "null", "FullyConnected", "Activation", "null", "null", "FullyConnected"]
        shapes = {n.op: [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape]
                  for n in g.node if n.op != "null"}
        ok = (sorted(ops) == sorted(want_ops) and shapes.get("Activation") == [[2, 4]] and
              shapes.get("FullyConnected") == [[2, 2]])
        add("graph Dense(4, relu) -> Dense(2): TensorBoard's GraphDef", ok, "ops %s shapes %s" % (ops, shapes))
    except Exception as e:  # noqa: BLE001
        add("graph Dense(4, relu) -> Dense(2): TensorBoard's GraphDef", False, repr(e))
    return rows


def check_proto_fields():
    """Our tensorboard.proto's fields (message, name, number, repeated) against the tensorboard
    package's descriptors; [(check name, ok, detail)]."""
    from tensorboard.compat.proto import (attr_value_pb2, event_pb2, graph_pb2, node_def_pb2, summary_pb2,
                                          tensor_pb2, tensor_shape_pb2, types_pb2, versions_pb2)
    theirs = {}

    def walk(d, prefix=""):
        name = prefix + d.name
        theirs[name] = {f.name: (f.number, f.type) for f in d.fields}
        for n in d.nested_types:
            walk(n, name + ".")

    for m in [event_pb2.Event, summary_pb2.Summary, summary_pb2.SummaryMetadata, summary_pb2.HistogramProto,
              graph_pb2.GraphDef, node_def_pb2.NodeDef, attr_value_pb2.AttrValue, tensor_pb2.TensorProto,
              tensor_shape_pb2.TensorShapeProto, versions_pb2.VersionDef]:
        walk(m.DESCRIPTOR)
    # Field types of our .proto as descriptor type numbers.
    scalar = {"double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "bool": 8, "string": 9,
              "bytes": 12, "uint32": 13, "DataType": 14}
    text = open(os.path.join(HERE, "tensorboard.proto")).read()
    text = re.sub(r"//[^\n]*", "", text)
    rows = []
    stack = []
    for tok in re.finditer(r"(message|enum)\s+(\w+)\s*\{|\}|(?:repeated\s+)?(map<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*(\d+)",
                           text):
        if tok.group(1):
            stack.append((tok.group(1), tok.group(2)))
        elif tok.group(0) == "}":
            if stack:
                stack.pop()
        elif stack and stack[-1][0] == "message":
            msg = ".".join(n for _, n in stack)
            typ, field, num = tok.group(3), tok.group(4), int(tok.group(5))
            want = theirs.get(msg, {}).get(field)
            typ_num = scalar.get(typ, 11)
            ok = want is not None and want[0] == num and want[1] == typ_num
            rows.append(("proto field %s.%s = %d" % (msg, field, num), ok,
                         "tensorboard has %s" % (want,)))
    dt = {v.name: v.number for v in types_pb2.DataType.DESCRIPTOR.values}
    for name, num in re.findall(r"(DT_\w+)\s*=\s*(\d+)", text):
        rows.append(("proto enum %s = %s" % (name, num), dt.get(name) == int(num), "tensorboard has %s" % dt.get(name)))
    return rows


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with open(os.path.join(HERE, "testdata", "tensorboardx_reference.json")) as f:
        calls = json.load(f)
    rows = check_write_summaries(sys.argv[1], calls) + check_proto_fields()
    bad = 0
    for name, ok, detail in rows:
        print("%s  %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else "  (" + detail + ")"))
        bad += not ok
    print("%d checks, %d failed" % (len(rows), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
