#!/usr/bin/env python3
"""Compares a pollux-jobload sweep with Pollux's artifact (petuum/adaptdl branch osdi21-artifact,
simulator/results-jobload/<policy>-<load>/summary.json: per workload, the average JCT of its jobs).

For each load and policy: the mean over the 8 workloads of each workload's average JCT, dlsim's and the
artifact's, the spread of dlsim/artifact per workload, and what the policy did to jobs (preemptions,
migrations, resizes and restarts per job, from the runs' results).

usage: python3 scripts/compare_pollux.py INDEX.json --artifact DIR [-o table.md] [--plot load.png]
"""
import argparse
import json
import os
import re
import statistics
import sys

# dlsim's policy names -> the artifact's result folders.
POLICIES = [("pollux", "pollux"), ("pollux-tiresias", "tiresias"), ("optimus", "optimus")]
# The workload folders of each load (simulator/workloads-<load>/; load 1.0 is simulator/workloads/).
LOADS = {"workloads-0.5": "0.5", "workloads": "1.0", "workloads-1.5": "1.5", "workloads-2.0": "2.0"}
# The artifact's scheduling-interval study (simulator/results-period/pollux-<interval>/summary.json, "mean": the
# mean over workloads 1-8 at load 1.0 of each workload's average JCT, s); 60 s is results-jobload/pollux-1.0.
PERIOD_MEANS = {"30": 2729.1203125, "120": 2805.8671875, "240": 2968.54921875, "480": 3354.1765625}


def load_sweep(index_path):
    with open(index_path) as f:
        index = json.load(f)
    out = {}  # (policy, load) -> workload -> figures
    for row in index["runs"]:
        params, summary = row["parameters"], row["summary"]
        folder, name = params["trace"].split("/")[-2:]
        workload = re.fullmatch(r"(workload-\d+)\.csv", name).group(1)
        with open(os.path.join(os.path.dirname(index_path), row["result"])) as f:
            jobs = json.load(f)["jobs"]
        n = len(jobs)
        key = (params["policy"], LOADS[folder])
        if params.get("params.interval") is not None:
            key = ("interval", params["params.interval"])
        out.setdefault(key, {})[workload] = {
            "avg_jct": summary["avg_jct"],
            "preemptions": sum(j["preemptions"] for j in jobs) / n,
            "migrations": sum(j["migrations"] for j in jobs) / n,
            "resizes": sum(j["resizes"] for j in jobs) / n,
            "restarts": sum(j["restarts"] for j in jobs) / n,
        }
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("index")
    ap.add_argument("--artifact", required=True, help="the artifact's results-jobload folder")
    ap.add_argument("-o", "--out", help="write the markdown table here (default: stdout)")
    ap.add_argument("--plot", help="write a figure of both mean JCTs by load here")
    args = ap.parse_args()
    ours = load_sweep(args.index)
    lines = ["| load | policy | dlsim mean JCT (s) | artifact (s) | dlsim − artifact | per workload | "
             "preemptions/job | migrations/job | resizes/job | restarts/job |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    series = {}
    for load in LOADS.values():
        for name, folder in POLICIES:
            with open(os.path.join(args.artifact, f"{folder}-{load}", "summary.json")) as f:
                published = json.load(f)
            runs = ours.get((name, load))
            if runs is None or set(runs) != set(published["avgs"]):
                sys.exit(f"compare_pollux.py: {args.index}: policy {name} at load {load} lacks runs for "
                         f"{sorted(set(published['avgs']) - set(runs or {}))}")
            mean = statistics.mean(r["avg_jct"] for r in runs.values())
            ratios = [runs[w]["avg_jct"] / published["avgs"][w] - 1 for w in published["avgs"]]
            per_job = {k: statistics.mean(r[k] for r in runs.values())
                       for k in ("preemptions", "migrations", "resizes", "restarts")}
            series.setdefault(name, []).append((float(load), mean, published["mean"]))
            lines.append(f"| {load} | {name} | {mean:,.0f} | {published['mean']:,.0f} | "
                         f"{100 * (mean / published['mean'] - 1):+.1f}% | "
                         f"{100 * min(ratios):+.0f}% to {100 * max(ratios):+.0f}% | "
                         f"{per_job['preemptions']:.2f} | {per_job['migrations']:.2f} | "
                         f"{per_job['resizes']:.2f} | {per_job['restarts']:.2f} |")
    lines += ["", "| pollux, load 1.0: interval (s) | dlsim mean JCT (s) | artifact (s) | dlsim − artifact | resizes/job |",
              "|---|---|---|---|---|"]
    intervals = sorted(((k[1], v) for k, v in ours.items() if k[0] == "interval"), key=lambda kv: float(kv[0]))
    with open(os.path.join(args.artifact, "pollux-1.0", "summary.json")) as f:
        at_60 = json.load(f)["mean"]
    rows = intervals + [("60", ours[("pollux", "1.0")])]
    for interval, runs in sorted(rows, key=lambda kv: float(kv[0])):
        published = at_60 if interval == "60" else PERIOD_MEANS.get(interval)
        mean = statistics.mean(r["avg_jct"] for r in runs.values())
        resizes = statistics.mean(r["resizes"] for r in runs.values())
        versus = f"{published:,.0f} | {100 * (mean / published - 1):+.1f}%" if published else "n/a | n/a"
        lines.append(f"| {interval} | {mean:,.0f} | {versus} | {resizes:.2f} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for name, points in series.items():
            xs = [p[0] for p in points]
            line, = ax.plot(xs, [p[1] / 3600 for p in points], marker="o", label=f"{name} (dlsim)")
            ax.plot(xs, [p[2] / 3600 for p in points], marker="x", linestyle="--", color=line.get_color(),
                    label=f"{name} (Pollux artifact)")
        ax.set_xlabel("job load (× the workloads' arrival rate)")
        ax.set_ylabel("mean over 8 workloads of avg JCT (h)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
