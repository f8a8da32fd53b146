"""Ratings from pairwise results: the Bradley-Terry maximum-likelihood fit in Elo points,
with sandwich 95% intervals (the tournament's figures; see fastbg.jobs.tournaments).
"""
import math

import numpy as np

from fastbg.sim.results import Z95

ELO_SCALE = 400.0 / math.log(10.0)   # Elo points per unit of logit


def _strongly_connected(k, edges):
    """True when every node reaches every other along directed ``edges`` (i, j)."""
    def reach(adj):
        seen, stack = {0}, [0]
        while stack:
            a = stack.pop()
            for b in adj[a]:
                if b not in seen:
                    seen.add(b)
                    stack.append(b)
        return len(seen) == k
    fwd = [[] for _ in range(k)]
    back = [[] for _ in range(k)]
    for a, b in edges:
        fwd[a].append(b)
        back[b].append(a)
    return reach(fwd) and reach(back)


def _connected(k, data):
    return _strongly_connected(k, [(i, j) for i, j, *_ in data] + [(j, i) for i, j, *_ in data])


def _loglik(theta, data):
    ll = 0.0
    for i, j, n, w, _ in data:
        x = theta[i] - theta[j]
        ll -= w * np.logaddexp(0.0, -x) + (n - w) * np.logaddexp(0.0, x)
    return ll


def elo_ratings(k, data):
    """Bradley-Terry MLE with the mean fixed at 0, in Elo points.

    data: (i, j, n, wins of i, estimated variance of the wins) per pair played.
    Returns (ratings, 95% half-widths, note or None), each rating list of length k.
    """
    nan = [math.nan] * k
    if not data or not _connected(k, data):
        return nan, nan, "not every bot is linked to the others by games yet: no ratings"
    note = None
    wins = [(i, j) for i, j, n, w, _ in data if w > 0] + [(j, i) for i, j, n, w, _ in data if w < n]
    if not _strongly_connected(k, wins):
        data = [(i, j, n + 1, w + 0.5, v) for i, j, n, w, v in data]
        note = ("some bot won or lost every game against the rest: half a virtual win and "
                "half a virtual loss added to every pair")
    theta = np.zeros(k)
    ll = _loglik(theta, data)
    for _ in range(200):
        grad = np.zeros(k)
        info = np.zeros((k, k))
        for i, j, n, w, _ in data:
            p = 1.0 / (1.0 + math.exp(-(theta[i] - theta[j])))
            g = w - n * p
            grad[i] += g
            grad[j] -= g
            h = n * p * (1.0 - p)
            info[i, i] += h
            info[j, j] += h
            info[i, j] -= h
            info[j, i] -= h
        step = np.linalg.pinv(info) @ grad
        t = 1.0
        while True:
            trial = theta + t * step
            trial -= trial.mean()
            new = _loglik(trial, data)
            if new >= ll or t < 1e-9:
                break
            t /= 2.0
        moved = float(np.max(np.abs(trial - theta)))
        theta, ll = trial, new
        if moved < 1e-12:
            break
    info = np.zeros((k, k))
    meat = np.zeros((k, k))
    for i, j, n, w, v in data:
        p = 1.0 / (1.0 + math.exp(-(theta[i] - theta[j])))
        h = n * p * (1.0 - p)
        if v == 0.0:
            v = h     # every game went one way: no observed variance, take the model's
        for a, b, s in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
            info[a, b] += s * h
            meat[a, b] += s * v
    inv = np.linalg.pinv(info)
    cov = inv @ meat @ inv
    half = [Z95 * math.sqrt(c) * ELO_SCALE if c >= 0 else math.nan for c in np.diag(cov)]
    return [float(x) * ELO_SCALE for x in theta], half, note
