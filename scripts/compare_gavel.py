#!/usr/bin/env python3
"""Compares a dlsim sweep of Gavel's continuous experiments with the authors' own numbers.

The reference is ../shared/data/gavel/reference/notebook_continuous_results.csv: mean JCT in hours of jobs
4000-5000, per input rate (jobs/h) and Gavel policy, extracted from the saved outputs of Gavel's notebooks
(stanford-futuredata/gavel c4fa400, scheduler/notebooks/figures/evaluation/continuous_jobs*.ipynb). Those
values are Gavel's SEED-0 runs only: they are what plot_jct_cdf prints (np.mean of the window's JCTs), and
it reads each log through prune(..., seed=0). So dlsim's seed-0 run, on Gavel's own seed-0 job stream
(dlsim trace generate --gavel-paper --gavel-streams --seed 0), is compared with them point by point.

Per series (a policy, plus any policy parameter of the run, e.g. gavel-las[space_sharing=true]) and rate:
dlsim's seed-0 mean JCT, Gavel's, the ratio, and whether it is within --tolerance (10%); points at or above
Gavel's saturation load are shown but not judged. Then each series' saturation load, seed 0 against
Gavel's: the lowest swept rate whose mean JCT exceeds 4x the mean JCT at the lowest swept rate (dlsim's
saturation rule; both over the rates the sweep and the notebook share). Alongside, the mean over the sweep's seeds
against --seed-means (seed-averaged numbers the notebooks print, where they have them), and the
preemptions and migrations per job (means over seeds; per job that arrived before the run stopped, when
the run replays a trace at a load_scale).

The rate is the run's load_scale (a trace at 1 job/h scaled to R jobs/h) or, for resampled sweeps,
resample_rate. For runs that replay a trace, the table notes any run whose measured window finished after
the trace's last arrival (the load would have dropped while the window drained; Gavel's generator never
stops).

--check POLICY:RATE[,RATE...] (repeatable) makes it a test on --seed (default 0): each named point must be
within --tolerance of Gavel's number when the rate is below Gavel's saturation load, and each checked
series' saturation load within one sweep step of Gavel's. Exit 1 when a check fails.
--load-out CSV writes series,rate,mean,min,max,n (hours, over seeds) and --plot PNG draws it (matplotlib).
"""
import argparse
import bisect
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

# dlsim series -> Gavel policy (the names of Gavel's get_policy, scheduler/utils.py).
GAVEL_NAME = {
    "gavel-fifo": "fifo",
    "fifo-het": "fifo_perf",
    "fifo-het[space_sharing=true]": "fifo_packed",
    "gavel-las-agnostic": "max_min_fairness",
    "gavel-las": "max_min_fairness_perf",
    "gavel-las[space_sharing=true]": "max_min_fairness_packed",
    "gavel-ftf-agnostic": "finish_time_fairness",
    "gavel-ftf": "finish_time_fairness_perf",
}
# Run parameters that are not part of a series' name: the rate, the seed and the trace (one per seed).
NOT_SERIES = {"policy", "resample_rate", "load_scale", "seed", "trace"}


def series_label(parameters):
    extra = sorted((k.removeprefix("params."), v) for k, v in parameters.items() if k not in NOT_SERIES)
    label = parameters["policy"]
    for k, v in extra:
        label += f"[{k}={json.dumps(v) if not isinstance(v, str) else v}]"
    return label


def arrivals(trace_path, cache={}):
    """The trace's submit times (seconds), sorted, read once per file; None when it cannot be read."""
    if trace_path not in cache:
        try:
            with open(trace_path, newline="") as f:
                cache[trace_path] = sorted(float(r["submit_time"]) for r in csv.DictReader(f))
        except (OSError, KeyError, ValueError):
            cache[trace_path] = None
    return cache[trace_path]


def load_sweep(index_path):
    """label -> rate -> seed -> {"jct" h, "pre", "mig" per job}; the runs whose window outlasted their trace;
    how many runs replayed a readable trace at a load_scale."""
    index = json.loads(Path(index_path).read_text())
    spec_dir = Path(index_path).parent
    points = defaultdict(lambda: defaultdict(dict))
    drained, replayed = [], 0
    for run in index["runs"]:
        if run.get("status") != "done":
            continue
        p = run["parameters"]
        label = series_label(p)
        rate = float(p["load_scale"] if "load_scale" in p else p["resample_rate"])
        s = run["summary"]
        if s["avg_jct"] is None:  # a figure over no jobs is null, never 0: a mean with it would be wrong
            print(f"compare_gavel.py: {index_path}: run {run.get('run_id')} ({label} at {rate:g} jobs/h): "
                  f"no job of its measurement window finished (summary.avg_jct is null)", file=sys.stderr)
            sys.exit(2)
        jobs = s["jobs"]  # churn per job that arrived before the run stopped (a replayed stream is longer)
        if "trace" in p and "load_scale" in p:
            times = arrivals(str(spec_dir / p["trace"]))
            if times:
                replayed += 1
                stop = s.get("makespan", 0) * float(p["load_scale"])  # on the trace's own time axis
                jobs = bisect.bisect_right(times, stop)
                if stop > times[-1]:
                    drained.append(f"{label} at {rate:g} jobs/h, seed {p.get('seed', 0)}")
        jobs = max(1, jobs)
        points[label][rate][int(p.get("seed", 0))] = {
            "jct": s["avg_jct"] / 3600.0, "pre": s["preemptions"] / jobs, "mig": s["migrations"] / jobs}
    return points, drained, replayed


