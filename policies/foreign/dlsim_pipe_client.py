#!/usr/bin/env python3
"""The reference client of dlsim's pipe protocol (policies/foreign/PIPE_PROTOCOL.md), Python standard library only.

    dlsim run --policy exec:'python3 policies/foreign/dlsim_pipe_client.py FILE.py:CLASS' [--param k=v ...]

It installs a stand-in module named `dlsim` (Policy, NEVER, seconds, micros: the names of the Python policy
API, policies/foreign/PYTHON_API.md), loads CLASS from FILE.py, and serves dlsim's calls: it keeps a mirror of the view from what
dlsim sends (jobs, free GPUs per type and node, the running list, the rate table), calls
`decide(view, changes, decisions)` and answers with the decisions. So a policy file written for the
in-process module (`--policy py:FILE.py:CLASS`) runs unchanged over the pipe.

`python3 policies/foreign/dlsim_pipe_client.py FILE.py:CLASS k=v ...` gives parameters on the command line too (the
run's --param values win). The policy's own prints go to stderr (stdout carries the protocol).
"""
import importlib.util
import json
import math
import os
import re
import sys
import traceback
import types

PROTOCOL = "dlsim.pipe/1"
NEVER = 2**63 - 1          # the engine's kNever (INT64_MAX)
NO_MODEL = 2**32 - 1       # JobInfo::model of a job without a model (runs at 1 unit/s per GPU everywhere)
STATES = ("pending", "queued", "running", "finished", "rejected")  # JobState, in the engine's order


def seconds(us):
    """Engine time (µs) to seconds, as the engine's to_seconds."""
    return us / 1e6


def micros(s):
    """Seconds to engine time: round to nearest, halves away from zero (the engine's to_time, llround)."""
    x = s * 1e6
    a = abs(x)
    r = math.floor(a)
    if a - r >= 0.5:
        r += 1
    return int(r) if x >= 0 else -int(r)


class Policy:
    """Base class of a policy: override decide(view, changes, decisions)."""

    def __init__(self, **params):
        pass

    def decide(self, view, changes, decisions):
        raise NotImplementedError("a dlsim.Policy must define decide(view, changes, decisions)")


class Job:
    """One job as the view shows it (JobInfo's fields)."""
    __slots__ = ("submit", "work", "model", "num_gpus", "min_gpus", "max_gpus", "runnable", "user", "vc",
                 "weight", "state", "first_start", "finish", "attained", "preemptions", "migrations", "gpu_type",
                 "alloc_gpus", "rate", "stint_start", "progress_from", "remaining")

    def remaining_at(self, now):
        """Iterations left at `now` (progress is fluid), as JobInfo::remaining_at."""
        if self.state != "running" or now <= self.progress_from:
            return self.remaining
        return max(0.0, self.remaining - self.rate * ((now - self.progress_from) / 1e6))

    def attained_at(self, now):
        """Wall-clock service at `now` (µs), the current allocation included, as JobInfo::attained_at."""
        return self.attained + (now - self.stint_start if self.state == "running" else 0)


class Changes:
    """What happened since the last call, in event order."""
    __slots__ = ("arrived", "finished", "requeued", "declined", "timer")


class Decisions:
    """The answer of one call: actions in order, and when to be called again."""
    __slots__ = ("actions", "next_call")

    def __init__(self):
        self.actions = []
        self.next_call = NEVER

    def start(self, j, t, n):
        self.actions.append({"start": j, "type": t, "gpus": n})

    def preempt(self, j, cause=None, by=None):
        action = {"preempt": j}
        if cause is not None:
            action["cause"] = cause
        if by is not None:
            action["by"] = by
        self.actions.append(action)

    def wait(self, j, reason, behind=None):
        action = {"wait": j, "reason": reason}
        if behind is not None:
            action["behind"] = behind
        self.actions.append(action)

    def wait_rest(self, reason, behind=None):
        action = {"wait_rest": reason}
        if behind is not None:
            action["behind"] = behind
        self.actions.append(action)

    def migrate(self, j, t):
        self.actions.append({"migrate": j, "type": t})

    def resize(self, j, n):
        self.actions.append({"resize": j, "gpus": n})

    def pack(self, j, partner):
        self.actions.append({"pack": j, "partner": partner})


