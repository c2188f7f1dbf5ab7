#!/usr/bin/env python3
"""Writes remedies_two_stage.csv: the final point of each remedy's replay
of the two-stage toy of torch_optim_two_stage.py (same problem, same
hand-written PipeDream order for S = 2, N = 4), with plain SGD and with
SGD momentum, each rule written here from its paper as docs/methods.md
states it:

  pd-nostash  the backward reads the block current at its time;
  2bw         A = 2: mean of the group's stashed-point gradients, one
              update per group on each stage after its last backward;
  pipemare    T = 4, D = 0.9: step α·max(τ,1)^-(1 - min(t/T, 1)), the
              backward reads w - τ·δ, δ ← D·δ + (1 - D)·Δw;
  predict     the forward reads w - τ·γ·u, τ the stage's updates before
              this microbatch's backward, u the last gradient (sgd) or the
              momentum buffer;
  dc          λ = 0.5: g + λ·g⊙g⊙(w_now - w_stash);
  dc-a        λ0 = 0.5, DC-ASGD-a: per stage ms ← 0.95·ms + 0.05·g⊙g (ms
              from 0, this gradient included), then
              g + λ0/√(ms + 1e-7)·g⊙g⊙(w_now - w_stash).

Standard library only. Run:
python3 remedies_two_stage.py > remedies_two_stage.csv
"""
from torch_optim_two_stage import A, Y, BLOCKS, LR, MOMENTUM, EVENTS, gradient

T, D, LAMBDA, GROUP = 4, 0.9, 0.5, 2
MS_DECAY, MS_EPS = 0.95, 1e-7


class Stage:
    """One stage's optimizer: sgd or torch's SGD with momentum."""

    def __init__(self, name, n):
        self.name, self.t, self.buf, self.last = name, 0, None, [0.0] * n

    def step(self, p, g, lr):
        self.t += 1
        self.last = list(g)
        if self.name == "sgd":
            return [pi - lr * gi for pi, gi in zip(p, g)]
        self.buf = list(g) if self.buf is None else [MOMENTUM * b + gi for b, gi in zip(self.buf, g)]
        return [pi - lr * b for pi, b in zip(p, self.buf)]

    def direction(self):
        if self.name == "sgd":
            return self.last
        return self.buf if self.buf is not None else [0.0] * len(self.last)


def lookahead():
    """(m, s) -> backwards of stage s between F(m, s) and B(m, s)."""
    count, at, out = [0, 0], {}, {}
    for kind, m, s in EVENTS:
        if kind == "F":
            at[(m, s)] = count[s]
        else:
            out[(m, s)] = count[s] - at[(m, s)]
            count[s] += 1
    return out


def replay(method, opt):
    x = [0.0] * 4
    stages = [Stage(opt, hi - lo) for lo, hi in BLOCKS]
    stash, done, at_f = {}, [0, 0], {}
    delta = [[0.0] * (hi - lo) for lo, hi in BLOCKS]
    acc = [[0.0] * (hi - lo) for lo, hi in BLOCKS]
    in_group = [0, 0]
    mean_sq = [[0.0] * (hi - lo) for lo, hi in BLOCKS]
    ahead = lookahead()
    for kind, m, s in EVENTS:
        lo, hi = BLOCKS[s]
        z = stash.setdefault(m, [0.0] * 4)
        w = x[lo:hi]
        if kind == "F":
            at_f[(m, s)] = done[s]
            if method == "predict":
                u = stages[s].direction()
                w = [wi - ahead[(m, s)] * LR * ui for wi, ui in zip(w, u)]
            z[lo:hi] = w
            continue
        tau = done[s] - at_f[(m, s)]
        point = list(z)
        if method == "pd-nostash":
            point[lo:hi] = w
        elif method == "pipemare":
            point[lo:hi] = [wi - tau * di for wi, di in zip(w, delta[s])]
        g = gradient(point, m % 3)[lo:hi]
        if method == "dc":
            g = [gi + LAMBDA * gi * gi * (wi - zi) for gi, wi, zi in zip(g, w, z[lo:hi])]
        if method == "dc-a":
            mean_sq[s] = [MS_DECAY * v + (1 - MS_DECAY) * gi * gi for v, gi in zip(mean_sq[s], g)]
            g = [gi + LAMBDA / (v + MS_EPS) ** 0.5 * gi * gi * (wi - zi)
                 for gi, v, wi, zi in zip(g, mean_sq[s], w, z[lo:hi])]
        lr = LR
        if method == "2bw":
            acc[s] = [a + gi for a, gi in zip(acc[s], g)]
            in_group[s] += 1
            if in_group[s] < GROUP:
                continue
            g = [a / GROUP for a in acc[s]]
            acc[s], in_group[s] = [0.0] * (hi - lo), 0
        if method == "pipemare":
            p = 1 - min(done[s] / T, 1)
            lr = LR * max(tau, 1) ** (-p)
        new = stages[s].step(w, g, lr)
        if method == "pipemare":
            delta[s] = [D * di + (1 - D) * (n - o) for di, n, o in zip(delta[s], new, w)]
        x[lo:hi] = new
        done[s] += 1
    return x


print("method,optimizer,x0,x1,x2,x3")
for method in ("pd-nostash", "2bw", "pipemare", "predict", "dc", "dc-a"):
    for opt in ("sgd", "momentum"):
        print(",".join([method, opt] + [repr(v) for v in replay(method, opt)]))