def load_reference(path, trace_kind):
    """Gavel policy -> rate -> hours, from the notebook CSV (trace_kind, metric mean_jct_hours)."""
    ref = defaultdict(dict)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            value = float(row["value"])
            if row["metric"] == "mean_jct_hours" and row["trace_kind"].startswith(trace_kind) and value == value:
                ref[row["policy"]][float(row["input_job_rate_jobs_per_hr"])] = value  # (a nan: no number)
    return ref


def load_seed_means(path):
    """Gavel policy -> rate -> hours from a seed-means CSV (policy,input_job_rate_jobs_per_hr,value,...)."""
    ref = defaultdict(dict)
    if path:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                ref[row["policy"]][float(row["input_job_rate_jobs_per_hr"])] = float(row["value"])
    return ref


def saturation(curve, rates):
    """Lowest rate in `rates` whose value exceeds 4x the value at the lowest rate; None if none does."""
    rates = [r for r in sorted(rates) if r in curve]
    if not rates:
        return None
    base = curve[rates[0]]
    for r in rates:
        if curve[r] > 4 * base:
            return r
    return None


def sat_text(sat, rates):
    return f"{sat:g}" if sat is not None else (f"> {max(rates):g}" if rates else "-")


def within_step(a, b, rates):
    """Saturation loads a and b (None: not within the sweep, counted as one step beyond it) one step apart."""
    if len(rates) < 2:
        return True
    step = min(y - x for x, y in zip(rates, rates[1:]))
    top = max(rates) + step
    return abs((a if a is not None else top) - (b if b is not None else top)) <= step * (1 + 1e-9)


