"""The `dlsim` Python module (sim/python/module.cpp) from Debian's python3: dlsim.run gives what
`dlsim run` gives, built-in and Python policies (by py: form or as an object) run through it, a policy's
exception reaches the caller with its traceback, an invalid decision and a call past py_timeout are
dlsim.InputError naming the job or the limit, and dlsim.policies() lists the built-ins with their parameters.

Usage: test_module.py --module-dir DIR --dlsim BINARY --source SRC --work DIR"""
import argparse
import json
import os
import subprocess
import sys
import traceback

args = argparse.ArgumentParser()
args.add_argument("--module-dir", required=True)
args.add_argument("--dlsim", required=True)
args.add_argument("--source", required=True)
args.add_argument("--work", required=True)
a = args.parse_args()
sys.path.insert(0, a.module_dir)
import dlsim  # noqa: E402

os.makedirs(a.work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def cli(policy, out, *extra):
    subprocess.run([a.dlsim, "run", "--policy", policy, "--out", out, *extra], check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)


# dlsim.run with the defaults equals `dlsim run` with the defaults, built-in and Python policies alike.
fifo_py = os.path.join(a.source, "policies/foreign/examples/fifo.py")
native = cli("fifo", os.path.join(a.work, "cli-fifo.json"))
r = dlsim.run()
check(r["summary"] == native["summary"], "dlsim.run() summary == dlsim run's")
check(r["jobs"] == native["jobs"] and r["timeseries"] == native["timeseries"], "jobs and timeseries equal")
check(r["run_id"] == native["run_id"], "same run id")
check(r["config"]["policy"] == "fifo", "config echoes the policy")

las = cli("las", os.path.join(a.work, "cli-las.json"), "--param", "quantum=600")
r = dlsim.run(policy="las", params={"quantum": 600})
check(r["summary"] == las["summary"] and r["run_id"] == las["run_id"], "las with params: same summary and id")

r = dlsim.run(policy="py:" + fifo_py + ":Fifo", out=os.path.join(a.work, "py-fifo.json"))
check(r["summary"] == native["summary"], "py:fifo.py:Fifo through dlsim.run == native fifo")
with open(os.path.join(a.work, "py-fifo.json")) as f:
    check(json.load(f)["summary"] == r["summary"], "out= writes the result file")

# A policy object: the same schedule as the native policy.
spec = __import__("importlib.util").util.spec_from_file_location("fifo_example", fifo_py)
fifo_module = __import__("importlib.util").util.module_from_spec(spec)
spec.loader.exec_module(fifo_module)
r = dlsim.run(policy=fifo_module.Fifo())
check(r["summary"] == native["summary"], "a Fifo object == native fifo")
check(r["config"]["policy"] == "py:instance:fifo_example.Fifo", "an object's policy name: " + r["config"]["policy"])

# The call objects are re-pointed at each call: kept and used after the run, they raise.
class KeepsView(fifo_module.Fifo):
    def decide(self, view, changes, decisions):
        self.view = view
        super().decide(view, changes, decisions)


# The same three call objects at every call (no Python object per call or per job unless asked for).
class CountsObjects(fifo_module.Fifo):
    def __init__(self):
        super().__init__()
        self.ids = set()
        self.calls = 0

    def decide(self, view, changes, decisions):
        self.ids.add((id(view), id(changes), id(decisions)))
        self.calls += 1
        super().decide(view, changes, decisions)


counter = CountsObjects()
dlsim.run(policy=counter)
check(counter.calls == 2000 and len(counter.ids) == 1, f"{counter.calls} calls, {len(counter.ids)} sets of objects")

keeper = KeepsView()
check(dlsim.run(policy=keeper)["summary"] == native["summary"], "a subclass of the Fifo example == fifo")
try:
    keeper.view.now
    check(False, "a view used after its call raises")
except RuntimeError as e:
    check("valid only during the decide call" in str(e), "stale view message: " + str(e))

# Other run-config keys as keywords.
small = dlsim.run(policy="fifo", resample_rate=3, resample_jobs=200, seed=4)
check(small["summary"]["jobs"] == 200, "resample keywords reach the run")


# An exception raised in decide reaches the caller as itself, with the policy's frame in its traceback.
class Raising(dlsim.Policy):
    def decide(self, view, changes, decisions):
        if view.now > 0:
            raise LookupError("no such queue")


try:
    dlsim.run(policy=Raising())
    check(False, "an exception in decide is raised")
except LookupError as e:
    frames = traceback.extract_tb(e.__traceback__)
    check(frames[-1].name == "decide" and frames[-1].filename == __file__, "the traceback ends in decide")


# An invalid decision: dlsim.InputError (a ValueError) naming the job.
class StartTwice(dlsim.Policy):
    def decide(self, view, changes, decisions):
        for j in changes.arrived:
            job = view.job(j)
            decisions.start(j, job.runnable[0], job.num_gpus)
            decisions.start(j, job.runnable[0], job.num_gpus)


try:
    dlsim.run(policy=StartTwice())
    check(False, "an invalid decision is raised")
except dlsim.InputError as e:
    check(isinstance(e, ValueError), "dlsim.InputError is a ValueError")
    check("(index 0, " in str(e) and "py:instance:__main__.StartTwice" in str(e), "names the policy and job: " + str(e))

# A call past py_timeout in the user's own interpreter: interrupted by an asynchronous exception, raised as
# dlsim.InputError naming the limit (the process is the user's: dlsim neither exits nor changes os or signal).
escape = os.path.join(a.source, "tests", "data", "python", "escape.py")
try:
    dlsim.run(policy="py:" + escape + ":Escape", params={"how": "loop", "py_timeout": "0.3"}, max_jobs=20)
    check(False, "a call past py_timeout is raised")
except dlsim.InputError as e:
    check("did not return within 0.3 s (parameter py_timeout)" in str(e), "names the time limit: " + str(e))
check(os._exit.__module__ == "posix" and not hasattr(dlsim, "_ProcessExit"), "the user's os._exit is untouched")

try:
    dlsim.run(policy="no-such-policy")
    check(False, "an unknown policy is raised")
except dlsim.InputError as e:
    check("no-such-policy" in str(e), "unknown policy named: " + str(e))

try:
    dlsim.run(policy=42)
    check(False, "a policy that is neither a name nor an object is a TypeError")
except TypeError:
    pass

# The time helpers are the engine's.
check(dlsim.micros(1.5) == 1500000 and dlsim.micros(2.5e-6) == 3 and dlsim.seconds(2500000) == 2.5, "micros/seconds")
check(dlsim.NEVER == 2**63 - 1, "NEVER")

# The built-in policies with their parameters.
policies = {p["name"]: p for p in dlsim.policies()}
check("fifo" in policies and "las" in policies, "fifo and las listed")
type_order = [p for p in policies["fifo"]["params"] if p["name"] == "type_order"]
check(len(type_order) == 1 and type_order[0]["default"] == "fastest" and type_order[0]["type"] == "choice",
      "fifo's type_order: " + repr(type_order))
check(any(p["name"] == "quantum" and p["type"] == "double" and p["default"] == "300"
          for p in policies["las"]["params"]), "las's quantum")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("python module: all checks passed")
