#!/usr/bin/env python3
"""Finish-time fairness of a sweep by both definitions, next to JCT and churn.

  python3 scripts/rho_table.py INDEX.json --baseline gavel-isolated [-o table.md]

For every (policy, rate) of the sweep (rate = resample_rate), means over seeds of: the measured window's
mean JCT (h), preemptions and migrations per job, dlsim's single-run rho (summary.ftf_rho_max and _mean:
JCT / the time alone on 1/N-bar of the job's fastest type, as Themis defines it; sim/app/RESULTS.md), and Gavel's
two-run rho (JCT under the policy / JCT of the same job under the baseline policy's run of the same rate
and seed, jobs finished in both, the policy run's window; scripts/two_run_rho.py). Standard library only.
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import two_run_rho  # noqa: E402  (same folder)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index")
    ap.add_argument("--baseline", default="gavel-isolated", help="the policy whose runs are rho's denominator")
    ap.add_argument("-o", "--out", help="also write the table (Markdown) here")
    args = ap.parse_args()

    index_path = Path(args.index)
    index = json.loads(index_path.read_text())
    runs = {}
    for run in index["runs"]:
        if run.get("status") == "done":
            p = run["parameters"]
            runs[(p["policy"], float(p["resample_rate"]), p["seed"])] = run

    rows = defaultdict(lambda: defaultdict(list))
    for (policy, rate, seed), run in sorted(runs.items()):
        s = run["summary"]
        if s["avg_jct"] is None:  # a figure over no jobs is null, never 0: a mean with it would be wrong
            print(f"rho_table.py: {index_path}: run {run.get('run_id')} ({policy} at {rate:g} jobs/h, seed {seed}): "
                  f"no job of its measurement window finished (summary.avg_jct is null)", file=sys.stderr)
            return 2
        jobs = max(1, s["jobs"])
        r = rows[(policy, rate)]
        r["jct"].append(s["avg_jct"] / 3600)
        r["preempt"].append(s["preemptions"] / jobs)
        r["migrate"].append(s["migrations"] / jobs)
        r["rho_max"].append(s["ftf_rho_max"])
        r["rho_mean"].append(s["ftf_rho_mean"])
        base = runs.get((args.baseline, rate, seed))
        if base is None:
            continue
        path_a, path_b = index_path.parent / run["result"], index_path.parent / base["result"]
        rows_ab = two_run_rho.ratios(path_a, two_run_rho.load(path_a), path_b, two_run_rho.load(path_b))
        ratios = [x[3] for x in rows_ab]
        if ratios:
            r["two_max"].append(max(ratios))
            r["two_mean"].append(sum(ratios) / len(ratios))

    def mean(values):
        return f"{sum(values) / len(values):.3f}" if values else "-"

    lines = ["| policy | rate (jobs/h) | mean JCT (h) | preemptions / job | migrations / job | rho max (dlsim) | "
             "rho mean (dlsim) | rho max (two-run) | rho mean (two-run) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (policy, rate), r in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        lines.append(f"| {policy} | {rate:g} | {mean(r['jct'])} | {mean(r['preempt'])} | {mean(r['migrate'])} | "
                     f"{mean(r['rho_max'])} | {mean(r['rho_mean'])} | {mean(r['two_max'])} | {mean(r['two_mean'])} |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        Path(args.out).write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
