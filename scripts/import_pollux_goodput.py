#!/usr/bin/env python3
"""Fit Pollux's goodput model to its measured data and write a dlsim profile with `goodput` blocks
(models/profiles/pollux_elastic.json; the block is described in models/profiles/README.md).

Source: Pollux (Qiao et al., OSDI'21), github.com/petuum/adaptdl branch osdi21-artifact, commit
c793c7089bd307462686339d29707925c461f9a9 (Apache-2.0), simulator/traces/<app>/placements.csv,
scalability.csv and validation-<B>.csv, measured on AWS g4dn.12xlarge nodes (4x T4 per node).

Per application:
- the step-time parameters (alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma) fitted as Pollux's
  fit_perf_params fits them (adaptdl goodput.py), on every row of placements.csv (nodes = digits of the
  placement, replicas = their sum) and of scalability.csv: the objective is the RMS error of log
  accumulation-step time (step_time - sync_time) plus that of log optimizer-step time (step_time), plus
  1e-3 (gamma - 1)^2 and 1e-2 ((beta_n/alpha_n)^2 + (beta_r/alpha_r)^2); bounds [1e-8, inf), gamma in
  [1, 10]; start (0.1, 0.01) x 3 and gamma 1.001; scipy's L-BFGS-B with the exact gradient. Pollux's rules
  for sparse data are kept (parameters held where no point informs them; alpha_n, beta_n at least 1.1x
  alpha_r, beta_r without a multi-node point), though every application here has points of every kind;
- the application constants of the artifact's applications.py: max_epochs, max_local_bsz (yolov3: 8),
  min_local_bsz and max_local_bsz otherwise the extremes of placements.csv's local_bsz, init and max batch
  size the smallest and largest validated batch size;
- the validation tables (progress in iterations at the initial batch size, iterations, gradient statistics),
  one row per epoch;
- `throughput` {"t4": optimizer steps/s on one GPU at the initial batch size, from the fitted model} and
  `local_bsz`, the per-GPU micro-batch of that step.

- `measured`: the measured step times as the artifact's simulator reads them (applications.py get_throughput):
  each placement of placements.csv as measured (step and sync seconds at each measured micro-batch, linear
  between), and for every (nodes <= 16, replicas) the linear interpolation over all measurements in
  (nodes, replicas, micro-batch) that it falls back to (scipy's LinearNDInterpolator on the placements'
  per-shape means followed by scalability.csv, the artifact's order, each point evaluated as in a call of its
  own), stored as the knots of a piecewise-linear function of the micro-batch, checked exact at every integer
  micro-batch of the type's range.

The script prints each application's parameters and the mean absolute percentage error of the modelled
step time over the measured points. Needs numpy and scipy.

Sia mode (--sia): the same applications with step-time parameters per GPU type, for Sia (Jayaram
Subramanya et al., SOSP'23; github.com/siasosp23/artifacts, sia-simulator/traces/<app>/): t4 from Pollux's
files, a100 from placements-dgx-ext.csv/scalability-dgx-ext.csv, rtx from -rtx, v100 from -azure, quadro
from -quad, each fitted as above; each type's entry carries its own min_local_bsz/max_local_bsz, the
extremes of its placements file as Sia's applications.py takes them (deepspeech2 on rtx: 57, its override;
yolov3 on t4: 16, Sia having no memory override there); validation tables from Pollux's.

usage: python3 scripts/import_pollux_goodput.py POLLUX_DATA > models/profiles/pollux_elastic.json
       python3 scripts/import_pollux_goodput.py POLLUX_DATA --sia SIA_DATA > models/profiles/sia_elastic.json
  POLLUX_DATA holds <app>/placements.csv, scalability.csv and validation-<B>.csv for each application;
  SIA_DATA holds <app>/placements-<type>.csv and scalability-<type>.csv. The fit report goes to stderr.
"""
import csv
import glob
import json
import math
import os
import sys

import numpy as np
import scipy.optimize
import scipy.spatial
from scipy.interpolate import LinearNDInterpolator

