"""A policy that gives its own wait reasons (tests/sim/test_wait_reasons.cpp): it holds every job until
`hold_until` seconds, saying it declines the placements on offer, then starts jobs first come first served
while they fit and says the rest wait for GPUs."""
import dlsim


class Hold(dlsim.Policy):
    def __init__(self, hold_until=3.0, **params):
        super().__init__()
        self.hold_until = dlsim.micros(float(hold_until))
        self.queue = []

    def decide(self, view, changes, decisions):
        self.queue.extend(changes.arrived)
        if view.now < self.hold_until:
            for j in self.queue:
                decisions.wait(j, "placement_declined")
            decisions.next_call = self.hold_until
            return
        free = view.free_gpus(0)
        while self.queue and view.job(self.queue[0]).num_gpus <= free:
            j = self.queue.pop(0)
            decisions.start(j, 0, view.job(j).num_gpus)
            free -= view.job(j).num_gpus
        decisions.wait_rest("resources")
