# Largest gang first, a policy no built-in implements: waiting jobs start in order of decreasing gang size
# (ties by submit time, then trace order), each on the type with the most free GPUs that holds its gang,
# skipping those that do not fit (or, with strict=true, stopping at the first). Big gangs are the hardest
# to place, so they go while GPUs are free; small ones fill the gaps. Shows constructor parameters
# (--param strict=true arrives as the bool True), an ordered waiting set kept across calls with bisect,
# and view.free_gpus(t) per type. No preemption; the run's placer places.
import bisect

import dlsim


class LargestFirst(dlsim.Policy):
    def __init__(self, strict=False):
        super().__init__()
        if not isinstance(strict, bool):
            raise ValueError(f"strict: expected true or false, got {strict!r}")
        self.strict = strict
        self.waiting = []  # sorted (-gang, submit, j)

    def decide(self, view, changes, decisions):
        for j in changes.arrived + changes.declined + changes.requeued:
            job = view.job(j)
            if job.state == "queued":
                bisect.insort(self.waiting, (-job.num_gpus, job.submit, j))
        free = [view.free_gpus(t) for t in range(len(view.type_names))]
        if not any(free):
            return
        kept = []
        for i, (neg_gang, submit, j) in enumerate(self.waiting):
            gang = -neg_gang
            fits = [t for t in view.job(j).runnable if free[t] >= gang]
            if fits:
                t = max(fits, key=lambda t: (free[t], -t))  # most free GPUs, ties: cluster order
                decisions.start(j, t, gang)
                free[t] -= gang
                continue
            kept.append((neg_gang, submit, j))
            if self.strict:
                kept.extend(self.waiting[i + 1:])
                break
        self.waiting = kept