COMMIT = "c793c7089bd307462686339d29707925c461f9a9"
SIA_COMMIT = "aaf7a0de7b6cb5eab06ea020467ede5d2fd18e70"
EPS = 1e-8

# The artifact's applications.py: completion after max_epochs (no target metric), yolov3's memory limit.
APPS = {
    "bert": {"max_epochs": 2},
    "cifar10": {"max_epochs": 100},
    "deepspeech2": {"max_epochs": 80},
    "imagenet": {"max_epochs": 90},
    # simulator.py holds NCF on one GPU and, under Pollux, at batch size 32768.
    "ncf": {"max_epochs": 10, "max_replicas": 1, "fixed_batch_size": 32768},
    "yolov3": {"max_epochs": 50, "max_local_bsz": 8},
}
NAMES = ["alpha_c", "beta_c", "alpha_n", "beta_n", "alpha_r", "beta_r", "gamma"]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def measured_points(app_dir, suffix=""):
    """(nodes, replicas, local_bsz, step_time, sync_time) arrays over placements<suffix>.csv then
    scalability<suffix>.csv."""
    rows = []
    for r in read(os.path.join(app_dir, f"placements{suffix}.csv")):
        p = r["placement"]
        rows.append((len(p), sum(int(c) for c in p), int(r["local_bsz"]), float(r["step_time"]),
                     float(r["sync_time"])))
    for r in read(os.path.join(app_dir, f"scalability{suffix}.csv")):
        rows.append((int(r["num_nodes"]), int(r["num_replicas"]), int(r["local_bsz"]), float(r["step_time"]),
                     float(r["sync_time"])))
    cols = list(zip(*rows))
    return tuple(np.array(c, dtype=float) for c in cols)


