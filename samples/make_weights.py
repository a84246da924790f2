#!/usr/bin/env python3
"""Writes the .npy weights of the samples (seq2seq/, classifier/): deterministic, no NumPy needed.

Run from samples/: python3 make_weights.py. The files are committed; rerunning rewrites the
same bytes.
"""
import struct


class Lcg:
    def __init__(self, seed):
        self.state = seed

    def uniform(self):
        # Numerical Recipes' 32-bit LCG; returns a float in [-0.5, 0.5).
        self.state = (1664525 * self.state + 1013904223) % (1 << 32)
        return self.state / float(1 << 32) - 0.5


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    # NumPy pads the header with spaces so that the data starts at a multiple of 64.
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def weights(path, shape, seed, scale):
    rng = Lcg(seed)
    n = 1
    for s in shape:
        n *= s
    write_npy(path, shape, [2.0 * scale * rng.uniform() for _ in range(n)])


if __name__ == "__main__":
    d = 8
    for i, (name, shape) in enumerate([
            ("enc_w", (d, d)), ("enc_b", (d,)), ("cross_wk", (d, d)), ("cross_wv", (d, d)),
            ("dec_w", (d, d)), ("dec_b", (d,)), ("self_wk", (d, d)), ("self_wv", (d, d)),
            ("out_w", (d, d)), ("out_b", (d,))]):
        weights("seq2seq/%s.npy" % name, shape, 100 + i, 0.5)
    for i, (name, shape) in enumerate([
            ("w1", (16, 32)), ("b1", (32,)), ("w2", (32, 32)), ("b2", (32,)),
            ("w3", (32, 4)), ("b3", (4,))]):
        weights("classifier/%s.npy" % name, shape, 200 + i, 0.25)
