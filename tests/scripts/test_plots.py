#!/usr/bin/env python3
"""scripts/plot.py on real simulator output: runs a small sweep with `dlsim sweep` (fifo and srtf x
load_scale 0.5, 1, 2 x seeds 1, 2 on the bundled trace, cluster and profile), draws every figure as
PNG and PDF (one as SVG too), checks each file's magic bytes, and checks every --data-out CSV against
the numbers in the sweep's index and result files. Also checks that bad input fails on one line.

plot.py and two_run_rho.py run in this process, through their main(argv) (one matplotlib import for
every figure instead of one per figure), with what a `python3 SCRIPT ...` run would show: the exit
status, stdout and stderr, a usage error's SystemExit status, an uncaught exception's traceback.

usage: /usr/bin/python3 tests/scripts/test_plots.py --dlsim build/dlsim --work /tmp/plots-test
Exit 0 when every check passes; otherwise 1 with the first failure on stderr.
"""
import argparse
import contextlib
import csv
import importlib.util
import io
import json
import math
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLOT = REPO / "scripts" / "plot.py"
TWO_RUN_RHO = REPO / "scripts" / "two_run_rho.py"
HOUR = 3600.0
# Axis labels with units, as the field table names the keys (dlsim list fields --json), and the factor
# from the summary's value to the unit shown.
TITLES = {"avg_jct": "mean JCT (h)", "p99_jct": "99th-percentile JCT (h)", "makespan": "makespan (h)",
          "gpu_utilization": "GPU utilisation (%)", "preemptions_per_job": "preemptions per job",
          "avg_pending_time": "mean pending time (h)"}
SCALE = {"avg_jct": 1 / HOUR, "p99_jct": 1 / HOUR, "makespan": 1 / HOUR, "gpu_utilization": 100.0,
         "avg_pending_time": 1 / HOUR}
MAGIC = {".png": [b"\x89PNG\r\n\x1a\n"], ".pdf": [b"%PDF-"], ".svg": [b"<?xml", b"<svg"]}
POLICIES = ["fifo", "srtf"]
LOADS = [0.5, 1, 2]
SEEDS = [1, 2]


class Failure(Exception):
    pass


checks = 0


def check(cond, message):
    global checks
    checks += 1
    if not cond:
        raise Failure(message)