class View:
    """The read-only view, mirrored from what dlsim sends (valid during a call)."""

    def __init__(self, hello):
        cluster = hello["cluster"]
        self.now = 0
        self.num_jobs = hello["num_jobs"]
        self.type_names = [t["name"] for t in cluster["types"]]
        self._capacity = [t["gpus"] for t in cluster["types"]]
        self._node_type = [n[0] for n in cluster["nodes"]]
        self._node_free = [n[1] for n in cluster["nodes"]]
        self._nodes_of_type = [[] for _ in self.type_names]
        for node, t in enumerate(self._node_type):
            self._nodes_of_type[t].append(node)
        self._free = list(self._capacity)
        self._jobs = [None] * self.num_jobs
        self._running = []
        rates = hello["rates"]
        self._measured_mode = rates["mode"] == "measured"
        self._single = [[float(x) for x in row] for row in rates["single"]]
        self._measured = {(m, t, n): float(x) for m, t, n, x in rates["measured"]}

    def gpus_of_type(self, t):
        return self._capacity[t]

    def free_gpus(self, t):
        return self._free[t]

    def free_gpus_on(self, node):
        return self._node_free[node]

    def node_with_free(self, t, k):
        """The lowest-numbered node of type t with exactly k free GPUs, or None."""
        free = self._node_free
        for node in self._nodes_of_type[t]:
            if free[node] == k:
                return node
        return None

    def running_jobs(self):
        return list(self._running)

    def rate(self, model, t, n):
        """The profile's rate of `model` on n GPUs of type t (RateModel::rate)."""
        single = 1.0 if model == NO_MODEL else self._single[model][t]
        if not self._measured_mode or model == NO_MODEL or n == 1:
            return n * single
        return self._measured.get((model, t, n), n * single)

    def job(self, j):
        job = self._jobs[j]
        if job is None:
            if not 0 <= j < self.num_jobs:
                raise IndexError(f"job {j} does not exist (the run has {self.num_jobs} jobs)")
            raise LookupError(f"job {j} has not arrived yet (the pipe sends a job when it arrives)")
        return job

    def update(self, msg):
        """Applies one call's message; returns its Changes."""
        self.now = msg["now"]
        jobs = self._jobs
        changes = Changes()
        arrived = []
        for rec in msg["arrived"]:
            job = Job()
            (j, job.submit, work, job.model, job.num_gpus, job.min_gpus, job.max_gpus, mask, job.user,
             job.vc, weight) = rec
            job.work = float(work)
            job.weight = float(weight)
            job.runnable = [t for t in range(mask.bit_length()) if (mask >> t) & 1]
            if j >= len(jobs):  # a run that did not say how many jobs it has (num_jobs 0)
                jobs.extend([None] * (j + 1 - len(jobs)))
                self.num_jobs = len(jobs)
            jobs[j] = job
            arrived.append(j)
        for rec in msg["jobs"]:
            job = jobs[rec[0]]
            (_, state, job.first_start, job.finish, job.attained, job.preemptions, job.migrations, job.gpu_type,
             job.alloc_gpus, rate, job.stint_start, job.progress_from, remaining) = rec
            job.state = STATES[state]
            job.rate = float(rate)
            job.remaining = float(remaining)
        running = msg["running"]
        lst = self._running
        n = running[0]
        if len(lst) > n:
            del lst[n:]
        elif len(lst) < n:
            lst.extend([None] * (n - len(lst)))
        for i in range(1, len(running), 2):
            lst[running[i]] = running[i + 1]
        self._free = msg["free"]
        nodes = msg["nodes"]
        free = self._node_free
        for i in range(0, len(nodes), 2):
            free[nodes[i]] = nodes[i + 1]
        changes.arrived = arrived
        changes.finished = msg["finished"]
        changes.requeued = msg["requeued"]
        changes.declined = msg["declined"]
        changes.timer = msg["timer"]
        return changes


