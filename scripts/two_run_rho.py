#!/usr/bin/env python3
"""Gavel's two-run finish-time fairness: per job, JCT under run A / JCT under run B (B is the isolated
baseline, e.g. Gavel's `isolated` policy), jobs matched by job_id.

  python3 scripts/two_run_rho.py A.json B.json [--csv rho.csv] [--all-jobs]

Prints the number of matched jobs and rho's max, mean and share above 1 (dlsim's own summary.ftf_rho_*
is Themis's single-run rho, sim/app/RESULTS.md; this is the ratio Gavel's notebooks use).
Only jobs finished in both runs count, and by default only those in A's measurement window
(summary.measure, as A's JCT figures use; --all-jobs counts every job). --csv writes
job_id,jct_a,jct_b,rho in A's record order. Standard library only. Exit 2 on bad input, with one line.
"""
import argparse
import csv
import json
import math
import sys

RESULT_SCHEMA = "dlsim.result/1"


class InputError(Exception):
    pass


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON ({e})")
    if not isinstance(doc, dict) or doc.get("schema") != RESULT_SCHEMA:
        raise InputError(f"{path}: not a dlsim result (expected \"schema\": \"{RESULT_SCHEMA}\")")
    jobs = doc.get("jobs")
    if not isinstance(jobs, list) or (not jobs and doc.get("summary", {}).get("jobs", 0)):
        raise InputError(f"{path}: no job records (the run used --no-job-records); rho needs them")
    return doc


def finished_jcts(path, doc):
    """job_id -> JCT (s) of the finished jobs, in record order; duplicate ids are an error."""
    out = {}
    for i, j in enumerate(doc["jobs"]):
        if not isinstance(j, dict) or "job_id" not in j:
            raise InputError(f"{path}: jobs[{i}]: expected a record with job_id")
        if j["job_id"] in out:
            raise InputError(f"{path}: job_id {json.dumps(j['job_id'])} appears twice: cannot match jobs by id")
        if j.get("state") == "finished" and isinstance(j.get("jct"), (int, float)):
            out[j["job_id"]] = float(j["jct"])
    return out


def in_window(doc):
    """The job ids in the result's measurement window (summary.measure), or None for all."""
    w = doc.get("summary", {}).get("measure")
    if not isinstance(w, dict) or w.get("by", "all") == "all":
        return None
    lo, hi = w.get("from"), w.get("to")
    jobs = doc["jobs"]
    if w["by"] == "time":
        return {j["job_id"] for j in jobs if lo <= j["submit_time"] and (hi is None or j["submit_time"] < hi)}
    order = sorted(range(len(jobs)), key=lambda i: jobs[i]["submit_time"])  # stable: trace order on ties
    return {jobs[i]["job_id"] for i in order[int(lo):None if hi is None else int(hi)]}


def ratios(path_a, doc_a, path_b, doc_b, all_jobs=False):
    """(job_id, jct_a, jct_b, rho) for the jobs finished in both runs (A's window unless all_jobs), in A's order."""
    jct_a, jct_b = finished_jcts(path_a, doc_a), finished_jcts(path_b, doc_b)
    window = None if all_jobs else in_window(doc_a)
    rows = []
    for job_id, a in jct_a.items():
        if job_id not in jct_b or (window is not None and job_id not in window):
            continue
        b = jct_b[job_id]
        if b <= 0:
            raise InputError(f"{path_b}: job {json.dumps(job_id)} has JCT {b}: rho needs a positive baseline")
        rows.append((job_id, a, b, a / b))
    if not rows:
        raise InputError(f"{path_a} and {path_b}: no job finished in both (matched by job_id)")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", metavar="A.json", help="the policy's result")
    ap.add_argument("b", metavar="B.json", help="the baseline's result (JCT alone, e.g. Gavel's isolated)")
    ap.add_argument("--csv", metavar="F.csv", help="write job_id,jct_a,jct_b,rho per matched job")
    ap.add_argument("--all-jobs", action="store_true", help="every job, not only A's measurement window")
    args = ap.parse_args(argv)
    try:
        doc_a, doc_b = load(args.a), load(args.b)
        rows = ratios(args.a, doc_a, args.b, doc_b, args.all_jobs)
        jct_a, jct_b = finished_jcts(args.a, doc_a), finished_jcts(args.b, doc_b)
        rhos = [r[3] for r in rows]
        print(f"jobs matched   {len(rows)} (A: {len(jct_a)} finished, B: {len(jct_b)} finished)")
        print(f"rho max        {max(rhos):.6g}")
        print(f"rho mean       {math.fsum(rhos) / len(rhos):.6g}")
        print(f"share rho > 1  {sum(1 for r in rhos if r > 1) / len(rhos):.6g}")
        if args.csv:
            try:
                with open(args.csv, "w", newline="", encoding="utf-8") as f:
                    w = csv.writer(f, lineterminator="\n")
                    w.writerow(["job_id", "jct_a", "jct_b", "rho"])
                    for job_id, a, b, rho in rows:
                        w.writerow([job_id, repr(a), repr(b), repr(rho)])
            except OSError as e:
                raise InputError(f"--csv {args.csv}: cannot write ({e.strerror})")
    except InputError as e:
        sys.stderr.write(f"two_run_rho.py: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
