# FIFO in Python: the native `fifo` with its defaults (policies/queue/fifo.cpp; type_order=fastest, no
# backfilling, no packing), decision for decision, so its results are byte-identical to `--policy fifo`.
# Shows the basic API: a queue kept from changes.arrived, declined starts and requeued jobs taken back in
# (submit time, index) order, view.job(j) fields, view.free_gpus(t), view.rate(model, t, n) to pick the
# fastest type for the gang, and decisions.start(j, t, n). Jobs start in arrival order; the first one that
# does not fit blocks the rest (head-of-line blocking). Cost per call: the jobs started, O(1) otherwise.
import bisect
from collections import deque

import dlsim


def more_room(view, free, a, b):
    """Whether type a has a larger share of its GPUs free than type b, or an equal share and more free GPUs."""
    share_a, share_b = free[a] * view.gpus_of_type(b), free[b] * view.gpus_of_type(a)
    return share_a > share_b if share_a != share_b else free[a] > free[b]


def fastest_type(view, job, free):
    """Among the job's types with room for its gang, the fastest for it, or None. Ties (every type for a job
    without a model) go to the largest share of the type's GPUs free, then the most free, then cluster order
    (type_ties=most_free, policies/type_choice.hpp)."""
    best, best_rate = None, 0.0
    n = job.num_gpus
    for t in job.runnable:
        if free[t] < n:
            continue
        r = view.rate(job.model, t, n)
        if best is None or r > best_rate or (r == best_rate and more_room(view, free, t, best)):
            best, best_rate = t, r
    return best


class Fifo(dlsim.Policy):
    def __init__(self):
        super().__init__()
        self.queue = deque()
        self.types = None

    def decide(self, view, changes, decisions):
        queue = self.queue
        queue.extend(changes.arrived)
        for j in changes.declined + changes.requeued:
            # back to its place in arrival order (declines are rare: the deque's O(n) insert is fine)
            key = (view.job(j).submit, j)
            queue.insert(bisect.bisect_left(queue, key, key=lambda i: (view.job(i).submit, i)), j)
        if not queue:
            return
        if self.types is None:
            self.types = len(view.type_names)
        free = [view.free_gpus(t) for t in range(self.types)]
        while queue:
            j = queue[0]
            job = view.job(j)
            t = fastest_type(view, job, free)
            if t is None:
                break
            decisions.start(j, t, job.num_gpus)
            free[t] -= job.num_gpus
            queue.popleft()
        if queue:
            # Why the rest waits (as the built-in fifo says): the head for GPUs, everyone else behind it.
            decisions.wait(queue[0], "resources")
            decisions.wait_rest("head_of_line", behind=queue[0])
