#!/usr/bin/env python3
"""Writes tools/fuzz/seeds/symbol/*.json: seed inputs of the symbol JSON fuzzers that the repo's
real -symbol.json files do not cover (run from the repo root: python3 tools/fuzz/make_seeds.py).

 - the control-flow graphs MXNet 1.9.1 exported (_cond, _foreach subgraphs), taken from the
   `symbol` field of symbol/testdata/control_flow/*.json;
 - one small graph per MXNet file layout and legacy upgrade of docs/formats.md §3.3, written here
   by hand: 0.8 ("param", input pairs, no version), 0.9-1.0 ("attr"), hidden keys and
   <arg>_lr_mult (step 1), implicit aux inputs (step 3), BatchNorm initializers (step 4), argmax
   axis=-1 (step 5), legacy and np-shape __shape__ (step 6), control_deps, op aliases.
Only the repo's own files are read; nothing from ../shared is copied.
"""
import glob
import json
import os

OUT = "tools/fuzz/seeds/symbol"


def var(name, **attrs):
    n = {"op": "null", "name": name, "inputs": []}
    if attrs:
        n["attrs"] = attrs
    return n


def write(name, obj):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    for path in sorted(glob.glob("symbol/testdata/control_flow/*.json")):
        d = json.load(open(path))
        if isinstance(d.get("symbol"), str):
            name = "cf_" + os.path.basename(path)[:-5]
            with open(os.path.join(OUT, name + ".json"), "w") as f:
                f.write(d["symbol"])

    # MXNet 0.8: "param", input pairs, no mxnet_version (800), alias op names, implicit aux
    # inputs of BatchNorm (step 3) and its initializers (step 4).
    write("v0800_param_batchnorm", {
        "nodes": [
            {"op": "null", "name": "data", "param": {}, "inputs": []},
            {"op": "null", "name": "w", "param": {}, "inputs": [], "attr": {"lr_mult": "0.5"}},
            {"op": "Convolution", "name": "conv0",
             "param": {"kernel": "(3, 3)", "num_filter": "4", "no_bias": "True"},
             "inputs": [[0, 0], [1, 0]], "backward_source_id": -1},
            {"op": "BatchNorm", "name": "bn0", "param": {"fix_gamma": "False", "eps": "1e-5"},
             "inputs": [[2, 0]], "attr": {"ctx_group": "dev1", "gamma_wd_mult": "0"}},
            {"op": "Activation", "name": "relu0", "param": {"act_type": "relu"},
             "inputs": [[3, 0]]},
            {"op": "SoftmaxOutput", "name": "softmax", "param": {}, "inputs": [[4, 0]]},
        ],
        "arg_nodes": [0, 1],
        "heads": [[5, 0]],
    })
    # MXNet 0.9-1.0: "attr" with <arg>_lr_mult on the op node (step 1), argmax axis=-1 (step 5).
    write("v0901_attr_argmax", {
        "nodes": [
            {"op": "null", "name": "x", "inputs": [], "attr": {"__shape__": "(0, 10)"}},
            {"op": "null", "name": "fc_weight", "inputs": []},
            {"op": "null", "name": "fc_bias", "inputs": []},
            {"op": "FullyConnected", "name": "fc", "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
             "attr": {"num_hidden": "5", "weight_lr_mult": "2", "bias_wd_mult": "0"}},
            {"op": "argmax", "name": "am", "inputs": [[3, 0, 0]], "attr": {"axis": "-1"}},
        ],
        "arg_nodes": [0, 1, 2],
        "heads": [[4, 0, 0]],
        "attrs": {"mxnet_version": ["int", 901]},
    })
    # MXNet 1.x: "attrs", __shape__ in legacy form, mult scalar aliases, control_deps.
    write("v10901_attrs_control_deps", {
        "nodes": [
            var("a", __shape__="(2, 0)", __dtype__="0", __init__='["zero", {}]'),
            var("b", __lr_mult__="0.1"),
            {"op": "_Plus", "name": "p", "inputs": [[0, 0, 0], [1, 0, 0]]},
            {"op": "_MulScalar", "name": "m", "attrs": {"scalar": "2"}, "inputs": [[2, 0, 0]],
             "control_deps": [0]},
            {"op": "Reshape", "name": "r", "attrs": {"shape": "(-1,)"}, "inputs": [[3, 0, 0]]},
            {"op": "SliceChannel", "name": "s", "attrs": {"num_outputs": "2", "axis": "0"},
             "inputs": [[2, 0, 0]]},
            {"op": "Concat", "name": "c", "attrs": {"num_args": "2", "dim": "0"},
             "inputs": [[5, 0, 0], [5, 1, 0]]},
        ],
        "arg_nodes": [0, 1],
        "node_row_ptr": [0, 1, 2, 3, 4, 5, 7, 8],
        "heads": [[4, 0, 0], [6, 0, 0]],
        "attrs": {"mxnet_version": ["int", 10901]},
    })
    # MXNet 2.0 np-shape: __shape__ with -1 unknown and 0-size dims, _npx_ op names, hidden keys
    # with <arg>_ prefix kept (V >= 20000), profiler scope.
    write("v20000_np_shape", {
        "nodes": [
            var("x", __shape__="(-1, 0, 3)", __profiler_scope__="<unk>:"),
            {"op": "_npx_relu", "name": "relu", "inputs": [[0, 0, 0]],
             "attrs": {"data_lr_mult": "3", "__profiler_scope__": "net:"}},
            {"op": "sum", "name": "s", "attrs": {"axis": "(0, 2)", "keepdims": "true"},
             "inputs": [[1, 0, 0]]},
        ],
        "arg_nodes": [0],
        "heads": [[2, 0, 0]],
        "attrs": {"mxnet_version": ["int", 20000], "is_np_shape": ["int", 1]},
    })


if __name__ == "__main__":
    main()
