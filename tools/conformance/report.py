#!/usr/bin/env python3
"""Conformance report and live two-way cross-check against real Apache MXNet 1.9.1.

Run with the conformance venv, from anywhere:
    PY=$(tools/conformance/setup_venv.sh | tail -1)
    $PY tools/conformance/report.py                  # writes docs/conformance.md + .json
    $PY tools/conformance/report.py --out /tmp/r     # elsewhere (what .ci/run does)

Every number in the report comes from a comparison made by this run; nothing is copied from
the committed reference files. The steps:

 1. build (unless --no-build) //tools/conformance:dump_ours, :io_conformance_writer,
    //modelzoo:export_tool, //tools:mxnet and //gluon/contrib:write_summaries;
 2. regenerate every reference with real MXNet 1.9.1 into a temporary directory (the gen_*.py
    scripts of this directory, the same ones that made the committed test data), and note where
    the fresh files differ from the committed ones ("reference drift");
 3. run the same cases through our libraries (dump_ours: ops forward + gradient, csr /
    row_sparse ops (output storage types, values, stored parts), gluon layers,
    losses, initializers, optimizers, the seeds' Model, model-zoo checkpoints; export_tool: the
    34 model-zoo nets) and compare with MXNet's fresh values;
 4. files both ways: we read what MXNet writes (.nd, .npy/.npz, .params, -symbol.json: gluon
    and model-zoo exports, the real GluonCV CIFAR export) and MXNet reads what we write (our
    NDArray files, save_parameters, export_model of the seeds' Model and of every model-zoo
    net, and a model trained and exported by `mxnet train`);
 5. TensorBoard and pictures: TensorBoard's own EventAccumulator reads the event files of
    //gluon/contrib:write_summaries and `mxnet train --logdir` (gluon/contrib/check_tensorboard.py),
    and `mxnet summary --plot` of resnet18_v1 is compared with mx.viz.plot_network of MXNet's;
 6. ONNX (onnx_check.py): the 34 model-zoo nets exported by `mxnet export --format onnx`,
    checked by onnx.checker and run by ONNX Runtime against our forward, our import of them, and
    MXNet 1.9.1's mx.onnx exports run by ONNX Runtime and by our importer, and (with the PyTorch
    venv of setup_torch_venv.sh; --torch) torchvision nets exported by torch.onnx, run by ONNX
    Runtime, PyTorch and our importer;
 7. list the MXNet 1.9.1 operators (all registered names minus the gradient internals
    _backward_*, _npi_backward_*, _contrib_backward_*, *_backward; grouped by operator with
    their aliases) that our registry does not have (`mxnet ops --internal --verbose`).

Errors: max_abs = max |ours - mxnet| over all compared elements; max_rel = max_abs / max |mxnet|
(the error relative to the array's scale; elementwise relative errors blow up near zero).
A case passes when every element satisfies |ours - mxnet| <= atol + rtol * |mxnet| with the
tolerances of the corresponding unit test (listed per row), NaN/inf in the same places and the
same dtype and shape. "deviation" marks a documented MXNet 1.9.1 bug where we deliberately
differ (the numbers are then against MXNet's own values; the row does not fail).

Exit status: 0 when every case passes, 1 when any fails (a regression), 2 on a setup error.
"""
import argparse
import concurrent.futures
import contextlib
import ctypes
import datetime
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import check_npy_ours  # noqa: E402
import check_read_ours  # noqa: E402
import modelzoo_weights  # noqa: E402
import refs_np_eig  # noqa: E402  (sign_normalized: _npi_eig's eigenvectors up to sign)
import refs_quant  # noqa: E402

# The binaries under test, relative to bazel-bin. main() copies them into the working directory
# right after the build, so a concurrent build (another -c, another change) cannot swap them out
# during the run; these globals then point at the copies.
BINARIES = {"DUMP": "tools/conformance/dump_ours", "WRITER": "tools/conformance/io_conformance_writer",
            "EXPORT": "modelzoo/export_tool", "CLI": "tools/mxnet/mxnet",
            "TBWRITE": "gluon/contrib/write_summaries"}
DUMP = WRITER = EXPORT = CLI = TBWRITE = None
TARGETS = ["//tools/conformance:dump_ours", "//tools/conformance:io_conformance_writer",
           "//modelzoo:export_tool", "//tools:mxnet", "//gluon/contrib:write_summaries"]

CATEGORIES = [
    ("op", "Operators (forward and gradient)"),
    ("layer", "Gluon layers"),
    ("loss", "Gluon losses"),
    ("init", "Initializers"),
    ("optimizer", "Optimizers"),
    ("modelzoo", "Model-zoo nets"),
    ("file:mx->ours", "Files MXNet writes, we read"),
    ("file:ours->mx", "Files we write, MXNet reads"),
    ("onnx", "ONNX export and import, run by ONNX Runtime"),
    ("refs", "Committed test data = fresh MXNet output"),
    ("tensorboard", "TensorBoard event files (read by TensorBoard) and network pictures (vs mx.viz)"),
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# =============================================================================================
# Comparison.
# =============================================================================================
def to_np(a):
    data = a["data"] if "data" in a else a["values"]
    v = np.array([float(x) for x in data], dtype=np.float64)
    return v.reshape([int(d) for d in a["shape"]]) if v.size == int(np.prod(a["shape"])) else v


class Cmp:
    """Result of comparing one or more arrays: ok, max_abs, max_rel, notes."""

    def __init__(self):
        self.ok, self.max_abs, self.scale, self.notes, self.n = True, 0.0, 0.0, [], 0

    def fail(self, msg):
        self.ok = False
        self.notes.append(msg)
        return self

    @property
    def max_rel(self):
        if self.max_abs is None:
            return None
        if self.max_abs == 0:
            return 0.0
        return self.max_abs / self.scale if self.scale > 0 else math.inf

    def add(self, ours, want, rtol, atol, what="", dtype=True):
        """Compares array dicts ({shape, dtype?, data|values}); accumulates into self."""
        tag = (what + ": ") if what else ""
        if ours is None:
            return self.fail(tag + "missing in our results")
        if list(ours["shape"]) != list(want["shape"]):
            return self.fail("%sshape %s, MXNet %s" % (tag, list(ours["shape"]), list(want["shape"])))
        if dtype and "dtype" in want and "dtype" in ours and ours["dtype"] != want["dtype"]:
            self.fail("%sdtype %s, MXNet %s" % (tag, ours["dtype"], want["dtype"]))
        a, b = to_np(ours), to_np(want)
        self.n += b.size
        if b.size == 0:
            return self
        na, nb = np.isnan(a), np.isnan(b)
        if (na != nb).any():
            self.fail("%sNaN at %d positions where MXNet has none or vice versa" % (tag, int((na != nb).sum())))
        infb = np.isinf(b) | np.isinf(a)
        if (infb & (a != b) & ~(na | nb)).any():
            self.fail("%sinf differs at %d positions" % (tag, int((infb & (a != b) & ~(na | nb)).sum())))
        fin = np.isfinite(a) & np.isfinite(b)
        if fin.any():
            d = np.abs(a[fin] - b[fin])
            self.max_abs = max(self.max_abs, float(d.max()))
            self.scale = max(self.scale, float(np.abs(b[fin]).max()))
            bad = d > atol + rtol * np.abs(b[fin])
            if bad.any():
                self.fail("%s%d of %d elements outside rtol %g, atol %g" % (tag, int(bad.sum()), b.size, rtol, atol))
        return self

    def exact(self, got, want, what=""):
        """Exact equality of flat lists (NaN equals NaN, -0.0 differs from 0.0)."""
        if not check_read_ours.same(list(got), list(want)):
            self.fail("%s values differ" % what)
        gv = np.array([float(x) for x in got], dtype=np.float64)
        wv = np.array([float(x) for x in want], dtype=np.float64)
        if gv.shape == wv.shape and gv.size:
            fin = np.isfinite(gv) & np.isfinite(wv)
            if fin.any():
                self.max_abs = max(self.max_abs, float(np.abs(gv[fin] - wv[fin]).max()))
                self.scale = max(self.scale, float(np.abs(wv[fin]).max()))
        self.n += len(want)
        return self


# Known gaps: MXNet 1.9.1 behaviour we do not have yet (not regressions). Their rows are "gap"
# and do not fail the run; once such a case passes it fails as "unexpected pass" until its entry
# here is removed, so the list cannot go stale. (category, group, case name) -> what is missing.
KNOWN_GAPS = {
}


class Report:
    def __init__(self):
        self.rows = []

    def add(self, category, group, name, check, cmp=None, status=None, tol="", note="", max_abs=None,
            max_rel=None):
        if cmp is not None:
            status = status or ("pass" if cmp.ok else "fail")
            max_abs = cmp.max_abs if max_abs is None else max_abs
            max_rel = cmp.max_rel if max_rel is None else max_rel
            if not cmp.ok or status == "deviation":
                note = "; ".join([n for n in [note] + cmp.notes if n])
        gap = KNOWN_GAPS.get((category, group, name))
        if gap and status == "fail":
            status, note = "gap", "known gap: %s (%s)" % (gap, note)
        elif gap and status == "pass":
            status, note = "fail", "unexpected pass: remove this case from KNOWN_GAPS in report.py (%s)" % gap
        self.rows.append({"category": category, "group": group, "name": name, "check": check,
                          "status": status, "max_abs_err": max_abs, "max_rel_err": max_rel,
                          "tolerance": tol, "note": note})

    def error(self, category, group, name, check, msg):
        self.add(category, group, name, check, status="fail", note="error: " + str(msg).strip().splitlines()[0][:300])


def parse_dot(text):
    """Nodes {id: {attr: value}} and edges [(tail, head, {attr: value})] of plot_network's DOT."""
    tok = re.findall(r'"((?:[^"\\]|\\.)*)"|(->)|([{}\[\]=;])|([^\s{}\[\]=;"]+)', text)
    toks = []
    for q, arrow, punct, bare in tok:
        if arrow or punct:
            toks.append((arrow or punct, False))
        else:
            v = q if bare == "" and (q or not punct) else bare
            toks.append((re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), v), True))
    i = [t for t, _ in toks].index("{") + 1
    nodes, edges = {}, []

    def attrs():
        nonlocal i
        a = {}
        if i < len(toks) and toks[i] == ("[", False):
            i += 1
            while toks[i] != ("]", False):
                a[toks[i][0]] = toks[i + 2][0]
                i += 3
            i += 1
        return a

    while toks[i] != ("}", False):
        name = toks[i][0]
        i += 1
        if toks[i] == ("->", False):
            to = toks[i + 1][0]
            i += 2
            edges.append((name, to, attrs()))
        else:
            nodes[name] = attrs()
    return nodes, edges


