#!/usr/bin/env python3
"""Writes the EtkitFusedBackend test programs of tests/data (run it after changing them):

  fused_<name>.blob.json     a fused program (formats/fused_delegate.fbs) for flatc
  fused_<name>.program.json  a .pte (formats/program.fbs) whose inline delegate data is the
                             string "@FUSED_BLOB@", replaced by the compiled blob's bytes at build
                             time (fused_programs.cmake)
  fused_<name>_portable.json the same computation as portable operators, with every step's
                             result a program output (so tests compare step by step)

Constants are multiples of 1/16 so that the text in the blob and the bytes in the portable
program are the same float32 values.
"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def consts(rng, n, nonzero=False):
    out = []
    while len(out) < n:
        k = rng.randint(-24, 24)
        if nonzero and k == 0:
            continue
        out.append(k / 16.0)
    return out


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


class Program:
    """A one-method program: planned tensors (bump allocated), constants, kernel calls."""

    def __init__(self):
        self.values = []
        self.offset = 0
        self.constant_buffer = [{"storage": []}]
        self.ops = []
        self.instrs = []
        self.inputs = []
        self.outputs = []
        self.delegates = []

    def tensor(self, sizes, data=None):
        val = {"scalar_type": "FLOAT", "sizes": sizes, "dim_order": list(range(len(sizes)))}
        if data is None:
            val["allocation_info"] = {"memory_id": 1, "memory_offset_low": self.offset}
            self.offset += (numel(sizes) * 4 + 15) // 16 * 16
        else:
            storage = list(struct.pack("<%df" % len(data), *data))
            self.constant_buffer.append({"storage": storage})
            val["data_buffer_idx"] = len(self.constant_buffer) - 1
        self.values.append({"val_type": "Tensor", "val": val})
        return len(self.values) - 1

    def scalar(self, kind, v):
        key = {"Int": "int_val", "Double": "double_val", "String": "string_val"}[kind]
        self.values.append({"val_type": kind, "val": {key: v}})
        return len(self.values) - 1

    def op(self, name, args):
        full = tuple(name.split("."))
        if full not in self.ops:
            self.ops.append(full)
        self.instrs.append({"instr_args_type": "KernelCall",
                            "instr_args": {"op_index": self.ops.index(full), "args": args}})

    def delegate(self, args):
        self.delegates.append({"id": "EtkitFusedBackend",
                               "processed": {"location": "INLINE", "index": 0}})
        self.instrs.append({"instr_args_type": "DelegateCall",
                            "instr_args": {"delegate_index": len(self.delegates) - 1,
                                           "args": args}})

    def json(self, comment):
        plan = {
            "name": "forward",
            "values": self.values,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "chains": [{"instructions": self.instrs}],
            "operators": [{"name": n, "overload": o} for n, o in self.ops],
            "delegates": self.delegates,
            "non_const_buffer_sizes": [0, max(self.offset, 16)],
        }
        doc = {"version": 0, "execution_plan": [plan], "constant_buffer": self.constant_buffer}
        if self.delegates:
            doc["backend_delegate_data"] = [{"data": "@FUSED_BLOB@"}]
        return "".join("// %s\n" % line for line in comment) + json.dumps(doc, indent=1) + "\n"


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


def blob_json(comment, doc):
    return "".join("// %s\n" % line for line in comment) + json.dumps(doc, indent=1) + "\n"


def arg(sizes):
    return {"sizes": sizes}


def operand(kind, index):
    return {"kind": kind, "index": index}


def identify(steps, ids, first_id):
    for i, s in enumerate(steps):
        if ids == "String":
            s["name"] = s.pop("label")
        else:
            s.pop("label")
            s["id"] = first_id + i
    return steps


# --- Elementwise chain: forward(x[2,3], y[3]) -> out[2,3] ------------------------------------

def elementwise(ids, timing):
    rng = random.Random(7)
    c = consts(rng, 6)
    d = consts(rng, 6, nonzero=True)
    shape = [2, 3]
    S = lambda i: operand("Step", i)
    # (kind, operands, extras, label, portable op)
    chain = [
        ("Add", [operand("Argument", 0), operand("Argument", 1)], {}, "add_xy"),
        ("Mul", [S(0)], {"scalar": 0.5}, "mul_half"),
        ("Sigmoid", [S(1)], {}, "sigmoid"),
        ("Sub", [S(2), operand("Constant", 0)], {"alpha": 2.0}, "sub_2c"),
        ("Gelu", [S(3)], {}, "gelu"),
        ("Div", [S(4), operand("Constant", 1)], {}, "div_d"),
        ("Tanh", [S(5)], {}, "tanh"),
        ("Neg", [S(6)], {}, "neg"),
        ("Exp", [S(7)], {}, "exp"),
        ("Sqrt", [S(8)], {}, "sqrt"),
        ("Rsqrt", [S(9)], {}, "rsqrt"),
        ("Log", [S(10)], {}, "log"),
        ("GeluTanh", [S(11)], {}, "gelu_tanh"),
        ("Relu", [S(12)], {}, "relu"),
        ("Silu", [S(13)], {}, "silu"),
    ]
    steps = []
    for i, (kind, ops, extra, label) in enumerate(chain):
        step = {"kind": kind, "operands": ops, "sizes": shape, "label": label}
        step.update(extra)
        if i == len(chain) - 1:
            step["output"] = 2
        steps.append(step)
    identify(steps, ids, 10)
    blob = {"identifiers": ids, "timing": timing,
            "arguments": [arg(shape), arg([3]), arg(shape)],
            "constants": [{"sizes": shape, "data": c}, {"sizes": shape, "data": d}],
            "steps": steps}
    return blob, c, d


def elementwise_programs():
    note = ["forward(x: float32[2, 3], y: float32[3]) -> float32[2, 3]: fifteen elementwise steps",
            "(add with broadcast, mul by a scalar, sigmoid, sub with alpha 2, gelu, div, tanh, neg,",
            "exp, sqrt, rsqrt, log, gelu tanh, relu, silu). Written by fused_make_json.py."]
    for suffix, ids, timing in [("", "Int", "Live"), ("_str_post", "String", "PostTime")]:
        blob, c, d = elementwise(ids, timing)
        write("fused_elementwise%s.blob.json" % suffix,
              blob_json(note + ["Identifiers: %s; events: %s." % (ids, timing)], blob))
    p = Program()
    x, y, out = p.tensor([2, 3]), p.tensor([3]), p.tensor([2, 3])
    p.inputs, p.outputs = [x, y], [out]
    p.delegate([x, y, out])
    write("fused_elementwise.program.json",
          p.json(note + ["One DelegateCall to EtkitFusedBackend: (x, y, out)."]))

    # The portable twin: every step an operator, every step's result an output.
    q = Program()
    x, y = q.tensor([2, 3]), q.tensor([3])
    cc, dd = q.tensor([2, 3], c), q.tensor([2, 3], d)
    one, two = q.scalar("Int", 1), q.scalar("Int", 2)
    half = q.scalar("Double", 0.5)
    none, tanh_mode = q.scalar("String", "none"), q.scalar("String", "tanh")
    outs = [q.tensor([2, 3]) for _ in range(15)]
    q.inputs, q.outputs = [x, y], outs
    q.op("aten::add.out", [x, y, one, outs[0], outs[0]])
    q.op("aten::mul.Scalar_out", [outs[0], half, outs[1], outs[1]])
    q.op("aten::sigmoid.out", [outs[1], outs[2], outs[2]])
    q.op("aten::sub.out", [outs[2], cc, two, outs[3], outs[3]])
    q.op("aten::gelu.out", [outs[3], none, outs[4], outs[4]])
    q.op("aten::div.out", [outs[4], dd, outs[5], outs[5]])
    for i, name in enumerate(["tanh", "neg", "exp", "sqrt", "rsqrt", "log"]):
        q.op("aten::%s.out" % name, [outs[5 + i], outs[6 + i], outs[6 + i]])
    q.op("aten::gelu.out", [outs[11], tanh_mode, outs[12], outs[12]])
    q.op("aten::relu.out", [outs[12], outs[13], outs[13]])
    q.op("aten::silu.out", [outs[13], outs[14], outs[14]])
    write("fused_elementwise_portable.json",
          q.json(note + ["The portable twin of fused_elementwise: each step an operator, each step's",
                         "result an output, in step order."]))


# --- Linear and addmm: forward(x[3,5]) -> (out[3,2], out2[3,2]) -------------------------------

def linear_programs():
    rng = random.Random(11)
    w1 = consts(rng, 4 * 5)  # [4, 5], torch.nn.Linear layout
    b1 = consts(rng, 4)
    w2 = consts(rng, 2 * 4)  # [2, 4]
    w3 = consts(rng, 4 * 2)  # [4, 2], addmm layout
    b3 = consts(rng, 2)      # [1, 2]
    transpose = lambda w, rows, cols: [w[r * cols + c] for c in range(cols) for r in range(rows)]
    note = ["forward(x: float32[3, 5]) -> (float32[3, 2], float32[3, 2]): h = relu(x @ W1^T + b1);",
            "out = silu(h @ W2^T); out2 = sigmoid(0.5 b3 + 2 h @ W3). Written by fused_make_json.py."]
    steps = [
        {"kind": "Linear", "operands": [operand("Argument", 0), operand("Constant", 0),
                                        operand("Constant", 1)],
         "activation": "Relu", "sizes": [3, 4], "label": "linear_relu"},
        {"kind": "Linear", "operands": [operand("Step", 0), operand("Constant", 2)],
         "activation": "Silu", "sizes": [3, 2], "output": 1, "label": "linear_silu"},
        {"kind": "Addmm", "operands": [operand("Step", 0), operand("Constant", 3),
                                       operand("Constant", 4)],
         "beta": 0.5, "alpha": 2.0, "activation": "Sigmoid", "sizes": [3, 2], "output": 2,
         "label": "addmm_sigmoid"},
    ]
    identify(steps, "String", 0)
    blob = {"identifiers": "String", "timing": "Live",
            "arguments": [arg([3, 5]), arg([3, 2]), arg([3, 2])],
            "constants": [{"sizes": [4, 5], "data": w1}, {"sizes": [4], "data": b1},
                          {"sizes": [2, 4], "data": w2}, {"sizes": [4, 2], "data": w3},
                          {"sizes": [1, 2], "data": b3}],
            "steps": steps}
    write("fused_linear.blob.json", blob_json(note + ["Identifiers: String; events: Live."], blob))
    p = Program()
    x, out, out2 = p.tensor([3, 5]), p.tensor([3, 2]), p.tensor([3, 2])
    p.inputs, p.outputs = [x], [out, out2]
    p.delegate([x, out, out2])
    write("fused_linear.program.json",
          p.json(note + ["One DelegateCall to EtkitFusedBackend: (x, out, out2)."]))

    q = Program()
    x = q.tensor([3, 5])
    w1t = q.tensor([5, 4], transpose(w1, 4, 5))
    bb1 = q.tensor([4], b1)
    w2t = q.tensor([4, 2], transpose(w2, 2, 4))
    ww3 = q.tensor([4, 2], w3)
    bb3 = q.tensor([1, 2], b3)
    one, two, half = q.scalar("Int", 1), q.scalar("Int", 2), q.scalar("Double", 0.5)
    t0, h, t1, out, t2, out2 = (q.tensor(s) for s in ([3, 4], [3, 4], [3, 2], [3, 2], [3, 2], [3, 2]))
    q.inputs, q.outputs = [x], [h, out, out2]
    q.op("aten::addmm.out", [bb1, x, w1t, one, one, t0, t0])
    q.op("aten::relu.out", [t0, h, h])
    q.op("aten::mm.out", [h, w2t, t1, t1])
    q.op("aten::silu.out", [t1, out, out])
    q.op("aten::addmm.out", [bb3, h, ww3, half, two, t2, t2])
    q.op("aten::sigmoid.out", [t2, out2, out2])
    write("fused_linear_portable.json",
          q.json(note + ["The portable twin of fused_linear; outputs: each step's result in step order."]))


# --- samples/mlp delegated whole: forward(x[1,4]) -> y[1,2] -----------------------------------

def mlp_programs():
    with open(os.path.join(HERE, "..", "..", "samples", "mlp.json")) as f:
        text = "".join(line for line in f if not line.lstrip().startswith("//"))
    mlp = json.loads(text)
    floats = lambda i: list(struct.unpack("<%df" % (len(mlp["constant_buffer"][i]["storage"]) // 4),
                                          bytes(mlp["constant_buffer"][i]["storage"])))
    w1, b1, w2, b2 = floats(1), floats(2), floats(3), floats(4)
    note = ["samples/mlp (y = tanh(x @ W1 + b1) @ W2 + b2, x: float32[1, 4]) as one DelegateCall",
            "to EtkitFusedBackend, with samples/mlp.json's weights. Written by fused_make_json.py."]
    steps = [
        {"kind": "Addmm", "operands": [operand("Argument", 0), operand("Constant", 0),
                                       operand("Constant", 1)],
         "activation": "Tanh", "sizes": [1, 8], "label": "hidden"},
        {"kind": "Addmm", "operands": [operand("Step", 0), operand("Constant", 2),
                                       operand("Constant", 3)],
         "sizes": [1, 2], "output": 1, "label": "output"},
    ]
    identify(steps, "Int", 0)
    blob = {"identifiers": "Int", "timing": "PostTime",
            "arguments": [arg([1, 4]), arg([1, 2])],
            "constants": [{"sizes": [4, 8], "data": w1}, {"sizes": [8], "data": b1},
                          {"sizes": [8, 2], "data": w2}, {"sizes": [2], "data": b2}],
            "steps": steps}
    write("fused_mlp.blob.json", blob_json(note + ["Identifiers: Int; events: PostTime."], blob))
    # A defective copy: the second step's integer id is the runtime's "unset" sentinel.
    blob["steps"][1]["id"] = -1
    write("fused_bad_sentinel.blob.json",
          blob_json(note + ["DEFECTIVE on purpose: step 1 has integer id -1 (init must refuse it)."],
                    blob))
    p = Program()
    x, y = p.tensor([1, 4]), p.tensor([1, 2])
    p.inputs, p.outputs = [x], [y]
    p.delegate([x, y])
    write("fused_mlp.program.json", p.json(note + ["One DelegateCall: (x, y)."]))


if __name__ == "__main__":
    elementwise_programs()
    linear_programs()
    mlp_programs()
