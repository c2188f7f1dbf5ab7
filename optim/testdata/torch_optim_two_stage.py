#!/usr/bin/env python3
"""Writes torch_optim_two_stage.csv: the final point of a two-stage
PipeDream replay (weight stashing) on a toy least-squares problem, for
each optimizer, computed with torch.optim's update formulas as torch's
documentation states them (SGD with momentum and dampening 0, Nesterov,
Adam and AdamW with bias correction; no amsgrad, no maximize).

Independent of pipelab: the standard library only, the replay order
written out by hand from the unit-time PipeDream grid for S = 2, N = 4
(docs/reference.md §1.2):

    stage 0: F1 F2  . B1 F3 B2 F4 B3  . B4
    stage 1:  . F1 B1 F2 B2 F3 B3 F4 B4  .

Run: python3 torch_optim_two_stage.py > torch_optim_two_stage.csv
"""
import math

# f_b(x) = 1/2 (a_b . x - y_b)^2 for batch b; microbatch m uses batch m mod 3.
A = [[1.0, 2.0, -1.0, 0.5], [0.5, -1.0, 2.0, 1.0], [-1.5, 0.25, 1.0, -2.0]]
Y = [1.0, -0.5, 2.0]
BLOCKS = [(0, 2), (2, 4)]
LR = 0.1
MOMENTUM, BETA1, BETA2, EPS, WD = 0.9, 0.9, 0.999, 1e-8, 0.01

# Events in replay order (time step, then stage): (kind, microbatch, stage).
EVENTS = [
    ("F", 0, 0),
    ("F", 1, 0), ("F", 0, 1),
    ("B", 0, 1),
    ("B", 0, 0), ("F", 1, 1),
    ("F", 2, 0), ("B", 1, 1),
    ("B", 1, 0), ("F", 2, 1),
    ("F", 3, 0), ("B", 2, 1),
    ("B", 2, 0), ("F", 3, 1),
    ("B", 3, 1),
    ("B", 3, 0),
]


def gradient(z, b):
    r = sum(a * v for a, v in zip(A[b], z)) - Y[b]
    return [a * r for a in A[b]]


class StageOptimizer:
    """One stage's torch.optim optimizer over its block."""

    def __init__(self, name, n):
        self.name, self.t = name, 0
        self.buf = None
        self.m, self.v = [0.0] * n, [0.0] * n

    def step(self, p, g):
        self.t += 1
        if self.name == "sgd":
            return [pi - LR * gi for pi, gi in zip(p, g)]
        if self.name in ("momentum", "nesterov"):
            if self.buf is None:
                self.buf = list(g)
            else:
                self.buf = [MOMENTUM * bi + gi for bi, gi in zip(self.buf, g)]
            d = self.buf
            if self.name == "nesterov":
                d = [gi + MOMENTUM * bi for gi, bi in zip(g, self.buf)]
            return [pi - LR * di for pi, di in zip(p, d)]
        if self.name == "adamw":
            p = [pi * (1 - LR * WD) for pi in p]
        self.m = [BETA1 * mi + (1 - BETA1) * gi for mi, gi in zip(self.m, g)]
        self.v = [BETA2 * vi + (1 - BETA2) * gi * gi for vi, gi in zip(self.v, g)]
        bc1 = 1 - BETA1 ** self.t
        bc2 = 1 - BETA2 ** self.t
        out = []
        for pi, mi, vi in zip(p, self.m, self.v):
            denom = math.sqrt(vi) / math.sqrt(bc2) + EPS
            out.append(pi - (LR / bc1) * mi / denom)
        return out


def replay(name):
    x = [0.0] * 4
    opts = [StageOptimizer(name, hi - lo) for lo, hi in BLOCKS]
    stash = {}
    for kind, m, s in EVENTS:
        lo, hi = BLOCKS[s]
        z = stash.setdefault(m, [0.0] * 4)
        if kind == "F":
            z[lo:hi] = x[lo:hi]
            continue
        g = gradient(z, m % 3)[lo:hi]
        x[lo:hi] = opts[s].step(x[lo:hi], g)
    return x


if __name__ == "__main__":
    print("optimizer,x0,x1,x2,x3")
    for name in ("sgd", "momentum", "nesterov", "adam", "adamw"):
        print(",".join([name] + [repr(v) for v in replay(name)]))