def check_tensorboard(work, rep):
    """Event files of our SummaryWriter read by TensorBoard's EventAccumulator (every value of
    //gluon/contrib:write_summaries checked, our proto's field numbers against tensorboard's; the
    `mxnet train --logdir` run's histograms against MXNet's nd.load of its checkpoint) and
    `mxnet summary --plot` against mx.viz.plot_network of MXNet's own resnet18_v1."""
    sys.path.insert(0, os.path.join(ROOT, "gluon", "contrib"))
    import check_tensorboard as ct
    cat = "tensorboard"
    with open(os.path.join(ROOT, "gluon", "contrib", "testdata", "tensorboardx_reference.json")) as f:
        calls = json.load(f)
    logdir = os.path.join(work, "tb")
    try:
        run([TBWRITE, os.path.join(ROOT, "gluon", "contrib", "testdata", "tensorboardx_reference.json"), logdir],
            os.path.join(work, "tb.log"))
        for name, ok, detail in ct.check_write_summaries(logdir, calls):
            rep.add(cat, "SummaryWriter -> TensorBoard EventAccumulator", name, "values", status="pass" if ok else "fail",
                    tol="exact", note="" if ok else detail[:300])
    except Exception as e:  # noqa: BLE001
        rep.error(cat, "SummaryWriter -> TensorBoard EventAccumulator", "write_summaries", "run", e)
    for name, ok, detail in ct.check_proto_fields():
        rep.add(cat, "tensorboard.proto = tensorboard's protos", name, "number and type",
                status="pass" if ok else "fail", tol="exact", note="" if ok else detail)
    # `mxnet train --logdir` (run by check_cli_train): histograms of every parameter at epoch 1
    # against MXNet's reading of the checkpoint written after that epoch; the scalars exist.
    g = "mxnet train --logdir -> TensorBoard"
    tb = os.path.join(work, "train-tb")
    try:
        acc = ct.load(tb)
        tags = acc.Tags()
        for t in ["train/loss", "train/accuracy", "test/accuracy", "learning_rate"]:
            ev = acc.Scalars(t) if t in tags["scalars"] else []
            rep.add(cat, g, "scalar " + t, "present at step 1, finite",
                    status="pass" if len(ev) == 1 and ev[0].step == 1 and math.isfinite(ev[0].value) else "fail")
        ck = mx.nd.load(os.path.join(work, "train", "checkpoint.params"))
        for k, v in ck.items():
            a = v.asnumpy().astype(np.float64).ravel()
            ev = acc.Histograms(k) if k in tags["histograms"] else []
            cmp = Cmp()
            if len(ev) != 1:
                cmp.fail("%d histogram events" % len(ev))
            else:
                h = ev[0].histogram_value
                cmp.add({"shape": [5], "data": [h.min, h.max, h.num, h.sum, h.sum_squares]},
                        {"shape": [5], "data": [a.min(), a.max(), a.size, a.sum(), a.dot(a)]}, 1e-6, 1e-9, k)
                if sum(h.bucket) != a.size:
                    cmp.fail("bucket counts sum to %s" % sum(h.bucket))
            rep.add(cat, g, "histogram " + k, "min/max/num/sum/sum_squares vs MXNet nd.load of the checkpoint",
                    cmp, tol="rtol 1e-6")
        gd = acc.Graph()
        ops = sorted(n.op for n in gd.node if n.op != "null")
        sym = mx.sym.load(os.path.join(work, "train", "model-symbol.json"))
        want = sorted(n["op"] for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null")
        rep.add(cat, g, "graph", "GraphDef ops = MXNet's ops of the exported -symbol.json",
                status="pass" if ops == want else "fail", note="" if ops == want else "%s vs %s" % (ops, want))
    except Exception as e:  # noqa: BLE001
        rep.error(cat, g, "event file", "read", e)
    # Network pictures: our `summary --plot` of resnet18_v1 vs mx.viz.plot_network of MXNet's.
    g = "mxnet summary --plot vs mx.viz.plot_network"
    try:
        from mxnet.gluon.model_zoo import vision
        dot = os.path.join(work, "r18.dot")
        run([CLI, "summary", "--model", "resnet18_v1", "--input-shape", "1,3,32,32", "--plot", dot],
            os.path.join(work, "plot.log"))
        with open(dot) as f:
            ours_n, ours_e = parse_dot(f.read())
        net = vision.get_model("resnet18_v1")
        net.initialize()
        net.hybridize()
        net(mx.nd.zeros((1, 3, 32, 32)))
        net.export(os.path.join(work, "r18mx"))
        msym = mx.sym.load(os.path.join(work, "r18mx-symbol.json"))
        theirs_n, theirs_e = parse_dot(mx.viz.plot_network(msym, shape={"data": (1, 3, 32, 32)}).source)

        def node_key(name, a):  # labels that name the node differ between graphs: keep the op colour
            label = re.sub(r"\n[\d,]+ params?$", "", a["label"])
            return (label if label != name else "<name>", a["fillcolor"], a["shape"])
        on = sorted(node_key(k, a) for k, a in ours_n.items())
        tn = sorted(node_key(k, a) for k, a in theirs_n.items())
        rep.add(cat, g, "resnet18_v1 nodes", "labels, colours, shapes (multiset)",
                status="pass" if on == tn else "fail",
                note="" if on == tn else "ours only %s; MXNet only %s" % (
                    sorted(set(on) - set(tn))[:5], sorted(set(tn) - set(on))[:5]))
        oe = sorted(a["label"] for _, _, a in ours_e)
        te = sorted(a["label"] for _, _, a in theirs_e)
        rep.add(cat, g, "resnet18_v1 edges", "edge shape labels (multiset)", status="pass" if oe == te else "fail",
                note="" if oe == te else "%d vs %d edges" % (len(oe), len(te)))
        svg = os.path.join(work, "r18.svg")
        run([CLI, "summary", "--model", "resnet18_v1", "--input-shape", "1,3,32,32", "--plot", svg],
            os.path.join(work, "plot-svg.log"))
        with open(svg) as f:
            ok = "<svg" in f.read()
        rep.add(cat, g, "resnet18_v1 --plot .svg", "Graphviz rendered an SVG", status="pass" if ok else "fail")
    except Exception as e:  # noqa: BLE001
        rep.error(cat, g, "resnet18_v1", "plot", e)


# =============================================================================================
# Helpers.
# =============================================================================================
def run(cmd, log_path=None, env=None, check=True, timeout=None):
    t0 = time.time()
    out = open(log_path, "w") if log_path else subprocess.DEVNULL
    try:
        p = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT if log_path else subprocess.DEVNULL,
                           env=env, cwd=ROOT, timeout=timeout)
    finally:
        if log_path:
            out.close()
    if check and p.returncode != 0:
        tail = open(log_path).read()[-2000:] if log_path else ""
        raise RuntimeError("%s failed (exit %d)\n%s" % (" ".join(cmd), p.returncode, tail))
    return p.returncode, time.time() - t0


def load_json(path):
    with open(path) as f:
        return json.load(f)


def dump(mode, *args):
    """Runs dump_ours and returns its JSON (the output path is the argument named OUT)."""
    cmd = [DUMP, mode] + [str(a) for a in args]
    out = [a for a in args if str(a).endswith(".json")][-1]
    subprocess.run(cmd, check=True, cwd=ROOT)
    return load_json(out)


def nd_arr(a):
    a = a.asnumpy() if isinstance(a, mx.nd.NDArray) else np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.astype(np.float64).ravel().tolist()}


