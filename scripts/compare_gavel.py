#!/usr/bin/env python3
"""Compares a dlsim sweep of Gavel's experiments with the authors' own numbers.

The reference is ../shared/data/gavel/reference/notebook_continuous_results.csv: mean JCT in hours of jobs
4000-5000, per input rate (jobs/h) and Gavel policy, extracted from the saved outputs of Gavel's notebooks
(stanford-futuredata/gavel c4fa400, scheduler/notebooks/figures/evaluation/continuous_jobs*.ipynb).

For each dlsim series (a policy, plus any non-grid parameter of the run, e.g. gavel-las[space_sharing=true])
it prints, per rate, the mean over seeds of the measured window's mean JCT (hours), Gavel's value, the
ratio, and the preemptions and migrations per job (means over seeds); and each series' saturation load: the lowest swept rate whose mean JCT exceeds 4x the mean JCT at the
lowest swept rate (issue 11's definition; Gavel's sweeps start at 0.4 jobs/h).

--check POLICY:RATE[,RATE...] (repeatable) makes it a test: each named point must be within --tolerance
(default 10%) of Gavel's number when the rate is below that policy's saturation load (Gavel's), and each
checked series' saturation load must be within one sweep step of Gavel's (both computed over the rates
the sweep ran). Exit 1 when a check fails. Standard library only.
"""
import argparse
import csv
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

# dlsim series -> Gavel policy (POLICIES.md §16.1).
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
GRID_KEYS = {"policy", "resample_rate", "seed"}


def series_label(parameters):
    extra = sorted((k.removeprefix("params."), v) for k, v in parameters.items() if k not in GRID_KEYS)
    label = parameters["policy"]
    for k, v in extra:
        label += f"[{k}={json.dumps(v) if not isinstance(v, str) else v}]"
    return label


def load_sweep(index_path):
    index = json.loads(Path(index_path).read_text())
    jct = defaultdict(lambda: defaultdict(list))  # label -> rate -> [hours per seed]
    churn = defaultdict(lambda: defaultdict(list))  # label -> rate -> [(preemptions, migrations) per job]
    for run in index["runs"]:
        if run.get("status") != "done":
            continue
        label = series_label(run["parameters"])
        rate = float(run["parameters"]["resample_rate"])
        s = run["summary"]
        jct[label][rate].append(s["avg_jct"] / 3600.0)
        churn[label][rate].append((s["preemptions"] / max(1, s["jobs"]), s["migrations"] / max(1, s["jobs"])))
    return jct, churn


def load_notebook(path, trace_kind):
    ref = defaultdict(dict)  # gavel policy -> rate -> hours
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["metric"] == "mean_jct_hours" and row["trace_kind"].startswith(trace_kind):
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", help="the sweep's index.json")
    ap.add_argument("--notebook", required=True, help="notebook_continuous_results.csv")
    ap.add_argument("--trace-kind", default="continuous-single", choices=["continuous-single", "continuous-multiple"])
    ap.add_argument("--check", action="append", default=[], metavar="POLICY:RATES")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("-o", "--out", help="also write the table (Markdown) here")
    args = ap.parse_args()

    sweep, churn = load_sweep(args.index)
    ref = load_notebook(args.notebook, args.trace_kind)
    lines = ["| series | Gavel policy | rate (jobs/h) | dlsim mean JCT (h), seeds | Gavel (h) | dlsim / Gavel | "
             "preemptions / job | migrations / job |",
             "|---|---|---|---|---|---|---|---|"]
    sat_lines = ["| series | dlsim saturation (jobs/h) | Gavel saturation (jobs/h) |", "|---|---|---|"]
    means = {}
    for label in sorted(sweep):
        gavel = GAVEL_NAME.get(label)
        curve = {r: sum(v) / len(v) for r, v in sweep[label].items()}
        means[label] = curve
        for rate in sorted(curve):
            g = ref.get(gavel, {}).get(rate) if gavel else None
            seeds = ", ".join(f"{h:.2f}" for h in sweep[label][rate])
            ratio = f"{curve[rate] / g:.3f}" if g else "-"
            c = churn[label][rate]
            pre, mig = sum(x[0] for x in c) / len(c), sum(x[1] for x in c) / len(c)
            lines.append(f"| {label} | {gavel or '-'} | {rate:g} | {curve[rate]:.2f} ({seeds}) | "
                         f"{g if g is not None else '-'} | {ratio} | {pre:.2f} | {mig:.2f} |")
        if gavel and gavel in ref:
            rates = sorted(set(curve) & set(ref[gavel]))
            ours, theirs = saturation(curve, rates), saturation(ref[gavel], rates)
            sat_lines.append(f"| {label} | {ours if ours is not None else '> ' + format(max(rates), 'g')} | "
                             f"{theirs if theirs is not None else '> ' + format(max(rates), 'g')} |")
    table = "\n".join(lines) + "\n\n" + "\n".join(sat_lines) + "\n"
    print(table)
    if args.out:
        Path(args.out).write_text(table)

    failures = []
    for spec in args.check:
        label, _, rate_list = spec.rpartition(":")
        gavel = GAVEL_NAME.get(label)
        if label not in means or not gavel or gavel not in ref:
            failures.append(f"{label}: no dlsim series or no Gavel reference")
            continue
        curve, reference = means[label], ref[gavel]
        rates = sorted(set(curve) & set(reference))
        gavel_sat = saturation(reference, rates)
        for r in (float(x) for x in rate_list.split(",")):
            if r not in curve or r not in reference:
                failures.append(f"{label} at {r:g} jobs/h: not swept")
            elif gavel_sat is not None and r >= gavel_sat:
                print(f"skip {label} at {r:g}: at or above Gavel's saturation load {gavel_sat:g}")
            elif abs(curve[r] / reference[r] - 1) > args.tolerance:
                failures.append(f"{label} at {r:g} jobs/h: dlsim {curve[r]:.2f} h, Gavel {reference[r]:.2f} h "
                                f"(ratio {curve[r] / reference[r]:.3f}, tolerance {args.tolerance:.0%})")
        if len(rates) >= 2:
            step = min(b - a for a, b in zip(rates, rates[1:]))
            ours = saturation(curve, rates)
            top = max(rates) + step  # "not saturated within the sweep" counts as one step beyond it
            a = ours if ours is not None else top
            b = gavel_sat if gavel_sat is not None else top
            if abs(a - b) > step * (1 + 1e-9):
                failures.append(f"{label}: saturation at {a:g} jobs/h, Gavel's at {b:g} (more than one step apart)")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