def close(a, b, rel=1e-9):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def run(cmd, env=None, ok=True):
    try:
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env)
    except OSError as e:
        raise Failure(f"cannot run {cmd[0]}: {e.strerror}")
    if ok and p.returncode != 0:
        raise Failure(f"{' '.join(map(str, cmd))} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def load_script(path, name):
    """A script of scripts/ as a module (its `if __name__ == "__main__"` part does not run)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Completed:
    """What a script's main(argv) did in this process, as subprocess.run reports a child's run."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def call(script, args, ok=True):
    """script.main(args) in this process, with what `python3 SCRIPT ARGS` would give: stdout and stderr
    captured, a SystemExit's status (None: 0; a message: printed, 1), an uncaught exception's traceback on
    stderr and status 1. Figures left open are closed, as a process's would be at its exit."""
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = script.main(argv)
        except SystemExit as e:
            code = e.code
        except Exception:
            traceback.print_exc()
            code = 1
        if code is None:
            code = 0
        elif not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
    p = Completed(code, out.getvalue(), err.getvalue())
    if ok and p.returncode != 0:
        raise Failure(f"{Path(script.__file__).name} {' '.join(argv)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def read_csv(path):
    check(path.is_file() and path.stat().st_size > 0, f"{path}: --data-out wrote no file")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def check_figure(path):
    check(path.is_file() and path.stat().st_size > 0, f"{path}: missing or empty")
    head = path.read_bytes()[:16]
    check(any(head.startswith(m) for m in MAGIC[path.suffix]),
          f"{path}: starts with {head!r}, expected {' or '.join(map(repr, MAGIC[path.suffix]))}")


def make_sweep(dlsim, work):
    """The sweep the figures are drawn from, written and run by dlsim itself."""
    spec = {
        "name": "plots-test",
        "base": {"trace": str(REPO / "traces/samples/gavel_mix_default.csv"),
                 "cluster": str(REPO / "models/clusters/gavel_simulated.json"),
                 "profiles": str(REPO / "models/profiles/gavel.json"),
                 "resample_rate": 3, "resample_jobs": 200},
        "grid": {"policy": POLICIES, "load_scale": LOADS, "seed": SEEDS},
    }
    spec_path = work / "plots_sweep.json"
    spec_path.write_text(json.dumps(spec, indent=1) + "\n")
    out = work / "sweep"
    run([dlsim, "sweep", spec_path, "--out", out, "--jobs", "2"])
    index_path = out / "index.json"
    check(index_path.is_file(), f"dlsim sweep wrote no {index_path}")
    index = json.loads(index_path.read_text())
    rows = index["runs"]
    check(len(rows) == len(POLICIES) * len(LOADS) * len(SEEDS), f"{index_path}: {len(rows)} runs, expected 12")
    check(all(r["status"] == "done" for r in rows), f"{index_path}: not every run is done")
    for r in rows:
        check((out / r["result"]).is_file(), f"{index_path}: run {r['run_id']}: no result {r['result']}")
    return index_path, index


def rows_where(index, **want):
    return [r for r in index["runs"] if all(r["parameters"][k] == v for k, v in want.items())]


def mean(values):
    return math.fsum(values) / len(values)


def test_load(plot, index_path, index, out):
    metrics = ["avg_jct", "p99_jct"]
    for ext in (".png", ".pdf", ".svg"):
        extra = ["--data-out", out / "load.csv"] if ext == ".png" else []
        plot(["load", index_path, "-o", out / f"load{ext}", "--metrics", ",".join(metrics)] + extra)
        check_figure(out / f"load{ext}")
    data = read_csv(out / "load.csv")
    check(len(data) == len(POLICIES) * len(LOADS) * len(metrics), f"load.csv: {len(data)} rows, expected 12")
    for d in data:
        group = rows_where(index, policy=d["series"], load_scale=float(d["x"]))
        check(len(group) == len(SEEDS) and int(d["n"]) == len(SEEDS), f"load.csv: row {d}: expected n=2 seeds")
        vals = [r["summary"][d["metric"]] / HOUR for r in group]
        check(d["unit"] == "h", f"load.csv: {d['metric']} should be in hours")
        for key, want in (("mean", mean(vals)), ("min", min(vals)), ("max", max(vals)), ("band_low", min(vals)),
                          ("band_high", max(vals))):
            check(close(float(d[key]), want), f"load.csv: {d['series']} x={d['x']} {d['metric']} {key} "
                                              f"{d[key]} != {want} (index, hours)")
    # --band ci: the mean's 95% confidence interval over the seeds (Student's t, n - 1 = 1: 12.706).
    plot(["load", index_path, "-o", out / "load_ci.png", "--metrics", "gpu_utilization", "--band", "ci",
          "--data-out", out / "load_ci.csv"])
    for d in read_csv(out / "load_ci.csv"):
        vals = [100 * r["summary"]["gpu_utilization"]
                for r in rows_where(index, policy=d["series"], load_scale=float(d["x"]))]
        sd = math.sqrt(sum((v - mean(vals)) ** 2 for v in vals) / (len(vals) - 1))
        half = 12.706 * sd / math.sqrt(len(vals))
        check(d["unit"] == "%", f"load_ci.csv: gpu_utilization should be in %, got {d['unit']}")
        check(close(float(d["band_low"]), mean(vals) - half) and close(float(d["band_high"]), mean(vals) + half),
              f"load_ci.csv: {d['series']} x={d['x']}: band {d['band_low']}..{d['band_high']} != "
              f"{mean(vals) - half}..{mean(vals) + half}")


def test_bars(plot, index_path, index, out):
    """Bars per load, never pooled: each policy's mean at a load ÷ fifo's mean at the same load, with its
    runs' min-max (or 95% CI) ÷ the same mean as the error bar."""
    metrics = ["avg_jct", "p99_jct", "makespan", "gpu_utilization"]
    for ext in (".png", ".pdf"):
        extra = ["--data-out", out / "bars.csv"] if ext == ".png" else []
        plot(["bars", index_path, "-o", out / f"bars{ext}", "--baseline", "fifo",
              "--metrics", ",".join(metrics)] + extra)
        check_figure(out / f"bars{ext}")
    plot(["bars", index_path, "-o", out / "bars_ci.png", "--baseline", "fifo", "--metrics", ",".join(metrics),
          "--band", "ci", "--data-out", out / "bars_ci.csv"])
    for name, band in (("bars.csv", "minmax"), ("bars_ci.csv", "ci")):
        data = read_csv(out / name)
        check(len(data) == len(POLICIES) * len(LOADS) * len(metrics),
              f"{name}: {len(data)} rows, expected 24 (per policy, load and metric)")
        for d in data:
            m, x = d["metric"], float(d["x"])
            vals = [r["summary"][m] for r in rows_where(index, policy=d["policy"], load_scale=x)]
            base = mean([r["summary"][m] for r in rows_where(index, policy="fifo", load_scale=x)])
            want = mean(vals)
            check(int(d["n"]) == len(SEEDS), f"{name}: {d['policy']} {m} at {x}: n {d['n']}")
            check(close(float(d["mean"]), want), f"{name}: {d['policy']} {m} at {x}: mean {d['mean']} != {want}")
            check(close(float(d["baseline_mean"]), base), f"{name}: {m} at {x}: baseline_mean {d['baseline_mean']}")
            check(close(float(d["ratio"]), want / base), f"{name}: {d['policy']} {m} ratio {d['ratio']} != {want / base}")
            if band == "minmax":
                low, high = min(vals), max(vals)
            else:  # two seeds: t(0.975, 1) = 12.706, sd with n - 1
                sd = math.sqrt(sum((v - want) ** 2 for v in vals) / (len(vals) - 1))
                low, high = want - 12.706 * sd / math.sqrt(2), want + 12.706 * sd / math.sqrt(2)
            check(close(float(d["ratio_low"]), low / base, 1e-9) and close(float(d["ratio_high"]), high / base, 1e-9),
                  f"{name}: {d['policy']} {m} at {x}: error bar {d['ratio_low']}..{d['ratio_high']} != "
                  f"{low / base}..{high / base}")
            if d["policy"] == "fifo":
                check(float(d["ratio"]) == 1.0, f"{name}: the baseline's own ratio is {d['ratio']}, expected 1")


def finished_jcts(result_path):
    doc = json.loads(Path(result_path).read_text())
    return sorted(j["jct"] / HOUR for j in doc["jobs"] if j["state"] == "finished"), doc


def test_cdf(plot, index_path, index, out, sweep_dir):
    for ext in (".png", ".pdf"):
        extra = ["--data-out", out / "cdf.csv"] if ext == ".png" else []
        plot(["cdf", "--index", index_path, "--where", "load_scale=1", "-o", out / f"cdf{ext}"] + extra)
        check_figure(out / f"cdf{ext}")
    data = read_csv(out / "cdf.csv")
    series = {}
    for d in data:
        series.setdefault(d["series"], []).append(d)
    picked = rows_where(index, load_scale=1)
    check(len(series) == len(picked), f"cdf.csv: {len(series)} series, expected one per run at load 1 ({len(picked)})")
    unmatched = {r["run_id"]: finished_jcts(sweep_dir / r["result"]) for r in picked}
    for name, pts in series.items():
        xs = [float(p["jct_hours"]) for p in pts]
        ys = [float(p["cdf"]) for p in pts]
        check(ys[-1] == 1.0, f"cdf.csv: series '{name}' ends at {ys[-1]}, expected 1.0")
        check(all(a <= b for a, b in zip(ys, ys[1:])) and all(a <= b for a, b in zip(xs, xs[1:])),
              f"cdf.csv: series '{name}' is not non-decreasing")
        # Each series is exactly one run's finished jobs: one point per job, at its JCT.
        match = [rid for rid, (jcts, doc) in unmatched.items()
                 if doc["config"]["policy"] == pts[0]["policy"] and len(jcts) == len(xs)
                 and all(close(a, b) for a, b in zip(jcts, xs))]
        check(len(match) >= 1, f"cdf.csv: series '{name}' matches no run's finished JCTs")
        jcts, doc = unmatched.pop(match[0])
        want = doc["summary"].get("measure", {}).get("finished", doc["summary"]["finished"])
        check(len(xs) == want, f"cdf.csv: series '{name}' has {len(xs)} points, expected {want} finished jobs")
        check(all(close(y, (i + 1) / len(ys)) for i, y in enumerate(ys)), f"cdf.csv: series '{name}': cdf != i/n")
    # Result files named on the command line work too.
    files = [sweep_dir / r["result"] for r in rows_where(index, load_scale=2, seed=1)]
    plot(["cdf"] + files + ["--logx", "-o", out / "cdf_files.pdf"])
    check_figure(out / "cdf_files.pdf")


def test_fairness(plot, index_path, index, out, sweep_dir):
    """The rho CDF: one series per run at load 1, exactly its finished jobs' ftf_rho in the window."""
    plot(["fairness", "--index", index_path, "--where", "load_scale=1", "-o", out / "fairness.png",
          "--data-out", out / "fairness.csv"])
    check_figure(out / "fairness.png")
    series = {}
    for d in read_csv(out / "fairness.csv"):
        series.setdefault(d["series"], []).append(d)
    picked = rows_where(index, load_scale=1)
    check(len(series) == len(picked), f"fairness.csv: {len(series)} series, expected {len(picked)}")
    unmatched = {}
    for r in picked:
        doc = json.loads((sweep_dir / r["result"]).read_text())
        unmatched[r["run_id"]] = (sorted(j["ftf_rho"] for j in doc["jobs"] if j["state"] == "finished"), doc)
    for name, pts in series.items():
        xs = [float(p["ftf_rho"]) for p in pts]
        check(all(x > 0 for x in xs), f"fairness.csv: series '{name}' has a rho <= 0")
        match = [rid for rid, (rhos, doc) in unmatched.items()
                 if doc["config"]["policy"] == pts[0]["policy"] and len(rhos) == len(xs)
                 and all(close(a, b) for a, b in zip(rhos, xs))]
        check(len(match) >= 1, f"fairness.csv: series '{name}' matches no run's ftf_rho")
        rhos, doc = unmatched.pop(match[0])
        # The summary's figures are over the same jobs.
        check(close(max(xs), doc["summary"]["ftf_rho_max"]), f"fairness.csv: '{name}': max rho != summary's")
        check(close(math.fsum(xs) / len(xs), doc["summary"]["ftf_rho_mean"], 1e-9),
              f"fairness.csv: '{name}': mean rho != summary's ftf_rho_mean")
        above = sum(1 for x in xs if x > 1) / len(xs)
        check(close(above, doc["summary"]["ftf_share_above_1"]), f"fairness.csv: '{name}': share > 1 != summary's")
    plot(["fairness"] + [sweep_dir / r["result"] for r in rows_where(index, load_scale=2, seed=1)] +
         ["--logx", "-o", out / "fairness_files.pdf"])
    check_figure(out / "fairness_files.pdf")


def test_vc(plot, dlsim, work, out):
    """Per-VC bars from two runs of a trace with a vc column: the CSV holds each run's summary.by_vc."""
    trace = work / "vc_trace.csv"
    rows = ["job_id,submit_time,num_gpus,duration,vc"]
    for i in range(24):
        rows.append(f"j{i},{i * 300},{1 + i % 3},{600 + 450 * (i % 5)},{['vc-b', 'vc-a', 'vc-c'][i % 3]}")
    trace.write_text("\n".join(rows) + "\n")
    results = []
    for policy in ("fifo", "srtf"):
        res = work / f"vc_{policy}.json"
        run([dlsim, "run", "--trace", trace, "--cluster", REPO / "models/clusters/gavel_simulated.json",
             "--profiles", REPO / "models/profiles/gavel.json", "--policy", policy, "--out", res])
        results.append(res)
    for ext in (".png", ".svg"):
        extra = ["--data-out", out / "vc.csv"] if ext == ".png" else []
        plot(["vc"] + results + ["-o", out / f"vc{ext}"] + extra)
        check_figure(out / f"vc{ext}")
    data = read_csv(out / "vc.csv")
    check(len(data) == 6, f"vc.csv: {len(data)} rows, expected 3 VCs x 2 runs")
    for res in results:
        doc = json.loads(res.read_text())
        by_vc = doc["summary"]["by_vc"]
        check(list(by_vc) == ["vc-a", "vc-b", "vc-c"], f"{res}: summary.by_vc not in name order: {list(by_vc)}")
        mine = [d for d in data if d["policy"] == doc["config"]["policy"]]
        check([d["vc"] for d in mine] == list(by_vc), f"vc.csv: {doc['config']['policy']}: VCs {mine}")
        for d in mine:
            check(close(float(d["avg_jct_hours"]), by_vc[d["vc"]]["avg_jct"] / HOUR),
                  f"vc.csv: {d}: avg_jct differs from summary.by_vc")
            check(int(d["jobs"]) == by_vc[d["vc"]]["jobs"], f"vc.csv: {d}: jobs differ from summary.by_vc")
        check(sum(v["jobs"] for v in by_vc.values()) == doc["summary"]["finished"],
              f"{res}: by_vc counts {sum(v['jobs'] for v in by_vc.values())} jobs, not every finished one")
    # A result without VCs is named in a one-line warning and left out; none at all is an error.
    p = plot(["vc", work / "sweep" / "index.json", "-o", out / "x.png"], ok=False)
    check(p.returncode == 2 and "Traceback" not in p.stderr, f"plot.py vc on an index file: {p.stderr}")


def test_two_run_rho(two_run_rho, index, out, sweep_dir):
    """scripts/two_run_rho.py: per job JCT under srtf / JCT under fifo, matched by job_id."""
    a = sweep_dir / rows_where(index, policy="srtf", load_scale=2, seed=1)[0]["result"]
    b = sweep_dir / rows_where(index, policy="fifo", load_scale=2, seed=1)[0]["result"]
    p = call(two_run_rho, [a, b, "--csv", out / "rho.csv"])
    jobs_a = {j["job_id"]: j["jct"] for j in json.loads(a.read_text())["jobs"] if j["state"] == "finished"}
    jobs_b = {j["job_id"]: j["jct"] for j in json.loads(b.read_text())["jobs"] if j["state"] == "finished"}
    rhos = [jobs_a[k] / jobs_b[k] for k in jobs_a if k in jobs_b]
    lines = {line[:15].strip(): line[15:].strip() for line in p.stdout.strip().splitlines()}  # label, value
    check(close(float(lines["rho max"]), max(rhos), 1e-5), f"two_run_rho.py: max {lines['rho max']} != {max(rhos)}")
    check(close(float(lines["rho mean"]), math.fsum(rhos) / len(rhos), 1e-5), f"two_run_rho.py: mean: {p.stdout}")
    share = sum(1 for r in rhos if r > 1) / len(rhos)
    check(close(float(lines["share rho > 1"]), share, 1e-5), f"two_run_rho.py: share: {p.stdout}")
    data = read_csv(out / "rho.csv")
    check(len(data) == len(rhos), f"rho.csv: {len(data)} rows, expected {len(rhos)}")
    check(all(close(float(d["rho"]), jobs_a[d["job_id"]] / jobs_b[d["job_id"]]) for d in data), "rho.csv: a wrong rho")
    bad = call(two_run_rho, [a, out / "missing.json"], ok=False)
    check(bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "missing.json" in bad.stderr,
          f"two_run_rho.py on a missing file: {bad.returncode} {bad.stderr}")


def test_util(plot, index, out, sweep_dir):
    result = sweep_dir / rows_where(index, policy="fifo", load_scale=1, seed=1)[0]["result"]
    for ext in (".png", ".pdf"):
        extra = ["--data-out", out / "util.csv"] if ext == ".png" else []
        plot(["util", result, "-o", out / f"util{ext}"] + extra)
        check_figure(out / f"util{ext}")
    ts = json.loads(result.read_text())["timeseries"]
    data = read_csv(out / "util.csv")
    check(len(data) == len(ts["time"]), f"util.csv: {len(data)} rows, expected {len(ts['time'])} buckets")
    for t in ts["busy_gpus"]:
        check(t in data[0], f"util.csv: no column for GPU type {t}")
    for i, d in enumerate(data):
        check(close(float(d["time_hours"]), ts["time"][i] / HOUR), f"util.csv row {i}: time_hours {d['time_hours']}")
        for t, col in ts["busy_gpus"].items():
            check(close(float(d[t]), col[i]), f"util.csv row {i}: {t} {d[t]} != {col[i]}")
        check(d.get("cluster_gpus") == "108", f"util.csv row {i}: cluster_gpus {d.get('cluster_gpus')}, expected 108")
    # Each type's capacity is the result's own (config.cluster.gpus_by_type), not re-derived from the spec.
    caps = json.loads(result.read_text())["config"]["cluster"]["gpus_by_type"]
    check(list(caps) == list(ts["busy_gpus"]), f"gpus_by_type {list(caps)} != time series types {list(ts['busy_gpus'])}")
    for t, n in caps.items():
        check(all(d.get(f"capacity.{t}") == str(n) for d in data), f"util.csv: capacity.{t} != {n} (the result's)")


def test_table(plot, index_path, index, out):
    metrics = ["avg_jct", "p99_jct", "makespan", "gpu_utilization", "preemptions_per_job"]
    args = ["--metrics", ",".join(metrics), "--by", "load_scale"]
    plot(["table", index_path, "-o", out / "table.md", "--data-out", out / "table.csv"] + args)
    plot(["table", index_path, "-o", out / "table.tex"] + args)
    stdout = plot(["table", index_path, "--format", "md"] + args).stdout
    md = (out / "table.md").read_text()
    check(stdout == md, "table: standard output differs from the -o table.md file")
    data = read_csv(out / "table.csv")
    check(len(data) == len(POLICIES) * len(LOADS), f"table.csv: {len(data)} rows, expected 6")
    md_rows = [line.strip("|").split("|") for line in md.splitlines()[2:]]
    check(len(md_rows) == len(data), f"table.md: {len(md_rows)} rows, expected {len(data)}")
    tex = (out / "table.tex").read_text()
    check("\\begin{tabular}" in tex and "\\end{tabular}" in tex and tex.count("\\\\") == len(data) + 1,
          "table.tex: expected a tabular with a header and 6 rows")
    for d, cells in zip(data, md_rows):
        group = rows_where(index, policy=d["policy"], load_scale=float(d["load_scale"]))
        check(int(d["runs"]) == len(group) == len(SEEDS),
              f"table.csv: {d['policy']} {d['load_scale']}: runs {d['runs']}, expected {len(SEEDS)}")
        shown = [c.strip() for c in cells][3:]
        for m, cell in zip(metrics, shown):
            col = TITLES[m]
            if m == "preemptions_per_job":  # a count over the run's jobs, then the mean over seeds
                want = mean([r["summary"]["preemptions"] / r["summary"]["jobs"] for r in group])
            else:
                want = mean([r["summary"][m] for r in group]) * SCALE.get(m, 1.0)
            check(close(float(d[col]), want), f"table.csv: {d['policy']} {d['load_scale']} {col} {d[col]} != {want}")
            # The table rounds to 4 significant digits.
            check(close(float(cell), want, 1e-3), f"table.md: {d['policy']} {d['load_scale']} {col} {cell} != {want}")


def test_unknown_policy(plot, sweep_dir, out):
    """A policy name plot.py has never seen: the sweep with srtf renamed in its index and results."""
    new = "zz_new-policy"
    renamed = out.parent / "renamed"
    shutil.rmtree(renamed, ignore_errors=True)
    (renamed / "runs").mkdir(parents=True)
    index = json.loads((sweep_dir / "index.json").read_text())
    for r in index["runs"]:
        doc = json.loads((sweep_dir / r["result"]).read_text())
        if r["parameters"]["policy"] == "srtf":
            r["parameters"]["policy"] = new
            doc["config"]["policy"] = new
        (renamed / r["result"]).write_text(json.dumps(doc))
    (renamed / "index.json").write_text(json.dumps(index))
    index_path = renamed / "index.json"

    plot(["bars", index_path, "-o", out / "bars_new.png", "--baseline", new, "--data-out", out / "bars_new.csv"])
    check_figure(out / "bars_new.png")
    data = read_csv(out / "bars_new.csv")
    check({d["policy"] for d in data} == {"fifo", new}, f"bars_new.csv: policies {sorted({d['policy'] for d in data})}")
    check(all(float(d["ratio"]) == 1.0 for d in data if d["policy"] == new), "bars_new.csv: baseline ratio != 1")
    plot(["load", index_path, "-o", out / "load_new.svg", "--data-out", out / "load_new.csv"])
    check({d["series"] for d in read_csv(out / "load_new.csv")} == {"fifo", new}, "load_new.csv: series")
    plot(["cdf", "--index", index_path, "--where", f"policy={new}", "--where", "load_scale=1", "-o",
          out / "cdf_new.pdf", "--data-out", out / "cdf_new.csv"])
    check({d["policy"] for d in read_csv(out / "cdf_new.csv")} == {new}, "cdf_new.csv: expected the new policy only")
    table = plot(["table", index_path]).stdout
    check(f"| {new} |" in table, f"table: no row labelled {new}:\n{table}")

    # Colours follow the sorted names present, whatever their order; a lone unknown name still gets one.
    spec = importlib.util.spec_from_file_location("dlsim_plot", PLOT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.assign_policy_colours([new, "fifo"])
    first = (mod.policy_colour("fifo"), mod.policy_colour(new))
    mod.assign_policy_colours(["fifo", new])
    check((mod.policy_colour("fifo"), mod.policy_colour(new)) == first, "policy colours depend on input order")
    check(first[0] != first[1], "two policies got the same colour")
    check(not hasattr(mod, "KNOWN_POLICIES"), "plot.py still has a built-in policy list")
    mod.assign_policy_colours([])
    check(mod.policy_colour("never-assigned").startswith("#"), "an unassigned policy has no colour")


def test_figure_content(plot_py, plot, dlsim, index_path, out):
    """What the figures say, read from the matplotlib figure just before it is saved: axis labels from the
    field table with units, a caption line stating the band, one legend outside the panels, a log JCT axis
    by default for the CDF."""
    seen = []
    save = plot_py.save

    def spy(fig, plt, args):
        seen.append({"ylabels": [ax.get_ylabel() for ax in fig.axes], "xscales": [ax.get_xscale() for ax in fig.axes],
                     "texts": [t.get_text() for t in fig.texts], "legends": len(fig.legends),
                     "panel_legends": sum(ax.get_legend() is not None for ax in fig.axes)})
        save(fig, plt, args)

    plot_py.save = spy
    try:
        # The script's copy of the field table is what dlsim prints.
        fields = json.loads(run([dlsim, "list", "fields", "--json"]).stdout)
        for f in fields["summary"]:
            if f["axis"]:
                check(plot_py.SUMMARY_FIELDS.get(f["name"]) == (f["axis"], f["unit"]),
                      f"plot.py's SUMMARY_FIELDS[{f['name']}] is not dlsim's ({f['axis']}, {f['unit']}): "
                      f"tests/docs/test_docs.py --update-fields rewrites it")
        for metric, title in TITLES.items():
            check(plot_py.metric_title(metric) == title, f"metric_title({metric}) = {plot_py.metric_title(metric)}")

        plot(["load", index_path, "-o", out / "content_load.png", "--metrics", "avg_jct,gpu_utilization,"
              "preemptions_per_job,avg_pending_time"])
        f = seen[-1]
        check(f["ylabels"] == [TITLES[m] for m in ("avg_jct", "gpu_utilization", "preemptions_per_job",
                                                   "avg_pending_time")], f"load: y labels {f['ylabels']}")
        check(f["texts"] == ["mean over 2 seeds, band = min–max"], f"load: caption {f['texts']}")
        check(f["legends"] == 1 and f["panel_legends"] == 0, f"load: expected one shared legend, got {f}")
        plot(["load", index_path, "-o", out / "content_load_ci.png", "--band", "ci"])
        check(seen[-1]["texts"] == ["mean over 2 seeds, band = 95% CI of the mean (Student's t)"],
              f"load --band ci: caption {seen[-1]['texts']}")

        plot(["bars", index_path, "-o", out / "content_bars.png", "--baseline", "fifo", "--metrics", "avg_jct,p99_jct"])
        f = seen[-1]
        check(f["texts"] == ["mean over 2 seeds, error bar = min–max, relative to fifo's mean"],
              f"bars: caption {f['texts']}")
        check(f["legends"] == 1 and f["panel_legends"] == 0, f"bars: expected one shared legend, got {f}")

        plot(["cdf", "--index", index_path, "--where", "load_scale=1", "-o", out / "content_cdf.png"])
        check(seen[-1]["xscales"] == ["log"], f"cdf: the JCT axis is {seen[-1]['xscales']}, expected log by default")
        check(seen[-1]["panel_legends"] == 1, "cdf: no legend")
        plot(["cdf", "--index", index_path, "--where", "load_scale=1", "--linear", "-o", out / "content_cdf_lin.png"])
        check(seen[-1]["xscales"] == ["linear"], f"cdf --linear: the JCT axis is {seen[-1]['xscales']}")
        p = plot(["cdf", "--index", index_path, "--linear", "--logx", "-o", out / "x.png"], ok=False)
        check(p.returncode == 2 and "--linear and --logx" in p.stderr, f"cdf --linear --logx: {p.stderr}")
    finally:
        plot_py.save = save


def test_null_figures(plot, sweep_dir, out):
    """A run where no job finished has null figures in its summary (as dlsim writes them): plot.py leaves
    them out of the means, draws no point where no run has one, and says so; never a 0."""
    nulls = out.parent / "nulls"
    shutil.rmtree(nulls, ignore_errors=True)
    nulls.mkdir(parents=True)
    index = json.loads((sweep_dir / "index.json").read_text())
    for r in index["runs"]:
        r["result"] = str(sweep_dir / r["result"])
        p = r["parameters"]
        if p["policy"] == "srtf" and (p["load_scale"] == 2 or (p["load_scale"] == 1 and p["seed"] == 1)):
            r["summary"]["avg_jct"] = None  # srtf: at load 2 no seed has it, at load 1 one seed of two
    (nulls / "index.json").write_text(json.dumps(index))
    index_path = nulls / "index.json"

    p = plot(["load", index_path, "-o", out / "null_load.png", "--metrics", "avg_jct", "--data-out",
              out / "null_load.csv"])
    check("avg_jct srtf at 2" in p.stderr and "no point drawn" in p.stderr, f"load: no warning for the empty point: "
                                                                          f"{p.stderr}")
    rows = {(d["series"], float(d["x"])): d for d in read_csv(out / "null_load.csv")}
    check(rows[("srtf", 2.0)]["mean"] == "" and rows[("srtf", 2.0)]["n"] == "0",
          f"null_load.csv: srtf at 2 should be empty, got {rows[('srtf', 2.0)]}")
    one = [r["summary"]["avg_jct"] / HOUR for r in rows_where(index, policy="srtf", load_scale=1, seed=2)]
    check(rows[("srtf", 1.0)]["n"] == "1" and close(float(rows[("srtf", 1.0)]["mean"]), one[0]),
          f"null_load.csv: srtf at 1 should be seed 2's value alone, got {rows[('srtf', 1.0)]}")

    plot(["bars", index_path, "-o", out / "null_bars.png", "--baseline", "fifo", "--metrics", "avg_jct",
          "--data-out", out / "null_bars.csv"])
    bars = {(d["policy"], float(d["x"])): d for d in read_csv(out / "null_bars.csv")}
    check(bars[("srtf", 2.0)]["ratio"] == "", f"null_bars.csv: srtf at 2 has a ratio: {bars[('srtf', 2.0)]}")
    table = plot(["table", index_path, "--metrics", "avg_jct", "--by", "load_scale"]).stdout
    check("| srtf | 2 | 2 | n/a |" in table, f"table: srtf at load 2 should read n/a:\n{table}")


def test_bad_input(plot, index_path, out):
    cases = [
        (["load", out / "no-such-index.json", "-o", out / "x.png"], "no-such-index.json"),
        (["load", index_path, "-o", out / "x.png", "--metrics", "avg_jct,no_such_metric"], "no_such_metric"),
        (["bars", index_path, "-o", out / "x.jpg", "--baseline", "fifo"], "x.jpg"),
    ]
    for args, named in cases:
        p = plot(args, ok=False)
        lines = p.stderr.strip().splitlines()
        check(p.returncode != 0, f"plot.py {args[0]} with bad input ({named}) exited 0")
        check("Traceback" not in p.stderr and len(lines) == 1,
              f"plot.py {args[0]} with bad input ({named}): expected a one-line message, got:\n{p.stderr}")
        check(named in lines[0], f"plot.py {args[0]}: the message does not name {named}: {lines[0]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dlsim", required=True, help="the dlsim binary")
    ap.add_argument("--work", required=True, help="scratch folder (its sweep/ and figures/ are replaced)")
    a = ap.parse_args()
    work = Path(a.work).resolve()
    for sub in ("sweep", "figures"):
        shutil.rmtree(work / sub, ignore_errors=True)
    out = work / "figures"
    out.mkdir(parents=True)
    # Before matplotlib is first imported (by plot.py's first figure): its cache goes to the work folder.
    os.environ["MPLCONFIGDIR"] = str(work / "mplconfig")
    plot_py = load_script(PLOT, "dlsim_plot_cli")
    two_run_rho = load_script(TWO_RUN_RHO, "dlsim_two_run_rho")

    def plot(args, ok=True):
        return call(plot_py, args, ok=ok)

    try:
        try:
            import matplotlib  # noqa: F401  (plot.py imports it again, from sys.modules)
        except ImportError:
            raise Failure(f"{sys.executable} cannot import matplotlib: run this test with /usr/bin/python3 "
                          "(Debian's python3-matplotlib)")
        for cmd in ("cdf", "load", "util", "bars", "table", "fairness", "vc"):
            check("usage: plot.py " + cmd in plot([cmd, "--help"]).stdout, f"plot.py {cmd} --help: no usage")
        index_path, index = make_sweep(Path(a.dlsim).resolve(), work)
        sweep_dir = index_path.parent
        test_load(plot, index_path, index, out)
        test_bars(plot, index_path, index, out)
        test_cdf(plot, index_path, index, out, sweep_dir)
        test_fairness(plot, index_path, index, out, sweep_dir)
        test_vc(plot, Path(a.dlsim).resolve(), work, out)
        test_two_run_rho(two_run_rho, index, out, sweep_dir)
        test_util(plot, index, out, sweep_dir)
        test_table(plot, index_path, index, out)
        test_bad_input(plot, index_path, out)
        test_unknown_policy(plot, sweep_dir, out)
        test_figure_content(plot_py, plot, Path(a.dlsim).resolve(), index_path, out)
        test_null_figures(plot, sweep_dir, out)
        # Same input, same bytes: no creation dates, fixed SVG ids.
        for ext in (".svg", ".pdf"):
            plot(["load", index_path, "-o", out / f"again{ext}"])
            plot(["load", index_path, "-o", out / f"load2{ext}"])
            check((out / f"again{ext}").read_bytes() == (out / f"load2{ext}").read_bytes(),
                  f"plot.py load {ext}: two runs gave different bytes")
    except Failure as e:
        print(f"test_plots: FAILED after {checks} checks: {e}", file=sys.stderr)
        return 1
    print(f"test_plots: all {checks} checks passed (figures in {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
