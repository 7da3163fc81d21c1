#!/usr/bin/env python3
"""Compares a sia-tables sweep with Sia's published Tables 3 and 4 (Jayaram Subramanya et al., "Sia:
Heterogeneity-aware, goodput-optimized ML-cluster scheduling", SOSP 2023; artifact github.com/siasosp23/artifacts).

For each setup (cluster and trace family) and policy: the mean over the family's workloads of each run's
average JCT, p99 JCT and makespan (hours), GPU-hours per job (every GPU held, restarts included, ÷ jobs),
and what the policy did to jobs per job: restarts (every start after a job's first: resizes, moves and
resumes; Sia's num_restarts), resizes, preemptions and migrations. Published figures beside, and whether
the paper's order Sia <= Pollux < Gavel+TJ (average JCT) holds.

usage: python3 scripts/compare_sia.py INDEX.json [-o table.md] [--plot jct.png]
"""
import argparse
import json
import os
import statistics

# The paper's tables: avg JCT, p99 JCT, makespan (hours), GPU-hours per job; restarts per job where given.
PUBLISHED = {
    ("homogeneous", "philly"): {"sia": (1.9, 18.1, 21.4, 8.4, 2.6), "pollux": (2.0, 19.3, 21.7, 8.6, 5.1),
                                "gavel-tj": (4.3, 37.1, 44.3, 15.3, None)},
    ("heterogeneous", "philly"): {"sia": (0.6, 9.5, 14.2, 4.0, None), "pollux": (1.0, 14.9, 24.5, 5.6, None),
                                  "gavel-tj": (1.9, 30.0, 33.8, 9.0, None)},
    ("heterogeneous", "saturn"): {"sia": (0.7, 10.9, 14.9, 4.8, None), "pollux": (1.0, 15.0, 25.5, 5.9, None),
                                  "gavel-tj": (2.5, 38.7, 43.0, 12.1, None)},
    ("heterogeneous", "newtrace"): {"sia": (0.7, 4.6, 52.2, 3.0, None), "pollux": (1.5, 10.3, 62.3, 3.4, None),
                                    "gavel-tj": (11.3, 98.1, 110.0, 6.4, None)},
}
CLUSTERS = {"sia_homog_16x4_t4.json": "homogeneous", "sia_hetero_64.json": "heterogeneous"}
FAMILIES = {"philly": "Philly", "saturn": "Helios (Saturn)", "newtrace": "newTrace"}
NAMES = {"sia": "Sia", "pollux": "Pollux", "gavel-tj": "Gavel+TJ"}


def load(index_path):
    with open(index_path) as f:
        index = json.load(f)
    out = {}  # (cluster, family, policy) -> list of per-run figures
    for row in index["runs"]:
        if row["status"] != "done":
            raise SystemExit(f"{index_path}: run {row['run_id']} is {row['status']}: finish the sweep first")
        p, s = row["parameters"], row["summary"]
        with open(os.path.join(os.path.dirname(index_path), row["result"])) as f:
            jobs = json.load(f)["jobs"]
        n = len(jobs)
        started = sum(1 for j in jobs if j["start_time"] is not None)
        out.setdefault((CLUSTERS[os.path.basename(p["cluster"])], p["trace"].split("/")[-2], p["policy"]), []).append({
            "avg": s["avg_jct"] / 3600, "p99": s["p99_jct"] / 3600, "makespan": s["makespan"] / 3600,
            "gpu_hours": sum(s["gpu_hours_by_type"].values()) / n,
            "restarts": (sum(j["restarts"] for j in jobs) - started) / n,
            "resizes": sum(j["resizes"] for j in jobs) / n,
            "preemptions": sum(j["preemptions"] for j in jobs) / n,
            "migrations": sum(j["migrations"] for j in jobs) / n,
            "unfinished": s["unfinished"],
        })
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("index")
    ap.add_argument("-o", "--out", help="write the markdown here (default: stdout)")
    ap.add_argument("--plot", help="write a figure of dlsim's and the published average JCTs here")
    args = ap.parse_args()
    runs = load(args.index)
    lines = ["| cluster | workloads | policy | runs | avg JCT (h) | published | dlsim − published | p99 JCT (h) | "
             "published | makespan (h) | published | GPU-h per job | published | restarts/job | published | "
             "resizes/job | preemptions/job | migrations/job |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    orders, bars = [], []  # bars: (setup, policy, dlsim, published)
    for (cluster, family), published in PUBLISHED.items():
        means = {}
        for policy, pub in published.items():
            rs = runs.get((cluster, family, policy))
            if not rs:
                continue
            m = {k: statistics.fmean(r[k] for r in rs) for k in rs[0]}
            means[policy] = m["avg"]
            bars.append((f"{cluster}\n{FAMILIES[family]}", NAMES[policy], m["avg"], pub[0]))
            rest = "–" if pub[4] is None else f"{pub[4]:.1f}"
            lines.append(
                f"| {cluster} | {FAMILIES[family]} | {NAMES[policy]} | {len(rs)} | {m['avg']:.2f} | {pub[0]:.1f} | "
                f"{100 * (m['avg'] / pub[0] - 1):+.1f}% | {m['p99']:.1f} | {pub[1]:.1f} | {m['makespan']:.1f} | "
                f"{pub[2]:.1f} | {m['gpu_hours']:.1f} | {pub[3]:.1f} | {m['restarts']:.2f} | {rest} | "
                f"{m['resizes']:.2f} | {m['preemptions']:.2f} | {m['migrations']:.2f} |")
        if len(means) == 3:
            holds = means["sia"] <= means["pollux"] < means["gavel-tj"]
            orders.append(f"- {cluster}, {FAMILIES[family]}: Sia {means['sia']:.2f} h, Pollux {means['pollux']:.2f} h, "
                          f"Gavel+TJ {means['gavel-tj']:.2f} h: Sia ≤ Pollux < Gavel+TJ "
                          f"{'holds' if holds else 'does not hold'}")
    text = "\n".join(lines) + "\n\nOrder of the average JCTs:\n\n" + "\n".join(orders) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        print(text, end="")
    if args.plot:
        plot(bars, args.plot)


def plot(bars, path):
    """Per setup and policy, dlsim's average JCT (filled) beside the paper's (hollow), on a log axis: markers,
    not bars, since a bar's length means nothing on a log scale."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    setups = list(dict.fromkeys(b[0] for b in bars))
    policies = list(dict.fromkeys(b[1] for b in bars))
    fig, ax = plt.subplots(figsize=(8, 4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    step = 0.8 / len(policies)
    for k, policy in enumerate(policies):
        xs, ours, theirs = [], [], []
        for i, setup in enumerate(setups):
            for b in bars:
                if b[0] == setup and b[1] == policy:
                    xs.append(i + (k - (len(policies) - 1) / 2) * step)
                    ours.append(b[2])
                    theirs.append(b[3])
        ax.plot(xs, ours, "o", color=colors[k], label=f"{policy} (dlsim)")
        ax.plot(xs, theirs, "D", color=colors[k], markerfacecolor="none", markersize=8,
                label=f"{policy} (published)")
    ax.set_xticks(range(len(setups)), setups)
    ax.set_xlim(-0.6, len(setups) - 0.4)
    ax.set_yscale("log")
    ax.set_ylabel("average JCT (h, log scale)")
    ax.set_title("Sia's Tables 3 and 4: dlsim against the paper")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=len(policies))
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
