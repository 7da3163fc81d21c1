#!/usr/bin/env python3
"""How long a big run's report takes: `dlsim report` on a FIFO run of N generated jobs (default 1,000,000) of
the Gavel mix on 1,024 V100 GPUs with its event log, then headless Chromium opening the page from file:// until
the Gantt is drawn and answers the mouse (window.dlsimReady, set after the first draw; timed from navigation
start by the page's own clock, performance.now()). Prints the figures; not a timed test.

usage: bench_report.py --dlsim build/dlsim [--jobs N] [--work DIR]
Exit 77 (skipped) without Chromium.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim", "app", "report"))
import cdp  # noqa: E402

CLUSTER = {"gpu_types": {"V100": {}}, "node_types": {"dgx": {"gpu_type": "V100", "gpus": 8}},
           "racks": [{"node_type": "dgx", "nodes": 16, "count": 8}]}


def timed(cmd):
    t = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", required=True)
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--work", default="build/bench-report")
    args = ap.parse_args()
    dlsim = os.path.abspath(args.dlsim)
    chromium = cdp.find_chromium()
    if chromium is None:
        print("bench_report: skipped: no chromium on PATH")
        return 77
    os.makedirs(args.work, exist_ok=True)
    os.chdir(args.work)
    with open("cluster-1024.json", "w") as f:
        json.dump(CLUSTER, f)
    n = args.jobs
    # 22 jobs/h keeps 1,024 GPUs about 69% busy with this mix (as bench_fifo_million).
    subprocess.run([dlsim, "trace", "generate", "--jobs", str(n), "--rate", "22", "--seed", "42", "--out",
                    "trace.csv"], check=True)
    run_s = timed([dlsim, "run", "--trace", "trace.csv", "--cluster", "cluster-1024.json", "--policy", "fifo",
                   "--event-log", "events.jsonl", "--out", "run.json"])
    report_s = timed([dlsim, "report", "run.json", "--event-log", "events.jsonl", "-o", "report.html"])
    size = os.path.getsize("report.html")
    print(f"bench_report: {n:,} jobs, FIFO on 1,024 V100 GPUs")
    print(f"  dlsim run (with --event-log)     {run_s:6.2f} s   result {os.path.getsize('run.json') / 2**20:.0f} MiB, "
          f"event log {os.path.getsize('events.jsonl') / 2**20:.0f} MiB")
    print(f"  dlsim report                     {report_s:6.2f} s   page {size / 2**20:.0f} MiB")
    with cdp.Browser(chromium, 1400, 1000) as b:
        b.open_page()
        t = time.monotonic()
        b.navigate("file://" + os.path.abspath("report.html"))
        ready_ms = b.wait_for("window.dlsimReady && window.dlsimReadyAt", timeout=300, poll=0.01)
        wall = time.monotonic() - t
        b.wait_for("window.dlsimComplete || window.dlsimError", timeout=300)
        error = b.evaluate("window.dlsimError || ''")
        if error:
            sys.exit(f"bench_report: the page failed: {error}")
        complete_ms = b.evaluate("performance.now()")
        # A redraw of the whole run (every slice in view), and one zoomed to 1/1000 of it.
        full = b.evaluate("(() => { const t = performance.now(); for (let i = 0; i < 5; ++i) ganttDraw(); "
                          "return (performance.now() - t) / 5; })()")
        zoom = b.evaluate("(() => { gantt.t1 = gantt.t0 + (gantt.t1 - gantt.t0) / 1000; const t = performance.now(); "
                          "for (let i = 0; i < 5; ++i) ganttDraw(); return (performance.now() - t) / 5; })()")
        rows = b.evaluate("document.getElementById('table-count').textContent")
    print(f"  browser: navigation to drawn Gantt {ready_ms / 1000:6.2f} s   (measured outside: {wall:.2f} s)")
    print(f"  browser: whole page (tables, CDFs) {complete_ms / 1000:6.2f} s   table: {rows}")
    print(f"  Gantt redraw: whole run {full:.0f} ms, zoomed 1000x {zoom:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
