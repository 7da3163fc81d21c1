"""A small preemptive policy that reads most of the view (tests/test_pipe_policy.cpp runs its C++ twin and
compares the schedules): at every call, all arrived unfinished jobs are ranked by attained GPU-time
(order=las) or by iterations left (order=srpt), ties by submit time and index; walking that order, a running
job keeps its GPUs while its type has capacity left, a queued one takes the fastest type with room for its
gang; running jobs left out are preempted, then the chosen queued ones started; re-ranked every `quantum`
seconds while a job waits. Each call also checks that the mirror of the view is consistent (running
list, per-job state, GPUs held per type against free GPUs, node_with_free against free_gpus_on)."""
import dlsim


class LasLite(dlsim.Policy):
    def __init__(self, order="las", quantum=1800.0, **params):
        super().__init__()
        if order not in ("las", "srpt"):
            raise ValueError(f"order: expected las or srpt, got {order!r}")
        self.srpt = order == "srpt"
        self.quantum = dlsim.micros(quantum)
        self.active = set()

    def check_mirror(self, view, changes):
        running = view.running_jobs()
        assert len(set(running)) == len(running), f"running list with repeats: {running}"
        should_run = {j for j in self.active if view.job(j).state == "running"}
        assert set(running) == should_run, f"running list {sorted(running)} != running jobs {sorted(should_run)}"
        for t in range(len(view.type_names)):
            held = sum(view.job(j).alloc_gpus for j in running if view.job(j).gpu_type == t)
            assert held == view.gpus_of_type(t) - view.free_gpus(t), f"type {t}: {held} GPUs held"
            for k in range(1, 9):
                node = view.node_with_free(t, k)
                assert node is None or view.free_gpus_on(node) == k, f"node_with_free({t}, {k}) = {node}"
        for j in self.active:
            job = view.job(j)
            if job.state == "queued":
                assert job.alloc_gpus == 0 and job.rate == 0, f"queued job {j} holds GPUs"
            else:
                assert job.state == "running" and job.alloc_gpus > 0 and job.first_start <= view.now
        for j in changes.finished:
            job = view.job(j)
            assert job.state == "finished" and job.finish <= view.now, f"finished job {j}: {job.state}"

    def fastest(self, view, job, capacity):
        best, best_rate = None, 0.0
        for t in job.runnable:
            if capacity[t] < job.num_gpus:
                continue
            r = view.rate(job.model, t, job.num_gpus)
            if best is None or r > best_rate:
                best, best_rate = t, r
        return best

    def decide(self, view, changes, decisions):
        self.active.update(changes.arrived)
        self.active.difference_update(changes.finished)
        self.check_mirror(view, changes)
        now = view.now

        def key(j):
            job = view.job(j)
            first = job.remaining_at(now) if self.srpt else float(job.attained_at(now) * job.num_gpus)
            return (first, job.submit, j)

        capacity = [view.gpus_of_type(t) for t in range(len(view.type_names))]
        preempt, start, waiting = [], [], False
        for _, _, j in sorted(key(j) for j in self.active):
            job = view.job(j)
            if job.state == "running":
                if capacity[job.gpu_type] >= job.alloc_gpus:
                    capacity[job.gpu_type] -= job.alloc_gpus
                else:
                    preempt.append(j)
            else:
                t = self.fastest(view, job, capacity)
                if t is None:
                    waiting = True
                    continue
                capacity[t] -= job.num_gpus
                start.append((j, t))
        for j in preempt:
            decisions.preempt(j)
        for j, t in start:
            decisions.start(j, t, view.job(j).num_gpus)
        if waiting or preempt:
            decisions.next_call = now + self.quantum
