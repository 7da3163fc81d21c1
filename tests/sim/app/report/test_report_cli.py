#!/usr/bin/env python3
"""`dlsim report` on bad input exits 2 with one line naming the file, the line or field, and what was expected;
on good input it writes one self-contained page (no external resource) and the same bytes every time.
No browser needed (tests/sim/app/report/test_report_browser.py opens the pages)."""
import argparse
import base64
import hashlib
import json
import os
import re
import struct
import subprocess
import sys


def check(condition, what):
    if not condition:
        sys.exit(f"test_report_cli: FAILED: {what}")
    print(f"ok: {what}")


def page_data(path):
    """The page's inlined data: its meta JSON and its typed arrays, decoded as the page's script does."""
    page = open(path).read()
    meta = json.loads(re.search(r'<script type="application/json" id="dlsim-meta">(.*?)</script>', page, re.S)[1])
    blob = base64.b64decode(re.search(r'<script type="text/plain" id="dlsim-blob">(.*?)</script>', page, re.S)[1])
    ids = json.loads(re.search(r'<script type="application/json" id="dlsim-ids">(.*?)</script>', page, re.S)[1])
    codes = {"f64": "d", "f32": "f", "u32": "I", "i32": "i", "u8": "B"}
    arrays = {name: struct.unpack_from(f"<{count}{codes[kind]}", blob, offset)
              for name, (offset, count, kind) in meta["arrays"].items()}
    return meta, arrays, ids


