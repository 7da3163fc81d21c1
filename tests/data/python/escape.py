"""A policy that tries to end or stall dlsim's process on purpose (tests/policies/foreign/test_python_policy.cpp):
a FIFO that, at its second call (the run is under way), does what the parameter `how` names:
  sys_exit      sys.exit(0)
  os_exit       os._exit(0)
  abort         os.abort()
  sigterm       os.kill(os.getpid(), SIGTERM)
  raise_signal  signal.raise_signal(SIGTERM)
  loop          while True: pass
  sleep         time.sleep(1e9)
  stubborn      a busy loop that catches every interruption (only the grace period ends it)
  timer_now     asks to be called now (not after now)
Any other value: nothing (a well-behaved FIFO, e.g. for the other runs of a sweep)."""
import os
import signal
import sys
import time

import dlsim


def misbehave(how, view, decisions):
    if how == "sys_exit":
        sys.exit(0)
    if how == "os_exit":
        os._exit(0)
    if how == "abort":
        os.abort()
    if how == "sigterm":
        os.kill(os.getpid(), signal.SIGTERM)
    if how == "raise_signal":
        signal.raise_signal(signal.SIGTERM)
    if how == "loop":
        while True:
            pass
    if how == "sleep":
        time.sleep(1e9)
    if how == "stubborn":
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
    if how == "timer_now":
        decisions.next_call = view.now


class Escape(dlsim.Policy):
    def __init__(self, how, **params):  # (py_timeout is dlsim's own and never arrives)
        super().__init__()
        self.how = how
        self.calls = 0
        self.queue = []

    def decide(self, view, changes, decisions):
        self.calls += 1
        if self.calls == 2:
            misbehave(self.how, view, decisions)
        self.queue.extend(changes.arrived)
        self.queue.extend(changes.requeued)
        free = [view.free_gpus(t) for t in range(len(view.type_names))]
        while self.queue:
            job = view.job(self.queue[0])
            fits = [t for t in job.runnable if free[t] >= job.num_gpus]
            if not fits:
                break
            decisions.start(self.queue.pop(0), fits[0], job.num_gpus)
            free[fits[0]] -= job.num_gpus
