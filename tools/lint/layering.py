#!/usr/bin/env python3
"""Checks the layering of the Bazel packages (docs/design.md §2).

Every package belongs to one layer; a target (library, test, benchmark, data) may depend only on
targets of its own layer or of lower layers. Packages of one layer may use each other (Bazel
itself rejects target cycles). Reads every tracked BUILD file by evaluating it with stand-ins for
the rules (no Bazel needed), so it runs inside `bazel test` and in a fresh clone.

Usage: tools/lint/layering.py [WORKSPACE]      (exit 1 and one line per violation on failure)
"""
import ast
import os
import pathlib
import subprocess
import sys

# Lowest first. A package not listed here is an error (so a new package gets a place); "p/*"
# stands for every package under p.
LAYERS = [
    ("third_party", ["", "third_party", "third_party/*", "tools/build_defs"]),
    ("base", ["base"]),
    ("ndarray", ["ndarray", "ndarray/backends", "ndarray/backends/cuda", "ndarray/backends/onednn",
                 "ndarray/ops", "ndarray/ops/*"]),
    ("autograd", ["autograd"]),
    ("symbol", ["symbol", "symbol/passes"]),
    ("gluon", ["gluon", "gluon/nn", "gluon/loss", "gluon/utils"]),
    ("gluon data and training", ["gluon/data", "gluon/data/vision", "gluon/training",
                                 "gluon/kvstore"]),
    ("model zoo", ["modelzoo"]),
    ("gluon extensions", ["gluon/contrib", "gluon/onnx"]),
    ("CLI", ["tools/mxnet", "tools"]),
    ("C ABI", ["c_api"]),
    ("bindings", ["bindings/go", "bindings/java", "bindings/rust"]),
    ("tools and examples", ["examples", "tools/bench", "tools/conformance", "tools/fuzz",
                            "tools/gpu", "tools/lint", "tools/stress"]),
]


class _Rule:
    """Stands in for every rule, macro and builtin a BUILD file calls."""

    def __init__(self, name, sink, package_dir):
        self.name, self.sink, self.package_dir = name, sink, package_dir

    def __call__(self, *args, **kwargs):
        if self.name == "glob":
            return _glob(self.package_dir, args[0] if args else kwargs.get("include", []),
                         kwargs.get("exclude", []))
        if self.name == "select":
            merged = []
            for v in args[0].values():
                merged += v if isinstance(v, list) else [v]
            return merged
        if "name" in kwargs:
            self.sink.append((self.name, kwargs["name"], kwargs))
        return None


def _glob(package_dir, include, exclude):
    """Bazel's glob over the package's files (subpackages are not excluded; enough here)."""
    root = pathlib.Path(package_dir)
    found = set()
    for pattern in include:
        found |= {str(p.relative_to(root)) for p in root.glob(pattern) if p.is_file()}
    for pattern in exclude:
        found -= {str(p.relative_to(root)) for p in root.glob(pattern)}
    return sorted(found)


def _labels(value):
    if isinstance(value, str):
        if value.startswith("//") or value.startswith(":"):
            yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _labels(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _labels(v)


def _package_of(label, current):
    if label.startswith(":"):
        return current
    body = label[2:]
    return body.split(":")[0] if ":" in body else body


def read_build(path, package):
    """[(rule kind, target name, [dependency packages])] of one BUILD file."""
    text = open(path).read()
    tree = ast.parse(text, path)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    targets = []
    env = {"__builtins__": {"len": len, "range": range, "str": str, "list": list, "dict": dict,
                            "sorted": sorted, "enumerate": enumerate, "zip": zip, "True": True,
                            "False": False, "None": None}}
    for n in names:
        if n not in env["__builtins__"]:
            env[n] = _Rule(n, targets, os.path.dirname(path))
    exec(compile(tree, path, "exec"), env)  # noqa: S102 - our own BUILD files
    out = []
    for kind, name, kwargs in targets:
        if kind in ("package", "load", "exports_files"):
            continue
        # visibility, and macros' *_visibility (mx_op_package's cases_visibility), name users.
        attrs = {k: v for k, v in kwargs.items() if not k.endswith("visibility")}
        deps = {_package_of(l, package) for l in _labels(attrs)}
        out.append((kind, name, sorted(deps)))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    files = subprocess.run(["git", "-C", root, "ls-files", "BUILD", "*/BUILD", "BUILD.bazel",
                            "*/BUILD.bazel"], check=True, capture_output=True, text=True).stdout
    layers = {}
    for rank, (title, packages) in enumerate(LAYERS):
        for p in packages:
            layers[p] = (rank, title)

    class LayerOf(dict):
        def __missing__(self, package):
            parts = package.split("/")
            for n in range(len(parts) - 1, 0, -1):
                if "/".join(parts[:n]) + "/*" in layers:
                    return layers["/".join(parts[:n]) + "/*"]
            raise KeyError(package)

        def __contains__(self, package):
            try:
                self[package]
                return True
            except KeyError:
                return False

    layer_of = LayerOf(layers)
    errors = []
    checked = 0
    for rel in sorted(files.split()):
        package = os.path.dirname(rel)
        if package.split("/")[0] in ("bazel-bin", "bazel-out") or "/testdata" in "/" + package:
            continue
        if package not in layer_of:
            errors.append(f"{rel}: package //{package} has no layer in tools/lint/layering.py")
            continue
        rank, title = layer_of[package]
        for kind, name, deps in read_build(os.path.join(root, rel), package):
            checked += 1
            for d in deps:
                if d == package:
                    continue
                if d not in layer_of:
                    errors.append(f"//{package}:{name} ({kind}) depends on //{d}, which has no layer")
                    continue
                drank, dtitle = layer_of[d]
                if drank > rank:
                    errors.append(f"//{package}:{name} ({kind}, layer '{title}') depends on //{d} "
                                  f"(higher layer '{dtitle}')")
    for e in errors:
        print("layering:", e)
    print(f"layering: {checked} targets in {len(files.split())} BUILD files checked, "
          f"{len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
