#!/usr/bin/env python3
"""A sweep killed with SIGKILL at 20 seeded points and resumed ends byte-identical to one never killed.

    python3 tests/scripts/test_sweep_kill_resume.py --dlsim build/dlsim --source . --work DIR

Runs a 24-run sweep once without interruption (the reference), then starts the same sweep into another
folder 20 times, killing the `dlsim sweep` process with SIGKILL each time: on even attempts after a
seeded random delay, on odd ones as soon as a result or index file is being written (a `*.tmp` file
exists) after a seeded random delay, so some kills land in the middle of a write. After each kill it
checks that no worker process of the killed sweep outlives it. Then it resumes the sweep to the end and
checks that index.csv and index.json are byte-identical to the reference's, that the same result files
exist, each byte-identical outside its `run` object and passing `dlsim validate` (its checksum), and
that no temporary file or error record is left.
The delays are drawn from a fixed seed; the machine's speed decides only how far each attempt gets.
Exit status: 0 passed, 1 failed.
"""
import argparse
import glob
import os
import random
import signal
import subprocess
import sys
import time

SEED = 20261204
ATTEMPTS = 20


def fail(message):
    print(f"test_sweep_kill_resume: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def without_run(path):
    """A result's bytes before its `run` object: the only part allowed to differ between two runs."""
    data = open(path, "rb").read()
    at = data.rfind(b'\n"run":')
    if at < 0:
        fail(f"{path}: no run object")
    return data[:at]


def processes_of(out_dir):
    """Pids of processes whose command line names the killed sweep's folder (its workers)."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            args = open(f"{d}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if out_dir.encode() in args:
            pids.append(int(d[6:]))
    return pids


def temporary_files(out_dir):
    return glob.glob(os.path.join(out_dir, "*.tmp")) + glob.glob(os.path.join(out_dir, "runs", "*.tmp"))


def temporary_state(out_dir):
    """Each temporary file with its size and modification time: a file being written changes them."""
    state = {}
    for path in temporary_files(out_dir):
        try:
            st = os.stat(path)
        except OSError:
            continue
        state[path] = (st.st_size, st.st_mtime_ns)
    return state


def being_written(out_dir, stale):
    """Whether a temporary file other than those an earlier kill left (`stale`) exists or has changed."""
    return any(stale.get(path) != st for path, st in temporary_state(out_dir).items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlsim", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    dlsim = os.path.realpath(args.dlsim)
    source = os.path.realpath(args.source)
    work = os.path.realpath(args.work)
    subprocess.run(["rm", "-rf", work], check=True)
    os.makedirs(work)
    spec = os.path.join(work, "spec.json")
    with open(spec, "w") as f:
        f.write(f"""{{"name": "kill-resume",
 "base": {{"trace": "{source}/traces/samples/gavel_mix_default.csv", "resample_rate": 3,
          "resample_jobs": 1500, "measure_jobs": "300:1200"}},
 "grid": {{"policy": ["fifo", "srtf"], "load_scale": [1, 1.5, 2], "seed": [1, 2, 3, 4]}}}}
""")
    ref = os.path.join(work, "reference")
    killed = os.path.join(work, "killed")
    t0 = time.monotonic()
    r = subprocess.run([dlsim, "sweep", spec, "--out", ref, "--jobs", "2"], capture_output=True, text=True)
    full = time.monotonic() - t0
    if r.returncode != 0:
        fail(f"the uninterrupted sweep exited {r.returncode}: {r.stderr}")

    rng = random.Random(SEED)
    mid_write = finished = 0
    for attempt in range(ATTEMPTS):
        delay = rng.uniform(0.0, 0.15 * full)
        on_write = attempt % 2 == 1
        stale = temporary_state(killed)  # left by earlier kills: overwritten when their run runs again
        p = subprocess.Popen([dlsim, "sweep", spec, "--out", killed, "--jobs", "2"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        start = time.monotonic()
        while p.poll() is None:
            elapsed = time.monotonic() - start
            if elapsed >= delay and (not on_write or being_written(killed, stale)):
                break
            if on_write and elapsed > delay + 2 * full:
                break  # nothing written for long: kill anyway
            time.sleep(0.0005)
        if p.poll() is not None:
            finished += 1
            continue
        p.send_signal(signal.SIGKILL)
        p.wait()
        mid_write += being_written(killed, stale)
        deadline = time.monotonic() + 10
        while processes_of(killed):
            if time.monotonic() > deadline:
                fail(f"attempt {attempt}: worker processes {processes_of(killed)} outlived their killed sweep")
            time.sleep(0.01)

    r = subprocess.run([dlsim, "sweep", spec, "--out", killed, "--jobs", "2"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the resumed sweep exited {r.returncode}: {r.stderr}")
    for name in ("index.csv", "index.json"):
        if open(os.path.join(ref, name), "rb").read() != open(os.path.join(killed, name), "rb").read():
            fail(f"{name} differs between {ref} and {killed}")
    ref_runs = sorted(os.listdir(os.path.join(ref, "runs")))
    killed_runs = sorted(os.listdir(os.path.join(killed, "runs")))
    if ref_runs != killed_runs:
        fail(f"different files in runs/: {sorted(set(ref_runs) ^ set(killed_runs))}")
    if len(ref_runs) != 24 or not all(n.endswith(".json") and not n.endswith(".error.json") for n in ref_runs):
        fail(f"expected 24 result files, got {ref_runs}")
    for name in ref_runs:
        if without_run(os.path.join(ref, "runs", name)) != without_run(os.path.join(killed, "runs", name)):
            fail(f"runs/{name} differs outside its run object")
        r = subprocess.run([dlsim, "validate", os.path.join(killed, "runs", name)], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"dlsim validate runs/{name} exited {r.returncode}: {r.stderr}")
    if temporary_files(killed):
        fail(f"temporary files left: {temporary_files(killed)}")
    if mid_write == 0:
        fail("no kill landed while a file was being written")
    print(f"test_sweep_kill_resume: passed: {ATTEMPTS} attempts ({ATTEMPTS - finished} killed, {mid_write} while a "
          f"file was being written, {finished} finished first), resumed equal to the uninterrupted sweep "
          f"({len(ref_runs)} runs, {full:.1f} s uninterrupted)")


if __name__ == "__main__":
    main()
