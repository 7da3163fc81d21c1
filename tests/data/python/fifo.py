"""FIFO in Python, equal to the native `fifo` with its defaults (policies/fifo.cpp, type_choice.cpp): jobs
start in arrival order on the fastest runnable type with room for the gang (the gang's rate; ties: cluster
order); nothing overtakes the head; declined and requeued jobs go back to their place in (submit, index)
order. A test fixture of the pipe protocol (tests/test_pipe_policy.cpp)."""
import bisect
from collections import deque

import dlsim


class Fifo(dlsim.Policy):
    def __init__(self, **params):
        super().__init__()
        self.queue = deque()

    def pick_type(self, view, job, available):
        best, best_rate = None, 0.0
        for t in job.runnable:
            if available[t] < job.num_gpus:
                continue
            r = view.rate(job.model, t, job.num_gpus)
            if best is None or r > best_rate:
                best, best_rate = t, r
        return best

    def decide(self, view, changes, decisions):
        queue = self.queue
        queue.extend(changes.arrived)
        for back in (changes.declined, changes.requeued):
            for j in back:
                key = (view.job(j).submit, j)
                i = bisect.bisect_left(queue, key, key=lambda k: (view.job(k).submit, k))
                queue.insert(i, j)
        available = [view.free_gpus(t) for t in range(len(view.type_names))]
        while queue:
            j = queue[0]
            job = view.job(j)
            t = self.pick_type(view, job, available)
            if t is None:
                break
            decisions.start(j, t, job.num_gpus)
            available[t] -= job.num_gpus
            queue.popleft()
