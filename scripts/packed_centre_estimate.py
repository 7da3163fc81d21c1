#!/usr/bin/env python3
"""How much an interior-point tie-break would slow packed LAS at light load: a static estimate.

Gavel's max_min_fairness_packed solves its LP with ECOS, whose limit point is the analytic centre of the optimal
face. GLPK's vertex (dlsim's `tie_break=vertex`) runs every job that does not pin the max-min level alone on its
best type; at the centre (`tie_break=centre`, policies/lp/row_centre) such a job also spends time packed (at its
lower pair rate) and on slower types. This estimate was made before the centre was built; the reference runs
(results/reference/gavel-continuous-single/README.md) measure it.
For M single-GPU jobs drawn from the profile's 26 job types on Gavel's 36:36:36 cluster, this script computes
the face's analytic centre twice, with pair columns and without (the unpacked LAS centre, which reproduces
Gavel's unpacked light-load JCT), and prints each job's throughput ratio packed/unpacked. At light load a job's
JCT scales with 1/throughput, so the harmonic mean of the ratio estimates the packed slowdown.

Static: one allocation per sample, no arrivals or rounds. Pairs: every pair (as Gavel's LP), or only the pairs
dlsim's packed LP considers (normalised pair sum above 1 on some type). Uses numpy (python3-matplotlib's
dependency). Run: python3 scripts/packed_centre_estimate.py [profile.json] (about 9 minutes: dense Newton steps,
most of them at M = 28 with every pair).
"""
import itertools
import json
import random
import sys

import numpy as np

TYPES = ["v100", "p100", "k80"]
CAPACITY = 36.0
DELTA = 1e-4  # the floors sit δ below the optimum, so the bottleneck jobs have an interior


def analytic_centre(A, b, w):
    """Maximise Σ log(A·w − b) from a strictly feasible w: damped Newton with a feasible Armijo line search."""
    for _ in range(200):
        s = A @ w - b
        g = A.T @ (1 / s)  # ∇ of the barrier
        H = A.T @ (A / (s ** 2)[:, None])  # −∇²
        d = np.linalg.solve(H, g)
        decrement = g @ d
        if decrement / 2 < 1e-12:
            break
        As = A @ d
        shrinking = As < 0
        step = min(1.0, 0.99 * np.min(-s[shrinking] / As[shrinking])) if shrinking.any() else 1.0
        base = np.log(s).sum()
        while step > 1e-14:
            trial = A @ (w + step * d) - b
            if (trial > 0).all() and np.log(trial).sum() >= base + 0.25 * step * decrement:
                break
            step /= 2
        w = w + step * d
    return w


def centre_throughputs(profile, models, pairs_kind):
    """Each job's throughput at the centre of the max-min optimal face; pairs_kind: none, all, dlsim."""
    M = len(models)
    T = np.array([[profile[m]["throughput"][t] for t in TYPES] for m in models])
    scale = 1 / T.mean(axis=1)  # 1/T^prop on equal type counts
    level = min(scale[i] * T[i].max() for i in range(M))  # z*: every job alone on its best type is feasible

    def pair_rates(a, b, t):
        rates = profile[models[a]].get("pairs", {}).get(TYPES[t], {}).get(models[b])
        return rates if rates else [0.0, 0.0]

    pairs = []
    if pairs_kind != "none":
        for a, b in itertools.combinations(range(M), 2):
            sums = [pair_rates(a, b, t)[0] / T[a, t] + pair_rates(a, b, t)[1] / T[b, t] for t in range(3)]
            if pairs_kind == "all" or max(sums) > 1:
                pairs.append((a, b))
    n = 3 * (M + len(pairs))

    def single(i, t):
        return 3 * i + t

    def packed(p, t):
        return 3 * (M + p) + t

    rows, rhs = [np.eye(n)], [np.zeros(n)]  # x >= 0
    share = np.zeros((M, n))  # 1 − Σ x >= 0 per job
    floor = np.zeros((M, n))  # scale·θ >= z*(1 − δ) per job
    for i in range(M):
        for t in range(3):
            share[i, single(i, t)] = -1
            floor[i, single(i, t)] = scale[i] * T[i, t]
    for p, (a, b) in enumerate(pairs):
        for t in range(3):
            rates = pair_rates(a, b, t)
            for member, rate in ((a, rates[0]), (b, rates[1])):
                share[member, packed(p, t)] = -1
                floor[member, packed(p, t)] = scale[member] * rate
    capacity = np.zeros((3, n))
    for t in range(3):
        capacity[t, [single(i, t) for i in range(M)] + [packed(p, t) for p in range(len(pairs))]] = -1
    rows += [share, floor, capacity]
    rhs += [-np.ones(M), np.full(M, level * (1 - DELTA)), np.full(3, -CAPACITY)]
    A, b = np.vstack(rows), np.concatenate(rhs)

    # Start: every job almost wholly on its best type, a little everywhere else.
    spread = DELTA / 20
    w = np.full(n, spread / n)
    for i in range(M):
        w[single(i, int(T[i].argmax()))] = 1 - spread
    w = analytic_centre(A, b, w)
    return (floor @ w) / scale


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "models/profiles/gavel.json"
    profile = json.load(open(path))["models"]
    models = sorted(m for m in profile if all(t in profile[m]["throughput"] for t in TYPES))
    rng = random.Random(1)
    print("active jobs M (Little's law at 17.6 h: M/17.6 jobs/h) | samples | harmonic mean of throughput "
          "packed/unpacked centre: all pairs, dlsim's candidate pairs")
    for M in (7, 14, 21, 28):
        all_pairs, candidates = [], []
        samples = 4
        for _ in range(samples):
            jobs = [rng.choice(models) for _ in range(M)]
            base = centre_throughputs(profile, jobs, "none")
            all_pairs += list(centre_throughputs(profile, jobs, "all") / base)
            candidates += list(centre_throughputs(profile, jobs, "dlsim") / base)
        harmonic = lambda r: 1 / np.mean(1 / np.array(r))
        print(f"{M:3d} ({M / 17.6:.1f} jobs/h) | {samples} | {harmonic(all_pairs):.3f}  {harmonic(candidates):.3f}")


if __name__ == "__main__":
    main()