_INT = re.compile(r"[-+]?[0-9]+\Z")
_FLOAT = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\Z")


def param_value(text):
    """A --param value as a Python value: int and float literals, true/false, else the text (policies/foreign/PYTHON_API.md)."""
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    return text


def install_module():
    """sys.modules['dlsim']: the names a policy file may use (policies/foreign/PYTHON_API.md)."""
    module = types.ModuleType("dlsim", "dlsim's Python policy API (the pipe client's stand-in)")
    module.Policy = Policy
    module.NEVER = NEVER
    module.seconds = seconds
    module.micros = micros
    Policy.__module__ = "dlsim"
    sys.modules["dlsim"] = module


def load_class(spec):
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise SystemExit(f"dlsim_pipe_client: expected FILE.py:CLASS, got '{spec}'")
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise SystemExit(f"dlsim_pipe_client: no such file '{path}'")
    module_name = os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(path))  # the policy's own helper modules next to it
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None:
        raise SystemExit(f"dlsim_pipe_client: cannot load '{path}'")
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module
    loader.loader.exec_module(module)
    cls = getattr(module, name, None)
    if cls is None:
        raise SystemExit(f"dlsim_pipe_client: {path} defines no '{name}'")
    return path, cls


def where(error, path):
    """'FILE:LINE: Type: text' for the innermost frame of the policy file in the traceback."""
    if isinstance(error, SyntaxError):  # raised while compiling the file: no frame of it in the traceback
        return f"{error.filename}:{error.lineno}: SyntaxError: {error.msg}"
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if os.path.abspath(f.filename) == path]
    frame = (ours or frames or [None])[-1]
    text = f"{type(error).__name__}: {error}"
    return f"{frame.filename}:{frame.lineno}: {text}" if frame else text


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    # The protocol owns the real stdout; anything the policy prints goes to stderr (passed through by dlsim).
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer

    def send(obj):
        out.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    install_module()
    line = inp.readline()
    if not line:
        return 0
    hello = json.loads(line)
    if hello.get("protocol") != PROTOCOL:
        send({"error": f"dlsim_pipe_client speaks {PROTOCOL}, dlsim sent {hello.get('protocol')!r}"})
        return 2
    bad = [a for a in argv[2:] if "=" not in a]
    if bad:
        send({"error": f"dlsim_pipe_client: expected k=v after FILE.py:CLASS, got '{bad[0]}'"})
        return 2
    params = {k: param_value(v) for k, v in (a.split("=", 1) for a in argv[2:])}
    params.update({k: param_value(v) for k, v in hello["params"].items()})
    path = os.path.abspath(argv[1].rpartition(":")[0])
    try:
        path, cls = load_class(argv[1])
        policy = cls(**params)
    except SystemExit as e:
        send({"error": str(e)})
        return 2
    except Exception as e:  # the policy's own error: reported to dlsim, which ends the run
        traceback.print_exc()
        send({"error": where(e, path)})
        return 1
    view = View(hello)
    send({"protocol": PROTOCOL})

    encode = json.JSONEncoder(separators=(",", ":")).encode
    decode = json.JSONDecoder().decode
    nothing = b'{"actions":[],"next_call":null}\n'  # the commonest answer, written without encoding
    for line in inp:
        changes = view.update(decode(line.decode()))
        decisions = Decisions()
        try:
            policy.decide(view, changes, decisions)
        except Exception as e:
            traceback.print_exc()
            send({"error": where(e, path)})
            return 1
        next_call = decisions.next_call
        if not decisions.actions and next_call == NEVER:
            out.write(nothing)
            continue
        reply = {"actions": decisions.actions, "next_call": None if next_call == NEVER else next_call}
        try:
            text = encode(reply)
        except (TypeError, ValueError) as e:  # e.g. a job index that is not an int
            send({"error": f"{path}: the decisions cannot be sent: {type(e).__name__}: {e}"})
            return 1
        out.write(text.encode() + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
