# LAS in Python: the native `las` with its defaults (policies/queue/las.cpp: service in GPU-seconds, a 300 s
# quantum, a 1 ms margin, type_order=fastest) under the default restart model (fixed, restart_cost 0),
# decision for decision, so its results are byte-identical to `--policy las`. Shows a preemptive policy:
# a timer (decisions.next_call, changes.timer), view.running_jobs(), job.attained_at(now), and
# decisions.preempt(j) before the starts. Unlike the native policy it walks every job at every call
# (O(n log n) per call, the native `full_walk=true`); the native fast path makes the same decisions.
# Parameters: quantum (s), margin (s), service ("gpu" or "wall"), restart_cost (s: the run's fixed
# --restart-cost, which a Python policy cannot read from the view).
import bisect

import dlsim


def more_room(view, free, a, b):
    """Whether type a has a larger share of its GPUs free than type b, or an equal share and more free GPUs."""
    share_a, share_b = free[a] * view.gpus_of_type(b), free[b] * view.gpus_of_type(a)
    return share_a > share_b if share_a != share_b else free[a] > free[b]


def pick_type(view, job, capacity):
    """Among the job's types with room for its gang, the fastest for it, or None. Ties (every type for a job
    without a model) go to the largest share of the type's GPUs with capacity left, then the most, then cluster
    order (type_ties=most_free, policies/type_choice.hpp)."""
    best, best_rate = None, 0.0
    n = job.num_gpus
    for t in job.runnable:
        if capacity[t] < n:
            continue
        r = view.rate(job.model, t, n)
        if best is None or r > best_rate or (r == best_rate and more_room(view, capacity, t, best)):
            best, best_rate = t, r
    return best


class Las(dlsim.Policy):
    def __init__(self, quantum=300, margin=0.001, service="gpu", restart_cost=0):
        super().__init__()
        self.quantum = dlsim.micros(quantum)
        self.displacement = dlsim.seconds(dlsim.micros(restart_cost)) + margin  # restart cost + margin (s)
        self.gpu_service = service == "gpu"
        self.waiting = []  # sorted (service, submit, j): a waiting job's service does not change
        self.capacity = None

    def key(self, view, j):
        job = view.job(j)
        wall = dlsim.seconds(job.attained_at(view.now))
        return (wall * job.num_gpus if self.gpu_service else wall, job.submit, j)

    def decide(self, view, changes, decisions):
        waiting = self.waiting
        for j in changes.arrived:
            bisect.insort(waiting, self.key(view, j))
        for j in changes.declined + changes.requeued:
            if view.job(j).state == "queued":
                bisect.insort(waiting, self.key(view, j))
        if self.capacity is None:
            self.capacity = [view.gpus_of_type(t) for t in range(len(view.type_names))]

        # A running job is ranked by its service less what displacing it costs (so it keeps its GPUs on
        # a near tie), and walks first on a tie.
        running = []
        for j in view.running_jobs():
            service, submit, _ = self.key(view, j)
            cost = self.displacement * view.job(j).alloc_gpus if self.gpu_service else self.displacement
            running.append((service - cost, submit, j))
        running.sort()

        # The SKIP walk over both, GPUs counted per type over the whole cluster.
        capacity = list(self.capacity)
        unclaimed = sum(capacity)
        kept, starts, preempted, taken = set(), [], [], []
        r = w = 0
        while r < len(running) or (w < len(waiting) and unclaimed > 0):
            if r < len(running) and (w == len(waiting) or unclaimed == 0 or running[r][0] <= waiting[w][0]):
                j = running[r][2]
                job = view.job(j)
                if capacity[job.gpu_type] >= job.alloc_gpus:
                    capacity[job.gpu_type] -= job.alloc_gpus
                    unclaimed -= job.alloc_gpus
                    kept.add(j)
                else:
                    preempted.append(j)
                r += 1
            else:
                j = waiting[w][2]
                job = view.job(j)
                t = pick_type(view, job, capacity)
                if t is not None:
                    capacity[t] -= job.num_gpus
                    unclaimed -= job.num_gpus
                    starts.append((j, t, job.num_gpus))
                    taken.append(w)
                w += 1
        for w in reversed(taken):
            del waiting[w]
        for j in preempted:
            bisect.insort(waiting, self.key(view, j))

        # Every GPU that changes hands is released first, then the starts in walk order.
        for j in view.running_jobs():
            if j not in kept:
                decisions.preempt(j)
        for j, t, n in starts:
            decisions.start(j, t, n)
        # Re-rank at the next quantum while some job waits (the running ones' service keeps growing).
        if waiting and self.quantum > 0:
            decisions.next_call = view.now + self.quantum