def close_to(ours, want, cmp, what, tol=1e-4):
    """modelzoo's CloseTo: shapes equal and max|a-b| / max|b| < tol."""
    ours, want = np.asarray(ours, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if ours.shape != want.shape:
        return cmp.fail("%s: shape %s, MXNet %s" % (what, ours.shape, want.shape))
    d = float(np.abs(ours - want).max()) if want.size else 0.0
    s = float(np.abs(want).max()) if want.size else 0.0
    cmp.max_abs, cmp.scale = max(cmp.max_abs, d), max(cmp.scale, s)
    cmp.n += want.size
    if not np.isfinite(ours).all() or d > tol * s:
        cmp.fail("%s: max|a-b|/max|b| = %.3g >= %g" % (what, d / s if s else math.inf, tol))
    return cmp


# =============================================================================================
# 2. Fresh references.
# =============================================================================================
def generators(refs):
    g = lambda name: os.path.join(HERE, name)  # noqa: E731
    return [  # (name, command) in start order: the slowest first
        ("modelzoo", [g("gen_modelzoo_refs.py"), os.path.join(refs, "modelzoo")]),
        ("conv", [g("gen_conv_refs.py"), "--fast", os.path.join(refs, "conv")]),
        ("elemwise", [g("gen_elemwise_refs.py"), os.path.join(refs, "elemwise")]),
        ("basic", [g("gen_basic_refs.py"), os.path.join(refs, "basic")]),
        ("reduce", [g("gen_reduce_refs.py"), os.path.join(refs, "reduce")]),
        ("shape", [g("gen_shape_refs.py"), os.path.join(refs, "shape")]),
        ("nn", [g("gen_nn_refs.py"), os.path.join(refs, "nn")]),
        ("optim", [g("gen_optim_refs.py"), os.path.join(refs, "optim")]),
        ("layers", [g("gen_layer_refs.py"), os.path.join(refs, "layers")]),
        ("loss", [g("gen_loss_refs.py"), os.path.join(refs, "loss", "losses.json")]),
        ("init", [g("gen_init_refs.py"), os.path.join(refs, "init", "init_refs.json")]),
        ("gluon", [g("gen_gluon_refs.py"), os.path.join(refs, "gluon")]),
        ("ndarray_files", [g("gen_ndarray_files.py"), os.path.join(refs, "ndarray_files")]),
        ("npy_files", [g("gen_npy_files.py"), os.path.join(refs, "npy_files")]),
        ("control_flow", [g("gen_control_flow_refs.py"), os.path.join(refs, "control_flow")]),
        ("sg", [g("gen_sg_refs.py"), os.path.join(refs, "sg")]),
        ("sparse_elemwise", [g("gen_sparse_elemwise_refs.py"), os.path.join(refs, "sparse", "elemwise.json")]),
        ("sparse_graph", [g("gen_sparse_graph_refs.py"), os.path.join(refs, "sparse", "graph.json")]),
    ]


# fresh directory (relative to refs) -> committed directory (relative to the repository)
COMMITTED = [
    ("elemwise", "ndarray/ops/testdata/elemwise"), ("reduce", "ndarray/ops/testdata/reduce"),
    ("shape", "ndarray/ops/testdata/shape"), ("conv", "ndarray/ops/testdata/conv"),
    ("nn", "ndarray/ops/testdata/nn"), ("optim/ndarray/ops/testdata/optim", "ndarray/ops/testdata/optim"),
    ("optim/gluon/training/testdata", "gluon/training/testdata"), ("layers", "gluon/nn/testdata/layers"),
    ("loss", "gluon/loss/testdata"), ("init", "gluon/testdata"), ("gluon", "gluon/nn/testdata"),
    ("ndarray_files", "ndarray/testdata/mx"), ("npy_files", "ndarray/testdata/io"),
    ("modelzoo/nets", "modelzoo/testdata/nets"), ("modelzoo/load", "modelzoo/testdata/load"),
    ("modelzoo", "modelzoo/testdata"),
    ("control_flow", "symbol/testdata/control_flow"),  # read by //symbol:control_flow_test
    ("sg", "symbol/testdata/sg"),  # read by //symbol:sg_ops_test
    ("sparse", "ndarray/ops/testdata/sparse"),  # read by //ndarray/ops/sparse:sparse_*_test
]


def regenerate(refs, jobs, logs):
    os.makedirs(refs, exist_ok=True)
    threads = max(1, (os.cpu_count() or 2) // jobs)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    times = {}

    def one(item):
        name, cmd = item
        _, dt = run([sys.executable] + cmd, os.path.join(logs, "gen_%s.log" % name), env=env)
        times[name] = dt
        log("  regenerated %-14s %6.1f s" % (name, dt))

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for f in [ex.submit(one, item) for item in generators(refs)]:
            f.result()
    return times


def max_numeric_diff(a, b):
    """Max |a - b| over the numeric leaves of two JSON values of the same structure (None if the
    structures differ)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return 0.0 if a == b else None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) and math.isnan(b):
            return 0.0
        return abs(a - b)
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return None
        ds = [max_numeric_diff(a[k], b[k]) for k in a]
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return None
        ds = [max_numeric_diff(x, y) for x, y in zip(a, b)]
    else:
        return 0.0 if a == b else None
    if any(d is None for d in ds):
        return None
    return max(ds, default=0.0)


DRIFT_ATOL = 1e-4  # MXNet's own run-to-run differences (deep model-zoo nets: ~1e-5) stay below
# NDArray files of float results: the tolerance of the test that reads them (oneDNN's float
# results differ in the last bits from one CPU's ISA to another's).
PARAMS_ATOL = {"symbol/testdata/sg": 1e-5}  # sg_ops_test.cc ExpectClose


def params_drift(fresh, committed, atol):
    """Two NDArray files (.params/.nd): (max |float difference|, why, ok, int8_only). ok: same
    names, dtypes and shapes, integer arrays equal, float ones within atol. int8_only: the only
    arrays off are the "output" of a quantized export."""
    a, b = mx.nd.load(fresh), mx.nd.load(committed)
    a, b = (dict(enumerate(v)) if isinstance(v, list) else v for v in (a, b))
    if sorted(a) != sorted(b):
        return None, "array names differ", False, False
    worst, off = 0.0, []
    for k in a:
        x, y = a[k].asnumpy(), b[k].asnumpy()
        if x.dtype != y.dtype or x.shape != y.shape:
            return None, "%s: dtype or shape differs" % k, False, False
        diff = float(np.abs(x.astype(np.float64) - y.astype(np.float64)).max()) if x.size else 0.0
        if np.issubdtype(x.dtype, np.floating):
            worst = max(worst, diff)
            bad = diff > atol
        else:
            bad = diff != 0
        if bad:
            off.append(k)
    if not off:
        return worst, "bytes differ; numbers within %g (max %.3g)" % (atol, worst), True, False
    return worst, "%s differ by up to %.3g" % (", ".join(map(str, off)), worst), False, off == ["output"]


def int8_json_deviation(fresh, committed):
    """quant.json (refs_quant.py): when the only differences are the int32 outputs of int8-product
    ops, the committed ones are the exact integer results and MXNet's fresh ones are not (its
    kernels without VNNI), a note naming those cases; else None (a real drift)."""
    if not (isinstance(fresh, dict) and "cases" in fresh and len(fresh["cases"]) == len(committed["cases"])):
        return None
    off = []
    for f, c in zip(fresh["cases"], committed["cases"]):
        if f == c:
            continue
        if c.get("op") not in refs_quant.INT8_PRODUCT_OPS or "outputs" not in f or "outputs" not in c:
            return None
        rest = max_numeric_diff(dict(f, outputs=f["outputs"][1:]), dict(c, outputs=c["outputs"][1:]))
        ex = refs_quant.exact_outputs(mx, c)
        if rest is None or rest > DRIFT_ATOL or ex is None or ex[0]["data"] != c["outputs"][0]["data"]:
            return None
        off.append("%s (MXNet off by %d)" % (c["name"], max(abs(p - q) for p, q in zip(
            f["outputs"][0]["data"], ex[0]["data"]))))
    return ("the committed int32 outputs are the exact integer results; MXNet 1.9.1's on this CPU are not "
            "(its oneDNN int8 kernels without VNNI): " + ", ".join(off)) if off else None


def drift(refs, rep=None):
    """Fresh reference files vs the committed ones. With `rep`, one row per file: the committed
    test data must be what the generators make now (numbers within DRIFT_ATOL)."""
    out = {"identical": 0, "differ": []}
    seen = set()
    for fresh_rel, committed_rel in COMMITTED:
        fdir = os.path.join(refs, fresh_rel)
        if not os.path.isdir(fdir):
            continue
        for fn in sorted(os.listdir(fdir)):
            fp, cp = os.path.join(fdir, fn), os.path.join(ROOT, committed_rel, fn)
            if not os.path.isfile(fp) or fp in seen:
                continue
            seen.add(fp)
            rel = os.path.join(committed_rel, fn)
            ok, d, status = False, None, None
            if not os.path.exists(cp):
                why = "not committed"
            elif open(fp, "rb").read() == open(cp, "rb").read():
                out["identical"] += 1
                if rep:
                    rep.add("refs", os.path.dirname(rel), fn, "identical", status="pass", max_abs=0.0)
                continue
            elif fn.endswith(".json"):
                d = max_numeric_diff(load_json(fp), load_json(cp))
                why = "structure differs" if d is None else "numbers differ by up to %.3g" % d
                ok = d is not None and d <= DRIFT_ATOL
                if not ok and d is not None:
                    dev = int8_json_deviation(load_json(fp), load_json(cp))
                    if dev:
                        status = "deviation"
                        why = "%s: %s" % (why, dev)
            elif fn.endswith(".npz"):
                a, b = np.load(fp), np.load(cp)
                ok = list(a.keys()) == list(b.keys()) and all(
                    a[k].dtype == b[k].dtype and a[k].tobytes() == b[k].tobytes() for k in a.keys())
                why = ("bytes differ (zip member timestamps; the arrays are equal)" if ok
                       else "arrays differ")
            elif fn.endswith((".params", ".nd")):
                tol = PARAMS_ATOL.get(committed_rel, DRIFT_ATOL)
                d, why, ok, int8_only = params_drift(fp, cp, tol)
                if not ok and int8_only and fn.startswith("quantized_") and not mxnet_int8_exact():
                    status = "deviation"
                    why += ("; only the int8 net's output differs: MXNet 1.9.1's int8 kernels on this CPU are "
                            "not exact (no VNNI: they saturate int16 pair sums or halve weights; probe in "
                            "report.py mxnet_int8_exact), the committed output was made where they are")
            else:
                why = "bytes differ"
            out["differ"].append({"file": rel, "why": why})
            if rep:
                st = "pass" if ok else status or "fail"
                rep.add("refs", os.path.dirname(rel), fn, "same as the fresh MXNet output",
                        status=st, max_abs=d, note=why + (
                            "" if st != "fail" else "; regenerate it with tools/conformance/ (see README.md there)"),
                        tol="numbers within %g" % (tol if fn.endswith((".params", ".nd")) else DRIFT_ATOL))
    return out


# =============================================================================================
# 3. Operators.
# =============================================================================================
FLOATS = ("float16", "bfloat16", "float32", "float64")
ELEMWISE_LOOSE = {"gamma", "gammaln", "erfinv", "arccosh", "rcbrt", "rsqrt", "broadcast_power", "_power",
                  "_rpower_scalar", "_power_scalar", "broadcast_hypot", "_hypot", "_hypot_scalar", "tan",
                  "cbrt", "arcsin", "arccos"}
ELEMWISE_LOOSE |= {"_npi_power", "_npi_hypot", "_npi_rpower_scalar", "_npi_power_scalar", "_npi_tan",
                   "_npi_cbrt", "_npi_arcsin", "_npi_arccos", "_npi_arccosh", "_npi_arctan2", "_npi_ldexp",
                   "_npi_rldexp_scalar", "_npi_true_divide"}


def selu_fix(c):
    """The derivative MXNet 1.9.1 should give: h * lambda * (1 if x > 0 else alpha * exp(x))."""
    lam, alpha = 1.0507009873554805, 1.6732632423543772
    x, h = to_np(c["inputs"][0]), to_np(c["head_grads"][0])
    return [dict(c["grads"][0], data=(h * lam * np.where(x > 0, 1.0, alpha * np.exp(x))).ravel().tolist())]


def so_out_grad_fix(c):
    """SoftmaxOutput(out_grad=True, normalization=batch): (y - onehot(label)) / n * head."""
    y, lab, h = to_np(c["outputs"][0]), to_np(c["inputs"][1]).astype(int), to_np(c["head_grads"][0])
    onehot = np.zeros_like(y)
    onehot[np.arange(y.shape[0]), lab] = 1.0
    return [dict(c["grads"][0], data=((y - onehot) / y.shape[0] * h).ravel().tolist()), None]


NN_GRADIENT_BUGS = {  # nn_test.cc kMxnetGradientBugs / KnownMxnetDeviations
    "selu": ("MXNet 1.9.1's selu backward evaluates lambda*(alpha + y) on the output y for x <= 0 "
             "(the derivative is lambda*alpha*exp(x)); ours is the derivative", selu_fix),
    "so_out_grad": ("MXNet 1.9.1's SoftmaxOutput with out_grad=True multiplies the gradient by the "
                    "softmax output instead of the head gradient; ours uses the head gradient", so_out_grad_fix),
}


def tol_elemwise(want, op, grad):
    t = want.get("dtype", "float32")
    if t == "float64":
        return 1e-9, 1e-12
    if t == "float32":
        return (2e-4 if grad and op in ELEMWISE_LOOSE else 2e-5), 1e-6
    if t in ("float16", "bfloat16"):
        return 2e-3, 1e-3
    return 0.0, 0.0


def tol_reduce(want, op, grad):
    return {"float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2), "float32": (2e-5, 2e-6),
            "float64": (1e-12, 1e-13)}.get(want.get("dtype", "float32"), (0.0, 0.0))


def op_jobs(refs):
    """[(family, file, case name, op, dumper case, reference, tolerance fn, options)]"""
    jobs = []

    def add(family, file, name, c, tol, dumper_extra=None, **opt):
        d = {"id": len(jobs), "op": c["op"], "attrs": c.get("attrs", {}), "inputs": c["inputs"],
             "train": c.get("train", False), "record": c.get("record", False),
             "head_grads": c.get("head_grads"), "grads": bool(c.get("grads"))}
        d.update(dumper_extra or {})
        jobs.append((family, file, name, c["op"], d, c, tol, opt))

    for c in load_json(os.path.join(refs, "basic", "basic.json"))["cases"]:
        add("basic", "basic", c["name"], c, tol_elemwise)
    for f in ["unary", "binary", "scalar", "misc", "np"]:
        for c in load_json(os.path.join(refs, "elemwise", f + ".json"))["cases"]:
            add("elemwise", f, c["name"], c, tol_elemwise)
    for f in ["reduce", "dot", "ordering", "indexing", "linalg", "contrib", "mask", "np", "np_linalg"]:
        for c in load_json(os.path.join(refs, "reduce", f + ".json"))["cases"]:
            add("reduce", f, c["name"], c, tol_reduce)
    for c in load_json(os.path.join(refs, "reduce", "np_eig.json"))["cases"]:  # refs_np_eig.py
        if c["op"] == "_npi_eig":  # LAPACK's eigenvector signs are arbitrary: compared up to sign
            c = dict(c, outputs=[c["outputs"][0], refs_np_eig.sign_normalized(c["outputs"][1])])
        add("reduce", "np_eig", c["name"], c,
            lambda w, op, grad: (1e-4, 1e-5) if w.get("dtype") == "float32" else (1e-9, 1e-10))
    for c in load_json(os.path.join(refs, "reduce", "np_svd.json"))["cases"]:  # refs_np_svd.py
        # MXNet's LAPACK (gesvd) works in the input's float type, ours in double.
        add("reduce", "np_svd", c["name"], c,
            lambda w, op, grad: (1e-4, 1e-5) if w.get("dtype") == "float32" else (1e-9, 1e-10))
    for c in load_json(os.path.join(refs, "reduce", "np_percentile.json"))["cases"]:  # refs_np_percentile.py
        # MXNet 1.9.1 interpolates with float32 positions and weights, float64 data too (ours in
        # double, as NumPy): float64 results agree to float32 precision.
        add("reduce", "np_percentile", c["name"], c,
            lambda w, op, grad: (2e-6, 1e-7) if w.get("dtype") == "float64" else tol_reduce(w, op, grad))
    for f in ["refs", "image_cv"]:  # image_cv: _cvimresize, _cvcopyMakeBorder (refs_image_cv.py)
        for c in load_json(os.path.join(refs, "shape", f + ".json"))["cases"]:
            name = "%s %s" % (c["op"], json.dumps(c["attrs"], sort_keys=True))
            if c.get("error"):
                add("shape", f, name, c, None, {"grads": False}, expect_error=c.get("message", ""))
            elif c.get("ours_error"):
                add("shape", f, name, c, None, {"grads": False}, expect_error="", ours_error=c.get("note", ""))
            else:
                add("shape", f, name, c,
                    lambda w, op, grad: (1e-5, 1e-6) if grad else (1e-6, 1e-7), grad_dtype=False)
    for c in load_json(os.path.join(refs, "shape", "internal.json"))["cases"]:  # refs_shape_internal.py
        add("shape", "internal", c["name"], c, tol_reduce)
    for c in load_json(os.path.join(refs, "shape", "np_create.json"))["cases"]:  # refs_np_create.py
        add("shape", "np_create", c["name"], c, tol_reduce)
    for c in load_json(os.path.join(refs, "shape", "np.json"))["cases"]:  # refs_np_shape.py
        add("shape", "np", c["name"], c, tol_reduce)
    for c in load_json(os.path.join(refs, "shape", "np_insert.json"))["cases"]:  # refs_np_insert.py
        add("shape", "np_insert", c["name"], c, tol_reduce)
    for c in load_json(os.path.join(refs, "shape", "np_pad.json"))["cases"]:  # refs_np_pad.py
        add("shape", "np_pad", c["name"], c, tol_reduce)
    for f in ["conv", "fc", "pool", "upsampling", "spatial", "extra"]:
        for c in load_json(os.path.join(refs, "conv", f + ".json"))["cases"]:
            c = dict(c, outputs=[c["output"]], head_grads=[c["ograd"]] if "ograd" in c else None)
            add("conv", f, c["name"], c, lambda w, op, grad: (1e-4, 1e-5), dtype=False, grad_dtype=False)
    for c in load_json(os.path.join(refs, "conv", "quant.json"))["cases"]:  # refs_quant.py
        if c.get("error"):
            add("conv", "quant", c["name"], c, None, {"grads": False}, expect_error=c["error"])
        else:  # integer outputs exactly, float32 ranges to float32 precision
            add("conv", "quant", c["name"], c,
                lambda w, op, grad: (1e-6, 1e-7) if w["dtype"].startswith("float") else (0, 0),
                exact=c["op"] in refs_quant.INT8_PRODUCT_OPS)
    for f in ["norm", "act", "softmax", "loss", "extra", "rnn", "contrib"]:
        for c in load_json(os.path.join(refs, "nn", f + ".json"))["cases"]:
            f32 = any(j.get("dtype") == "float32" for j in c["inputs"])

            def tol(w, op, grad, f32=f32):
                r, a = (2e-4, 2e-5) if f32 or w.get("dtype") != "float64" else (1e-9, 1e-10)
                k = 10 if grad else 5
                return r * k, a * k
            add("nn", f, c["name"], c, tol, grad_dtype=False, aux=c.get("aux_after"),
                grad_bug=NN_GRADIENT_BUGS.get(c["name"]))
    return jobs


INT8_DEVIATION = ("MXNet 1.9.1's int8 result on this CPU is off the exact integer result by up to %d: its "
                  "oneDNN kernels without VNNI add u8*s8 product pairs in int16 and saturate (for int8 data they "
                  "halve the weights); ours is exact")


def check_int8_exact(rep, group, name, op, c, outs, tol, cmp):
    """An int8-product op (refs_quant.INT8_PRODUCT_OPS): ours against the exact integer result
    (MXNet's own op on split weights, refs_quant.exact_outputs), MXNet's fresh output too. Adds
    the forward row and returns True; False when the exact result cannot be made (the caller
    adds the plain row)."""
    ex = refs_quant.exact_outputs(mx, c)
    if ex is None:
        return False
    ours = Cmp()
    for k, (o, w) in enumerate(zip(outs, ex)):
        rt, at = tol(w, op, False)
        ours.add(o, w, rt, at, "output %d vs the exact integer result" % k)
    mx_off = Cmp().add(c["outputs"][0], ex[0], 0, 0, "MXNet's output 0")
    t = "integers exactly (vs the exact result: MXNet's op on split weights); float ranges 1e-6/1e-7"
    if ours.ok and not mx_off.ok:
        rep.add("op", group, name, "forward", cmp, status="deviation", tol=t,
                note="op %s: %s" % (op, INT8_DEVIATION % mx_off.max_abs))
    else:
        rep.add("op", group, name, "forward", ours if not ours.ok else cmp, tol=t, note="op " + op)
    return True


_MX_INT8_EXACT = []


def mxnet_int8_exact():
    """Whether MXNet's int8 kernels on this CPU give exact integer results: a probe of
    quantized_fully_connected and quantized_conv on uint8 data and int8 weights at their
    extremes (every product pair beyond int16), against refs_quant.exact_outputs. 16 channels
    in and out: MXNet's oneDNN 2.4.4 takes its VNNI kernels for those where the CPU has VNNI
    (for num_filter 8 it picks the saturating jit_uni_int8:avx2 kernel even there)."""
    if not _MX_INT8_EXACT:
        rng = np.random.RandomState(0)

        def t(a, dt):
            return {"shape": list(a.shape), "dtype": dt, "data": a.ravel().tolist()}
        x = rng.choice([254, 255], (4, 64)).astype(np.int64)
        w = rng.choice([-128, 127], (16, 64)).astype(np.int64)
        r = [t(np.array([v], dtype=np.float64), "float32") for v in (0.0, 1.0, -1.0, 1.0)]
        cases = [{"op": "_contrib_quantized_fully_connected", "attrs": {"num_hidden": "16", "no_bias": "True"},
                  "inputs": [t(x, "uint8"), t(w, "int8")] + r},
                 {"op": "_contrib_quantized_conv",
                  "attrs": {"kernel": "(3, 3)", "num_filter": "16", "pad": "(1, 1)", "no_bias": "True"},
                  "inputs": [t(rng.choice([254, 255], (1, 16, 5, 5)), "uint8"),
                             t(rng.choice([-128, 127], (16, 16, 3, 3)), "int8")] + r}]
        ok = True
        for c in cases:
            got = refs_quant.run_case(mx, {"op": c["op"], "attrs": c["attrs"], "inputs": [
                (np.array(i["data"]).reshape(i["shape"]).astype(i["dtype"]), i["dtype"]) for i in c["inputs"]]})
            ex = refs_quant.exact_outputs(mx, c)
            ok = ok and "error" not in got and ex is not None and got["outputs"][0]["data"] == ex[0]["data"]
        _MX_INT8_EXACT.append(ok)
    return _MX_INT8_EXACT[0]


def check_ops(refs, work, rep):
    jobs = op_jobs(refs)
    path = os.path.join(work, "ops_in.json")
    with open(path, "w") as f:
        json.dump({"cases": [j[4] for j in jobs]}, f)
    res = dump("ops", path, os.path.join(work, "ops_out.json"))["results"]
    ours_ops = set()
    for (family, file, name, op, _, c, tol, opt), r in zip(jobs, res):
        group = "%s/%s" % (family, file)
        ours_ops.add(op)
        if "expect_error" in opt:
            what = "rejects like MXNet" if not opt.get("ours_error") else "rejects (MXNet does not check)"
            if "error" in r:
                rep.add("op", group, name, what, status="pass", note="ours: " + r["error"].splitlines()[0][:120])
            else:
                rep.add("op", group, name, what, status="fail",
                        note="accepted; " + (("MXNet: " + opt["expect_error"][:120]) if opt["expect_error"]
                                             else opt.get("ours_error", "")))
            continue
        if "error" in r:
            rep.error("op", group, name, "forward", r["error"])
            if c.get("grads"):
                rep.error("op", group, name, "gradient", "forward failed")
            continue
        cmp = Cmp()
        outs = r["outputs"]
        if len(outs) != len(c["outputs"]):
            cmp.fail("%d outputs, MXNet %d" % (len(outs), len(c["outputs"])))
        for k, (o, w) in enumerate(zip(outs, c["outputs"])):
            if w is None:
                continue
            rt, at = tol(w, op, False)
            cmp.add(o, w, rt, at, "output %d" % k, dtype=opt.get("dtype", True))
        tols = ["%g/%g" % tol(w, op, False) for w in c["outputs"] if w]
        for idx, w in (opt.get("aux") or {}).items():
            cmp.add(r["inputs_after"][int(idx)], w, 1e-5, 1e-6, "aux input %s after the call" % idx)
        if opt.get("exact") and check_int8_exact(rep, group, name, op, c, outs, tol, cmp):
            continue
        rep.add("op", group, name, "forward", cmp, tol="rtol/atol " + ", ".join(sorted(set(tols))), note="op " + op)
        if not c.get("grads"):
            continue
        if "grad_error" in r:
            rep.error("op", group, name, "gradient", r["grad_error"])
            continue
        cmp = Cmp()
        tols = set()
        for i, w in enumerate(c["grads"]):
            if w is None:
                continue
            g = r["grads"][i] if i < len(r["grads"]) else None
            if g is None and not to_np(w).any():
                g = dict(w)  # no gradient = zeros: MXNet's x.grad of an input the output ignores
                cmp.notes.append("input %d: no gradient (MXNet's is all zeros)" % i)
            if g is None:
                cmp.fail("no gradient for input %d" % i)
                continue
            rt, at = tol(w, op, True)
            tols.add("%g/%g" % (rt, at))
            cmp.add(g, w, rt, at, "gradient of input %d" % i, dtype=opt.get("grad_dtype", True))
        if opt.get("grad_bug"):
            why, fix = opt["grad_bug"]
            fixed = Cmp()
            for i, w in enumerate(fix(c)):
                if w is not None:
                    fixed.add(r["grads"][i], w, 0.0, 1e-5, "gradient of input %d vs the corrected value" % i,
                              dtype=False)
            mx_note = "; ".join(cmp.notes)
            cmp.notes, cmp.ok = fixed.notes, fixed.ok
            rep.add("op", group, name, "gradient", cmp, status="deviation" if fixed.ok else "fail",
                    tol="corrected value: atol 1e-5",
                    note="%s (vs MXNet: %s)" % (why, mx_note) if fixed.ok else why)
        else:
            rep.add("op", group, name, "gradient", cmp, tol="rtol/atol " + ", ".join(sorted(tols)), note="op " + op)

    # The fused optimizer update ops: three in-place updates each.
    def otol(w):
        t = w.get("dtype")
        return (2e-3, 2e-3) if t == "float16" else (1e-12, 1e-12) if t == "float64" else (2e-6, 1e-6)

    optim_cases = []
    for f in ["ops", "multi2"]:  # multi2: fused AdamW/LAMB/group AdaGrad (refs_optim_multi2.py)
        doc_path = os.path.join(refs, "optim", "ndarray", "ops", "testdata", "optim", f + ".json")
        res = dump("optim", doc_path, os.path.join(work, "optim_%s_out.json" % f))["results"]
        optim_cases += list(zip(load_json(doc_path)["cases"], res))
    for c, r in optim_cases:
        ours_ops.add(c["op"])
        check = "3 in-place updates" if not c.get("single") else "1 in-place update"
        if "error" in r:
            rep.error("op", "optim/ops", c["name"], check, r["error"])
            continue
        cmp = Cmp()
        for t, (step, mine) in enumerate(zip(c["steps"], r["steps"])):
            cmp.add(mine["out"], step["out"], *otol(step["out"]), what="step %d out" % (t + 1))
            for idx, w in step.get("mutated", {}).items():
                cmp.add(mine["args"][int(idx)], w, *otol(w), what="step %d input %s" % (t + 1, idx))
        rep.add("op", "optim/ops", c["name"], check, cmp, tol="rtol/atol by dtype (2e-6/1e-6 float32)",
                note="op " + c["op"])
    return ours_ops


def sparse_entries_cmp(cmp, ours, want, rtol, atol, what):
    """csr stored entries: the same (row, col) positions (sorted: MXNet's C+C leaves a row's
    columns in merge order), values within tolerance."""
    o = sorted((e[0], e[1], e[2]) for e in ours.get("entries", []))
    w = sorted((e[0], e[1], e[2]) for e in want.get("entries", []))
    if [e[:2] for e in o] != [e[:2] for e in w]:
        return cmp.fail("%s: stored positions differ (%d here, %d MXNet)" % (what, len(o), len(w)))
    cmp.add({"shape": [len(o)], "data": [e[2] for e in o]}, {"shape": [len(w)], "data": [e[2] for e in w]},
            rtol, atol, what + " stored values")


def check_sparse(refs, work, rep):
    """csr / row_sparse ops (//ndarray/ops/sparse): the output storage type, dtype, values and
    stored parts of every case of gen_sparse_elemwise_refs.py and gen_sparse_graph_refs.py;
    MXNet's errors; our documented deviations against MXNet's dense result; the samplers' random
    draws by gen_sparse_graph_refs.check_sample_invariants. Returns the ops covered."""
    import gen_sparse_graph_refs
    ops = set()
    for f in ["elemwise", "graph"]:
        path = os.path.join(refs, "sparse", f + ".json")
        doc = load_json(path)
        res = dump("sparse", path, os.path.join(work, "sparse_%s_out.json" % f))["results"]
        group = "sparse/" + f
        for i, (c, r) in enumerate(zip(doc["cases"], res)):
            name = "%d %s %s [%s]" % (i, c["op"], json.dumps(c["attrs"], sort_keys=True),
                                      ", ".join(x["stype"] for x in c["inputs"]))
            ops.add(c["op"])
            if "mxnet_error" in c and "deviation" not in c:
                ok = "error" in r
                note = ("ours: " + r["error"].splitlines()[0][:120]) if ok else \
                    "accepted; MXNet: " + c["mxnet_error"][:120]
                rep.add("op", group, name, "rejects like MXNet", status="pass" if ok else "fail", note=note)
                continue
            if "error" in r:
                rep.error("op", group, name, "stype and values", r["error"])
                continue
            outs = r["outputs"]
            wants = c["outputs"] if "outputs" in c else [c["dense"] if "deviation" in c else c["output"]]
            cmp = Cmp()
            exact = f == "graph" or c["op"] not in {"cbrt", "sin", "tan", "arcsin", "arctan", "sinh", "tanh",
                                                      "arcsinh", "arctanh", "expm1", "log1p", "degrees",
                                                      "radians", "exp", "cos", "sigmoid"}
            rt, at = (0.0, 0.0) if exact else (2e-7, 1e-9)
            if len(outs) != len(wants):
                cmp.fail("%d outputs, MXNet %d" % (len(outs), len(wants)))
            n_ids = len(outs) // (4 if "non_uniform" in c["op"] else 3)
            for k, (o, w) in enumerate(zip(outs, wants)):
                what = "output %d" % k
                want_stype = c["ours_stype"] if "deviation" in c else w["stype"]
                if o["stype"] != want_stype:
                    cmp.fail("%s: stype %s, %s %s" % (what, o["stype"], "expected" if "deviation" in c else "MXNet",
                                                      want_stype))
                if w.get("unwritten"):  # graph_compact's mapping: ours holds the parent's edge ids
                    parent = c["inputs"][0]["data"]
                    pos = sorted(e[:2] for e in outs[k - len(outs) // 2].get("entries", []))
                    got = sorted(o.get("entries", []))
                    if [e[:2] for e in got] != pos or [e[2] for e in got] != parent[:len(got)]:
                        cmp.fail("%s: not the parent's edge ids at the compacted positions" % what)
                    continue
                if c.get("random"):
                    continue
                valid = (c.get("valid") or [None] * len(outs))[k]
                keep = list(range(len(w["values"])))
                if valid is not None:  # the samplers: entries past the vertex count are undefined
                    keep = list(range(valid)) + ([len(w["values"]) - 1] if k < n_ids else [])
                dense_o = {"shape": [len(keep)], "dtype": o["dtype"], "values": [o["values"][j] for j in keep]}
                dense_w = {"shape": [len(keep)], "dtype": w["dtype"], "values": [w["values"][j] for j in keep]}
                if o["shape"] != w["shape"]:
                    cmp.fail("%s: shape %s, MXNet %s" % (what, o["shape"], w["shape"]))
                elif len(o["values"]) == len(w["values"]):
                    cmp.add(dense_o, dense_w, rt, at, what)
                if "entries" in w and o["stype"] == "csr" and "deviation" not in c:
                    sparse_entries_cmp(cmp, o, w, rt, at, what)
                if "indices" in w and o["stype"] == "row_sparse":
                    if o["indices"] != w["indices"]:
                        cmp.fail("%s: stored rows %s, MXNet %s" % (what, o["indices"], w["indices"]))
                    else:
                        cmp.add({"shape": [len(o["data"])], "data": o["data"]},
                                {"shape": [len(w["data"])], "data": w["data"]}, rt, at, what + " stored rows")
            if c.get("random"):
                try:
                    a = c["attrs"]
                    prob = [float(x) for x in c["inputs"][1]["values"]] if "non_uniform" in c["op"] else None
                    gen_sparse_graph_refs.check_sample_invariants(
                        c["inputs"][0], outs, int(a["num_hops"]), int(a["num_neighbor"]), int(a["max_num_vertices"]),
                        [int(x) for x in c["inputs"][-1]["values"]], prob=prob)
                except AssertionError as e:
                    cmp.fail("sampling invariants: %s" % (e,))
            check = "random draw: invariants" if c.get("random") else "stype and values"
            if any(w.get("unwritten") for w in wants):
                rep.add("op", group, name, check, cmp, status="deviation" if cmp.ok else "fail", tol="exact",
                        note="MXNet 1.9.1 leaves graph_compact's mapping outputs unwritten (empty csr); ours hold "
                             "the parent's edge ids")
            elif "deviation" in c:
                rep.add("op", group, name, check, cmp, status="deviation" if cmp.ok else "fail",
                        tol="MXNet's dense result", note=c["deviation"])
            else:
                rep.add("op", group, name, check, cmp,
                        tol="exact" if exact else "rtol/atol %g/%g" % (rt, at), note="op " + c["op"])
    return ops


# =============================================================================================
# Gluon: layers, losses, initializers, optimizers, the seeds' Model.
# =============================================================================================
def apply_expect(c):
    """gen_layer_refs.py's "expect" overrides (MXNet 1.9.1 bugs): the corrected reference."""
    want = json.loads(json.dumps(c))
    for field, v in c.get("expect", {}).items():
        if field == "why":
            continue
        if "." in field:
            a, b = field.split(".", 1)
            want[a][b] = v
        else:
            want[field] = v
    return want


def check_layers(refs, work, rep):
    d = os.path.join(refs, "layers")
    ref = {c["name"]: c for c in load_json(os.path.join(d, "refs.json"))["cases"]}
    res = dump("layers", d, os.path.join(work, "layers_out.json"))["results"]
    ht = "our HybridConcurrent is MXNet 2's HybridConcatenate"
    for r in res:
        c = ref[r["name"]]
        mode = "hybridized" if r["hybridized"] else "imperative"
        group = "gluon.nn (%s)" % mode
        if "error" in r:
            rep.error("layer", group, r["name"], "forward", r["error"])
            rep.error("layer", group, r["name"], "gradient", "forward failed")
            continue
        want = apply_expect(c)
        why = c.get("expect", {}).get("why")
        # Forward: parameter names/shapes/grad_req from MXNet's file, output, running stats, repr.
        cmp = Cmp()
        names = [(p["name"], p["shape"], p["grad_req"] == "null") for p in c["params"]]
        ours = [(p["name"], p["shape"], p["grad_req_null"]) for p in r["params"]]
        if names != ours:
            cmp.fail("parameters %s, MXNet %s" % (ours, names))
        mx_cmp = Cmp()  # against MXNet's own values (differs from cmp only where "expect" corrects MXNet)
        for ref_, k in ((want, cmp), (c, mx_cmp)):
            k.add(r["output"], ref_["output"], 1e-4, 1e-5, "output")
            for pname, w in ref_["params_after"].items():
                k.add(r["params_after"].get(pname), w, 1e-5, 1e-6, pname + " after the step")
        dev = want["params_after"] != c["params_after"]
        for key in ("repr_init", "repr"):
            if r[key] != c[key].replace("HybridConcurrent", "HybridConcatenate"):
                cmp.fail("%s %r, MXNet %r" % (key, r[key], c[key]))
        note = ht if "HybridConcurrent" in c["repr"] else ""
        tol = "rtol/atol 1e-4/1e-5 (stats 1e-5/1e-6)"
        if dev:
            rep.add("layer", group, r["name"], "forward", status="deviation" if cmp.ok else "fail", tol=tol,
                    note="; ".join([why] + cmp.notes), max_abs=mx_cmp.max_abs, max_rel=mx_cmp.max_rel)
        else:
            rep.add("layer", group, r["name"], "forward", cmp, tol=tol, note=note)
        # Gradient: input and parameter gradients.
        cmp, mx_cmp = Cmp(), Cmp()
        for ref_, k in ((want, cmp), (c, mx_cmp)):
            if c["input_grad"] is not None:
                k.add(r.get("input_grad"), ref_["input_grad"], 1e-4, 1e-5, "input gradient")
            for pname, w in ref_["param_grads"].items():
                k.add(r["param_grads"].get(pname), w, 1e-4, 1e-5, pname + " gradient")
        dev = want["input_grad"] != c["input_grad"] or want["param_grads"] != c["param_grads"]
        if dev:
            rep.add("layer", group, r["name"], "gradient", status="deviation" if cmp.ok else "fail",
                    tol="rtol/atol 1e-4/1e-5 vs the corrected value", note="; ".join([why] + cmp.notes),
                    max_abs=mx_cmp.max_abs, max_rel=mx_cmp.max_rel)
        else:
            rep.add("layer", group, r["name"], "gradient", cmp, tol="rtol/atol 1e-4/1e-5")


def check_losses(refs, work, rep):
    path = os.path.join(refs, "loss", "losses.json")
    ref = {c["name"]: c for c in load_json(path)["cases"]}
    for r in dump("losses", path, os.path.join(work, "losses_out.json"))["results"]:
        c = ref[r["name"]]
        group = "gluon.loss (%s)" % ("hybridized" if r["hybridized"] else "imperative")
        name = "%s %s" % (r["name"], c["loss"])
        if "error" in r:
            rep.error("loss", group, name, "forward", r["error"])
            continue
        cmp = Cmp()
        cmp.add(r["output"], c["output"], 1e-5, 1e-6, "loss")
        if r["repr"] != c["repr"]:
            cmp.fail("repr %r, MXNet %r" % (r["repr"], c["repr"]))
        rep.add("loss", group, name, "forward", cmp, tol="rtol/atol 1e-5/1e-6")
        if c["head_grad"] is None:
            continue
        cmp = Cmp()
        for i, w in enumerate(c["grads"]):
            if w is not None:
                cmp.add(r["grads"][i], w, 1e-4, 1e-6, "gradient of input %d" % i)
        rep.add("loss", group, name, "gradient", cmp, tol="rtol/atol 1e-4/1e-6")


def check_init(refs, work, rep):
    path = os.path.join(refs, "init", "init_refs.json")
    doc = load_json(path)
    out = dump("init", path, os.path.join(work, "init_out.json"))
    for w, o in zip(doc["stats"], out["stats"]):
        name = "%s %s %s" % (w["spec"], w["param"], tuple(w["shape"]))
        if "error" in o:
            rep.error("init", "distribution", name, "statistics", o["error"])
            continue
        cmp = Cmp()
        se = w["std"] / math.sqrt(o["n"])
        d_std, d_mean, d_abs = abs(o["std"] - w["std"]), abs(o["mean"] - w["mean"]), abs(o["mean_abs"] - w["mean_abs"])
        cmp.max_abs, cmp.scale = max(d_std, d_mean, d_abs), w["std"]
        if d_std > 0.03 * w["std"]:
            cmp.fail("std off by more than 3%")
        if d_mean > 8 * se:
            cmp.fail("mean %.3g, MXNet %.3g (> 8 standard errors)" % (o["mean"], w["mean"]))
        if d_abs > 0.03 * w["mean_abs"]:
            cmp.fail("mean |x| %.4g, MXNet %.4g" % (o["mean_abs"], w["mean_abs"]))
        spec = w["spec"]
        if "uniform" in spec and "orthogonal" not in spec:
            bound = max(abs(w["min"]), abs(w["max"]))
            if o["max"] > bound * 1.001 or o["min"] < -bound * 1.001:
                cmp.fail("support [%.4g, %.4g] beyond MXNet's +-%.4g" % (o["min"], o["max"], bound))
        if "gram_dev" in w:
            if o["gram_dev"] > 1e-5 * max(1.0, 4.0):
                cmp.fail("not orthogonal: max |G - s^2 I| = %.3g" % o["gram_dev"])
            if abs(o["sumsq"] - w["sumsq"]) > 1e-4 * w["sumsq"]:
                cmp.fail("sum of squares %.6g, MXNet %.6g" % (o["sumsq"], w["sumsq"]))
        rel = max(d_std / w["std"], d_abs / w["mean_abs"])
        rep.add("init", "distribution", name, "statistics", cmp, max_rel=rel,
                tol="std, mean|x| within 3%; mean within 8 SE",
                note="std %.4g, MXNet %.4g" % (o["std"], w["std"]))
    for w, o in zip(doc["exact"], out["exact"]):
        name = "%s %s %s" % (w["spec"], w["param"], tuple(w["shape"]))
        if "error" in o:
            rep.error("init", "exact values", name, "values", o["error"])
            continue
        cmp = Cmp()
        ours = [float(np.float32(x)) for x in o["data"]]
        cmp.exact(ours, [float(np.float32(x)) for x in w["data"]], "values")
        rep.add("init", "exact values", name, "values", cmp, tol="exact")
    for spec, text in doc["dumps"].items():
        cmp = Cmp()
        if out["dumps"].get(spec) != text:
            cmp.fail("dumps() %r, MXNet %r" % (out["dumps"].get(spec), text))
        rep.add("init", "dumps()", spec, "text", cmp, tol="exact", max_abs=None, max_rel=None)


def check_optimizers(refs, work, rep):
    path = os.path.join(refs, "optim", "gluon", "training", "testdata", "optimizers.json")
    doc = load_json(path)
    out = dump("optimizers", path, os.path.join(work, "optimizers_out.json"))
    covered = set()
    for c, r in zip(doc["cases"], out["results"]):
        covered.add(c["optimizer"])
        if "error" in r:
            rep.error("optimizer", c["optimizer"], c["name"], "3 updates", r["error"])
            continue
        cmp = Cmp()
        f16 = c["weight"]["dtype"] == "float16"
        rt, at = (2e-3, 2e-3) if f16 else (1e-5, 2e-6)
        for t, (w, o) in enumerate(zip(c["weights"], r["weights"])):
            cmp.add(o, w, rt, at, "weight after update %d" % (t + 1))
        if c.get("lrs") is not None:
            for t, (w, o) in enumerate(zip(c["lrs"], r["lrs"])):
                if abs(w - o) > 1e-12:
                    cmp.fail("learning rate after update %d: %r, MXNet %r" % (t + 1, o, w))
        rep.add("optimizer", c["optimizer"], c["name"], "3 updates", cmp, tol="rtol/atol %g/%g" % (rt, at))
    for n in out["registered"]:
        if n not in covered:
            rep.add("optimizer", n, n, "coverage", status="fail", note="registered but no MXNet case")


def seeds_model(refs, work, rep):
    """The seeds' Model: MXNet's save_parameters/export -> ours, ours -> MXNet."""
    d = os.path.join(refs, "gluon")
    ref = load_json(os.path.join(d, "model.json"))
    prefix = os.path.join(work, "ourmodel")
    r = dump("model", d, os.path.join(work, "model_out.json"), prefix)
    g_in, g_out = "file:mx->ours", "file:ours->mx"
    arr = lambda v, shape: {"shape": list(shape), "data": v}  # noqa: E731
    if "error" in r:
        rep.error("layer", "seeds Model", "Model (2 x Dense(20) + relu)", "forward", r["error"])
        return
    n = len(ref["input"]) // 10
    cmp = Cmp().add(r["output"], arr(ref["output"], (n, 20)), 1e-5, 1e-6, "output", dtype=False)
    cmp.add(r["output_hybridized"], arr(ref["output_hybridized"], (n, 20)), 1e-5, 1e-6, "hybridized", dtype=False)
    rep.add("layer", "seeds Model", "Model (2 x Dense(20) + relu)", "forward", cmp, tol="rtol/atol 1e-5/1e-6")
    cmp = Cmp().add(r["input_grad"], arr(ref["input_grad"], (n, 10)), 1e-5, 1e-6, "input grad", dtype=False)
    for k, v in ref["param_grads"].items():
        g = r["param_grads"].get(k)
        if g is None or len(v) != int(np.prod(g["shape"])):
            cmp.fail("%s: no gradient of MXNet's size %d" % (k, len(v)))
            continue
        cmp.add(g, arr(v, g["shape"]), 1e-5, 1e-6, k, dtype=False)
    rep.add("layer", "seeds Model", "Model (2 x Dense(20) + relu)", "gradient", cmp, tol="rtol/atol 1e-5/1e-6")
    rep.add(g_in, ".params", "model.params (MXNet save_parameters, structured names) -> our load_parameters",
            "outputs, gradients", cmp=Cmp().add(r["output"], arr(ref["output"], (n, 20)), 1e-5, 1e-6, dtype=False),
            tol="rtol/atol 1e-5/1e-6")
    # MXNet's export -> `mxnet predict`.
    x = mx.nd.array(np.array(ref["input"], dtype=np.float32).reshape(n, 10))
    predict_file(rep, "gluon model-symbol.json + model-0000.params (MXNet export) -> mxnet predict",
                 os.path.join(d, "model-symbol.json"), os.path.join(d, "model-0000.params"), x,
                 np.array(ref["output_hybridized"]).reshape(n, 20), work, "seeds", tol=1e-5)
    # Ours -> MXNet: save_parameters into MXNet's own Model; export into SymbolBlock.imports.
    from mxnet import gluon
    from mxnet.gluon import nn

    class Model(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(Model, self).__init__(**kwargs)
            with self.name_scope():
                self.dense0 = nn.Dense(20)
                self.dense1 = nn.Dense(20)

        def hybrid_forward(self, F, x):
            return F.relu(self.dense1(F.relu(self.dense0(x))))

    ours = to_np(r["output"])
    try:
        m = Model()
        m.load_parameters(prefix + ".params")
        cmp = close_to(ours, m(x).asnumpy(), Cmp(), "MXNet Model with our parameters", 1e-5)
        rep.add(g_out, ".params", "our save_parameters of the seeds' Model -> MXNet load_parameters",
                "outputs", cmp, tol="max rel 1e-5")
    except Exception as e:  # noqa: BLE001
        rep.error(g_out, ".params", "our save_parameters of the seeds' Model -> MXNet load_parameters", "load", e)
    try:
        b = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
        cmp = close_to(ours, b(x).asnumpy(), Cmp(), "MXNet SymbolBlock of our export", 1e-5)
        rep.add(g_out, "-symbol.json", "our export_model of the seeds' Model -> MXNet SymbolBlock.imports",
                "outputs", cmp, tol="max rel 1e-5")
    except Exception as e:  # noqa: BLE001
        rep.error(g_out, "-symbol.json", "our export_model of the seeds' Model -> MXNet SymbolBlock.imports",
                  "load", e)


# =============================================================================================
# Model zoo.
# =============================================================================================
def predict_file(rep, name, symbol, params, x, want, work, tag, tol=1e-4):
    """`mxnet predict` (our SymbolBlock) on an MXNet-written export vs MXNet's output."""
    xin, yout = os.path.join(work, tag + "-in.nd"), os.path.join(work, tag + "-out.nd")
    mx.nd.save(xin, {"data": x})
    p = subprocess.run([CLI, "predict", "--symbol", symbol, "--params", params, "--input", xin, "--output", yout],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    if p.returncode != 0:
        rep.error("file:mx->ours", "-symbol.json", name, "outputs", p.stdout.decode(errors="replace"))
        return
    y = list(mx.nd.load(yout).values())[0].asnumpy()
    rep.add("file:mx->ours", "-symbol.json", name, "outputs", close_to(y, want, Cmp(), "output", tol),
            tol="max rel %g" % tol)


def set_deterministic(net, x):
    net.initialize(mx.init.Zero())
    net(x)
    for k, p in net._collect_params_with_prefix().items():
        p.set_data(mx.nd.array(modelzoo_weights.values(k, p.shape), dtype="float32"))


def check_nets(refs, work, rep, which):
    from mxnet import gluon
    d = os.path.join(refs, "modelzoo", "nets")
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    if which not in ("all", "none"):
        names = [n for n in names if n in which.split(",")]
    if which == "none":
        names = []
    for name in names:
        ref = load_json(os.path.join(d, name + ".json"))
        size = ref["test_input"][2]
        prefix = os.path.join(work, "net-" + name)
        try:
            run([EXPORT, name, str(size), prefix, "mxnet1"], os.path.join(work, "export-%s.log" % name))
            io_ = mx.nd.load(prefix + "-io.params")
            x, ours = io_["data"], io_["output"].asnumpy()
            want = np.array(ref["test_output"], dtype=np.float64).reshape(ref["test_output_shape"])
            rep.add("modelzoo", "vision", name, "output (hybridized) at %s" % (tuple(ref["test_input"]),),
                    close_to(ours, want, Cmp(), "output"), tol="max rel 1e-4")
        except Exception as e:  # noqa: BLE001
            rep.error("modelzoo", "vision", name, "output (hybridized) at %s" % (tuple(ref["test_input"]),), e)
            continue
        try:
            block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
            got = block(x).asnumpy()
            rep.add("file:ours->mx", "model-zoo export", "%s export_model -> MXNet SymbolBlock.imports" % name,
                    "outputs", close_to(ours, got, Cmp(), "MXNet on our export"), tol="max rel 1e-4")
        except Exception as e:  # noqa: BLE001
            rep.error("file:ours->mx", "model-zoo export", "%s export_model -> MXNet SymbolBlock.imports" % name,
                      "load", e)
        check_mxnet1_names(rep, name, prefix, x, ours)
        for suffix in ("-symbol.json", "-0000.params", "-io.params", "-mx1-symbol.json",
                       "-mx1-0000.params", "-mx1.params"):
            if os.path.exists(prefix + suffix):
                os.remove(prefix + suffix)


def check_mxnet1_names(rep, name, prefix, x, ours):
    """Our files with MXNet 1.x parameter names (export_tool ... mxnet1) -> MXNet 1.9.1: the
    export's names are those of MXNet's own net (collect_params() of get_model(name) in a fresh
    name scope) and SymbolBlock.imports runs it; MXNet's net.load_parameters reads our
    save_parameters(kMxnet1Stripped) file (its legacy save_params path) and gives our output."""
    from mxnet import gluon
    from mxnet.gluon.model_zoo import vision
    label = "%s export_model/save_parameters (MXNet 1.x names) -> MXNet" % name
    try:
        with mx.name.NameManager():
            net = vision.get_model(name)
        theirs = set(net.collect_params().keys())
        keys = set(k[4:] for k in mx.nd.load(prefix + "-mx1-0000.params").keys())
        if keys != theirs:
            raise AssertionError("names differ: ours only %s, MXNet only %s" % (
                sorted(keys - theirs)[:3], sorted(theirs - keys)[:3]))
        block = gluon.SymbolBlock.imports(prefix + "-mx1-symbol.json", ["data"],
                                          prefix + "-mx1-0000.params")
        cmp = close_to(ours, block(x).asnumpy(), Cmp(), "MXNet SymbolBlock on our 1.x-named export")
        net.load_parameters(prefix + "-mx1.params")
        net.hybridize()
        close_to(ours, net(x).asnumpy(), cmp, "MXNet load_parameters of our save_params-style file")
        rep.add("file:ours->mx", "model-zoo 1.x names", label, "names = MXNet's; outputs", cmp,
                tol="max rel 1e-4")
    except Exception as e:  # noqa: BLE001
        rep.error("file:ours->mx", "model-zoo 1.x names", label, "names/outputs", e)


MX_EXPORTS = [("resnet18_v1", 32), ("mobilenetv2_1.0", 32), ("vgg11_bn", 32), ("squeezenet1.1", 224)]


def check_mx_exports(work, rep):
    """Model-zoo nets exported by MXNet (deterministic weights) -> `mxnet predict`."""
    from mxnet.gluon.model_zoo import vision
    for name, size in MX_EXPORTS:
        label = "%s (MXNet export at %dx%d) -> mxnet predict" % (name, size, size)
        try:
            net = vision.get_model(name)
            x = mx.nd.array(modelzoo_weights.values("input", (1, 3, size, size)), dtype="float32")
            set_deterministic(net, x)
            net.hybridize()
            y = net(x).asnumpy()
            prefix = os.path.join(work, "mxexport-" + name)
            net.export(prefix)
            predict_file(rep, label, prefix + "-symbol.json", prefix + "-0000.params", x, y, work, "mx-" + name)
            for suffix in ("-symbol.json", "-0000.params"):
                os.remove(prefix + suffix)
        except Exception as e:  # noqa: BLE001
            rep.error("file:mx->ours", "-symbol.json", label, "outputs", e)


def torch_python(mode):
    """The PyTorch venv's python for the torchvision ONNX group, or None. mode "yes": build it
    (setup_torch_venv.sh, ~6 GB); "auto": use it when it exists; "no": skip."""
    if mode == "no":
        return None
    venv = os.environ.get("MXNET_TORCH_VENV", os.path.expanduser("~/.cache/mxnet-torch-venv"))
    if mode == "auto" and not os.path.exists(os.path.join(venv, "bin", "python")):
        log("report: no PyTorch venv at %s: the torchvision ONNX group is skipped "
            "(tools/conformance/setup_torch_venv.sh or --torch yes builds it)" % venv)
        return None
    p = subprocess.run([os.path.join(HERE, "setup_torch_venv.sh")], stdout=subprocess.PIPE, check=True)
    return p.stdout.decode().strip().splitlines()[-1]


def check_onnx(work, rep, which, torch_mode="auto"):
    """ONNX (onnx_check.py): our exports of the model-zoo nets run by ONNX Runtime vs our forward,
    onnx.checker, our import vs ONNX Runtime; MXNet's mx.onnx exports -> ONNX Runtime and ours;
    torchvision's torch.onnx exports -> ONNX Runtime, PyTorch and our import."""
    import onnx_check
    names = None if which == "all" else ([] if which == "none" else which.split(","))
    d = os.path.join(work, "onnx")
    os.makedirs(d, exist_ok=True)
    for group, name, check, err, note, _ in onnx_check.check_all(CLI, d, names,
                                                                 torch_py=torch_python(torch_mode)):
        if err is None:
            rep.add("onnx", group, name, check, status="fail", note=note)
        else:
            rep.add("onnx", group, name, check, status="pass" if err < onnx_check.TOL else "fail",
                    tol="max rel %g" % onnx_check.TOL, max_abs=None, max_rel=err, note=note)


def check_mzload(refs, work, rep):
    """MXNet save_parameters of small model-zoo nets -> ours; our save_parameters -> MXNet."""
    from mxnet.gluon.model_zoo import vision
    d = os.path.join(refs, "modelzoo", "load")
    cases = load_json(os.path.join(d, "cases.json"))
    for name, c in cases.items():
        x = modelzoo_weights.values("input", tuple(c["input_shape"]))
        mx.nd.save(os.path.join(work, name + "-input.nd"), {"input": mx.nd.array(x)})
    res = dump("mzload", d, work, os.path.join(work, "mzload_out.json"))["results"]
    builders = {  # gen_modelzoo_refs.py LOAD_CASES
        "mobilenet0.25_c10": lambda: vision.get_model("mobilenet0.25", classes=10),
        "resnet_v1_tiny": lambda: vision.ResNetV1(vision.BasicBlockV1, [1, 1, 1, 1], [8, 8, 16, 32, 64],
                                                  classes=10, thumbnail=True),
        "resnet_v1b_tiny": lambda: vision.ResNetV1(vision.BottleneckV1, [1, 2], [16, 32, 64], classes=10),
        "resnet_v2_tiny": lambda: vision.ResNetV2(vision.BottleneckV2, [1, 2], [16, 32, 64], classes=10),
        "resnet_v2b_tiny": lambda: vision.ResNetV2(vision.BasicBlockV2, [2, 1], [8, 8, 16], classes=10,
                                                   thumbnail=True),
        "densenet_tiny": lambda: vision.DenseNet(8, 4, [2, 2], bn_size=2, dropout=0.1, classes=10),
    }
    for r in res:
        name = r["name"]
        c = cases[name]
        label_in = "%s.params (MXNet save_parameters: %s) -> our load_parameters" % (name, c.get("constructor", name))
        if "error" in r:
            rep.error("file:mx->ours", "model-zoo .params", label_in, "outputs", r["error"])
            continue
        ours = mx.nd.load(os.path.join(work, name + "-ours.nd"))
        shape = c["output_shape"]
        cmp = Cmp()
        close_to(ours["imperative"].asnumpy(), np.array(c["output"]).reshape(shape), cmp, "imperative")
        close_to(ours["hybridized"].asnumpy(), np.array(c["output_hybridized"]).reshape(shape), cmp, "hybridized")
        rep.add("file:mx->ours", "model-zoo .params", label_in, "outputs (imperative, hybridized)", cmp,
                tol="max rel 1e-4")
        label_out = "%s: our save_parameters -> MXNet load_parameters" % name
        try:
            net = builders[name]()
            net.load_parameters(os.path.join(work, name + "-ours.params"))
            x = mx.nd.array(modelzoo_weights.values("input", tuple(c["input_shape"])))
            y = net(x).asnumpy()
            cmp = close_to(y, np.array(c["output"]).reshape(shape), Cmp(), "MXNet with our parameters")
            rep.add("file:ours->mx", "model-zoo .params", label_out, "outputs", cmp, tol="max rel 1e-4")
        except Exception as e:  # noqa: BLE001
            rep.error("file:ours->mx", "model-zoo .params", label_out, "load", e)


def check_cifar(work, rep, shared):
    """The real GluonCV CIFAR-10 ResNet-20 export (MXNet-written) -> `mxnet predict`."""
    from mxnet import gluon
    sym = os.path.join(shared, "data", "models", "cifar_resnet20_v1-symbol.json")
    params = os.path.join(shared, "data", "models", "cifar_resnet20_v1-0000.params")
    if not os.path.exists(sym):
        rep.add("file:mx->ours", "-symbol.json", "cifar_resnet20_v1 (GluonCV export)", "outputs", status="fail",
                note="missing " + sym)
        return
    net = gluon.SymbolBlock.imports(sym, ["data"], params)
    x = mx.nd.array(np.random.RandomState(3).uniform(-2, 2, size=(2, 3, 32, 32)).astype(np.float32))
    predict_file(rep, "cifar_resnet20_v1 (real GluonCV export) -> mxnet predict", sym, params, x,
                 net(x).asnumpy(), work, "cifar")


# =============================================================================================
# Files: NDArray containers both ways, the CLI's trained export.
# =============================================================================================
def check_read(refs, work, rep):
    """We read what MXNet (.nd) and numpy (.npy/.npz) write: exactly the manifest's values."""
    for sub, label in (("ndarray_files", ".nd (mx.nd.save / npx.save)"), ("npy_files", ".npy/.npz (numpy)")):
        d = os.path.join(refs, sub)
        man = load_json(os.path.join(d, "manifest.json"))["files"]
        files = sorted(man)
        res = dump("read", os.path.join(work, "read_%s.json" % sub), *[os.path.join(d, f) for f in files])
        for fn, r in zip(files, res["results"]):
            e = man[fn]
            cmp = Cmp()
            if "error" in e:
                if "error" in r:
                    rep.add("file:mx->ours", label, fn, "refused like expected", status="pass",
                            note="ours: " + r["error"][:120])
                else:
                    rep.add("file:mx->ours", label, fn, "refused like expected", status="fail",
                            note="accepted; expected an error about " + e["error"])
                continue
            if "error" in r:
                rep.error("file:mx->ours", label, fn, "exact values", r["error"])
                continue
            if r["kind"] != e["kind"]:
                cmp.fail("kind %s, want %s" % (r["kind"], e["kind"]))
            if r["names"] != list(e.get("names", [])):
                cmp.fail("names %s, want %s" % (r["names"], e.get("names")))
            if len(r["arrays"]) != len(e["arrays"]):
                cmp.fail("%d arrays, want %d" % (len(r["arrays"]), len(e["arrays"])))
            for i, (a, w) in enumerate(zip(r["arrays"], e["arrays"])):
                tag = "array %d" % i
                if a is None:
                    cmp.fail(tag + ": none")
                    continue
                if a["dtype"] != w["dtype"] or list(a["shape"]) != list(w["shape"]):
                    cmp.fail("%s: %s %s, want %s %s" % (tag, a["dtype"], a["shape"], w["dtype"], w["shape"]))
                    continue
                if a["stype"] != w.get("stype", "default"):
                    cmp.fail("%s: stype %s, want %s" % (tag, a["stype"], w.get("stype", "default")))
                cmp.exact(a["data"], w["values"], tag)
                if "bits" in w and a.get("bits") != w["bits"]:
                    cmp.fail(tag + ": bfloat16 bits differ")
            want_ver = e.get("record_version")
            if want_ver and r["arrays"] and r["arrays"][0] is not None:
                got = {1: "V1", 2: "V2", 3: "V3"}.get(r["arrays"][0]["record_version"], "legacy")
                if got != want_ver:
                    cmp.fail("record version %s, want %s" % (got, want_ver))
            rep.add("file:mx->ours", label, fn, "exact values", cmp, tol="exact")


def capture(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            rc = fn(*args)
        except Exception as e:  # noqa: BLE001
            print("MISMATCH exception: %s" % e)
            rc = 1
    return rc, buf.getvalue()


def check_written(refs, work, rep, shared):
    """MXNet (and numpy) read the NDArray files our writer makes (check_ours.sh's checks)."""
    out = os.path.join(work, "io")
    args = [WRITER, out, os.path.join(refs, "ndarray_files")]
    params = os.path.join(shared, "data", "models", "cifar_resnet20_v1-0000.params")
    if os.path.exists(params):
        args.append(params)
    run(args, os.path.join(work, "io_writer.log"))
    manifest = os.path.join(refs, "ndarray_files", "manifest.json")
    g = "file:ours->mx"

    def mism(text):
        return "; ".join(l for l in text.splitlines() if l.startswith("MISMATCH"))[:300]

    for f in sorted(os.listdir(os.path.join(out, "resaved"))):
        p = os.path.join(out, "resaved", f)
        rc, text = capture(check_read_ours.main, p, manifest)
        same_bytes = open(p, "rb").read() == open(os.path.join(refs, "ndarray_files", f), "rb").read()
        note = "" if rc == 0 else mism(text)
        if not same_bytes:
            note = (note + "; " if note else "") + "bytes differ from MXNet's file"
        rep.add(g, ".nd resaved", f, "mx.nd.load exact + same bytes as MXNet's",
                status="pass" if rc == 0 and same_bytes else "fail", note=note,
                max_abs=0.0 if rc == 0 else None, max_rel=0.0 if rc == 0 else None)
    for f in sorted(os.listdir(os.path.join(out, "fresh"))):
        if f.endswith(".json"):
            continue
        p = os.path.join(out, "fresh", f)
        rc, text = capture(check_read_ours.main, p, p + ".json")
        rep.add(g, ".nd written by us", f, "mx.nd.load exact", status="pass" if rc == 0 else "fail",
                note="" if rc == 0 else mism(text), max_abs=0.0 if rc == 0 else None,
                max_rel=0.0 if rc == 0 else None)
    for f in sorted(os.listdir(os.path.join(out, "numpy"))):
        if f.endswith(".json"):
            continue
        p = os.path.join(out, "numpy", f)
        rc, text = capture(check_npy_ours.main, p, p + ".json")
        rep.add(g, ".npy/.npz written by us", f, "numpy.load exact", status="pass" if rc == 0 else "fail",
                note="" if rc == 0 else mism(text), max_abs=0.0 if rc == 0 else None,
                max_rel=0.0 if rc == 0 else None)
    pdir = os.path.join(out, "params")
    for f in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
        cmp = Cmp()
        try:
            a, b = mx.nd.load(params), mx.nd.load(os.path.join(pdir, f))
            if list(a.keys()) != list(b.keys()):
                cmp.fail("names differ")
            for k in a:
                if k in b and (a[k].dtype != b[k].dtype or a[k].shape != b[k].shape or
                               a[k].asnumpy().tobytes() != b[k].asnumpy().tobytes()):
                    cmp.fail(k + " differs")
            cmp.max_abs = 0.0 if cmp.ok else None
        except Exception as e:  # noqa: BLE001
            cmp.fail(str(e).splitlines()[0])
        rep.add(g, ".params resaved", f + " (real GluonCV params, loaded and saved by us)",
                "mx.nd.load bit-exact vs the original", cmp, tol="exact")


def check_cli_train(work, rep, limit):
    """`mxnet train` exports a LeNet; MXNet imports it and matches `mxnet predict`; MXNet reads
    the checkpoint (save_parameters) and it holds the exported tensors."""
    from mxnet import gluon
    out = os.path.join(work, "train")
    label = "mxnet train (LeNet, 1 epoch, %d samples) export -> MXNet SymbolBlock.imports" % limit
    try:
        run([CLI, "train", "--epochs", "1", "--limit", str(limit), "--out", out,
             "--logdir", os.path.join(work, "train-tb")],
            os.path.join(work, "train.log"), timeout=1200)
    except Exception as e:  # noqa: BLE001
        rep.error("file:ours->mx", "CLI export", label, "outputs", e)
        return
    sym, params = os.path.join(out, "model-symbol.json"), os.path.join(out, "model-0000.params")
    x = mx.nd.array(np.random.RandomState(5).uniform(-1, 2, size=(8, 1, 28, 28)).astype(np.float32))
    xin, yout = os.path.join(work, "train-in.nd"), os.path.join(work, "train-out.nd")
    mx.nd.save(xin, {"data": x})
    try:
        subprocess.run([CLI, "predict", "--symbol", sym, "--params", params, "--input", xin, "--output", yout],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=ROOT)
        ours = list(mx.nd.load(yout).values())[0].asnumpy()
        theirs = gluon.SymbolBlock.imports(sym, ["data"], params)(x).asnumpy()
        rep.add("file:ours->mx", "CLI export", label, "outputs vs mxnet predict",
                close_to(ours, theirs, Cmp(), "MXNet on our export"), tol="max rel 1e-4")
    except Exception as e:  # noqa: BLE001
        rep.error("file:ours->mx", "CLI export", label, "outputs", e)
    label = "mxnet train checkpoint.params -> MXNet nd.load"
    cmp = Cmp()
    try:
        ck = mx.nd.load(os.path.join(out, "checkpoint.params"))
        ex = mx.nd.load(params)
        pool = {}
        for v in ex.values():
            pool.setdefault((v.shape, v.asnumpy().tobytes()), 0)
            pool[(v.shape, v.asnumpy().tobytes())] += 1
        for k, v in ck.items():
            key = (v.shape, v.asnumpy().tobytes())
            if pool.get(key, 0) == 0:
                cmp.fail("%s has no equal tensor in the export" % k)
            else:
                pool[key] -= 1
        if len(ck) != len(ex):
            cmp.fail("%d arrays, export has %d" % (len(ck), len(ex)))
        cmp.max_abs = 0.0 if cmp.ok else None
        rep.add("file:ours->mx", "CLI export", label, "same tensors as the export", cmp, tol="exact",
                note="" if not cmp.ok else "%d arrays" % len(ck))
    except Exception as e:  # noqa: BLE001
        rep.error("file:ours->mx", "CLI export", label, "load", e)


# =============================================================================================
# 5. Operators MXNet 1.9.1 registers that we do not.
# =============================================================================================
def mxnet_ops():
    """{canonical name: sorted names} for every MXNet op whose names are not all _backward_*."""
    from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str
    plist, size = ctypes.POINTER(ctypes.c_char_p)(), ctypes.c_uint()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(plist)))
    names = [py_str(plist[i]) for i in range(size.value)]
    groups = {}
    for n in names:
        h = OpHandle()
        check_call(_LIB.NNGetOpHandle(c_str(n), ctypes.byref(h)))
        groups.setdefault(h.value, []).append(n)
    out = {}
    for h, ns in groups.items():
        name, desc, key_var, ret = (ctypes.c_char_p() for _ in range(4))
        n_args = mx_uint()
        a_names, a_types, a_descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
        check_call(_LIB.MXSymbolGetAtomicSymbolInfo(
            OpHandle(h), ctypes.byref(name), ctypes.byref(desc), ctypes.byref(n_args), ctypes.byref(a_names),
            ctypes.byref(a_types), ctypes.byref(a_descs), ctypes.byref(key_var), ctypes.byref(ret)))
        canon = py_str(name.value)
        out[canon] = sorted(ns)
    return out


OUR_ATTRS = {}  # our canonical op name -> attribute names (filled by our_ops)
ATTR_QUIRKS = {  # MXNet registry metadata that does not describe what MXNet parses
    "_linspace": "MXNet 1.9.1 lists RangeParam's fields (step, repeat, infer_range) for _linspace but parses "
                 "LinspaceParam (start, stop, num, endpoint; 'step' is rejected): ours are the parsed ones",
    "_npi_concatenate": "MXNet 1.9.1 lists ConcatParam's 'dim' for _npi_concatenate but parses NumpyConcatenateParam "
                        "('axis'; dim=1 gives \"Cannot find argument 'dim'\"): ours is the parsed one",
}


def mxnet_attrs(name):
    """MXNet's attribute names of op `name` (inputs and the key_var_num_args excluded)."""
    from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str
    h = OpHandle()
    check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(h)))
    nm, desc, key_var, ret = (ctypes.c_char_p() for _ in range(4))
    n_args = mx_uint()
    a_names, a_types, a_descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
    check_call(_LIB.MXSymbolGetAtomicSymbolInfo(
        h, ctypes.byref(nm), ctypes.byref(desc), ctypes.byref(n_args), ctypes.byref(a_names),
        ctypes.byref(a_types), ctypes.byref(a_descs), ctypes.byref(key_var), ctypes.byref(ret)))
    # Inputs are typed "NDArray-or-Symbol", "NDArray" or "Symbol or Symbol[]" in MXNet's metadata.
    attrs = {py_str(a_names[i]) for i in range(n_args.value)
             if not py_str(a_types[i]).startswith(("NDArray", "Symbol"))}
    if key_var.value:
        attrs.discard(py_str(key_var.value))
    return attrs


def check_attrs(rep):
    """Every op we register under an MXNet name accepts MXNet's attribute names."""
    names, canonical = our_ops()
    mx_names = set(n for ns in mxnet_ops().values() for n in ns)
    for op in sorted(canonical):
        if op not in mx_names or is_backward(op):
            continue
        theirs, ours = mxnet_attrs(op), OUR_ATTRS.get(op, set())
        missing, extra = sorted(theirs - ours), sorted(ours - theirs)
        extra = [a for a in extra if a != "num_args"]  # MXNet's key_var_num_args
        note = ("extra here: %s" % ", ".join(extra)) if extra else ""
        if missing and op in ATTR_QUIRKS:
            rep.add("op", "attribute names (MXNet registry)", op, "MXNet's attributes accepted", status="deviation",
                    note=ATTR_QUIRKS[op])
        elif missing:
            rep.add("op", "attribute names (MXNet registry)", op, "MXNet's attributes accepted", status="fail",
                    note="missing: %s%s" % (", ".join(missing), "; " + note if note else ""))
        else:
            rep.add("op", "attribute names (MXNet registry)", op, "MXNet's attributes accepted", status="pass",
                    note=note)


def is_backward(name):
    """MXNet's gradient internals: _backward_*, _npi_backward_*, _contrib_backward_*, *_backward."""
    return "_backward_" in name or name.endswith("_backward")


def our_ops():
    text = subprocess.run([CLI, "ops", "--internal", "--verbose"], check=True, stdout=subprocess.PIPE,
                          cwd=ROOT).stdout.decode()
    names, canonical = {}, set()  # names: every name -> canonical
    global OUR_ATTRS
    OUR_ATTRS = {}
    for line in text.splitlines():
        if not line.strip() or " shown; " in line:
            continue
        name = line.split()[0]
        canonical.add(name)
        names[name] = name
        attrs = line.split("  attrs: ", 1)[1].split("  [")[0] if "  attrs: " in line else ""
        OUR_ATTRS[name] = {a.strip() for a in attrs.split(",") if a.strip()}
        if "  aliases: " in line:
            rest = line.split("  aliases: ", 1)[1]
            rest = rest.split("  attrs: ")[0].split("  [")[0]
            names.update((a.strip(), name) for a in rest.split(",") if a.strip())
    return names, canonical


def op_family(name):
    for prefix, fam in (("_contrib_quantize", "_contrib_ (quantization)"), ("_contrib_", "_contrib_"),
                        ("_np", "NumPy interface (_np*/_npi_/_npx_)"), ("_random_", "_random_/_sample_"),
                        ("_sample_", "_random_/_sample_"), ("_image_", "_image_"), ("_linalg_", "_linalg_"),
                        ("_sparse_", "_sparse_"), ("_sg_", "_sg_ (subgraph fusions)"),
                        ("_mp_", "multi-precision / multi-tensor optimizer updates"),
                        ("_multi_", "multi-precision / multi-tensor optimizer updates"),
                        ("multi_", "multi-precision / multi-tensor optimizer updates"),
                        ("mp_", "multi-precision / multi-tensor optimizer updates")):
        if name.startswith(prefix):
            return fam
    return "other internal (_*)" if name.startswith("_") else "public (legacy mx.nd / mx.sym)"


def coverage(case_ops):
    all_ops = mxnet_ops()
    mx_all = set(n for ns in all_ops.values() for n in ns) | set(all_ops)
    mx_ops = {}
    for canon, ns in all_ops.items():
        ns = [n for n in ns if not is_backward(n)]
        if ns and not is_backward(canon):
            mx_ops[canon] = ns
    names, canonical = our_ops()
    missing, have = {}, 0
    for canon, ns in sorted(mx_ops.items()):
        if any(n in names for n in ns + [canon]):
            have += 1
        else:
            missing.setdefault(op_family(canon), []).append({"op": canon, "aliases": [n for n in ns if n != canon]})
    extra = sorted(n for n in canonical if n not in mx_all)
    compared = {names.get(n, n) for n in case_ops}
    uncompared = sorted(n for n in canonical if n in mx_all and n not in compared and not is_backward(n))
    return {"mxnet_ops": len(mx_ops), "mxnet_names": len(set(n for ns in mx_ops.values() for n in ns)),
            "ours_registered": len(canonical),
            "mxnet_ops_we_register": have, "missing_count": sum(len(v) for v in missing.values()),
            "missing": missing, "ours_not_in_mxnet": extra, "ours_compared": len(compared & canonical),
            "ours_without_op_case": uncompared}


# =============================================================================================
# Output.
# =============================================================================================
def finite_or_text(x):
    return x if x is None or not isinstance(x, float) or math.isfinite(x) else repr(x)


def fmt(x):
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if math.isinf(x):
        return "inf"
    return "%.2e" % x


def summarize(rows):
    s = []
    for cat, title in CATEGORIES:
        rs = [r for r in rows if r["category"] == cat]
        errs = [r["max_rel_err"] for r in rs if isinstance(r["max_rel_err"], float) and r["status"] == "pass"]
        s.append({"category": cat, "title": title, "rows": len(rs),
                  "pass": sum(r["status"] == "pass" for r in rs), "fail": sum(r["status"] == "fail" for r in rs),
                  "deviation": sum(r["status"] == "deviation" for r in rs),
                  "gap": sum(r["status"] == "gap" for r in rs),
                  "max_rel_err_passing": max(errs) if errs else None})
    return s


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def summary_table(summary):
    lines = ["| category | checks | pass | fail | deviation (MXNet bug) | known gap | largest max_rel_err among passing |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for s in summary:
        lines.append("| %s | %d | %d | %d | %d | %d | %s |" % (s["title"], s["rows"], s["pass"], s["fail"],
                                                           s["deviation"], s["gap"], fmt(s["max_rel_err_passing"])))
    t = {k: sum(s[k] for s in summary) for k in ("rows", "pass", "fail", "deviation", "gap")}
    lines.append("| **total** | **%d** | **%d** | **%d** | **%d** | **%d** | |"
                 % (t["rows"], t["pass"], t["fail"], t["deviation"], t["gap"]))
    return lines


def write_md(path, doc):
    L = ["# Conformance with Apache MXNet 1.9.1", "",
         "Generated by `tools/conformance/report.py` (do not edit by hand) on %s against real MXNet %s "
         "(pip wheel, CPU), numpy %s, on %s. Regenerate with" % (doc["generated"], doc["mxnet_version"],
                                                                 doc["numpy_version"], doc["cpu"]),
         "", "```", "PY=$(tools/conformance/setup_venv.sh | tail -1); $PY tools/conformance/report.py", "```", "",
         "Every reference below was regenerated by real MXNet during that run (the `gen_*.py` scripts in "
         "`tools/conformance/`) and every number is a comparison made by that run: our results come from "
         "`//tools/conformance:dump_ours` (ops, layers, losses, initializers, optimizers, checkpoints), "
         "`//modelzoo:export_tool` (model-zoo nets) and the `mxnet` CLI (`predict`, `train`); files go both ways "
         "(MXNet and numpy read what we write, we read what they write).", "",
         "**max_abs_err** is max |ours − MXNet| over all compared elements; **max_rel_err** is max_abs_err / "
         "max |MXNet| (relative to the array's scale). A check passes when |ours − MXNet| ≤ atol + rtol·|MXNet| "
         "elementwise with the tolerance shown (the unit test's), NaN/inf at the same places and the same dtype and "
         "shape; model-zoo checks use max_rel_err < 1e-4 like `//modelzoo:conformance_test`. *deviation* marks a "
         "documented MXNet 1.9.1 bug where we deliberately differ (checked against the corrected value; the numbers "
         "are against MXNet's own values). *gap* marks MXNet behaviour we do not have yet (listed in `KNOWN_GAPS` "
         "of report.py; not a regression, does not fail the run).", "",
         "## Summary", ""]
    L += summary_table(doc["summary"])
    cov = doc["coverage"]
    L += ["", "MXNet 1.9.1 registers %d operators (%d names with aliases; gradient internals such as `_backward_*` excluded); we register %d "
          "operators, which cover %d of MXNet's; %d MXNet operators are not registered here (listed below)."
          % (cov["mxnet_ops"], cov["mxnet_names"], cov["ours_registered"], cov["mxnet_ops_we_register"],
             cov["missing_count"]), ""]
    gaps = [r for r in doc["rows"] if r["status"] == "gap"]
    if gaps:
        L += ["## Known gaps", "", "| category | group | case | check | what is missing |", "|---|---|---|---|---|"]
        L += ["| %s | %s | %s | %s | %s |" % (r["category"], esc(r["group"]), esc(r["name"]), esc(r["check"]),
                                              esc(r["note"])) for r in gaps]
        L.append("")
    fails = [r for r in doc["rows"] if r["status"] == "fail"]
    L += ["## Failures", ""]
    if not fails:
        L += ["None.", ""]
    else:
        L += ["| category | group | case | check | max_abs_err | max_rel_err | why |", "|---|---|---|---|---:|---:|---|"]
        for r in fails:
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (r["category"], esc(r["group"]), esc(r["name"]),
                                                            esc(r["check"]), fmt(r["max_abs_err"]),
                                                            fmt(r["max_rel_err"]), esc(r["note"])))
        L.append("")
    dr = doc["drift"]
    L += ["## Reference drift", "",
          "Fresh references vs the committed test data: %d files identical, %d differ (rows of the last "
          "category; numbers within %g pass: MXNet's own run-to-run noise)." % (dr["identical"], len(dr["differ"]),
                                                                               DRIFT_ATOL), ""]
    for d in dr["differ"]:
        L.append("- `%s`: %s" % (d["file"], d["why"]))
    L.append("")
    for cat, title in CATEGORIES:
        rs = [r for r in doc["rows"] if r["category"] == cat]
        if not rs:
            continue
        L += ["## %s" % title, ""]
        groups = []
        for r in rs:
            if r["group"] not in groups:
                groups.append(r["group"])
        for g in groups:
            gr = [r for r in rs if r["group"] == g]
            L += ["### %s (%d checks, %d pass)" % (g, len(gr), sum(r["status"] == "pass" for r in gr)), "",
                  "| case | check | result | max_abs_err | max_rel_err | tolerance | note |",
                  "|---|---|---|---:|---:|---|---|"]
            for r in gr:
                L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                    esc(r["name"]), esc(r["check"]), r["status"] if r["status"] == "pass" else "**%s**" % r["status"],
                    fmt(r["max_abs_err"]), fmt(r["max_rel_err"]), esc(r["tolerance"]), esc(r["note"])))
            L.append("")
    L += ["## MXNet 1.9.1 operators we do not register", "",
          "Grouped by kind; each entry is MXNet's operator name with its aliases in parentheses.", ""]
    for fam in sorted(cov["missing"]):
        ops = cov["missing"][fam]
        L += ["### %s (%d)" % (fam, len(ops)), "",
              ", ".join("`%s`%s" % (o["op"], " (%s)" % ", ".join("`%s`" % a for a in o["aliases"]) if o["aliases"] else "")
                        for o in ops), ""]
    if cov["ours_without_op_case"]:
        L += ["### Our operators (MXNet names) without an operator case in this report (%d)"
              % len(cov["ours_without_op_case"]), "",
              "%d of our %d operators are compared case by case above; these MXNet operators are registered "
              "here but have no MXNet-generated operator case (many are exercised through the layer, loss, "
              "optimizer and model-zoo checks instead):" % (cov["ours_compared"], cov["ours_registered"]), "",
              ", ".join("`%s`" % n for n in cov["ours_without_op_case"]), ""]
    if cov["ours_not_in_mxnet"]:
        L += ["### Registered here but not in MXNet 1.9.1 (%d)" % len(cov["ours_not_in_mxnet"]), "",
              ", ".join("`%s`" % n for n in cov["ours_not_in_mxnet"]), ""]
    with open(path, "w") as f:
        f.write("\n".join(L).rstrip() + "\n")


