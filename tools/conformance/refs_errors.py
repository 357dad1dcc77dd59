"""The rejected-call ("errors") entries of the reference files, shared by the generators.

collect_errors(specs, run, arr) runs each (name, op, inputs, attrs) spec through run(op, inputs,
attrs) (an NDArray, a list/tuple of them, or None), waits for every output and expects MXNet to
reject the call: it records {"name", "op", "attrs", "inputs", "message"} per spec, the message
being the last line of MXNet's error that contains one of `markers` (else the last line of the
whole error), stripped and cut to 300 characters. A spec MXNet accepts raises RuntimeError: the
reference would assert an error MXNet does not give.
"""
import mxnet as mx

DEFAULT_MARKERS = ("Check failed", "MXNetError")


def error_message(err, markers=DEFAULT_MARKERS):
    """The line of MXNet's error text the reference files keep (see the module doc)."""
    lines = [l for l in str(err).splitlines() if any(m in l for m in markers)]
    return (lines or [str(err)])[-1].strip()[:300]


def collect_errors(specs, run, arr, markers=DEFAULT_MARKERS, catch=(mx.base.MXNetError,),
                   attr_str=str, shown_attrs=None):
    """The "errors" entries of a reference file (see the module doc).

    arr(x) -> the JSON form of an input; catch: the exceptions that count as MXNet rejecting
    the call; attr_str(v) -> an attribute's string form; shown_attrs(op, inputs, attrs) -> the
    attributes recorded (default: attrs as given).
    """
    out = []
    for name, op, inputs, attrs in specs:
        try:
            ys = run(op, inputs, attrs)
            for y in ys if isinstance(ys, (list, tuple)) else [ys]:
                if y is not None:
                    y.wait_to_read()
        except catch as err:
            shown = shown_attrs(op, inputs, attrs) if shown_attrs else attrs
            out.append({"name": name, "op": op, "attrs": {k: attr_str(v) for k, v in shown.items()},
                        "inputs": [arr(x) for x in inputs], "message": error_message(err, markers)})
            continue
        raise RuntimeError("MXNet accepted the error case %r" % name)
    return out
