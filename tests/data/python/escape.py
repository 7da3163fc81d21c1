"""A policy that tries to end or stall dlsim's process on purpose (tests/policies/foreign/test_python_policy.cpp):
at its second call (the first starts the first job that arrived, so the run is under way) it does what
the parameter `how` names:
  sys_exit      sys.exit(0)
  os_exit       os._exit(0)
  abort         os.abort()
  sigterm       os.kill(os.getpid(), SIGTERM)
  raise_signal  signal.raise_signal(SIGTERM)
  loop          while True: pass
  sleep         time.sleep(1e9)
  stubborn      a busy loop that catches every interruption (only the grace period ends it)
  timer_now     asks to be called now (not after now)"""
import os
import signal
import sys
import time

import dlsim


class Escape(dlsim.Policy):
    def __init__(self, how, **params):  # (py_timeout is dlsim's own and never arrives)
        super().__init__()
        self.how = how
        self.calls = 0

    def decide(self, view, changes, decisions):
        self.calls += 1
        if self.calls == 1:
            for j in changes.arrived[:1]:
                job = view.job(j)
                decisions.start(j, job.runnable[0], job.num_gpus)
            return
        how = self.how
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