def cpu_description():
    """The CPU model (lscpu), its vector ISA, any oneDNN ISA cap in the environment and whether
    MXNet's int8 kernels are exact here (the int8 deviations depend on it)."""
    model, flags = "unknown CPU", set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    isa = ("AVX-512 VNNI" if "avx512_vnni" in flags else "AVX-512 (no VNNI)" if "avx512f" in flags
           else "AVX2 VNNI" if "avx_vnni" in flags else "AVX2 (no VNNI)" if "avx2" in flags else "pre-AVX2")
    caps = ["%s=%s" % (v, os.environ[v]) for v in ("DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA", "MXNET_MAX_CPU_ISA")
            if os.environ.get(v)]
    return "%s, %s%s; MXNet's int8 kernels %s" % (
        model, isa, " (capped: %s)" % ", ".join(caps) if caps else "",
        "exact" if mxnet_int8_exact() else "not exact (no VNNI: int8 results are MXNet deviations)")


# =============================================================================================
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"), help="directory for conformance.md/.json")
    ap.add_argument("--work", help="working directory (default: a temporary one, removed afterwards)")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already built (see --bin-dir)")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "bazel-bin"),
                    help="with --no-build: where the binaries are (default bazel-bin)")
    ap.add_argument("--nets", default="all", help="model-zoo nets to run: all, none or NAME,NAME")
    ap.add_argument("--train-limit", type=int, default=2000, help="samples for the `mxnet train` export check")
    ap.add_argument("--jobs", type=int, default=2, help="reference generators run in parallel")
    ap.add_argument("--torch", choices=["auto", "yes", "no"], default="auto",
                    help="torchvision ONNX exports (PyTorch venv, setup_torch_venv.sh): auto uses the "
                    "venv when it exists, yes builds it (~6 GB), no skips them")
    ap.add_argument("--refs", help="reuse references a previous run generated (WORK/refs of --work); "
                    "development only: skips the regeneration")
    args = ap.parse_args()
    if mx.__version__ != "1.9.1":
        log("report: MXNet %s, want 1.9.1 (use the venv of setup_venv.sh)" % mx.__version__)
        return 2
    shared = os.environ.get("MXNET_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    if not os.path.isdir(shared) and os.path.isdir("/work/shared"):
        shared = "/work/shared"
    t_all = time.time()
    work = args.work or tempfile.mkdtemp(prefix="mxnet-conformance-")
    os.makedirs(work, exist_ok=True)
    refs, logs = os.path.join(work, "refs"), os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    timings = {}
    rep = Report()
    case_ops = set()
    try:
        bin_dir = args.bin_dir
        if not args.no_build:
            log("report: building %s" % " ".join(TARGETS))
            _, timings["build"] = run([os.path.join(ROOT, "bazelw"), "build"] + TARGETS,
                                      os.path.join(logs, "build.log"))
            # The output directory of this build's configuration (the bazel-bin symlink follows
            # whichever configuration built last).
            bin_dir = subprocess.run([os.path.join(ROOT, "bazelw"), "info", "bazel-bin"], cwd=ROOT, check=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().strip()
        os.makedirs(os.path.join(work, "bin"), exist_ok=True)
        for var, rel in BINARIES.items():
            src, dst = os.path.join(bin_dir, rel), os.path.join(work, "bin", os.path.basename(rel))
            if not os.path.exists(src):
                log("report: missing %s (build it, or drop --no-build)" % src)
                return 2
            shutil.copy2(src, dst)
            globals()[var] = dst
        if args.refs:
            refs = os.path.abspath(args.refs)
            log("report: reusing the references in %s (not regenerated)" % refs)
        else:
            log("report: regenerating the references with MXNet %s into %s" % (mx.__version__, refs))
            t0 = time.time()
            timings["generators"] = regenerate(refs, args.jobs, logs)
            timings["regenerate"] = time.time() - t0
        steps = [
            ("ops", lambda: case_ops.update(check_ops(refs, work, rep))),
            ("sparse ops", lambda: case_ops.update(check_sparse(refs, work, rep))),
            ("layers", lambda: check_layers(refs, work, rep)),
            ("losses", lambda: check_losses(refs, work, rep)),
            ("init", lambda: check_init(refs, work, rep)),
            ("op attributes", lambda: check_attrs(rep)),
            ("optimizers", lambda: check_optimizers(refs, work, rep)),
            ("seeds model", lambda: seeds_model(refs, work, rep)),
            ("read files", lambda: check_read(refs, work, rep)),
            ("written files", lambda: check_written(refs, work, rep, shared)),
            ("model-zoo load", lambda: check_mzload(refs, work, rep)),
            ("MXNet exports", lambda: check_mx_exports(work, rep)),
            ("cifar export", lambda: check_cifar(work, rep, shared)),
            ("model-zoo nets", lambda: check_nets(refs, work, rep, args.nets)),
            ("CLI train export", lambda: check_cli_train(work, rep, args.train_limit)),
            ("TensorBoard, viz", lambda: check_tensorboard(work, rep)),
            ("ONNX", lambda: check_onnx(work, rep, args.nets, args.torch)),
        ]
        for name, fn in steps:
            t0 = time.time()
            n0 = len(rep.rows)
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - a broken step is a failure row, not a crash
                traceback.print_exc()
                rep.add("file:ours->mx" if "file" in name else "op", "report step", name, "run", status="fail",
                        note="error: %s" % str(e).splitlines()[0][:300] if str(e) else repr(e))
            timings[name] = time.time() - t0
            nf = sum(r["status"] == "fail" for r in rep.rows[n0:])
            log("  %-18s %5d checks, %3d failed  %6.1f s" % (name, len(rep.rows) - n0, nf, timings[name]))
        t0 = time.time()
        cov = coverage(case_ops)
        timings["coverage"] = time.time() - t0
        dr = drift(refs, rep)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    timings["total"] = time.time() - t_all
    for r in rep.rows:
        r["max_abs_err"], r["max_rel_err"] = finite_or_text(r["max_abs_err"]), finite_or_text(r["max_rel_err"])
    summary = summarize(rep.rows)
    doc = {"generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "mxnet_version": mx.__version__, "numpy_version": np.__version__, "cpu": cpu_description(),
           "definitions": {"max_abs_err": "max |ours - mxnet| over the compared elements",
                           "max_rel_err": "max_abs_err / max |mxnet|"},
           "summary": summary, "coverage": cov, "drift": dr, "timings_s": {k: (round(v, 1) if isinstance(v, float)
                                                                          else {a: round(b, 1) for a, b in v.items()})
                                                                      for k, v in timings.items()},
           "rows": rep.rows}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "conformance.json"), "w") as f:
        # Indented, except one line per row (diffs of a regenerated report stay readable).
        head = dict(doc, rows="@ROWS@")
        rows = ",\n".join("  " + json.dumps(r, allow_nan=False) for r in rep.rows)
        f.write(json.dumps(head, indent=1, allow_nan=False).replace('"@ROWS@"', "[\n" + rows + "\n ]") + "\n")
    write_md(os.path.join(args.out, "conformance.md"), doc)
    log("")
    log("\n".join(summary_table(summary)))
    fails = [r for r in rep.rows if r["status"] == "fail"]
    for r in fails:
        log("FAIL %s | %s | %s | %s | %s" % (r["category"], r["group"], r["name"], r["check"], r["note"]))
    for r in rep.rows:
        if r["status"] == "gap":
            log("GAP  %s | %s | %s | %s | %s" % (r["category"], r["group"], r["name"], r["check"], r["note"]))
    log("report: %d checks, %d failed, %d MXNet deviations, %d known gaps; %d MXNet ops not registered; %.0f s; "
        "wrote %s" % (len(rep.rows), len(fails), sum(r["status"] == "deviation" for r in rep.rows),
                      sum(r["status"] == "gap" for r in rep.rows), cov["missing_count"], timings["total"],
                      os.path.join(args.out, "conformance.md")))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