def fmt(x, spec=".2f"):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", help="the sweep's index.json")
    ap.add_argument("--notebook", required=True, help="notebook_continuous_results.csv (Gavel's seed-0 means)")
    ap.add_argument("--seed-means", help="CSV of the notebook's seed-averaged means (policy,input_job_rate_"
                                         "jobs_per_hr,value,...)")
    ap.add_argument("--trace-kind", default="continuous-single", choices=["continuous-single", "continuous-multiple"])
    ap.add_argument("--seed", type=int, default=0, help="the seed compared point by point (Gavel's CSV: 0)")
    ap.add_argument("--check", action="append", default=[], metavar="POLICY:RATES")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("-o", "--out", help="also write the tables (Markdown) here")
    ap.add_argument("--load-out", help="write series,rate,mean,min,max,n (mean JCT hours over seeds) here")
    ap.add_argument("--plot", help="draw mean JCT against the rate per series (min-max band over seeds) here")
    args = ap.parse_args()

    points, drained, replayed = load_sweep(args.index)
    ref = load_reference(args.notebook, args.trace_kind)
    seed_means = load_seed_means(args.seed_means)
    tol = f"{args.tolerance:.0%}"
    lines = [f"| series | Gavel policy | rate (jobs/h) | dlsim seed {args.seed} (h) | Gavel seed 0 (h) | ratio | "
             f"within {tol} | dlsim mean (h), seeds | Gavel seed mean (h) | ratio | preemptions / job | "
             "migrations / job |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    sat_lines = [f"| series | dlsim seed {args.seed} | Gavel seed 0 | one step apart? | dlsim mean | "
                 "Gavel seed mean |", "|---|---|---|---|---|---|"]
    judged = passed = mean_judged = mean_passed = 0
    seed0_curves, misses, mean_misses = {}, [], []
    for label in sorted(points):
        gavel = GAVEL_NAME.get(label)
        series = points[label]
        own = {r: v[args.seed]["jct"] for r, v in series.items() if args.seed in v}
        mean = {r: sum(x["jct"] for x in v.values()) / len(v) for r, v in series.items()}
        seed0_curves[label] = own
        theirs, theirs_mean = ref.get(gavel, {}), seed_means.get(gavel, {})
        rates = sorted(set(own) & set(theirs))
        gavel_sat = saturation(theirs, rates)
        for rate in sorted(series):
            v = series[rate]
            o, g = own.get(rate), theirs.get(rate)
            ratio = o / g if o is not None and g else None
            verdict = "-"
            if ratio is not None:
                if gavel_sat is not None and rate >= gavel_sat:
                    verdict = "saturated"
                else:
                    judged += 1
                    ok = abs(ratio - 1) <= args.tolerance
                    passed += ok
                    verdict = "yes" if ok else "**no**"
                    if not ok:
                        misses.append(f"{label} at {rate:g} ({ratio:.3f})")
            seeds = ", ".join(f"{v[s]['jct']:.2f}" for s in sorted(v))
            gm = theirs_mean.get(rate)
            mean_sat = saturation(theirs_mean, sorted(set(mean) & set(theirs_mean)))
            if gm and (mean_sat is None or rate < mean_sat):  # the same rule on the seed means
                mean_judged += 1
                if abs(mean[rate] / gm - 1) <= args.tolerance:
                    mean_passed += 1
                else:
                    mean_misses.append(f"{label} at {rate:g} ({mean[rate] / gm:.3f})")
            pre = sum(x["pre"] for x in v.values()) / len(v)
            mig = sum(x["mig"] for x in v.values()) / len(v)
            lines.append(f"| {label} | {gavel or '-'} | {rate:g} | {fmt(o)} | {fmt(g)} | {fmt(ratio, '.3f')} | "
                         f"{verdict} | {mean[rate]:.2f} ({seeds}) | {fmt(gm)} | "
                         f"{fmt(mean[rate] / gm if gm else None, '.3f')} | {pre:.2f} | {mig:.2f} |")
        if gavel in ref:
            ours = saturation(own, rates)
            mean_rates = sorted(set(mean) & set(theirs_mean))
            sat_lines.append(
                f"| {label} | {sat_text(ours, rates)} | {sat_text(gavel_sat, rates)} | "
                f"{'yes' if within_step(ours, gavel_sat, rates) else '**no**'} | "
                f"{sat_text(saturation(mean, mean_rates), mean_rates) if mean_rates else '-'} | "
                f"{sat_text(saturation(theirs_mean, mean_rates), mean_rates) if mean_rates else '-'} |")
    summary = [f"Seed {args.seed} against Gavel's seed-0 numbers: {passed} of {judged} points below Gavel's "
               f"saturation load within {tol}" + (f"; misses: {'; '.join(misses)}." if misses else ".")]
    if mean_judged:
        summary.append(f"Seed mean against the notebook's seed means: {mean_passed} of {mean_judged} points below "
                       f"their saturation load within {tol}"
                       + (f"; misses: {'; '.join(mean_misses)}." if mean_misses else "."))
    if drained:
        summary.append(f"Window finished after the trace's last arrival (load dropped): {'; '.join(drained)}.")
    elif replayed:
        summary.append(f"All {replayed} runs: the window finished before the trace's last arrival.")
    table = "\n".join(lines) + "\n\n" + "\n".join(sat_lines) + "\n\n" + "\n".join(summary) + "\n"
    print(table)
    if args.out:
        Path(args.out).write_text(table)
    if args.load_out or args.plot:
        write_load(points, args.load_out, args.plot)

    failures = []
    for spec in args.check:
        label, _, rate_list = spec.rpartition(":")
        gavel = GAVEL_NAME.get(label)
        if label not in seed0_curves or not gavel or gavel not in ref:
            failures.append(f"{label}: no dlsim series or no Gavel reference")
            continue
        curve, reference = seed0_curves[label], ref[gavel]
        rates = sorted(set(curve) & set(reference))
        gavel_sat = saturation(reference, rates)
        for r in (float(x) for x in rate_list.split(",")):
            if r not in curve or r not in reference:
                failures.append(f"{label} at {r:g} jobs/h: not swept")
            elif gavel_sat is not None and r >= gavel_sat:
                print(f"skip {label} at {r:g}: at or above Gavel's saturation load {gavel_sat:g}")
            elif abs(curve[r] / reference[r] - 1) > args.tolerance:
                failures.append(f"{label} at {r:g} jobs/h: dlsim {curve[r]:.2f} h, Gavel {reference[r]:.2f} h "
                                f"(ratio {curve[r] / reference[r]:.3f}, tolerance {tol})")
        ours = saturation(curve, rates)
        if not within_step(ours, gavel_sat, rates):
            failures.append(f"{label}: saturation at {sat_text(ours, rates)} jobs/h, Gavel's at "
                            f"{sat_text(gavel_sat, rates)} (more than one step apart)")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


def write_load(points, csv_path, png_path):
    rows = []
    for label in sorted(points):
        for rate in sorted(points[label]):
            hs = [x["jct"] for x in points[label][rate].values()]
            rows.append((label, rate, sum(hs) / len(hs), min(hs), max(hs), len(hs)))
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["series", "rate_jobs_per_hour", "mean_jct_hours", "min", "max", "n"])
            for label, rate, mean, lo, hi, n in rows:
                w.writerow([label, f"{rate:g}", f"{mean:.4f}", f"{lo:.4f}", f"{hi:.4f}", n])
    if png_path:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for label in sorted(points):
            pts = [r for r in rows if r[0] == label]
            xs = [r[1] for r in pts]
            line, = ax.plot(xs, [r[2] for r in pts], marker="o", markersize=3, label=label)
            ax.fill_between(xs, [r[3] for r in pts], [r[4] for r in pts], color=line.get_color(), alpha=0.15,
                            linewidth=0)
        ax.set_xlabel("input rate (jobs/h)")
        ax.set_ylabel("mean JCT of jobs 4000-4999 (h)")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(png_path, dpi=150, metadata={})
        plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
