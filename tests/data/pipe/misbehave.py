"""A pipe-protocol child that goes wrong on purpose (tests/test_pipe_policy.cpp): answers the handshake
(unless the mode is about the handshake), then misbehaves at call 2 as MODE says:
  exit-3         exits with status 3 without answering
  abort          is killed by SIGABRT
  sigterm        sends itself SIGTERM
  sigkill        sends itself SIGKILL
  sleep          never answers (dlsim's exec_timeout ends it)
  garbage        answers a line that is not JSON
  unknown-action answers an action dlsim does not know
  bad-field      answers a start whose gpus is a string
  bad-reason     says a job waits for a reason dlsim does not know
  wait-running   gives a wait reason for job 0, which runs
  twice          answers with the member "actions" twice
  start-twice    starts job 0 again (an invalid decision: the engine refuses it)
  past-call      asks to be called at time 0 (before now)
  now-call       asks to be called now (not after now)
  wrong-protocol answers the handshake with another protocol version
  no-handshake   exits at once without reading anything
  idle           never starts a job (the run ends with every job still queued)
Calls before the second (and after the first) answer with no actions."""
import json
import os
import signal
import sys
import time

mode = sys.argv[1]
if mode == "no-handshake":
    sys.exit(4)
hello = json.loads(sys.stdin.readline())
assert hello["protocol"] == "dlsim.pipe/1"
print(json.dumps({"protocol": "dlsim.pipe/0" if mode == "wrong-protocol" else "dlsim.pipe/1"}), flush=True)
call = 0
for line in sys.stdin:
    call += 1
    msg = json.loads(line)
    reply = {"actions": [], "next_call": None}
    if call == 1 and msg["arrived"] and mode != "idle":
        reply["actions"] = [{"start": msg["arrived"][0][0], "type": 0, "gpus": 1}]
    if call == 2:
        if mode == "exit-3":
            sys.exit(3)
        if mode == "abort":
            os.kill(os.getpid(), signal.SIGABRT)
        if mode == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)
        if mode == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "sleep":
            time.sleep(3600)
        if mode == "garbage":
            print("hello, this is not JSON", flush=True)
            continue
        if mode == "twice":
            print('{"actions": [], "actions": []}', flush=True)
            continue
        if mode == "unknown-action":
            reply["actions"] = [{"launch": 0}]
        if mode == "bad-field":
            reply["actions"] = [{"start": 1, "type": 0, "gpus": "one"}]
        if mode == "bad-reason":
            reply["actions"] = [{"wait": 1, "reason": "lunch"}]
        if mode == "wait-running":
            reply["actions"] = [{"wait": 0, "reason": "resources"}]
        if mode == "start-twice":
            reply["actions"] = [{"start": 0, "type": 0, "gpus": 1}]
        if mode == "past-call":
            reply["next_call"] = 0
        if mode == "now-call":
            reply["next_call"] = msg["now"]
    print(json.dumps(reply), flush=True)
