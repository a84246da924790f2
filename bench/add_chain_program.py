#!/usr/bin/env python3
"""The dispatch benchmark's program (issue #16), written once for every bench script.

forward(x: float32[1]): t0 = x + x; t1 = t0 + x; t0 = t1 + x; ... over N one-element adds
(values 0 x, 1 alpha, 2 and 3 the two temporaries), as bench/add_chain_program.h builds it in
memory. `plan(name, n)` is one method of it in the .pte schema's JSON form
(formats/program.fbs); run as a script it writes a program of one or more such methods and
compiles it with flatc:

    bench/add_chain_program.py OUT_DIR NAME [N=10000] [METHOD ...]   # -> OUT_DIR/NAME.pte
"""
import json
import os
import subprocess
import sys

ADDS = 10000


def tensor(offset):
    return {"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [1], "dim_order": [0],
            "allocation_info": {"memory_id": 1, "memory_offset_low": offset}}}


def plan(name="forward", n=ADDS):
    instructions = []
    for i in range(n):
        src = 0 if i == 0 else (2 if i % 2 == 1 else 3)
        out = 2 if i % 2 == 0 else 3
        instructions.append({"instr_args_type": "KernelCall",
                             "instr_args": {"op_index": 0, "args": [src, 0, 1, out, out]}})
    return {"name": name, "values": [tensor(0), {"val_type": "Int", "val": {"int_val": 1}},
                                     tensor(16), tensor(32)],
            "inputs": [0], "outputs": [2 if (n - 1) % 2 == 0 else 3],
            "chains": [{"instructions": instructions}],
            "operators": [{"name": "aten::add", "overload": "out"}], "delegates": [],
            "non_const_buffer_sizes": [0, 48]}


def write(out_dir, name, methods=("forward",), n=ADDS):
    """Writes OUT_DIR/NAME.pte with one add chain per method name; returns its path."""
    schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "formats",
                          "program.fbs")
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w") as f:
        json.dump({"version": 0, "execution_plan": [plan(m, n) for m in methods]}, f)
    subprocess.run(["flatc", "--binary", "-o", out_dir, schema, path], check=True)
    return os.path.join(out_dir, name + ".pte")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: add_chain_program.py OUT_DIR NAME [N] [METHOD ...]")
    n = int(sys.argv[3]) if len(sys.argv) > 3 else ADDS
    print(write(sys.argv[1], sys.argv[2], tuple(sys.argv[4:]) or ("forward",), n))