def resealed(doc, path):
    """Writes a result document with its checksum recomputed (the SHA-256 of the bytes before "checksum")."""
    doc = json.loads(json.dumps(doc))
    del doc["run"]["checksum"]
    text = json.dumps(doc, separators=(",", ":"))
    prefix = text[:-2] + ","
    with open(path, "w") as f:
        f.write(prefix + '"checksum":"sha256:' + hashlib.sha256(prefix.encode()).hexdigest() + '"}}\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    dlsim = os.path.abspath(args.dlsim)
    os.makedirs(args.work, exist_ok=True)
    os.chdir(args.work)
    for old in ("x.html", "a.html", "b.html"):
        if os.path.exists(old):
            os.remove(old)

    def report(*argv):
        return subprocess.run([dlsim, "report", *argv], capture_output=True, text=True)

    def bad(argv, pattern, what):
        done = report(*argv)
        line = done.stderr.strip()
        check(done.returncode == 2 and re.search(pattern, line) and "\n" not in line,
              f"{what}: exit {done.returncode}, {line!r}")

    subprocess.run([dlsim, "run", "--max-jobs", "20", "--policy", "srtf", "--event-log", "events.jsonl", "--out",
                    "run.json"], check=True, capture_output=True)
    subprocess.run([dlsim, "run", "--max-jobs", "10", "--event-log", "other.jsonl", "--out", "other.json"],
                   check=True, capture_output=True)
    # Good input: one page, data inline, no external resource; byte-identical when made again.
    for out in ("a.html", "b.html"):
        check(report("run.json", "--event-log", "events.jsonl", "-o", out).returncode == 0, f"{out} is written")
    page = open("a.html").read()
    check(open("b.html").read() == page, "the same inputs give the same bytes")
    check(not re.search(r"""(src|href)=["']?(https?:|//)""", page) and "@import" not in page,
          "the page loads nothing from elsewhere")

    # The Gantt's GPUs are the timeline's (--timeline numbers a node's GPUs the same way): per job, the same
    # set of (node, GPU) over srtf's preemptions and moves on 8 GPUs.
    with open("small.json", "w") as f:
        json.dump({"gpu_types": {"V100": {}}, "node_types": {"n": {"gpu_type": "V100", "gpus": 4}},
                   "racks": [{"node_type": "n", "nodes": 2}]}, f)
    subprocess.run([dlsim, "run", "--max-jobs", "40", "--policy", "srtf", "--cluster", "small.json", "--event-log",
                    "small.jsonl", "--timeline", "small-timeline.json", "--out", "small-run.json"], check=True,
                   capture_output=True)
    check(report("small-run.json", "--event-log", "small.jsonl", "-o", "small.html").returncode == 0,
          "a report of srtf on 8 GPUs")
    meta, arr, ids = page_data("small.html")
    ours = {}
    for lane, label in enumerate(meta["gantt"]["lanes"]):
        node, gpu = re.fullmatch(r"n(\d+) GPU (\d+)", label).groups()
        for i in range(arr["lane_offsets"][lane], arr["lane_offsets"][lane + 1]):
            ours.setdefault(ids[arr["slice_job"][i]], set()).add((int(node), int(gpu)))
    theirs = {}
    for e in json.load(open("small-timeline.json"))["traceEvents"]:
        if e["ph"] == "X":
            theirs.setdefault(e["name"], set()).add((e["pid"] - 1, e["tid"] - 1))
    check(ours == theirs and len(ours) == 40, "each job's GPUs in the Gantt are its GPUs in --timeline")

    # Records as dlsim writes them are read by a fast scanner; anything else (here an id with an escaped quote
    # and pending reasons) by the general parser, with the same columns for the same records.
    doc = json.load(open("run.json"))
    resealed(doc, "same.json")
    doc["jobs"][0]["job_id"] = 'a"b'
    doc["jobs"][1]["pending_reasons"] = {"resources": 1.5}
    resealed(doc, "escaped.json")
    for name in ("run", "same", "escaped"):
        check(report(f"{name}.json", "-o", f"{name}.html").returncode == 0, f"{name}.json: a report without event log")
    _, plain, plain_ids = page_data("run.html")
    _, same, same_ids = page_data("same.html")
    _, escaped, escaped_ids = page_data("escaped.html")
    check(same == plain and same_ids == plain_ids, "a result re-serialised by another writer gives the same columns")
    check(escaped_ids[0] == 'a"b' and escaped_ids[1:] == plain_ids[1:], "an escaped id is read as written")
    check(list(escaped["reason_offsets"][:3]) == [0, 0, 1] and escaped["reason_seconds"] == (1.5,),
          "pending_reasons become the per-job reason columns")
    check({k: v for k, v in escaped.items() if not k.startswith("reason_")} ==
          {k: v for k, v in plain.items() if not k.startswith("reason_")}, "the general parser gives the same columns")

    lines = open("events.jsonl").read().splitlines()
    with open("bad_line.jsonl", "w") as f:
        f.write("\n".join(lines[:2] + ['{"time": 5, "event": "start", "job_id": '] + lines[2:]) + "\n")
    bad(["run.json", "--event-log", "bad_line.jsonl", "-o", "x.html"], r"bad_line\.jsonl:3: expected a JSON object",
        "an event-log line that is not JSON names its line")
    with open("no_time.jsonl", "w") as f:
        f.write(lines[0] + "\n" + '{"event": "finish", "job_id": "0"}\n')
    bad(["run.json", "--event-log", "no_time.jsonl", "-o", "x.html"], r"no_time\.jsonl:2: time: expected a number",
        "a line without its time names the field")
    bad(["run.json", "--event-log", "other.jsonl", "-o", "x.html"], r"other\.jsonl: job \"\d+\" starts at .* in run\.json",
        "the event log of another run is refused")
    with open("backwards.jsonl", "w") as f:  # two lines of different times, the later first
        later = next(line for line in lines if json.loads(line)["time"] > json.loads(lines[0])["time"])
        f.write(later + "\n" + lines[0] + "\n")
    bad(["run.json", "--event-log", "backwards.jsonl", "-o", "x.html"], r"backwards\.jsonl:2: time .* is before",
        "lines out of time order are refused")
    bad(["events.jsonl", "-o", "x.html"], r"events\.jsonl: not a dlsim result file", "an event log given as the result")
    text = open("run.json").read()
    with open("edited.json", "w") as f:
        f.write(text.replace('"num_gpus":1', '"num_gpus":2', 1))
    bad(["edited.json", "-o", "x.html"], r"edited\.json: checksum mismatch", "a result changed after dlsim wrote it")
    with open("cut.json", "w") as f:
        f.write(text[: len(text) // 2])
    bad(["cut.json", "-o", "x.html"], r"cut\.json: no checksum", "a truncated result")
    subprocess.run([dlsim, "run", "--max-jobs", "10", "--no-job-records", "--out", "lean.json"], check=True,
                   capture_output=True)
    bad(["lean.json", "-o", "x.html"], r"lean\.json: jobs: 0 job records for the summary.s 10 jobs", "a result without job records")
    bad(["missing.json", "-o", "x.html"], r"missing\.json: cannot read", "a missing file")
    bad(["run.json"], r"expected -o FILE\.html", "no output named")
    bad(["run.json", "--event-log", "missing.jsonl", "-o", "x.html"], r"missing\.jsonl: cannot read",
        "a missing event log")
    os.makedirs("not-a-sweep", exist_ok=True)
    bad(["not-a-sweep", "-o", "x.html"], r"not-a-sweep: no index\.json", "a folder that is not a sweep's")
    check(not os.path.exists("x.html"), "no page is left behind by a failed report")
    print("test_report_cli: passed")


if __name__ == "__main__":
    main()