def measured_tables(app_dir, suffix, gpus_per_node, lo, hi, max_nodes=16):
    """The `measured` entry of one GPU type: step tables by placement and by "<nodes>x<replicas>", each a flat
    list of (micro-batch, step seconds, sync seconds) triples, exact at every integer micro-batch in [lo, hi]."""
    placements, groups = {}, {}
    for r in read(os.path.join(app_dir, f"placements{suffix}.csv")):
        p, b = r["placement"], int(r["local_bsz"])
        step, sync = float(r["step_time"]), float(r["sync_time"])
        placements.setdefault(p, []).append((b, step, sync))
        groups.setdefault((len(p), sum(int(c) for c in p), b), []).append((step, sync))
    points = [list(k) + list(np.mean(v, 0)) for k, v in sorted(groups.items())]
    for r in read(os.path.join(app_dir, f"scalability{suffix}.csv")):
        points.append([int(r["num_nodes"]), int(r["num_replicas"]), int(r["local_bsz"]), float(r["step_time"]),
                       float(r["sync_time"])])
    points = np.array(points, dtype=float)
    tables = {"placements": {p: [float(f"{v:.12g}") for row in sorted(rows) for v in row]
                             for p, rows in sorted(placements.items())},
              "shapes": {}}
    try:
        interp = LinearNDInterpolator(points[:, :3], points[:, 3:])
    except scipy.spatial.QhullError as e:  # e.g. every point on one node: no volume to interpolate in
        print(f"{app_dir} {suffix}: measured placements only ({str(e).splitlines()[0]})", file=sys.stderr)
        return tables
    transform = interp.tri.transform
    shapes = tables["shapes"]
    # The artifact asks for one point per call, and scipy's search for a point's simplex starts where the
    # previous point's ended (simplex 0 in a fresh call). Where degenerate simplices make that matter, a
    # point of simplex 0 before each query puts every search back at the start of a fresh call.
    # If simplex 0 is degenerate (no point inside it), each point is asked for in a call of its own (slower).
    reset = interp.tri.points[interp.tri.simplices[0]].mean(0)
    if interp.tri.find_simplex(reset[None, :])[0] != 0:
        reset = None
    grid = np.arange(lo, hi + 1, dtype=float)
    for n in range(1, max_nodes + 1):
        for r in range(n, gpus_per_node * n + 1):
            def at(b):
                if reset is None:
                    return np.array([interp(np.array([[n, r, x]]))[0] for x in b]).reshape(len(b), 2)
                queries = np.empty((2 * len(b), 3))
                queries[0::2] = reset
                queries[1::2] = np.stack([np.full(len(b), n), np.full(len(b), r), b], 1)
                return interp(queries)[1::2]
            truth = at(grid)
            inside = ~np.isnan(truth[:, 0])
            if not inside.any():
                continue
            xs, truth = grid[inside], truth[inside]
            # Where the line (n, r, b) crosses a face of the triangulation: barycentric coordinate zero.
            bary = np.einsum("sij,sj->si", transform[:, :3, :], np.array([n, r, 0.0]) - transform[:, 3, :])
            slope = transform[:, :3, 2]
            bary = np.concatenate([bary, 1 - bary.sum(1, keepdims=True)], 1)
            slope = np.concatenate([slope, -slope.sum(1, keepdims=True)], 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                cuts = (-bary / slope).ravel()
            cuts = cuts[np.isfinite(cuts) & (cuts > xs[0]) & (cuts < xs[-1])]
            knots = np.concatenate([[xs[0], xs[-1]], cuts])
            # Crossings within 1e-6 of an integer are at it (rounding), so integer knots are never doubled.
            near = np.abs(knots - np.round(knots)) < 1e-6
            knots = np.unique(np.where(near, np.round(knots), knots))
            vals = at(knots)
            keep = ~np.isnan(vals[:, 0])
            knots, vals = knots[keep], vals[keep]
            # Degenerate (flat) simplices hide some crossings: add any integer the pieces miss as a knot.
            for _ in range(1000):
                est = np.stack([np.interp(xs, knots, vals[:, k]) for k in range(2)], 1)
                off = np.abs(est - truth).max(1) > 1e-12 * np.abs(truth).max(1)
                if not off.any():
                    break
                add = xs[off][~np.isin(xs[off], knots)]
                if len(add) == 0:  # a knot's own value differs from the integer's: replace it
                    sys.exit(f"{app_dir}{suffix}: shape {n}x{r}: an integer knot disagrees with the interpolation")
                knots = np.concatenate([knots, add])
                vals = np.concatenate([vals, at(add)])
                order = np.argsort(knots, kind="stable")
                knots, vals = knots[order], vals[order]
            # Knots on the straight line between their kept neighbours add nothing.
            kept = [0]
            for i in range(1, len(knots) - 1):
                a, b = kept[-1], i + 1
                w = (knots[i] - knots[a]) / (knots[b] - knots[a])
                if np.abs(vals[a] + w * (vals[b] - vals[a]) - vals[i]).max() > 1e-13 * np.abs(vals[i]).max():
                    kept.append(i)
            kept.append(len(knots) - 1)
            knots, vals = knots[kept], vals[kept]
            est = np.stack([np.interp(xs, knots, vals[:, k]) for k in range(2)], 1)
            if (np.abs(est - truth).max(1) > 1e-10 * np.abs(truth).max(1)).any():
                sys.exit(f"{app_dir}{suffix}: shape {n}x{r}: the knots do not reproduce the interpolation")
            if np.any(np.diff([float(f"{k:.12g}") for k in knots]) <= 0):
                sys.exit(f"{app_dir}{suffix}: shape {n}x{r}: knots closer than 12 digits")
            shapes[f"{n}x{r}"] = [float(f"{v:.12g}") for row in zip(knots, vals[:, 0], vals[:, 1]) for v in row]
    return tables


def network_parts(x, nodes, replicas):
    """Per point: (alpha, beta, d alpha index, d beta index) selection of Pollux's network time."""
    inter = nodes > 1
    intra = (~inter) & (replicas > 1)
    rounds = np.maximum(replicas - 2, EPS)
    alpha = np.where(inter, x[2], np.where(intra, x[4], EPS))
    beta = np.where(inter, x[3], np.where(intra, x[5], EPS))
    return alpha + beta * rounds, inter, intra, rounds


def predict(x, nodes, replicas, bsz):
    """(accumulation-step time, log optimizer-step time) of the model with parameters x."""
    accum = x[0] + x[1] * bsz
    net, _, _, _ = network_parts(x, nodes, replicas)
    g = x[6]
    return accum, np.log(accum ** g + net ** g) / g


def objective(x, nodes, replicas, bsz, accum_time, optim_time):
    """Pollux's _obj_fn and its exact gradient."""
    g = x[6]
    accum = x[0] + x[1] * bsz
    net, inter, intra, rounds = network_parts(x, nodes, replicas)
    s = accum ** g + net ** g
    log_optim = np.log(s) / g
    r1 = np.log(accum) - np.log(accum_time)
    r2 = log_optim - np.log(optim_time)
    err1 = math.sqrt(np.mean(r1 ** 2))
    err2 = math.sqrt(np.mean(r2 ** 2))
    value = err1 + err2 + 1e-3 * (g - 1) ** 2 + 1e-2 * ((x[3] / x[2]) ** 2 + (x[5] / x[4]) ** 2)

    grad = np.zeros(7)
    n = len(bsz)
    w1 = r1 / (n * err1) if err1 > 0 else np.zeros(n)
    w2 = r2 / (n * err2) if err2 > 0 else np.zeros(n)
    d_accum = accum ** (g - 1) / s  # d log_optim / d accum
    d_net = net ** (g - 1) / s
    grad[0] = np.sum(w1 / accum) + np.sum(w2 * d_accum)
    grad[1] = np.sum(w1 * bsz / accum) + np.sum(w2 * d_accum * bsz)
    grad[2] = np.sum(w2 * d_net * inter)
    grad[3] = np.sum(w2 * d_net * inter * rounds)
    grad[4] = np.sum(w2 * d_net * intra)
    grad[5] = np.sum(w2 * d_net * intra * rounds)
    d_g = (accum ** g * np.log(accum) + net ** g * np.log(net)) / (g * s) - np.log(s) / g ** 2
    grad[6] = np.sum(w2 * d_g) + 2e-3 * (g - 1)
    grad[2] += -2e-2 * x[3] ** 2 / x[2] ** 3
    grad[3] += 2e-2 * x[3] / x[2] ** 2
    grad[4] += -2e-2 * x[5] ** 2 / x[4] ** 3
    grad[5] += 2e-2 * x[5] / x[4] ** 2
    return value, grad


def fit(nodes, replicas, bsz, step_time, sync_time):
    """Pollux's fit_perf_params on these points: a list of the seven parameters."""
    accum_time = step_time - sync_time
    x0 = [1e-1, 1e-2] * 3 + [1.0 + 1e-3]
    lower = [1e-8, 1e-8] * 3 + [1.0]
    upper = [np.inf, np.inf] * 3 + [10.0]

    def hold(i, value):
        x0[i] = lower[i] = upper[i] = value

    if len(np.unique(bsz)) == 1:
        hold(0, float(np.mean(accum_time)) / 2)
    if not np.any(nodes > 1):
        hold(2, lower[2]), hold(3, lower[3])
    if not np.any((nodes == 1) & (replicas > 1)):
        hold(4, lower[4]), hold(5, lower[5])
    if not np.any(replicas > 2):
        hold(3, lower[3]), hold(5, lower[5])
    args = (nodes, replicas, bsz, accum_time, step_time)
    result = scipy.optimize.minimize(objective, x0, args=args, jac=True, method="L-BFGS-B",
                                     bounds=scipy.optimize.Bounds(lower, upper))
    x = [float(v) for v in result.x]
    if not np.any(nodes > 1):
        x[2] = max(x[2], 1.1 * x[4])
        x[3] = max(x[3], 1.1 * x[5])
    return x


def single_gpu_step(x, init_batch_size, max_local_bsz):
    """(seconds per optimizer step, micro-batch) on one GPU at the initial batch size, split as Pollux does."""
    accum_steps = math.ceil(init_batch_size / max_local_bsz - EPS) - 1
    atomic = math.ceil(init_batch_size / (accum_steps + 1) - EPS)
    one = np.array([1.0])
    accum, log_optim = predict(x, one, one, np.array([float(atomic)]))
    return accum_steps * float(accum[0]) + math.exp(float(log_optim[0])), atomic


def validation_tables(app_dir, max_epochs):
    tables = {}
    for path in glob.glob(os.path.join(app_dir, "validation-*.csv")):
        b = int(os.path.basename(path)[len("validation-"):-len(".csv")])
        rows = read(path)[:max_epochs]
        if len(rows) < max_epochs:
            sys.exit(f"{path}: {len(rows)} rows, expected at least max_epochs = {max_epochs}")
        tables[b] = {c: [float(r[c]) for r in rows] for c in ("progress", "iteration", "grad_sqr", "grad_var")}
    return dict(sorted(tables.items()))


def application(data, app, consts):
    app_dir = os.path.join(data, app)
    nodes, replicas, bsz, step_time, sync_time = measured_points(app_dir)
    x = fit(nodes, replicas, bsz, step_time, sync_time)
    _, log_optim = predict(x, nodes, replicas, bsz)
    mape = float(np.mean(np.abs(np.exp(log_optim) / step_time - 1)))
    local = [int(r["local_bsz"]) for r in read(os.path.join(app_dir, "placements.csv"))]
    max_epochs = consts["max_epochs"]
    validation = validation_tables(app_dir, max_epochs)
    init_bs, max_bs = min(validation), max(validation)
    max_local = consts.get("max_local_bsz", max(local))
    step, atomic = single_gpu_step(x, init_bs, max_local)
    print(f"{app}: " + ", ".join(f"{k} {v:.6g}" for k, v in zip(NAMES, x)) +
          f"; step-time MAPE {100 * mape:.2f}% over {len(step_time)} points", file=sys.stderr)
    model = {
        "description": f"Pollux application '{app}': goodput model fitted to simulator/traces/{app}/ "
                       f"(step-time MAPE {100 * mape:.1f}% over {len(step_time)} measured points); throughput = "
                       f"optimizer steps/s on one T4 at the initial batch size {init_bs}, from the fitted model",
        "local_bsz": atomic,
        "throughput": {"t4": 1.0 / step},
        "goodput": {
            "init_batch_size": init_bs,
            "max_batch_size": max_bs,
            "min_local_bsz": min(local),
            "max_local_bsz": max_local,
            "max_epochs": max_epochs,
            **{k: consts[k] for k in ("max_replicas", "fixed_batch_size") if k in consts},
            "perf": {"t4": dict(zip(NAMES, x))},
            "measured": {"t4": measured_tables(app_dir, "", 4, min(local), max_local)},
            "validation": {str(b): t for b, t in validation.items()},
        },
    }
    return model


def dump(doc):
    """Indented JSON with each number array on one line (a table row per epoch would be long)."""
    text = json.dumps(doc, indent=1)
    out, depth_array = [], None
    for line in text.split("\n"):
        stripped = line.strip()
        if depth_array is not None:
            out[-1] += stripped if stripped.startswith("]") else stripped + " "
            if stripped.startswith("]"):
                out[-1] = out[-1].replace(" ]", "]")
                depth_array = None
            continue
        out.append(line)
        if stripped.endswith("["):
            depth_array = True
    return "\n".join(out) + "\n"


# Sia's GPU types: dlsim's name, the suffix of Sia's measurement files and GPUs per node
# (sia-simulator/simulator_config.py). t4 is Pollux's own data (Sia's -aws files are blob-identical to it).
SIA_TYPES = [("a100", "-dgx-ext", 8), ("rtx", "-rtx", 8), ("v100", "-azure", 8), ("quadro", "-quad", 4)]
# Sia's applications.py caps deepspeech2's micro-batch on rtx below the largest measured one.
SIA_MAX_LOCAL = {("deepspeech2", "rtx"): 57}


def sia_application(pollux, sia, app, consts):
    """Pollux's model of `app` plus, per Sia GPU type, parameters fitted the same way on Sia's files and the
    per-GPU micro-batch limits Sia's applications.py takes from them (the extremes of placements-<type>.csv)."""
    model = application(pollux, app, consts)
    g = model["goodput"]
    init_bs = g["init_batch_size"]
    t4_local = [int(r["local_bsz"]) for r in read(os.path.join(pollux, app, "placements.csv"))]
    # Sia's aws application has no yolov3 override: its limits are the file's extremes too.
    g["perf"]["t4"].update(min_local_bsz=min(t4_local), max_local_bsz=max(t4_local))
    g["measured"]["t4"] = measured_tables(os.path.join(pollux, app), "", 4, min(t4_local), max(t4_local))
    fitted = ["t4 (Pollux's files)"]
    for gpu, suffix, per_node in SIA_TYPES:
        app_dir = os.path.join(sia, app)
        if not os.path.exists(os.path.join(app_dir, f"placements{suffix}.csv")):
            continue
        nodes, replicas, bsz, step_time, sync_time = measured_points(app_dir, suffix)
        x = fit(nodes, replicas, bsz, step_time, sync_time)
        _, log_optim = predict(x, nodes, replicas, bsz)
        mape = float(np.mean(np.abs(np.exp(log_optim) / step_time - 1)))
        local = [int(r["local_bsz"]) for r in read(os.path.join(app_dir, f"placements{suffix}.csv"))]
        lo, hi = min(local), SIA_MAX_LOCAL.get((app, gpu), max(local))
        step, _ = single_gpu_step(x, init_bs, hi)
        print(f"{app} {gpu}: " + ", ".join(f"{k} {v:.6g}" for k, v in zip(NAMES, x)) +
              f"; step-time MAPE {100 * mape:.2f}% over {len(step_time)} points", file=sys.stderr)
        g["perf"][gpu] = {**dict(zip(NAMES, x)), "min_local_bsz": lo, "max_local_bsz": hi}
        g["measured"][gpu] = measured_tables(app_dir, suffix, per_node, lo, hi)
        model["throughput"][gpu] = 1.0 / step
        fitted.append(f"{gpu} ({sia_file(suffix)}, MAPE {100 * mape:.1f}% over {len(step_time)} points)")
    model["description"] = (f"Sia application '{app}': Pollux's goodput model per GPU type, fitted to "
                            + ", ".join(fitted) + f"; throughput = optimizer steps/s on one GPU of each type at "
                            f"the initial batch size {init_bs}, from the fitted model")
    return model


def sia_file(suffix):
    return f"placements{suffix}.csv + scalability{suffix}.csv"


def main(data, sia=None):
    if sia is None:
        models = {app: application(data, app, consts) for app, consts in APPS.items()}
        source = ("Pollux (OSDI'21), github.com/petuum/adaptdl branch osdi21-artifact @ " + COMMIT +
                  " (Apache-2.0): simulator/traces/<app>/placements.csv, scalability.csv and validation-<B>.csv "
                  "(4x T4 per node); step-time parameters fitted with Pollux's objective by "
                  "scripts/import_pollux_goodput.py")
    else:
        models = {app: sia_application(data, sia, app, consts) for app, consts in APPS.items()}
        source = ("t4 and validation tables: Pollux (OSDI'21), github.com/petuum/adaptdl branch osdi21-artifact @ " +
                  COMMIT + " (Apache-2.0), simulator/traces/<app>/; a100, rtx, v100, quadro: Sia (SOSP'23), "
                  "github.com/siasosp23/artifacts @ " + SIA_COMMIT + ", sia-simulator/traces/<app>/"
                  "placements-<type>.csv and scalability-<type>.csv (dgx-ext, rtx, azure, quad); step-time "
                  "parameters fitted per type with Pollux's objective by scripts/import_pollux_goodput.py --sia")
    doc = {
        "schema": "dlsim.profile/1",
        "source": source,
        "units": "iterations/s",
        "models": models,
    }
    sys.stdout.write(dump(doc))


if __name__ == "__main__":
    if len(sys.argv) == 2:
        main(sys.argv[1])
    elif len(sys.argv) == 4 and sys.argv[2] == "--sia":
        main(sys.argv[1], sys.argv[3])
    else:
        sys.exit(__doc__)
